//! The single outcome of a call, whatever happened. Every error the engine writes for a call (as
//! opposed to one a tool returns) is built here, whichever step refused or stopped the call: the
//! loop (a broken or oversized input), the executor (an interrupt, a failed sibling, a crashed
//! task) and the pipeline's steps, so the model and the user read them in one voice.

use std::path::PathBuf;

use serde_json::Value;

use crate::errors::{ErrorClass, sanitize_for_model};
use crate::pipeline::ToolCall;
use crate::tool::{ContextModifier, NewMessage, ResultBlock};

/// The largest tool input a call may have (its JSON). A model's output limit keeps real inputs far
/// below this (a 64k-token answer is about 256 KB); anything larger comes from a broken or hostile
/// stream and would otherwise ride along in every later request.
pub const MAX_TOOL_INPUT_BYTES: usize = 1024 * 1024;

/// What the loop turns into the call's `tool_result`.
#[derive(Debug)]
pub struct CallOutcome {
    /// The call.
    pub tool_use_id: String,
    /// The tool's registered name (or the name the model used, if unknown).
    pub tool_name: String,
    /// The result content.
    pub content: Vec<ResultBlock>,
    /// Whether it is an error result.
    pub is_error: bool,
    /// For an error the engine wrote, its message as the user reads it (the model gets it inside
    /// `<tool_use_error>`); `None` for results the tool wrote.
    pub error_message: Option<String>,
    /// Whether a permission decision or hook refused the call.
    pub denied: bool,
    /// Telemetry-safe class of the failure.
    pub error_class: Option<ErrorClass>,
    /// UI-only data.
    pub display: Option<Value>,
    /// Messages to add after the results.
    pub new_messages: Vec<NewMessage>,
    /// A change to the shared context.
    pub context_modifier: Option<ContextModifier>,
    /// The file the full result went to, when it was too large.
    pub persisted_path: Option<PathBuf>,
    /// Its size in bytes, as the store wrote or found it (nobody reads the file again for it).
    pub persisted_bytes: Option<u64>,
    /// Whether the aggregate budget may persist this result later (false for Read).
    pub persistable: bool,
    /// A hook asked to stop the turn.
    pub stop_reason: Option<String>,
    /// What allowed the call, when it got past the permission step (recorded in the transcript).
    pub allowed_by: Option<crate::permissions::DecidedBy>,
    /// Files the call changed, as the checkpoints recorded them (empty without checkpoints).
    pub changed_files: Vec<PathBuf>,
}

impl CallOutcome {
    /// A result with these blocks.
    pub fn from_blocks(call: &ToolCall, tool_name: &str, content: Vec<ResultBlock>, is_error: bool) -> Self {
        Self {
            tool_use_id: call.id.clone(),
            tool_name: tool_name.to_string(),
            content,
            is_error,
            error_message: None,
            denied: false,
            error_class: None,
            display: None,
            new_messages: Vec::new(),
            context_modifier: None,
            persisted_path: None,
            persisted_bytes: None,
            persistable: true,
            stop_reason: None,
            allowed_by: None,
            changed_files: Vec::new(),
        }
    }

    /// An error result for a call whose tool is unknown.
    pub fn error(call: &ToolCall, message: String, class: ErrorClass) -> Self {
        Self::error_for(call, &call.name, message, class)
    }

    /// An error result with a sanitised message.
    pub fn error_for(call: &ToolCall, tool_name: &str, message: String, class: ErrorClass) -> Self {
        let message = sanitize_for_model(&message);
        let text = crate::errors::wrap_tool_use_error(&message);
        let mut out = Self::from_blocks(call, tool_name, vec![ResultBlock::text(text)], true);
        out.error_class = Some(class);
        out.error_message = Some(message);
        out
    }

    /// The result of a call that was interrupted before or while running.
    pub fn interrupted(call: &ToolCall, tool_name: &str) -> Self {
        Self::error_for(
            call,
            tool_name,
            "Interrupted by the user: the tool call did not run to completion.".into(),
            ErrorClass::Cancelled,
        )
    }

    /// The result of a call stopped (or never started) because the user sent a new message.
    pub fn interrupted_by_message(call: &ToolCall, tool_name: &str) -> Self {
        Self::error_for(
            call,
            tool_name,
            "Interrupted: the user sent a new message while this call ran, so it was stopped before it \
             completed."
                .into(),
            ErrorClass::Cancelled,
        )
    }

    /// The result of a call cancelled because a parallel call failed.
    pub fn sibling_failed(call: &ToolCall, tool_name: &str, failed: &str) -> Self {
        Self::error_for(
            call,
            tool_name,
            format!("Cancelled: a parallel tool call ({failed}) failed, so this one was stopped."),
            ErrorClass::Cancelled,
        )
    }

    /// The answer to a call whose input did not arrive complete (cut off at the output limit, or
    /// not JSON); `reason` is the stream's.
    pub fn broken_input(call: &ToolCall, reason: &str) -> Self {
        Self::error_for(
            call,
            &call.name,
            format!(
                "The input of this {} call did not arrive complete ({reason}); it may have been cut off by the output limit. Send the call again, with less input if it was long.",
                call.name
            ),
            ErrorClass::Validation,
        )
    }

    /// The answer to a call whose input is over [`MAX_TOOL_INPUT_BYTES`] (`size` bytes).
    pub fn oversized(call: &ToolCall, tool_name: &str, size: usize) -> Self {
        Self::error_for(
            call,
            tool_name,
            format!(
                "The input of this {tool_name} call is {:.1} MB; tool inputs are limited to {} MB, so it was not run and is not kept. Send a smaller input (for a large file, write it in parts).",
                size as f64 / (1024.0 * 1024.0),
                MAX_TOOL_INPUT_BYTES / (1024 * 1024)
            ),
            ErrorClass::Validation,
        )
    }

    /// The answer to a call whose tool panicked.
    pub fn crashed(call: &ToolCall, tool_name: &str) -> Self {
        Self::error_for(
            call,
            tool_name,
            format!("The {tool_name} tool crashed while running."),
            ErrorClass::Tool,
        )
    }

    /// Records the file the whole output went to, as the store answered.
    pub fn set_persisted(&mut self, persisted: Option<crate::budget::PersistedOutput>) {
        (self.persisted_path, self.persisted_bytes) = persisted.map(|p| (p.path, p.size_bytes)).unzip();
    }

    /// Marks the outcome as a denial.
    pub fn denied(mut self) -> Self {
        self.denied = true;
        self
    }
}
