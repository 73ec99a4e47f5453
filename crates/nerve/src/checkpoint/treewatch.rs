//! Whether anything in a git work tree changed since a moment, answered without asking git: a file
//! watcher on every folder git looks at, and a sync through a cookie file so that "nothing" means
//! nothing (Watchman's method).
//!
//! The checkpoints ask `git status` which files are not as HEAD has them. Between two shell
//! commands nothing usually changes, and a command usually changes nothing git sees (a build
//! writes only ignored files): then the last answer still holds, and a call skips `git status`
//! before the command, after it, or both. What counts as a change is anything that could make a
//! file the last answer called clean hold other bytes than HEAD's blob: an event on a file in a
//! watched folder, a folder that appears with something in it, HEAD or a branch moving, and the
//! ignore rules changing (those also make the watcher list its folders again). Index-only changes
//! (`git add`, and `git status` refreshing the index) do not: they never change a file's bytes.
//!
//! Watched: the folders git does not ignore and those holding a tracked file (a tracked file in an
//! ignored folder is still compared), listed on a thread of its own (until then, and after an
//! overflow of the kernel's event queue, nobody may skip `git status`), and the git folder's
//! `HEAD`, refs and configuration. Not seen, as by any inotify watcher: writes through a shared
//! memory mapping, and changes a network file system's other clients make; nor a change to the
//! user's global excludes file during the session.
//!
//! A sync creates a cookie file in the git folder and waits for its event: every event of a change
//! made before it has then arrived, since the kernel delivers one watcher's events in order.
//!
//! Written on the `inotify` crate rather than `notify`: `notify` always asks for open events, and
//! a search or a build opening a million files would overflow the queue and cost a listing again.

use std::collections::{HashMap, HashSet};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::{Duration, Instant};

use inotify::{EventMask, Inotify, WatchDescriptor, WatchMask, Watches};

/// How long a sync waits for its cookie before giving up (the caller then asks git).
const SYNC_TIMEOUT: Duration = Duration::from_millis(250);

/// The cookie files' name prefix, in the git folder.
const COOKIE_PREFIX: &str = "nerve-sync-";

/// What a folder is watched for: what changes a file's bytes, mode or name. Not opens or reads.
fn mask() -> WatchMask {
    WatchMask::CREATE
        | WatchMask::DELETE
        | WatchMask::MODIFY
        | WatchMask::ATTRIB
        | WatchMask::MOVED_FROM
        | WatchMask::MOVED_TO
        | WatchMask::ONLYDIR
        | WatchMask::DONT_FOLLOW
        | WatchMask::EXCL_UNLINK
}

/// A moment of the watcher's history, to compare a later one with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark {
    /// Bumped whenever the watcher lost track (an overflow, a listing again).
    generation: u64,
    /// Changes seen so far.
    changes: u64,
}

/// The watcher of one work tree, shared by every session on it.
pub(crate) struct TreeWatch {
    shared: Arc<Shared>,
    /// To wake the thread when dropped: removing this watch sends it an event.
    watches: Watches,
    git_watch: WatchDescriptor,
}

impl std::fmt::Debug for TreeWatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreeWatch")
            .field("root", &self.shared.root)
            .finish_non_exhaustive()
    }
}

struct Shared {
    root: PathBuf,
    /// Where HEAD and the index are (`.git`, or a linked work tree's own folder).
    git_dir: PathBuf,
    /// Where refs and the configuration are (the same folder, unless a linked work tree's).
    common_dir: PathBuf,
    state: Mutex<State>,
    cookie_seen: Condvar,
    next_cookie: AtomicU64,
    stopped: AtomicBool,
}

#[derive(Default)]
struct State {
    /// The folders are listed and watched, and no event was lost since.
    ready: bool,
    generation: u64,
    changes: u64,
    /// The highest cookie whose event arrived.
    cookie: u64,
}

impl TreeWatch {
    /// The watcher of the work tree at `root` (whose git folders are `git_dir` and `common_dir`),
    /// shared with every other caller while any holds it. `None` when no watcher can be made.
    pub(crate) fn for_root(root: &Path, git_dir: &Path, common_dir: &Path) -> Option<Arc<Self>> {
        static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<TreeWatch>>>> = OnceLock::new();
        let mut open = lock(OPEN.get_or_init(Default::default));
        open.retain(|_, watch| watch.strong_count() > 0);
        if let Some(watch) = open.get(root).and_then(Weak::upgrade) {
            return Some(watch);
        }
        let watch = Self::open(root, git_dir, common_dir)?;
        open.insert(root.to_path_buf(), Arc::downgrade(&watch));
        Some(watch)
    }

