//! Commands that only create, change or remove the files their operands name (`touch`, `mkdir`,
//! `mv`, `cp`): in acceptEdits mode they are file edits like Edit and Write, allowed inside the working
//! directories (and never for protected paths), as Claude Code allows them.
//!
//! Each command's options are listed; an unknown option, a glob or an operand known only at run time
//! makes the command an ordinary one that asks.

/// What a file-editing command touches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FileEdit {
    /// Paths created, changed or removed, as written.
    pub edits: Vec<String>,
    /// Paths only read (`cp`'s sources, `touch -r`'s reference), as written.
    pub reads: Vec<String>,
    /// Whether the reads descend into folders (`cp -r`).
    pub recursive_reads: bool,
}

/// One command's option grammar.
struct Options {
    /// Short flags without a value.
    flags: &'static str,
    /// Short options with a value.
    values: &'static str,
    /// Long options without a value (`--x=y` forms of optional values are accepted too).
    long_flags: &'static [&'static str],
    /// Long options with a value.
    long_values: &'static [&'static str],
}

const TOUCH: Options = Options {
    flags: "acfhm",
    values: "drt",
    long_flags: &["no-create", "no-dereference"],
    long_values: &["date", "reference", "time"],
};

const MKDIR: Options = Options {
    flags: "pv",
    values: "m",
    long_flags: &["parents", "verbose"],
    long_values: &["mode"],
};

const MV: Options = Options {
    flags: "bfinuvT",
    values: "St",
    long_flags: &[
        "backup",
        "force",
        "interactive",
        "no-clobber",
        "update",
        "verbose",
        "no-target-directory",
        "strip-trailing-slashes",
        "no-copy",
    ],
    long_values: &["suffix", "target-directory"],
};

const CP: Options = Options {
    flags: "abdfHilLnPprRsuvxT",
    values: "St",
    long_flags: &[
        "archive",
        "attributes-only",
        "backup",
        "force",
        "interactive",
        "link",
        "dereference",
        "no-clobber",
        "no-dereference",
        "preserve",
        "parents",
        "recursive",
        "reflink",
        "remove-destination",
        "strip-trailing-slashes",
        "symbolic-link",
        "update",
        "verbose",
        "one-file-system",
        "no-target-directory",
        "debug",
    ],
    long_values: &["suffix", "target-directory", "no-preserve", "sparse"],
};

/// Parsed operands and options.
struct Parsed {
    operands: Vec<String>,
    /// `(letter or long name, value)` of options that took a value.
    values: Vec<(String, String)>,
    /// Short flags and long flag names seen.
    flags: Vec<String>,
}

fn parse(args: &[String], options: &Options) -> Option<Parsed> {
    let mut parsed = Parsed {
        operands: Vec::new(),
        values: Vec::new(),
        flags: Vec::new(),
    };
    let mut iter = args.iter();
    let mut only_operands = false;
    while let Some(arg) = iter.next() {
        if only_operands || arg == "-" || !arg.starts_with('-') {
            parsed.operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value.to_string())),
                None => (long, None),
            };
            if options.long_values.contains(&name) {
                let value = attached.or_else(|| iter.next().cloned())?;
                parsed.values.push((name.to_string(), value));
            } else if options.long_flags.contains(&name) {
                parsed.flags.push(name.to_string());
            } else {
                return None;
            }
            continue;
        }
        let cluster = &arg[1..];
        for (at, letter) in cluster.char_indices() {
            if options.values.contains(letter) {
                let rest = &cluster[at + 1..];
                let value = if rest.is_empty() {
                    iter.next().cloned()?
                } else {
                    rest.to_string()
                };
                parsed.values.push((letter.to_string(), value));
                break;
            }
            if !options.flags.contains(letter) {
                return None;
            }
            parsed.flags.push(letter.to_string());
        }
    }
    Some(parsed)
}

