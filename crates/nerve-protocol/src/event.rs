//! The events every front-end consumes (the desktop shell, the CLI, tests). Events of one turn
//! arrive in order on one channel.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::message::{AssistantWords, UserWords};
use crate::permission::{PermissionMode, PermissionRequest};
use crate::sandbox::SandboxState;
use crate::tool::{Progress, ResultBlock, TodoItem, ToolKind};

/// Something that happened in the engine that a front-end may show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// The model started writing a tool call: its card can show while the input streams. The call
    /// becomes `tool_queued` when its input is complete, or `tool_input_abandoned` when the
    /// response broke off first.
    ToolInputStarted {
        /// The call.
        tool_use_id: String,
        /// The tool the model named.
        tool_name: String,
        /// What kind of work the tool does.
        kind: ToolKind,
        /// The tool's name as users read it.
        display_name: String,
    },
    /// More of a streaming call's input arrived (sent at most every 100 ms per call, and once
    /// more when the input is complete).
    ToolInputDelta {
        /// The call.
        tool_use_id: String,
        /// The file it names so far (Write, Edit).
        path: Option<String>,
        /// The text written so far past what earlier deltas gave: a Write's content, an Edit's
        /// new text, a Bash command.
        text: String,
        /// Whether `text` replaces what earlier deltas gave instead of following it.
        restart: bool,
        /// The input's size so far in bytes (JSON as the model writes it).
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        input_bytes: u64,
    },
    /// The response broke off before the call's input was complete: the call never happened (the
    /// request is sent again, or the turn ends).
    ToolInputAbandoned {
        /// The call.
        tool_use_id: String,
    },
    /// A tool call was received and waits for its turn.
    ToolQueued {
        /// The call.
        tool_use_id: String,
        /// The tool.
        tool_name: String,
        /// What kind of work the tool does (the card is chosen by it).
        kind: ToolKind,
        /// The tool's name as users read it (an MCP tool's own name and server...).
        display_name: String,
        /// The one-line summary for the card.
        summary: String,
        /// The batch it belongs to: consecutive concurrency-safe calls share one.
        batch_id: u64,
        /// Whether the batch runs its calls in parallel.
        concurrent: bool,
        /// Whether the call may destroy data (`rm -rf`, a hard reset, a forced push).
        destructive: bool,
        /// Whether it runs in the sandbox (Bash calls; `None` for tools the sandbox does not
        /// concern).
        #[serde(default)]
        sandbox: Option<SandboxState>,
    },
    /// A tool call started running (its permission check included).
    ToolStarted {
        /// The call.
        tool_use_id: String,
    },
    /// A running call reported progress.
    ToolProgress {
        /// The call.
        tool_use_id: String,
        /// The report.
        progress: Progress,
    },
    /// The user (or a rule, hook or mode) must decide on a call.
    PermissionRequested {
        /// The request, answered through the session.
        request: Box<PermissionRequest>,
    },
    /// A call finished.
    ToolCompleted {
        /// The call.
        tool_use_id: String,
        /// What the model gets.
        content: Vec<ResultBlock>,
        /// Whether it is an error result.
        is_error: bool,
        /// For an error the engine wrote (a denial, a validation failure, an interruption), the
        /// message as the user reads it; the model gets it inside `<tool_use_error>`.
        error: Option<String>,
        /// Whether it was denied by a permission decision.
        denied: bool,
        /// Whether it was stopped before it finished (the user aborted, or a parallel call failed).
        cancelled: bool,
        /// UI-only data (a diff...).
        display: Option<Value>,
        /// The persisted output file, when the result was too large.
        persisted_path: Option<std::path::PathBuf>,
        /// The persisted output file's size in bytes.
        persisted_bytes: Option<u64>,
        /// Milliseconds from start to finish.
        elapsed_ms: u64,
        /// Files the call changed, as the checkpoints recorded them (its diff comes from the
        /// session's change set for the call).
        changed_files: Vec<std::path::PathBuf>,
    },
    /// A finished call's result was replaced in the message that took it to the model: with the
    /// turn's other results it went over the per-message budget, so it was saved to a file (the
    /// model got a `<persisted-output>` preview) or, when it may not be saved, left out. From now
    /// on the call's result is this.
    ToolResultReplaced {
        /// The call.
        tool_use_id: String,
        /// What the model got instead.
        content: Vec<ResultBlock>,
        /// The file holding the whole result, when it was saved.
        persisted_path: Option<std::path::PathBuf>,
        /// The saved file's size in bytes.
        persisted_bytes: Option<u64>,
    },
    /// A notice for the user (a hook's message, a non-blocking hook error).
    Notice {
        /// The text.
        message: String,
    },
    /// Streamed assistant text.
    TextDelta {
        /// The new text.
        text: String,
    },
    /// Streamed thinking text.
    ThinkingDelta {
        /// The new text.
        text: String,
    },
    /// A complete assistant message was added to the conversation. Its tool calls have their own
    /// events (`ToolQueued`...).
    AssistantMessage {
        /// What the model wrote.
        message: AssistantWords,
    },
    /// A user message (the prompt, or tool results) was added to the conversation. Its tool
    /// results went out with `ToolCompleted`, so they are not repeated here.
    UserMessage {
        /// What the person wrote (empty for a message of tool results alone).
        message: UserWords,
    },
    /// A model request failed transiently and will be retried.
    Retrying {
        /// Which retry this is (1-based).
        attempt: u32,
        /// How long until it is sent again.
        delay_ms: u64,
        /// Why (the front-end words it).
        reason: RetryReason,
    },
    /// Token usage of one model response, and the session's totals so far.
    Usage {
        /// Input tokens of this response.
        input_tokens: u64,
        /// Output tokens of this response.
        output_tokens: u64,
        /// Cache reads of this response.
        cache_read_input_tokens: u64,
        /// Cache writes of this response.
        cache_creation_input_tokens: u64,
        /// The session's cost so far in USD, when the model's price is known.
        session_cost_usd: Option<f64>,
        /// The session's cache reads so far, in tokens.
        session_cache_read_tokens: u64,
        /// What the session's cache reads saved so far in USD (against the same tokens
        /// uncached), when the model's price is known.
        session_cache_saved_usd: Option<f64>,
        /// How much of the context window this response used (its whole input and output).
        context_tokens: u64,
        /// The model's context window.
        context_window: u64,
    },
    /// A prompt started a turn (its number is what a rewind names).
    TurnStarted {
        /// The prompt's number.
        turn: u32,
    },
    /// The turn ended.
    TurnEnded {
        /// Why.
        reason: TurnEnd,
    },
    /// The turn failed; the conversation stays valid.
    Error {
        /// What went wrong, for the user.
        message: String,
    },
    /// The session's permission mode changed (plan mode entered or left, or the user switched).
    ModeChanged {
        /// The new mode.
        mode: PermissionMode,
    },
    /// A background shell or a sub-agent of the session started or ended (also between turns: a
    /// background command may end long after the turn that started it).
    TaskChanged {
        /// The task as it is now.
        task: crate::tasks::TaskView,
    },
    /// The session's task list changed (TodoWrite).
    TodosChanged {
        /// The whole list.
        todos: Vec<TodoItem>,
    },
}

/// Why a turn ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TurnEnd {
    /// The model finished.
    EndTurn,
    /// The model hit its output limit.
    MaxTokens,
    /// The turn limit was reached.
    MaxTurns,
    /// The user aborted.
    Aborted,
    /// The user sent a new message while tools ran: the calls that may be cancelled were stopped,
    /// the others finished, and the new message starts the next turn.
    Interrupted,
    /// A hook stopped the agent.
    StoppedByHook,
    /// The model refused.
    Refusal,
    /// An error ended it.
    Error,
}

/// Why a model request is sent again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RetryReason {
    /// The API answered with a retryable status (429, 529, 5xx).
    Status {
        /// The HTTP status.
        status: u16,
        /// The error's type from the body (`overloaded_error`...), empty when it had none.
        error_type: String,
        /// The error's message from the body.
        message: String,
    },
    /// The request could not be sent, or the connection failed.
    Connection {
        /// What failed.
        message: String,
    },
    /// The response stream broke off before its content was complete.
    StreamFailed {
        /// What failed.
        message: String,
    },
}