    fn open(root: &Path, git_dir: &Path, common_dir: &Path) -> Option<Arc<Self>> {
        let shared = Arc::new(Shared {
            root: root.to_path_buf(),
            git_dir: git_dir.to_path_buf(),
            common_dir: common_dir.to_path_buf(),
            state: Mutex::default(),
            cookie_seen: Condvar::new(),
            next_cookie: AtomicU64::new(1),
            stopped: AtomicBool::new(false),
        });
        let inotify = Inotify::init().ok()?;
        let mut watches = inotify.watches();
        // The git folder first: the cookies' events, and the thread's wake-up when dropped.
        let git_watch = watches.add(git_dir, mask()).ok()?;
        let thread_shared = Arc::clone(&shared);
        let mut folders = Folders::default();
        folders.by_watch.insert(git_watch.clone(), git_dir.to_path_buf());
        std::thread::Builder::new()
            .name("nerve-tree-watch".into())
            .spawn(move || follow(&thread_shared, inotify, folders))
            .ok()?;
        Some(Arc::new(Self {
            shared,
            watches,
            git_watch,
        }))
    }

    /// Now, as a mark to compare with later: `None` when the watcher cannot vouch for the time
    /// since (still listing, or it lost events) or the sync failed.
    pub(crate) fn mark(&self) -> Option<Mark> {
        // While the first listing runs the thread reads no events: a sync would only time out.
        if !lock(&self.shared.state).ready {
            return None;
        }
        self.shared.sync()?;
        let state = lock(&self.shared.state);
        state.ready.then_some(Mark {
            generation: state.generation,
            changes: state.changes,
        })
    }

    /// Whether nothing that counts changed since `mark` (after a sync: up to now).
    pub(crate) fn quiet_since(&self, mark: Mark) -> bool {
        self.mark() == Some(mark)
    }

