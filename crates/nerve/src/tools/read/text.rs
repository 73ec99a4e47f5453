//! Text files with line numbers, read in one streaming pass: the selected lines are kept, every
//! line is counted (and hashed, when asked), and the output stops growing once it is over the token budget, so a
//! multi-gigabyte log costs time but not memory.

use std::io::Read;
use std::sync::mpsc::{Receiver, SyncSender, channel, sync_channel};
use std::thread::ScopedJoinHandle;

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::files::hex;

/// Lines shown when no `limit` is given.
pub const DEFAULT_LINE_LIMIT: usize = 2_000;
/// Longer lines are cut, with a marker saying how long they were.
pub const MAX_LINE_CHARS: usize = 2_000;
/// The most tokens one Read returns.
pub const MAX_TOKENS: usize = 25_000;
/// Rough characters per token, for the estimate.
const CHARS_PER_TOKEN: usize = 4;

/// The result of scanning a text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextScan {
    /// The selected lines in `cat -n` style (empty when over budget).
    pub body: String,
    /// Lines in the whole file.
    pub total_lines: usize,
    /// How many lines were selected.
    pub shown_lines: usize,
    /// How many selected lines were cut at [`MAX_LINE_CHARS`].
    pub cut_lines: usize,
    /// The estimated tokens of the whole selection.
    pub estimated_tokens: usize,
    /// SHA-256 of the whole file, when the scan was asked to hash it.
    pub hash: Option<String>,
}

impl TextScan {
    /// Whether the selection is too large to return.
    pub fn over_budget(&self) -> bool {
        self.estimated_tokens > MAX_TOKENS
    }
}

/// Why a scan stopped early.
#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    /// The file could not be read.
    #[error(transparent)]
    Io(#[from] std::io::Error),
    /// The call was cancelled.
    #[error("the read was interrupted")]
    Cancelled,
}

/// Bytes read at a time. Lines outside the selection are only counted (`memchr` over the block),
/// so reading the last lines of a multi-gigabyte file costs about what `wc -l` plus the hash do.
const BLOCK: usize = 256 * 1024;

/// Past this many bytes, the blocks are hashed on a thread of their own while the scan goes on.
/// SHA-256 costs several times what counting the lines does, so a multi-gigabyte file then takes
/// about the hash's time instead of the sum; below it, a thread would cost more than it saves.
const HASH_APART_FROM: u64 = 8 * 1024 * 1024;
/// Blocks in flight between the scan and the hashing thread.
const BLOCKS_IN_FLIGHT: usize = 4;

/// Scans `reader`, keeping lines `offset..offset + limit` (1-based `offset`), and hashing every
/// byte when `hash` is true.
pub fn scan_text(
    reader: impl Read,
    offset: usize,
    limit: usize,
    hash: bool,
    cancel: &CancellationToken,
) -> Result<TextScan, ScanError> {
    std::thread::scope(|scope| {
        let mut hashing = if hash {
            Hashing::Inline(Sha256::new())
        } else {
            Hashing::Off
        };
        let mut selection = Selection::new(offset, limit);
        let scanned = scan_blocks(reader, &mut selection, &mut hashing, scope, cancel);
        // The hashing thread is joined before any error is returned.
        let hash = hashing.finish();
        let ended = scanned?;
        Ok(scanned_text(selection, ended, hash?))
    })
}

/// Reads every block, hashing it and keeping the selected lines; the number of lines.
fn scan_blocks<'scope>(
    mut reader: impl Read,
    selection: &mut Selection,
    hashing: &mut Hashing<'scope>,
    scope: &'scope std::thread::Scope<'scope, '_>,
    cancel: &CancellationToken,
) -> Result<usize, ScanError> {
    let offset = selection.first;
    let mut block = vec![0u8; BLOCK];
    let mut seen = 0u64;
    // Lines ended so far; the line in progress is `ended + 1`.
    let mut ended = 0usize;
    // Whether bytes of a line without its newline yet have been seen.
    let mut open_line = false;
    loop {
        let n = match reader.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        };
        if cancel.is_cancelled() {
            return Err(ScanError::Cancelled);
        }
        let mut rest = &block[..n];
        open_line = rest.last() != Some(&b'\n');
        while !rest.is_empty() {
            let current = ended + 1;
            if selection.wants(current) {
                match memchr::memchr(b'\n', rest) {
                    Some(at) => {
                        selection.extend(&rest[..=at]);
                        selection.finish_line(current);
                        ended += 1;
                        rest = &rest[at + 1..];
                    }
                    None => {
                        selection.extend(rest);
                        rest = &[];
                    }
                }
            } else if current < offset {
                // Skip to the first selected line, counting the newlines on the way: a block
                // that ends before it is only counted (vectorised, where finding each newline
                // in turn took twice as long), the one that holds it is searched.
                let wanted = offset - current;
                let in_block = memchr::memchr_iter(b'\n', rest).count();
                let first_line_at = (in_block >= wanted)
                    .then(|| memchr::memchr_iter(b'\n', rest).nth(wanted - 1))
                    .flatten();
                match first_line_at {
                    Some(at) => {
                        ended += wanted;
                        rest = &rest[at + 1..];
                    }
                    None => {
                        ended += in_block;
                        rest = &[];
                    }
                }
            } else {
                // Past the selection: only the count matters.
                ended += memchr::memchr_iter(b'\n', rest).count();
                rest = &[];
            }
        }
        seen += n as u64;
        block = hashing.take(block, n, seen, scope);
    }
    // A last line without a newline still counts.
    if open_line {
        let current = ended + 1;
        if selection.wants(current) {
            selection.finish_line(current);
        }
        ended += 1;
    }
    Ok(ended)
}

