//! A crude split of a command that could not be understood, so deny rules can still be checked
//! against every part of it. It over-splits on purpose: a deny rule matching too much only turns an
//! "ask" into a "deny" for a command that is already not understood.

use crate::tools::bash::words::basename;

/// Characters that separate commands (or start nested ones) in bash.
fn is_separator(c: char) -> bool {
    matches!(
        c,
        ';' | '&' | '|' | '\n' | '(' | ')' | '`' | '{' | '}' | '<' | '>' | '$' | '!'
    )
}

/// Every word of `command`, split on whitespace and command separators, with quotes and backslashes
/// removed (`'r'm` -> `rm`).
pub fn fallback_words(command: &str) -> Vec<String> {
    command
        .split(|c: char| c.is_whitespace() || is_separator(c))
        .map(|w| {
            w.chars()
                .filter(|c| !matches!(c, '\'' | '"' | '\\'))
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// The words of each separator-delimited segment of `command` (see [`fallback_words`]).
pub(crate) fn segment_words(command: &str) -> Vec<Vec<String>> {
    command
        .split(is_separator)
        .map(fallback_words)
        .filter(|words| !words.is_empty())
        .collect()
}

/// Candidate command texts for deny-rule matching: for each separator-delimited segment, every
/// suffix of its words (so `sudo rm -rf /` also yields `rm -rf /`), with the first word reduced to
/// its basename (`/bin/rm x` -> `rm x`) and quotes removed.
pub fn fallback_segments(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    for words in segment_words(command) {
        for start in 0..words.len() {
            let mut parts = vec![basename(&words[start]).to_string()];
            parts.extend(words[start + 1..].iter().cloned());
            let candidate = parts.join(" ");
            if !out.contains(&candidate) {
                out.push(candidate);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn words_lose_quotes_and_split_on_operators() {
        assert_eq!(
            fallback_words("echo \"unterminated; r''m -rf /&&`x`"),
            ["echo", "unterminated", "rm", "-rf", "/", "x"]
        );
    }

    #[test]
    fn segments_include_every_suffix() {
        let segments = fallback_segments("sudo /bin/rm -rf / | $((");
        assert!(segments.contains(&"rm -rf /".to_string()), "{segments:?}");
        assert!(
            segments.contains(&"sudo /bin/rm -rf /".to_string()),
            "{segments:?}"
        );
        assert!(fallback_segments("").is_empty());
    }
}
