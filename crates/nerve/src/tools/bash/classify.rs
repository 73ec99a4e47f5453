//! Which programs only read, kept in one place.
//!
//! A program is read-only only when it is listed here and none of its arguments turns on a mode that
//! writes a file or runs another program. Programs whose danger hides in options ("checked" below)
//! also refuse arguments known only at run time, since `$X` or a glob could become `-delete`.

use crate::tools::bash::analysis::CommandClass;
use crate::tools::bash::awk_program::awk_use;
use crate::tools::bash::git;
use crate::tools::bash::options::{is_long, is_option, short_cluster_has};
use crate::tools::bash::reasons::ArgRefusal;
use crate::tools::bash::sed_script::sed_use;
use crate::tools::bash::words::{Word, basename, is_system_program};

/// Programs that do nothing worth guarding: they print their arguments, wait, or set an exit status.
const NEUTRAL: &[&str] = &["echo", "true", "false", ":", "sleep", "test", "[", "exit"];

/// Read-only programs whose options cannot write or run anything, so any argument is fine.
/// (Programs with dangerous options are matched in `classify` and checked one by one.)
#[rustfmt::skip]
const READ_ANY_ARGS: &[&str] = &[
    // search (rg, ag, find, fd, locate are checked)
    "grep", "egrep", "fgrep", "which", "whereis", "type",
    // read (sort, uniq, date, xxd, file, less/more, sed, awk and tail are checked)
    "cat", "head", "wc", "join", "stat", "diff", "cmp", "cut", "tr", "nl", "od", "hexdump",
    "md5sum", "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum",
    "jq", "basename", "dirname", "realpath", "readlink", "column", "fold", "expand", "paste",
    "comm", "strings", "tac", "rev", "seq",
    // list (tree and hostname are checked; `env` only without arguments)
    "ls", "du", "df", "pwd", "id", "whoami", "uname", "printenv", "ps",
];

/// Programs that read the files their operands name, whatever else their options make them do:
/// Read rules apply to those operands even when the command is not read-only (`sort -o out
/// secrets/key`, `sudo cat secrets/key`).
pub(crate) fn reads_its_operands(name: &str) -> bool {
    READ_ANY_ARGS.contains(&name)
        || matches!(
            name,
            "rg" | "ag"
                | "ack"
                | "ack-grep"
                | "find"
                | "fd"
                | "fdfind"
                | "sort"
                | "uniq"
                | "xxd"
                | "tree"
                | "file"
                | "less"
                | "more"
                | "awk"
                | "gawk"
                | "mawk"
                | "nawk"
                | "sed"
                | "gsed"
                | "tail"
                | "date"
                | "locate"
                | "base64"
                | "base32"
                | "iconv"
                | "zcat"
                | "bzcat"
                | "xzcat"
                | "zgrep"
                | "tar"
                | "zip"
                | "scp"
                | "rsync"
        )
}

/// Looks at a checked program's arguments and says why they make it write or run something.
type OptionCheck = fn(&[String]) -> Result<(), ArgRefusal>;

