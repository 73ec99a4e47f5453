//! Every file a command writes, creates or removes, for the protected-path check and Edit rules:
//! `tee`, `cp`/`mv`/`install`/`ln` destinations, `sed -i`, `dd of=`, `touch`, `truncate`, `rm`,
//! `sort -o`, `curl -o` ... Unlike [`crate::tools::bash::edits`] (which decides what acceptEdits may
//! allow and wants every word understood), this reads any spelling: an option it does not know is
//! taken for a flag, and where that could hide a destination the words are over-approximated, since
//! a wrong guess here only asks about a protected path that is not really written.
//!
//! A destination known only at run time (`tee "$F"`, the last word `xargs` appends) is reported as
//! unknown: it may be a protected path, so the command asks like a redirection to `$F` does.

use crate::tools::bash::words::basename;

/// What a command writes, as written.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Written {
    /// Paths known before the command runs.
    pub known: Vec<String>,
    /// Destinations only known at run time, described for the user (`` `$F` ``).
    pub unknown: Vec<String>,
}

impl Written {
    fn add(&mut self, word: &str) {
        if is_known(word) {
            self.known.push(word.to_string());
        } else {
            self.unknown.push(format!("`{word}`"));
        }
    }

    /// A file named like `source` landing in folder `dir`.
    fn add_inside(&mut self, dir: &str, source: &str) {
        let name = source.trim_end_matches('/').rsplit('/').next().unwrap_or(source);
        let dir = dir.trim_end_matches('/');
        if !is_known(dir) || is_known(name) {
            self.add(&format!("{dir}/{name}"));
        } else if name.starts_with('.') || name.contains(['$', '`', '{']) {
            self.unknown.push(format!("`{dir}/{name}`"));
        }
        // A glob that does not start with `.` matches no dot file, and every protected name starts
        // with one: what lands is judged by the folder (`dir`, added by the caller).
    }

    /// A path removed or linked to: unknown ones are not reported (see [`written_files`]).
    fn add_if_known(&mut self, word: &str) {
        if is_known(word) {
            self.known.push(word.to_string());
        }
    }
}

/// Whether a word names a path known before the command runs (`~/x` is: it is the home folder).
fn is_known(word: &str) -> bool {
    !word.is_empty()
        && !word.contains(['$', '`', '*', '?', '[', '{'])
        && (!word.starts_with('~') || word == "~" || word.starts_with("~/"))
}

/// A command's option grammar, as far as it decides which words are values and which operands.
/// Long options whose value is optional (`--backup[=CONTROL]`) take it only after `=`, so they are
/// not listed.
struct Grammar {
    /// Short options that take a value (the rest of the cluster or the next word).
    short_values: &'static str,
    /// Long options that take a value (`--name=value` or `--name value`).
    long_values: &'static [&'static str],
}

/// Words taken apart: operands in order, and option values by name (`t`, `target-directory`).
struct Parsed<'a> {
    operands: Vec<&'a str>,
    values: Vec<(String, &'a str)>,
    flags: Vec<String>,
}

impl Parsed<'_> {
    fn value(&self, names: &[&str]) -> Option<&str> {
        self.values
            .iter()
            .rev()
            .find(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, v)| *v)
    }

    fn values(&self, names: &[&str]) -> Vec<&str> {
        self.values
            .iter()
            .filter(|(n, _)| names.contains(&n.as_str()))
            .map(|(_, v)| *v)
            .collect()
    }

    fn has(&self, names: &[&str]) -> bool {
        self.flags.iter().any(|f| names.contains(&f.as_str()))
    }
}

