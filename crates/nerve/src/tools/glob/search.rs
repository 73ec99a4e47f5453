//! Finding files by glob: ripgrep's walk (ignore files honoured, hidden files and VCS folders
//! skipped), a globset matcher over paths relative to the root, newest first.

use std::cmp::Ordering;
use std::collections::BinaryHeap;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkState;
use tokio_util::sync::CancellationToken;

use super::modified::ModifiedTimes;
use crate::tools::search_progress::SearchProgress;
use crate::tools::walk::{CancelCheck, ReadDenyFilter, walker};

/// How many paths a result lists.
pub const MAX_GLOB_RESULTS: usize = 100;

/// The files found, newest first, at most [`MAX_GLOB_RESULTS`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GlobResult {
    /// Absolute paths, newest first (ties by path).
    pub paths: Vec<PathBuf>,
    /// How many files matched in all.
    pub total: usize,
}

/// Why a glob search could not run.
#[derive(Debug, thiserror::Error)]
pub enum GlobError {
    /// The pattern does not compile.
    #[error(
        "invalid glob pattern `{pattern}`: {reason}. Use `*` within a folder, `**` across folders, `{{a,b}}` for alternatives, e.g. `src/**/*.rs`."
    )]
    InvalidPattern {
        /// The pattern.
        pattern: String,
        /// What is wrong.
        reason: String,
    },
    /// The search was cancelled.
    #[error("the search was interrupted")]
    Cancelled,
}

/// Splits an absolute pattern into the folder before its first wildcard and the rest
/// (`/p/src/**/*.rs` → `/p/src`, `**/*.rs`), so it can be matched relative to that folder.
pub fn split_absolute(pattern: &str) -> Option<(PathBuf, String)> {
    let path = Path::new(pattern);
    if !path.is_absolute() {
        return None;
    }
    let mut base = PathBuf::new();
    let mut rest = Vec::new();
    for component in path.components() {
        let text = component.as_os_str().to_string_lossy();
        let wild = text.contains(['*', '?', '[', '{']);
        if rest.is_empty() && !wild {
            base.push(component);
        } else if let Component::Normal(_) = component {
            rest.push(text.into_owned());
        }
    }
    if rest.is_empty() {
        // No wildcard: the pattern names one file; match it relative to its folder.
        let name = base.file_name()?.to_string_lossy().into_owned();
        base.pop();
        return Some((base, name));
    }
    Some((base, rest.join("/")))
}

/// Compiles a pattern with shell semantics: `*` and `?` stay inside one folder, `**` crosses them.
///
/// A set of one glob, not the glob's own matcher: that one runs a regular expression over every
/// path, where the set matches the common shapes without one (`**/*.md` by the extension,
/// `**/Cargo.toml` by the name), a few times faster over a million paths.
pub fn compile(pattern: &str) -> Result<GlobSet, GlobError> {
    let invalid = |e: globset::Error| GlobError::InvalidPattern {
        pattern: pattern.to_string(),
        reason: e.kind().to_string(),
    };
    let glob = GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(invalid)?;
    GlobSetBuilder::new().add(glob).build().map_err(invalid)
}

/// Files under `root` whose path relative to `root` matches `pattern`, leaving out (never listing)
/// what `withhold` withholds (paths denied by Read rules; it counts them). Each file looked at is
/// counted in `progress`, with whether it matched.
pub fn find(
    root: &Path,
    pattern: &str,
    withhold: &Arc<ReadDenyFilter>,
    cancel: &CancellationToken,
    progress: &SearchProgress,
) -> Result<GlobResult, GlobError> {
    let matcher = compile(pattern)?;
    let found = Mutex::new(Found::default());
    walker(root, false, withhold).build_parallel().run(|| {
        let matcher = &matcher;
        let mut found = Newest::new(&found);
        let mut times = ModifiedTimes::default();
        let mut tally = progress.tally();
        let mut cancelled = CancelCheck::new(cancel);
        Box::new(move |entry| {
            if cancelled.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(relative) = relative_to(root, entry.path()) else {
                return WalkState::Continue;
            };
            let matched = matcher.is_match(relative);
            tally.file_searched(u64::from(matched));
            if matched {
                found.offer(times.of(entry.path()), entry.path());
            }
            WalkState::Continue
        })
    });
    if cancel.is_cancelled() {
        return Err(GlobError::Cancelled);
    }
    progress.finish();
    let Found { total, mut kept } = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // Each thread's newest: the newest of them all, in order.
    kept.sort_unstable();
    kept.truncate(MAX_GLOB_RESULTS);
    let paths = kept.into_iter().map(|m| m.path).collect();
    Ok(GlobResult { paths, total })
}

