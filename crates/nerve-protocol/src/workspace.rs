//! Workspaces: a session working in a git worktree of its own, on its own branch, and how its work
//! lands in the main checkout (or is thrown away).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A session's worktree, as the engine created it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorktreeInfo {
    /// The session working in it.
    pub session_id: String,
    /// The worktree's folder (under Nerve's data folder, outside the project).
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub path: PathBuf,
    /// The folder the session works in: the worktree, or the same subfolder of it that the project
    /// is of its repository.
    #[cfg_attr(feature = "ts", ts(type = "string"))]
    pub work_dir: PathBuf,
    /// Its branch (`nerve/<title>`).
    pub branch: String,
    /// Whether the branch is named after the session's title; a worktree made before the session
    /// had one is named after its id until its first prompt, then renamed after it.
    #[serde(default)]
    pub named: bool,
    /// The commit it started from.
    pub base_commit: String,
    /// The branch the main checkout was on when it started (`None`: a detached HEAD).
    pub base_branch: Option<String>,
    /// When it was created (milliseconds since the Unix epoch).
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub created_ms: u64,
}

/// A worktree as lists show it: where it stands against its base.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorktreeStatus {
    /// The worktree.
    pub info: WorktreeInfo,
    /// Commits on its branch since the base commit.
    pub ahead: u32,
    /// Commits on the base branch since the base commit (0 for a detached base).
    pub behind: u32,
    /// Files changed in the worktree and not committed.
    pub uncommitted: u32,
    /// Its folder is gone (removed by hand); `clean` forgets it.
    pub missing: bool,
    /// Its session's transcript is gone (deleted); `clean` removes it.
    pub orphaned: bool,
}

/// What cleaning a project's worktrees did (those whose session or folder is gone).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CleanReport {
    /// Worktrees removed.
    pub removed: Vec<WorktreeInfo>,
    /// Branches kept because they have commits no other branch has.
    pub kept_branches: Vec<String>,
    /// Worktrees left alone, and why.
    pub kept: Vec<KeptWorktree>,
}

/// A worktree cleaning left alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct KeptWorktree {
    /// The worktree.
    pub info: WorktreeInfo,
    /// Why it was kept.
    pub why: String,
}

/// How a worktree's work lands in the main checkout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum LandStrategy {
    /// A merge commit joining the session's branch.
    Merge,
    /// All of the session's work as one new commit on the current branch.
    Squash,
    /// The session's commits copied one by one onto the current branch.
    CherryPick,
}

/// What landing did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Landed {
    /// How.
    pub strategy: LandStrategy,
    /// The commit made in the worktree first for its uncommitted changes, if any.
    pub committed_first: Option<String>,
    /// The main checkout's HEAD after landing.
    pub head: String,
    /// The files the landing changed in the main checkout.
    pub files: Vec<String>,
}

/// What landing came to: done, or stopped by a conflict with the main checkout left as it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum LandOutcome {
    /// The work is in the main checkout.
    Landed(Landed),
    /// Both sides changed the same lines; nothing was changed in the main checkout.
    Conflict {
        /// The session's branch.
        branch: String,
        /// Each conflicting file with both sides.
        files: Vec<ConflictFile>,
    },
}

/// What a new worktree is made from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NewWorktree {
    /// The branch, tag or commit to start from (`None`: the main checkout's HEAD).
    pub base: Option<String>,
    /// What the branch is named after (`nerve/<slug of this>`); `None`: the session's id.
    pub name: Option<String>,
}

/// One file both sides changed, as a conflict shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ConflictFile {
    /// The path, relative to the repository.
    pub path: String,
    /// The main checkout's version (`None`: deleted there, or not text).
    pub ours: Option<String>,
    /// The session's version (`None`: deleted there, or not text).
    pub theirs: Option<String>,
}

/// What discarding a worktree would lose, said before it is done.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiscardPreview {
    /// The worktree.
    pub info: WorktreeInfo,
    /// Files changed and not committed (`git status --short` lines).
    pub uncommitted: Vec<String>,
    /// Commits on the branch that no other branch has (their subject lines), lost unless the
    /// branch is kept.
    pub unmerged_commits: Vec<String>,
}

/// When a new session of the desktop app gets a worktree of its own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum WorktreeWhen {
    /// When another session of the project is live (two agents never share one folder).
    #[default]
    Parallel,
    /// Always (in a git repository).
    Always,
    /// Never: every session works in the project folder.
    Never,
}

impl WorktreeWhen {
    /// Whether a new session gets a worktree, when `others_live` sessions of its project run.
    pub fn wants(self, others_live: usize) -> bool {
        match self {
            Self::Parallel => others_live > 0,
            Self::Always => true,
            Self::Never => false,
        }
    }
}
