//! What happened when one hook command ran: how it ended and what it printed.

use std::time::Duration;

use crate::hooks::capture::CapturedOutput;
use crate::hooks::config::CommandHook;

/// One hook command's run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookExecution {
    /// The hook that ran.
    pub hook: CommandHook,
    /// How it ended.
    pub ending: HookEnding,
    /// What it printed on stdout (capped).
    pub stdout: CapturedOutput,
    /// What it printed on stderr (capped).
    pub stderr: CapturedOutput,
    /// Wall-clock time from spawn to the end of output collection.
    pub elapsed: Duration,
}

/// How a hook command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookEnding {
    /// The shell exited with this code.
    Exited {
        /// The exit code.
        code: i32,
    },
    /// The shell was killed by a signal we did not send.
    KilledBySignal {
        /// The signal number.
        signal: i32,
    },
    /// It ran past its timeout; its process group was terminated.
    TimedOut {
        /// The configured timeout.
        after: Duration,
    },
    /// The run was cancelled; its process group was terminated.
    Cancelled,
    /// It never ran (the input could not be encoded, `sh` could not be spawned...).
    NotStarted {
        /// Why.
        reason: String,
    },
    /// It ran, but waiting for it failed, so its result is unknown.
    WaitFailed {
        /// Why.
        reason: String,
    },
}
