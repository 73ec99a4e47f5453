//! Reading a command's stdout and stderr until both close: every byte goes to the spool in arrival
//! order, and a throttled live view goes to the UI as progress.

use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

use crate::tool::{OutputStream, Progress, ProgressSink};
use crate::tools::bash::spool::Spool;

/// How often the live view is sent.
pub(crate) const PROGRESS_INTERVAL: Duration = Duration::from_millis(100);
/// Most bytes of one stream sent per progress event: a command printing gigabytes must not flood
/// the UI (the full output is in the spool file).
pub(crate) const PROGRESS_MAX_BYTES: usize = 4 * 1024;

const READ_CHUNK: usize = 64 * 1024;

/// Enough of stdout's start to recognise an image.
const PREFIX_BYTES: usize = 16;

/// What was read, besides the spooled bytes.
#[derive(Debug)]
pub(crate) struct Pumped {
    /// The spool holding everything.
    pub spool: Spool,
    /// The first bytes of stdout.
    pub stdout_prefix: Vec<u8>,
    /// Bytes read from stderr.
    pub stderr_bytes: u64,
}

/// Reads both pipes until they close or `stop` is cancelled.
pub(crate) async fn pump(
    mut stdout: impl AsyncRead + Unpin,
    mut stderr: impl AsyncRead + Unpin,
    mut spool: Spool,
    progress: Option<ProgressSink>,
    stop: CancellationToken,
) -> Pumped {
    let mut out_buf = vec![0u8; READ_CHUNK];
    let mut err_buf = vec![0u8; READ_CHUNK];
    let (mut out_open, mut err_open) = (true, true);
    let mut live = [
        LiveView::new(OutputStream::Stdout),
        LiveView::new(OutputStream::Stderr),
    ];
    let mut stdout_prefix = Vec::new();
    let mut stderr_bytes = 0u64;
    let mut tick = tokio::time::interval(PROGRESS_INTERVAL);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);

    while out_open || err_open {
        tokio::select! {
            r = stdout.read(&mut out_buf), if out_open => match r {
                Ok(0) | Err(_) => out_open = false,
                Ok(n) => {
                    let chunk = &out_buf[..n];
                    let want = PREFIX_BYTES.saturating_sub(stdout_prefix.len()).min(n);
                    stdout_prefix.extend_from_slice(&chunk[..want]);
                    spool.push(chunk);
                    live[0].push(chunk);
                }
            },
            r = stderr.read(&mut err_buf), if err_open => match r {
                Ok(0) | Err(_) => err_open = false,
                Ok(n) => {
                    stderr_bytes += n as u64;
                    spool.push(&err_buf[..n]);
                    live[1].push(&err_buf[..n]);
                }
            },
            _ = tick.tick() => {
                if let Some(sink) = &progress {
                    live.iter_mut().for_each(|v| v.flush(sink));
                }
            }
            () = stop.cancelled() => break,
        }
    }
    if let Some(sink) = &progress {
        live.iter_mut().for_each(|v| v.flush(sink));
    }
    Pumped {
        spool,
        stdout_prefix,
        stderr_bytes,
    }
}

/// The not-yet-sent bytes of one stream: at most [`PROGRESS_MAX_BYTES`] (the latest), plus how many
/// were skipped.
struct LiveView {
    stream: OutputStream,
    pending: Vec<u8>,
    skipped: u64,
}

impl LiveView {
    fn new(stream: OutputStream) -> Self {
        Self {
            stream,
            pending: Vec::new(),
            skipped: 0,
        }
    }

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
        sink.emit(Progress::Output {
            stream: self.stream,
            text,
        });
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
    async fn both_streams_reach_spool_and_progress() {
        let dir = tempfile::tempdir().unwrap();
        let spool = Spool::create(dir.path().join("o.log")).unwrap();
        let (sink, seen) = recording_sink();
        let out: &[u8] = b"\x89PNG\r\n\x1a\n rest";
        let err: &[u8] = b"oops";
        let p = pump(out, err, spool, Some(sink), CancellationToken::new()).await;
        assert_eq!(p.stdout_prefix, out[..PREFIX_BYTES.min(out.len())].to_vec());
        assert_eq!(p.stderr_bytes, 4);
        assert_eq!(p.spool.excerpt().total, (out.len() + err.len()) as u64);
        let seen = seen.lock().unwrap();
        assert!(seen.contains(&Progress::Output {
            stream: OutputStream::Stderr,
            text: "oops".into()
        }));
    }

    #[test]
    fn live_view_is_bounded_and_says_what_it_skipped() {
        let (sink, seen) = recording_sink();
        let mut v = LiveView::new(OutputStream::Stdout);
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
        let mut v = LiveView::new(OutputStream::Stdout);
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
