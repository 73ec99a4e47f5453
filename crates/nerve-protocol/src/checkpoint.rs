//! What the engine's checkpoints tell a front-end: the files a session, a turn or a call changed
//! (with their diffs), and the plan and outcome of putting code back to an earlier turn.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::diff::DiffHunk;

/// A file's content at some moment: absent, or saved under its hash.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Content {
    /// There was no file.
    Absent,
    /// The file held these bytes.
    Present {
        /// SHA-256 of the bytes (lowercase hex).
        sha256: String,
        /// Their length.
        size: u64,
    },
}

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
    /// Read from git (a git scope), not from the session's checkpoints.
    Git,
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

/// Which changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ChangeScope {
    /// Everything the session changed: each file's first saved content against what it holds now.
    Session,
    /// What one turn did: each file's content before the turn against what the turn left (not
    /// what later turns made of it, so a turn's card keeps showing its own change).
    Turn {
        /// The turn (its prompt's number).
        turn: u32,
    },
    /// What one call did: each file it changed, just before the call against right after it (a
    /// tool card's diff).
    Call {
        /// The call's `tool_use` id.
        tool_use_id: String,
    },
    /// What git sees uncommitted in the session's folder (its worktree, when it has one): the work
    /// tree and new files against the last commit.
    GitUncommitted,
    /// What is staged for the next commit: the index against the last commit.
    GitStaged,
    /// The work tree against where it forked from a base: `base` (a branch, tag or commit), or for
    /// a session in a worktree the commit its worktree started from.
    GitBase {
        /// The base; `None`: the session's worktree's base.
        base: Option<String>,
    },
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum FileStatus {
    /// It did not exist.
    Created,
    /// It existed and holds something else.
    Modified,
    /// It existed and is gone.
    Deleted,
    /// It moved here from `renamed_from` (git scopes), its content the same or changed.
    Renamed,
}

/// The net change of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileChange {
    /// The file.
    pub path: PathBuf,
    /// Created, modified, deleted or renamed.
    pub status: FileStatus,
    /// Lines added.
    pub added: usize,
    /// Lines removed.
    pub removed: usize,
    /// Either side is not UTF-8 text: no hunks, no line counts.
    pub binary: bool,
    /// Where a renamed file was (status `renamed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub renamed_from: Option<PathBuf>,
    /// The diff (empty for binary files).
    pub hunks: Vec<DiffHunk>,
    /// How the engine saw the change (a tool naming the file, or a work-tree comparison).
    pub seen: Seen,
    /// The calls that changed it, in order.
    pub calls: Vec<CallRef>,
}

/// A call whose changes (some or all) the engine cannot restore.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct UnseenCall {
    /// The turn.
    pub turn: u32,
    /// The call.
    pub call: CallRef,
    /// Why.
    pub reason: UnseenReason,
    /// The reason in words, for the user.
    pub message: String,
}

/// The changes of a turn or a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeSet {
    /// Which changes.
    pub scope: ChangeScope,
    /// Files whose content differs, by path.
    pub files: Vec<FileChange>,
    /// Calls whose changes cannot all be restored.
    pub unseen: Vec<UnseenCall>,
}

impl ChangeSet {
    /// Lines added and removed over every file.
    pub fn totals(&self) -> (usize, usize) {
        self.files
            .iter()
            .fold((0, 0), |(a, r), f| (a + f.added, r + f.removed))
    }
}

/// What restoring a file does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RestoreAction {
    /// Writes the earlier content back (also re-creating a file the agent deleted).
    Write,
    /// Deletes the file: the agent created it after that prompt.
    Delete,
}

/// One file a rewind would put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlannedRestore {
    /// The file.
    pub path: PathBuf,
    /// What restoring it does.
    pub action: RestoreAction,
    /// What it will hold (absent for a deletion).
    pub target: Content,
    /// What it holds now.
    pub current: Content,
    /// What the agent (or the last rewind) left in it.
    pub expected: Content,
    /// Someone else changed it since the agent did: restoring needs the user's confirmation.
    pub changed_on_disk: bool,
}

/// Everything a code rewind would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CodeRewindPlan {
    /// The prompt rewound to (files return to how they were just before it).
    pub to_turn: u32,
    /// The files to put back (files already as they were are left out).
    pub files: Vec<PlannedRestore>,
    /// Calls since that prompt whose changes cannot all be restored.
    pub unseen: Vec<UnseenCall>,
}

/// Why a file was not put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum RefusalReason {
    /// It changed on disk since the agent's change and the user did not confirm overwriting it.
    ChangedOnDisk,
    /// It changed between the plan and applying it.
    ChangedSincePlan,
    /// Writing or deleting it failed.
    Failed {
        /// Why.
        message: String,
    },
}

/// A file that was not put back.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RefusedRestore {
    /// The file.
    pub path: PathBuf,
    /// Why.
    pub reason: RefusalReason,
}

/// What a code rewind did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CodeRewindReport {
    /// The prompt rewound to.
    pub to_turn: u32,
    /// Files put back.
    pub restored: Vec<PlannedRestore>,
    /// Files left as they are.
    pub refused: Vec<RefusedRestore>,
    /// Calls since that prompt whose changes could not all be restored.
    pub unseen: Vec<UnseenCall>,
}

/// A comment on lines of a changed file, sent back to the agent as part of a review.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReviewComment {
    /// The file (absolute, or relative to the session's folder).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub path: PathBuf,
    /// The first line commented on (1-based, in the file as it is now).
    pub line: u32,
    /// The last line, for a range.
    pub end_line: Option<u32>,
    /// What the reviewer says.
    pub text: String,
}