fn parse<'a>(args: &'a [String], grammar: &Grammar) -> Parsed<'a> {
    let mut parsed = Parsed {
        operands: Vec::new(),
        values: Vec::new(),
        flags: Vec::new(),
    };
    let mut iter = args.iter();
    let mut only_operands = false;
    while let Some(arg) = iter.next() {
        if only_operands || arg == "-" || !arg.starts_with('-') {
            parsed.operands.push(arg);
            continue;
        }
        if arg == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) => parsed.values.push((name.to_string(), value)),
                // getopt_long accepts any unambiguous prefix (`--target=x`): match prefixes too.
                None => match grammar
                    .long_values
                    .iter()
                    .find(|full| full.starts_with(long) && !long.is_empty())
                {
                    Some(full) => {
                        if let Some(value) = iter.next() {
                            parsed.values.push(((*full).to_string(), value));
                        }
                    }
                    None => parsed.flags.push(long.to_string()),
                },
            }
            continue;
        }
        let cluster = &arg[1..];
        for (at, letter) in cluster.char_indices() {
            if grammar.short_values.contains(letter) {
                let rest = &cluster[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    iter.next().map(String::as_str)
                } else {
                    Some(rest)
                };
                if let Some(value) = value {
                    parsed.values.push((letter.to_string(), value));
                }
                break;
            }
            parsed.flags.push(letter.to_string());
        }
    }
    // Long values given as `--name=value` with an abbreviated name count under the full name.
    for (name, _) in &mut parsed.values {
        if name.len() > 1
            && let Some(full) = grammar
                .long_values
                .iter()
                .find(|full| full.starts_with(name.as_str()))
        {
            *name = (*full).to_string();
        }
    }
    parsed
}

/// What the last words of a command are when `xargs` or `find -exec` supply some at run time.
const APPENDED: &str = "named by arguments supplied when the command runs";

