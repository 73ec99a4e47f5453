//! Seeing what a shell command changed in a git work tree, at the cost of what it changed rather
//! than of what the project holds.
//!
//! Before the command, `git status` (the index's stat cache: as fast as the user's own) says which
//! files are not as HEAD has them: changed, staged, unmerged, untracked (not ignored). Only those
//! files' contents are saved, with the files git is told not to look at (assume-unchanged,
//! skip-worktree). Every other tracked file holds what HEAD's blob holds, and git's object store
//! keeps that already. After the command, `git status` again (and, when HEAD moved, the paths the
//! two commits differ in) names every file that may have changed: a file saved before is compared
//! with its saved content; a file that was clean gets its content before from HEAD's blob, saved
//! then, as a file the command created gets "absent". A command that rewrites 50,000 files pays
//! for 50,000 files once.
//!
//! With a watcher on the work tree ([`super::treewatch`]), `git status` runs only when something
//! changed since the last one: before a command, the last answer is reused when nothing changed
//! since it was given; after it, a command during which nothing changed changed nothing. So a
//! command that changes nothing git sees (a build writing ignored files, a test run, `ls`) costs
//! two syncs with the watcher, well under a millisecond, whatever the tree's size.
//!
//! What is not seen, as with the whole-tree comparison before it: ignored files, files inside
//! submodules, symbolic links. A file whose bytes git converts on checkout (a filter such as Git
//! LFS, line endings, `ident`) is not its blob, so a change to it while it was clean is reported as
//! not restorable.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::checkpoint::git::{self, Entry, GitError};
use crate::checkpoint::treewatch::{Mark, TreeWatch};
use crate::checkpoint::{BlobStore, CheckpointError, Content, MAX_FILE_BYTES, content_of_bytes};

/// A file's stat data, enough to tell a changed file from an untouched one (with the race below).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct StatKey {
    dev: u64,
    ino: u64,
    mode: u32,
    size: u64,
    mtime_ns: i128,
    ctime_ns: i128,
}

impl StatKey {
    fn of(meta: &std::fs::Metadata) -> Self {
        let ns = |s: i64, n: i64| i128::from(s) * 1_000_000_000 + i128::from(n);
        Self {
            dev: meta.dev(),
            ino: meta.ino(),
            mode: meta.mode(),
            size: meta.size(),
            mtime_ns: ns(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: ns(meta.ctime(), meta.ctime_nsec()),
        }
    }

    /// Whether a file with this stat may still change without its stat changing: its times are
    /// too close to `seen` (file-system clocks tick coarsely), as git's "racy clean" entries are.
    fn racy(&self, seen: SystemTime) -> bool {
        let seen_ns = seen
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let margin = RACY_MARGIN.as_nanos() as i128;
        self.mtime_ns + margin >= seen_ns || self.ctime_ns + margin >= seen_ns
    }
}

/// How close to a look at a file its times may be before the look cannot trust them.
const RACY_MARGIN: Duration = Duration::from_secs(2);

/// What the session remembers between calls, so a call pays for what changed since the last.
#[derive(Debug, Default)]
pub(crate) struct GitCache {
    inner: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    /// Contents of files already saved, by path, valid while the stat data is the same (and was
    /// not racy when seen).
    known: HashMap<PathBuf, (StatKey, Content)>,
    /// Per work tree: its index file, the index's stat data when last listed and the files git is
    /// told not to look at then.
    unwatched: HashMap<PathBuf, (PathBuf, Option<StatKey>, Vec<PathBuf>)>,
    /// Per work tree: its watcher (`None`: none could be made) and the last `git status` with the
    /// watcher's mark taken just before it.
    watched: HashMap<PathBuf, Watched>,
    /// How many times `git status` ran (for tests).
    statuses: u64,
}

#[derive(Debug)]
struct Watched {
    watch: Option<std::sync::Arc<TreeWatch>>,
    last: Option<(Mark, git::Status)>,
}

impl GitCache {
    fn state(&self) -> std::sync::MutexGuard<'_, CacheState> {
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The files under `root` git does not compare with the work tree, listed again only when the
    /// index changed.
    fn unwatched(&self, root: &Path) -> Result<Vec<PathBuf>, GitError> {
        let index = match self.state().unwatched.get(root) {
            Some((index, ..)) => index.clone(),
            None => git::index_file(root)?,
        };
        let key = std::fs::metadata(&index).ok().map(|m| StatKey::of(&m));
        // No racy-clean rule here: git never changes the index in place but writes a new file
        // and renames it over the old one, so every write gives it another inode.
        if let Some((_, Some(cached), paths)) = self.state().unwatched.get(root)
            && Some(*cached) == key
        {
            return Ok(paths.clone());
        }
        let paths = git::unwatched_entries(root)?;
        self.state()
            .unwatched
            .insert(root.to_path_buf(), (index, key, paths.clone()));
        Ok(paths)
    }

