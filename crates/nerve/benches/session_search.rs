//! Searching a project's sessions: 200 transcripts of 1,000 tool calls each (replies, commands and
//! their results), searched through the full-text index side by side with the scan it replaces
//! (reading every transcript and looking for the words in each line). The first search builds the
//! index; later ones read nothing of a transcript that did not grow; a search after one session
//! grew reads only what it appended. Prints the times and their ratios.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

#[path = "support/transcripts.rs"]
mod transcripts_support;

use std::time::{Duration, Instant};

use nerve::model::types::{Message, Role};
use nerve::transcripts::search_index::SearchIndex;
use nerve::transcripts::{Transcript, TranscriptEntry};
use serde_json::json;
use transcripts_support::{message, scaled};

/// Sessions and calls per session (`NERVE_BENCH_SCALE` divides both).
fn sessions_n() -> usize {
    scaled(200)
}

fn calls_n() -> usize {
    scaled(1_000)
}

/// What searching without an index costs: every transcript read, every line looked at.
fn scan(dir: &std::path::Path, needle: &str) -> usize {
    let mut found = 0;
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.path().extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let text = std::fs::read_to_string(entry.path()).unwrap();
        found += text.lines().filter(|l| l.to_lowercase().contains(needle)).count();
    }
    found
}

fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    for s in 0..sessions_n() {
        let path = Transcript::path_for(dir.path(), &format!("session-{s:04}"));
        let mut t = Transcript::open(&path).unwrap();
        t.append(&TranscriptEntry::TurnStart { turn: 1, time_ms: 1 })
            .unwrap();
        t.append(&TranscriptEntry::Message {
            message: Message::user_text(format!("Fix the failing test number {s}")),
        })
        .unwrap();
        for c in 0..calls_n() {
            let id = format!("toolu_{s}_{c}");
            t.append(&TranscriptEntry::Message {
                message: message(
                    Role::Assistant,
                    json!([{"type": "text", "text": format!("Running the suite again after change {c}.")},
                           {"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "cargo test -p nerve --lib"}}]),
                ),
            })
            .unwrap();
            t.append(&TranscriptEntry::Message {
                message: message(
                    Role::User,
                    json!([{"type": "tool_result", "tool_use_id": id,
                            "content": format!("running 612 tests\ntest parser::case_{s}_{c} ... ok\ntest result: ok. 612 passed; 0 failed")}]),
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
    // One result holds the word searched for, as a user remembers a test's name.
    let needle = format!("case_{}_{}", sessions_n() / 2, calls_n() / 2);

    let mut index = SearchIndex::open(dir.path()).unwrap();
    let t = Instant::now();
    let built = index.refresh().unwrap();
    let build = t.elapsed();
    let first = index.search(&needle, 20).unwrap();
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(
        first[0].tool_use_id.as_deref(),
        Some(format!("toolu_{}_{}", sessions_n() / 2, calls_n() / 2).as_str())
    );

    let searched = best_of(5, || {
        let hits = index.search(&needle, 20).unwrap();
        assert_eq!(hits.len(), 1);
    });
    let scanned = best_of(3, || assert!(scan(dir.path(), &needle) >= 1));
    // A common word: many hits, the latest 20 kept.
    let common = best_of(5, || {
        assert_eq!(index.search("suite again", 20).unwrap().len(), 20);
    });

    // One session goes on: the next search reads only what it appended.
    let mut t = Transcript::open(&Transcript::path_for(dir.path(), "session-0001")).unwrap();
    t.append(&TranscriptEntry::TurnStart { turn: 2, time_ms: 2 })
        .unwrap();
    t.append(&TranscriptEntry::Message {
        message: Message::user_text("And now the zeppelin docs"),
    })
    .unwrap();
    let t = Instant::now();
    let grown = index.search("zeppelin", 20).unwrap();
    let after_append = t.elapsed();
    assert_eq!((grown.len(), grown[0].turn), (1, 2));

    println!(
        "index built in {build:?} ({} documents); a search {searched:?} (a common word, the latest 20: {common:?}), after one session grew {after_append:?}; the scan of every transcript: {scanned:?}",
        built.documents
    );
    println!(
        "a search takes {:.4}x the time of the scan ({:.4}x for a common word, {:.4}x after one session grew); building the index once took {:.1}x one scan",
        searched.as_secs_f64() / scanned.as_secs_f64(),
        common.as_secs_f64() / scanned.as_secs_f64(),
        after_append.as_secs_f64() / scanned.as_secs_f64(),
        build.as_secs_f64() / scanned.as_secs_f64()
    );
}
