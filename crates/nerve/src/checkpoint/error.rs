//! Why a checkpoint could not be saved or read.

use std::path::PathBuf;

/// A checkpoint operation failed. Each names the file at fault.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// Reading or writing a file failed.
    #[error("could not {action} {path}: {source}")]
    Io {
        /// What was being done ("read", "save a checkpoint of"...).
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The file is too large to keep a copy of.
    #[error(
        "{path} is {size} bytes, more than the {limit} bytes a checkpoint keeps; it was not changed, so it can still be put back by hand"
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
    /// The path is a folder or a device, not a file the engine can keep a copy of.
    #[error("{path} is not a regular file")]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// Git could not answer for a git scope (not a repository, an unknown base).
    #[error("{command} failed: {said}")]
    Git {
        /// The command.
        command: String,
        /// What git said.
        said: String,
    },
    /// No rewind of the code is left to undo.
    #[error("there is no rewind of the code to undo in this session")]
    NothingToUndo,
    /// A base is needed: the session works in the project folder, not a worktree with its own base.
    #[error(
        "name a base (a branch, tag or commit) to compare against: this session has no worktree with a base of its own"
    )]
    NoBase,
    /// A saved content the log names is missing or damaged (the data folder was changed by hand).
    #[error("the saved content {sha256} is missing or damaged in {store}")]
    MissingContent {
        /// The content hash the log names.
        sha256: String,
        /// The blob folder.
        store: PathBuf,
    },
}

impl CheckpointError {
    pub(crate) fn io(action: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Self::Io {
            action,
            path: path.into(),
            source,
        }
    }
}
