//! Which `git` invocations only read.
//!
//! Git runs helper programs from options (`--ext-diff`, `--upload-pack`), from `-c` configuration and
//! from other repositories' configuration (`--git-dir`), and several subcommands mix listing and
//! changing (`branch`, `tag`, `config`). Only listing forms are read-only here.

use crate::tools::bash::analysis::CommandClass;
use crate::tools::bash::options::{is_long, is_option, short_cluster_has};
use crate::tools::bash::reasons::ArgRefusal;
use crate::tools::bash::words::Word;

/// Subcommands that never change the repository (apart from git's own index refresh).
#[rustfmt::skip]
const ALWAYS_READ: &[&str] = &[
    "status", "log", "diff", "show", "blame", "ls-files", "ls-tree", "rev-parse", "describe",
    "shortlog", "cat-file", "grep", "rev-list", "merge-base", "show-ref", "version",
];

/// Long options that run programs or write files wherever they appear.
const BANNED_LONG: &[&str] = &[
    "output",              // writes the output to a file (log, diff, show)
    "ext-diff",            // runs the configured external diff program
    "textconv",            // runs text conversion filters
    "exec",                // runs a program (rebase, ...)
    "upload-pack",         // program run for fetching
    "receive-pack",        // program run for pushing
    "open-files-in-pager", // git grep -O runs a program
];

/// Real options that are prefixes of a banned one and mean themselves (`--text` = `-a`).
const EXACT_OK: &[&str] = &["text"];

/// Classifies `git ARGS`. `stdin_args` (from `xargs`) means unseen arguments: not read-only.
pub(crate) fn classify(args: &[Word], stdin_args: bool) -> CommandClass {
    if stdin_args {
        return other("`git` gets arguments from standard input that cannot be checked");
    }
    // After a literal `--` git reads only paths, so values known at run time are harmless there.
    let options_end = args
        .iter()
        .position(|w| w.is_plain() && w.text == "--")
        .unwrap_or(args.len());
    if let Some(word) = args[..options_end].iter().find(|w| !w.is_plain()) {
        return other(format!(
            "argument `{}` of `git` is only known at run time, so its options cannot be checked",
            word.text
        ));
    }
    let texts: Vec<&str> = args[..options_end].iter().map(|w| w.text.as_str()).collect();
    match classify_texts(&texts) {
        Ok(()) => CommandClass::ReadOnly,
        Err(refusal) => CommandClass::Other(refusal.to_string()),
    }
}

fn other(reason: impl Into<String>) -> CommandClass {
    CommandClass::Other(reason.into())
}

fn classify_texts(args: &[&str]) -> Result<(), ArgRefusal> {
    if let Some(arg) = args
        .iter()
        .find(|a| BANNED_LONG.iter().any(|b| is_long(a, b, EXACT_OK)))
    {
        return Err(ArgRefusal::WritesOrRuns {
            program: "git",
            arg: (*arg).to_string(),
        });
    }
    let rest = skip_global_options(args)?;
    let Some((sub, sub_args)) = rest.split_first() else {
        return Err(ArgRefusal::GitWithoutSubcommand);
    };
    match *sub {
        s if ALWAYS_READ.contains(&s) => {
            if s == "grep" && sub_args.iter().any(|a| short_cluster_has(a, 'O')) {
                return Err(ArgRefusal::GitGrepOpensFiles);
            }
            Ok(())
        }
        "branch" => listing(sub_args, "branch", BRANCH_FLAGS, &['a', 'r', 'v', 'l', 'i']),
        "tag" => listing(sub_args, "tag", TAG_FLAGS, &['l', 'n', 'i']),
        "remote" => match sub_args {
            [] | ["-v"] | ["--verbose"] => Ok(()),
            [cmd, ..] if matches!(*cmd, "show" | "get-url") => Ok(()),
            _ => Err(ArgRefusal::GitRemoteChange),
        },
        "reflog" => match sub_args.first() {
            None => Ok(()),
            Some(&"show") => Ok(()),
            Some(_) => Err(ArgRefusal::GitReflogChange),
        },
        "stash" => match sub_args.first() {
            Some(&"list") | Some(&"show") => Ok(()),
            Some(_) | None => Err(ArgRefusal::GitStashChange),
        },
        "worktree" => match sub_args.first() {
            Some(&"list") => Ok(()),
            Some(_) | None => Err(ArgRefusal::GitWorktreeChange),
        },
        "config" => config(sub_args),
        other_sub => Err(ArgRefusal::GitUnknownSubcommand(other_sub.to_string())),
    }
}

