//! The session's record of what the model has read, so edits of files changed behind its back can
//! be refused. Bounded (LRU) so a long session cannot grow it without limit.

use std::num::NonZeroUsize;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use lru::LruCache;

/// How many files the state remembers.
pub const READ_STATE_CAPACITY: usize = 500;

/// Files up to this size are told apart by the hash of their content; a larger one by its length
/// and modification time ([`SeenContent::Large`]). Reading the last lines of a 2 GB log then costs
/// about counting its lines, not hashing 2 GB, and no tool changes a file that large in place (Edit
/// stops at 64 MB, the same size).
pub const MAX_HASHED_BYTES: u64 = 64 * 1024 * 1024;

/// How a later change tells that a file still holds what the model read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SeenContent {
    /// SHA-256 of the whole file's bytes, lowercase hex.
    Hash(String),
    /// A file over [`MAX_HASHED_BYTES`]: its length in bytes, which with the record's
    /// modification time stands for its content.
    Large {
        /// The file's length when it was read.
        len: u64,
    },
}

/// What the model saw of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileReadRecord {
    /// What identifies the content that was read.
    pub content: SeenContent,
    /// The file's modification time when it was read.
    pub modified: Option<SystemTime>,
    /// First line shown (1-based), if the read was partial.
    pub offset: Option<usize>,
    /// How many lines were shown, if the read was partial.
    pub limit: Option<usize>,
}

/// Shared, bounded map from absolute path to what was read. Cloning shares the same state; a
/// sub-agent gets a deep copy through [`ReadFileState::fork`].
#[derive(Debug, Clone)]
pub struct ReadFileState {
    inner: Arc<Mutex<LruCache<PathBuf, FileReadRecord>>>,
}

impl Default for ReadFileState {
    fn default() -> Self {
        Self::with_capacity(READ_STATE_CAPACITY)
    }
}

impl ReadFileState {
    /// A state remembering at most `capacity` files (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        let cap = NonZeroUsize::new(capacity).unwrap_or(NonZeroUsize::MIN);
        Self {
            inner: Arc::new(Mutex::new(LruCache::new(cap))),
        }
    }

    /// Records a read (or a write by the model, which counts as knowing the content).
    pub fn record(&self, path: &Path, record: FileReadRecord) {
        self.lock().put(path.to_path_buf(), record);
    }

    /// What the model last saw of `path`.
    pub fn get(&self, path: &Path) -> Option<FileReadRecord> {
        self.lock().get(path).cloned()
    }

    /// Forgets a path (for example after it was deleted).
    pub fn forget(&self, path: &Path) {
        self.lock().pop(path);
    }

    /// Every remembered file with what was seen of it.
    pub fn entries(&self) -> Vec<(PathBuf, FileReadRecord)> {
        self.lock().iter().map(|(p, r)| (p.clone(), r.clone())).collect()
    }

    /// Forgets every file `other` saw differently from this state: a sub-agent read or wrote a
    /// newer version, so an edit here must not rely on the older one (even when the file's
    /// modification time did not change in between).
    pub fn forget_changed_in(&self, other: &ReadFileState) {
        for (path, seen) in other.entries() {
            if self.get(&path).is_some_and(|mine| mine != seen) {
                self.forget(&path);
            }
        }
    }

    /// An independent copy with the same entries.
    pub fn fork(&self) -> Self {
        let guard = self.lock();
        let copy = guard.clone();
        Self {
            inner: Arc::new(Mutex::new(copy)),
        }
    }

    /// How many files are remembered.
    pub fn len(&self) -> usize {
        self.lock().len()
    }

    /// Whether nothing has been read yet.
    pub fn is_empty(&self) -> bool {
        self.lock().is_empty()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LruCache<PathBuf, FileReadRecord>> {
        // A panic while holding this lock cannot leave the cache half-updated in a harmful way
        // (every operation is a single put/get), so a poisoned lock is simply taken over.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(hash: &str) -> FileReadRecord {
        FileReadRecord {
            content: SeenContent::Hash(hash.into()),
            modified: None,
            offset: None,
            limit: None,
        }
    }

    #[test]
    fn evicts_least_recently_used() {
        let state = ReadFileState::with_capacity(2);
        state.record(Path::new("/a"), rec("1"));
        state.record(Path::new("/b"), rec("2"));
        assert!(state.get(Path::new("/a")).is_some());
        state.record(Path::new("/c"), rec("3"));
        assert!(state.get(Path::new("/b")).is_none(), "b was least recently used");
        assert_eq!(state.get(Path::new("/a")), Some(rec("1")));
        assert_eq!(state.len(), 2);
    }

    #[test]
    fn fork_is_independent() {
        let state = ReadFileState::default();
        state.record(Path::new("/a"), rec("1"));
        let fork = state.fork();
        fork.record(Path::new("/b"), rec("2"));
        assert!(state.get(Path::new("/b")).is_none());
        assert!(fork.get(Path::new("/a")).is_some());
    }
}
