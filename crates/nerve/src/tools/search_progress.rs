//! Progress of a Grep or Glob search: files searched and matches so far, counted by the walk's
//! threads and reported through the call's progress sink, paced so a search over a large tree
//! sends a handful of reports, not one per file.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::tool::{Progress, ProgressSink};

/// How often a search may report. A report is due when both hold since the last one: at least
/// `min_files` more files were searched and at least `min_interval` passed. So a search reports
/// at most once per `min_files` files, whatever the clock says, and at most once per interval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pacing {
    /// Files searched between two reports, at least.
    pub min_files: u64,
    /// Time between two reports, at least.
    pub min_interval: Duration,
}

/// What Grep and Glob use: at most ten reports a second, and none for fewer than ten files.
pub const SEARCH_PACING: Pacing = Pacing {
    min_files: 10,
    min_interval: Duration::from_millis(100),
};

#[derive(Debug)]
struct LastReport {
    files: u64,
    at: Instant,
}

/// Counts of a running search, shared by the walk's threads.
#[derive(Debug)]
pub struct SearchProgress {
    sink: ProgressSink,
    pacing: Pacing,
    files: AtomicU64,
    matches: AtomicU64,
    last: Mutex<LastReport>,
}

impl SearchProgress {
    /// Counts from zero and reports to `sink` as `pacing` allows.
    pub fn new(sink: ProgressSink, pacing: Pacing) -> Self {
        Self {
            sink,
            pacing,
            files: AtomicU64::new(0),
            matches: AtomicU64::new(0),
            last: Mutex::new(LastReport {
                files: 0,
                at: Instant::now(),
            }),
        }
    }

    /// Counts without reporting (a search run outside a tool call: benches, tests).
    pub fn silent() -> Self {
        Self::new(ProgressSink::discard("search"), SEARCH_PACING)
    }

    /// One more file was searched, with `matches` matches in it; reports if a report is due.
    pub fn file_searched(&self, matches: u64) {
        // Matches first: a report that counts this file also counts its matches.
        self.matches.fetch_add(matches, Ordering::SeqCst);
        let files = self.files.fetch_add(1, Ordering::SeqCst) + 1;
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        // Under the lock, so reports leave in order and their counts only grow.
        if files < last.files.saturating_add(self.pacing.min_files) {
            return;
        }
        let now = Instant::now();
        if now.duration_since(last.at) < self.pacing.min_interval {
            return;
        }
        *last = LastReport { files, at: now };
        self.emit(files);
    }

    /// The final counts, reported whatever the pacing: the front-end shows them until the result
    /// arrives.
    pub fn finish(&self) {
        let _last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        self.emit(self.files.load(Ordering::SeqCst));
    }

    fn emit(&self, files: u64) {
        self.sink.emit(Progress::Search {
            files_searched: files,
            matches: self.matches.load(Ordering::SeqCst),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::Arc;

    fn recording() -> (ProgressSink, Arc<Mutex<Vec<Progress>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let inner = Arc::clone(&seen);
        let sink = ProgressSink::new(
            "toolu_1",
            Arc::new(move |_id: &str, p: Progress| inner.lock().unwrap().push(p)),
        );
        (sink, seen)
    }

    fn search(files_searched: u64, matches: u64) -> Progress {
        Progress::Search {
            files_searched,
            matches,
        }
    }

    #[test]
    fn reports_once_per_min_files_then_the_totals() {
        let (sink, seen) = recording();
        let progress = SearchProgress::new(
            sink,
            Pacing {
                min_files: 10,
                min_interval: Duration::ZERO,
            },
        );
        for _ in 0..25 {
            progress.file_searched(2);
        }
        progress.finish();
        assert_eq!(
            *seen.lock().unwrap(),
            vec![search(10, 20), search(20, 40), search(25, 50)]
        );
    }

    #[test]
    fn an_interval_not_yet_passed_holds_reports_back() {
        let (sink, seen) = recording();
        let progress = SearchProgress::new(
            sink,
            Pacing {
                min_files: 1,
                min_interval: Duration::from_secs(3600),
            },
        );
        for _ in 0..1_000 {
            progress.file_searched(1);
        }
        progress.finish();
        assert_eq!(*seen.lock().unwrap(), vec![search(1_000, 1_000)]);
    }
}
