//! The public event enum every front-end consumes (the desktop shell, the CLI, tests). Events of one
//! turn arrive in order on one channel.

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::permissions::PermissionRequest;
use crate::tool::{Progress, ResultBlock};

/// Something that happened in the engine that a front-end may show.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    /// A tool call was received and waits for its turn.
    ToolQueued {
        /// The call.
        tool_use_id: String,
        /// The tool.
        tool_name: String,
        /// The one-line summary for the card.
        summary: String,
        /// The batch it belongs to: consecutive concurrency-safe calls share one.
        batch_id: u64,
        /// Whether the batch runs its calls in parallel.
        concurrent: bool,
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
        /// Whether it was denied by a permission decision.
        denied: bool,
        /// UI-only data (a diff...).
        display: Option<Value>,
        /// The persisted output file, when the result was too large.
        persisted_path: Option<std::path::PathBuf>,
        /// Milliseconds from start to finish.
        elapsed_ms: u64,
    },
    /// A notice for the user (a hook's message, a non-blocking hook error).
    Notice {
        /// The text.
        message: String,
    },
}

/// Where events go. Cloning shares the destination.
#[derive(Clone)]
pub struct EventSink(Arc<dyn Fn(Event) + Send + Sync>);

impl std::fmt::Debug for EventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventSink")
    }
}

impl EventSink {
    /// A sink calling `f` for each event.
    pub fn new(f: impl Fn(Event) + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// A sink that forwards to an unbounded channel (a closed channel drops events).
    pub fn channel(tx: tokio::sync::mpsc::UnboundedSender<Event>) -> Self {
        Self::new(move |e| {
            let _ = tx.send(e);
        })
    }

    /// A sink that drops everything.
    pub fn discard() -> Self {
        Self::new(|_| {})
    }

    /// Sends an event.
    pub fn emit(&self, event: Event) {
        (self.0)(event);
    }
}
