//! Text files with line numbers, read in one streaming pass: the selected lines are kept, every
//! line is counted and hashed, and the output stops growing once it is over the token budget, so a
//! multi-gigabyte log costs time but not memory.

use std::io::{BufRead as _, BufReader, Read};

use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::tools::fs::snapshot::hex;

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
    /// SHA-256 of the whole file.
    pub hash: String,
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

/// Scans `reader`, keeping lines `offset..offset + limit` (1-based `offset`).
pub fn scan_text(
    reader: impl Read,
    offset: usize,
    limit: usize,
    cancel: &CancellationToken,
) -> Result<TextScan, ScanError> {
    let mut reader = BufReader::with_capacity(64 * 1024, reader);
    let mut hasher = Sha256::new();
    let mut buf = Vec::new();
    let mut body = String::new();
    let mut selected_chars = 0usize;
    let budget_chars = MAX_TOKENS * CHARS_PER_TOKEN;
    let (mut line_no, mut shown, mut cut) = (0usize, 0usize, 0usize);
    let last = offset.saturating_add(limit);
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf);
        line_no += 1;
        if line_no % 4096 == 0 && cancel.is_cancelled() {
            return Err(ScanError::Cancelled);
        }
        if line_no < offset || line_no >= last {
            continue;
        }
        shown += 1;
        let mut line = String::from_utf8_lossy(trim_line_break(&buf)).into_owned();
        if line_no == 1 && line.starts_with('\u{feff}') {
            line.remove(0);
        }
        let (line, was_cut) = cut_line(line);
        cut += usize::from(was_cut);
        let formatted = format!("{line_no:>6}\t{line}\n");
        selected_chars += formatted.chars().count();
        // Past the budget the text is only counted: the call fails anyway, with the total in its message.
        if selected_chars <= budget_chars {
            body.push_str(&formatted);
        }
    }
    let estimated_tokens = selected_chars.div_ceil(CHARS_PER_TOKEN);
    if estimated_tokens > MAX_TOKENS {
        body.clear();
    }
    Ok(TextScan {
        body,
        total_lines: line_no,
        shown_lines: shown,
        cut_lines: cut,
        estimated_tokens,
        hash: hex(&hasher.finalize()),
    })
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
        scan_text(text.as_bytes(), offset, limit, &CancellationToken::new()).unwrap()
    }

    #[test]
    fn numbers_lines_like_cat_n() {
        let s = scan("fn main() {\r\n}\n", 1, 2000);
        assert_eq!(s.body, "     1\tfn main() {\n     2\t}\n");
        assert_eq!(s.total_lines, 2);
        assert_eq!(s.hash, hash_bytes(b"fn main() {\r\n}\n"));
    }

    #[test]
    fn offset_and_limit_select_lines_but_hash_covers_all() {
        let text: String = (1..=10).map(|i| format!("line {i}\n")).collect();
        let s = scan(&text, 4, 2);
        assert_eq!(s.body, "     4\tline 4\n     5\tline 5\n");
        assert_eq!((s.total_lines, s.shown_lines), (10, 2));
        assert_eq!(s.hash, hash_bytes(text.as_bytes()));
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
