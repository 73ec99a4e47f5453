//! Finding files by glob: ripgrep's walk (ignore files honoured, hidden files and VCS folders
//! skipped), a globset matcher over paths relative to the root, newest first.

use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkState;
use tokio_util::sync::CancellationToken;

use crate::tools::search_progress::SearchProgress;
use crate::tools::walk::{Gathered, walker};

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
pub fn compile(pattern: &str) -> Result<GlobMatcher, GlobError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| GlobError::InvalidPattern {
            pattern: pattern.to_string(),
            reason: e.kind().to_string(),
        })
}

/// Files under `root` whose path relative to `root` matches `pattern`, leaving out those `hidden`
/// says to hide (files denied by permission rules). Each file looked at is counted in `progress`,
/// with whether it matched.
pub fn find(
    root: &Path,
    pattern: &str,
    hidden: &(dyn Fn(&Path) -> bool + Sync),
    cancel: &CancellationToken,
    progress: &SearchProgress,
) -> Result<GlobResult, GlobError> {
    let matcher = compile(pattern)?;
    let found: Mutex<Vec<(Option<SystemTime>, PathBuf)>> = Mutex::new(Vec::new());
    walker(root, false).build_parallel().run(|| {
        let matcher = &matcher;
        let mut found = Gathered::new(&found);
        let mut tally = progress.tally();
        Box::new(move |entry| {
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                return WalkState::Continue;
            };
            let matched = matcher.is_match(relative) && !hidden(entry.path());
            tally.file_searched(u64::from(matched));
            if matched {
                let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
                found.push((modified, entry.path().to_path_buf()));
            }
            WalkState::Continue
        })
    });
    if cancel.is_cancelled() {
        return Err(GlobError::Cancelled);
    }
    progress.finish();
    let mut found = found
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let total = found.len();
    // Only the newest MAX_GLOB_RESULTS are shown: pick them, then sort those alone.
    let newest_first = |a: &(Option<SystemTime>, PathBuf), b: &(Option<SystemTime>, PathBuf)| {
        b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1))
    };
    if found.len() > MAX_GLOB_RESULTS {
        found.select_nth_unstable_by(MAX_GLOB_RESULTS, newest_first);
        found.truncate(MAX_GLOB_RESULTS);
    }
    found.sort_by(newest_first);
    let paths = found.into_iter().map(|(_, p)| p).collect();
    Ok(GlobResult { paths, total })
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
            &|_| false,
            &CancellationToken::new(),
            &SearchProgress::silent(),
        )
        .unwrap()
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
        let secret = dir.path().join("secret");
        let r = find(
            dir.path(),
            "**/*.rs",
            &|p| p.starts_with(&secret),
            &CancellationToken::new(),
            &SearchProgress::silent(),
        )
        .unwrap();
        assert_eq!(names(dir.path(), &r), vec!["b.rs"]);
    }

    #[test]
    fn no_match_and_bad_pattern() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(render(&run(dir.path(), "*.nothing")), "No files found");
        let err = find(
            dir.path(),
            "src/[a",
            &|_| false,
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
