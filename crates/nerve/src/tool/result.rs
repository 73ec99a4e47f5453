//! What a tool call returns.

use serde::{Deserialize, Serialize};

pub use nerve_protocol::tool::ResultBlock;

use crate::tool::ToolUseContext;

/// A message a tool adds to the conversation besides its result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum NewMessage {
    /// A reminder the model sees on its next turn (stripped before it reaches the transcript shown to
    /// the user).
    SystemReminder {
        /// The text.
        text: String,
    },
    /// Context a hook added for the model.
    HookContext {
        /// Which hook event produced it.
        event: String,
        /// The text.
        text: String,
    },
    /// A sub-agent's whole conversation, for the transcript and the UI. Not sent to the model:
    /// the tool's result already carries the sub-agent's answer.
    SubagentTranscript {
        /// The sub-agent's id.
        agent_id: String,
        /// Its messages, as sent to the API.
        messages: serde_json::Value,
    },
    /// Structured material for the model.
    Attachment {
        /// What it is.
        label: String,
        /// The material.
        value: serde_json::Value,
    },
}

/// A change to the shared context, applied by the executor when it is safe: at once after a serial
/// call, or in call order after a concurrent batch.
pub struct ContextModifier(Box<dyn FnOnce(ToolUseContext) -> ToolUseContext + Send>);

impl ContextModifier {
    /// Wraps a function.
    pub fn new(f: impl FnOnce(ToolUseContext) -> ToolUseContext + Send + 'static) -> Self {
        Self(Box::new(f))
    }

    /// Applies the change.
    pub fn apply(self, ctx: ToolUseContext) -> ToolUseContext {
        (self.0)(ctx)
    }
}

impl std::fmt::Debug for ContextModifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ContextModifier")
    }
}

/// A successful call's output.
#[derive(Debug, Default)]
pub struct ToolOutput {
    /// The result content sent to the model.
    pub content: Vec<ResultBlock>,
    /// Structured data for the UI (a diff, a todo list...). Never sent to the model.
    pub display: Option<serde_json::Value>,
    /// Extra messages for the conversation.
    pub new_messages: Vec<NewMessage>,
    /// A change to the shared context.
    pub context_modifier: Option<ContextModifier>,
    /// A file in the session's tool results folder where the tool saved its whole output (the
    /// content is an excerpt of it); the pipeline lists it with the persisted outputs.
    pub saved_output: Option<std::path::PathBuf>,
}

impl ToolOutput {
    /// An output of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self {
            content: vec![ResultBlock::text(text)],
            ..Self::default()
        }
    }

    /// Adds UI data.
    pub fn with_display(mut self, display: serde_json::Value) -> Self {
        self.display = Some(display);
        self
    }

    /// Adds a context modifier.
    pub fn with_context_modifier(mut self, modifier: ContextModifier) -> Self {
        self.context_modifier = Some(modifier);
        self
    }
}

/// Why a call failed. The message goes to the model (sanitised); the kind goes to telemetry.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The input makes no sense for this tool right now (the model should change it).
    #[error("{0}")]
    InvalidInput(String),
    /// A file system or process error.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The call was cancelled (user abort or a failed sibling).
    #[error("interrupted: {0}")]
    Cancelled(String),
    /// The call ran out of time.
    #[error("timed out after {0} ms")]
    Timeout(u64),
    /// The tool ran and failed (a command's non-zero exit is a result, not this).
    #[error("{0}")]
    Failed(String),
    /// A failure whose result still carries content the model should see (an error result with
    /// output, such as a failing command's tail).
    #[error("{}", text_of(.0))]
    WithContent(Vec<ResultBlock>),
    /// Like [`ToolError::WithContent`], for a failure whose output also has a saved file (a failing
    /// command's spooled output, listed like a persisted output) or UI data.
    #[error("{}", text_of(content))]
    WithSavedOutput {
        /// What the model sees.
        content: Vec<ResultBlock>,
        /// The file holding the whole output, when it was saved.
        saved_output: Option<std::path::PathBuf>,
        /// UI data, as [`ToolOutput::display`] (a command's output in colour).
        display: Option<serde_json::Value>,
    },
}

/// The text of result blocks, joined by newlines (images and documents leave no text).
pub fn text_of(blocks: &[ResultBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            ResultBlock::Text { text } => Some(text.as_str()),
            ResultBlock::Image { .. } | ResultBlock::Document { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

impl ToolError {
    /// An I/O error with what was being done.
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Self::Io {
            context: context.into(),
            source,
        }
    }
}
