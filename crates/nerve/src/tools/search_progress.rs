//! Progress of a Grep or Glob search: files searched and matches so far, counted by the walk's
//! threads and reported through the call's progress sink, paced so a search over a large tree
//! sends a handful of reports, not one per file.
//!
//! A walk over a million files must not pay for its progress: each walk thread counts into its own
//! [`Tally`] and adds to the shared counts once per [`TALLY_BATCH`] files, and whether a report is
//! due is read from two atomics, so the lock is taken only when one is.

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

/// Files a walk thread counts on its own before adding them to the shared counts.
pub const TALLY_BATCH: u64 = 64;

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
    /// When counting started; `due_nanos` counts from it.
    started: Instant,
    /// The file count below which no report is due (the last report's plus `min_files`).
    due_files: AtomicU64,
    /// The time (since `started`) before which no report is due.
    due_nanos: AtomicU64,
}

impl SearchProgress {
    /// Counts from zero and reports to `sink` as `pacing` allows.
    pub fn new(sink: ProgressSink, pacing: Pacing) -> Self {
        let started = Instant::now();
        Self {
            sink,
            pacing,
            files: AtomicU64::new(0),
            matches: AtomicU64::new(0),
            last: Mutex::new(LastReport {
                files: 0,
                at: started,
            }),
            started,
            due_files: AtomicU64::new(pacing.min_files),
            due_nanos: AtomicU64::new(nanos(pacing.min_interval)),
        }
    }

    /// Counts without reporting (a search run outside a tool call: benches, tests).
    pub fn silent() -> Self {
        Self::new(ProgressSink::discard("search"), SEARCH_PACING)
    }

    /// One more file was searched, with `matches` matches in it; reports if a report is due.
    pub fn file_searched(&self, matches: u64) {
        self.add(1, matches);
    }

    /// A counter for one walk thread; what it counted is added when it is dropped, so drop it
    /// before [`SearchProgress::finish`].
    pub fn tally(&self) -> Tally<'_> {
        Tally {
            progress: self,
            files: 0,
            matches: 0,
        }
    }

    fn add(&self, files: u64, matches: u64) {
        // Matches first: a report that counts these files also counts their matches.
        self.matches.fetch_add(matches, Ordering::SeqCst);
        let files = self.files.fetch_add(files, Ordering::SeqCst) + files;
        if files < self.due_files.load(Ordering::Acquire) {
            return;
        }
        let now = self.started.elapsed();
        if nanos(now) < self.due_nanos.load(Ordering::Acquire) {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        // Under the lock, so reports leave in order and their counts only grow.
        if files < last.files.saturating_add(self.pacing.min_files) {
            return;
        }
        let now = self.started + now;
        if now.duration_since(last.at) < self.pacing.min_interval {
            return;
        }
        *last = LastReport { files, at: now };
        self.due_files
            .store(files.saturating_add(self.pacing.min_files), Ordering::Release);
        self.due_nanos.store(
            nanos(now.duration_since(self.started)).saturating_add(nanos(self.pacing.min_interval)),
            Ordering::Release,
        );
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

/// One walk thread's counts not yet added to the shared ones.
#[derive(Debug)]
pub struct Tally<'a> {
    progress: &'a SearchProgress,
    files: u64,
    matches: u64,
}

impl Tally<'_> {
    /// One more file was searched, with `matches` matches in it.
    pub fn file_searched(&mut self, matches: u64) {
        self.files += 1;
        self.matches += matches;
        if self.files >= TALLY_BATCH {
            self.flush();
        }
    }

    fn flush(&mut self) {
        if self.files > 0 || self.matches > 0 {
            self.progress.add(self.files, self.matches);
            self.files = 0;
            self.matches = 0;
        }
    }
}

impl Drop for Tally<'_> {
    fn drop(&mut self) {
        self.flush();
    }
}

fn nanos(duration: Duration) -> u64 {
    u64::try_from(duration.as_nanos()).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::sync::Arc;

    /// Progress paced by `min_files` and `min_interval`, with the reports it sends.
    fn recording(min_files: u64, min_interval: Duration) -> (SearchProgress, Arc<Mutex<Vec<Progress>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let inner = Arc::clone(&seen);
        let sink = ProgressSink::new(
            "toolu_1",
            Arc::new(move |_id: &str, p: Progress| inner.lock().unwrap().push(p)),
        );
        let pacing = Pacing {
            min_files,
            min_interval,
        };
        (SearchProgress::new(sink, pacing), seen)
    }

    fn search(files_searched: u64, matches: u64) -> Progress {
        Progress::Search {
            files_searched,
            matches,
        }
    }

    #[test]
    fn reports_once_per_min_files_then_the_totals() {
        let (progress, seen) = recording(10, Duration::ZERO);
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
    fn tallies_add_in_batches_and_when_dropped() {
        let (progress, seen) = recording(10, Duration::ZERO);
        std::thread::scope(|scope| {
            for _ in 0..2 {
                scope.spawn(|| {
                    let mut tally = progress.tally();
                    for _ in 0..(TALLY_BATCH + 6) {
                        tally.file_searched(1);
                    }
                });
            }
        });
        progress.finish();
        let seen = seen.lock().unwrap();
        let total = 2 * (TALLY_BATCH + 6);
        assert_eq!(seen.last(), Some(&search(total, total)));
        // Every report counts whole batches (or a thread's remainder) and at least their matches
        // (a thread adds its matches before its files, so another's may be counted already).
        let counts: Vec<u64> = seen
            .iter()
            .map(|p| match p {
                Progress::Search {
                    files_searched,
                    matches,
                } => {
                    assert!(matches >= files_searched && *matches <= total, "{p:?}");
                    *files_searched
                }
                other => panic!("{other:?}"),
            })
            .collect();
        assert!(counts.windows(2).all(|w| w[0] <= w[1]), "{counts:?}");
        let b = TALLY_BATCH;
        let sums_of_whole_adds = [b, b + 6, 2 * b, 2 * b + 6, total];
        assert!(
            counts.iter().all(|c| sums_of_whole_adds.contains(c)),
            "{counts:?}"
        );
    }

    #[test]
    fn an_interval_not_yet_passed_holds_reports_back() {
        let (progress, seen) = recording(1, Duration::from_secs(3600));
        for _ in 0..1_000 {
            progress.file_searched(1);
        }
        progress.finish();
        assert_eq!(*seen.lock().unwrap(), vec![search(1_000, 1_000)]);
    }
}
