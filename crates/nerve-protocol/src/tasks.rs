//! Work a session runs beside its conversation: background shells (`run_in_background`) and
//! sub-agents. Front-ends list them, follow them as they change and stop them.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Where a task is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    /// Still running.
    Running,
    /// Exited with status 0 (a sub-agent: finished its work).
    Completed,
    /// Exited with another status, or was killed by a signal it did not get from us (a sub-agent:
    /// ended with an error).
    Failed,
    /// Stopped by the user, TaskStop or the session's end.
    Killed,
    /// It was running when the app that ran it ended without saying how it finished (the app was
    /// killed or crashed): its process went with the app.
    Lost,
}

impl TaskStatus {
    /// Whether the task has ended.
    pub fn is_final(self) -> bool {
        self != TaskStatus::Running
    }
}

/// What kind of work a task does.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum TaskKind {
    /// A shell command started with `run_in_background`.
    Shell {
        /// The command as given.
        command: String,
    },
    /// A sub-agent started by an Agent call.
    Subagent {
        /// The short description the model gave it.
        description: String,
        /// Its type (`general-purpose`, `Explore`).
        subagent_type: String,
    },
}

/// One task as front-ends show it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskView {
    /// Its id: `bash_1` (what the model passes to TaskOutput and TaskStop) or the sub-agent's
    /// `agent-…` id (its transcript's name).
    pub id: String,
    /// The tool call that started it (its card links to the task).
    pub tool_use_id: String,
    /// What it does.
    pub kind: TaskKind,
    /// When it started, in milliseconds since the Unix epoch.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub started_at_ms: u64,
    /// When it ended, once it did.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub ended_at_ms: Option<u64>,
    /// Where it is.
    pub status: TaskStatus,
    /// A shell's exit code, once it exited with one.
    pub exit_code: Option<i32>,
    /// The file a shell's output is written to (read it for the live tail).
    pub output_path: Option<PathBuf>,
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}
