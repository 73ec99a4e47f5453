//! The model's task list, kept in the session's execution state so the UI and later calls see it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where one task stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TodoStatus {
    /// Not started.
    Pending,
    /// Being worked on now (by convention, one task at a time).
    InProgress,
    /// Done.
    Completed,
}

/// One task of the list. Field names are Claude Code's, so hooks and transcripts keep working.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TodoItem {
    /// What to do, in the imperative ("Run the tests").
    pub content: String,
    /// `pending`, `in_progress` or `completed`.
    pub status: TodoStatus,
    /// The same task in the present continuous, shown while it runs ("Running the tests").
    #[serde(rename = "activeForm")]
    pub active_form: String,
}
