//! Whether an `awk` command only reads and prints: only `-F` and `-v` options, a program given on
//! the command line (no `-f` file), and a program with no `system()`, no `|` (to or from a command),
//! no `>`/`>>` after `print`/`printf`, no `@` (gawk's `@load`, `@include`, indirect calls) and no
//! use of `ARGV`/`ARGC` (which changes the files awk reads). `getline < "FILE"` reads FILE, which
//! becomes a read target; `getline` from any other expression is refused.
//!
//! The scan is lexical and leans to refusing: a `/` is a regex only where it cannot be a division,
//! so a misread regex is scanned as code (and its `|` refuses), never the other way round.

use crate::tools::bash::reasons::ArgRefusal;

/// What an awk command line was found to do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct AwkUse {
    /// Files its program reads with `getline < "FILE"`.
    pub reads: Vec<String>,
    /// Why it is not read-only, if it is not.
    pub refusal: Option<ArgRefusal>,
}

/// Looks at an awk command's arguments (after the program name).
pub(crate) fn awk_use(args: &[String]) -> AwkUse {
    let mut found = AwkUse::default();
    let refuse = |found: &mut AwkUse, why: String| {
        found
            .refusal
            .get_or_insert(ArgRefusal::Script { program: "awk", why });
    };
    let mut iter = args.iter();
    let mut program = None;
    while let Some(arg) = iter.next() {
        if arg == "--" {
            program = iter.next();
            break;
        }
        if arg == "-" || !arg.starts_with('-') {
            program = Some(arg);
            break;
        }
        let value_inline = |flag: &str| arg.strip_prefix(flag).filter(|v| !v.is_empty());
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            let known = ["field-separator", "assign"]
                .iter()
                .any(|o| !name.is_empty() && o.starts_with(name));
            if !known {
                refuse(&mut found, format!("option `{arg}` is not known to only print"));
            } else if !long.contains('=') {
                iter.next();
            }
            continue;
        }
        if value_inline("-F").is_some() || value_inline("-v").is_some() {
            continue;
        }
        if arg == "-F" || arg == "-v" {
            iter.next();
            continue;
        }
        let why = if arg.starts_with("-f") || arg.starts_with("--f") {
            format!("`{arg}` reads its program from a file")
        } else {
            format!("option `{arg}` is not known to only print")
        };
        refuse(&mut found, why);
    }
    let Some(program) = program else {
        if found.refusal.is_none() {
            refuse(&mut found, "no program was given".into());
        }
        return found;
    };
    let scanned = scan(program);
    found.reads = scanned.reads;
    if let Some(why) = scanned.refusal {
        refuse(&mut found, why);
    }
    found
}

#[derive(Debug, Default)]
struct Scanned {
    reads: Vec<String>,
    refusal: Option<String>,
}

/// Scans a program's text.
fn scan(program: &str) -> Scanned {
    let mut out = Scanned::default();
    if let Err(why) = scan_into(program, &mut out) {
        out.refusal.get_or_insert(why);
    }
    out
}

fn scan_into(program: &str, out: &mut Scanned) -> Result<(), String> {
    let chars: Vec<char> = program.chars().collect();
    let mut pos = 0;
    // Whether the last token ends an operand (then `/` divides) or not (then `/` starts a regex).
    let mut after_operand = false;
    let mut depth = 0usize;
    // The parenthesis depth at which the current `print`/`printf` statement started.
    let mut print_depth: Option<usize> = None;
    while let Some(&c) = chars.get(pos) {
        pos += 1;
        match c {
            ' ' | '\t' | '\r' => {}
            '\\' if chars.get(pos) == Some(&'\n') => pos += 1,
            '\n' | ';' | '{' | '}' => {
                if c != '\n' || depth == 0 {
                    print_depth = None;
                    after_operand = false;
                }
            }
            '#' => {
                while chars.get(pos).is_some_and(|&c| c != '\n') {
                    pos += 1;
                }
            }
            '"' => {
                string_end(&chars, &mut pos)?;
                after_operand = true;
            }
            '/' if !after_operand => {
                regex_end(&chars, &mut pos)?;
                after_operand = true;
            }
            '|' if chars.get(pos) == Some(&'|') => {
                pos += 1;
                after_operand = false;
            }
            '|' => return Err("`|` runs a command".into()),
            '>' if print_depth.is_some_and(|d| depth <= d) => {
                return Err("`print` or `printf` with `>` writes a file".into());
            }
            '@' => return Err("`@` (gawk's @load, @include or an indirect call) is not modelled".into()),
            '(' | '[' => {
                depth += usize::from(c == '(');
                after_operand = false;
            }
            ')' | ']' => {
                depth = depth.saturating_sub(usize::from(c == ')'));
                after_operand = true;
            }
            c if c.is_ascii_alphabetic() || c == '_' => {
                let start = pos - 1;
                while chars
                    .get(pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
                {
                    pos += 1;
                }
                let word: String = chars[start..pos].iter().collect();
                after_operand = true;
                match word.as_str() {
                    "system" => return Err("`system()` runs a command".into()),
                    "ARGV" | "ARGC" => return Err(format!("`{word}` can change the files awk reads")),
                    "print" | "printf" => {
                        print_depth = Some(depth);
                        after_operand = false;
                    }
                    "getline" => getline_source(&chars, &mut pos, out)?,
                    "in" | "return" | "case" | "do" | "else" => after_operand = false,
                    _ => {}
                }
            }
            c if c.is_ascii_digit() || c == '.' => {
                while chars
                    .get(pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '.')
                {
                    pos += 1;
                }
                after_operand = true;
            }
            _ => after_operand = false,
        }
    }
    Ok(())
}

/// After `getline [var]`: `< "FILE"` reads FILE; `<` with anything else is refused.
fn getline_source(chars: &[char], pos: &mut usize, out: &mut Scanned) -> Result<(), String> {
    let skip_blanks = |pos: &mut usize| {
        while chars.get(*pos).is_some_and(|c| *c == ' ' || *c == '\t') {
            *pos += 1;
        }
    };
    let mut look = *pos;
    skip_blanks(&mut look);
    // An optional variable (or field) to read into.
    if chars.get(look) == Some(&'$') {
        look += 1;
    }
    while chars
        .get(look)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        look += 1;
    }
    skip_blanks(&mut look);
    if chars.get(look) != Some(&'<') {
        return Ok(());
    }
    look += 1;
    skip_blanks(&mut look);
    if chars.get(look) != Some(&'"') {
        return Err("`getline <` from an expression reads a file only known at run time".into());
    }
    let start = look + 1;
    look = start;
    string_end(chars, &mut look)?;
    let file: String = chars[start..look - 1].iter().collect();
    if file.contains('\\') {
        return Err("`getline <` from a file name with escapes".into());
    }
    out.reads.push(file);
    *pos = look;
    Ok(())
}

