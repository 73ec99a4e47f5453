//! Checkpoints: what files held before the agent changed them, so a rewind can put them back.
//!
//! Before a turn first changes a file through a tool that names it (Edit, Write, NotebookEdit, an
//! approved `sed -i`), the file's content (or its absence) is saved once per turn. A shell command
//! names no files: in a git repository git says which files are dirty before it and which changed
//! after it ([`gitwatch`]: in proportion to the change, not to the tree; the whole tree hashed
//! within limits, [`worktree`], only when git cannot answer), and what changed is saved the same
//! way; elsewhere the log says the command's changes cannot be seen. Everything lives in the session's data folder:
//! `<session>/checkpoints/log.jsonl` and `<session>/checkpoints/blobs/<sha256>`.
//!
//! [`changes`] turns the log into change sets (net diffs per file), [`restore`] puts files back.

mod blobs;
pub mod changes;
mod effect;
mod error;
mod git;
pub mod git_scope;
mod gitwatch;
pub mod hunk;
mod lock;
mod log;
pub mod restore;
pub mod review;
#[cfg(target_os = "linux")]
mod treewatch;
#[cfg(not(target_os = "linux"))]
#[path = "treewatch_elsewhere.rs"]
mod treewatch;
mod watch;
pub mod worktree;

pub use blobs::{BlobStore, Content, MAX_FILE_BYTES, content_of_bytes, content_of_file};
pub use changes::{ChangeScope, ChangeSet, FileChange, FileStatus, UnseenCall};
pub use effect::FileEffect;
pub use error::CheckpointError;
pub use lock::{TurnLock, TurnRunning};
pub use log::{CallRef, LogEntry, Seen, UnseenReason};
pub use restore::{
    CodeRewindPlan, CodeRewindReport, PlannedRestore, RefusalReason, RefusedRestore, RestoreAction,
};
pub(crate) use watch::before_call;
pub use worktree::TreeLimits;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::storage::safe_file_stem;

/// A session's checkpoints. Cloning shares them (the main agent and its sub-agents record into the
/// same turn).
#[derive(Debug, Clone)]
pub struct Checkpoints {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    session_dir: PathBuf,
    blobs: BlobStore,
    log_path: PathBuf,
    limits: TreeLimits,
    git_cache: gitwatch::GitCache,
    state: Mutex<TurnState>,
}

#[derive(Debug, Default)]
struct TurnState {
    turn: Option<u32>,
    /// Files already saved in the current turn.
    saved: HashSet<PathBuf>,
}

impl Checkpoints {
    /// The session folder of `session_id` in a project's data folder.
    pub fn session_dir(project_data_dir: &Path, session_id: &str) -> PathBuf {
        project_data_dir.join(safe_file_stem(session_id))
    }

    /// The checkpoints of the session whose folder is `session_dir` (nothing is created until a
    /// file is saved).
    pub fn open(session_dir: &Path) -> Self {
        Self::with_limits(session_dir, TreeLimits::default())
    }

    /// [`Self::open`] with other work-tree limits.
    pub fn with_limits(session_dir: &Path, limits: TreeLimits) -> Self {
        let dir = session_dir.join("checkpoints");
        Self {
            inner: Arc::new(Inner {
                session_dir: session_dir.to_path_buf(),
                blobs: BlobStore::new(dir.join("blobs")),
                log_path: dir.join("log.jsonl"),
                limits,
                git_cache: gitwatch::GitCache::default(),
                state: Mutex::new(TurnState::default()),
            }),
        }
    }

    /// The session's folder.
    pub fn session_folder(&self) -> &Path {
        &self.inner.session_dir
    }

    /// Calls from now on belong to `turn` (the number of the prompt that started it).
    pub fn begin_turn(&self, turn: u32) {
        let mut state = self.state();
        state.turn = Some(turn);
        state.saved.clear();
    }

    /// Calls from now on belong to no turn (and are not checkpointed).
    pub fn end_turn(&self) {
        let mut state = self.state();
        state.turn = None;
        state.saved.clear();
    }

    /// The current turn.
    pub fn turn(&self) -> Option<u32> {
        self.state().turn
    }

    /// Everything recorded so far.
    pub fn log(&self) -> Result<Vec<LogEntry>, CheckpointError> {
        log::read(&self.inner.log_path)
    }

    /// The saved contents.
    pub fn blobs(&self) -> &BlobStore {
        &self.inner.blobs
    }

    pub(crate) fn limits(&self) -> TreeLimits {
        self.inner.limits
    }

    pub(crate) fn git_cache(&self) -> &gitwatch::GitCache {
        &self.inner.git_cache
    }

    /// Waits until the watcher of the git work tree at `root` has listed its folders, so calls
    /// may skip `git status` (calls before then ask git); whether it has. For benchmarks and tests.
    pub fn wait_for_watcher(&self, root: &Path, timeout: std::time::Duration) -> bool {
        self.inner.git_cache.wait_watching(root, timeout)
    }

    pub(crate) fn append(&self, entry: &LogEntry) -> Result<(), CheckpointError> {
        log::append(&self.inner.log_path, entry)
    }

    /// Saves what `path` holds now as its content before `turn`, unless the turn saved it already.
    pub(crate) fn save_before(&self, turn: u32, path: &Path) -> Result<(), CheckpointError> {
        if self.already_saved(turn, path) {
            return Ok(());
        }
        let before = self.inner.blobs.capture(path)?;
        self.save_known_before(turn, path, before)
    }

    /// Records `before` as what `path` held before `turn` (already saved), unless the turn saved
    /// it already.
    pub(crate) fn save_known_before(
        &self,
        turn: u32,
        path: &Path,
        before: Content,
    ) -> Result<(), CheckpointError> {
        if self.already_saved(turn, path) {
            return Ok(());
        }
        self.append(&LogEntry::Saved {
            turn,
            path: path.to_path_buf(),
            before,
        })?;
        let mut state = self.state();
        if state.turn == Some(turn) {
            state.saved.insert(path.to_path_buf());
        }
        Ok(())
    }

    fn already_saved(&self, turn: u32, path: &Path) -> bool {
        let state = self.state();
        state.turn == Some(turn) && state.saved.contains(path)
    }

    fn state(&self) -> std::sync::MutexGuard<'_, TurnState> {
        // A panic elsewhere while holding the lock leaves plain data behind; keep using it.
        self.inner
            .state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}
