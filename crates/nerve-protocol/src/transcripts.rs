//! Transcripts: what a session leaves on disk, as a front-end lists and resumes them (the catalog, a
//! transcript's prompts and its past tool calls). "Session" means the live one; what is on disk is
//! its transcript.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A transcript found on disk, as lists show it (the CLI's `nerve sessions`, the app's sidebar).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TranscriptSummary {
    /// The id.
    pub session_id: String,
    /// The transcript.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub path: PathBuf,
    /// Last modification (milliseconds since the Unix epoch).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub modified_ms: u64,
    /// When it started (milliseconds since the Unix epoch; 0 when the transcript does not say).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_ms: u64,
    /// The name the user gave it, or else the start of its first prompt.
    pub title: String,
    /// Whether the title is a name the user gave.
    pub named: bool,
    /// Prompts sent (rewound ones included: they were sent and paid for).
    pub prompts: u32,
    /// What its model responses cost, in USD; `None` when one came from a model without a known
    /// price (a partial sum would understate it).
    pub cost_usd: Option<f64>,
    /// The session it was forked from.
    pub forked_from: Option<String>,
    /// When listed by a search: the prompt that matched (when the title did not).
    pub matched_prompt: Option<String>,
}

/// What deleting a session removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DeletedSession {
    /// Bytes freed on disk (the transcript, its checkpoints and its persisted outputs).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes: u64,
    /// Persisted outputs deleted with it.
    pub outputs: usize,
    /// The session worked in a worktree, now removed; its branch was kept because it holds work no
    /// other branch has (what was uncommitted is committed to it first).
    #[serde(default)]
    pub kept_branch: Option<String>,
}

/// A prompt of the conversation as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptInfo {
    /// Its number (what a rewind names).
    pub turn: u32,
    /// The text the user sent.
    pub text: String,
    /// When it was sent (milliseconds since the Unix epoch).
    pub time_ms: u64,
    /// The index of the message holding it in the conversation's messages (as a resumed session
    /// lists them); absent when it was compacted away.
    #[serde(default)]
    pub message_index: Option<u32>,
    /// How its turn ended; absent while it runs, or when the turn was recorded before turn ends
    /// were.
    #[serde(default)]
    pub outcome: Option<crate::TurnEnd>,
    /// When its turn ended (milliseconds since the Unix epoch).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub ended_ms: Option<u64>,
}

/// One tool call of the conversation so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PastCall {
    /// The call's id.
    pub tool_use_id: String,
    /// The tool's name.
    pub tool_name: String,
    /// What kind of work the tool does (the card is chosen by it).
    pub kind: crate::tool::ToolKind,
    /// The tool's name as users read it.
    pub display_name: String,
    /// What the call did, in one line ("src/main.rs · lines 1–200").
    pub summary: String,
    /// Calls with the same index ran as one batch; indices count up through the conversation.
    pub batch_index: u32,
    /// Whether the batch ran its calls in parallel (the executor's own partition).
    pub concurrent: bool,
    /// Whether a person or a rule refused it.
    pub denied: bool,
    /// For an error the engine wrote (a denial, a validation failure, an interruption), its message
    /// as the user reads it, as the live `tool_completed` event gives it.
    pub error: Option<String>,
    /// Whether the call may destroy data.
    pub destructive: bool,
    /// Where its whole output was saved, if it was.
    pub persisted_path: Option<PathBuf>,
    /// The saved output's size in bytes.
    pub persisted_bytes: Option<u64>,
    /// Files the call changed, as the checkpoints recorded them.
    pub changed_files: Vec<PathBuf>,
}

/// A sub-agent's conversation as it was when it ended (a resumed session's Agent card opens it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SubagentTranscript {
    /// The sub-agent.
    pub agent_id: String,
    /// Its messages: the brief it got, its words, its calls and their results.
    pub history: Vec<crate::HistoryMessage>,
    /// Its calls as the live events described them.
    pub past_calls: Vec<PastCall>,
}

/// Where in a session a search hit is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SearchHitKind {
    /// The session's name.
    Title,
    /// A prompt the user wrote.
    Prompt,
    /// Text the model wrote.
    Reply,
    /// A tool call's input (a command, a path, a pattern).
    ToolCall,
    /// A tool call's result.
    ToolResult,
}

/// A piece of a hit's snippet: matched words are marked, so a front-end highlights them without
/// parsing markers out of text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnippetPart {
    /// The text.
    pub text: String,
    /// Whether it matched the query.
    pub matched: bool,
}

/// One place in a project's sessions where a search matched (the index's best first).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionSearchHit {
    /// The session.
    pub session_id: String,
    /// Its title as lists show it.
    pub title: String,
    /// Where the match is.
    pub kind: SearchHitKind,
    /// The prompt's number the hit belongs to (0: before the first prompt).
    pub turn: u32,
    /// The call a tool input or result hit belongs to (its card).
    pub tool_use_id: Option<String>,
    /// The words around the match.
    pub snippet: Vec<SnippetPart>,
    /// When the session last changed, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub modified_ms: u64,
}
