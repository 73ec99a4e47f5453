//! A session's turn lock: held while a turn runs, so a rewind from elsewhere (another window, the
//! `nerve rewind` CLI) is refused instead of changing files and history under a running turn.
//! An OS file lock, so a crashed or killed process never leaves it held.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

/// How long a busy lock is tried again before it counts as held by a turn.
const RELEASE_GRACE: std::time::Duration = std::time::Duration::from_millis(300);

/// Held while a turn runs; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct TurnLock {
    _file: File,
}

/// The turn lock could not be taken.
#[derive(Debug, thiserror::Error)]
pub enum TurnRunning {
    /// A turn of the session is running.
    #[error(
        "a turn of this session is running; wait for it to end or abort it, then rewind (lock {})",
        path.display()
    )]
    Busy {
        /// The lock file.
        path: PathBuf,
    },
    /// The lock file could not be opened or locked.
    #[error("could not use the turn lock {path}: {source}")]
    Io {
        /// The lock file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

impl TurnLock {
    /// The lock file of the session whose folder is `session_dir`.
    pub fn path(session_dir: &Path) -> PathBuf {
        session_dir.join("turn.lock")
    }

    /// Takes the lock, or says that a turn holds it.
    ///
    /// A lock just let go may still be held for a moment: a process forked by another thread (a
    /// tool starting a command) shares the lock file's open description until it execs, which
    /// closes it. So a busy lock is tried again for [`RELEASE_GRACE`] before it counts as a turn.
    pub fn try_acquire(session_dir: &Path) -> Result<Self, TurnRunning> {
        let deadline = std::time::Instant::now() + RELEASE_GRACE;
        loop {
            match Self::try_once(session_dir) {
                Err(TurnRunning::Busy { .. }) if std::time::Instant::now() < deadline => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => return other,
            }
        }
    }

    fn try_once(session_dir: &Path) -> Result<Self, TurnRunning> {
        let path = Self::path(session_dir);
        let io = |source| TurnRunning::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(session_dir).map_err(io)?;
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(io)?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file }),
            Err(TryLockError::WouldBlock) => Err(TurnRunning::Busy { path }),
            Err(TryLockError::Error(e)) => Err(io(e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_is_refused_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let held = TurnLock::try_acquire(dir.path()).unwrap();
        assert!(matches!(
            TurnLock::try_acquire(dir.path()),
            Err(TurnRunning::Busy { .. })
        ));
        drop(held);
        assert!(TurnLock::try_acquire(dir.path()).is_ok());
    }
}
