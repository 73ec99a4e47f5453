//! One index of a project's files, built by a walk on first use and kept fresh by a watcher on
//! every listed folder (ignored folders such as `target/` or `node_modules/` are never watched, so
//! a build does not wake it). A change is applied by listing again only the folders it touched;
//! a changed ignore file, or a watcher that lost events, lists the whole project again. Where
//! watching is not possible (the system's watch limit, say) the index is listed again when older
//! than [`RESCAN_AFTER`], as the picker did before it had a watcher.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock, Weak};
use std::time::{Duration, Instant};

use notify::{EventKind, RecursiveMode, Watcher as _};

use super::MAX_FILES;
use super::matching::{FileMatch, best, narrows, score_all};
use super::path_list::PathList;
use super::scan::{Listing, relative, walk};

/// Without a watcher, how old a listing may be before a search lists the project again.
pub const RESCAN_AFTER: Duration = Duration::from_secs(10);
/// Changes that arrive this close together are applied as one (a checkout writes many files).
const SETTLE: Duration = Duration::from_millis(20);
/// How long a search waits for the first listing before answering from what there is.
const FIRST_LISTING_WAIT: Duration = Duration::from_secs(30);
/// Names whose change alters what is listed everywhere below them.
const IGNORE_FILES: [&str; 3] = [".gitignore", ".ignore", ".rgignore"];

/// The files of one project, shared by every session open on it.
pub struct FileIndex {
    shared: Arc<Shared>,
    watcher: Arc<Mutex<Option<notify::RecommendedWatcher>>>,
}

struct Shared {
    root: PathBuf,
    state: RwLock<State>,
    ready: Mutex<bool>,
    ready_signal: Condvar,
    /// The previous search and its matches, for narrowing.
    last: Mutex<Option<LastSearch>>,
}

#[derive(Default)]
struct State {
    /// Sorted, so a folder's files are one run and lookups are binary searches.
    paths: PathList,
    /// The listed (not ignored) folders.
    dirs: BTreeSet<Box<str>>,
    truncated: bool,
    /// Bumped by every change, so a narrowing never uses matches of another listing.
    generation: u64,
    /// Whether a watcher keeps the listing fresh.
    watching: bool,
    listed_at: Option<Instant>,
}

struct LastSearch {
    query: String,
    generation: u64,
    matches: Vec<u32>,
}

impl FileIndex {
    /// The index of the project at `root`, shared with every other caller while any holds it.
    pub fn for_project(root: &Path) -> Arc<Self> {
        static OPEN: OnceLock<Mutex<HashMap<PathBuf, Weak<FileIndex>>>> = OnceLock::new();
        let mut open = lock(OPEN.get_or_init(Default::default));
        open.retain(|_, index| index.strong_count() > 0);
        if let Some(index) = open.get(root).and_then(Weak::upgrade) {
            return index;
        }
        let index = Self::open(root);
        open.insert(root.to_path_buf(), Arc::downgrade(&index));
        index
    }

    /// A new index of `root`, listed and watched on a thread of its own.
    pub fn open(root: &Path) -> Arc<Self> {
        let shared = Arc::new(Shared {
            root: root.to_path_buf(),
            state: RwLock::new(State::default()),
            ready: Mutex::new(false),
            ready_signal: Condvar::new(),
            last: Mutex::new(None),
        });
        let (sender, events) = channel();
        let watcher = notify::recommended_watcher(sender).ok();
        let watcher = Arc::new(Mutex::new(watcher));
        let index = Arc::new(Self {
            shared: Arc::clone(&shared),
            watcher: Arc::clone(&watcher),
        });
        let spawned = std::thread::Builder::new()
            .name("nerve-file-index".into())
            .spawn(move || keep_fresh(&shared, &watcher, &events));
        if spawned.is_err() {
            // No thread: list here, and rely on listing again when stale.
            tracing::warn!("could not start the file index's thread; listing without a watcher");
            index.shared.list_all(None);
            index.shared.mark_ready();
        }
        index
    }

