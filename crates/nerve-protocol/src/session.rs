//! A live session as front-ends see it: its state when it opens, and the conversation after a
//! rewind or a compaction.

use serde::{Deserialize, Serialize};

use crate::rewind::RewindReport;
use crate::transcripts::{PastCall, PromptInfo};
use crate::{HistoryMessage, PermissionMode};

/// An open session: what a front-end shows when it starts or resumes one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionState {
    /// Its id.
    pub session_id: String,
    /// The project folder.
    pub project_path: String,
    /// The worktree it works in, when it has one of its own (its tools, sandbox and checkpoints
    /// work there; its transcript stays with the project's).
    pub worktree: Option<crate::workspace::WorktreeInfo>,
    /// The current permission mode.
    pub mode: PermissionMode,
    /// The main model.
    pub model: String,
    /// How hard it thinks before answering.
    pub effort: crate::prompt::Effort,
    /// The tools the model gets.
    pub tools: Vec<String>,
    /// The conversation so far, for a resumed session.
    pub history: Vec<HistoryMessage>,
    /// Its tool calls as the live events described them (summary, batch, denial, saved output).
    pub past_calls: Vec<PastCall>,
    /// The conversation's prompts, in order (what a rewind can go back to).
    pub prompts: Vec<PromptInfo>,
    /// How much of the context window the latest response used (0 before any).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub context_tokens: u64,
    /// The model's context window.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub context_window: u64,
    /// The session's cost so far in USD (kept across resumes), when the model's price is known.
    pub session_cost_usd: Option<f64>,
    /// The session's cache reads so far, in tokens (kept across resumes).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub session_cache_read_tokens: u64,
    /// What the session's cache reads saved so far in USD, when the model's price is known.
    pub session_cache_saved_usd: Option<f64>,
    /// Problems met while starting (damaged transcript lines, MCP servers that failed, custom
    /// commands that could not be read).
    pub warnings: Vec<String>,
}

/// What a rewind did, and the conversation as it now stands (unchanged unless the conversation
/// was rewound).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RewindOutcome {
    /// What was restored, refused and cut.
    pub report: RewindReport,
    /// The conversation.
    pub history: Vec<HistoryMessage>,
    /// Its tool calls.
    pub past_calls: Vec<PastCall>,
    /// Its prompts.
    pub prompts: Vec<PromptInfo>,
}

/// What undoing a rewind did, and the conversation as it now stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RewindUndoOutcome {
    /// What came back.
    pub report: crate::rewind::RewindUndoReport,
    /// The conversation.
    pub history: Vec<HistoryMessage>,
    /// Its tool calls.
    pub past_calls: Vec<PastCall>,
    /// Its prompts.
    pub prompts: Vec<PromptInfo>,
}

/// The conversation after a compaction: the summary and what follows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CompactOutcome {
    /// The conversation.
    pub history: Vec<HistoryMessage>,
    /// Its tool calls.
    pub past_calls: Vec<PastCall>,
    /// Its prompts.
    pub prompts: Vec<PromptInfo>,
}
