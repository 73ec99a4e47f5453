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
}

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
                    for change in diff.iter_changes(op) {
                        let tag = match change.tag() {
                            ChangeTag::Equal => DiffTag::Context,
                            ChangeTag::Delete => DiffTag::Delete,
                            ChangeTag::Insert => DiffTag::Insert,
                        };
                        let text = change.value().strip_suffix('\n').unwrap_or(change.value());
                        lines.push(DiffLine {
                            tag,
                            text: text.to_string(),
                        });
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
