//! The `*` wildcard shared by shell and parameter patterns: `*` matches any run of characters,
//! `\*` a literal star and `\\` a literal backslash. No other character is special.

/// One element of a compiled wildcard pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Token {
    /// This exact character.
    Literal(char),
    /// Any run of characters, including none.
    Any,
}

/// Splits `pattern` into literal characters and wildcards, resolving `\*` and `\\` escapes.
/// A backslash before any other character is itself literal.
pub fn tokenize(pattern: &str) -> Vec<Token> {
    let mut tokens = Vec::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some(&next @ ('*' | '\\')) => {
                    tokens.push(Token::Literal(next));
                    chars.next();
                }
                _ => tokens.push(Token::Literal('\\')),
            },
            '*' => tokens.push(Token::Any),
            other => tokens.push(Token::Literal(other)),
        }
    }
    tokens
}

/// Whether `text` matches `tokens` as a whole (anchored at both ends).
///
/// Greedy matching with backtracking to the last wildcard: O(pattern × text) at worst, with no
/// compilation step that could fail.
pub fn matches(tokens: &[Token], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let (mut t, mut p) = (0usize, 0usize);
    let mut backtrack: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(Token::Literal(c)) if *c == text[t] => {
                t += 1;
                p += 1;
            }
            Some(Token::Any) => {
                backtrack = Some((p, t));
                p += 1;
            }
            _ => match backtrack {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    backtrack = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    tokens[p.min(tokens.len())..]
        .iter()
        .all(|token| *token == Token::Any)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wild(pattern: &str, text: &str) -> bool {
        matches(&tokenize(pattern), text)
    }

    #[test]
    fn star_matches_any_run_and_escapes_are_literal() {
        assert!(wild("users*", "users"));
        assert!(wild("users*", "users_archive"));
        assert!(!wild("users*", "all_users"));
        assert!(wild("*a*b*", "xxaYYbzz"));
        assert!(!wild("*a*b*", "xxbYYa"));
        assert!(wild(r"a\*b", "a*b"));
        assert!(!wild(r"a\*b", "axxb"));
        assert!(wild(r"a\\*", r"a\anything"));
        assert!(wild(r"a\b", r"a\b"));
        assert!(wild("", ""));
        assert!(!wild("", "x"));
        assert!(wild("*", ""));
    }
}