    /// The best `limit` matches of `query`, best first (ties: shorter path, then by name). An empty
    /// query lists the first files by name. Waits for the first listing.
    pub fn find(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        self.wait_ready(FIRST_LISTING_WAIT);
        self.shared.list_again_if_stale();
        let query = query.trim();
        let state = read(&self.shared.state);
        if query.is_empty() {
            return state
                .paths
                .iter()
                .take(limit)
                .map(|p| FileMatch {
                    path: p.to_string(),
                    score: 0,
                    indices: Vec::new(),
                })
                .collect();
        }
        let mut last = lock(&self.shared.last);
        let candidates = last
            .as_ref()
            .filter(|l| l.generation == state.generation && narrows(&l.query, query))
            .map(|l| l.matches.as_slice());
        let (scored, matches) = score_all(&state.paths, candidates, query);
        let found = best(&state.paths, &scored, query, limit);
        *last = Some(LastSearch {
            query: query.to_string(),
            generation: state.generation,
            matches,
        });
        found
    }

    /// Waits (up to `timeout`) for the first listing; whether it is done.
    pub fn wait_ready(&self, timeout: Duration) -> bool {
        let ready = lock(&self.shared.ready);
        let (ready, _) = self
            .shared
            .ready_signal
            .wait_timeout_while(ready, timeout, |ready| !*ready)
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *ready
    }

    /// How many files are listed.
    pub fn len(&self) -> usize {
        read(&self.shared.state).paths.len()
    }

    /// Whether no file is listed.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether the listing stopped at [`MAX_FILES`].
    pub fn truncated(&self) -> bool {
        read(&self.shared.state).truncated
    }

    /// Whether a watcher keeps the listing fresh (else it is listed again when stale).
    pub fn watching(&self) -> bool {
        read(&self.shared.state).watching
    }

    /// Changes applied since the first listing (each bumps it; for tests and benchmarks).
    pub fn generation(&self) -> u64 {
        read(&self.shared.state).generation
    }
}

impl Drop for FileIndex {
    fn drop(&mut self) {
        // Dropping the watcher closes its channel, which ends the index's thread.
        lock(&self.watcher).take();
    }
}

type Watch = Mutex<Option<notify::RecommendedWatcher>>;

