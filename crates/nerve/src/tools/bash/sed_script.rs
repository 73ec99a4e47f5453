//! Whether a `sed` command only reads and prints: its options (no `-i`, no `-f` script file) and
//! every command of its script (no `w`/`W`, no `e`, no `s///w` or `s///e`). `r FILE` and `R FILE`
//! read FILE, which becomes a read target like an operand.
//!
//! The script is parsed the way GNU sed reads it; anything this parser does not know (a command
//! letter, a flag, text after a command) makes the command not read-only, so an unknown form can
//! only ask.

use crate::tools::bash::options::is_long;
use crate::tools::bash::reasons::ArgRefusal;

/// What a sed command line was found to do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct SedUse {
    /// Files its script reads (`r FILE`, `R FILE`).
    pub reads: Vec<String>,
    /// Why it is not read-only, if it is not.
    pub refusal: Option<ArgRefusal>,
}

/// Long options that only change how sed reads or prints (`line-length` takes a value).
const PRINTING_LONG: &[&str] = &[
    "quiet",
    "silent",
    "regexp-extended",
    "separate",
    "unbuffered",
    "null-data",
    "zero-terminated",
    "line-length",
    "posix",
    "debug",
    "sandbox",
    "binary",
];

/// Short options that only change how sed reads or prints.
const PRINTING_SHORT: &str = "nErsuzb";

/// Looks at a `sed` command's arguments (after the program name).
pub(crate) fn sed_use(args: &[String]) -> SedUse {
    let mut found = SedUse::default();
    let refuse = |found: &mut SedUse, why: String| {
        found
            .refusal
            .get_or_insert(ArgRefusal::Script { program: "sed", why });
    };
    let mut scripts: Vec<&str> = Vec::new();
    let mut operands: Vec<&str> = Vec::new();
    let mut iter = args.iter();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        if options_done || arg == "-" || !arg.starts_with('-') {
            operands.push(arg);
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if arg.starts_with("--") {
            let attached = arg.split_once('=').map(|(_, v)| v);
            if is_long(arg, "in-place", &[]) {
                refuse(&mut found, format!("`{arg}` edits the files in place"));
            } else if is_long(arg, "file", &[]) {
                refuse(&mut found, format!("`{arg}` reads its script from a file"));
                if attached.is_none() {
                    iter.next();
                }
            } else if is_long(arg, "expression", &[]) {
                match attached.or_else(|| iter.next().map(String::as_str)) {
                    Some(script) => scripts.push(script),
                    None => refuse(&mut found, "`--expression` without a script".into()),
                }
            } else if PRINTING_LONG.iter().any(|o| is_long(arg, o, &[])) {
                if is_long(arg, "line-length", &[]) && attached.is_none() {
                    iter.next();
                }
            } else {
                refuse(&mut found, format!("option `{arg}` is not known to only print"));
            }
            continue;
        }
        let cluster = &arg[1..];
        for (at, letter) in cluster.char_indices() {
            let rest = &cluster[at + letter.len_utf8()..];
            match letter {
                'i' => {
                    refuse(&mut found, format!("`{arg}` edits the files in place"));
                    break;
                }
                'f' => {
                    refuse(&mut found, format!("`{arg}` reads its script from a file"));
                    if rest.is_empty() {
                        iter.next();
                    }
                    break;
                }
                'e' => {
                    match Some(rest)
                        .filter(|r| !r.is_empty())
                        .or_else(|| iter.next().map(String::as_str))
                    {
                        Some(script) => scripts.push(script),
                        None => refuse(&mut found, "`-e` without a script".into()),
                    }
                    break;
                }
                'l' => {
                    if rest.is_empty() {
                        iter.next();
                    }
                    break;
                }
                c if PRINTING_SHORT.contains(c) => {}
                c => {
                    refuse(&mut found, format!("option `-{c}` is not known to only print"));
                    break;
                }
            }
        }
    }
    if scripts.is_empty() {
        match operands.first() {
            Some(script) => scripts.push(script),
            None if found.refusal.is_none() => refuse(&mut found, "no script was given".into()),
            None => {}
        }
    }
    // GNU sed joins `-e` scripts with newlines.
    let script = scripts.join("\n");
    let parsed = parse_script(&script);
    found.reads = parsed.reads;
    if let Some(why) = parsed.refusal {
        refuse(&mut found, why);
    }
    found
}

/// A parsed script: the files it reads and, if it does more than read and print, why.
#[derive(Debug, Default)]
struct Parsed {
    reads: Vec<String>,
    refusal: Option<String>,
}

struct Parser<'a> {
    chars: Vec<char>,
    pos: usize,
    out: &'a mut Parsed,
}

