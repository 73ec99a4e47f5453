//! Grep against the `rg` binary and Glob against `fd` (Debian's `fd-find`) on the same searches
//! over a large real tree: the crate sources in `~/.cargo/registry/src` (every crate this workspace
//! builds with, unpacked), or the folder in `NERVE_BENCH_TREE`. Runs alternate, each side several
//! times; the medians and their ratio are printed per search. Target: at most 1.0x each.
//!
//! `cargo bench -p nerve --bench real_tree`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use nerve::tools::glob::search as glob;
use nerve::tools::grep::{OutputMode, Page, SearchOptions, render, search::search};
use nerve::tools::search_progress::SearchProgress;
use tokio_util::sync::CancellationToken;

const REPETITIONS: usize = 7;

struct Case {
    name: &'static str,
    pattern: &'static str,
    mode: OutputMode,
    case_insensitive: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "literal, files_with_matches",
        pattern: "unsafe impl",
        mode: OutputMode::FilesWithMatches,
        case_insensitive: false,
    },
    Case {
        name: "literal, content",
        pattern: "unsafe impl",
        mode: OutputMode::Content,
        case_insensitive: false,
    },
    Case {
        name: "regex, files_with_matches",
        pattern: r"fn [a-z_]+_test\(",
        mode: OutputMode::FilesWithMatches,
        case_insensitive: false,
    },
    Case {
        name: "regex, content",
        pattern: r"impl<T: [A-Z]\w+> From",
        mode: OutputMode::Content,
        case_insensitive: false,
    },
    Case {
        name: "case-insensitive, files_with_matches",
        pattern: "deprecated",
        mode: OutputMode::FilesWithMatches,
        case_insensitive: true,
    },
    Case {
        name: "case-insensitive, content",
        pattern: "thread_local",
        mode: OutputMode::Content,
        case_insensitive: true,
    },
];

fn tree() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("NERVE_BENCH_TREE") {
        return Some(PathBuf::from(p));
    }
    let p = dirs::home_dir()?.join(".cargo/registry/src");
    p.is_dir().then_some(p)
}

/// Our side: the search and the rendering of the whole result (no page limit), as the tool does.
fn ours(case: &Case, root: &PathBuf) -> (Duration, usize) {
    let mut opts = SearchOptions::new(case.pattern, root, case.mode);
    opts.case_insensitive = case.case_insensitive;
    let start = Instant::now();
    let hits = search(&opts, &CancellationToken::new(), &SearchProgress::silent()).unwrap();
    let text = render(
        &hits,
        case.mode,
        false,
        Page {
            limit: None,
            offset: 0,
        },
    )
    .text;
    let elapsed = start.elapsed();
    let entries = match case.mode {
        // With no match the text is a note, not a line found.
        OutputMode::Content if hits.is_empty() => 0,
        OutputMode::Content => text.lines().count(),
        OutputMode::FilesWithMatches | OutputMode::Count => hits.len(),
    };
    (elapsed, entries)
}

fn theirs(case: &Case, root: &PathBuf) -> (Duration, usize) {
    let mut cmd = Command::new("rg");
    cmd.arg("--no-config");
    match case.mode {
        OutputMode::FilesWithMatches => {
            cmd.arg("-l");
        }
        OutputMode::Content => {
            cmd.arg("-n");
        }
        OutputMode::Count => {
            cmd.arg("-c");
        }
    }
    if case.case_insensitive {
        cmd.arg("-i");
    }
    cmd.arg("-e").arg(case.pattern).arg(root);
    let start = Instant::now();
    let out = cmd.output().expect("rg runs");
    let elapsed = start.elapsed();
    (elapsed, memchr::memchr_iter(b'\n', &out.stdout).count())
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

/// Glob's searches, and `fd`'s arguments for the same files: its pattern (`.` when an option
/// says what to match), as a second argument after the pattern would be one more folder to search.
const GLOB_CASES: &[(&str, &str, &[&str])] = &[
    ("every .rs file", "**/*.rs", &["-e", "rs", "."]),
    ("every Cargo.toml", "**/Cargo.toml", &["-g", "Cargo.toml"]),
    (
        "the .rs files in tests folders",
        "**/tests/**/*.rs",
        &["--full-path", "-g", "**/tests/**/*.rs"],
    ),
];

/// Our side: the Glob search, its result rendered as the model reads it; the files matched.
fn glob_ours(pattern: &str, root: &Path) -> (Duration, usize) {
    let start = Instant::now();
    let found = glob::find(
        root,
        pattern,
        &std::sync::Arc::default(),
        &CancellationToken::new(),
        &SearchProgress::silent(),
    )
    .unwrap();
    std::hint::black_box(glob::render(&found));
    (start.elapsed(), found.total)
}

fn glob_theirs(fd: &str, args: &[&str], root: &Path) -> (Duration, usize) {
    let mut cmd = Command::new(fd);
    cmd.args(["--type", "f", "--color", "never"]).args(args).arg(root);
    let start = Instant::now();
    let out = cmd.output().expect("fd runs");
    let elapsed = start.elapsed();
    assert!(
        out.status.success(),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (elapsed, memchr::memchr_iter(b'\n', &out.stdout).count())
}

/// Each side once untimed (filling the page cache for both), then [`REPETITIONS`] runs of each
/// in turn; prints the medians, their ratio and what each found.
fn row(
    name: &str,
    mut ours: impl FnMut() -> (Duration, usize),
    mut theirs: impl FnMut() -> (Duration, usize),
) {
    ours();
    theirs();
    let (mut a, mut b, mut na, mut nb) = (Vec::new(), Vec::new(), 0, 0);
    for _ in 0..REPETITIONS {
        let (t, n) = ours();
        a.push(t);
        na = n;
        let (t, n) = theirs();
        b.push(t);
        nb = n;
    }
    let (ma, mb) = (median(a), median(b));
    println!(
        "{:<46} {:>10.1} {:>10.1} {:>6.2}x {:>9} {:>9}",
        name,
        ma.as_secs_f64() * 1e3,
        mb.as_secs_f64() * 1e3,
        ma.as_secs_f64() / mb.as_secs_f64(),
        na,
        nb
    );
}

/// `fd` as Debian names it (`fdfind`) or as upstream does.
fn fd() -> Option<&'static str> {
    ["fdfind", "fd"]
        .into_iter()
        .find(|b| Command::new(b).arg("--version").output().is_ok())
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let Some(root) = tree() else {
        println!(
            "real_tree: no tree to search (~/.cargo/registry/src missing and NERVE_BENCH_TREE unset); skipped"
        );
        return;
    };
    println!(
        "real_tree over {} ({REPETITIONS} alternating runs each, medians)",
        root.display()
    );
    println!(
        "{:<46} {:>10} {:>10} {:>7} {:>9} {:>9}",
        "search", "nerve ms", "tool ms", "ratio", "nerve n", "tool n"
    );
    if Command::new("rg").arg("--version").output().is_ok() {
        for case in CASES {
            row(
                &format!("Grep {}", case.name),
                || ours(case, &root),
                || theirs(case, &root),
            );
        }
    } else {
        println!("  `rg` is not installed (apt-get install ripgrep): Grep skipped");
    }
    match fd() {
        Some(fd) => {
            for (name, pattern, args) in GLOB_CASES {
                row(
                    &format!("Glob {name}"),
                    || glob_ours(pattern, &root),
                    || glob_theirs(fd, args, &root),
                );
            }
        }
        None => println!("  `fd` is not installed (apt-get install fd-find): Glob skipped"),
    }
}
