//! The last line of a 100 MB persisted output, as the outputs browser and `nerve outputs show --tail`
//! read it (`nerve::outputs::tail_lines`, backwards from the end), side by side with `tail -n 1` on
//! the same file. Prints both times (median of 21 runs) and their ratio.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::io::Write;
use std::process::Command;
use std::time::{Duration, Instant};

/// `NERVE_BENCH_SCALE` divides it (the test command's short run uses 50).
fn size() -> usize {
    100 * 1024 * 1024
        / std::env::var("NERVE_BENCH_SCALE")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(1)
}
const RUNS: usize = 21;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big-output.txt");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut written = 0;
    let mut n = 0u64;
    while written < size() {
        let line = format!("line {n}: {}\n", "x".repeat(70));
        file.write_all(line.as_bytes()).unwrap();
        written += line.len();
        n += 1;
    }
    file.flush().unwrap();
    drop(file);
    let last = format!("line {}: {}", n - 1, "x".repeat(70));

    let mut ours = Vec::new();
    let mut tail = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let lines = nerve::outputs::tail_lines(&path, 1).unwrap();
        ours.push(start.elapsed());
        assert_eq!(lines, std::slice::from_ref(&last));
        let start = Instant::now();
        let out = Command::new("tail")
            .args(["-n", "1"])
            .arg(&path)
            .output()
            .unwrap();
        tail.push(start.elapsed());
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim_end(), last);
    }
    let (ours, tail) = (median(ours), median(tail));
    println!(
        "last line of a {} MB output: tail_lines {:.3} ms, `tail -n 1` {:.3} ms (process start included), ratio {:.2}x",
        size() / (1024 * 1024),
        ours.as_secs_f64() * 1000.0,
        tail.as_secs_f64() * 1000.0,
        ours.as_secs_f64() / tail.as_secs_f64()
    );
}
