//! What tools report: progress while they run, result blocks when they end, the model's task list.

use serde::{Deserialize, Serialize};

pub use crate::todo::{TodoItem, TodoStatus};

/// What the UI shows of a command's output beside the model's text (a finished call's `display`),
/// given when the output held terminal escapes: the model reads it plain (escapes gone, progress
/// redraws collapsed to their last frame), the user sees its colours.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CommandDisplay {
    /// The output as a terminal would show it: escapes kept, each line's carriage-return frames
    /// collapsed to the last one. The same head and tail the model's text holds.
    pub terminal: String,
}

/// One progress report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Progress {
    /// A chunk of a process's output (Bash: stdout and stderr as written).
    Output {
        /// The text (lossily decoded).
        text: String,
    },
    /// A short status line ("Searching… 120 matches").
    Status {
        /// The line.
        message: String,
    },
    /// How far a search (Grep, Glob) has got.
    Search {
        /// Files searched so far.
        files_searched: u64,
        /// Matches so far: matching lines for Grep, matching files for Glob.
        matches: u64,
    },
    /// The sandbox refused the command something a setting would allow (Bash, as it ends).
    SandboxRefused {
        /// What, and the setting.
        refusal: crate::sandbox::SandboxRefusal,
    },
    /// A step of a sub-agent's own conversation (an Agent call's live transcript): its text, its
    /// tool calls and their progress, its usage. Its permission requests come as the session's own
    /// `permission_requested` events, naming the Agent call.
    Subagent {
        /// The sub-agent's id (its task's and its transcript's).
        agent_id: String,
        /// What happened in it.
        event: Box<crate::event::Event>,
    },
    /// Tool-specific structured data.
    Data {
        /// The data.
        value: serde_json::Value,
    },
}

/// One block of a tool result, in the shapes the Messages API accepts inside `tool_result`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ResultBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// A base64 image.
    Image {
        /// `image/png`, `image/jpeg`, `image/gif` or `image/webp`.
        media_type: String,
        /// Base64 data.
        data: String,
    },
    /// A base64 document (PDF).
    Document {
        /// `application/pdf`.
        media_type: String,
        /// Base64 data.
        data: String,
    },
}

impl ResultBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text { text: text.into() }
    }

    /// Size counted against result budgets: text length, or the encoded data length.
    pub fn budget_chars(&self) -> usize {
        match self {
            Self::Text { text } => text.len(),
            Self::Image { data, .. } | Self::Document { data, .. } => data.len(),
        }
    }
}

/// What kind of work a tool does: front-ends choose a tool's card, icon and dialog by its kind,
/// never by its name (a renamed, an MCP or a future tool of a known kind renders right).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ToolKind {
    /// Runs a shell command (Bash).
    Shell,
    /// Changes part of a file (Edit, a notebook cell).
    FileEdit,
    /// Writes a whole file.
    FileWrite,
    /// Reads a file.
    Read,
    /// Searches names or contents (Glob, Grep, tool search).
    Search,
    /// Reaches the web (WebFetch, WebSearch).
    Fetch,
    /// Proposes a plan or changes the session's mode (ExitPlanMode).
    Plan,
    /// Starts a sub-agent.
    Agent,
    /// Keeps the model's task list.
    Todo,
    /// A tool of an MCP server.
    Mcp {
        /// The server's name.
        server: String,
        /// The tool's name on that server.
        tool: String,
    },
    /// Anything else (a background task's output, memory, a test tool).
    Other,
}

/// Which input field the user may edit before allowing a call (the dialog offers an editor for
/// it; the engine checks the edited input like any other).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum EditableField {
    /// Edit's replacement text.
    NewString,
    /// Write's content.
    Content,
    /// Bash's command.
    Command,
}

impl EditableField {
    /// The field's name in the tool's input.
    pub fn input_key(self) -> &'static str {
        match self {
            EditableField::NewString => "new_string",
            EditableField::Content => "content",
            EditableField::Command => "command",
        }
    }
}
