//! Signalling a hook's whole process group.
//!
//! Each hook runs as the leader of its own process group, so `sh -c 'long_task & wait'` can be stopped
//! completely: killing only `sh` would leave `long_task` running with our pipes open.

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
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        tracing::warn!(pgid, "process group id does not fit pid_t; not signalling");
        return;
    };
    // pgid 0 or 1 would address our own group or every process: never a hook's group.
    if pgid <= 1 {
        tracing::warn!(pgid, "refusing to signal a reserved process group");
        return;
    }
    let number = match signal {
        GroupSignal::Terminate => libc::SIGTERM,
        GroupSignal::Kill => libc::SIGKILL,
    };
    if let Err(error) = killpg(pgid, number)
        && error.raw_os_error() != Some(libc::ESRCH)
    {
        tracing::warn!(pgid, ?signal, %error, "signalling hook process group failed");
    }
}

// `unsafe_code` is denied crate-wide; this is the one FFI call the hooks need. `killpg` takes two
// integers, touches no memory of ours and cannot cause undefined behaviour; the checks above keep it
// away from our own group and from "every process".
#[allow(unsafe_code)]
fn killpg(pgid: libc::pid_t, signal: libc::c_int) -> std::io::Result<()> {
    // SAFETY: plain syscall wrapper with integer arguments; no pointers are involved.
    let result = unsafe { libc::killpg(pgid, signal) };
    if result == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
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
