//! Undoing one hunk of a change: the lines the change made are found in the file as it is now and
//! replaced by the lines it replaced, so edits made around it since (by the agent or the user) stay.
//! When those lines are no longer there, or are there more than once, nothing is written and the
//! error says why.

use std::path::{Path, PathBuf};

use nerve_protocol::{DiffHunk, DiffTag};

/// Why a hunk could not be undone.
#[derive(Debug, thiserror::Error)]
pub enum HunkUndoError {
    /// The file is gone.
    #[error("{} is gone, so this change cannot be undone in it", path.display())]
    Gone {
        /// The file.
        path: PathBuf,
    },
    /// The file is outside the session's folder.
    #[error("{} is outside the session's folder", path.display())]
    Outside {
        /// The file.
        path: PathBuf,
    },
    /// The file is not UTF-8 text.
    #[error("{} is not text, so a part of it cannot be undone", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// The lines the change made are not in the file any more.
    #[error("the lines this change made in {} were changed since, so it cannot be undone on its own; revert the file instead", path.display())]
    Changed {
        /// The file.
        path: PathBuf,
    },
    /// The lines the change made are in the file more than once, none where the change put them.
    #[error("the lines this change made appear {count} times in {} and none where it put them, so which one to undo is not clear", path.display())]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// How many times.
        count: usize,
    },
    /// The file could not be read or written.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Undoes `hunk` (a change's hunk, as a change set shows it) in the file at `path`.
pub fn undo_hunk(path: &Path, hunk: &DiffHunk) -> Result<(), HunkUndoError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(HunkUndoError::Gone {
                path: path.to_path_buf(),
            });
        }
        Err(source) => {
            return Err(HunkUndoError::Io {
                what: "read",
                path: path.to_path_buf(),
                source,
            });
        }
    };
    let text = String::from_utf8(bytes).map_err(|_| HunkUndoError::NotText {
        path: path.to_path_buf(),
    })?;
    let undone = undo_in(&text, hunk).map_err(|e| match e {
        Miss::Changed => HunkUndoError::Changed {
            path: path.to_path_buf(),
        },
        Miss::Ambiguous(count) => HunkUndoError::Ambiguous {
            path: path.to_path_buf(),
            count,
        },
    })?;
    crate::files::write_atomic(path, undone.as_bytes()).map_err(|source| HunkUndoError::Io {
        what: "write",
        path: path.to_path_buf(),
        source,
    })
}

/// A line without its line break (`\n` or `\r\n`).
fn bare_line(l: &str) -> &str {
    let l = l.strip_suffix('\n').unwrap_or(l);
    l.strip_suffix('\r').unwrap_or(l)
}

/// Why a hunk's lines were not found in a text.
pub(crate) enum Miss {
    /// Not there.
    Changed,
    /// There this many times, none at the hunk's own place.
    Ambiguous(usize),
}

/// `text` with the hunk applied forwards: its old lines become its new lines (staging one hunk
/// into the index's copy of a file).
pub(crate) fn apply_in(text: &str, hunk: &DiffHunk) -> Result<String, Miss> {
    let swap = |tag| match tag {
        DiffTag::Insert => DiffTag::Delete,
        DiffTag::Delete => DiffTag::Insert,
        DiffTag::Context => DiffTag::Context,
    };
    let reversed = DiffHunk {
        old_start: hunk.new_start,
        old_lines: hunk.new_lines,
        new_start: hunk.old_start,
        new_lines: hunk.old_lines,
        lines: hunk
            .lines
            .iter()
            .map(|l| nerve_protocol::DiffLine::new(swap(l.tag), l.text.clone()))
            .collect(),
    };
    undo_in(text, &reversed)
}

