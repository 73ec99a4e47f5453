//! Signalling a whole process group (a hook's, a Bash command's), through `nix`: no unsafe code.
//!
//! Each hook runs as the leader of its own process group, so `sh -c 'long_task & wait'` can be stopped
//! completely: killing only `sh` would leave `long_task` running with our pipes open.

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;

/// A signal we send to hook process groups.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum GroupSignal {
    /// Ask politely; scripts may trap it to clean up.
    Terminate,
    /// Force.
    Kill,
}

/// Sends `signal` to every process in group `pgid`; a group that no longer exists is not an error.
pub(crate) fn signal_group(pgid: u32, signal: GroupSignal) {
    let Ok(raw) = i32::try_from(pgid) else {
        tracing::warn!(pgid, "process group id does not fit pid_t; not signalling");
        return;
    };
    // pgid 0 or 1 would address our own group or every process: never a hook's group.
    if raw <= 1 {
        tracing::warn!(pgid, "refusing to signal a reserved process group");
        return;
    }
    let number = match signal {
        GroupSignal::Terminate => Signal::SIGTERM,
        GroupSignal::Kill => Signal::SIGKILL,
    };
    match killpg(Pid::from_raw(raw), number) {
        Ok(()) | Err(Errno::ESRCH) => {}
        Err(error) => tracing::warn!(pgid, ?signal, %error, "signalling process group failed"),
    }
}

/// Kills a hook's process group when dropped, unless disarmed.
///
/// Protects against the caller dropping the hook future (for example a `select!` elsewhere): without
/// it, `kill_on_drop` would kill only the shell and leave its children running.
pub(crate) struct GroupGuard {
    pgid: Option<u32>,
}

impl GroupGuard {
    /// Guards group `pgid`.
    pub(crate) fn new(pgid: u32) -> GroupGuard {
        GroupGuard { pgid: Some(pgid) }
    }

    /// The hook has been dealt with; dropping the guard does nothing.
    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, GroupSignal::Kill);
        }
    }
}
