//! The text the model gets for a command: its output (head, an omission marker and tail when it was
//! too long, with a pointer to the full output file), then how the command ended.

use std::path::Path;
use std::process::ExitStatus;

use crate::tools::bash::process::describe_status;
use crate::tools::bash::spool::{Excerpt, HEAD_BYTES, TAIL_BYTES};
use crate::tools::bash::terminal_text;

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell exited on its own.
    Exited(ExitStatus),
    /// The timeout (ms) ran out; the group was killed.
    TimedOut(u64),
    /// The user aborted; the group was killed.
    Interrupted,
}

impl Ending {
    /// Whether the result is an error for the model (and for sibling cancellation).
    pub fn is_error(&self) -> bool {
        match self {
            Ending::Exited(status) => !status.success(),
            Ending::TimedOut(_) | Ending::Interrupted => true,
        }
    }

    /// The closing line, if any ("Exit code 2").
    pub fn describe(&self) -> Option<String> {
        match self {
            Ending::Exited(status) => describe_status(status),
            Ending::TimedOut(ms) => Some(format!("Command timed out after {ms} ms")),
            Ending::Interrupted => Some("Command was interrupted".to_string()),
        }
    }
}

/// A command's output for the model, and for the user when it was drawn in colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Rendered {
    /// What the model reads: plain text (see [`terminal_text::plain`]), then the notes.
    pub text: String,
    /// The same head and tail with their colours, for the UI; `None` when the output had none.
    pub display: Option<String>,
}

/// Renders output and notes. `full_output` is where the whole output was saved, given when the
/// excerpt omits something.
pub(crate) fn render_output(excerpt: &Excerpt, full_output: Option<&Path>) -> Rendered {
    let head = lossy_prefix(&excerpt.head, HEAD_BYTES);
    let tail = lossy_suffix(&excerpt.tail, TAIL_BYTES);
    let omitted = excerpt.omitted();
    let display = match (terminal_text::terminal(&head), terminal_text::terminal(&tail)) {
        (None, None) => None,
        (h, t) => Some(join_excerpt(
            &h.unwrap_or_else(|| head.clone()),
            &t.unwrap_or_else(|| tail.clone()),
            omitted,
        )),
    };
    let text = output_text(
        &terminal_text::plain(&head),
        &terminal_text::plain(&tail),
        omitted,
        excerpt,
        full_output,
    );
    Rendered { text, display }
}

/// The head and tail as one text, with the omission marker between them when bytes were left out.
fn join_excerpt(head: &str, tail: &str, omitted: u64) -> String {
    if omitted == 0 {
        return format!("{head}{tail}").trim_end_matches('\n').to_string();
    }
    format!(
        "{head}\n\n... [{omitted} bytes omitted] ...\n\n{}",
        tail.trim_end_matches('\n')
    )
}

/// The model's text: the excerpt, and where the whole output is when it was cut.
fn output_text(
    head: &str,
    tail: &str,
    omitted: u64,
    excerpt: &Excerpt,
    full_output: Option<&Path>,
) -> String {
    let mut text = join_excerpt(head, tail, omitted);
    if omitted == 0 {
        return text;
    }
    text.push_str("\n\n<persisted-output>\n");
    text.push_str(&format!("Output too large ({} bytes). ", excerpt.total));
    match full_output {
        Some(path) => text.push_str(&format!(
            "Full output saved to: {}\nShown above: the first {} and the last {} bytes. Search it with Grep or read parts of it with Read (offset/limit); do not read it whole.",
            path.display(),
            excerpt.head.len(),
            excerpt.tail.len()
        )),
        None => text.push_str("The full output could not be saved; only the first and last parts above are available. Re-run the command with its output redirected to a file and filtered (grep, tail) if you need more."),
    }
    text.push_str("\n</persisted-output>");
    text
}

/// Joins the output, notes and ending into the result text.
pub(crate) fn render_result(output: &str, notes: &[String], ending: &Ending) -> String {
    let mut parts: Vec<&str> = Vec::new();
    if !output.is_empty() {
        parts.push(output);
    }
    parts.extend(notes.iter().map(String::as_str));
    let closing = ending.describe();
    if let Some(c) = &closing {
        parts.push(c);
    }
    parts.join("\n")
}

fn lossy_prefix(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    // Replacement characters take three bytes: binary output must not blow the budget.
    let mut end = text.len().min(max);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

fn lossy_suffix(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut start = text.len().saturating_sub(max);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    text[start..].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::os::unix::process::ExitStatusExt;

    fn excerpt(head: &[u8], tail: &[u8], total: u64) -> Excerpt {
        Excerpt {
            head: head.to_vec(),
            tail: tail.to_vec(),
            total,
        }
    }

    #[test]
    fn whole_output_is_shown_without_trailing_newlines() {
        assert_eq!(render_output(&excerpt(b"a\nb\n\n", b"", 5), None).text, "a\nb");
    }

    #[test]
    fn long_output_shows_head_marker_tail_and_file() {
        let text = render_output(&excerpt(b"first", b"last\n", 1000), Some(Path::new("/d/out.log"))).text;
        assert!(
            text.starts_with("first\n\n... [990 bytes omitted] ...\n\nlast\n\n<persisted-output>"),
            "{text}"
        );
        assert!(text.contains("Full output saved to: /d/out.log"), "{text}");
        assert!(text.ends_with("</persisted-output>"), "{text}");
    }

    #[test]
    fn binary_output_stays_within_the_byte_budget() {
        let head = vec![0xFFu8; HEAD_BYTES];
        let tail = vec![0xFEu8; TAIL_BYTES];
        let text = render_output(&excerpt(&head, &tail, 10_000_000), Some(Path::new("/x"))).text;
        assert!(text.len() < 30_000, "{}", text.len());
    }

    #[test]
    fn endings() {
        let failed = Ending::Exited(ExitStatus::from_raw(2 << 8));
        assert!(failed.is_error());
        assert!(!Ending::Exited(ExitStatus::from_raw(0)).is_error());
        assert_eq!(render_result("out", &[], &failed), "out\nExit code 2");
        assert_eq!(
            render_result("", &["note".into()], &Ending::TimedOut(500)),
            "note\nCommand timed out after 500 ms"
        );
        assert_eq!(
            render_result("", &[], &Ending::Interrupted),
            "Command was interrupted"
        );
        assert_eq!(
            render_result("", &[], &Ending::Exited(ExitStatus::from_raw(0))),
            ""
        );
    }
}
