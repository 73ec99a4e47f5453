//! The checkpoint log: one JSON object per line, appended as files are saved, changed and put
//! back. A damaged line (a crash mid-write) is skipped when reading.

use std::fs::OpenOptions;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::checkpoint::{CheckpointError, Content};

/// The call that changed files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CallRef {
    /// The `tool_use` id.
    pub tool_use_id: String,
    /// The tool.
    pub tool_name: String,
}

/// How the engine learnt that a call changed a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Seen {
    /// The tool named the file (Edit, Write, NotebookEdit, an approved `sed -i`).
    Tool,
    /// Comparing the work tree before and after a command.
    WorkTree,
}

/// Why the engine cannot restore what a call may have changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum UnseenReason {
    /// The project is not in a git repository, so there is no work tree to compare.
    NotGitRepository,
    /// The work tree was compared: changes to its tracked and untracked, not-ignored files are
    /// restorable; ignored files and files outside it are not seen.
    OutsideWorkTree {
        /// The work tree's root.
        root: PathBuf,
    },
    /// The work tree is too large to compare within the limits; nothing the call did is seen.
    TreeTooLarge {
        /// What was over the limit.
        detail: String,
    },
    /// The comparison failed (a file could not be read or saved).
    ScanFailed {
        /// Why.
        detail: String,
    },
    /// The command runs in the background and keeps changing files after the call returns.
    Background,
}

impl std::fmt::Display for UnseenReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NotGitRepository => write!(
                f,
                "the project is not a git repository, so files a command changed cannot be seen or restored"
            ),
            Self::OutsideWorkTree { root } => write!(
                f,
                "changes inside {} (tracked and untracked, not ignored) are restorable; ignored files and files elsewhere are not",
                root.display()
            ),
            Self::TreeTooLarge { detail } => write!(
                f,
                "the work tree is too large to compare ({detail}), so files the command changed cannot be restored"
            ),
            Self::ScanFailed { detail } => write!(
                f,
                "the work tree could not be compared ({detail}), so files the command changed cannot be restored"
            ),
            Self::Background => write!(
                f,
                "the command runs in the background; files it changes cannot be seen or restored"
            ),
        }
    }
}

/// One line of the log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum LogEntry {
    /// What a file held before a turn first changed it (once per file and turn).
    Saved {
        /// The turn (its prompt's number).
        turn: u32,
        /// The file.
        path: PathBuf,
        /// Its content then.
        before: Content,
    },
    /// What a file held right after a call changed it.
    Changed {
        /// The turn.
        turn: u32,
        /// The file.
        path: PathBuf,
        /// Its content then.
        after: Content,
        /// The call.
        call: CallRef,
        /// How the change was seen.
        seen: Seen,
    },
    /// A call may have changed files the engine could not see.
    Unseen {
        /// The turn.
        turn: u32,
        /// The call.
        call: CallRef,
        /// Why.
        reason: UnseenReason,
    },
    /// A rewind put a file back.
    Restored {
        /// The prompt rewound to.
        to_turn: u32,
        /// The file.
        path: PathBuf,
        /// What it holds now.
        content: Content,
    },
}

impl LogEntry {
    /// The file the entry is about, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Saved { path, .. } | Self::Changed { path, .. } | Self::Restored { path, .. } => Some(path),
            Self::Unseen { .. } => None,
        }
    }
}

/// Appends one entry as one line.
pub(crate) fn append(path: &Path, entry: &LogEntry) -> Result<(), CheckpointError> {
    let err = |e| CheckpointError::io("write the checkpoint log", path, e);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(err)?;
    }
    let mut line = serde_json::to_string(entry).map_err(|e| err(std::io::Error::other(e)))?;
    line.push('\n');
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .map_err(err)?;
    file.write_all(line.as_bytes()).map_err(err)?;
    file.flush().map_err(err)
}

/// Reads the log; a missing log is empty, damaged lines are skipped.
pub(crate) fn read(path: &Path) -> Result<Vec<LogEntry>, CheckpointError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(CheckpointError::io("read the checkpoint log", path, e)),
    };
    let mut entries = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| CheckpointError::io("read the checkpoint log", path, e))?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(entry) => entries.push(entry),
            Err(e) => tracing::warn!(
                "{}: line {} is damaged and was skipped ({e})",
                path.display(),
                n + 1
            ),
        }
    }
    Ok(entries)
}
