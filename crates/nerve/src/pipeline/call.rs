//! A tool call as the model sent it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One `tool_use` block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The block's id (answered by the `tool_result` with the same id).
    pub id: String,
    /// The tool name the model used (may be an alias).
    pub name: String,
    /// The input, untrusted.
    pub input: Value,
}