    /// The work tree's watcher, made on first use.
    fn watch(&self, root: &Path) -> Option<std::sync::Arc<TreeWatch>> {
        if let Some(watched) = self.state().watched.get(root) {
            return watched.watch.clone();
        }
        let watch = git::git_dirs(root)
            .ok()
            .and_then(|(git_dir, common_dir)| TreeWatch::for_root(root, &git_dir, &common_dir));
        self.state().watched.insert(
            root.to_path_buf(),
            Watched {
                watch: watch.clone(),
                last: None,
            },
        );
        watch
    }

    /// What `git status` says of the work tree now, and the watcher's mark from no later than
    /// it: the last answer when the watcher saw nothing change since, else a new one.
    fn status(&self, root: &Path) -> Result<(git::Status, Option<Mark>), GitError> {
        let watch = self.watch(root);
        if let Some(watch) = &watch {
            let last = self.state().watched.get(root).and_then(|w| w.last.clone());
            if let Some((mark, status)) = last
                && watch.quiet_since(mark)
            {
                return Ok((status, Some(mark)));
            }
        }
        self.fresh_status(root, watch.as_deref())
    }

    /// Runs `git status`, the watcher's mark taken first (a change during the run then counts
    /// as after it).
    fn fresh_status(
        &self,
        root: &Path,
        watch: Option<&TreeWatch>,
    ) -> Result<(git::Status, Option<Mark>), GitError> {
        let mark = watch.and_then(TreeWatch::mark);
        let status = git::status(root)?;
        let mut state = self.state();
        state.statuses += 1;
        if let Some(watched) = state.watched.get_mut(root) {
            watched.last = mark.map(|m| (m, status.clone()));
        }
        Ok((status, mark))
    }

    /// How many times `git status` ran.
    #[cfg(test)]
    fn statuses(&self) -> u64 {
        self.state().statuses
    }

    /// Waits until the work tree's watcher has listed its folders (for tests and benchmarks).
    pub(crate) fn wait_watching(&self, root: &Path, timeout: Duration) -> bool {
        self.watch(root).is_some_and(|w| w.wait_ready(timeout))
    }

    /// Saves what `path` holds now (a regular file's content, absent), unless its stat data says
    /// it is what was saved before. `None`: not a file a checkpoint restores.
    fn save(
        &self,
        path: &Path,
        store: &BlobStore,
    ) -> Result<Option<(Option<StatKey>, Content)>, CheckpointError> {
        let now = SystemTime::now();
        let Some((key, bytes)) = read_regular(path, |key| self.cached(path, key))? else {
            return Ok(Some((None, Content::Absent)));
        };
        let content = match bytes {
            Read::Cached(content) => content,
            Read::Bytes(bytes) => {
                let content = store.put(&bytes)?;
                if !key.racy(now) {
                    self.state()
                        .known
                        .insert(path.to_path_buf(), (key, content.clone()));
                }
                content
            }
            Read::NotAFile => return Ok(None),
        };
        Ok(Some((Some(key), content)))
    }

