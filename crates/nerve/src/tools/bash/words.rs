//! One shell word after quote removal, and the pure text rules that produce it.
//!
//! The walker decides which parts of a word are literal and which are expansions; this file only knows
//! how bash removes backslashes and quotes from the literal parts.

/// A word as bash would pass it to a program, as far as it can be known before running anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Word {
    /// Literal parts after quote removal; expansions are kept as their source text (`$HOME`).
    pub text: String,
    /// Some part is only known at run time (`$VAR`, `$(..)`, `<(..)`).
    pub dynamic: bool,
    /// Some unquoted part would be glob- or brace-expanded, so the word may become other words
    /// (a file named `-delete` turns `find . *` into `find . -delete`).
    pub expands: bool,
}

impl Word {
    /// A word that is exactly this literal text.
    pub(crate) fn literal(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            dynamic: false,
            expands: false,
        }
    }

    /// True when the word is known before running and stays one word.
    pub(crate) fn is_plain(&self) -> bool {
        !self.dynamic && !self.expands
    }

    /// Appends another part of the same word (parts of a concatenation like `r''m`).
    pub(crate) fn push(&mut self, other: &Word) {
        self.text.push_str(&other.text);
        self.dynamic |= other.dynamic;
        self.expands |= other.expands;
    }
}

/// Removes backslashes from unquoted text and reports whether an unescaped glob or brace character
/// remains (which makes bash expand the word).
pub(crate) fn unquote_bare(raw: &str) -> Word {
    let mut text = String::with_capacity(raw.len());
    let mut glob = false;
    // Brace expansion needs `{`, `}` and a `,` or `..` between them (`{}` alone stays literal, as in
    // `find -exec`); tracking the three unescaped over-approximates, which is the safe side.
    let (mut open, mut close, mut list) = (false, false, false);
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                // A backslash-newline is a line continuation: both vanish.
                Some('\n') | None => {}
                Some(next) => text.push(next),
            },
            '*' | '?' | '[' => {
                glob = true;
                text.push(c);
            }
            '{' => {
                open = true;
                text.push(c);
            }
            '}' => {
                close = open;
                text.push(c);
            }
            ',' => {
                list |= open;
                text.push(c);
            }
            '.' if open && chars.peek() == Some(&'.') => {
                list = true;
                text.push(c);
            }
            _ => text.push(c),
        }
    }
    Word {
        text,
        dynamic: false,
        expands: glob || (open && close && list),
    }
}

/// True when unquoted or double-quoted source text still holds an unescaped substitution start
/// (`` ` ``, `$(`, `${`, `$[`). The parser should have turned those into nodes; text that still has
/// them was mis-parsed (tree-sitter-bash leaves backticks in heredoc bodies as plain content), so the
/// caller fails closed.
pub(crate) fn has_unparsed_substitution(raw: &str) -> bool {
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                chars.next();
            }
            '`' => return true,
            '$' if matches!(chars.peek(), Some('(' | '{' | '[')) => return true,
            _ => {}
        }
    }
    false
}

/// Removes the backslashes that are special inside double quotes (`\$ \` \" \\` and backslash-newline);
/// any other backslash stays, as bash keeps it.
pub(crate) fn unquote_double(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('\n') => {
                chars.next();
            }
            Some(next @ ('$' | '`' | '"' | '\\')) => {
                chars.next();
                out.push(next);
            }
            Some(_) | None => out.push('\\'),
        }
    }
    out
}

/// Decodes the body of an ANSI-C string `$'...'` (without `$'` and `'`). Returns `None` for escapes this
/// decoder does not model (`\c`), so the caller can fail closed instead of guessing the program name.
pub(crate) fn decode_ansi_c(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let chars: Vec<char> = body.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        i += 1;
        if c != '\\' {
            out.push(c);
            continue;
        }
        let esc = *chars.get(i)?;
        i += 1;
        match esc {
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'v' => out.push('\u{b}'),
            '\\' | '\'' | '"' | '?' => out.push(esc),
            'x' => {
                let (value, used) = take_digits(&chars[i..], 16, 2);
                if used == 0 {
                    return None;
                }
                i += used;
                out.push(char::from_u32(value)?);
            }
            'u' | 'U' => {
                let max = if esc == 'u' { 4 } else { 8 };
                let (value, used) = take_digits(&chars[i..], 16, max);
                if used == 0 {
                    return None;
                }
                i += used;
                out.push(char::from_u32(value)?);
            }
            '0'..='7' => {
                let (value, used) = take_digits(&chars[i - 1..], 8, 3);
                i += used - 1;
                out.push(char::from_u32(value)?);
            }
            // `\cX` (control characters) and unknown escapes: not modelled, fail closed.
            _ => return None,
        }
    }
    Some(out)
}

