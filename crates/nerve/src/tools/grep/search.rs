//! The search itself, on ripgrep's libraries: `grep-regex` matches, `grep-searcher` reads files
//! (binary files are skipped the way `rg` skips them), `ignore` walks the tree in parallel with
//! ripgrep's filters. The result is sorted, so parallelism never changes the output.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, SearcherBuilder};
use ignore::WalkState;
use ignore::overrides::OverrideBuilder;
use ignore::types::TypesBuilder;
use tokio_util::sync::CancellationToken;

use crate::tools::grep::input::OutputMode;
use crate::tools::grep::sink::FileSink;
use crate::tools::search_progress::SearchProgress;
use crate::tools::walk::{CancelCheck, Gathered, ReadDenyFilter, walker};

/// What to search for and where.
#[derive(Debug, Clone)]
pub struct SearchOptions {
    /// The regular expression.
    pub pattern: String,
    /// The file or folder to search.
    pub root: PathBuf,
    /// What to collect.
    pub mode: OutputMode,
    /// Ignore case.
    pub case_insensitive: bool,
    /// Let matches span lines (`.` matches newlines too).
    pub multiline: bool,
    /// Show line numbers in content mode.
    pub line_numbers: bool,
    /// Context lines before each match.
    pub before: usize,
    /// Context lines after each match.
    pub after: usize,
    /// Glob filters (`!` excludes), as ripgrep's `--glob`.
    pub globs: Vec<String>,
    /// A ripgrep file type (`rust`, `py`...).
    pub file_type: Option<String>,
    /// Also search hidden files (VCS folders stay excluded).
    pub hidden: bool,
    /// What the walk leaves out (paths Read deny rules match), counting it.
    pub withhold: Arc<ReadDenyFilter>,
}

impl SearchOptions {
    /// Options for `pattern` under `root` with ripgrep's defaults.
    pub fn new(pattern: impl Into<String>, root: impl Into<PathBuf>, mode: OutputMode) -> Self {
        Self {
            pattern: pattern.into(),
            root: root.into(),
            mode,
            case_insensitive: false,
            multiline: false,
            line_numbers: true,
            before: 0,
            after: 0,
            globs: Vec::new(),
            file_type: None,
            hidden: false,
            withhold: Arc::default(),
        }
    }
}

/// One file with at least one match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileHits {
    /// The file.
    pub path: PathBuf,
    /// Its modification time (files-with-matches mode only, for newest-first order).
    pub modified: Option<SystemTime>,
    /// Matching lines (1 in files-with-matches mode, which stops at the first).
    pub matched_lines: u64,
    /// Output lines (content mode only).
    pub lines: Vec<String>,
}

/// Why a search could not start. Each names the faulty input and says how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    /// The pattern is not a valid regular expression.
    #[error(
        "invalid regular expression `{pattern}`: {reason}\nGrep uses Rust regex syntax (like ripgrep): escape literal braces, parentheses, brackets and dots (`interface\\{{\\}}`); look-around and backreferences are not supported."
    )]
    InvalidRegex {
        /// The pattern.
        pattern: String,
        /// The parser's complaint.
        reason: String,
    },
    /// The glob filter is invalid.
    #[error("invalid glob `{glob}`: {reason}")]
    InvalidGlob {
        /// The glob.
        glob: String,
        /// What is wrong.
        reason: String,
    },
    /// The file type is unknown.
    #[error("unknown file type `{name}`. Known types include: {known}. Use `glob` for anything else.")]
    UnknownType {
        /// The type asked for.
        name: String,
        /// Some known type names.
        known: String,
    },
    /// The file type definitions could not be built.
    #[error("invalid file type selection: {0}")]
    InvalidType(String),
    /// The search was cancelled.
    #[error("the search was interrupted")]
    Cancelled,
}

/// Builds the matcher the way `rg` does: `^`/`$` match at line ends; outside multiline mode the
/// matcher knows the line terminator, which lets the searcher look for candidate lines fast.
pub fn build_matcher(opts: &SearchOptions) -> Result<RegexMatcher, SearchError> {
    let mut builder = RegexMatcherBuilder::new();
    builder
        .case_insensitive(opts.case_insensitive)
        .multi_line(true)
        .dot_matches_new_line(opts.multiline);
    if !opts.multiline {
        builder.line_terminator(Some(b'\n'));
    }
    builder.build(&opts.pattern).map_err(|e| {
        let mut reason = e.to_string();
        if !opts.multiline && reason.contains(r#""\n""#) {
            reason.push_str(" (a pattern can only match across lines with `multiline: true`)");
        }
        SearchError::InvalidRegex {
            pattern: opts.pattern.clone(),
            reason,
        }
    })
}