/// Skips the global options git accepts before the subcommand. `-c`/`--config-env` inject
/// configuration (which can name programs to run); `--git-dir`/`--work-tree`/`--exec-path` point git
/// at configuration or helpers outside this repository. `-C DIR` is accepted: it only changes where
/// git looks, and the repository found there is read with its own configuration (documented risk).
fn skip_global_options<'a>(args: &'a [&'a str]) -> Result<&'a [&'a str], ArgRefusal> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match *arg {
            "--no-pager"
            | "-P"
            | "--no-optional-locks"
            | "--literal-pathspecs"
            | "--no-replace-objects"
            | "--bare" => i += 1,
            "-C" => i += 2,
            a if a.starts_with("-C") => i += 1,
            "-c" if args.get(i + 1).is_some_and(|kv| is_inert_config(kv)) => i += 2,
            a if is_option(a) => {
                return Err(ArgRefusal::GitGlobalOption(a.to_string()));
            }
            _ => return Ok(&args[i..]),
        }
    }
    Ok(&args[args.len()..])
}

/// Configuration keys (lower case) that only change how git prints. `-c KEY=VALUE` with any other
/// key is not read-only: keys that name programs (`core.pager`, `core.sshCommand`, `diff.external`,
/// `core.fsmonitor`, `alias.*`, `core.hooksPath`, `*.textconv`, `credential.helper`, `gpg.program`)
/// run them, and unknown ones fail closed.
#[rustfmt::skip]
const INERT_CONFIG: &[&str] = &[
    "core.quotepath", "core.abbrev", "diff.noprefix", "diff.mnemonicprefix", "diff.renames",
    "diff.relative", "diff.context", "diff.interhunkcontext", "log.decorate", "log.abbrevcommit",
    "log.date", "log.follow", "log.showroot", "blame.date", "blame.coloring", "format.pretty",
    "i18n.logoutputencoding", "grep.linenumber", "grep.patterntype", "grep.extendedregexp",
    "grep.column", "grep.fullname", "status.short", "status.branch", "status.showuntrackedfiles",
    "status.relativepaths", "user.name", "user.email", "init.defaultbranch", "core.pager=cat",
];

/// Key prefixes (lower case) whose keys only change colours, columns or advice messages.
const INERT_CONFIG_PREFIXES: &[&str] = &["color.", "column.", "advice."];

/// Whether `-c KEY=VALUE` only changes how git prints. `pager.CMD` takes a boolean or a program;
/// only the booleans are inert.
pub(crate) fn is_inert_config(key_value: &str) -> bool {
    let (key, value) = key_value.split_once('=').unwrap_or((key_value, "true"));
    let key = key.to_ascii_lowercase();
    let is_bool = matches!(
        value.to_ascii_lowercase().as_str(),
        "true" | "false" | "yes" | "no" | "on" | "off" | "0" | "1"
    );
    INERT_CONFIG.contains(&key.as_str())
        || INERT_CONFIG.contains(&key_value.to_ascii_lowercase().as_str())
        || INERT_CONFIG_PREFIXES.iter().any(|p| key.starts_with(p))
        || (key.starts_with("pager.") && is_bool)
}

