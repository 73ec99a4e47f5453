//! Structured diffs for the UI: hunks with tagged lines, plus the unified text.

use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff};

/// Lines of context around each change.
const CONTEXT_LINES: usize = 3;
/// How long the diff algorithm may search for a minimal diff.
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_secs(2);

/// Whether a file was created or changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// The file did not exist.
    Create,
    /// The file existed and was changed.
    Update,
}

/// What a line of a hunk is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DiffTag {
    /// Unchanged, shown for orientation.
    Context,
    /// Only in the old content.
    Delete,
    /// Only in the new content.
    Insert,
}

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiffLine {
    /// What the line is.
    pub tag: DiffTag,
    /// The line without its line break.
    pub text: String,
    /// For a line the change modified (a deleted line and the inserted line that replaced it):
    /// the line cut into the words that stayed and the words that changed, in order; their texts
    /// make up `text`. Absent when the whole line is new or gone, or the lines are too different
    /// for word changes to help.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<InlineSpan>>", optional))]
    pub inline: Vec<InlineSpan>,
}

/// A piece of a modified line: words that stayed, or words the change made or removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct InlineSpan {
    /// The text.
    pub text: String,
    /// These words changed.
    pub changed: bool,
}

impl DiffLine {
    /// A line with no word-level detail.
    pub fn new(tag: DiffTag, text: impl Into<String>) -> Self {
        Self {
            tag,
            text: text.into(),
            inline: Vec::new(),
        }
    }
}

/// Replaced runs longer than this (on either side) get no word-level detail: past a screenful the
/// emphasis stops helping and the word diff costs more than the line diff.
const MAX_INLINE_RUN: usize = 40;

/// A run of changes with context, as in a unified diff (`@@ -old_start,old_lines +new_start,new_lines @@`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiffHunk {
    /// First old line (1-based; 0 when the hunk has no old lines).
    pub old_start: usize,
    /// How many old lines.
    pub old_lines: usize,
    /// First new line (1-based; 0 when the hunk has no new lines).
    pub new_start: usize,
    /// How many new lines.
    pub new_lines: usize,
    /// The lines.
    pub lines: Vec<DiffLine>,
}

/// A file change as the UI shows it (sent in `ToolOutput::display`, never to the model).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileDiff {
    /// The file.
    pub path: String,
    /// Created or changed.
    pub kind: ChangeKind,
    /// The changes.
    pub hunks: Vec<DiffHunk>,
    /// The same as a unified diff.
    pub unified: String,
}

impl FileDiff {
    /// The diff from `old` to `new` (both with `\n` line breaks).
    pub fn between(path: &str, kind: ChangeKind, old: &str, new: &str) -> Self {
        // A deadline keeps pathological inputs from stalling the call; past it the diff is still
        // correct, only less minimal.
        let diff = TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(old, new);
        let hunks = diff
            .grouped_ops(CONTEXT_LINES)
            .iter()
            .map(|group| {
                let mut lines = Vec::new();
                for op in group {
                    let (kind, old_range, new_range) = op.as_tag_tuple();
                    let words = kind == similar::DiffTag::Replace
                        && old_range.len() <= MAX_INLINE_RUN
                        && new_range.len() <= MAX_INLINE_RUN;
                    if words {
                        let deadline = std::time::Instant::now().checked_add(INLINE_DEADLINE);
                        for change in diff.iter_inline_changes_deadline(op, deadline) {
                            let spans: Vec<(bool, String)> = change
                                .iter_strings_lossy()
                                .map(|(changed, text)| (changed, text.into_owned()))
                                .collect();
                            lines.push(inline_line(tag_of(change.tag()), spans));
                        }
                        continue;
                    }
                    for change in diff.iter_changes(op) {
                        let text = change.value().strip_suffix('\n').unwrap_or(change.value());
                        lines.push(DiffLine::new(tag_of(change.tag()), text));
                    }
                }
                let (old_range, new_range) = match (group.first(), group.last()) {
                    (Some(first), Some(last)) => (
                        first.old_range().start..last.old_range().end,
                        first.new_range().start..last.new_range().end,
                    ),
                    _ => (0..0, 0..0),
                };
                let start = |r: &std::ops::Range<usize>| if r.is_empty() { r.start } else { r.start + 1 };
                DiffHunk {
                    old_start: start(&old_range),
                    old_lines: old_range.len(),
                    new_start: start(&new_range),
                    new_lines: new_range.len(),
                    lines,
                }
            })
            .collect();
        let unified = diff
            .unified_diff()
            .context_radius(CONTEXT_LINES)
            .header(path, path)
            .to_string();
        Self {
            path: path.to_string(),
            kind,
            hunks,
            unified,
        }
    }

