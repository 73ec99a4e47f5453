//! Read of a 2 GB text file's last lines (`offset` near the end, as the model asks after learning
//! the line count), side by side in one run with the tools that do the same work on the same file:
//! `wc -l` (the floor: every newline must be counted to know the line numbers) and
//! `sed -n 'N,$p'` (counting and printing the same lines). A file this large is not hashed (a later
//! edit knows it by its length and time, `nerve::tool::MAX_HASHED_BYTES`); the short run's file
//! (`NERVE_BENCH_SCALE=50`, 41 MB) is under that size, so there Read hashes it too, on a thread of
//! its own while it counts. Prints medians and the ratios.
//!
//! `cargo bench -p nerve --bench read_tail`
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

use nerve::tool::{MAX_HASHED_BYTES, SeenContent};
use nerve::tools::read::{ReadRequest, read_file};
use tokio_util::sync::CancellationToken;

/// `NERVE_BENCH_SCALE` divides it (the test command's short run uses 50).
fn size() -> usize {
    2 * 1024 * 1024 * 1024
        / std::env::var("NERVE_BENCH_SCALE")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(1)
}

const RUNS: usize = 5;
const LAST_LINES: usize = 20;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn timed(mut run: impl FnMut()) -> Duration {
    let start = Instant::now();
    run();
    start.elapsed()
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.log");
    let mut file = std::io::BufWriter::with_capacity(1 << 20, std::fs::File::create(&path).unwrap());
    let (mut written, mut lines) = (0usize, 0usize);
    while written < size() {
        let line = format!(
            "2026-12-04T02:{:02}:{:02}Z INFO request {lines} served in {} ms by worker {}\n",
            lines / 60 % 60,
            lines % 60,
            lines % 997,
            lines % 16
        );
        file.write_all(line.as_bytes()).unwrap();
        written += line.len();
        lines += 1;
    }
    file.flush().unwrap();
    drop(file);
    let offset = lines - LAST_LINES + 1;
    println!(
        "read_tail: a {} MB file of {lines} lines; the last {LAST_LINES} (offset {offset}); median of {RUNS} runs each, alternating",
        written / (1024 * 1024)
    );

    let request = ReadRequest {
        path: path.clone(),
        offset: Some(offset),
        limit: Some(LAST_LINES),
        pages: None,
        cwd: dir.path().to_path_buf(),
    };
    let cancel = CancellationToken::new();
    // One read first, so every side finds the file in the page cache.
    let first = read_file(&request, &cancel).unwrap();
    let text = format!("{:?}", first.blocks);
    assert!(
        text.contains(&format!("request {}", lines - 1)),
        "the last line is read"
    );
    let hashed = matches!(first.record.map(|r| r.content), Some(SeenContent::Hash(_)));
    assert_eq!(hashed, written as u64 <= MAX_HASHED_BYTES);

    let (mut ours, mut wc, mut sed) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..RUNS {
        ours.push(timed(|| {
            read_file(&request, &cancel).unwrap();
        }));
        wc.push(timed(|| {
            let out = Command::new("wc").arg("-l").arg(&path).output().unwrap();
            assert!(out.status.success());
        }));
        sed.push(timed(|| {
            let out = Command::new("sed")
                .arg("-n")
                .arg(format!("{offset},$p"))
                .arg(&path)
                .output()
                .unwrap();
            assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), LAST_LINES);
        }));
    }
    let (ours, wc, sed) = (median(ours), median(wc), median(sed));
    let what = if hashed {
        "count, select, SHA-256 of all"
    } else {
        "count, select; too large to hash"
    };
    println!("  Read ({what})  {ours:>10.1?}");
    println!(
        "  wc -l                                  {wc:>10.1?}   Read / wc -l = {:.2}x",
        ours.as_secs_f64() / wc.as_secs_f64()
    );
    println!(
        "  sed -n '{offset},$p'              {sed:>10.1?}   Read / sed   = {:.2}x",
        ours.as_secs_f64() / sed.as_secs_f64()
    );
}