    fn cached(&self, path: &Path, key: StatKey) -> Option<Content> {
        match self.state().known.get(path) {
            Some((k, content)) if *k == key => Some(content.clone()),
            _ => None,
        }
    }
}

enum Read {
    Cached(Content),
    Bytes(Vec<u8>),
    NotAFile,
}

/// A regular file's stat data and bytes (or the cached content `cached` gives for its stat);
/// `None` when there is no file. Symbolic links are not followed.
fn read_regular(
    path: &Path,
    cached: impl FnOnce(StatKey) -> Option<Content>,
) -> Result<Option<(StatKey, Read)>, CheckpointError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CheckpointError::io("read", path, e)),
    };
    let key = StatKey::of(&meta);
    if !meta.is_file() || meta.len() > MAX_FILE_BYTES {
        return Ok(Some((key, Read::NotAFile)));
    }
    if let Some(content) = cached(key) {
        return Ok(Some((key, Read::Cached(content))));
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some((key, Read::Bytes(bytes)))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CheckpointError::io("read", path, e)),
    }
}

/// Why the git comparison did not work.
#[derive(Debug, thiserror::Error)]
pub(crate) enum WatchError {
    /// Git failed (not a repository, no git): the caller falls back to comparing the whole tree.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A file could not be read or saved.
    #[error(transparent)]
    Save(#[from] CheckpointError),
}

impl From<git::BlobsError> for WatchError {
    fn from(e: git::BlobsError) -> Self {
        match e {
            git::BlobsError::Git(e) => Self::Git(e),
            git::BlobsError::Save(e) => Self::Save(e),
        }
    }
}

/// The work tree just before a command: HEAD, and the saved content of every file that is not as
/// HEAD has it.
#[derive(Debug)]
pub(crate) struct Before {
    root: PathBuf,
    /// Folders left out (the session's own checkpoints, should they lie in the tree).
    exclude: Vec<PathBuf>,
    head: Option<String>,
    taken: SystemTime,
    /// The watcher's mark from no later than this look, when it vouches for the time since.
    mark: Option<Mark>,
    /// Relative path to its stat data and content then (`None`: not a file a checkpoint
    /// restores).
    saved: BTreeMap<PathBuf, Option<(Option<StatKey>, Content)>>,
}

/// What a command changed.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changes {
    /// Absolute path and its content before the command, sorted.
    pub changed: Vec<(PathBuf, Content)>,
    /// Files that changed whose content before cannot be known (git converts their bytes).
    pub unrestorable: Vec<PathBuf>,
}

/// Looks at the work tree at `root` before a command, saving what git does not hold; files under
/// `exclude` are left out.
pub(crate) fn before(
    root: &Path,
    exclude: &[PathBuf],
    store: &BlobStore,
    cache: &GitCache,
) -> Result<Before, WatchError> {
    let taken = SystemTime::now();
    let (status, mark) = cache.status(root)?;
    let mut paths = status.dirty;
    paths.extend(cache.unwatched(root)?);
    let mut saved = BTreeMap::new();
    for path in paths {
        if excluded(root, exclude, &path) {
            continue;
        }
        let content = cache.save(&root.join(&path), store)?;
        saved.insert(path, content);
    }
    Ok(Before {
        root: root.to_path_buf(),
        exclude: exclude.to_vec(),
        head: status.head,
        taken,
        mark,
        saved,
    })
}