/// The files `program` (a base name) writes with `args`, or `None` when it is not known to write
/// files by its operands. `appended` says arguments are added at run time (`xargs tee`).
pub(crate) fn written_files(program: &str, args: &[String], appended: bool) -> Option<Written> {
    let mut out = Written::default();
    let program = basename(program);
    match program {
        "tee" => {
            let p = parse(
                args,
                &Grammar {
                    short_values: "",
                    long_values: &[],
                },
            );
            p.operands.iter().for_each(|o| out.add(o));
            if appended {
                out.unknown.push(APPENDED.into());
            }
        }
        "touch" | "truncate" | "mkdir" | "rm" | "rmdir" | "unlink" | "shred" | "mkfifo" | "mknod" => {
            let grammar = match program {
                "touch" => Grammar {
                    short_values: "drt",
                    long_values: &["date", "reference", "time"],
                },
                "truncate" => Grammar {
                    short_values: "rs",
                    long_values: &["reference", "size"],
                },
                "mkdir" | "mkfifo" | "mknod" => Grammar {
                    short_values: "mZ",
                    long_values: &["mode", "context"],
                },
                "shred" => Grammar {
                    short_values: "ns",
                    long_values: &["iterations", "random-source", "size"],
                },
                _ => Grammar {
                    short_values: "",
                    long_values: &[],
                },
            };
            let p = parse(args, &grammar);
            let operands = if program == "mknod" {
                &p.operands[..p.operands.len().min(1)]
            } else {
                &p.operands[..]
            };
            // Removing files whose names are only known at run time is not a write to a protected
            // path that could run code or change permissions by itself.
            let removes = matches!(program, "rm" | "rmdir" | "unlink" | "shred");
            for operand in operands {
                if removes {
                    out.add_if_known(operand);
                } else {
                    out.add(operand);
                }
            }
            if appended && !removes {
                out.unknown.push(APPENDED.into());
            }
        }
        "cp" | "mv" | "install" | "ln" | "link" => {
            let grammar = match program {
                "cp" => Grammar {
                    short_values: "St",
                    long_values: &["suffix", "target-directory", "no-preserve", "sparse"],
                },
                "mv" => Grammar {
                    short_values: "St",
                    long_values: &["suffix", "target-directory"],
                },
                "install" => Grammar {
                    short_values: "gmoSt",
                    long_values: &[
                        "group",
                        "mode",
                        "owner",
                        "suffix",
                        "target-directory",
                        "strip-program",
                    ],
                },
                "ln" => Grammar {
                    short_values: "St",
                    long_values: &["suffix", "target-directory"],
                },
                _ => Grammar {
                    short_values: "",
                    long_values: &[],
                },
            };
            let p = parse(args, &grammar);
            copies(program, &p, appended, &mut out);
        }
        "dd" => {
            for arg in args {
                if let Some(file) = arg.strip_prefix("of=") {
                    out.add(file);
                }
            }
        }
        "sed" => {
            let p = parse(
                args,
                &Grammar {
                    short_values: "efl",
                    long_values: &["expression", "file", "line-length"],
                },
            );
            let suffix = p
                .value(&["in-place"])
                .map(str::to_string)
                .or_else(|| p.has(&["in-place"]).then(String::new))
                .or_else(|| in_place_short_suffix(args))?;
            // Without `-e` or `-f`, the first operand is the script.
            let scripted = !p.values(&["e", "expression", "f", "file"]).is_empty();
            let files = if scripted {
                &p.operands[..]
            } else {
                p.operands.get(1..).unwrap_or_default()
            };
            for file in files {
                out.add(file);
                if !suffix.is_empty() {
                    out.add(&backup_name(file, &suffix));
                }
            }
            if appended {
                out.unknown.push(APPENDED.into());
            }
        }
        "sort" => {
            let p = parse(
                args,
                &Grammar {
                    short_values: "kotST",
                    long_values: &[
                        "output",
                        "key",
                        "field-separator",
                        "temporary-directory",
                        "buffer-size",
                        "files0-from",
                        "compress-program",
                        "parallel",
                        "random-source",
                        "batch-size",
                    ],
                },
            );
            p.values(&["o", "output"]).iter().for_each(|o| out.add(o));
        }
        "curl" => {
            let p = parse(
                args,
                &Grammar {
                    short_values: "oAbcdDeEFHKmrTuUxXyYzwCPQt",
                    long_values: &[
                        "output",
                        "dump-header",
                        "cookie-jar",
                        "trace",
                        "trace-ascii",
                        "stderr",
                        "libcurl",
                        "etag-save",
                        "hsts",
                        "alt-svc",
                    ],
                },
            );
            p.values(&[
                "o",
                "output",
                "D",
                "dump-header",
                "c",
                "cookie-jar",
                "trace",
                "trace-ascii",
                "stderr",
                "libcurl",
                "etag-save",
            ])
            .iter()
            .for_each(|o| out.add(o));
            if p.has(&["O", "remote-name", "remote-name-all", "J", "remote-header-name"]) {
                out.unknown.push("the file name the server gives".into());
            }
        }
        "wget" => {
            let p = parse(
                args,
                &Grammar {
                    short_values: "OoaPe",
                    long_values: &[
                        "output-document",
                        "output-file",
                        "append-output",
                        "directory-prefix",
                    ],
                },
            );
            p.values(&["O", "output-document", "o", "output-file", "a", "append-output"])
                .iter()
                .for_each(|o| out.add(o));
            if p.value(&["O", "output-document"]).is_none() {
                out.unknown.push("the file name the server gives".into());
            }
        }
        _ => return None,
    }
    Some(out)
}

/// What a command overwrites: files replaced whatever exists (`sed -i`), and files replaced only if
/// they exist now (`cp`'s destination, `tee` without `-a`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Overwrites {
    /// The command rewrites existing files by its nature.
    pub always: bool,
    /// Paths (as written) whose current content is lost if they exist as files.
    pub if_existing: Vec<String>,
}

