//! Persisted tool outputs as a front-end lists, reads and searches them.

use serde::{Deserialize, Serialize};

/// One persisted output with what made it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OutputInfo {
    /// The tool that produced it.
    pub tool: String,
    /// What kind of work that tool does (the browser's icon follows it).
    pub kind: crate::tool::ToolKind,
    /// The call.
    pub tool_use_id: String,
    /// The call's one-line summary (the command, pattern or path), when its transcript has it.
    pub summary: Option<String>,
    /// The session.
    pub session_id: String,
    /// The session's title (its first prompt), empty when unknown.
    pub session_title: String,
    /// The file.
    pub path: String,
    /// Its size in bytes when written.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size_bytes: u64,
    /// When it was written (milliseconds since the Unix epoch).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub time_ms: u64,
    /// Whether the file is still there.
    pub exists: bool,
}

/// One line of an output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct OutputLine {
    /// 1-based line number.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub number: u64,
    /// The text (invalid UTF-8 replaced; cut at the engine's longest line, 2,000 characters, with a note).
    pub text: String,
}

/// A line that matched a search.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchHit {
    /// The output's call.
    pub tool_use_id: String,
    /// The output's file.
    pub path: String,
    /// The line.
    pub line: OutputLine,
}

/// What deleting outputs freed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Deleted {
    /// How many outputs were deleted.
    pub outputs: usize,
    /// Bytes freed on disk.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub bytes: u64,
}

/// A slice of a persisted tool output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PersistedChunk {
    /// The text (invalid UTF-8 replaced).
    pub text: String,
    /// Where the slice starts.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub offset: u64,
    /// Where the next chunk starts: the slice ends before a character split by the chunk size,
    /// which then arrives whole in the next chunk.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub next_offset: u64,
    /// The whole file's size.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub total_bytes: u64,
}