impl Before {
    /// The files the command changed since, each with its content before (saved in `store`).
    pub(crate) fn changes(self, store: &BlobStore, cache: &GitCache) -> Result<Changes, WatchError> {
        let root = &self.root;
        let watch = cache.watch(root);
        if let (Some(watch), Some(mark)) = (&watch, self.mark)
            && watch.quiet_since(mark)
        {
            // Nothing git sees changed during the command.
            return Ok(Changes::default());
        }
        let (status, _) = cache.fresh_status(root, watch.as_deref())?;
        let mut candidates: BTreeSet<PathBuf> = status.dirty;
        candidates.extend(cache.unwatched(root)?);
        if status.head != self.head {
            candidates.extend(git::changed_between(
                root,
                self.head.as_deref(),
                status.head.as_deref(),
            )?);
        }
        candidates.extend(self.saved.keys().cloned());

        let mut changed = Vec::new();
        let mut clean_before = Vec::new();
        for path in candidates {
            if excluded(root, &self.exclude, &path) {
                continue;
            }
            let full = root.join(&path);
            match self.saved.get(&path) {
                // Not a file before (a link, a folder): nothing to put back.
                Some(None) => {}
                Some(Some((key, before))) => {
                    if let Some(after) = content_now(&full, (*key, before), self.taken)?
                        && after != *before
                    {
                        changed.push((full, before.clone()));
                    }
                }
                None => clean_before.push(path),
            }
        }
        let unrestorable = self.clean_before(&clean_before, store, &mut changed)?;
        changed.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(Changes {
            changed,
            unrestorable,
        })
    }

    /// The files among `paths` (not saved before: as HEAD had them, or absent, or ignored) that
    /// changed, with HEAD's content saved as their content before.
    fn clean_before(
        &self,
        paths: &[PathBuf],
        store: &BlobStore,
        changed: &mut Vec<(PathBuf, Content)>,
    ) -> Result<Vec<PathBuf>, WatchError> {
        let root = &self.root;
        let entries = match (&self.head, paths.is_empty()) {
            (Some(head), false) => git::entries_in(root, head, paths)?,
            _ => BTreeMap::new(),
        };
        let mut from_head: Vec<(PathBuf, String, Content)> = Vec::new();
        for path in paths {
            let full = root.join(path);
            let now = content_of(&full)?;
            match entries.get(path) {
                Some(Entry::File { oid }) => {
                    if let Some(now) = now {
                        from_head.push((path.clone(), oid.clone(), now));
                    }
                }
                Some(Entry::Other) => {}
                None => {
                    // Not in HEAD and not listed before: absent then, unless it was ignored (its
                    // inode older than the look before says it was there all along).
                    if matches!(now, Some(Content::Present { .. })) && !self.untouched_since_before(&full) {
                        changed.push((full, Content::Absent));
                    }
                }
            }
        }
        if from_head.is_empty() {
            return Ok(Vec::new());
        }
        let paths: Vec<PathBuf> = from_head.iter().map(|(p, ..)| p.clone()).collect();
        let converted = git::converted(root, &paths)?;
        let oids: Vec<String> = from_head
            .iter()
            .filter(|(p, ..)| !converted.contains(p))
            .map(|(_, oid, _)| oid.clone())
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let mut contents: HashMap<String, Content> = HashMap::new();
        git::blobs(root, &oids, |oid, bytes| {
            contents.insert(oid.to_string(), store.put(&bytes)?);
            Ok(())
        })?;
        let mut unrestorable = Vec::new();
        for (path, oid, now) in from_head {
            let full = root.join(&path);
            match contents.get(&oid) {
                Some(before) if *before != now => changed.push((full, before.clone())),
                Some(_) => {}
                None => unrestorable.push(full),
            }
        }
        Ok(unrestorable)
    }

    /// Whether the file's inode was last changed before the look before the command.
    fn untouched_since_before(&self, path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| {
            let ctime = SystemTime::UNIX_EPOCH
                + Duration::new(
                    m.ctime().max(0) as u64,
                    m.ctime_nsec().clamp(0, 999_999_999) as u32,
                );
            // File-system clocks tick coarsely: a generous tick before the look.
            ctime + Duration::from_millis(50) < self.taken
        })
    }
}

fn excluded(root: &Path, exclude: &[PathBuf], path: &Path) -> bool {
    !exclude.is_empty() && {
        let full = root.join(path);
        exclude.iter().any(|x| full.starts_with(x))
    }
}