    /// Waits until the first listing is done (for tests and benchmarks); whether it is.
    pub(crate) fn wait_ready(&self, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        while Instant::now() < until {
            if lock(&self.shared.state).ready {
                return true;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        false
    }
}

impl Drop for TreeWatch {
    fn drop(&mut self) {
        self.shared.stopped.store(true, Ordering::SeqCst);
        // The removal's event wakes the thread, which then ends (closing the watcher).
        let _ = self.watches.remove(self.git_watch.clone());
    }
}

/// The reader thread's own record of what each watch is, and of what git ignores.
#[derive(Default)]
struct Folders {
    by_watch: HashMap<WatchDescriptor, PathBuf>,
    ignores: IgnoreRules,
}

/// Whether git ignores a file in a watched folder (a log, a stamp a build writes beside the
/// sources): its event then changes nothing git sees. The ignore files git reads, from the file's
/// folder up to the root (the deeper decides), then `info/exclude`, then the user's global
/// excludes file; each loaded once until the watcher lists again (an ignore file that changes
/// makes it). A tracked file that matches a pattern (added with `--force`) is never ignored.
#[derive(Default)]
struct IgnoreRules {
    /// Each folder's own `.gitignore` (`None`: it has none).
    folders: HashMap<PathBuf, Option<ignore::gitignore::Gitignore>>,
    /// `info/exclude` and the global excludes, rooted at the work tree.
    repository: Vec<ignore::gitignore::Gitignore>,
    /// Tracked files a pattern matches, absolute (`None`: the index changed since they were
    /// listed; listed again when next needed).
    forced: Option<HashSet<PathBuf>>,
}

impl IgnoreRules {
    fn load(root: &Path, common_dir: &Path) -> Self {
        let mut repository = Vec::new();
        let mut builder = ignore::gitignore::GitignoreBuilder::new(root);
        let _ = builder.add(common_dir.join("info/exclude"));
        if let Some(global) = ignore::gitignore::gitconfig_excludes_path() {
            let _ = builder.add(global);
        }
        if let Ok(rules) = builder.build() {
            repository.push(rules);
        }
        Self {
            folders: HashMap::new(),
            repository,
            forced: None,
        }
    }

    /// Whether `path` is tracked though a pattern matches it (`None`: git could not say).
    fn forced(&mut self, root: &Path, path: &Path) -> Option<bool> {
        if self.forced.is_none() {
            let listed = crate::checkpoint::git::ignored_tracked_files(root).ok()?;
            self.forced = Some(listed.into_iter().map(|p| root.join(p)).collect());
        }
        self.forced.as_ref().map(|forced| forced.contains(path))
    }

    /// Whether git ignores `path` (a file, or a folder when `is_dir`) under `root`.
    fn ignored(&mut self, root: &Path, path: &Path, is_dir: bool) -> bool {
        let by_rules = self.matched(root, path, is_dir);
        // Tracked anyway (or git cannot say): its changes count.
        by_rules && self.forced(root, path) == Some(false)
    }

    /// Whether the ignore files say `path` is ignored.
    fn matched(&mut self, root: &Path, path: &Path, is_dir: bool) -> bool {
        use ignore::Match;
        // The path itself, then each folder above it: an ignored folder ignores all it holds.
        for (depth, candidate) in path.ancestors().enumerate() {
            if candidate == root || !candidate.starts_with(root) {
                break;
            }
            let candidate_is_dir = depth > 0 || is_dir;
            for folder in candidate.ancestors().skip(1) {
                if !folder.starts_with(root) {
                    break;
                }
                let rules = self.folders.entry(folder.to_path_buf()).or_insert_with(|| {
                    let file = folder.join(".gitignore");
                    file.is_file().then(|| ignore::gitignore::Gitignore::new(&file).0)
                });
                match rules.as_ref().map(|r| r.matched(candidate, candidate_is_dir)) {
                    Some(Match::Ignore(_)) => return true,
                    Some(Match::Whitelist(_)) => return false,
                    _ => {}
                }
            }
            for rules in &self.repository {
                match rules.matched(candidate, candidate_is_dir) {
                    Match::Ignore(_) => return true,
                    Match::Whitelist(_) => return false,
                    Match::None => {}
                }
            }
        }
        false
    }
}

impl Folders {
    /// Watches `folder`; whether it could.
    fn watch(&mut self, watches: &mut Watches, folder: &Path) -> bool {
        match watches.add(folder, mask()) {
            Ok(wd) => {
                self.by_watch.insert(wd, folder.to_path_buf());
                true
            }
            // Gone meanwhile: nothing in it to watch.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
            Err(_) => false,
        }
    }
}

impl Shared {
    /// Creates a cookie and waits for its event; `None` on failure or timeout.
    fn sync(&self) -> Option<()> {
        let n = self.next_cookie.fetch_add(1, Ordering::Relaxed);
        let cookie = self
            .git_dir
            .join(format!("{COOKIE_PREFIX}{}-{n}", std::process::id()));
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&cookie)
            .ok()?;
        let _ = std::fs::remove_file(&cookie);
        let state = lock(&self.state);
        let (state, _) = self
            .cookie_seen
            .wait_timeout_while(state, SYNC_TIMEOUT, |s| s.cookie < n)
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        (state.cookie >= n).then_some(())
    }

    fn changed(&self) {
        lock(&self.state).changes += 1;
    }

    fn lost_track(&self) {
        let mut state = lock(&self.state);
        state.ready = false;
        state.generation += 1;
    }

    /// Lists and watches every folder git looks at; whether all could be watched.
    fn list(&self, watches: &mut Watches, known: &mut Folders) -> bool {
        let mut folders: HashSet<PathBuf> = HashSet::new();
        for entry in walk(&self.root, None).flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                folders.insert(entry.into_path());
            }
        }
        // Tracked files in ignored folders are compared too.
        match crate::checkpoint::git::tracked_folders(&self.root) {
            Ok(tracked) => folders.extend(tracked.into_iter().map(|f| self.root.join(f))),
            Err(_) => return false,
        }
        let refs = self.common_dir.join("refs");
        for entry in walkdir_all(&refs) {
            folders.insert(entry);
        }
        folders.insert(self.common_dir.clone());
        folders.insert(self.common_dir.join("info"));
        known.ignores = IgnoreRules::load(&self.root, &self.common_dir);
        let mut all = true;
        for folder in folders {
            all &= known.watch(watches, &folder);
        }
        all
    }

    /// An event in the git folders: a cookie, HEAD or a ref moving, or the ignore rules changing.
    fn git_event(&self, folder: &Path, name: Option<&OsStr>, mask: EventMask) -> Follow {
        let name = name.and_then(OsStr::to_str).unwrap_or_default();
        if let Some(cookie) = name
            .strip_prefix(COOKIE_PREFIX)
            .and_then(|rest| rest.strip_prefix(&format!("{}-", std::process::id())))
            .and_then(|n| n.parse::<u64>().ok())
        {
            let mut state = lock(&self.state);
            state.cookie = state.cookie.max(cookie);
            self.cookie_seen.notify_all();
            return Follow::Continue;
        }
        if name.ends_with(".lock") || name.starts_with(COOKIE_PREFIX) {
            return Follow::Continue;
        }
        let refs = self.common_dir.join("refs");
        if folder.starts_with(&refs) {
            self.changed();
            if mask.contains(EventMask::ISDIR) && mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                return Follow::ListAgain;
            }
            return Follow::Continue;
        }
        match name {
            "HEAD" | "packed-refs" => self.changed(),
            "config" | "config.worktree" | "exclude" => {
                self.changed();
                return Follow::ListAgain;
            }
            // The index, objects, logs, the sandbox's placeholders: no file's bytes changed.
            _ => {}
        }
        Follow::Continue
    }

    /// An event in a work-tree folder.
    fn tree_event(
        &self,
        folder: &Path,
        name: Option<&OsStr>,
        mask: EventMask,
        watches: &mut Watches,
        known: &mut Folders,
    ) -> Follow {
        // The folder's own events (its attributes, its removal): the parent's say what counts.
        let Some(name) = name else {
            return Follow::Continue;
        };
        if name == ".gitignore" {
            self.changed();
            return Follow::ListAgain;
        }
        if mask.contains(EventMask::ISDIR) {
            // Git compares files, not folders: a folder counts by what it holds.
            if mask.intersects(EventMask::CREATE | EventMask::MOVED_TO) {
                self.new_folder(&folder.join(name), watches, known);
            } else if mask.contains(EventMask::MOVED_FROM) {
                self.changed();
            }
            return Follow::Continue;
        }
        // An ignored file that is not tracked: made, changed or removed, git does not see it.
        if known.ignores.ignored(&self.root, &folder.join(name), false) {
            return Follow::Continue;
        }
        self.changed();
        Follow::Continue
    }

    /// A folder that appeared: watched with what git looks at below it, and a change when it
    /// holds anything (its files may have come before the watch did).
    fn new_folder(&self, folder: &Path, watches: &mut Watches, known: &mut Folders) {
        use std::os::unix::fs::PermissionsExt as _;
        let Some(parent) = folder.parent() else { return };
        // A folder nobody may open holds nothing git can list: the sandbox's placeholders for
        // protected names are such, made and removed around every sandboxed command.
        if std::fs::symlink_metadata(folder).is_ok_and(|m| m.permissions().mode() & 0o777 == 0) {
            return;
        }
        // Whether git ignores it: the parent's listing, with every ignore file above, says.
        let listed = walk(parent, Some(1))
            .flatten()
            .any(|entry| entry.path() == folder);
        if !listed {
            return;
        }
        let mut holds_files = false;
        let mut watched_all = true;
        for entry in walk(folder, None).flatten() {
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                watched_all &= known.watch(watches, entry.path());
            } else {
                holds_files = true;
            }
        }
        if holds_files {
            self.changed();
        }
        if !watched_all {
            // Out of watches: nobody may rely on this watcher until it lists again.
            self.lost_track();
        }
    }
}

