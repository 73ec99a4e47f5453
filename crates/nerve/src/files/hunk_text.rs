//! One hunk of a diff applied to a text, either way: its new lines put back to its old lines
//! (undoing an agent's change, unstaging a hunk) or its old lines made its new lines (staging a
//! hunk). The hunk's lines are found where it says, or, when the text moved since, the one place
//! they are; the text's own line endings are kept.

use nerve_protocol::{DiffHunk, DiffTag};

/// A line without its line break (`\n` or `\r\n`).
fn bare_line(l: &str) -> &str {
    let l = l.strip_suffix('\n').unwrap_or(l);
    l.strip_suffix('\r').unwrap_or(l)
}

/// Why a hunk's lines were not found in a text.
pub enum Miss {
    /// Not there.
    Changed,
    /// There this many times, none at the hunk's own place.
    Ambiguous(usize),
}

/// `text` with the hunk applied forwards: its old lines become its new lines (staging one hunk
/// into the index's copy of a file).
pub fn apply_in(text: &str, hunk: &DiffHunk) -> Result<String, Miss> {
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
pub fn undo_in(text: &str, hunk: &DiffHunk) -> Result<String, Miss> {
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
