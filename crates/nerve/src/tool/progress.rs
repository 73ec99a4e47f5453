//! Progress reported by a running tool. It reaches the front-end at once, out of band of results.

use std::sync::Arc;

pub use nerve_protocol::tool::Progress;

type Callback = Arc<dyn Fn(&str, Progress) + Send + Sync>;

/// Where a tool sends its progress. Cheap to clone; a sink with no receiver drops reports.
#[derive(Clone)]
pub struct ProgressSink {
    tool_use_id: Arc<str>,
    callback: Option<Callback>,
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProgressSink")
            .field("tool_use_id", &self.tool_use_id)
            .finish()
    }
}

impl ProgressSink {
    /// A sink calling `callback(tool_use_id, progress)` for each report.
    pub fn new(tool_use_id: &str, callback: Callback) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            callback: Some(callback),
        }
    }

    /// A sink that drops everything.
    pub fn discard(tool_use_id: &str) -> Self {
        Self {
            tool_use_id: tool_use_id.into(),
            callback: None,
        }
    }

    /// Reports progress.
    pub fn emit(&self, progress: Progress) {
        if let Some(cb) = &self.callback {
            cb(&self.tool_use_id, progress);
        }
    }

    /// Reports a status line.
    pub fn status(&self, message: impl Into<String>) {
        self.emit(Progress::Status {
            message: message.into(),
        });
    }

    /// The call this sink belongs to.
    pub fn tool_use_id(&self) -> &str {
        &self.tool_use_id
    }
}
