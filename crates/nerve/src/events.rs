//! The public event enum every front-end consumes (the desktop shell, the CLI, tests). Events of one
//! turn arrive in order on one channel.

use std::sync::Arc;

pub use nerve_protocol::event::{Event, TurnEnd};
pub use nerve_protocol::message::{
    AssistantWords, HistoryMessage, MessageImage, PastToolResult, PastToolUse, UserWords,
};

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