/// `text` with the hunk's new lines put back to its old lines.
pub(crate) fn undo_in(text: &str, hunk: &DiffHunk) -> Result<String, Miss> {
    let side = |keep: DiffTag| -> Vec<&str> {
        hunk.lines
            .iter()
            .filter(|l| l.tag == DiffTag::Context || l.tag == keep)
            // The diff keeps a `\r` of a CRLF file on the line; the file's own ending is used.
            .map(|l| l.text.strip_suffix('\r').unwrap_or(&l.text))
            .collect()
    };
    let (new_side, old_side) = (side(DiffTag::Insert), side(DiffTag::Delete));
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let bare = bare_line;
    let matches_at = |at: usize| {
        at + new_side.len() <= lines.len()
            && new_side
                .iter()
                .enumerate()
                .all(|(i, want)| bare(lines[at + i]) == *want)
    };
    let expected = hunk.new_start.saturating_sub(1);
    let at = if new_side.is_empty() {
        // A pure deletion with no context: put the lines back where they were.
        expected.min(lines.len())
    } else if matches_at(expected) {
        expected
    } else {
        let found: Vec<usize> = (0..lines.len()).filter(|&at| matches_at(at)).collect();
        match found.as_slice() {
            [] => return Err(Miss::Changed),
            [one] => *one,
            many => return Err(Miss::Ambiguous(many.len())),
        }
    };
    let end = at + new_side.len();
    // The file's own line ending, and whether its last line had one.
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let last_unterminated = end == lines.len() && lines.last().is_some_and(|l| !l.ends_with('\n'));
    let mut out: String = lines[..at].concat();
    for (i, line) in old_side.iter().enumerate() {
        out.push_str(line);
        if !(last_unterminated && i + 1 == old_side.len()) {
            out.push_str(newline);
        }
    }
    out.push_str(&lines[end..].concat());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nerve_protocol::{ChangeKind, FileDiff};
    use pretty_assertions::assert_eq;

    fn hunks(old: &str, new: &str) -> Vec<DiffHunk> {
        FileDiff::between("f", ChangeKind::Update, old, new).hunks
    }

    #[test]
    fn one_hunk_is_undone_and_the_others_and_later_edits_stay() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n";
        let hs = hunks(old, new);
        assert_eq!(hs.len(), 2);
        // Someone added a line at the top since: the hunk moved, and is found anyway.
        let now = format!("top\n{new}");
        let Ok(undone) = undo_in(&now, &hs[1]) else {
            panic!()
        };
        assert_eq!(undone, "top\na\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n");
        let Ok(undone) = undo_in(new, &hs[0]) else {
            panic!()
        };
        assert_eq!(undone, "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n");
    }

    #[test]
    fn changed_lines_are_refused_and_a_missing_final_newline_is_kept() {
        let hs = hunks("x\ny", "x\nY");
        assert!(matches!(undo_in("x\nZ", &hs[0]), Err(Miss::Changed)));
        let Ok(undone) = undo_in("x\nY", &hs[0]) else {
            panic!()
        };
        assert_eq!(undone, "x\ny");
        let hs = hunks("one\r\ntwo\r\n", "one\r\nTWO\r\n");
        let Ok(undone) = undo_in("one\r\nTWO\r\n", &hs[0]) else {
            panic!()
        };
        assert_eq!(undone, "one\r\ntwo\r\n");
    }

    #[test]
    fn a_hunk_applied_forwards_makes_its_new_lines() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n";
        let new = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n";
        let hs = hunks(old, new);
        let Ok(one) = apply_in(old, &hs[1]) else { panic!() };
        assert_eq!(one, "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nL\nm\n");
        let Ok(both) = apply_in(&one, &hs[0]) else {
            panic!()
        };
        assert_eq!(both, new);
        assert!(matches!(apply_in(new, &hs[0]), Err(Miss::Changed)));
        // A new file's only hunk fills an empty index copy.
        let created = FileDiff::between("f", ChangeKind::Create, "", "x\ny\n").hunks;
        let Ok(made) = apply_in("", &created[0]) else {
            panic!()
        };
        assert_eq!(made, "x\ny\n");
    }
}