/// `path` relative to `root`, for a path the walk of `root` gave (`root`, a slash, the rest): the
/// bytes after that prefix, where `Path::strip_prefix` compares component by component (a
/// million times over a big project).
fn relative_to<'p>(root: &Path, path: &'p Path) -> Option<&'p Path> {
    let rest = path
        .as_os_str()
        .as_bytes()
        .strip_prefix(root.as_os_str().as_bytes())?;
    let rest = match rest.strip_prefix(b"/") {
        Some(rest) => rest,
        // A root ending in a slash (`/`) is followed directly by the rest.
        None if root.as_os_str().as_bytes().ends_with(b"/") => rest,
        None => return None,
    };
    Some(Path::new(std::ffi::OsStr::from_bytes(rest)))
}

/// A file that matched: when it was last modified, and where.
#[derive(Debug, PartialEq, Eq)]
struct Match {
    modified: Option<SystemTime>,
    path: PathBuf,
}

impl Match {
    /// The order of a result: newest first (a time not known last), then by path.
    fn order(modified: Option<SystemTime>, path: &Path, other: &Match) -> Ordering {
        other.modified.cmp(&modified).then_with(|| path.cmp(&other.path))
    }
}

impl Ord for Match {
    fn cmp(&self, other: &Self) -> Ordering {
        Match::order(self.modified, &self.path, other)
    }
}

impl PartialOrd for Match {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// What every walk thread found: how many files matched, and each thread's newest.
#[derive(Debug, Default)]
struct Found {
    total: usize,
    kept: Vec<Match>,
}

/// What one walk thread found: how many files matched and the newest [`MAX_GLOB_RESULTS`] of them
/// (a heap whose top is the next to let go), added to the shared [`Found`] when the thread's visitor
/// is dropped. A search matching 200,000 files keeps 100 paths per thread, not 200,000, and takes
/// the shared lock once per thread.
struct Newest<'a> {
    count: usize,
    kept: BinaryHeap<Match>,
    shared: &'a Mutex<Found>,
}

impl<'a> Newest<'a> {
    fn new(shared: &'a Mutex<Found>) -> Self {
        Self {
            count: 0,
            kept: BinaryHeap::with_capacity(MAX_GLOB_RESULTS + 1),
            shared,
        }
    }

    /// One more match; its path is copied only if it is among the newest so far.
    fn offer(&mut self, modified: Option<SystemTime>, path: &Path) {
        self.count += 1;
        if self.kept.len() == MAX_GLOB_RESULTS {
            match self.kept.peek() {
                Some(last) if Match::order(modified, path, last) == Ordering::Less => {
                    self.kept.pop();
                }
                _ => return,
            }
        }
        self.kept.push(Match {
            modified,
            path: path.to_path_buf(),
        });
    }
}

impl Drop for Newest<'_> {
    fn drop(&mut self) {
        let mut shared = self
            .shared
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        shared.total += self.count;
        shared.kept.extend(std::mem::take(&mut self.kept).into_vec());
    }
}