/// Classifies one command whose wrappers are already stripped. `stdin_args` says that more arguments
/// arrive at run time (`xargs`), which counts like a dynamic argument.
pub(crate) fn classify(argv: &[Word], stdin_args: bool) -> CommandClass {
    let Some((program, args)) = argv.split_first() else {
        return CommandClass::Neutral;
    };
    let name = basename(&program.text);
    if !is_system_program(&program.text) {
        return other(format!(
            "`{}` runs a program by a path outside the system directories",
            program.text
        ));
    }
    if matches!(name, "test" | "[") && args.iter().any(|a| a.text == "-v") {
        // `-v 'a[$i]'` evaluates the subscript arithmetically, which can expand hidden substitutions.
        return other("`test -v` evaluates array subscripts");
    }
    if name == "sleep" && args.iter().any(|a| is_infinite(&a.text)) {
        return CommandClass::Other(ArgRefusal::NeverEnds(format!("sleep {}", join_texts(args))).to_string());
    }
    if NEUTRAL.contains(&name) {
        return CommandClass::Neutral;
    }
    if READ_ANY_ARGS.contains(&name) {
        return CommandClass::ReadOnly;
    }
    let checked: Option<OptionCheck> = match name {
        // Under `xargs` both get unseen arguments: `env` then runs them as a command, and the
        // arguments of `printf` could start with `-v`.
        "printf" if stdin_args => return other("`printf` with arguments from standard input"),
        "printf" => return printf(args),
        "env" if args.is_empty() && !stdin_args => return CommandClass::ReadOnly,
        "cd" | "pushd" | "popd" => {
            return other("changes the working directory, so later relative paths cannot be checked");
        }
        "source" | "." => return other("runs the commands in a file"),
        "git" => return git::classify(args, stdin_args),
        "rg" => Some(rg),
        "ag" => Some(ag),
        "find" => Some(find),
        "fd" | "fdfind" => Some(fd),
        "sort" => Some(sort),
        "uniq" => Some(uniq),
        "date" => Some(date),
        "xxd" => Some(xxd),
        "tree" => Some(tree),
        "file" => Some(file),
        "less" | "more" => Some(pager),
        "hostname" => Some(hostname),
        "locate" => Some(locate),
        "sed" | "gsed" => Some(sed),
        "awk" | "gawk" | "mawk" | "nawk" => Some(awk),
        "tail" => Some(tail),
        _ => None,
    };
    let Some(check) = checked else {
        return other(format!("`{name}` is not a known read-only command"));
    };
    if stdin_args {
        return other(format!(
            "`{name}` gets arguments from standard input that cannot be checked"
        ));
    }
    if let Some(word) = args.iter().find(|w| !w.is_plain()) {
        return other(format!(
            "argument `{}` of `{name}` is only known at run time, so its options cannot be checked",
            word.text
        ));
    }
    let texts: Vec<String> = args.iter().map(|w| w.text.clone()).collect();
    match check(&texts) {
        Ok(()) => CommandClass::ReadOnly,
        Err(refusal) => CommandClass::Other(refusal.to_string()),
    }
}

fn other(reason: impl Into<String>) -> CommandClass {
    CommandClass::Other(reason.into())
}

/// Rejects the first argument for which `bad` is true.
fn reject_any(args: &[String], program: &'static str, bad: impl Fn(&str) -> bool) -> Result<(), ArgRefusal> {
    match args.iter().find(|a| bad(a)) {
        Some(arg) => Err(ArgRefusal::WritesOrRuns {
            program,
            arg: arg.clone(),
        }),
        None => Ok(()),
    }
}

/// `printf -v NAME` assigns a shell variable (`printf -v PATH ...` changes what later names run).
fn printf(args: &[Word]) -> CommandClass {
    match args.first() {
        Some(w) if !w.is_plain() || w.text.starts_with("-v") => other("`printf -v` assigns a shell variable"),
        Some(_) | None => CommandClass::Neutral,
    }
}

/// `--pre` runs a program on every file; `--hostname-bin` runs one to learn the host name.
fn rg(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "rg", |a| {
        ["pre", "pre-glob", "hostname-bin"]
            .iter()
            .any(|b| is_long(a, b, &[]))
    })
}

/// `--pager` runs a program.
fn ag(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "ag", |a| is_long(a, "pager", &[]))
}

/// Primaries that run programs, delete, or write listing files.
fn find(args: &[String]) -> Result<(), ArgRefusal> {
    const BANNED: &[&str] = &[
        "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls",
    ];
    reject_any(args, "find", |a| BANNED.contains(&a))
}

/// `-x/--exec` and `-X/--exec-batch` run a program per result.
fn fd(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "fd", |a| {
        short_cluster_has(a, 'x')
            || short_cluster_has(a, 'X')
            || is_long(a, "exec", &[])
            || is_long(a, "exec-batch", &[])
    })
}

/// `-o/--output` writes a file; `--compress-program` runs one.
fn sort(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "sort", |a| {
        short_cluster_has(a, 'o') || is_long(a, "output", &[]) || is_long(a, "compress-program", &[])
    })
}

/// `uniq IN OUT` writes OUT. Values of `-f/-s/-w` are skipped; anything unclear counts as positional,
/// which can only make the answer stricter.
fn uniq(args: &[String]) -> Result<(), ArgRefusal> {
    let mut positional = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if matches!(arg.as_str(), "-f" | "-s" | "-w") {
            iter.next();
        } else if !is_option(arg) {
            positional += 1;
        }
    }
    if positional > 1 {
        return Err(ArgRefusal::WritesSecondFile { program: "uniq" });
    }
    Ok(())
}