    /// The diff as the JSON the UI receives.
    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or(serde_json::Value::Null)
    }
}

/// How long the word diff of one replaced run may search.
const INLINE_DEADLINE: std::time::Duration = std::time::Duration::from_millis(50);

fn tag_of(tag: ChangeTag) -> DiffTag {
    match tag {
        ChangeTag::Equal => DiffTag::Context,
        ChangeTag::Delete => DiffTag::Delete,
        ChangeTag::Insert => DiffTag::Insert,
    }
}

/// A line from its word spans (the last one may end with the line break, which is dropped). The
/// spans are kept only when some words stayed and some changed.
fn inline_line(tag: DiffTag, spans: Vec<(bool, String)>) -> DiffLine {
    let mut inline: Vec<InlineSpan> = Vec::with_capacity(spans.len());
    for (changed, mut text) in spans {
        if text.ends_with('\n') {
            text.pop();
        }
        if text.is_empty() {
            continue;
        }
        match inline.last_mut() {
            Some(last) if last.changed == changed => last.text.push_str(&text),
            _ => inline.push(InlineSpan { text, changed }),
        }
    }
    let text: String = inline.iter().map(|s| s.text.as_str()).collect();
    let mixed = inline.iter().any(|s| s.changed) && inline.iter().any(|s| !s.changed);
    DiffLine {
        tag,
        text,
        inline: if mixed { inline } else { Vec::new() },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn hunks_tag_lines_and_count_ranges() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\ni\nj\n";
        let d = FileDiff::between("/p/x.txt", ChangeKind::Update, old, new);
        assert_eq!(d.hunks.len(), 1);
        let h = &d.hunks[0];
        assert_eq!((h.old_start, h.old_lines, h.new_start, h.new_lines), (2, 7, 2, 7));
        let tags: Vec<DiffTag> = h.lines.iter().map(|l| l.tag).collect();
        use DiffTag::*;
        assert_eq!(
            tags,
            vec![
                Context, Context, Context, Delete, Insert, Context, Context, Context
            ]
        );
        assert_eq!(h.lines[3].text, "e");
        assert_eq!(h.lines[4].text, "E");
        assert!(d.unified.contains("@@ -2,7 +2,7 @@"), "{}", d.unified);
        assert!(d.unified.contains("-e\n+E\n"), "{}", d.unified);
    }

    #[test]
    fn a_modified_line_shows_which_words_changed() {
        let d = FileDiff::between(
            "/p/x.rs",
            ChangeKind::Update,
            "fn main() {\n    let total = count(1);\n}\n",
            "fn main() {\n    let total = count(2);\n}\n",
        );
        let lines: Vec<_> = d.hunks[0]
            .lines
            .iter()
            .map(|l| {
                let spans: Vec<(bool, &str)> =
                    l.inline.iter().map(|s| (s.changed, s.text.as_str())).collect();
                (l.tag, l.text.as_str(), spans)
            })
            .collect();
        use DiffTag::*;
        assert_eq!(
            lines,
            vec![
                (Context, "fn main() {", vec![]),
                (
                    Delete,
                    "    let total = count(1);",
                    vec![(false, "    let total = count("), (true, "1"), (false, ");")]
                ),
                (
                    Insert,
                    "    let total = count(2);",
                    vec![(false, "    let total = count("), (true, "2"), (false, ");")]
                ),
                (Context, "}", vec![]),
            ]
        );
        // Lines with nothing in common, and whole new lines, carry no word detail.
        let d = FileDiff::between("/p/y", ChangeKind::Update, "alpha beta\n", "gamma delta\nnew\n");
        assert!(
            d.hunks[0].lines.iter().all(|l| l.inline.is_empty()),
            "{:?}",
            d.hunks
        );
        assert!(!d.to_value().to_string().contains("inline"));
    }

    #[test]
    fn creation_is_all_inserts() {
        let d = FileDiff::between("/p/n.txt", ChangeKind::Create, "", "x\ny\n");
        let v = d.to_value();
        assert_eq!(v["kind"], "create");
        assert_eq!(v["hunks"][0]["old_start"], 0);
        assert_eq!(v["hunks"][0]["new_start"], 1);
        assert_eq!(v["hunks"][0]["new_lines"], 2);
        assert_eq!(v["hunks"][0]["lines"][1]["tag"], "insert");
        assert_eq!(v["hunks"][0]["lines"][1]["text"], "y");
    }
}