fn configure_walk(opts: &SearchOptions) -> Result<ignore::WalkBuilder, SearchError> {
    let mut walk = walker(&opts.root, opts.hidden, &opts.withhold);
    if let Some(name) = &opts.file_type {
        let mut types = TypesBuilder::new();
        types.add_defaults();
        if !types.definitions().iter().any(|d| d.name() == name) {
            let known = [
                "rust", "py", "js", "ts", "go", "java", "c", "cpp", "md", "json", "yaml", "toml",
            ];
            return Err(SearchError::UnknownType {
                name: name.clone(),
                known: known.join(", "),
            });
        }
        types.select(name);
        let built = types
            .build()
            .map_err(|e| SearchError::InvalidType(e.to_string()))?;
        walk.types(built);
    }
    if !opts.globs.is_empty() {
        let mut overrides = OverrideBuilder::new(&opts.root);
        for glob in &opts.globs {
            overrides.add(glob).map_err(|e| SearchError::InvalidGlob {
                glob: glob.clone(),
                reason: e.to_string(),
            })?;
        }
        let built = overrides.build().map_err(|e| SearchError::InvalidGlob {
            glob: opts.globs.join(" "),
            reason: e.to_string(),
        })?;
        walk.overrides(built);
    }
    Ok(walk)
}

/// Searches every file under the root in parallel. Files come back sorted: newest first in
/// files-with-matches mode (ties by path), by path otherwise. Unreadable files are skipped, as
/// `rg` skips them (with a warning the model would not act on). Each file searched is counted in
/// `progress`, with its matching lines.
pub fn search(
    opts: &SearchOptions,
    cancel: &CancellationToken,
    progress: &SearchProgress,
) -> Result<Vec<FileHits>, SearchError> {
    let matcher = build_matcher(opts)?;
    let walk = configure_walk(opts)?;
    let mut searcher_builder = SearcherBuilder::new();
    searcher_builder
        .line_number(opts.mode == OutputMode::Content && opts.line_numbers)
        .multi_line(opts.multiline)
        .binary_detection(BinaryDetection::quit(b'\x00'));
    if opts.mode == OutputMode::Content {
        searcher_builder
            .before_context(opts.before)
            .after_context(opts.after);
    }
    let hits = Mutex::new(Vec::new());
    walk.build_parallel().run(|| {
        let matcher = matcher.clone();
        let mut searcher = searcher_builder.build();
        let mut hits = Gathered::new(&hits);
        let mode = opts.mode;
        let line_numbers = opts.line_numbers;
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
            let path = entry.path();
            let display = path.to_string_lossy();
            let mut sink = FileSink::new(mode, &display, line_numbers);
            let searched = searcher.search_path(&matcher, path, &mut sink);
            tally.file_searched(if searched.is_ok() { sink.matched_lines } else { 0 });
            if searched.is_err() || sink.matched_lines == 0 {
                return WalkState::Continue;
            }
            let modified = match mode {
                OutputMode::FilesWithMatches => entry.metadata().ok().and_then(|m| m.modified().ok()),
                OutputMode::Content | OutputMode::Count => None,
            };
            let found = FileHits {
                path: path.to_path_buf(),
                modified,
                matched_lines: sink.matched_lines,
                lines: sink.lines,
            };
            hits.push(found);
            WalkState::Continue
        })
    });
    if cancel.is_cancelled() {
        return Err(SearchError::Cancelled);
    }
    progress.finish();
    let mut hits = hits
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    sort_hits(&mut hits, opts.mode);
    Ok(hits)
}

fn sort_hits(hits: &mut [FileHits], mode: OutputMode) {
    match mode {
        OutputMode::FilesWithMatches => {
            hits.sort_by(|a, b| b.modified.cmp(&a.modified).then_with(|| a.path.cmp(&b.path)));
        }
        OutputMode::Content | OutputMode::Count => hits.sort_by(|a, b| a.path.cmp(&b.path)),
    }
}

/// A search root that is not there; the message says what to do.
#[derive(Debug, thiserror::Error)]
#[error(
    "Path does not exist or cannot be read: {} ({source}). Give an existing file or folder, absolute or relative to the working directory.",
    root.display()
)]
pub struct MissingRoot {
    /// The root asked for.
    pub root: std::path::PathBuf,
    /// Why it cannot be read.
    pub source: std::io::Error,
}

/// Whether `root` exists.
pub fn check_root(root: &Path) -> Result<(), MissingRoot> {
    std::fs::metadata(root).map(|_| ()).map_err(|source| MissingRoot {
        root: root.to_path_buf(),
        source,
    })
}