/// Reads up to `max` digits of `radix` from the front of `chars`; returns the value and how many were used.
fn take_digits(chars: &[char], radix: u32, max: usize) -> (u32, usize) {
    let mut value: u32 = 0;
    let mut used = 0;
    for c in chars.iter().take(max) {
        let Some(d) = c.to_digit(radix) else { break };
        value = value.saturating_mul(radix).saturating_add(d);
        used += 1;
    }
    (value, used)
}

/// Directories whose programs are the system's own; a program named by any other path (`./ls`,
/// `~/bin/cat`, `/tmp/x/git`) is an arbitrary file, whatever its basename says.
const SYSTEM_DIRS: &[&str] = &[
    "/bin",
    "/usr/bin",
    "/usr/local/bin",
    "/sbin",
    "/usr/sbin",
    "/usr/local/sbin",
    "/opt/homebrew/bin",
];

/// True when `program` is looked up in `PATH` (a bare name) or lies directly in a system directory,
/// so its basename says which program runs.
pub(crate) fn is_system_program(program: &str) -> bool {
    match program.rsplit_once('/') {
        None => true,
        Some((dir, name)) => !name.is_empty() && SYSTEM_DIRS.contains(&dir),
    }
}

/// The last path component of a program name (`/bin/rm` -> `rm`), used for deny-rule matching.
pub(crate) fn basename(program: &str) -> &str {
    match program.rsplit_once('/') {
        Some((_, "")) | None => program,
        Some((_, name)) => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn bare_backslashes_are_removed_and_globs_noticed() {
        assert_eq!(unquote_bare(r"\rm"), Word::literal("rm"));
        assert_eq!(unquote_bare("a\\\nb").text, "ab");
        assert!(unquote_bare("*.rs").expands);
        assert!(unquote_bare("{a,b}").expands);
        assert!(unquote_bare("x{1..3}").expands);
        assert!(!unquote_bare("{}").expands);
        assert!(!unquote_bare(r"\*").expands);
    }

    #[test]
    fn unparsed_substitutions_are_noticed() {
        assert!(has_unparsed_substitution("a `rm x`"));
        assert!(has_unparsed_substitution("$(rm x)"));
        assert!(!has_unparsed_substitution(r"\`x\` \$(y) $HOME"));
    }

    #[test]
    fn double_quote_escapes_follow_bash() {
        assert_eq!(unquote_double(r#"\$x \"q\" \\ \a"#), r#"$x "q" \ \a"#);
    }

    #[test]
    fn ansi_c_strings_decode_or_refuse() {
        assert_eq!(decode_ansi_c(r"\x72\x6d").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"\162m").as_deref(), Some("rm"));
        assert_eq!(decode_ansi_c(r"a\nb\u0041").as_deref(), Some("a\nbA"));
        assert_eq!(decode_ansi_c(r"\ca"), None);
        assert_eq!(decode_ansi_c(r"\x"), None);
        assert_eq!(decode_ansi_c("trailing\\"), None);
    }

    #[test]
    fn only_system_paths_are_trusted() {
        assert!(is_system_program("ls"));
        assert!(is_system_program("/usr/bin/git"));
        assert!(!is_system_program("./ls"));
        assert!(!is_system_program("~/bin/ls"));
        assert!(!is_system_program("/tmp/bin/ls"));
        assert!(!is_system_program("/usr/bin/"));
    }

    #[test]
    fn basename_keeps_odd_names() {
        assert_eq!(basename("/bin/rm"), "rm");
        assert_eq!(basename("rm"), "rm");
        assert_eq!(basename("dir/"), "dir/");
    }
}
