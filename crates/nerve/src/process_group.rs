//! Stopping a whole process group (a hook's `sh -c`, a Bash command's `bash -c`), through `nix`: no
//! unsafe code, one way to stop, one grace period.
//!
//! Hooks and commands run as the leader of their own process group, so `sh -c 'long_task & wait'`
//! can be stopped completely: killing only the shell would leave `long_task` running with our pipes
//! open. Every stop sends SIGTERM to the group first, so programs can clean up, and SIGKILL after
//! [`TERMINATE_GRACE`] to whatever is left.

use std::process::ExitStatus;
use std::time::Duration;

use nix::errno::Errno;
use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::process::Child;

/// Time between SIGTERM and SIGKILL, for hooks and commands alike.
pub(crate) const TERMINATE_GRACE: Duration = Duration::from_secs(2);

/// A signal we send to process groups.
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
    // pgid 0 or 1 would address our own group or every process: never one we started.
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

/// Stops group `pgid`, led by `leader`: SIGTERM, up to [`TERMINATE_GRACE`] for the leader to exit,
/// then SIGKILL to whatever is left. Returns the leader's exit status if it could be collected.
///
/// SIGKILL goes to the group even when the leader exited in time, because its children may trap
/// SIGTERM. The leader may be reaped before that SIGKILL, so in theory its pid could be reused as a
/// new group id in between; Linux hands out pids sequentially, so that would need the whole pid
/// space to wrap around within the grace period.
pub(crate) async fn terminate(pgid: u32, leader: &mut Child) -> Option<ExitStatus> {
    signal_group(pgid, GroupSignal::Terminate);
    let status = tokio::time::timeout(TERMINATE_GRACE, leader.wait())
        .await
        .ok()
        .and_then(Result::ok);
    signal_group(pgid, GroupSignal::Kill);
    match status {
        Some(status) => Some(status),
        None => match leader.wait().await {
            Ok(status) => Some(status),
            Err(error) => {
                tracing::warn!(pgid, %error, "waiting for a killed process group's leader failed");
                None
            }
        },
    }
}

/// Stops a group when dropped while armed: the future that ran it was dropped (the pipeline races
/// calls against cancellation, a `select!` elsewhere) or the session ended. SIGTERM at once, SIGKILL
/// after the grace period from a detached task. Without it, `kill_on_drop` would kill only the
/// leader and leave its children running.
#[derive(Debug)]
pub(crate) struct GroupKillGuard {
    pgid: Option<u32>,
}

impl GroupKillGuard {
    /// Guards group `pgid`.
    pub(crate) fn new(pgid: u32) -> Self {
        Self { pgid: Some(pgid) }
    }

    /// The group this guard stops, while armed.
    pub(crate) fn pgid(&self) -> Option<u32> {
        self.pgid
    }

    /// The group has been dealt with; dropping the guard does nothing.
    pub(crate) fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for GroupKillGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid {
            kill_group_in_background(pgid);
        }
    }
}

/// SIGTERM now, SIGKILL after [`TERMINATE_GRACE`], without waiting.
pub(crate) fn kill_group_in_background(pgid: u32) {
    signal_group(pgid, GroupSignal::Terminate);
    let kill = move || signal_group(pgid, GroupSignal::Kill);
    match tokio::runtime::Handle::try_current() {
        Ok(handle) => {
            handle.spawn(async move {
                tokio::time::sleep(TERMINATE_GRACE).await;
                kill();
            });
        }
        Err(_) => {
            std::thread::spawn(move || {
                std::thread::sleep(TERMINATE_GRACE);
                kill();
            });
        }
    }
}