/// What `program` (a base name) overwrites with `args`, or `None` when it overwrites nothing by its
/// operands. Deleting programs are judged by name elsewhere.
pub(crate) fn overwritten_files(program: &str, args: &[String]) -> Option<Overwrites> {
    let written = match program {
        "sed" | "tee" | "cp" | "mv" | "install" | "ln" | "sort" | "curl" | "wget" => {
            written_files(program, args, false)?
        }
        _ => return None,
    };
    if program == "sed" {
        return Some(Overwrites {
            always: true,
            if_existing: Vec::new(),
        });
    }
    let p = parse(
        args,
        &Grammar {
            short_values: "St",
            long_values: &["suffix", "target-directory"],
        },
    );
    let keeps_existing = match program {
        "tee" => p.has(&["a", "append"]),
        "cp" | "mv" => p.has(&["n", "no-clobber"]) || p.flags.iter().any(|f| f == "update=none"),
        "install" => p.has(&["d", "directory"]),
        "ln" => !p.has(&["f", "force"]),
        _ => false,
    };
    if keeps_existing {
        return None;
    }
    // A move or a link keeps its sources.
    let sources: Vec<&str> = match (program, p.value(&["t", "target-directory"])) {
        ("mv" | "ln", Some(_)) => p.operands.clone(),
        ("mv" | "ln", None) => p
            .operands
            .split_last()
            .map(|(_, s)| s.to_vec())
            .unwrap_or_default(),
        _ => Vec::new(),
    };
    let if_existing = written
        .known
        .into_iter()
        .filter(|t| !sources.contains(&t.as_str()))
        .collect();
    Some(Overwrites {
        always: false,
        if_existing,
    })
}

/// `sed -i[SUFFIX]` in a cluster (`-Ei.bak`, `-ni`): the suffix, empty for none.
fn in_place_short_suffix(args: &[String]) -> Option<String> {
    for arg in args {
        if arg == "--" {
            break;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) else {
            continue;
        };
        for (at, letter) in cluster.char_indices() {
            match letter {
                'i' => return Some(cluster[at + 1..].to_string()),
                // A value option swallows the rest of the cluster.
                'e' | 'f' | 'l' => break,
                _ => {}
            }
        }
    }
    None
}

/// Where `sed -iSUFFIX` keeps the old content of `file`: `*` stands for the file's name, and a
/// suffix with `/` names a folder.
fn backup_name(file: &str, suffix: &str) -> String {
    let (dir, name) = match file.rsplit_once('/') {
        Some((dir, name)) => (format!("{dir}/"), name),
        None => (String::new(), file),
    };
    if suffix.contains('*') {
        let replaced = suffix.replace('*', name);
        if replaced.contains('/') {
            replaced
        } else {
            format!("{dir}{replaced}")
        }
    } else {
        format!("{file}{suffix}")
    }
}

