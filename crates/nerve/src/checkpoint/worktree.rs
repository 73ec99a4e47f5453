//! Seeing what a shell command changed: the work tree's tracked and untracked, not-ignored files
//! are hashed (and saved) before the command and hashed again after it. Only in a git repository,
//! whose ignore files say what is the project's own; bounded in files, bytes and time, so a huge
//! tree is skipped with a note instead of stalling every command.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::checkpoint::{BlobStore, Content, UnseenReason, content_of_bytes};

/// How much of a work tree is compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TreeLimits {
    /// Most files.
    pub max_files: usize,
    /// Most bytes in all.
    pub max_bytes: u64,
    /// Longest a scan may take.
    pub max_time: Duration,
}

impl Default for TreeLimits {
    fn default() -> Self {
        Self {
            max_files: 5_000,
            max_bytes: 64 * 1024 * 1024,
            max_time: Duration::from_secs(3),
        }
    }
}

/// The files of a work tree and what they hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TreeState {
    /// Absolute path to content.
    pub files: BTreeMap<PathBuf, Content>,
}

impl TreeState {
    /// The files whose content differs between `self` (before) and `after`, with their content
    /// before (absent for a new file).
    pub fn changed_in(&self, after: &TreeState) -> Vec<(PathBuf, Content)> {
        let mut changed = Vec::new();
        for (path, before) in &self.files {
            if after.files.get(path) != Some(before) {
                changed.push((path.clone(), before.clone()));
            }
        }
        for path in after.files.keys() {
            if !self.files.contains_key(path) {
                changed.push((path.clone(), Content::Absent));
            }
        }
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        changed
    }
}

/// The root of the git work tree holding `dir`, if any.
pub fn git_root(dir: &Path) -> Option<PathBuf> {
    dir.ancestors()
        .find(|d| d.join(".git").exists())
        .map(Path::to_path_buf)
}

/// Hashes every tracked and untracked, not-ignored regular file under `root` (symlinks are not
/// followed; `.git` and the `exclude`d folders are left out). With `store`, each content is also
/// saved, so it can be put back later.
pub fn scan(
    root: &Path,
    exclude: &[PathBuf],
    store: Option<&BlobStore>,
    limits: TreeLimits,
) -> Result<TreeState, UnseenReason> {
    let deadline = Instant::now() + limits.max_time;
    let exclude: Vec<PathBuf> = exclude.to_vec();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(true)
        .require_git(true)
        .follow_links(false)
        .filter_entry(move |e| e.file_name() != ".git" && !exclude.iter().any(|x| e.path().starts_with(x)))
        .build();
    let mut state = TreeState::default();
    let mut bytes = 0u64;
    for entry in walker {
        if Instant::now() > deadline {
            return Err(UnseenReason::TreeTooLarge {
                detail: format!("not done within {} ms", limits.max_time.as_millis()),
            });
        }
        let entry = entry.map_err(|e| UnseenReason::ScanFailed {
            detail: e.to_string(),
        })?;
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if state.files.len() >= limits.max_files {
            return Err(UnseenReason::TreeTooLarge {
                detail: format!("more than {} files", limits.max_files),
            });
        }
        let path = entry.path();
        let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
        bytes += size;
        if bytes > limits.max_bytes {
            return Err(UnseenReason::TreeTooLarge {
                detail: format!("more than {} bytes", limits.max_bytes),
            });
        }
        let content = match std::fs::read(path) {
            Ok(data) => match store {
                Some(store) => store.put(&data).map_err(|e| UnseenReason::ScanFailed {
                    detail: e.to_string(),
                })?,
                None => content_of_bytes(&data),
            },
            // Removed while the walk ran: it is not there.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                return Err(UnseenReason::ScanFailed {
                    detail: format!("{}: {e}", path.display()),
                });
            }
        };
        state.files.insert(path.to_path_buf(), content);
    }
    Ok(state)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn repo() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        dir
    }

    #[test]
    fn new_changed_and_removed_files_are_found_and_ignored_ones_are_not() {
        let dir = repo();
        let root = dir.path();
        std::fs::write(root.join("kept"), "same").unwrap();
        std::fs::write(root.join("edited"), "old").unwrap();
        std::fs::write(root.join("removed"), "gone soon").unwrap();
        std::fs::create_dir(root.join("target")).unwrap();
        let before = scan(root, &[], None, TreeLimits::default()).unwrap();
        std::fs::write(root.join("edited"), "new").unwrap();
        std::fs::remove_file(root.join("removed")).unwrap();
        std::fs::write(root.join("created"), "hi").unwrap();
        std::fs::write(root.join("target/build.o"), "ignored").unwrap();
        let after = scan(root, &[], None, TreeLimits::default()).unwrap();
        assert_eq!(
            before.changed_in(&after),
            vec![
                (root.join("created"), Content::Absent),
                (root.join("edited"), content_of_bytes(b"old")),
                (root.join("removed"), content_of_bytes(b"gone soon")),
            ]
        );
    }

    #[test]
    fn a_tree_over_the_limits_is_skipped_with_the_reason() {
        let dir = repo();
        for i in 0..3 {
            std::fs::write(dir.path().join(format!("f{i}")), "x").unwrap();
        }
        let limits = TreeLimits {
            max_files: 2,
            ..TreeLimits::default()
        };
        assert_eq!(
            scan(dir.path(), &[], None, limits),
            Err(UnseenReason::TreeTooLarge {
                detail: "more than 2 files".into()
            })
        );
    }
}