/// `date -s` and `date MMDDhhmm` set the clock; `date +FORMAT` only prints.
fn date(args: &[String]) -> Result<(), ArgRefusal> {
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if is_long(arg, "set", &[]) {
            return Err(ArgRefusal::SetsClockOption);
        }
        // A cluster up to its first option with a value (`-uf FILE`, `-fFILE`): `-s` sets the
        // clock; `-d DATE`, `-f FILE` and `-r FILE` take the rest or the next word.
        let mut short_value = false;
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.starts_with('-')) {
            for (at, letter) in cluster.char_indices() {
                if letter == 's' {
                    return Err(ArgRefusal::SetsClockOption);
                }
                if matches!(letter, 'd' | 'f' | 'r') {
                    short_value = at + 1 == cluster.len();
                    break;
                }
            }
        }
        let long_value =
            !arg.contains('=') && ["date", "file", "reference"].iter().any(|o| is_long(arg, o, &[]));
        if short_value || long_value {
            iter.next();
        } else if !is_option(arg) && !arg.starts_with('+') {
            return Err(ArgRefusal::SetsClock(arg.clone()));
        }
    }
    Ok(())
}

/// `xxd -r` converts back to binary and `xxd IN OUT` writes OUT.
fn xxd(args: &[String]) -> Result<(), ArgRefusal> {
    let mut positional = 0;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg.starts_with("-r") || arg == "-revert" {
            return Err(ArgRefusal::RevertsToBinary);
        }
        if matches!(
            arg.as_str(),
            "-c" | "-g" | "-l" | "-o" | "-s" | "-n" | "-cols" | "-len" | "-seek"
        ) {
            iter.next();
        } else if !is_option(arg) {
            positional += 1;
        }
    }
    if positional > 1 {
        return Err(ArgRefusal::WritesSecondFile { program: "xxd" });
    }
    Ok(())
}

/// `tree -o FILE` writes; `tree -R` writes `00Tree.html` into every directory.
fn tree(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "tree", |a| {
        short_cluster_has(a, 'o') || short_cluster_has(a, 'R') || is_long(a, "output", &[])
    })
}

/// `file -C` compiles a magic file and writes it.
fn file(args: &[String]) -> Result<(), ArgRefusal> {
    reject_any(args, "file", |a| {
        short_cluster_has(a, 'C') || is_long(a, "compile", &[])
    })
}

/// Pagers: `+CMD` runs a pager command at start (which may be `!shell`), `-o/-O/--log-file` write a
/// log; only a few display options are accepted.
fn pager(args: &[String]) -> Result<(), ArgRefusal> {
    const SAFE: &[&str] = &[
        "-R", "-r", "-S", "-N", "-n", "-F", "-X", "-i", "-I", "-s", "-M", "-m",
    ];
    reject_any(args, "less", |a| {
        a.starts_with('+') || (is_option(a) && !SAFE.contains(&a) && a != "--")
    })
}

/// slocate's `-u/-U DIR` builds a database (a write); other locates only read theirs.
fn locate(args: &[String]) -> Result<(), ArgRefusal> {
    // Letters after an option with a value (`-d DBPATH`, `-l N`, `-n N`) are that value.
    reject_any(args, "locate", |a| {
        a.strip_prefix('-').is_some_and(|cluster| {
            !cluster.starts_with('-')
                && cluster
                    .chars()
                    .take_while(|c| !matches!(c, 'd' | 'l' | 'n'))
                    .any(|c| matches!(c, 'u' | 'U'))
        })
    })
}

/// A sed command reads and prints only without `-i`, `-f` and script commands that write or run
/// (see [`crate::tools::bash::sed_script`]).
fn sed(args: &[String]) -> Result<(), ArgRefusal> {
    sed_use(args).refusal.map_or(Ok(()), Err)
}

/// An awk command reads and prints only with an inline program that runs, writes and redirects
/// nothing (see [`crate::tools::bash::awk_program`]).
fn awk(args: &[String]) -> Result<(), ArgRefusal> {
    awk_use(args).refusal.map_or(Ok(()), Err)
}

