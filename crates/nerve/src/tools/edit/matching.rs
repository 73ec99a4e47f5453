//! Finding `old_string` in a file: exactly first, then forgivingly (curly vs straight quotes,
//! trailing whitespace on each line), always locating the file's *actual* text so the edit applies
//! to what is really there.

use std::ops::Range;

/// Where `old_string` occurs in the content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matches {
    /// Byte ranges in the content, in order, not overlapping.
    pub ranges: Vec<Range<usize>>,
    /// Whether they matched exactly (no normalisation needed).
    pub exact: bool,
}

/// Finds `needle` in `content` (both with `\n` line breaks).
pub fn find_matches(content: &str, needle: &str) -> Matches {
    if needle.is_empty() {
        return Matches {
            ranges: Vec::new(),
            exact: true,
        };
    }
    let exact: Vec<Range<usize>> = content
        .match_indices(needle)
        .map(|(i, m)| i..i + m.len())
        .collect();
    if !exact.is_empty() {
        return Matches {
            ranges: exact,
            exact: true,
        };
    }
    let haystack = Normalized::of(content);
    let wanted = Normalized::of(needle).text;
    if wanted.is_empty() {
        return Matches {
            ranges: Vec::new(),
            exact: false,
        };
    }
    let ranges = haystack
        .text
        .match_indices(&wanted)
        .map(|(i, m)| haystack.original_range(i..i + m.len()))
        .collect();
    Matches { ranges, exact: false }
}

/// Text with quotes straightened and trailing whitespace removed from each line, remembering for
/// every byte which original character it came from.
struct Normalized {
    text: String,
    /// Per normalised byte: the original character's byte range.
    origin: Vec<Range<usize>>,
}

impl Normalized {
    fn of(original: &str) -> Self {
        let mut text = String::with_capacity(original.len());
        let mut origin = Vec::with_capacity(original.len());
        let mut line_start = 0;
        for line in original.split_inclusive('\n') {
            let body = line.strip_suffix('\n').unwrap_or(line);
            let kept = body.trim_end_matches(|c: char| c.is_whitespace());
            for (i, c) in kept.char_indices() {
                let n = straighten(c);
                let start = line_start + i;
                for _ in 0..n.len_utf8() {
                    origin.push(start..start + c.len_utf8());
                }
                text.push(n);
            }
            if body.len() < line.len() {
                let nl = line_start + body.len();
                origin.push(nl..nl + 1);
                text.push('\n');
            }
            line_start += line.len();
        }
        Self { text, origin }
    }

    fn original_range(&self, normalized: Range<usize>) -> Range<usize> {
        let start = self.origin.get(normalized.start).map_or(0, |r| r.start);
        let end = normalized
            .end
            .checked_sub(1)
            .and_then(|last| self.origin.get(last))
            .map_or(start, |r| r.end);
        start..end
    }
}

/// Curly quotes to straight ones.
pub fn straighten(c: char) -> char {
    match c {
        '\u{2018}' | '\u{2019}' => '\'',
        '\u{201c}' | '\u{201d}' => '"',
        other => other,
    }
}

/// `new_string` with its straight quotes turned curly where the file's matched text uses curly
/// quotes of that kind, so an edit does not mix styles. Opening or closing is chosen from the
/// previous character, which also turns apostrophes ("don't") into `’`.
pub fn match_quote_style(new_string: &str, actual: &str) -> String {
    let curly_double = actual.contains(['\u{201c}', '\u{201d}']);
    let curly_single = actual.contains(['\u{2018}', '\u{2019}']);
    if !curly_double && !curly_single {
        return new_string.to_string();
    }
    let mut out = String::with_capacity(new_string.len());
    let mut prev: Option<char> = None;
    for c in new_string.chars() {
        let opening = prev.is_none_or(|p| p.is_whitespace() || "([{<—–-".contains(p));
        let replaced = match c {
            '"' if curly_double => {
                if opening {
                    '\u{201c}'
                } else {
                    '\u{201d}'
                }
            }
            '\'' if curly_single => {
                if opening {
                    '\u{2018}'
                } else {
                    '\u{2019}'
                }
            }
            other => other,
        };
        out.push(replaced);
        prev = Some(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn found<'a>(content: &'a str, needle: &str) -> Vec<&'a str> {
        find_matches(content, needle)
            .ranges
            .into_iter()
            .map(|r| &content[r])
            .collect()
    }

    #[test]
    fn exact_matches_come_first() {
        let m = find_matches("a b a", "a");
        assert!(m.exact);
        assert_eq!(m.ranges, vec![0..1, 4..5]);
    }

    #[test]
    fn curly_quotes_in_the_file_match_straight_ones() {
        let content = "say(\u{201c}hello\u{201d}); it\u{2019}s\n";
        let m = find_matches(content, "say(\"hello\"); it's");
        assert!(!m.exact);
        assert_eq!(
            found(content, "say(\"hello\"); it's"),
            vec!["say(\u{201c}hello\u{201d}); it\u{2019}s"]
        );
    }

    #[test]
    fn trailing_whitespace_is_forgiven_both_ways() {
        let content = "fn a() {   \n    x();\t\n}\n";
        assert_eq!(
            found(content, "fn a() {\n    x();\n}"),
            vec!["fn a() {   \n    x();\t\n}"]
        );
        let content = "fn a() {\n}\n";
        assert_eq!(found(content, "fn a() {  \n}"), vec!["fn a() {\n}"]);
    }

    #[test]
    fn leading_whitespace_still_matters() {
        assert!(find_matches("    x();\n", "  y();").ranges.is_empty());
        assert!(find_matches("abc", "").ranges.is_empty());
    }

    #[test]
    fn quote_style_follows_the_file() {
        assert_eq!(
            match_quote_style("say(\"bye\"); don't", "say(\u{201c}hello\u{201d})"),
            "say(\u{201c}bye\u{201d}); don't"
        );
        assert_eq!(
            match_quote_style("'hi' don't", "\u{2018}x\u{2019}"),
            "\u{2018}hi\u{2019} don\u{2019}t"
        );
        assert_eq!(match_quote_style("\"plain\"", "\"plain\""), "\"plain\"");
    }
}
