//! Reading a hook's stdout or stderr with a size cap, so a runaway hook cannot exhaust memory.
//!
//! Bytes past the cap are still read (and dropped): if we stopped reading, the hook would block on a
//! full pipe and only end at its timeout.

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio_util::sync::CancellationToken;

/// How much of each stream is kept.
pub const OUTPUT_CAP_BYTES: usize = 1024 * 1024;

/// What was kept of one output stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CapturedOutput {
    /// The kept bytes, decoded as UTF-8 with invalid sequences replaced.
    pub text: String,
    /// How many bytes past the cap were read and thrown away.
    pub dropped_bytes: u64,
}

impl CapturedOutput {
    /// The text, with a note appended when part of the output was dropped.
    pub fn text_with_note(&self) -> String {
        if self.dropped_bytes == 0 {
            self.text.clone()
        } else {
            format!(
                "{}\n[output truncated: {} more bytes were dropped]",
                self.text, self.dropped_bytes
            )
        }
    }
}

/// Reads `reader` to its end, or until `stop` is cancelled, keeping at most `cap` bytes.
///
/// Read errors end the capture: what was read so far is still the best account of the hook's output.
pub(crate) async fn read_capped<R>(mut reader: R, cap: usize, stop: CancellationToken) -> CapturedOutput
where
    R: AsyncRead + Unpin,
{
    let mut kept: Vec<u8> = Vec::new();
    let mut dropped: u64 = 0;
    let mut buffer = vec![0_u8; 16 * 1024];
    loop {
        let read = tokio::select! {
            biased;
            () = stop.cancelled() => break,
            read = reader.read(&mut buffer) => read,
        };
        let count = match read {
            Ok(0) => break,
            Ok(count) => count,
            Err(error) => {
                tracing::debug!(%error, "reading hook output failed; keeping what was read");
                break;
            }
        };
        let room = cap.saturating_sub(kept.len());
        let keep = count.min(room);
        kept.extend_from_slice(&buffer[..keep]);
        dropped = dropped.saturating_add((count - keep) as u64);
    }
    CapturedOutput {
        text: String::from_utf8_lossy(&kept).into_owned(),
        dropped_bytes: dropped,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn keeps_everything_under_the_cap() {
        let captured = read_capped(&b"hello"[..], 10, CancellationToken::new()).await;
        assert_eq!(
            captured,
            CapturedOutput {
                text: "hello".to_owned(),
                dropped_bytes: 0
            }
        );
        assert_eq!(captured.text_with_note(), "hello");
    }

    #[tokio::test]
    async fn drops_bytes_past_the_cap_and_says_so() {
        let data = [b'x'; 100];
        let captured = read_capped(&data[..], 30, CancellationToken::new()).await;
        assert_eq!(captured.text, "x".repeat(30));
        assert_eq!(captured.dropped_bytes, 70);
        assert!(
            captured
                .text_with_note()
                .ends_with("\n[output truncated: 70 more bytes were dropped]")
        );
    }

    #[tokio::test]
    async fn stops_when_told_even_if_the_writer_never_closes() {
        let (_writer, reader) = tokio::io::duplex(64);
        let stop = CancellationToken::new();
        stop.cancel();
        let captured = read_capped(reader, 10, stop).await;
        assert_eq!(captured, CapturedOutput::default());
    }

    #[tokio::test]
    async fn invalid_utf8_is_replaced_not_rejected() {
        let captured = read_capped(&[0x66, 0xff, 0x6f][..], 10, CancellationToken::new()).await;
        assert_eq!(captured.text, "f\u{fffd}o");
    }
}