/// `tail -f/-F/--follow` waits for more lines forever: the user is asked, since the turn would
/// otherwise sit until the tool's timeout kills it.
fn tail(args: &[String]) -> Result<(), ArgRefusal> {
    match args
        .iter()
        .take_while(|a| *a != "--")
        .find(|a| short_cluster_has(a, 'f') || short_cluster_has(a, 'F') || is_long(a, "follow", &[]))
    {
        Some(arg) => Err(ArgRefusal::NeverEnds(format!("tail {arg}"))),
        None => Ok(()),
    }
}

/// `sleep inf`, `sleep infinity` (any case, as `strtod` reads them) never end.
fn is_infinite(arg: &str) -> bool {
    arg.trim_start_matches('+')
        .to_ascii_lowercase()
        .starts_with("inf")
}

fn join_texts(args: &[Word]) -> String {
    args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ")
}

/// `hostname NAME` and `hostname -F FILE` set the host name; only printing options are accepted.
fn hostname(args: &[String]) -> Result<(), ArgRefusal> {
    const SAFE: &[&str] = &[
        "-f",
        "-s",
        "-i",
        "-I",
        "-d",
        "-a",
        "-A",
        "--fqdn",
        "--long",
        "--short",
        "--domain",
        "--ip-address",
        "--all-ip-addresses",
        "--all-fqdns",
        "--alias",
    ];
    reject_any(args, "hostname", |a| !SAFE.contains(&a))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn class(words: &[&str]) -> CommandClass {
        let argv: Vec<Word> = words.iter().map(|w| Word::literal(*w)).collect();
        classify(&argv, false)
    }

    #[test]
    fn listed_programs_are_read_only() {
        for cmd in [
            &["cat", "x"][..],
            &["ls", "-la"],
            &["sort", "-n", "f"],
            &["uniq", "-f", "1", "in"],
            &["date", "+%s"],
            &["date", "-d", "tomorrow"],
            &["xxd", "-l", "16", "f"],
            &["hostname"],
            &["less", "-R", "f"],
            &["env"],
        ] {
            assert_eq!(class(cmd), CommandClass::ReadOnly, "{cmd:?}");
        }
    }

    #[test]
    fn writing_modes_are_other() {
        for cmd in [
            &["sort", "-o", "out", "f"][..],
            &["sort", "-uo", "out"],
            &["sort", "--out=f"],
            &["sort", "--compress-program=sh"],
            &["uniq", "in", "out"],
            &["date", "-s", "now"],
            &["date", "0101"],
            &["xxd", "-r", "a"],
            &["xxd", "a", "b"],
            &["tree", "-o", "x"],
            &["tree", "-R"],
            &["file", "-C", "-m", "x"],
            &["less", "+!rm x", "f"],
            &["less", "-o", "log"],
            &["hostname", "evil"],
            &["ag", "--pager=sh", "x"],
            &["rg", "--pre", "sh", "x"],
            &["rg", "--hostname-bin=sh", "x"],
            &["fd", "-x", "rm"],
            &["fd", "--exec-batch", "rm"],
            &["find", ".", "-delete"],
            &["printf", "-v", "PATH", "x"],
            &["rm", "x"],
            &["cd", "/"],
            &["source", "x"],
            &["locate", "-U", "/"],
            &["./ls"],
            &["/tmp/bin/cat", "x"],
        ] {
            assert!(matches!(class(cmd), CommandClass::Other(_)), "{cmd:?}");
        }
    }

    #[test]
    fn checked_programs_refuse_runtime_arguments() {
        let dynamic = Word {
            text: "$X".into(),
            dynamic: true,
            expands: false,
        };
        let globbed = Word {
            text: "*".into(),
            dynamic: false,
            expands: true,
        };
        assert!(matches!(
            classify(
                &[Word::literal("find"), Word::literal("."), dynamic.clone()],
                false
            ),
            CommandClass::Other(_)
        ));
        assert!(matches!(
            classify(&[Word::literal("find"), Word::literal("."), globbed], false),
            CommandClass::Other(_)
        ));
        assert_eq!(
            classify(&[Word::literal("cat"), dynamic], false),
            CommandClass::ReadOnly
        );
        for program in ["find", "env", "printf", "git", "hostname"] {
            assert!(
                matches!(classify(&[Word::literal(program)], true), CommandClass::Other(_)),
                "{program}"
            );
        }
        assert_eq!(classify(&[Word::literal("cat")], true), CommandClass::ReadOnly);
    }
}