/// What git looks at under `dir`: not ignored, hidden files included, no nested `.git`.
fn walk(dir: &Path, depth: Option<usize>) -> ignore::Walk {
    ignore::WalkBuilder::new(dir)
        .hidden(false)
        .parents(true)
        .require_git(false)
        .max_depth(depth)
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
}

/// Every folder under `dir`, `dir` included (none when it is missing).
fn walkdir_all(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        out.push(d);
        for entry in entries.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(entry.path());
            }
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Follow {
    Continue,
    ListAgain,
}

/// The watcher's thread: the first listing, then every event until the watcher is dropped.
fn follow(shared: &Shared, mut inotify: Inotify, mut known: Folders) {
    let mut watches = inotify.watches();
    let all = shared.list(&mut watches, &mut known);
    lock(&shared.state).ready = all;
    let mut buffer = vec![0u8; 64 * 1024];
    loop {
        let Ok(events) = inotify.read_events_blocking(&mut buffer) else {
            shared.lost_track();
            return;
        };
        if shared.stopped.load(Ordering::SeqCst) {
            return;
        }
        let mut follow = Follow::Continue;
        for event in events {
            if event.mask.contains(EventMask::Q_OVERFLOW) {
                follow = Follow::ListAgain;
                continue;
            }
            if event.mask.contains(EventMask::IGNORED) {
                known.by_watch.remove(&event.wd);
                continue;
            }
            let Some(folder) = known.by_watch.get(&event.wd).cloned() else {
                continue;
            };
            let in_git = folder.starts_with(&shared.git_dir) || folder.starts_with(&shared.common_dir);
            if in_git && folder == shared.git_dir && event.name.is_some_and(|n| n == "index") {
                // What is tracked may have changed: the forced-in files are listed again.
                known.ignores.forced = None;
            }
            let this = if in_git {
                shared.git_event(&folder, event.name, event.mask)
            } else {
                shared.tree_event(&folder, event.name, event.mask, &mut watches, &mut known)
            };
            follow = follow.max(this);
        }
        if follow == Follow::ListAgain {
            shared.lost_track();
            let all = shared.list(&mut watches, &mut known);
            let mut state = lock(&shared.state);
            state.ready = all;
            state.generation += 1;
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
