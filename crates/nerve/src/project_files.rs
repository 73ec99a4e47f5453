//! The project's files for a composer's `@` picker: one walk that honours `.gitignore` and the
//! other ignore files as Glob and Grep do (ripgrep's `ignore` crate, hidden files left out), then
//! fuzzy matching as the user types (nucleo's matcher, scored for paths, with the matched
//! characters' positions for highlighting).

use std::path::Path;

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use serde::{Deserialize, Serialize};

/// Most files one walk lists (a picker over more would not help anyone).
pub const MAX_FILES: usize = 50_000;

/// A file that matched the typed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileMatch {
    /// The path relative to the project, `/`-separated.
    pub path: String,
    /// How well it matched (higher is better).
    pub score: u32,
    /// Positions (in characters) of `path` that matched, ascending.
    pub indices: Vec<u32>,
}

/// A listing of the project's files.
#[derive(Debug, Clone, Default)]
pub struct ProjectFiles {
    paths: Vec<String>,
    /// Whether the walk stopped at [`MAX_FILES`].
    pub truncated: bool,
}

impl ProjectFiles {
    /// Lists the files under `root` (not following links, not descending into `.git`).
    pub fn scan(root: &Path) -> Self {
        let mut paths = Vec::new();
        let mut truncated = false;
        let walk = ignore::WalkBuilder::new(root)
            .hidden(true)
            .git_ignore(true)
            .git_global(true)
            .git_exclude(true)
            .require_git(false)
            .follow_links(false)
            .build();
        for entry in walk.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else {
                continue;
            };
            let Some(text) = relative.to_str() else {
                // A name that is not UTF-8 cannot be typed after `@`.
                continue;
            };
            if paths.len() == MAX_FILES {
                truncated = true;
                break;
            }
            paths.push(text.replace(std::path::MAIN_SEPARATOR, "/"));
        }
        paths.sort();
        Self { paths, truncated }
    }

    /// How many files were listed.
    pub fn len(&self) -> usize {
        self.paths.len()
    }

    /// Whether no file was listed.
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
    }

    /// The best `limit` matches of `query`, best first (ties: shorter path, then by name). An
    /// empty query lists the first files by name.
    pub fn find(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        let query = query.trim();
        if query.is_empty() {
            return self
                .paths
                .iter()
                .take(limit)
                .map(|p| FileMatch {
                    path: p.clone(),
                    score: 0,
                    indices: Vec::new(),
                })
                .collect();
        }
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut chars = Vec::new();
        let mut scored: Vec<(u32, &String)> = self
            .paths
            .iter()
            .filter_map(|p| {
                let haystack = Utf32Str::new(p, &mut chars);
                pattern.score(haystack, &mut matcher).map(|s| (s, p))
            })
            .collect();
        scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.len().cmp(&b.1.len())).then(a.1.cmp(b.1)));
        scored
            .into_iter()
            .take(limit)
            .map(|(score, p)| {
                let mut indices = Vec::new();
                let haystack = Utf32Str::new(p, &mut chars);
                pattern.indices(haystack, &mut matcher, &mut indices);
                indices.sort_unstable();
                indices.dedup();
                FileMatch {
                    path: p.clone(),
                    score,
                    indices,
                }
            })
            .collect()
    }
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

    #[test]
    fn ignored_and_hidden_files_are_left_out() {
        let dir = project();
        let files = ProjectFiles::scan(dir.path());
        let all: Vec<String> = files.find("", 100).into_iter().map(|m| m.path).collect();
        assert_eq!(
            all,
            vec![
                "docs/guide/regex.md",
                "greeting.txt",
                "src/generate.rs",
                "src/main.rs"
            ]
        );
        assert!(!files.truncated);
    }

    #[test]
    fn the_best_match_comes_first_with_its_matched_characters() {
        let dir = project();
        let files = ProjectFiles::scan(dir.path());
        let found = files.find("gre", 10);
        assert_eq!(found[0].path, "greeting.txt");
        assert_eq!(found[0].indices, vec![0, 1, 2]);
        assert!(found.iter().all(|m| m.score > 0));
        let paths: Vec<&str> = found.iter().map(|m| m.path.as_str()).collect();
        assert!(!paths.contains(&"src/main.rs"), "{paths:?}");
        assert_eq!(
            files.find("srcmain", 10)[0].path,
            "src/main.rs",
            "fuzzy across the separator"
        );
        assert_eq!(files.find("gre", 1).len(), 1);
        assert!(files.find("zzzz", 10).is_empty());
    }
}
