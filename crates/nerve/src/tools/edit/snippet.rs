//! The `cat -n` snippet of an edited file shown to the model, so it sees the result without a
//! second Read.

/// Lines of context around the change.
const CONTEXT: usize = 4;
/// The most lines a snippet shows.
const MAX_SNIPPET_LINES: usize = 80;
/// Longer lines are cut.
const MAX_LINE_CHARS: usize = 2_000;

/// Lines `first - CONTEXT ..= first + count - 1 + CONTEXT` of `text`, numbered.
pub fn snippet(text: &str, first: usize, count: usize) -> String {
    let start = first.saturating_sub(CONTEXT).max(1);
    let end = first + count.max(1) - 1 + CONTEXT;
    let mut out = String::new();
    let mut shown = 0;
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if n < start {
            continue;
        }
        if n > end {
            break;
        }
        if shown == MAX_SNIPPET_LINES {
            out.push_str(&format!(
                "(… snippet cut after {MAX_SNIPPET_LINES} lines; Read the file to see the rest)\n"
            ));
            break;
        }
        let line: String = if line.chars().count() > MAX_LINE_CHARS {
            let mut kept: String = line.chars().take(MAX_LINE_CHARS).collect();
            kept.push_str(" … [line cut]");
            kept
        } else {
            line.to_string()
        };
        out.push_str(&format!("{n:>6}\t{line}\n"));
        shown += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn shows_context_around_the_change() {
        let text: String = (1..=20).map(|i| format!("l{i}\n")).collect();
        let s = snippet(&text, 10, 1);
        assert_eq!(s.lines().next(), Some("     6\tl6"));
        assert_eq!(s.lines().last(), Some("    14\tl14"));
        assert_eq!(snippet("a\nb\n", 1, 1), "     1\ta\n     2\tb\n");
    }

    #[test]
    fn long_changes_are_capped() {
        let text: String = (1..=500).map(|i| format!("l{i}\n")).collect();
        let s = snippet(&text, 1, 400);
        assert_eq!(s.lines().count(), MAX_SNIPPET_LINES + 1);
        assert!(s.ends_with("Read the file to see the rest)\n"));
    }
}
