//! What stripping escapes and collapsing progress redraws saves the model, on real logs captured
//! through a terminal (`script`, 100 columns; the pty's `\r\n` turned back into a pipe's `\n`):
//! `cargo build --color=always` of a small crate (22 crates compiled, one warning),
//! `pip install requests rich` and `npm install express@4 typescript` at `--loglevel=http`.
//! For each: bytes and tokens of the raw output (what the model got before) against the text it
//! gets now, and the time to clean it against copying it, side by side in one run. Tokens are
//! counted with tiktoken's o200k_base vocabulary: Claude's tokenizer is not public, and any BPE
//! vocabulary splits `ESC[1m` and progress-bar glyphs into several tokens each.
//!
//! `cargo bench -p nerve --bench command_output`
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::time::{Duration, Instant};

use nerve::tools::bash::terminal_text;

const LOGS: [(&str, &str); 3] = [
    (
        "cargo build",
        include_str!("fixtures/command_logs/cargo-build.log"),
    ),
    (
        "pip install",
        include_str!("fixtures/command_logs/pip-install.log"),
    ),
    (
        "npm install",
        include_str!("fixtures/command_logs/npm-install.log"),
    ),
];

const RUNS: usize = 50;

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let bpe = tiktoken_rs::o200k_base().unwrap();
    let tokens = |text: &str| bpe.encode_ordinary(text).len();
    println!(
        "{:<12} {:>9} {:>9} {:>7} {:>8} {:>8} {:>7} {:>12} {:>10}",
        "log", "raw B", "model B", "bytes", "raw tok", "model tok", "tokens", "clean µs", "copy µs"
    );
    let (mut all_raw, mut all_plain) = (0, 0);
    for (name, raw) in LOGS {
        let plain = terminal_text::plain(raw);
        let (raw_tokens, plain_tokens) = (tokens(raw), tokens(&plain));
        all_raw += raw_tokens;
        all_plain += plain_tokens;
        // Interleaved, so both see the same machine.
        let (mut clean, mut copy) = (Vec::new(), Vec::new());
        for _ in 0..RUNS {
            let start = Instant::now();
            std::hint::black_box(terminal_text::plain(std::hint::black_box(raw)));
            clean.push(start.elapsed());
            let start = Instant::now();
            std::hint::black_box(std::hint::black_box(raw).to_string());
            copy.push(start.elapsed());
        }
        println!(
            "{:<12} {:>9} {:>9} {:>6.2}x {:>8} {:>8} {:>6.2}x {:>12.1} {:>10.1}",
            name,
            raw.len(),
            plain.len(),
            plain.len() as f64 / raw.len() as f64,
            raw_tokens,
            plain_tokens,
            plain_tokens as f64 / raw_tokens as f64,
            median(clean).as_secs_f64() * 1e6,
            median(copy).as_secs_f64() * 1e6,
        );
        assert!(
            !plain.contains('\x1b'),
            "{name}: an escape reached the model's text"
        );
    }
    println!(
        "all three: {all_raw} tokens raw, {all_plain} for the model ({:.2}x, {} saved)",
        all_plain as f64 / all_raw as f64,
        all_raw - all_plain
    );
}
