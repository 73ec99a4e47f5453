//! Reading a command's output (stdout and stderr share one pipe) until it closes: every byte goes to
//! the spool in the order it was written, and a throttled live view goes to the UI as progress.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::tool::{Progress, ProgressSink};
use crate::tools::bash::spool::Spool;

/// How often the live view is sent.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Most bytes sent per progress event: a command printing gigabytes must not flood the UI (the full
/// output is in the spool file).
pub(crate) const PROGRESS_MAX_BYTES: usize = 4 * 1024;

const READ_CHUNK: usize = 64 * 1024;

/// Reads the output until it closes or `stop` is cancelled, and returns the spool holding it.
pub(crate) async fn pump(
    mut output: impl AsyncRead + Unpin,
    mut spool: Spool,
    progress: Option<ProgressSink>,
    stop: CancellationToken,
) -> Spool {
    let mut buf = vec![0u8; READ_CHUNK];
    let mut live = LiveView::default();
    let mut tick = tokio::time::interval(PROGRESS_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    loop {
        tokio::select! {
            r = output.read(&mut buf) => match r {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    spool.push(&buf[..n]);
                    live.push(&buf[..n]);
                }
            },
            _ = tick.tick() => {
                if let Some(sink) = &progress {
                    live.flush(sink);
                }
            }
            () = stop.cancelled() => break,
        }
    }
    if let Some(sink) = &progress {
        live.flush(sink);
    }
    spool
}

/// The not-yet-sent output: at most [`PROGRESS_MAX_BYTES`] (the latest), plus how many bytes were
/// skipped.
#[derive(Default)]
struct LiveView {
    pending: Vec<u8>,
    skipped: u64,
}

impl LiveView {
    fn push(&mut self, bytes: &[u8]) {
        self.pending.extend_from_slice(bytes);
        if self.pending.len() > PROGRESS_MAX_BYTES {
            let excess = self.pending.len() - PROGRESS_MAX_BYTES;
            self.skipped += excess as u64;
            self.pending.drain(..excess);
        }
    }

    fn flush(&mut self, sink: &ProgressSink) {
        // Hold back a character cut by the read boundary; it is completed by the next chunk.
        let keep = incomplete_utf8_suffix(&self.pending);
        let ready = self.pending.len() - keep;
        if ready == 0 {
            return;
        }
        let mut text = String::new();
        if self.skipped > 0 {
            text.push_str(&format!("[... {} bytes not shown ...]\n", self.skipped));
            self.skipped = 0;
        }
        text.push_str(&String::from_utf8_lossy(&self.pending[..ready]));
        self.pending.drain(..ready);
        sink.emit(Progress::Output { text });
    }
}

/// Length of a trailing, incomplete (but so far valid) UTF-8 sequence.
fn incomplete_utf8_suffix(bytes: &[u8]) -> usize {
    let start = bytes.len().saturating_sub(3);
    for i in (start..bytes.len()).rev() {
        let b = bytes[i];
        if b & 0b1100_0000 == 0b1000_0000 {
            continue;
        }
        let needed = match b {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => return 0,
        };
        let have = bytes.len() - i;
        return if have < needed { have } else { 0 };
    }
    0
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::{Arc, Mutex};

    fn recording_sink() -> (ProgressSink, Arc<Mutex<Vec<Progress>>>) {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let inner = Arc::clone(&seen);
        let sink = ProgressSink::new("t", Arc::new(move |_: &str, p| inner.lock().unwrap().push(p)));
        (sink, seen)
    }

    #[tokio::test]
    async fn the_output_reaches_spool_and_progress() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::create(dir.path().join("o.log")).unwrap();
        let (sink, seen) = recording_sink();
        let out: &[u8] = b"one\ntwo\n";
        let spool = pump(out, spool, Some(sink), CancellationToken::new()).await;
        assert_eq!(spool.excerpt().total, out.len() as u64);
        assert_eq!(
            *seen.lock().unwrap(),
            vec![Progress::Output {
                text: "one\ntwo\n".into()
            }]
        );
    }

    #[test]
    fn live_view_is_bounded_and_says_what_it_skipped() {
        let (sink, seen) = recording_sink();
        let mut v = LiveView::default();
        v.push(&vec![b'a'; PROGRESS_MAX_BYTES + 10]);
        v.flush(&sink);
        let seen = seen.lock().unwrap();
        let Progress::Output { text, .. } = &seen[0] else {
            panic!("not output: {seen:?}");
        };
        assert!(text.starts_with("[... 10 bytes not shown ...]\n"), "{text}");
        assert!(text.len() < PROGRESS_MAX_BYTES + 64);
    }

    #[test]
    fn a_split_character_waits_for_its_end() {
        let (sink, seen) = recording_sink();
        let mut v = LiveView::default();
        let snow = "é".as_bytes();
        v.push(&[b'x', snow[0]]);
        v.flush(&sink);
        v.push(&snow[1..]);
        v.flush(&sink);
        let texts: Vec<String> = seen
            .lock()
            .unwrap()
            .iter()
            .map(|p| match p {
                Progress::Output { text, .. } => text.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(texts, vec!["x".to_string(), "é".to_string()]);
    }

    #[test]
    fn incomplete_suffixes() {
        assert_eq!(incomplete_utf8_suffix(b"abc"), 0);
        assert_eq!(incomplete_utf8_suffix(&[b'a', 0xE2, 0x82]), 2);
        assert_eq!(incomplete_utf8_suffix("€".as_bytes()), 0);
        assert_eq!(incomplete_utf8_suffix(&[0xF0]), 1);
    }
}
