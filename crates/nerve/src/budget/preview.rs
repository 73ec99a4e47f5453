//! The text the model sees in place of a persisted output.

use crate::budget::PersistedOutput;

/// About how much of a persisted output is shown inline.
pub const PREVIEW_BYTES: usize = 2_000;

/// The first ~[`PREVIEW_BYTES`] of `text`, cut at a line boundary when one is near, never inside a
/// character. Returns the preview and whether anything was cut.
pub fn preview_of(text: &str) -> (&str, bool) {
    if text.len() <= PREVIEW_BYTES {
        return (text, false);
    }
    let mut end = PREVIEW_BYTES;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let head = &text[..end];
    // Prefer the last newline, unless that throws away more than half of the preview.
    match head.rfind('\n') {
        Some(nl) if nl >= PREVIEW_BYTES / 2 => (&text[..nl], true),
        _ => (head, true),
    }
}

/// The `<persisted-output>` wrapper: size, path, and a preview.
pub fn persisted_wrapper(persisted: &PersistedOutput) -> String {
    let size = human_size(persisted.size_bytes);
    let mut s = format!(
        "<persisted-output>\nOutput too large ({size}). Full output saved to: {}\n\nPreview (first {}):\n{}",
        persisted.path.display(),
        human_size(persisted.preview.len() as u64),
        persisted.preview
    );
    if persisted.preview_truncated {
        s.push_str("\n...");
    }
    s.push_str("\n</persisted-output>");
    s
}

/// What an empty result becomes, so the model never sees an empty tool_result.
pub fn empty_result_text(tool_name: &str) -> String {
    format!("({tool_name} completed with no output)")
}

fn human_size(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let b = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KB", b / 1024.0)
    } else {
        format!("{:.1} MB", b / (1024.0 * 1024.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_text_is_whole() {
        assert_eq!(preview_of("abc\ndef"), ("abc\ndef", false));
    }

    #[test]
    fn cuts_at_line_boundary() {
        let line = "x".repeat(99);
        let text = vec![line.as_str(); 100].join("\n");
        let (p, cut) = preview_of(&text);
        assert!(cut);
        assert!(p.len() <= PREVIEW_BYTES);
        assert!(p.ends_with('x'));
        assert_eq!(p.len() % 100, 99, "ends at the end of a line");
    }

    #[test]
    fn never_splits_a_character() {
        let text = "é".repeat(3_000);
        let (p, cut) = preview_of(&text);
        assert!(cut);
        assert!(p.chars().all(|c| c == 'é'));
    }

    #[test]
    fn the_model_reads_a_persisted_output_as_its_size_path_and_preview() {
        let output = "line of output\n".repeat(2_000);
        let (preview, truncated) = preview_of(&output);
        let wrapper = persisted_wrapper(&PersistedOutput {
            path: "/home/me/.local/share/nerve/projects/-p/s1/tool-results/toolu_01.txt".into(),
            size_bytes: output.len() as u64,
            preview: preview.to_string(),
            preview_truncated: truncated,
        });
        // The middle of the preview is the same line over and over; the snapshot keeps its ends.
        let lines: Vec<&str> = wrapper.lines().collect();
        let shown = [&lines[..6], &["[...]"], &lines[lines.len() - 4..]]
            .concat()
            .join("\n");
        insta::assert_snapshot!(shown);
    }

    #[test]
    fn empty_text() {
        assert_eq!(empty_result_text("Bash"), "(Bash completed with no output)");
    }
}