/// The text the model reads.
pub fn render(result: &GlobResult) -> String {
    if result.paths.is_empty() {
        return "No files found".to_string();
    }
    let mut text = result
        .paths
        .iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("\n");
    if result.total > result.paths.len() {
        text.push_str(&format!(
            "\n(Results are truncated: {} files matched, showing the {} newest. Use a more specific pattern or path.)",
            result.total,
            result.paths.len()
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::fs;
    use std::time::Duration;

    fn write(root: &Path, rel: &str, age_secs: u64) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(&p, rel).unwrap();
        let when = SystemTime::now() - Duration::from_secs(age_secs);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    fn names(root: &Path, r: &GlobResult) -> Vec<String> {
        r.paths
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect()
    }

    fn run(root: &Path, pattern: &str) -> GlobResult {
        find(
            root,
            pattern,
            &Arc::default(),
            &CancellationToken::new(),
            &SearchProgress::silent(),
        )
        .unwrap()
    }

    #[test]
    fn relative_to_is_strip_prefix_on_the_walks_paths() {
        let cases = [
            ("/p", "/p/src/a.rs"),
            ("/p", "/pq/a.rs"),
            ("/", "/etc/hosts"),
            ("/p/", "/p/a.rs"),
            ("/p", "/p"),
        ];
        for (root, path) in cases {
            let (root, path) = (Path::new(root), Path::new(path));
            let expected = path
                .strip_prefix(root)
                .ok()
                .filter(|rest| !rest.as_os_str().is_empty());
            assert_eq!(
                relative_to(root, path),
                expected,
                "{} in {}",
                path.display(),
                root.display()
            );
        }
    }

    #[test]
    fn star_stays_in_one_folder_and_double_star_crosses() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "a.rs", 30);
        write(dir.path(), "src/b.rs", 20);
        write(dir.path(), "src/deep/c.rs", 10);
        write(dir.path(), "src/d.txt", 5);
        assert_eq!(names(dir.path(), &run(dir.path(), "*.rs")), vec!["a.rs"]);
        assert_eq!(
            names(dir.path(), &run(dir.path(), "**/*.rs")),
            vec!["src/deep/c.rs", "src/b.rs", "a.rs"],
            "newest first"
        );
        assert_eq!(
            names(dir.path(), &run(dir.path(), "src/*.{rs,txt}")),
            vec!["src/d.txt", "src/b.rs"]
        );
    }

    /// The set of one glob matches the common shapes by extension, name or prefix, without the
    /// glob's regular expression: it must match exactly the paths that expression does.
    #[test]
    fn the_compiled_set_matches_as_the_glob_itself() {
        let patterns = [
            "**/*.rs",
            "*.rs",
            "**/Cargo.toml",
            "Cargo.toml",
            "src/**",
            "src/**/*.rs",
            "**/src/*.rs",
            "src/*.{rs,txt}",
            "**/*.tar.gz",
            "**/[ab].rs",
            "?.rs",
            "**/*",
        ];
        let paths = [
            "a.rs",
            "b.rs",
            "src/a.rs",
            "src/deep/b.rs",
            "src/d.txt",
            "Cargo.toml",
            "crates/x/Cargo.toml",
            "xCargo.toml",
            "dist/pkg.tar.gz",
            "pkg.gz",
            "src",
            "lib/src/main.rs",
            ".rs",
            "a.rs/inner",
        ];
        for pattern in patterns {
            let set = compile(pattern).unwrap();
            let glob = GlobBuilder::new(pattern)
                .literal_separator(true)
                .build()
                .unwrap()
                .compile_matcher();
            let differ: Vec<_> = paths
                .iter()
                .filter(|p| set.is_match(p) != glob.is_match(p))
                .collect();
            assert!(differ.is_empty(), "{pattern}: {differ:?}");
        }
    }

    #[test]
    fn ignore_files_hidden_files_and_vcs_folders_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join(".git")).unwrap();
        write(dir.path(), ".gitignore", 1);
        fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        write(dir.path(), ".ignore", 1);
        fs::write(dir.path().join(".ignore"), "*.log\n").unwrap();
        write(dir.path(), "target/x.rs", 1);
        write(dir.path(), "run.log", 1);
        write(dir.path(), ".hidden/y.rs", 1);
        write(dir.path(), ".git/z.rs", 1);
        write(dir.path(), "keep.rs", 1);
        let r = run(dir.path(), "**/*");
        assert_eq!(names(dir.path(), &r), vec!["keep.rs"]);
    }

    /// Two walk threads' matches in any order, many with the same time: what each keeps, merged,
    /// is the newest hundred of them all, ties by path, and every match is counted.
    #[test]
    fn each_thread_keeps_its_newest_and_together_they_are_the_newest() {
        let epoch = SystemTime::UNIX_EPOCH;
        // 400 matches, 20 per time, shuffled by a fixed permutation; one with no time.
        let mut all: Vec<(Option<SystemTime>, PathBuf)> = (0..400u64)
            .map(|i| {
                let when = epoch + Duration::from_secs(i / 20);
                (Some(when), PathBuf::from(format!("/p/f{:03}", (i * 7919) % 400)))
            })
            .collect();
        all.push((None, PathBuf::from("/p/unknown")));
        let shuffled: Vec<_> = (0..all.len())
            .map(|i| all[(i * 37) % all.len()].clone())
            .collect();
        let shared = Mutex::new(Found::default());
        for part in shuffled.chunks(150) {
            let mut thread = Newest::new(&shared);
            for (modified, path) in part {
                thread.offer(*modified, path);
            }
        }
        let Found { total, mut kept } = shared.into_inner().unwrap();
        kept.sort_unstable();
        kept.truncate(MAX_GLOB_RESULTS);
        let mut expected = all.clone();
        expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
        expected.truncate(MAX_GLOB_RESULTS);
        assert_eq!(total, 401);
        assert_eq!(
            kept.into_iter().map(|m| (m.modified, m.path)).collect::<Vec<_>>(),
            expected
        );
    }

    #[test]
    fn caps_at_one_hundred_newest_with_a_note() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..105 {
            write(dir.path(), &format!("f{i:03}.txt"), 1000 - i);
        }
        let r = run(dir.path(), "*.txt");
        assert_eq!(r.total, 105);
        assert_eq!(r.paths.len(), MAX_GLOB_RESULTS);
        // The newest hundred, newest first (the five oldest are left out).
        let newest: Vec<String> = (5..105).rev().map(|i| format!("f{i:03}.txt")).collect();
        assert_eq!(names(dir.path(), &r), newest);
        let text = render(&r);
        assert!(
            text.ends_with("(Results are truncated: 105 files matched, showing the 100 newest. Use a more specific pattern or path.)"),
            "{text}"
        );
    }

    #[test]
    fn hidden_paths_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "secret/a.rs", 1);
        write(dir.path(), "b.rs", 1);
        let mut rules = crate::permissions::RuleSet::new();
        rules.add(crate::permissions::PermissionRule::new(
            crate::permissions::RuleSource::CliArg,
            crate::permissions::RuleBehavior::Deny,
            "Read(./secret/**)".parse().unwrap(),
            dir.path().to_path_buf(),
        ));
        let withhold = Arc::new(ReadDenyFilter::from_rules(&rules, dir.path()));
        let r = find(
            dir.path(),
            "**/*.rs",
            &withhold,
            &CancellationToken::new(),
            &SearchProgress::silent(),
        )
        .unwrap();
        assert_eq!(names(dir.path(), &r), vec!["b.rs"]);
        assert_eq!(withhold.withheld(), 1, "the folder, never entered");
    }

    #[test]
    fn no_match_and_bad_pattern() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(render(&run(dir.path(), "*.nothing")), "No files found");
        let err = find(
            dir.path(),
            "src/[a",
            &Arc::default(),
            &CancellationToken::new(),
            &SearchProgress::silent(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("invalid glob pattern `src/[a`"), "{err}");
    }

    #[test]
    fn absolute_patterns_split_at_the_first_wildcard() {
        assert_eq!(
            split_absolute("/p/src/**/*.rs"),
            Some((PathBuf::from("/p/src"), "**/*.rs".to_string()))
        );
        assert_eq!(
            split_absolute("/p/a.rs"),
            Some((PathBuf::from("/p"), "a.rs".to_string()))
        );
        assert_eq!(split_absolute("src/*.rs"), None);
    }
}