/// The index's thread: the first listing, then every change until the index is dropped.
fn keep_fresh(shared: &Shared, watcher: &Watch, events: &Receiver<notify::Result<notify::Event>>) {
    let watching = lock(watcher).is_some();
    let all_watched = shared.list_all(Some(watcher));
    write(&shared.state).watching = watching && all_watched;
    shared.mark_ready();
    if !watching {
        return;
    }
    while let Ok(first) = events.recv() {
        let mut batch = vec![first];
        let until = Instant::now() + SETTLE;
        loop {
            match events.recv_timeout(until.saturating_duration_since(Instant::now())) {
                Ok(event) => batch.push(event),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        }
        shared.apply(batch, watcher);
    }
}

impl Shared {
    fn mark_ready(&self) {
        *lock(&self.ready) = true;
        self.ready_signal.notify_all();
    }

    /// Lists the whole project (watching each folder when `watcher` is given); whether every
    /// folder could be watched.
    fn list_all(&self, watcher: Option<&Watch>) -> bool {
        let all_watched = std::sync::atomic::AtomicBool::new(true);
        let on_dir = |dir: &Path| {
            if let Some(watcher) = watcher
                && !watch(watcher, dir)
            {
                all_watched.store(false, std::sync::atomic::Ordering::Relaxed);
            }
        };
        let Listing {
            files,
            dirs,
            truncated,
        } = walk(&self.root, &self.root, None, MAX_FILES, &on_dir);
        let files = PathList::new(files);
        let mut state = write(&self.state);
        state.paths = files;
        state.dirs = dirs.into_iter().collect();
        state.truncated = truncated;
        state.generation += 1;
        state.listed_at = Some(Instant::now());
        all_watched.into_inner()
    }

    fn list_again_if_stale(&self) {
        let stale = {
            let state = read(&self.state);
            !state.watching && state.listed_at.is_none_or(|at| at.elapsed() > RESCAN_AFTER)
        };
        if stale {
            self.list_all(None);
        }
    }

    /// Applies a batch of changes: the folders they touched are listed again.
    fn apply(&self, batch: Vec<notify::Result<notify::Event>>, watcher: &Watch) {
        let mut folders: BTreeSet<PathBuf> = BTreeSet::new();
        let mut everything = false;
        for event in batch {
            let Ok(event) = event else {
                everything = true;
                continue;
            };
            if event.need_rescan() {
                everything = true;
            }
            if matches!(event.kind, EventKind::Access(_)) {
                continue;
            }
            for path in event.paths {
                let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
                if IGNORE_FILES.contains(&name) {
                    everything = true;
                }
                if let Some(parent) = path.parent()
                    && parent.starts_with(&self.root)
                {
                    folders.insert(parent.to_path_buf());
                }
            }
        }
        if everything {
            let all_watched = self.list_all(Some(watcher));
            write(&self.state).watching = all_watched;
            return;
        }
        for folder in folders {
            self.list_folder_again(&folder, watcher);
        }
    }

    /// Lists `folder`'s own entries again: files added or gone, and folders new (listed whole
    /// and watched) or gone (dropped with everything under them).
    fn list_folder_again(&self, folder: &Path, watcher: &Watch) {
        let rel = relative(&self.root, folder);
        let prefix = rel.as_deref().map(|r| format!("{r}/")).unwrap_or_default();
        if let Some(rel) = &rel
            && !read(&self.state).dirs.contains(rel)
        {
            // Not a listed folder (an ignored one, or one already dropped).
            return;
        }
        if !folder.is_dir() {
            if let Some(rel) = &rel {
                let mut state = write(&self.state);
                let under = state.paths.starting_with(&format!("{rel}/"));
                state.paths = state.paths.edited(vec![under], Vec::new());
                forget_folder(&mut state.dirs, rel);
                state.generation += 1;
            }
            return;
        }
        let on_dir = |dir: &Path| {
            watch(watcher, dir);
        };
        let listing = walk(&self.root, folder, Some(1), MAX_FILES, &on_dir);
        let now_files: HashSet<&str> = listing.files.iter().map(|f| &**f).collect();
        let now_dirs: HashSet<&str> = listing
            .dirs
            .iter()
            .map(|d| &**d)
            .filter(|d| Some(*d) != rel.as_deref())
            .collect();
        let (had_files, had_dirs) = {
            let state = read(&self.state);
            let had_files: Vec<Box<str>> = own_entries(
                state
                    .paths
                    .starting_with(&prefix)
                    .filter_map(|at| state.paths.get(at)),
                &prefix,
            )
            .map(Into::into)
            .collect();
            let had_dirs: Vec<Box<str>> = own_entries(
                state
                    .dirs
                    .range::<str, _>((
                        std::ops::Bound::Included(prefix.as_str()),
                        std::ops::Bound::Unbounded,
                    ))
                    .take_while(|d| d.starts_with(&prefix))
                    .map(|d| &**d),
                &prefix,
            )
            .map(Into::into)
            .collect();
            (had_files, had_dirs)
        };
        let gone_files: Vec<&str> = had_files
            .iter()
            .map(|f| &**f)
            .filter(|f| !now_files.contains(f))
            .collect();
        let had_files: HashSet<&str> = had_files.iter().map(|f| &**f).collect();
        let mut new_files: Vec<Box<str>> = listing
            .files
            .iter()
            .filter(|f| !had_files.contains(&***f))
            .cloned()
            .collect();
        let had_dirs_set: HashSet<&str> = had_dirs.iter().map(|d| &**d).collect();
        let gone_dirs: Vec<&str> = had_dirs
            .iter()
            .map(|d| &**d)
            .filter(|d| !now_dirs.contains(d))
            .collect();
        let mut new_dirs = Vec::new();
        for dir in now_dirs.iter().filter(|d| !had_dirs_set.contains(*d)) {
            // A new folder (made, moved in, or no longer ignored): list all of it.
            let sub = walk(&self.root, &self.root.join(dir), None, MAX_FILES, &on_dir);
            new_files.extend(sub.files);
            new_dirs.extend(sub.dirs);
        }
        if gone_files.is_empty() && new_files.is_empty() && gone_dirs.is_empty() && new_dirs.is_empty() {
            return;
        }
        // The new list is built while searches go on (a million paths take a few milliseconds
        // to copy); this thread is the only one that changes a watched index.
        let (paths, generation, truncated) = {
            let state = read(&self.state);
            let mut removed: Vec<Range<usize>> = gone_dirs
                .iter()
                .map(|dir| state.paths.starting_with(&format!("{dir}/")))
                .collect();
            removed.extend(
                gone_files
                    .iter()
                    .filter_map(|file| state.paths.position(file))
                    .map(|at| at..at + 1),
            );
            let staying = state
                .paths
                .len()
                .saturating_sub(removed.iter().map(Range::len).sum());
            let room = MAX_FILES.saturating_sub(staying);
            let truncated = new_files.len() > room;
            new_files.truncate(room);
            (
                state.paths.edited(removed, new_files),
                state.generation,
                truncated,
            )
        };
        let mut state = write(&self.state);
        if state.generation != generation {
            // Listed whole meanwhile (after the change), so the listing has the change already.
            return;
        }
        state.paths = paths;
        for dir in gone_dirs {
            forget_folder(&mut state.dirs, dir);
        }
        state.truncated |= truncated;
        state.dirs.extend(new_dirs);
        state.generation += 1;
    }
}

/// Watches `dir`'s own entries; whether it could.
fn watch(watcher: &Watch, dir: &Path) -> bool {
    match lock(watcher).as_mut() {
        Some(w) => w.watch(dir, RecursiveMode::NonRecursive).is_ok(),
        None => false,
    }
}

/// The entries directly in the folder `prefix` names (no further `/`).
fn own_entries<'a>(
    entries: impl IntoIterator<Item = &'a str>,
    prefix: &'a str,
) -> impl Iterator<Item = &'a str> {
    entries
        .into_iter()
        .filter(move |e| e.len() > prefix.len() && !e[prefix.len()..].contains('/'))
}

