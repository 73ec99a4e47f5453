//! Rewinding a session to an earlier prompt: what a front-end asks for and what it gets back.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::checkpoint::CodeRewindReport;
use crate::transcripts::PromptInfo;

/// What to rewind.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RewindRequest {
    /// The prompt to go back to: afterwards things are as they were just before it was sent.
    pub to_turn: u32,
    /// Put files back.
    pub code: bool,
    /// Cut the conversation back.
    pub conversation: bool,
    /// Files the user agreed to overwrite although they changed on disk since the agent's change.
    #[serde(default)]
    pub confirmed: Vec<PathBuf>,
}

/// What a conversation rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConversationRewind {
    /// The prompt that was rewound (a front-end can offer its text for editing).
    pub prompt: PromptInfo,
    /// How many prompts left the conversation (that one and those after it).
    pub prompts_removed: usize,
}

/// What undoing the latest rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RewindUndoReport {
    /// The files the rewind had put back, brought forward again (absent when it left the code
    /// alone).
    pub code: Option<CodeRewindReport>,
    /// How many prompts came back into the conversation (absent when the rewind left the
    /// conversation alone).
    pub prompts_back: Option<usize>,
}

/// What a rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RewindReport {
    /// The prompt rewound to.
    pub to_turn: u32,
    /// The code part, when asked for.
    pub code: Option<CodeRewindReport>,
    /// The conversation part, when asked for.
    pub conversation: Option<ConversationRewind>,
}
