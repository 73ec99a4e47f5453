//! Conversation messages as a front-end shows them: the words of the person and of the model, the
//! pictures a prompt carried, and (in a history) the calls and their results. The engine reads its
//! API messages into these, so a front-end never decodes the Messages API's block lists or tells
//! the engine's notes to the model apart from the person's words.

use serde::{Deserialize, Serialize};

use crate::tool::ResultBlock;

/// What the person wrote in a user message (a prompt). Empty for a message that only answers
/// tool calls.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UserWords {
    /// The text blocks, joined by a blank line. The context the engine adds for the model (hook
    /// output, a note that the user edited an input) is not part of it.
    pub text: String,
    /// The pictures attached to the prompt.
    pub images: Vec<MessageImage>,
    /// What else was attached to the prompt (a folder's listing, a page, another session, the
    /// terminal's selection), by what it was; what the model read of each is not repeated here.
    #[serde(default)]
    pub attachments: Vec<crate::prompt::AttachmentView>,
}

/// A picture in a user message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MessageImage {
    /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
    pub media_type: String,
    /// Base64 of the bytes.
    pub data: String,
}

/// What the model wrote in one of its messages (its tool calls have cards of their own).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AssistantWords {
    /// The text blocks, joined by a blank line.
    pub text: String,
    /// The thinking blocks, joined by a blank line.
    pub thinking: String,
}

/// One message of a conversation that is being shown again (a resumed, rewound or compacted
/// session), with the tool calls and results it holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum HistoryMessage {
    /// A prompt, or the answers to the model's tool calls (or both).
    User {
        /// The person's words.
        words: UserWords,
        /// The tool results it carries, in order.
        tool_results: Vec<PastToolResult>,
    },
    /// A message of the model.
    Assistant {
        /// The model's words.
        words: AssistantWords,
        /// The tool calls it made, in order.
        tool_uses: Vec<PastToolUse>,
    },
}

/// A tool call as the model wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PastToolUse {
    /// The call's id (what its result names).
    pub id: String,
    /// The tool the model named.
    pub name: String,
    /// The input the model gave.
    pub input: serde_json::Value,
}

/// A tool result as the model got it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PastToolResult {
    /// The id of the call it answers.
    pub tool_use_id: String,
    /// Whether it was an error.
    pub is_error: bool,
    /// Its blocks.
    pub content: Vec<ResultBlock>,
}