/// Parses a whole sed script. Parsing stops at the first form it does not know; commands that
/// write or run something are noted and parsing goes on, so later `r` files are still found.
fn parse_script(script: &str) -> Parsed {
    let mut out = Parsed::default();
    let mut parser = Parser {
        chars: script.chars().collect(),
        pos: 0,
        out: &mut out,
    };
    if let Err(why) = parser.commands() {
        parser.refuse(why);
    }
    out
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek();
        self.pos += 1;
        c
    }

    fn refuse(&mut self, why: String) {
        self.out.refusal.get_or_insert(why);
    }

    fn skip_blanks(&mut self) {
        while self.peek().is_some_and(|c| c == ' ' || c == '\t') {
            self.pos += 1;
        }
    }

    /// The rest of the line (a filename, a label, `a` text), with `\`-newline continuing it.
    fn rest_of_line(&mut self, continues: bool) -> String {
        let mut text = String::new();
        while let Some(c) = self.bump() {
            match c {
                '\n' => break,
                '\\' if continues => {
                    if let Some(next) = self.bump() {
                        text.push(next);
                    }
                }
                c => text.push(c),
            }
        }
        text
    }

    fn commands(&mut self) -> Result<(), String> {
        let mut depth = 0usize;
        loop {
            while self.peek().is_some_and(|c| c.is_whitespace() || c == ';') {
                self.pos += 1;
            }
            let Some(c) = self.peek() else {
                break;
            };
            if c == '#' {
                self.rest_of_line(false);
                continue;
            }
            if c == '}' {
                self.pos += 1;
                depth = depth.checked_sub(1).ok_or("an unmatched `}`")?;
                continue;
            }
            self.addresses()?;
            self.skip_blanks();
            while self.peek() == Some('!') {
                self.pos += 1;
                self.skip_blanks();
            }
            let command = self.bump().ok_or("an address without a command")?;
            match command {
                '{' => {
                    depth += 1;
                    continue;
                }
                '=' | 'd' | 'D' | 'g' | 'G' | 'h' | 'H' | 'n' | 'N' | 'p' | 'P' | 'x' | 'z' | 'F' => {}
                'l' | 'L' | 'q' | 'Q' => {
                    self.skip_blanks();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.pos += 1;
                    }
                }
                // Labels and `v` end at a newline or a semicolon.
                ':' | 'b' | 't' | 'T' | 'v' => {
                    while self.peek().is_some_and(|c| c != '\n' && c != ';') {
                        self.pos += 1;
                    }
                }
                'a' | 'i' | 'c' => {
                    self.rest_of_line(true);
                    continue;
                }
                'r' | 'R' => {
                    self.skip_blanks();
                    let file = self.rest_of_line(false);
                    self.out.reads.push(file);
                    continue;
                }
                'w' | 'W' => {
                    self.rest_of_line(false);
                    self.refuse(format!("script command `{command}` writes a file"));
                    continue;
                }
                'e' => {
                    self.rest_of_line(false);
                    self.refuse("script command `e` runs a command".into());
                    continue;
                }
                's' => {
                    let delim = self.delimiter()?;
                    self.regex(delim)?;
                    self.text_until(delim)?;
                    if self.substitute_flags()? {
                        continue;
                    }
                }
                'y' => {
                    let delim = self.delimiter()?;
                    self.text_until(delim)?;
                    self.text_until(delim)?;
                }
                other => return Err(format!("script command `{other}` is not known to only print")),
            }
            self.skip_blanks();
            match self.peek() {
                None | Some(';' | '\n' | '}' | '#') => {}
                Some(other) => return Err(format!("`{other}` after a script command is not understood")),
            }
        }
        Ok(())
    }

    /// Zero, one or two addresses (`3`, `$`, `/re/I`, `\%re%`, `1~2`, `0,/re/`, `/a/,+3`).
    fn addresses(&mut self) -> Result<(), String> {
        if !self.address()? {
            return Ok(());
        }
        self.skip_blanks();
        if self.peek() == Some(',') {
            self.pos += 1;
            self.skip_blanks();
            if matches!(self.peek(), Some('+' | '~')) {
                self.pos += 1;
            }
            if !self.address()? {
                return Err("a `,` without a second address".into());
            }
        }
        Ok(())
    }

    fn address(&mut self) -> Result<bool, String> {
        match self.peek() {
            Some(c) if c.is_ascii_digit() => {
                while self.peek().is_some_and(|c| c.is_ascii_digit() || c == '~') {
                    self.pos += 1;
                }
            }
            Some('$') => self.pos += 1,
            Some('/') => {
                self.pos += 1;
                self.regex('/')?;
                self.address_flags();
            }
            Some('\\') => {
                self.pos += 1;
                let delim = self.bump().ok_or("`\\` without a delimiter")?;
                self.regex(delim)?;
                self.address_flags();
            }
            _ => return Ok(false),
        }
        Ok(true)
    }

    fn address_flags(&mut self) {
        while matches!(self.peek(), Some('I' | 'M')) {
            self.pos += 1;
        }
    }

    fn delimiter(&mut self) -> Result<char, String> {
        match self.bump() {
            Some(c) if c != '\n' && c != '\\' => Ok(c),
            _ => Err("a missing or invalid delimiter".into()),
        }
    }

    /// A regex up to `delim`. A bracket expression holding the delimiter is refused: whether it
    /// ends the regex there differs between seds, and guessing wrong could hide a `w` flag.
    fn regex(&mut self, delim: char) -> Result<(), String> {
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump().ok_or("a regex ends in `\\`")?;
                }
                '[' => {
                    let mut end = self.pos;
                    if self.chars.get(end) == Some(&'^') {
                        end += 1;
                    }
                    if self.chars.get(end) == Some(&']') {
                        end += 1;
                    }
                    while let Some(&c) = self.chars.get(end) {
                        if c == ']' {
                            break;
                        }
                        if c == delim {
                            return Err(format!(
                                "the delimiter `{delim}` inside a bracket expression is ambiguous"
                            ));
                        }
                        end += 1;
                    }
                }
                c if c == delim => return Ok(()),
                '\n' if delim != '\n' => return Err("a newline inside a regex".into()),
                _ => {}
            }
        }
        Err("an unterminated regex".into())
    }

    /// Replacement or `y` text up to `delim`; `\` escapes the next character (a newline too).
    fn text_until(&mut self, delim: char) -> Result<(), String> {
        while let Some(c) = self.bump() {
            match c {
                '\\' => {
                    self.bump().ok_or("text ends in `\\`")?;
                }
                c if c == delim => return Ok(()),
                '\n' => return Err("a newline inside `s` or `y` text".into()),
                _ => {}
            }
        }
        Err("an unterminated `s` or `y` command".into())
    }

    /// The flags of `s///`. True when a `w` flag consumed the rest of the line.
    fn substitute_flags(&mut self) -> Result<bool, String> {
        while let Some(c) = self.peek() {
            match c {
                'g' | 'p' | 'i' | 'I' | 'm' | 'M' => self.pos += 1,
                c if c.is_ascii_digit() => self.pos += 1,
                'e' => {
                    self.pos += 1;
                    self.refuse("the `e` flag of `s` runs the result as a command".into());
                }
                'w' => {
                    self.pos += 1;
                    self.rest_of_line(false);
                    self.refuse("the `w` flag of `s` writes a file".into());
                    return Ok(true);
                }
                _ => break,
            }
        }
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn args(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    #[test]
    fn printing_scripts_are_read_only() {
        for words in [
            &["-n", "1,5p", "a.txt"][..],
            &["s/a/b/", "a.txt"],
            &["-E", "s/(a)/\\1/g;s|x|y|2", "a"],
            &["-n", "/start/,/end/{p;=}", "a"],
            &["-e", "1d", "-e", "$!N", "a"],
            &["--quiet", "--expression=\\%x%Ip", "a"],
            &["y/abc/xyz/", "a"],
            &[":a;N;$!ba;s/\\n/ /g", "a"],
            &["1i\\\nheader", "a"],
            &["a hello; w out", "a"],
            &["-n", "l 40", "a"],
            &["0~3q5", "a"],
            &["-s", "-u", "--line-length", "9", "F", "a"],
            &["s/x/y/w /dev/stdout", "a"],
        ] {
            let found = sed_use(&args(words));
            if words[0] == "s/x/y/w /dev/stdout" {
                assert!(found.refusal.is_some(), "{words:?}");
            } else {
                assert_eq!(found.refusal, None, "{words:?}");
            }
        }
    }

    #[test]
    fn writing_running_and_unknown_scripts_are_not() {
        for words in [
            &["-i", "s/a/b/", "a"][..],
            &["-i.bak", "s/a/b/", "a"],
            &["-ni", "p", "a"],
            &["--in-place=.b", "p", "a"],
            &["--in-pl", "p", "a"],
            &["-f", "script.sed", "a"],
            &["--file=script.sed", "a"],
            &["w out", "a"],
            &["1W out", "a"],
            &["s/a/b/w out", "a"],
            &["s/a/b/gw out", "a"],
            &["s/a/b/e", "a"],
            &["e ls", "a"],
            &["1e", "a"],
            &["p;w out", "a"],
            &["/x/{\nw out\n}", "a"],
            &["s,[,],x,w out", "a"],
            // GNU sed reads `[/]` as a bracket; other seds may not: refused rather than guessed.
            &["s/[/]/x/", "a"],
            &["s/a/b/;x w o", "a"],
            &["k", "a"],
            &["--follow-symlinks", "p", "a"],
        ] {
            assert!(sed_use(&args(words)).refusal.is_some(), "{words:?}");
        }
    }

    #[test]
    fn read_commands_name_their_files() {
        assert_eq!(sed_use(&args(&["r /etc/passwd", "a"])).reads, ["/etc/passwd"]);
        assert_eq!(sed_use(&args(&["1R notes.txt", "a"])).reads, ["notes.txt"]);
        assert_eq!(
            sed_use(&args(&["-e", "1r x", "-e", "w o"])).reads,
            ["x"],
            "reads are found even when the script also writes"
        );
    }
}
