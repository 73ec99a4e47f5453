//! The checkpoint log: one JSON object per line, appended as files are saved, changed and put
//! back. A damaged line (a crash mid-write) is skipped when reading.

pub use nerve_protocol::checkpoint::{CallRef, Seen, UnseenReason};

use std::fs::OpenOptions;
use std::io::{BufRead as _, BufReader, Write as _};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::checkpoint::{CheckpointError, Content};

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
    /// A rewind put a file back (or an undone rewind brought it forward again).
    Restored {
        /// The prompt rewound to.
        to_turn: u32,
        /// The file.
        path: PathBuf,
        /// What it holds now.
        content: Content,
        /// What it held just before (saved, so the rewind can be undone); `None` in logs written
        /// before rewinds could be undone.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        before: Option<Content>,
        /// Which rewind of the session this was (1, 2, …); 0 for an undo and in older logs.
        #[serde(default)]
        rewind: u32,
    },
    /// Rewind number `rewind` was undone: its files hold again what they held before it.
    RewindUndone {
        /// The rewind.
        rewind: u32,
    },
}

impl LogEntry {
    /// The file the entry is about, if any.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Self::Saved { path, .. } | Self::Changed { path, .. } | Self::Restored { path, .. } => Some(path),
            Self::Unseen { .. } | Self::RewindUndone { .. } => None,
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
