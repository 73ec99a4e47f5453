//! Listing the project's files as Glob and Grep see them: ignore files honoured, hidden files and
//! `.git` left out, links not followed.

use std::path::Path;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

/// What a walk found: files and folders, relative to the root, `/`-separated.
#[derive(Debug, Default)]
pub(super) struct Listing {
    pub files: Vec<Box<str>>,
    pub dirs: Vec<Box<str>>,
    /// Whether the walk stopped at the cap.
    pub truncated: bool,
}

fn builder(dir: &Path) -> WalkBuilder {
    let mut walk = WalkBuilder::new(dir);
    walk.hidden(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        // Ignore files in the folders above `dir` apply too (a folder listed again after a change
        // keeps the project's rules).
        .parents(true)
        .follow_links(false);
    walk
}

/// `path` relative to `root`, `/`-separated; `None` outside the root or for a name that is not
/// UTF-8 (it cannot be typed after `@`).
pub(super) fn relative(root: &Path, path: &Path) -> Option<Box<str>> {
    let relative = path.strip_prefix(root).ok()?;
    let text = relative.to_str()?;
    if text.is_empty() {
        return None;
    }
    Some(text.replace(std::path::MAIN_SEPARATOR, "/").into_boxed_str())
}

/// Walks `dir` (inside `root`) on every core; `depth` limits it (1: the folder's own entries).
/// `on_dir` sees each folder before its entries are read, so a watch placed there misses nothing.
pub(super) fn walk(
    root: &Path,
    dir: &Path,
    depth: Option<usize>,
    cap: usize,
    on_dir: &(dyn Fn(&Path) + Sync),
) -> Listing {
    let found = Mutex::new(Listing::default());
    let count = std::sync::atomic::AtomicUsize::new(0);
    builder(dir).max_depth(depth).build_parallel().run(|| {
        let found = &found;
        let count = &count;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let Some(kind) = entry.file_type() else {
                return WalkState::Continue;
            };
            if kind.is_dir() {
                on_dir(entry.path());
                if let Some(rel) = relative(root, entry.path()) {
                    lock(found).dirs.push(rel);
                }
                return WalkState::Continue;
            }
            if !kind.is_file() {
                return WalkState::Continue;
            }
            let Some(rel) = relative(root, entry.path()) else {
                return WalkState::Continue;
            };
            if count.fetch_add(1, std::sync::atomic::Ordering::Relaxed) >= cap {
                lock(found).truncated = true;
                return WalkState::Quit;
            }
            lock(found).files.push(rel);
            WalkState::Continue
        })
    });
    found
        .into_inner()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