/// SHA-256 of every block scanned: here, or past [`HASH_APART_FROM`] bytes on a thread of its own.
enum Hashing<'scope> {
    /// The scan was not asked for a hash.
    Off,
    Inline(Sha256),
    Apart {
        blocks: SyncSender<(Vec<u8>, usize)>,
        /// Blocks the thread has hashed, to read into again.
        spare: Receiver<Vec<u8>>,
        made: usize,
        thread: ScopedJoinHandle<'scope, Sha256>,
    },
    /// Between the two (only while the thread starts).
    Moving,
}

impl<'scope> Hashing<'scope> {
    /// Hashes `block[..n]` (`seen` bytes so far, these included); the buffer to read the next
    /// block into.
    fn take(
        &mut self,
        block: Vec<u8>,
        n: usize,
        seen: u64,
        scope: &'scope std::thread::Scope<'scope, '_>,
    ) -> Vec<u8> {
        if let Self::Inline(hasher) = self {
            hasher.update(&block[..n]);
            if seen >= HASH_APART_FROM {
                self.start_thread(scope);
            }
            return block;
        }
        let Self::Apart {
            blocks, spare, made, ..
        } = self
        else {
            return block;
        };
        // A thread that is gone (it cannot fail, but if it did) is reported by `finish`.
        let _ = blocks.send((block, n));
        if let Ok(free) = spare.try_recv() {
            return free;
        }
        if *made < BLOCKS_IN_FLIGHT {
            *made += 1;
            return vec![0u8; BLOCK];
        }
        spare.recv().unwrap_or_else(|_| vec![0u8; BLOCK])
    }

    fn start_thread(&mut self, scope: &'scope std::thread::Scope<'scope, '_>) {
        let Self::Inline(hasher) = std::mem::replace(self, Self::Moving) else {
            return;
        };
        let (blocks, to_hash) = sync_channel::<(Vec<u8>, usize)>(BLOCKS_IN_FLIGHT);
        let (give_back, spare) = channel::<Vec<u8>>();
        let thread = scope.spawn(move || {
            let mut hasher = hasher;
            for (block, n) in to_hash {
                hasher.update(&block[..n]);
                // The scan may have stopped: the block is then only dropped.
                let _ = give_back.send(block);
            }
            hasher
        });
        *self = Self::Apart {
            blocks,
            spare,
            made: 1,
            thread,
        };
    }

    /// The hash, in hexadecimal, once every block is hashed.
    fn finish(self) -> Result<Option<String>, ScanError> {
        let hasher = match self {
            Self::Off => return Ok(None),
            Self::Inline(hasher) => hasher,
            Self::Apart { blocks, thread, .. } => {
                drop(blocks);
                thread
                    .join()
                    .map_err(|_| std::io::Error::other("the file's hash could not be computed"))?
            }
            Self::Moving => return Err(std::io::Error::other("the file's hash could not be computed").into()),
        };
        Ok(Some(hex(&hasher.finalize())))
    }
}

/// The scan's result from its selection and counts.
fn scanned_text(selection: Selection, ended: usize, hash: Option<String>) -> TextScan {
    let Selection {
        body,
        chars: selected_chars,
        shown,
        cut,
        ..
    } = selection;
    let estimated_tokens = selected_chars.div_ceil(CHARS_PER_TOKEN);
    let body = if estimated_tokens > MAX_TOKENS {
        String::new()
    } else {
        body
    };
    TextScan {
        body,
        total_lines: ended,
        shown_lines: shown,
        cut_lines: cut,
        estimated_tokens,
        hash,
    }
}