/// What a regular file holds now (`Some(Absent)` when there is none); `None` for something that
/// is not a regular file.
fn content_of(path: &Path) -> Result<Option<Content>, CheckpointError> {
    Ok(match read_regular(path, |_| None)? {
        None => Some(Content::Absent),
        Some((_, Read::Bytes(bytes))) => Some(content_of_bytes(&bytes)),
        Some((_, Read::Cached(content))) => Some(content),
        Some((_, Read::NotAFile)) => None,
    })
}

/// What a file saved before the command with `before` (its stat data then, and content) holds
/// now; `None` when it is no longer a regular file. Its stat data unchanged (and not racy when
/// seen) says it is unchanged without reading it.
fn content_now(
    path: &Path,
    (key_before, before): (Option<StatKey>, &Content),
    taken: SystemTime,
) -> Result<Option<Content>, CheckpointError> {
    let unchanged = |key: StatKey| key_before == Some(key) && !key.racy(taken);
    Ok(
        match read_regular(path, |key| unchanged(key).then(|| before.clone()))? {
            None => Some(Content::Absent),
            Some((_, Read::Cached(content))) => Some(content),
            Some((_, Read::Bytes(bytes))) => Some(content_of_bytes(&bytes)),
            Some((_, Read::NotAFile)) => None,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    struct Repo {
        dir: tempfile::TempDir,
        store: BlobStore,
        cache: GitCache,
    }

    impl Repo {
        /// A git work tree with `files` committed and `target/` ignored.
        fn new(files: &[(&str, &str)]) -> Self {
            let dir = tempfile::tempdir().unwrap();
            let repo = Self {
                store: BlobStore::new(dir.path().join("blobs")),
                dir,
                cache: GitCache::default(),
            };
            std::fs::create_dir(repo.root()).unwrap();
            repo.git(&["init", "-q"]);
            repo.write(".gitignore", "target/\n");
            for (path, text) in files {
                repo.write(path, text);
            }
            repo.git(&["add", "-A"]);
            repo.git(&["commit", "-q", "-m", "start"]);
            repo
        }

        /// A repository whose watcher has listed its folders, so calls may skip `git status`.
        #[cfg(target_os = "linux")]
        fn watched(files: &[(&str, &str)]) -> Self {
            let repo = Self::new(files);
            assert!(
                repo.cache.wait_watching(&repo.root(), Duration::from_secs(20)),
                "the watcher lists the tree"
            );
            repo
        }

        fn root(&self) -> PathBuf {
            self.dir.path().join("tree")
        }

        fn git(&self, args: &[&str]) {
            nerve_test_support::git::git(&self.root(), args);
        }

        fn write(&self, path: &str, text: &str) {
            let full = self.root().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }

        fn before(&self) -> Before {
            before(&self.root(), &[], &self.store, &self.cache).unwrap()
        }

        /// The changes, each file's content before as text ("" for absent).
        fn changes(&self, before: Before) -> (Vec<(String, String)>, Vec<String>) {
            let found = before.changes(&self.store, &self.cache).unwrap();
            let rel = |p: &Path| p.strip_prefix(self.root()).unwrap().display().to_string();
            let changed = found
                .changed
                .iter()
                .map(|(p, c)| {
                    let text = self
                        .store
                        .get(c)
                        .unwrap()
                        .map(|b| String::from_utf8(b).unwrap())
                        .unwrap_or_default();
                    (rel(p), text)
                })
                .collect();
            (changed, found.unrestorable.iter().map(|p| rel(p)).collect())
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    }

    #[test]
    fn dirty_clean_untracked_new_and_removed_files_each_come_back_with_their_content_before() {
        let repo = Repo::new(&[
            ("clean.txt", "clean\n"),
            ("dirty.txt", "committed\n"),
            ("gone.txt", "bye\n"),
            ("same.txt", "s\n"),
        ]);
        repo.write("dirty.txt", "dirty before\n");
        repo.write("untracked.txt", "untracked before\n");
        repo.write("target/out.o", "ignored before\n");
        let before = repo.before();
        repo.write("clean.txt", "changed\n");
        repo.write("dirty.txt", "dirtier\n");
        repo.write("untracked.txt", "untracked after\n");
        repo.write("target/out.o", "ignored after\n");
        repo.write("new/made.txt", "new\n");
        std::fs::remove_file(repo.root().join("gone.txt")).unwrap();
        assert_eq!(
            repo.changes(before),
            (
                pairs(&[
                    ("clean.txt", "clean\n"),
                    ("dirty.txt", "dirty before\n"),
                    ("gone.txt", "bye\n"),
                    ("new/made.txt", ""),
                    ("untracked.txt", "untracked before\n"),
                ]),
                vec![]
            )
        );
    }

    #[test]
    fn a_command_that_changes_nothing_changes_nothing_even_in_a_dirty_tree() {
        let repo = Repo::new(&[("a.txt", "a\n")]);
        repo.write("a.txt", "dirty\n");
        repo.write("b.txt", "untracked\n");
        let before = repo.before();
        assert_eq!(repo.changes(before), (vec![], vec![]));
    }

    #[test]
    fn files_a_git_command_changes_are_found_though_git_calls_them_clean_after() {
        let repo = Repo::new(&[("a.txt", "one\n"), ("b.txt", "b\n")]);
        repo.git(&["checkout", "-q", "-b", "other"]);
        repo.write("a.txt", "two\n");
        repo.write("c.txt", "only on other\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "other"]);
        repo.git(&["checkout", "-q", "-"]);
        repo.write("b.txt", "staged\n");
        repo.git(&["add", "b.txt"]);
        let before = repo.before();
        // Stash the staged change, move to the other branch: everything is clean afterwards.
        repo.git(&["stash", "-q"]);
        repo.git(&["checkout", "-q", "other"]);
        assert_eq!(
            repo.changes(before),
            (
                pairs(&[("a.txt", "one\n"), ("b.txt", "staged\n"), ("c.txt", "")]),
                vec![]
            )
        );
    }

    #[test]
    fn a_file_git_is_told_not_to_look_at_is_still_watched() {
        let repo = Repo::new(&[("config.txt", "committed\n"), ("sparse.txt", "s\n")]);
        repo.git(&["update-index", "--assume-unchanged", "config.txt"]);
        repo.git(&["update-index", "--skip-worktree", "sparse.txt"]);
        repo.write("config.txt", "local before\n");
        let before = repo.before();
        repo.write("config.txt", "local after\n");
        repo.write("sparse.txt", "changed\n");
        assert_eq!(
            repo.changes(before),
            (
                pairs(&[("config.txt", "local before\n"), ("sparse.txt", "s\n")]),
                vec![]
            )
        );
    }

    #[test]
    fn a_change_of_the_same_size_within_the_same_second_is_seen() {
        // Committed and changed at once: git's stat data cannot tell these apart by time.
        let repo = Repo::new(&[("a.txt", "aaaa\n")]);
        repo.write("u.txt", "uuuu\n");
        for round in 0..20 {
            let before = repo.before();
            let (a, u) = (format!("a{round:03}\n"), format!("u{round:03}\n"));
            let (was_a, was_u) = (
                std::fs::read_to_string(repo.root().join("a.txt")).unwrap(),
                std::fs::read_to_string(repo.root().join("u.txt")).unwrap(),
            );
            repo.write("a.txt", &a);
            repo.write("u.txt", &u);
            let (changed, _) = repo.changes(before);
            assert_eq!(
                changed,
                pairs(&[("a.txt", &was_a), ("u.txt", &was_u)]),
                "round {round}"
            );
        }
        println!("checked 20 same-size changes made within a second of the look before");
    }

    #[test]
    fn a_file_git_converts_on_checkout_is_reported_as_not_restorable() {
        let repo = Repo::new(&[
            (".gitattributes", "*.bin filter=lfs\n*.txt text eol=crlf\n"),
            ("plain.rs", "p\n"),
        ]);
        repo.write("big.bin", "pointer\n");
        repo.write("notes.txt", "text\n");
        repo.git(&["add", "-A"]);
        repo.git(&["commit", "-q", "-m", "attrs"]);
        let before = repo.before();
        repo.write("big.bin", "other\n");
        repo.write("notes.txt", "other\n");
        repo.write("plain.rs", "q\n");
        assert_eq!(
            repo.changes(before),
            (
                pairs(&[("plain.rs", "p\n")]),
                vec!["big.bin".to_string(), "notes.txt".to_string()]
            )
        );
    }

    #[test]
    fn a_file_system_monitor_the_repository_names_never_runs() {
        let repo = Repo::new(&[("a.txt", "a\n")]);
        let marker = repo.dir.path().join("ran");
        let script = repo.dir.path().join("monitor.sh");
        std::fs::write(&script, format!("#!/bin/sh\ntouch '{}'\n", marker.display())).unwrap();
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&script)
            .status()
            .unwrap();
        repo.git(&["config", "core.fsmonitor", &script.display().to_string()]);
        let before = repo.before();
        repo.write("a.txt", "b\n");
        assert_eq!(repo.changes(before), (pairs(&[("a.txt", "a\n")]), vec![]));
        assert!(!marker.exists(), "the repository's fsmonitor ran");
    }

    #[test]
    fn a_file_that_was_ignored_and_untouched_is_not_taken_for_a_new_one() {
        let repo = Repo::new(&[("a.txt", "a\n")]);
        repo.write("target/kept.o", "built\n");
        std::thread::sleep(Duration::from_millis(100));
        let before = repo.before();
        // The command stops ignoring target/: kept.o appears untracked, but it was there before.
        repo.write(".gitignore", "");
        assert_eq!(
            repo.changes(before),
            (pairs(&[(".gitignore", "target/\n")]), vec![])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn commands_that_change_nothing_git_sees_cost_no_git_status_once_the_watcher_is_ready() {
        let repo = Repo::watched(&[("a.txt", "a\n")]);
        repo.write("dirty.txt", "untracked\n");
        for round in 0..5 {
            let before = repo.before();
            // A build writes only ignored files; a reader opens tracked ones.
            repo.write("target/out.o", &format!("built {round}\n"));
            let _ = std::fs::read(repo.root().join("a.txt")).unwrap();
            assert_eq!(repo.changes(before), (vec![], vec![]), "round {round}");
        }
        assert_eq!(repo.cache.statuses(), 1, "one `git status` for five commands");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_change_made_between_commands_is_the_next_commands_content_before() {
        let repo = Repo::watched(&[("a.txt", "committed\n"), ("b.txt", "b\n")]);
        let before = repo.before();
        assert_eq!(repo.changes(before), (vec![], vec![]));
        // The user edits a clean file between two commands; the second changes it again.
        repo.write("a.txt", "the user's edit\n");
        let before = repo.before();
        repo.write("a.txt", "the command's edit\n");
        assert_eq!(
            repo.changes(before),
            (pairs(&[("a.txt", "the user's edit\n")]), vec![])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn files_in_folders_a_command_makes_are_seen() {
        let repo = Repo::watched(&[("a.txt", "a\n")]);
        let before = repo.before();
        repo.write("new/deeper/still/made.txt", "new\n");
        repo.write("new/top.txt", "top\n");
        assert_eq!(
            repo.changes(before),
            (
                pairs(&[("new/deeper/still/made.txt", ""), ("new/top.txt", "")]),
                vec![]
            )
        );
        // The new folders are watched from then on.
        let before = repo.before();
        repo.write("new/deeper/still/made.txt", "changed\n");
        assert_eq!(
            repo.changes(before),
            (pairs(&[("new/deeper/still/made.txt", "new\n")]), vec![])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_commit_between_commands_moves_what_clean_means() {
        let repo = Repo::watched(&[("a.txt", "one\n")]);
        let before = repo.before();
        assert_eq!(repo.changes(before), (vec![], vec![]));
        repo.write("a.txt", "two\n");
        repo.git(&["commit", "-q", "-am", "two"]);
        let before = repo.before();
        repo.write("a.txt", "three\n");
        assert_eq!(repo.changes(before), (pairs(&[("a.txt", "two\n")]), vec![]));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_tracked_file_in_an_ignored_folder_and_a_folder_no_longer_ignored_are_watched() {
        let repo = Repo::new(&[("a.txt", "a\n")]);
        repo.write("target/kept.txt", "tracked though ignored\n");
        repo.git(&["add", "-f", "target/kept.txt"]);
        repo.git(&["commit", "-q", "-m", "kept"]);
        repo.write("logs/old.log", "ignored\n");
        repo.write(".gitignore", "target/\nlogs/\n");
        repo.git(&["commit", "-q", "-am", "ignore logs"]);
        assert!(repo.cache.wait_watching(&repo.root(), Duration::from_secs(20)));
        let before = repo.before();
        repo.write("target/kept.txt", "changed\n");
        assert_eq!(
            repo.changes(before),
            (pairs(&[("target/kept.txt", "tracked though ignored\n")]), vec![])
        );
        // The user stops ignoring logs/ between commands: a command's change there is seen.
        repo.write(".gitignore", "target/\n");
        repo.git(&["commit", "-q", "-am", "logs tracked"]);
        let _ = repo.before();
        assert!(repo.cache.wait_watching(&repo.root(), Duration::from_secs(20)));
        let before = repo.before();
        repo.write("logs/old.log", "changed\n");
        assert_eq!(
            repo.changes(before),
            (pairs(&[("logs/old.log", "ignored\n")]), vec![])
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn ignored_files_beside_the_sources_change_nothing_but_a_forced_one_is_seen() {
        let repo = Repo::new(&[("a.txt", "a\n"), ("src/lib.rs", "fn f() {}\n")]);
        repo.write(".gitignore", "target/\n*.log\nsrc/gen/\n!keep.log\n");
        repo.write("forced.log", "tracked though ignored\n");
        repo.git(&["add", ".gitignore"]);
        repo.git(&["add", "-f", "forced.log"]);
        repo.git(&["commit", "-q", "-m", "ignores"]);
        assert!(repo.cache.wait_watching(&repo.root(), Duration::from_secs(20)));
        let first = repo.before();
        assert_eq!(repo.changes(first), (vec![], vec![]));
        let statuses = repo.cache.statuses();
        for round in 0..3 {
            let before = repo.before();
            // A build's log beside the sources, and a generated file in an ignored subfolder.
            repo.write("build.log", &format!("round {round}\n"));
            if round == 2 {
                std::fs::remove_file(repo.root().join("build.log")).unwrap();
            }
            repo.write("src/gen/out.rs", &format!("// {round}\n"));
            assert_eq!(repo.changes(before), (vec![], vec![]), "round {round}");
        }
        assert_eq!(
            repo.cache.statuses(),
            statuses,
            "ignored writes cost no `git status`"
        );
        // A tracked file a pattern matches counts; so does a file a negated pattern keeps.
        let before = repo.before();
        repo.write("forced.log", "changed\n");
        assert_eq!(
            repo.changes(before),
            (pairs(&[("forced.log", "tracked though ignored\n")]), vec![])
        );
        let before = repo.before();
        repo.write("keep.log", "kept\n");
        assert_eq!(repo.changes(before), (pairs(&[("keep.log", "")]), vec![]));
        let before = repo.before();
        std::fs::remove_file(repo.root().join("forced.log")).unwrap();
        assert_eq!(
            repo.changes(before),
            (pairs(&[("forced.log", "changed\n")]), vec![])
        );
    }
}