/// `cp`/`mv`/`install`/`ln`: the destination, what lands inside it, and (for `mv`) the sources it
/// removes, (for `ln`) the files a new link makes writable under another name.
fn copies(program: &str, p: &Parsed<'_>, appended: bool, out: &mut Written) {
    if program == "install" && p.has(&["d", "directory"]) {
        p.operands.iter().for_each(|o| out.add(o));
        if appended {
            out.unknown.push(APPENDED.into());
        }
        return;
    }
    let is_link = matches!(program, "ln" | "link");
    let into_dir = !p.has(&["T", "no-target-directory"]);
    let sources: Vec<&str> = match p.value(&["t", "target-directory"]) {
        Some(dir) => {
            out.add(dir);
            for source in &p.operands {
                out.add_inside(dir, source);
            }
            if appended {
                out.unknown.push(format!("files {APPENDED} in `{dir}`"));
            }
            p.operands.clone()
        }
        // The last word, the destination, is supplied at run time.
        None if appended => {
            out.unknown.push(APPENDED.into());
            p.operands.clone()
        }
        None => match p.operands.split_last() {
            Some((dest, sources)) if !sources.is_empty() => {
                out.add(dest);
                if into_dir {
                    for source in sources {
                        out.add_inside(dest, source);
                    }
                }
                sources.to_vec()
            }
            // `ln -s TARGET` makes a link named like TARGET here.
            Some((only, _)) if is_link => {
                out.add(only.trim_end_matches('/').rsplit('/').next().unwrap_or(only));
                vec![*only]
            }
            Some(_) | None => Vec::new(),
        },
    };
    // A move removes its sources; a link makes its target writable under the link's name, so
    // linking to a protected path is writing to it.
    if program == "mv" {
        sources.iter().for_each(|s| out.add_if_known(s));
    } else if is_link {
        sources.iter().for_each(|s| out.add(s));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn written(line: &str) -> Option<Written> {
        let words: Vec<String> = line.split_whitespace().map(String::from).collect();
        written_files(&words[0], &words[1..], false)
    }

    fn known(line: &str) -> Vec<String> {
        written(line).map(|w| w.known).unwrap_or_default()
    }

    #[test]
    fn destinations_in_every_spelling() {
        assert_eq!(known("tee -a --output-error=warn a b"), ["a", "b"]);
        assert_eq!(known("cp -t dir a"), ["dir", "dir/a"]);
        assert_eq!(known("cp --target=dir a"), ["dir", "dir/a"]);
        assert_eq!(known("cp -T a dest"), ["dest"]);
        assert_eq!(
            known("install -D -m 755 x .git/hooks/pre-commit"),
            [".git/hooks/pre-commit", ".git/hooks/pre-commit/x"]
        );
        assert_eq!(known("install -d a b"), ["a", "b"]);
        assert_eq!(known("ln -sf x y"), ["y", "y/x", "x"]);
        assert_eq!(known("ln -s .git/hooks"), ["hooks", ".git/hooks"]);
        assert_eq!(known("dd if=x of=y bs=1"), ["y"]);
        assert_eq!(known("sed -i s/a/b/ f"), ["f"]);
        assert_eq!(known("sed -i.bak -e s/a/b/ f"), ["f", "f.bak"]);
        assert_eq!(known("sed -nE --in-place=x/* s/a/b/ d/f"), ["d/f", "x/f"]);
        assert_eq!(known("sort -o out in"), ["out"]);
        assert_eq!(known("curl -sSLo out https://x"), ["out"]);
        assert_eq!(known("mv a b"), ["b", "b/a", "a"]);
        assert_eq!(written("sed s/a/b/ f"), None);
        assert_eq!(written("ls a"), None);
    }

    #[test]
    fn overwrites() {
        let over = |line: &str| {
            let words: Vec<String> = line.split_whitespace().map(String::from).collect();
            overwritten_files(&words[0], &words[1..])
        };
        assert_eq!(over("tee a b").unwrap().if_existing, ["a", "b"]);
        assert_eq!(over("tee -a a"), None);
        assert_eq!(over("mv x y").unwrap().if_existing, ["y", "y/x"]);
        assert_eq!(over("cp -n x y"), None);
        assert_eq!(over("ln -s x y"), None);
        assert_eq!(over("ln -sf x y").unwrap().if_existing, ["y", "y/x"]);
        assert!(over("sed -i s/a/b/ f").unwrap().always);
        assert_eq!(over("sed s/a/b/ f"), None);
        assert_eq!(over("touch f"), None);
    }

    #[test]
    fn destinations_known_only_at_run_time_are_unknown() {
        assert_eq!(written("tee $F").unwrap().unknown, ["`$F`"]);
        assert_eq!(written("cp x $D").unwrap().unknown, ["`$D`", "`$D/x`"]);
        assert_eq!(written("cp .b* ~/").unwrap().unknown, ["`~/.b*`"]);
        assert_eq!(
            written("cp *.txt out/").unwrap(),
            Written {
                known: vec!["out/".into()],
                unknown: vec![]
            }
        );
        let w = written_files("cp", &["-t".into(), "out".into()], true).unwrap();
        assert_eq!(
            (w.known, w.unknown),
            (
                vec!["out".to_string()],
                vec![format!("files {APPENDED} in `out`")]
            )
        );
        let w = written_files("tee", &[], true).unwrap();
        assert_eq!(w.unknown, [APPENDED]);
        // Removing names known only at run time is not reported.
        assert!(written_files("rm", &[], true).unwrap().unknown.is_empty());
    }
}