/// The selected lines as they are formatted.
struct Selection {
    first: usize,
    end: usize,
    /// The selected line in progress (its bytes so far).
    line: Vec<u8>,
    body: String,
    chars: usize,
    shown: usize,
    cut: usize,
}

impl Selection {
    fn new(offset: usize, limit: usize) -> Self {
        Self {
            first: offset,
            end: offset.saturating_add(limit),
            line: Vec::new(),
            body: String::new(),
            chars: 0,
            shown: 0,
            cut: 0,
        }
    }

    fn wants(&self, line_no: usize) -> bool {
        line_no >= self.first && line_no < self.end
    }

    fn extend(&mut self, bytes: &[u8]) {
        self.line.extend_from_slice(bytes);
    }

    fn finish_line(&mut self, line_no: usize) {
        self.shown += 1;
        let mut line = String::from_utf8_lossy(trim_line_break(&self.line)).into_owned();
        self.line.clear();
        if line_no == 1 && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        let (line, was_cut) = cut_line(line);
        self.cut += usize::from(was_cut);
        let formatted = format!("{line_no:>6}\t{line}\n");
        self.chars += formatted.chars().count();
        // Past the budget the text is only counted: the call fails anyway, with the total in its message.
        if self.chars <= MAX_TOKENS * CHARS_PER_TOKEN {
            self.body.push_str(&formatted);
        }
    }
}

fn trim_line_break(buf: &[u8]) -> &[u8] {
    let buf = buf.strip_suffix(b"\n").unwrap_or(buf);
    buf.strip_suffix(b"\r").unwrap_or(buf)
}

fn cut_line(line: String) -> (String, bool) {
    let count = line.chars().count();
    if count <= MAX_LINE_CHARS {
        return (line, false);
    }
    let mut kept: String = line.chars().take(MAX_LINE_CHARS).collect();
    kept.push_str(&format!(" … [line cut: {count} characters in total]"));
    (kept, true)
}