/// Forgets the folder `rel` and every folder under it.
fn forget_folder(dirs: &mut BTreeSet<Box<str>>, rel: &str) {
    let prefix = format!("{rel}/");
    dirs.retain(|d| &**d != rel && !d.starts_with(&prefix));
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn read<T>(l: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    l.read().unwrap_or_else(|poisoned| poisoned.into_inner())
}

fn write<T>(l: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    l.write().unwrap_or_else(|poisoned| poisoned.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path();
        for (rel, text) in [
            ("greeting.txt", "hi"),
            ("src/generate.rs", ""),
            ("src/main.rs", ""),
            ("docs/guide/regex.md", ""),
            ("target/debug/greeting.txt", "build output"),
            (".env", "SECRET=1"),
            (".gitignore", "target/\n"),
        ] {
            std::fs::create_dir_all(p.join(rel).parent().unwrap()).unwrap();
            std::fs::write(p.join(rel), text).unwrap();
        }
        dir
    }

    fn all(index: &FileIndex) -> Vec<String> {
        index.find("", 1000).into_iter().map(|m| m.path).collect()
    }

    /// Waits (up to 20 s: a loaded machine is slow, not wrong) until the listing is `expected`.
    fn eventually(index: &FileIndex, expected: &[&str]) {
        let until = Instant::now() + Duration::from_secs(20);
        loop {
            let now = all(index);
            if now == expected {
                return;
            }
            assert!(Instant::now() < until, "the index did not catch up: {now:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    #[test]
    fn ignored_and_hidden_files_are_left_out() {
        let dir = project();
        let index = FileIndex::open(dir.path());
        assert_eq!(
            all(&index),
            vec![
                "docs/guide/regex.md",
                "greeting.txt",
                "src/generate.rs",
                "src/main.rs"
            ]
        );
        assert!(!index.truncated());
        assert!(index.watching());
    }

    #[test]
    fn the_best_match_comes_first_with_its_matched_characters() {
        let dir = project();
        let index = FileIndex::open(dir.path());
        let found = index.find("gre", 10);
        assert_eq!(found[0].path, "greeting.txt");
        assert_eq!(found[0].indices, vec![0, 1, 2]);
        assert!(found.iter().all(|m| m.score > 0));
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert!(!paths.contains(&"src/main.rs"), "{paths:?}");
        assert_eq!(
            index.find("srcmain", 10)[0].path,
            "src/main.rs",
            "fuzzy across the separator"
        );
        assert_eq!(index.find("gre", 1).len(), 1);
        assert!(index.find("zzzz", 10).is_empty());
    }

    #[test]
    fn typing_narrows_to_what_a_fresh_search_finds() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..300 {
            let rel = format!("crate{}/src/module_{i}/file{}.rs", i % 7, i % 13);
            std::fs::create_dir_all(dir.path().join(&rel).parent().unwrap()).unwrap();
            std::fs::write(dir.path().join(rel), "").unwrap();
        }
        let typing = FileIndex::open(dir.path());
        let fresh = FileIndex::open(dir.path());
        for query in [
            "c",
            "cr",
            "cra",
            "crate3",
            "crate3/",
            "crate3/src mod",
            "crate3/src mod1",
            "x",
        ] {
            let narrowed = typing.find(query, 20);
            // A different query first, so the fresh index cannot narrow.
            fresh.find("zz!", 1);
            assert_eq!(narrowed, fresh.find(query, 20), "{query}");
        }
    }

    #[test]
    fn the_watcher_keeps_the_listing_fresh() {
        let dir = project();
        let p = dir.path();
        let index = FileIndex::open(p);
        assert!(index.wait_ready(Duration::from_secs(20)));
        std::fs::write(p.join("src/lib.rs"), "").unwrap();
        std::fs::write(p.join("target/debug/new.o"), "").unwrap();
        std::fs::remove_file(p.join("greeting.txt")).unwrap();
        eventually(
            &index,
            &[
                "docs/guide/regex.md",
                "src/generate.rs",
                "src/lib.rs",
                "src/main.rs",
            ],
        );
        // A new folder tree, made in one go, is listed whole; a moved folder moves its files.
        std::fs::create_dir_all(p.join("tests/unit/deep")).unwrap();
        std::fs::write(p.join("tests/unit/deep/a.rs"), "").unwrap();
        std::fs::rename(p.join("docs"), p.join("manual")).unwrap();
        eventually(
            &index,
            &[
                "manual/guide/regex.md",
                "src/generate.rs",
                "src/lib.rs",
                "src/main.rs",
                "tests/unit/deep/a.rs",
            ],
        );
        // An ignore file's change applies to what is listed already.
        std::fs::write(p.join(".gitignore"), "target/\nmanual/\n").unwrap();
        eventually(
            &index,
            &[
                "src/generate.rs",
                "src/lib.rs",
                "src/main.rs",
                "tests/unit/deep/a.rs",
            ],
        );
        std::fs::remove_dir_all(p.join("tests")).unwrap();
        eventually(&index, &["src/generate.rs", "src/lib.rs", "src/main.rs"]);
    }

    #[test]
    fn one_index_per_project_while_it_is_held() {
        let dir = project();
        let a = FileIndex::for_project(dir.path());
        let b = FileIndex::for_project(dir.path());
        assert!(Arc::ptr_eq(&a, &b));
        let other = project();
        assert!(!Arc::ptr_eq(&a, &FileIndex::for_project(other.path())));
    }
}
