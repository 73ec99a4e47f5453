//! Grep's search against the `rg` binary on the same searches over a large real tree (the crate
//! sources in `~/.cargo/registry/src`, or the folder in `NERVE_BENCH_TREE`). Runs alternate, each
//! side several times; the medians and their ratio are printed per search. Goal: within 1.3× of rg.
//!
//! `cargo bench -p nerve --bench grep_vs_rg`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

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
    (elapsed, String::from_utf8_lossy(&out.stdout).lines().count())
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let Some(root) = tree() else {
        println!(
            "grep_vs_rg: no tree to search (~/.cargo/registry/src missing and NERVE_BENCH_TREE unset); skipped"
        );
        return;
    };
    if Command::new("rg").arg("--version").output().is_err() {
        println!("grep_vs_rg: `rg` is not installed (apt-get install ripgrep); skipped");
        return;
    }
    println!(
        "grep_vs_rg over {} ({REPETITIONS} alternating runs each, medians)",
        root.display()
    );
    println!(
        "{:<38} {:>10} {:>10} {:>7} {:>9} {:>9}",
        "search", "nerve ms", "rg ms", "ratio", "nerve n", "rg n"
    );
    for case in CASES {
        // One untimed run each fills the page cache for both.
        ours(case, &root);
        theirs(case, &root);
        let mut a = Vec::new();
        let mut b = Vec::new();
        let (mut na, mut nb) = (0, 0);
        for _ in 0..REPETITIONS {
            let (t, n) = ours(case, &root);
            a.push(t);
            na = n;
            let (t, n) = theirs(case, &root);
            b.push(t);
            nb = n;
        }
        let (ma, mb) = (median(a), median(b));
        println!(
            "{:<38} {:>10.1} {:>10.1} {:>6.2}x {:>9} {:>9}",
            case.name,
            ma.as_secs_f64() * 1e3,
            mb.as_secs_f64() * 1e3,
            ma.as_secs_f64() / mb.as_secs_f64(),
            na,
            nb
        );
    }
}