/// `git`'s words with the global options before the subcommand removed (`-C . --no-pager -c x=y
/// push` is `push`), or `None` when there were none. Deny and ask rules are matched against this
/// form too, so `git -C . push` cannot dodge `Bash(git push *)`.
pub(crate) fn without_global_options(args: &[String]) -> Option<Vec<String>> {
    const WITH_VALUE: &[&str] = &[
        "-C",
        "-c",
        "--git-dir",
        "--work-tree",
        "--namespace",
        "--config-env",
        "--exec-path",
        "--attr-source",
        "--super-prefix",
        "--list-cmds",
    ];
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
        if WITH_VALUE.contains(&name) && !arg.contains('=') && name != "--exec-path" {
            i += 2;
        } else if is_option(arg) {
            // Every other option before the subcommand is global (`--no-pager`, `-P`, `--bare`,
            // `--exec-path`, `-Cdir`, `--git-dir=x`...).
            i += 1;
        } else {
            break;
        }
    }
    (i > 0 && i < args.len()).then(|| args[i..].to_vec())
}

/// Flags of `git branch` that only list or filter.
#[rustfmt::skip]
const BRANCH_FLAGS: &[&str] = &[
    "--all", "--remotes", "--verbose", "--list", "--show-current", "--contains",
    "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format",
    "--color", "--no-color", "--column", "--no-column", "--ignore-case", "--abbrev",
    "--no-abbrev", "--omit-empty",
];

/// Flags of `git tag` that only list or filter.
#[rustfmt::skip]
const TAG_FLAGS: &[&str] = &[
    "--list", "--contains", "--no-contains", "--merged", "--no-merged", "--points-at",
    "--sort", "--format", "--color", "--no-color", "--column", "--no-column",
    "--ignore-case", "--omit-empty",
];

/// Flags whose following word is their value (a commit), not a branch or tag name to create.
#[rustfmt::skip]
const TAKES_VALUE: &[&str] = &[
    "--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort",
    "--format",
];

/// `git branch`/`git tag` are read-only only as listings: every flag from `flags` (long, with or
/// without `=value`) or a bundle of `short` letters, and names only as patterns after `-l/--list`.
fn listing(args: &[&str], command: &'static str, flags: &[&str], short: &[char]) -> Result<(), ArgRefusal> {
    let is_list_flag =
        |a: &str| a == "--list" || (a.starts_with('-') && !a.starts_with("--") && a.contains('l'));
    let list_mode = args.iter().any(|a| is_list_flag(a));
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split_once('=').map_or(long, |(n, _)| n);
            if !flags.contains(&arg.split_once('=').map_or(*arg, |(n, _)| n)) {
                return Err(ArgRefusal::GitNotListing {
                    command,
                    arg: (*arg).to_string(),
                });
            }
            let flag = format!("--{name}");
            if !long.contains('=')
                && TAKES_VALUE.contains(&flag.as_str())
                && let Some(next) = iter.clone().next()
                && !is_option(next)
            {
                iter.next();
            }
        } else if let Some(letters) = arg.strip_prefix('-') {
            // `-n5` in tag: a count after n.
            let letters = letters.trim_end_matches(|c: char| c.is_ascii_digit());
            if letters.is_empty() || !letters.chars().all(|c| short.contains(&c)) {
                return Err(ArgRefusal::GitNotListing {
                    command,
                    arg: (*arg).to_string(),
                });
            }
        } else if !list_mode {
            return Err(ArgRefusal::GitCreates {
                command,
                arg: (*arg).to_string(),
            });
        }
    }
    Ok(())
}

