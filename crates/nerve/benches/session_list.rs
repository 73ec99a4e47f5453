//! Listing a project's sessions: 500 transcripts of 1,000 tool calls each, listed by
//! `list_sessions` side by side with reading every transcript in full. The first listing builds
//! each session's summary (reading each transcript once, parsing only the lines a summary needs);
//! later ones read the summaries and nothing of a transcript that did not grow. Prints the times
//! and their ratios, and how a listing after one session grew compares.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

#[path = "support/transcripts.rs"]
mod transcripts_support;

use std::time::Instant;

use nerve::model::types::{Message, Role};
use nerve::transcripts::{Transcript, TranscriptEntry, list_sessions, read_transcript};
use serde_json::json;
use transcripts_support::{message, scaled};

/// Sessions and calls per session (`NERVE_BENCH_SCALE` divides both).
fn sessions_n() -> usize {
    scaled(500)
}

fn calls_n() -> usize {
    scaled(1_000)
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    for s in 0..sessions_n() {
        let path = Transcript::path_for(dir.path(), &format!("session-{s:04}"));
        let mut t = Transcript::open(&path).unwrap();
        t.append(&TranscriptEntry::Message {
            message: Message::user_text(format!("Fix the failing test number {s}")),
        })
        .unwrap();
        for c in 0..calls_n() {
            let id = format!("toolu_{s}_{c}");
            t.append(&TranscriptEntry::Message {
                message: message(
                    Role::Assistant,
                    json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "cargo test -p nerve --lib"}}]),
                ),
            })
            .unwrap();
            t.append(&TranscriptEntry::Message {
                message: message(
                    Role::User,
                    json!([{"type": "tool_result", "tool_use_id": id, "content": "running 612 tests\ntest result: ok. 612 passed; 0 failed"}]),
                ),
            })
            .unwrap();
        }
    }
    let bytes: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.metadata().unwrap().len())
        .sum();
    println!(
        "{} sessions of {} calls ({} MB) written in {:?}",
        sessions_n(),
        calls_n(),
        bytes / 1_000_000,
        started.elapsed()
    );

    // Warm the page cache for both: the first listing builds the summaries.
    let _ = read_transcript(&Transcript::path_for(dir.path(), "session-0000")).unwrap();
    let t = Instant::now();
    let _ = list_sessions(dir.path()).unwrap();
    let first_listing = t.elapsed();
    let mut listed = Vec::new();
    let mut full = Vec::new();
    for _ in 0..2 {
        let t = Instant::now();
        let sessions = list_sessions(dir.path()).unwrap();
        listed.push(t.elapsed());
        assert_eq!(sessions.len(), sessions_n());
        assert!(
            sessions
                .iter()
                .all(|s| s.title.starts_with("Fix the failing test"))
        );

        let t = Instant::now();
        let mut entries = 0;
        for s in &sessions {
            entries += read_transcript(&s.path).unwrap().0.len();
        }
        full.push(t.elapsed());
        assert_eq!(entries, sessions_n() * (2 * calls_n() + 1));
    }
    let listed = listed.into_iter().min().unwrap();
    let full = full.into_iter().min().unwrap();
    // One session goes on: the next listing reads only what it appended.
    let mut t = Transcript::open(&Transcript::path_for(dir.path(), "session-0007")).unwrap();
    t.append(&TranscriptEntry::TurnStart { turn: 2, time_ms: 1 })
        .unwrap();
    t.append(&TranscriptEntry::Message {
        message: Message::user_text("And now the docs"),
    })
    .unwrap();
    let t = Instant::now();
    let after_append = list_sessions(dir.path()).unwrap();
    let after_append_time = t.elapsed();
    assert!(after_append.iter().any(|s| s.prompts == 2));

    println!(
        "list_sessions: first (builds summaries) {first_listing:?}, then {listed:?}, after one session grew {after_append_time:?}; reading every transcript in full: {full:?}"
    );
    println!(
        "list_sessions takes {:.4}x the time of reading them in full ({:.3}x on the first listing, {:.4}x after one session grew)",
        listed.as_secs_f64() / full.as_secs_f64(),
        first_listing.as_secs_f64() / full.as_secs_f64(),
        after_append_time.as_secs_f64() / full.as_secs_f64()
    );
}
