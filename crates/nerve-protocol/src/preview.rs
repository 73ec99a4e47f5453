//! What the permission dialog shows beyond a call's input: the change it would make, computed by
//! the engine with the tool's own logic. A front-end shows it as it is and asks the engine again
//! when the user edits the input; it never recomputes a change itself.

use serde::{Deserialize, Serialize};

use crate::diff::{DiffHunk, FileDiff};

/// A tool's preview for the permission dialog.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PermissionPreview {
    /// A file created or changed (Edit, Write, NotebookEdit).
    FileChange {
        /// The change.
        diff: FileDiff,
        /// The file's whole text before, when small enough to send (the hunks show every change
        /// either way).
        old_text: Option<String>,
        /// The file's whole text after.
        new_text: Option<String>,
    },
    /// A `sed -i` command, simulated on copies: what it would write to each file. Approving it
    /// runs exactly this (the files are written from the simulation, if unchanged since).
    SedEdit {
        /// One change per file.
        files: Vec<SedFileChange>,
    },
}

/// One file of a simulated `sed -i` edit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SedFileChange {
    /// The file.
    pub path: String,
    /// SHA-256 of its content when simulated.
    pub old_sha256: String,
    /// SHA-256 of what sed would write.
    pub new_sha256: String,
    /// The changes.
    pub hunks: Vec<DiffHunk>,
    /// The same as a unified diff.
    pub diff: String,
}