/// How many lines starting at `offset` would fit the budget, judging by the scan's average.
pub fn lines_that_fit(scan: &TextScan) -> usize {
    if scan.estimated_tokens == 0 {
        return scan.shown_lines;
    }
    (scan.shown_lines * MAX_TOKENS / scan.estimated_tokens).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::fs::hash_bytes;
    use pretty_assertions::assert_eq;

    fn scan(text: &str, offset: usize, limit: usize) -> TextScan {
        scan_text(text.as_bytes(), offset, limit, true, &CancellationToken::new()).unwrap()
    }

    #[test]
    fn numbers_lines_like_cat_n() {
        let s = scan("fn main() {\r\n}\n", 1, 2000);
        assert_eq!(s.body, "     1\tfn main() {\n     2\t}\n");
        assert_eq!(s.total_lines, 2);
        assert_eq!(s.hash.unwrap(), hash_bytes(b"fn main() {\r\n}\n"));
    }

    #[test]
    fn offset_and_limit_select_lines_but_hash_covers_all() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let s = scan(&text, 4, 2);
        assert_eq!(s.body, "     4\tline 4\n     5\tline 5\n");
        assert_eq!((s.total_lines, s.shown_lines), (10, 2));
        assert_eq!(s.hash.clone().unwrap(), hash_bytes(text.as_bytes()));
        let unhashed = scan_text(text.as_bytes(), 4, 2, false, &CancellationToken::new()).unwrap();
        assert_eq!(unhashed, TextScan { hash: None, ..s });
    }

    #[test]
    fn a_file_past_the_inline_hash_is_hashed_whole_on_its_thread() {
        // Blocks of odd sizes, so lines cross them; well past the size where hashing moves apart.
        let text: String = (1..=800_000)
            .map(|i| format!("log line number {i:07}\n"))
            .collect();
        assert!(text.len() as u64 > 2 * HASH_APART_FROM);
        let reader = OddReads {
            bytes: text.as_bytes(),
            sizes: [1, 70_000, 262_144, 333].iter().copied().cycle(),
        };
        let s = scan_text(reader, 799_999, 10, true, &CancellationToken::new()).unwrap();
        assert_eq!(
            s.body,
            "799999\tlog line number 0799999\n800000\tlog line number 0800000\n"
        );
        assert_eq!((s.total_lines, s.shown_lines), (800_000, 2));
        assert_eq!(s.hash.unwrap(), hash_bytes(text.as_bytes()));
    }

    /// A reader of endless lines that, past `after` bytes, either fails or cancels the scan.
    struct StopsPast {
        after: usize,
        read: usize,
        cancel: Option<CancellationToken>,
    }

    impl Read for StopsPast {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            if self.read > self.after {
                match &self.cancel {
                    Some(cancel) => cancel.cancel(),
                    None => return Err(std::io::Error::other("the disk went away")),
                }
            }
            buf.fill(b'\n');
            self.read += buf.len();
            Ok(buf.len())
        }
    }

    #[test]
    fn a_cancel_or_a_read_error_after_hashing_moved_apart_ends_the_scan() {
        let past = 3 * HASH_APART_FROM as usize;
        let cancel = CancellationToken::new();
        let cancelled = StopsPast {
            after: past,
            read: 0,
            cancel: Some(cancel.clone()),
        };
        assert!(matches!(
            scan_text(cancelled, 1, 10, true, &cancel),
            Err(ScanError::Cancelled)
        ));
        let failing = StopsPast {
            after: past,
            read: 0,
            cancel: None,
        };
        match scan_text(failing, 1, 10, true, &CancellationToken::new()) {
            Err(ScanError::Io(e)) => assert_eq!(e.to_string(), "the disk went away"),
            other => panic!("expected the read error, got {other:?}"),
        }
    }

    /// A reader that hands out its bytes in the given sizes.
    struct OddReads<'a, I> {
        bytes: &'a [u8],
        sizes: I,
    }

    impl<I: Iterator<Item = usize>> Read for OddReads<'_, I> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self
                .sizes
                .next()
                .unwrap_or(1)
                .min(buf.len())
                .min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn long_lines_are_cut_visibly() {
        let s = scan(&"x".repeat(5000), 1, 10);
        assert_eq!(s.cut_lines, 1);
        assert!(
            s.body.contains("[line cut: 5000 characters in total]"),
            "{}",
            &s.body[..50]
        );
        assert!(s.body.len() < 2_100);
    }

    /// The scan as it was first written (a line at a time), to check the block scan against.
    fn reference(text: &str, offset: usize, limit: usize) -> (String, usize, usize) {
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let body: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i + 1, l))
            .filter(|(n, _)| *n >= offset && *n < offset.saturating_add(limit))
            .map(|(n, l)| {
                format!(
                    "{n:>6}\t{}\n",
                    String::from_utf8_lossy(trim_line_break(l.as_bytes()))
                )
            })
            .collect();
        let shown = body.lines().count();
        (body, lines.len(), shown)
    }

    /// Hands out at most `step` bytes per read, so lines straddle every block boundary.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.step.min(buf.len()).min(self.bytes.len());
            buf[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    #[test]
    fn every_block_boundary_gives_the_same_lines() {
        let texts = [
            "",
            "\n",
            "a",
            "a\n",
            "a\nb",
            "a\r\nb\r\n\n\nc",
            "one\ntwo\nthree\nfour\nfive\n",
            "\n\n\nx\n\n",
        ];
        for text in texts {
            for step in [1, 2, 3, 7, 64] {
                for offset in 1..=7 {
                    for limit in [0, 1, 2, 5, 100] {
                        let reader = Trickle {
                            bytes: text.as_bytes(),
                            step,
                        };
                        let s = scan_text(reader, offset, limit, true, &CancellationToken::new()).unwrap();
                        let (body, total, shown) = reference(text, offset, limit);
                        assert_eq!(
                            (s.body, s.total_lines, s.shown_lines),
                            (body, total, shown),
                            "{text:?} step {step} offset {offset} limit {limit}"
                        );
                        assert_eq!(s.hash.unwrap(), hash_bytes(text.as_bytes()));
                    }
                }
            }
        }
    }

    #[test]
    fn a_bom_is_not_shown() {
        assert_eq!(scan("\u{feff}a\n", 1, 5).body, "     1\ta\n");
    }

    #[test]
    fn over_budget_is_reported_not_returned() {
        let text: String = (0..2000).map(|i| format!("{i} {}\n", "y".repeat(300))).collect();
        let s = scan(&text, 1, DEFAULT_LINE_LIMIT);
        assert!(s.over_budget(), "{} tokens", s.estimated_tokens);
        assert!(s.body.is_empty());
        let fit = lines_that_fit(&s);
        assert!(fit > 100 && fit < 400, "{fit}");
        assert!(!scan(&text, 1, fit).over_budget());
    }
}