/// Moves past a string whose opening `"` was consumed.
fn string_end(chars: &[char], pos: &mut usize) -> Result<(), String> {
    while let Some(&c) = chars.get(*pos) {
        *pos += 1;
        match c {
            '\\' => *pos += 1,
            '"' => return Ok(()),
            '\n' => return Err("a newline inside a string".into()),
            _ => {}
        }
    }
    Err("an unterminated string".into())
}

/// Moves past a regex whose opening `/` was consumed. A bracket expression holding `/` is refused:
/// awks differ on whether it ends the regex.
fn regex_end(chars: &[char], pos: &mut usize) -> Result<(), String> {
    let mut in_bracket = false;
    while let Some(&c) = chars.get(*pos) {
        *pos += 1;
        match c {
            '\\' => *pos += 1,
            '[' => in_bracket = true,
            ']' => in_bracket = false,
            '/' if in_bracket => return Err("`/` inside a bracket expression of a regex is ambiguous".into()),
            '/' => return Ok(()),
            '\n' => return Err("a newline inside a regex".into()),
            _ => {}
        }
    }
    Err("an unterminated regex".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn awk(words: &[&str]) -> AwkUse {
        awk_use(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn printing_programs_are_read_only() {
        for words in [
            &["{print $1}", "a.txt"][..],
            &["-F:", "{print $1, $NF}", "/p/a"],
            &["-F", ",", "-v", "x=1", "NR > 1 && $2 > x {print}", "a"],
            &["/a|b/ {n++} END {print n}", "a"],
            &["{ s += $1 } END { printf \"%d\\n\", s / NR }", "a"],
            &["{print ($1 > 2)}", "a"],
            &["$1 == \"a|b>c\" || /x/ {print}", "a"],
            &["BEGIN { while ((getline line < \"conf.txt\") > 0) n++; print n }"],
            &["{ getline; print }", "a"],
            &["--field-separator=: {print $1}", "a"],
            &["length($0) > 72", "a"],
        ] {
            assert_eq!(awk(words).refusal, None, "{words:?}");
        }
    }

    #[test]
    fn writing_running_and_unknown_programs_are_not() {
        for words in [
            &["{system(\"rm x\")}", "a"][..],
            &["{print > \"out\"}", "a"],
            &["{print $1 >> \"out\"}", "a"],
            &["{printf \"%s\", $1 > \"/dev/stderr\"}", "a"],
            &["{print | \"sh\"}", "a"],
            &["{print |& \"sh\"}", "a"],
            &["BEGIN {\"id\" | getline x; print x}"],
            &["BEGIN {getline x < f; print x}"],
            &["BEGIN {ARGV[1]=\"/etc/passwd\"; ARGC=2} {print}", "a"],
            &["@load \"filefuncs\"; {print}", "a"],
            &["-f", "prog.awk", "a"],
            &["-fprog.awk", "a"],
            &["--file=prog.awk", "a"],
            &["-i", "inplace", "{print}", "a"],
            &["-E", "prog.awk", "a"],
            &["x / 2 | \"sh\"", "a"],
            &["/[/]/ {print}", "a"],
            &[],
        ] {
            assert!(awk(words).refusal.is_some(), "{words:?}");
        }
    }

    #[test]
    fn getline_from_a_literal_file_is_a_read() {
        assert_eq!(
            awk(&["BEGIN { getline line < \"/etc/passwd\"; print line }"]).reads,
            ["/etc/passwd"]
        );
    }
}
