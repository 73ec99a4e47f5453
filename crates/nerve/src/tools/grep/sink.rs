//! Collects one file's matches in the shape of ripgrep's output: `path:line:text` for matches,
//! `path-line-text` for context, `--` between non-adjacent groups.

use std::io;

use grep_searcher::{Searcher, Sink, SinkContext, SinkMatch};

use crate::tools::grep::input::OutputMode;

/// Lines longer than this are cut in content mode: one minified file would otherwise fill the
/// whole result (Claude Code passes `--max-columns 500` to ripgrep for the same reason).
pub const MAX_LINE_CHARS: usize = 500;

/// One file's results.
pub struct FileSink<'a> {
    mode: OutputMode,
    display: &'a str,
    line_numbers: bool,
    /// Matching lines seen (stops at one in files-with-matches mode).
    pub matched_lines: u64,
    /// Output lines (content mode only).
    pub lines: Vec<String>,
}

impl<'a> FileSink<'a> {
    /// A sink for the file shown as `display`.
    pub fn new(mode: OutputMode, display: &'a str, line_numbers: bool) -> Self {
        Self {
            mode,
            display,
            line_numbers,
            matched_lines: 0,
            lines: Vec::new(),
        }
    }

    fn push(&mut self, separator: char, line_number: Option<u64>, bytes: &[u8]) {
        let text = String::from_utf8_lossy(strip_terminator(bytes));
        let text = shorten(&text);
        let line = match line_number.filter(|_| self.line_numbers) {
            Some(n) => format!("{}{separator}{n}{separator}{text}", self.display),
            None => format!("{}{separator}{text}", self.display),
        };
        self.lines.push(line);
    }
}

impl Sink for FileSink<'_> {
    type Error = io::Error;

    fn matched(&mut self, _searcher: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, io::Error> {
        match self.mode {
            OutputMode::FilesWithMatches => {
                self.matched_lines += 1;
                // One match is enough to list the file.
                Ok(false)
            }
            OutputMode::Count => {
                self.matched_lines += mat.lines().count() as u64;
                Ok(true)
            }
            OutputMode::Content => {
                let first = mat.line_number();
                for (i, line) in mat.lines().enumerate() {
                    self.matched_lines += 1;
                    self.push(':', first.map(|n| n + i as u64), line);
                }
                Ok(true)
            }
        }
    }

    fn context(&mut self, _searcher: &Searcher, ctx: &SinkContext<'_>) -> Result<bool, io::Error> {
        self.push('-', ctx.line_number(), ctx.bytes());
        Ok(true)
    }

    fn context_break(&mut self, _searcher: &Searcher) -> Result<bool, io::Error> {
        self.lines.push("--".to_string());
        Ok(true)
    }
}

fn strip_terminator(bytes: &[u8]) -> &[u8] {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    bytes.strip_suffix(b"\r").unwrap_or(bytes)
}

fn shorten(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => {
            let total = text.chars().count();
            format!(
                "{} [... {} more characters]",
                &text[..cut],
                total - MAX_LINE_CHARS
            )
            .into()
        }
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_cut_with_a_note() {
        let long = "x".repeat(MAX_LINE_CHARS + 7);
        let cut = shorten(&long);
        assert!(cut.starts_with(&"x".repeat(MAX_LINE_CHARS)));
        assert!(cut.ends_with("[... 7 more characters]"), "{cut}");
        assert_eq!(shorten("short"), "short");
    }

    #[test]
    fn terminators_are_stripped() {
        assert_eq!(strip_terminator(b"a\r\n"), b"a");
        assert_eq!(strip_terminator(b"a\n"), b"a");
        assert_eq!(strip_terminator(b"a"), b"a");
    }
}