/// Whether a word names a path known before the command runs.
fn is_literal_path(word: &str) -> bool {
    !word.is_empty() && !word.contains(['$', '`', '*', '?', '[', '{']) && !word.starts_with('~')
}

/// The files a file-editing command touches, or `None` when `program` is not one or its words are
/// not all understood.
pub(crate) fn file_edit(program: &str, args: &[String]) -> Option<FileEdit> {
    let (options, copies) = match program {
        "touch" => (&TOUCH, false),
        "mkdir" => (&MKDIR, false),
        "mv" => (&MV, false),
        "cp" => (&CP, true),
        _ => return None,
    };
    let parsed = parse(args, options)?;
    if parsed.operands.is_empty() || !parsed.operands.iter().all(|o| is_literal_path(o)) {
        return None;
    }
    let value_of = |names: &[&str]| {
        parsed
            .values
            .iter()
            .find(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, v)| v.clone())
    };
    match program {
        "touch" => {
            let reads: Vec<String> = value_of(&["r", "reference"]).into_iter().collect();
            if !reads.iter().all(|r| is_literal_path(r)) {
                return None;
            }
            Some(FileEdit {
                edits: parsed.operands,
                reads,
                recursive_reads: false,
            })
        }
        "mkdir" => Some(FileEdit {
            edits: parsed.operands,
            reads: Vec::new(),
            recursive_reads: false,
        }),
        _ => {
            // mv/cp SOURCE... DEST, or -t DEST SOURCE...
            let (sources, dest) = match value_of(&["t", "target-directory"]) {
                Some(dest) if is_literal_path(&dest) => (parsed.operands.clone(), dest),
                Some(_) => return None,
                None => {
                    let (dest, sources) = parsed.operands.split_last()?;
                    if sources.is_empty() {
                        return None;
                    }
                    (sources.to_vec(), dest.clone())
                }
            };
            // The destination, and what lands inside it when it is a folder.
            let mut edits = vec![dest.clone()];
            edits.extend(sources.iter().map(|s| {
                let name = s.trim_end_matches('/').rsplit('/').next().unwrap_or(s);
                format!("{}/{name}", dest.trim_end_matches('/'))
            }));
            let recursive = copies
                && parsed
                    .flags
                    .iter()
                    .any(|f| matches!(f.as_str(), "r" | "R" | "a" | "recursive" | "archive"));
            if copies {
                Some(FileEdit {
                    edits,
                    reads: sources,
                    recursive_reads: recursive,
                })
            } else {
                // A move removes its sources.
                edits.extend(sources);
                Some(FileEdit {
                    edits,
                    reads: Vec::new(),
                    recursive_reads: false,
                })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(line: &str) -> Option<FileEdit> {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        file_edit(&words[0], &words[1..])
    }

    #[test]
    fn operands_become_edits_and_reads() {
        assert_eq!(edit("touch a b").unwrap().edits, ["a", "b"]);
        assert_eq!(edit("touch -r ref -c a").unwrap().reads, ["ref"]);
        assert_eq!(edit("mkdir -p -m 755 x/y").unwrap().edits, ["x/y"]);
        let mv = edit("mv a.txt b.txt").unwrap();
        assert_eq!(mv.edits, ["b.txt", "b.txt/a.txt", "a.txt"]);
        let cp = edit("cp -r src dst/").unwrap();
        assert_eq!(cp.edits, ["dst/", "dst/src"]);
        assert_eq!(cp.reads, ["src"]);
        assert!(cp.recursive_reads);
        assert_eq!(edit("cp -t out a b").unwrap().reads, ["a", "b"]);
    }

    #[test]
    fn anything_unclear_is_not_a_file_edit() {
        for line in [
            "touch",
            "mv a",
            "touch $F",
            "cp *.txt out",
            "mv --exchange a b",
            "cp --bogus a b",
            "mkdir ~/x",
            "rm a",
            "cp -t",
        ] {
            assert_eq!(edit(line), None, "{line}");
        }
    }
}
