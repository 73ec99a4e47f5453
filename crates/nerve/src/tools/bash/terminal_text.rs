//! Command output as the model should read it, and as the user's terminal would show it.
//!
//! Programs that think they write to a terminal (or are told to: `CARGO_TERM_COLOR=always`,
//! `FORCE_COLOR`) colour their output and redraw progress lines in place with `\r`, `ESC[1G` and
//! `ESC[K`. A model pays tokens for every `ESC[32m` and every redraw and learns nothing from them.
//! [`plain`] plays the text on a small line-oriented terminal (the `vte` parser with our own
//! handling of the cursor within a line) and keeps what the screen ends with: each line's last
//! frame, without escapes. [`terminal`] keeps the colours for the user and drops only the frames
//! that were drawn over. The output file on disk stays byte-exact.

use std::borrow::Cow;

/// The text a model reads: escapes gone, each line as it was last drawn.
pub fn plain(text: &str) -> Cow<'_, str> {
    if !needs_terminal(text) {
        return Cow::Borrowed(text);
    }
    let mut screen = LineScreen::default();
    let mut parser = vte::Parser::new();
    parser.advance(&mut screen, text.as_bytes());
    Cow::Owned(screen.finish())
}

/// The text the user sees in colour: escapes kept, each line's frames drawn over (before a `\r` or
/// a move to the first column) dropped. `None` when the text has no escape at all: the plain text
/// is then the same.
pub fn terminal(text: &str) -> Option<String> {
    if !text.contains('\x1b') {
        return None;
    }
    let lines: Vec<String> = text.split('\n').map(last_frame).collect();
    Some(lines.join("\n"))
}

/// Whether the text holds anything a terminal would act on: escapes, carriage returns, backspaces.
fn needs_terminal(text: &str) -> bool {
    text.bytes().any(|b| matches!(b, 0x1b | b'\r' | 0x08))
}

/// A line's last frame, with its escapes: what follows its last `\r` or `ESC[1G`/`ESC[G` that has
/// something visible after it.
fn last_frame(line: &str) -> String {
    let line = line.strip_suffix('\r').unwrap_or(line);
    let mut starts = vec![0];
    for (at, _) in line.match_indices('\r') {
        starts.push(at + 1);
    }
    for pattern in ["\x1b[1G", "\x1b[G"] {
        for (at, _) in line.match_indices(pattern) {
            starts.push(at);
        }
    }
    starts.sort_unstable();
    starts
        .iter()
        .rev()
        .map(|&start| &line[start..])
        .find(|frame| !plain(frame).trim().is_empty())
        .unwrap_or("")
        .to_string()
}

/// One line being drawn, the finished lines above it.
#[derive(Default)]
struct LineScreen {
    done: String,
    line: Vec<char>,
    cursor: usize,
}

impl LineScreen {
    fn finish(mut self) -> String {
        self.end_line(false);
        self.done
    }

    fn end_line(&mut self, newline: bool) {
        let text: String = self.line.iter().collect();
        self.done.push_str(text.trim_end_matches(' '));
        if newline {
            self.done.push('\n');
        }
        self.line.clear();
        self.cursor = 0;
    }
}

impl vte::Perform for LineScreen {
    fn print(&mut self, c: char) {
        if self.cursor < self.line.len() {
            self.line[self.cursor] = c;
        } else {
            self.line.resize(self.cursor, ' ');
            self.line.push(c);
        }
        self.cursor += 1;
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => self.end_line(true),
            b'\r' => self.cursor = 0,
            // Kept as a tab: fewer tokens than the spaces it stands for.
            b'\t' => self.print('\t'),
            0x08 => self.cursor = self.cursor.saturating_sub(1),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &vte::Params, _: &[u8], _: bool, action: char) {
        let first = params.iter().next().and_then(|p| p.first().copied()).unwrap_or(0);
        let count = usize::from(first.max(1));
        match action {
            // Cursor to a column (1-based).
            'G' => self.cursor = count - 1,
            'C' => self.cursor += count,
            'D' => self.cursor = self.cursor.saturating_sub(count),
            // Erase in line: to the end, to the start, the whole line.
            'K' => match first {
                0 => self.line.truncate(self.cursor),
                1 => {
                    let upto = self.cursor.min(self.line.len().saturating_sub(1));
                    for c in self.line.iter_mut().take(upto + 1) {
                        *c = ' ';
                    }
                }
                _ => self.line.clear(),
            },
            // Colours, modes, other cursor moves: nothing a line of text keeps.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn plain_text_is_left_alone() {
        assert!(matches!(plain("one\ntwo\n"), Cow::Borrowed(_)));
        assert_eq!(terminal("one\ntwo"), None);
    }

    #[test]
    fn colours_go_and_progress_redraws_keep_their_last_frame() {
        let cargo = "\x1b[1m\x1b[92m   Compiling\x1b[0m serde v1.0\n\x1b[1m\x1b[96m    Building\x1b[0m [=>   ] 1/2: serde\r\x1b[K\x1b[1m\x1b[92m    Finished\x1b[0m dev\n";
        assert_eq!(plain(cargo), "   Compiling serde v1.0\n    Finished dev\n");
        assert_eq!(
            terminal(cargo).unwrap(),
            "\x1b[1m\x1b[92m   Compiling\x1b[0m serde v1.0\n\x1b[K\x1b[1m\x1b[92m    Finished\x1b[0m dev\n"
        );
    }

    #[test]
    fn a_spinner_drawn_at_the_first_column_and_erased_leaves_only_the_message() {
        let npm = "⠙\x1b[1G\x1b[0K⠹\x1b[1G\x1b[0K\x1b[1mnpm\x1b[22m \x1b[32mhttp\x1b[39m GET 200\n";
        assert_eq!(plain(npm), "npm http GET 200\n");
        assert_eq!(
            terminal(npm).unwrap(),
            "\x1b[1G\x1b[0K\x1b[1mnpm\x1b[22m \x1b[32mhttp\x1b[39m GET 200\n"
        );
    }

    #[test]
    fn a_shorter_frame_over_a_longer_one_shows_what_a_terminal_shows() {
        // Without an erase, the end of the longer frame stays on screen.
        assert_eq!(plain("downloading 100%\rdone\n"), "doneloading 100%\n");
        assert_eq!(plain("abc\x08\x08X\n"), "aXc\n");
        assert_eq!(plain("\x1b[1ma\tb"), "a\tb");
    }

    #[test]
    fn escapes_split_by_the_excerpt_do_not_leak() {
        // The head of a long output may end inside an escape sequence.
        assert_eq!(plain("ok \x1b[3"), "ok");
        assert_eq!(plain("\x1b]0;title\x07text"), "text");
    }
}
