//! Turns the sorted hits into the text the model reads, one page of entries at a time.

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::tools::grep::input::OutputMode;
use crate::tools::grep::search::FileHits;

/// Which slice of the entries to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// At most this many entries; `None` for all.
    pub limit: Option<usize>,
    /// Entries skipped first.
    pub offset: usize,
}

/// The rendered result.
#[derive(Debug, Clone, PartialEq)]
pub struct Rendered {
    /// What the model reads.
    pub text: String,
    /// Counts for the UI.
    pub display: Value,
}

/// Renders the hits. Entries are output lines (content), paths (files) or `path:N` (count);
/// `offset` and `limit` page through them, and a trailing line says when a page was cut.
pub fn render(hits: &[FileHits], mode: OutputMode, context: bool, page: Page) -> Rendered {
    let entries: Vec<Cow<'_, str>> = match mode {
        OutputMode::Content => content_entries(hits, context),
        OutputMode::FilesWithMatches => hits.iter().map(|h| h.path.to_string_lossy()).collect(),
        OutputMode::Count => hits
            .iter()
            .map(|h| Cow::Owned(format!("{}:{}", h.path.display(), h.matched_lines)))
            .collect(),
    };
    let total = entries.len();
    let rest = entries.get(page.offset..).unwrap_or(&[]);
    let (shown, applied_limit) = match page.limit {
        Some(limit) if rest.len() > limit => (&rest[..limit], Some(limit)),
        Some(_) | None => (rest, None),
    };
    let applied_offset = (page.offset > 0).then_some(page.offset);
    let body = shown.join("\n");
    let mut text = match mode {
        OutputMode::Content if shown.is_empty() => "No matches found".to_string(),
        OutputMode::Content => body,
        OutputMode::FilesWithMatches if total == 0 => "No files found".to_string(),
        OutputMode::FilesWithMatches => {
            format!("Found {total} {}\n{body}", plural(total, "file", "files"))
        }
        OutputMode::Count if shown.is_empty() => "No matches found".to_string(),
        OutputMode::Count => {
            let lines: u64 = hits.iter().map(|h| h.matched_lines).sum();
            format!(
                "{body}\n\nFound {lines} total {} across {} {}.",
                plural(lines as usize, "matching line", "matching lines"),
                hits.len(),
                plural(hits.len(), "file", "files")
            )
        }
    };
    if let Some(note) = pagination_note(applied_limit, applied_offset) {
        text.push_str("\n\n");
        text.push_str(&note);
    }
    Rendered {
        text,
        display: json!({
            "mode": mode,
            "num_files": hits.len(),
            "num_entries": total,
            "shown": shown.len(),
            "applied_limit": applied_limit,
            "applied_offset": applied_offset,
        }),
    }
}

fn content_entries(hits: &[FileHits], context: bool) -> Vec<Cow<'_, str>> {
    let mut out = Vec::new();
    for (i, hit) in hits.iter().enumerate() {
        // ripgrep separates files' groups with `--` when it prints context.
        if context && i > 0 {
            out.push(Cow::Borrowed("--"));
        }
        out.extend(hit.lines.iter().map(|l| Cow::Borrowed(l.as_str())));
    }
    out
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}

/// The trailing line telling the model a page was cut (and where it starts), so it can ask for
/// the next one with `offset`.
fn pagination_note(limit: Option<usize>, offset: Option<usize>) -> Option<String> {
    let paging = match (limit, offset) {
        (Some(l), o) => format!("limit: {l}, offset: {}", o.unwrap_or(0)),
        (None, Some(o)) => format!("offset: {o}"),
        (None, None) => return None,
    };
    Some(format!("[Showing results with pagination = {paging}]"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    fn hit(path: &str, lines: &[&str], n: u64) -> FileHits {
        FileHits {
            path: PathBuf::from(path),
            modified: None,
            matched_lines: n,
            lines: lines.iter().map(|s| (*s).to_string()).collect(),
        }
    }

    const ALL: Page = Page {
        limit: None,
        offset: 0,
    };

    #[test]
    fn files_mode_lists_paths_with_a_header() {
        let r = render(
            &[hit("/a", &[], 1), hit("/b", &[], 1)],
            OutputMode::FilesWithMatches,
            false,
            ALL,
        );
        assert_eq!(r.text, "Found 2 files\n/a\n/b");
        assert_eq!(r.display["applied_limit"], Value::Null);
        let r = render(&[], OutputMode::FilesWithMatches, false, ALL);
        assert_eq!(r.text, "No files found");
    }

    #[test]
    fn limit_cuts_and_says_so() {
        let hits: Vec<FileHits> = (0..5).map(|i| hit(&format!("/f{i}"), &[], 1)).collect();
        let r = render(
            &hits,
            OutputMode::FilesWithMatches,
            false,
            Page {
                limit: Some(2),
                offset: 0,
            },
        );
        assert_eq!(
            r.text,
            "Found 5 files\n/f0\n/f1\n\n[Showing results with pagination = limit: 2, offset: 0]"
        );
        assert_eq!(r.display["applied_limit"], 2);
        assert_eq!(r.display["shown"], 2);
    }

    #[test]
    fn offset_pages_through_entries() {
        let hits: Vec<FileHits> = (0..5).map(|i| hit(&format!("/f{i}"), &[], 1)).collect();
        let r = render(
            &hits,
            OutputMode::FilesWithMatches,
            false,
            Page {
                limit: Some(2),
                offset: 2,
            },
        );
        assert_eq!(
            r.text,
            "Found 5 files\n/f2\n/f3\n\n[Showing results with pagination = limit: 2, offset: 2]"
        );
        // The last page is not cut: only the offset is reported.
        let r = render(
            &hits,
            OutputMode::FilesWithMatches,
            false,
            Page {
                limit: Some(2),
                offset: 4,
            },
        );
        assert_eq!(
            r.text,
            "Found 5 files\n/f4\n\n[Showing results with pagination = offset: 4]"
        );
        assert_eq!(r.display["applied_limit"], Value::Null);
        assert_eq!(r.display["applied_offset"], 4);
    }

    #[test]
    fn content_limit_counts_lines_and_separates_files_with_context() {
        let hits = [hit("/a", &["/a:1:x", "/a-2-y"], 1), hit("/b", &["/b:3:x"], 1)];
        let r = render(&hits, OutputMode::Content, true, ALL);
        assert_eq!(r.text, "/a:1:x\n/a-2-y\n--\n/b:3:x");
        let r = render(
            &hits,
            OutputMode::Content,
            true,
            Page {
                limit: Some(1),
                offset: 1,
            },
        );
        assert_eq!(
            r.text,
            "/a-2-y\n\n[Showing results with pagination = limit: 1, offset: 1]"
        );
        let r = render(&[], OutputMode::Content, false, ALL);
        assert_eq!(r.text, "No matches found");
    }

    #[test]
    fn count_mode_totals() {
        let r = render(
            &[hit("/a", &[], 3), hit("/b", &[], 1)],
            OutputMode::Count,
            false,
            ALL,
        );
        assert_eq!(
            r.text,
            "/a:3\n/b:1\n\nFound 4 total matching lines across 2 files."
        );
    }
}
