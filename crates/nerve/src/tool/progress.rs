//! Progress reported by a running tool. It reaches the front-end at once, out of band of results.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

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
    /// Tool-specific structured data (a sub-agent's transcript step...).
    Data {
        /// The data.
        value: serde_json::Value,
    },
}

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
