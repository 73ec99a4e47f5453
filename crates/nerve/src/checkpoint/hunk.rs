//! Undoing one hunk of a change: the lines the change made are found in the file as it is now and
//! replaced by the lines it replaced, so edits made around it since (by the agent or the user) stay.
//! When those lines are no longer there, or are there more than once, nothing is written and the
//! error says why.

use std::path::{Path, PathBuf};

use nerve_protocol::DiffHunk;

use crate::files::hunk_text::{Miss, undo_in};

/// Why a hunk could not be undone.
#[derive(Debug, thiserror::Error)]
pub enum HunkUndoError {
    /// The file is gone.
    #[error("{} is gone, so this change cannot be undone in it", path.display())]
    Gone {
        /// The file.
        path: PathBuf,
    },
    /// The file is outside the session's folder.
    #[error("{} is outside the session's folder", path.display())]
    Outside {
        /// The file.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    #[error("{} is not text, so a part of it cannot be undone", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The lines the change made are not in the file any more.
    #[error("the lines this change made in {} were changed since, so it cannot be undone on its own; revert the file instead", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The lines the change made are in the file more than once, none where the change put them.
    #[error("the lines this change made appear {count} times in {} and none where it put them, so which one to undo is not clear", path.display())]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// How many times.
        count: usize,
    },
    /// The file could not be read or written.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Undoes `hunk` (a change's hunk, as a change set shows it) in the file at `path`.
pub fn undo_hunk(path: &Path, hunk: &DiffHunk) -> Result<(), HunkUndoError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(HunkUndoError::Gone {
                path: path.to_path_buf(),
            });
        }
        Err(source) => {
            return Err(HunkUndoError::Io {
                what: "read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| HunkUndoError::NotText {
        path: path.to_path_buf(),
    })?;
    let undone = undo_in(&text, hunk).map_err(|e| match e {
        Miss::Changed => HunkUndoError::Changed {
            path: path.to_path_buf(),
        },
        Miss::Ambiguous(count) => HunkUndoError::Ambiguous {
            path: path.to_path_buf(),
            count,
        },
    })?;
    crate::files::write_atomic(path, undone.as_bytes()).map_err(|source| HunkUndoError::Io {
        what: "write",
        path: path.to_path_buf(),
        source,
    })
}