/// `git config` reading forms: `--get*`, `--list/-l`, or the newer `get`/`list` subcommands, with
/// only scope and formatting flags besides.
fn config(args: &[&str]) -> Result<(), ArgRefusal> {
    const READ_MODES: &[&str] = &[
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
    ];
    const FORMAT: &[&str] = &[
        "--global",
        "--system",
        "--local",
        "--worktree",
        "--show-origin",
        "--show-scope",
        "--name-only",
        "--null",
        "-z",
        "--includes",
        "--no-includes",
        "--bool",
        "--int",
        "--path",
        "--bool-or-int",
        "--expiry-date",
        "--all",
        "--regexp",
        "--url",
    ];
    let (mode_found, rest): (bool, &[&str]) = match args.first() {
        Some(&"get") | Some(&"list") => (true, &args[1..]),
        Some(_) | None => (args.iter().any(|a| READ_MODES.contains(a)), args),
    };
    if !mode_found {
        return Err(ArgRefusal::GitConfigWithoutRead);
    }
    for arg in rest {
        let flag = arg.split_once('=').map_or(*arg, |(n, _)| n);
        let allowed = READ_MODES.contains(&flag)
            || FORMAT.contains(&flag)
            || matches!(flag, "--type" | "--default" | "--file" | "--blob");
        if is_option(arg) && !allowed {
            return Err(ArgRefusal::GitConfigOption((*arg).to_string()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn global_options_are_removed_for_deny_matching() {
        let strip = |line: &str| {
            let args: Vec<String> = line.split_whitespace().map(String::from).collect();
            without_global_options(&args).map(|a| a.join(" "))
        };
        assert_eq!(strip("-C . push"), Some("push".into()));
        assert_eq!(
            strip("--no-pager -c x.y=z -C sub push --force"),
            Some("push --force".into())
        );
        assert_eq!(strip("--git-dir=.git --work-tree . push"), Some("push".into()));
        assert_eq!(strip("push"), None);
        assert_eq!(strip("--version"), None);
    }

    fn read_only(line: &str) -> bool {
        classify_texts(&line.split_whitespace().collect::<Vec<_>>()).is_ok()
    }

    #[test]
    fn reading_forms_pass() {
        for line in [
            "status",
            "--no-pager log --oneline -n 5",
            "-C sub status",
            "diff --text HEAD",
            "diff --stat",
            "branch",
            "branch -a",
            "branch -vv",
            "branch --show-current",
            "branch --contains HEAD",
            "branch --list feat*",
            "tag",
            "tag -l v1*",
            "tag -n5",
            "remote -v",
            "remote",
            "remote show origin",
            "reflog",
            "stash list",
            "worktree list",
            "config --get user.name",
            "config --list --show-origin",
            "config get user.name",
            "grep -n foo",
            "-c color.ui=never log",
            "-c core.quotepath=off status",
            "-c pager.log=false log",
        ] {
            assert!(read_only(line), "{line}");
        }
    }

    #[test]
    fn changing_or_running_forms_fail() {
        for line in [
            "push",
            "-c core.pager=sh log",
            "-c core.pager=less log",
            "-c pager.log=sh log",
            "-c core.sshCommand=sh fetch",
            "-c diff.external=sh diff",
            "-c core.fsmonitor=sh status",
            "-c alias.st=!sh status",
            "-c core.hooksPath=/tmp status",
            "-c diff.x.textconv=sh diff",
            "-c x.y=z status",
            "--git-dir=/tmp/x log",
            "--work-tree=/ status",
            "--exec-path=/tmp log",
            "log --output=x",
            "log --out=x",
            "diff --ext-diff",
            "diff --ext",
            "show --textconv HEAD",
            "fetch --upload-pack=sh",
            "push --receive-pack=sh",
            "rebase --exec=sh",
            "grep -O foo",
            "grep --open-files-in-pager=vim foo",
            "branch new",
            "branch -d old",
            "branch -D old",
            "branch -m a b",
            "branch -c a b",
            "tag v1",
            "tag -d v1",
            "remote add x y",
            "reflog expire --all",
            "stash",
            "stash pop",
            "worktree add x",
            "config user.name x",
            "config --unset user.name",
            "config --get x --add y z",
            "checkout .",
            "",
        ] {
            assert!(!read_only(line), "{line}");
        }
    }
}
