//! Programs that run another command given as an argument vector or a command string, described by
//! a small option grammar each, so the command they run can be found and judged like any other.
//!
//! Two kinds:
//! - **transparent** runners only change how the command runs (CPU affinity, I/O priority, a new
//!   session): the inner command alone decides, as for `timeout` and `nice`.
//! - **guarded** runners change who runs it or where (`sudo`, `su`, `chroot`, `unshare`), write
//!   something themselves (`flock` creates its lock file, `strace -o`), trace it, or repeat it until
//!   stopped (`watch`, which never ends by itself, so a turn would wait for the timeout): the inner
//!   command still meets deny and ask rules, but the whole is never read-only and an allow rule must
//!   name the runner (`Bash(sudo apt update)`; `Bash(apt *)` does not cover `sudo apt update`).

use crate::tools::bash::env_names::is_valid_name;
use crate::tools::bash::reasons::Unmodelled;
use crate::tools::bash::words::Word;

/// How a runner's inner command is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RunnerKind {
    /// The inner command alone decides.
    Transparent,
    /// The inner command meets deny and ask rules; the whole is never read-only and allow rules
    /// must name the runner.
    Guarded,
}

/// The option grammar of one runner.
struct Grammar {
    name: &'static str,
    kind: RunnerKind,
    /// Short options that take a value (attached `-uroot` or the next word).
    short_values: &'static str,
    /// Short options without a value.
    short_flags: &'static str,
    /// Long options that take a value (`--user root` or `--user=root`).
    long_values: &'static [&'static str],
    /// Long options without a value.
    long_flags: &'static [&'static str],
    /// Options whose value is a command string run by a shell (`su -c`, `flock -c`).
    script_short: Option<char>,
    script_long: Option<&'static str>,
    /// Positional words before the command (`chroot NEWROOT`, `flock FILE`, `taskset MASK`).
    positionals: usize,
    /// `NAME=value` words after the options set the inner command's environment (`sudo`).
    takes_assignments: bool,
    /// Without a command the runner starts an interactive shell; with one, words are joined and run
    /// by a shell when `joins_into_script` (`watch`).
    joins_into_script: bool,
}

#[rustfmt::skip]
const GRAMMARS: &[Grammar] = &[
    Grammar { name: "sudo", kind: RunnerKind::Guarded, short_values: "ugCDhprtTUR", short_flags: "AbEHnPSk",
        long_values: &["user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user", "chroot", "command-timeout"],
        long_flags: &["askpass", "background", "preserve-env", "set-home", "non-interactive", "preserve-groups", "stdin", "reset-timestamp"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: true, joins_into_script: false },
    Grammar { name: "doas", kind: RunnerKind::Guarded, short_values: "uC", short_flags: "ns",
        long_values: &[], long_flags: &[], script_short: None, script_long: None, positionals: 0,
        takes_assignments: false, joins_into_script: false },
    Grammar { name: "pkexec", kind: RunnerKind::Guarded, short_values: "", short_flags: "",
        long_values: &["user"], long_flags: &["disable-internal-agent", "keep-cwd"], script_short: None,
        script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "su", kind: RunnerKind::Guarded, short_values: "sgGw", short_flags: "lmpfP",
        long_values: &["shell", "group", "supp-group", "whitelist-environment"],
        long_flags: &["login", "preserve-environment", "pty", "fast"], script_short: Some('c'),
        script_long: Some("command"), positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "runuser", kind: RunnerKind::Guarded, short_values: "usgGw", short_flags: "lmpfP",
        long_values: &["user", "shell", "group", "supp-group", "whitelist-environment"],
        long_flags: &["login", "preserve-environment", "pty", "fast"], script_short: Some('c'),
        script_long: Some("command"), positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "chroot", kind: RunnerKind::Guarded, short_values: "", short_flags: "",
        long_values: &["userspec", "groups"], long_flags: &["skip-chdir"], script_short: None,
        script_long: None, positionals: 1, takes_assignments: false, joins_into_script: false },
    Grammar { name: "unshare", kind: RunnerKind::Guarded, short_values: "S", short_flags: "muinpUCTfrc",
        long_values: &["propagation", "setgroups", "setuid", "setgid", "wd", "root", "kill-child", "map-user", "map-group", "map-users", "map-groups"],
        long_flags: &["mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "fork", "map-root-user", "map-current-user", "mount-proc", "keep-caps"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "nsenter", kind: RunnerKind::Guarded, short_values: "tSGwW", short_flags: "amuinpUCTFr",
        long_values: &["target", "setuid", "setgid", "wd", "root", "env"],
        long_flags: &["all", "mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "no-fork", "preserve-credentials", "follow-context"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "flock", kind: RunnerKind::Guarded, short_values: "wE", short_flags: "sxuonFv",
        long_values: &["timeout", "wait", "conflict-exit-code"],
        long_flags: &["shared", "exclusive", "unlock", "nonblock", "no-fork", "close", "verbose"],
        script_short: Some('c'), script_long: Some("command"), positionals: 1, takes_assignments: false,
        joins_into_script: false },
    Grammar { name: "strace", kind: RunnerKind::Guarded, short_values: "eoOpPsSuEIXaAb", short_flags: "cCdDfFhiqrtTvVwxyzZkn",
        long_values: &["output", "trace", "signal", "user", "env"], long_flags: &["follow-forks", "summary-only"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "ltrace", kind: RunnerKind::Guarded, short_values: "aeoplnsuAIL", short_flags: "bcCfhiLrStTV",
        long_values: &["output", "library"], long_flags: &["demangle"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "ionice", kind: RunnerKind::Transparent, short_values: "cnp", short_flags: "t",
        long_values: &["class", "classdata", "pid"], long_flags: &["ignore"], script_short: None,
        script_long: None, positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "taskset", kind: RunnerKind::Transparent, short_values: "", short_flags: "c",
        long_values: &[], long_flags: &["cpu-list", "all-tasks"], script_short: None, script_long: None,
        positionals: 1, takes_assignments: false, joins_into_script: false },
    Grammar { name: "setsid", kind: RunnerKind::Transparent, short_values: "", short_flags: "cfw",
        long_values: &[], long_flags: &["ctty", "fork", "wait"], script_short: None, script_long: None,
        positionals: 0, takes_assignments: false, joins_into_script: false },
    Grammar { name: "watch", kind: RunnerKind::Guarded, short_values: "nq", short_flags: "bcdegtwxpr",
        long_values: &["interval", "differences", "equexit"],
        long_flags: &["beep", "color", "no-color", "errexit", "chgexit", "no-title", "no-wrap", "exec", "precise", "no-rerun"],
        script_short: None, script_long: None, positionals: 0, takes_assignments: false, joins_into_script: true },
];

/// What a runner was found to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Inner {
    /// An argument vector, with the words of the runner in front of it and any `NAME=value` words
    /// it was given.
    Argv {
        /// How many leading words belong to the runner.
        runner_len: usize,
        /// Assignments the runner passes on (`sudo A=1 cmd`).
        assignments: Vec<(String, Word)>,
    },
    /// A command string run by a shell.
    Script {
        /// How many leading words belong to the runner (the script word included).
        runner_len: usize,
        /// The script text.
        script: String,
    },
    /// No command: the runner starts a shell or only lists (`sudo -l`, `su`), judged as itself.
    Itself,
}

/// Why a guarded runner's command is never read-only, for the permission prompt.
pub(crate) fn guarded_reason(runner: &str) -> String {
    match runner {
        "watch" => "`watch` re-runs the command until it is stopped, so it never ends by itself".into(),
        _ => format!("`{runner}` changes who or where the command runs, or traces it"),
    }
}

/// The kind of runner `program` is (its base name), if it is one.
pub(crate) fn runner_kind(program: &str) -> Option<RunnerKind> {
    GRAMMARS.iter().find(|g| g.name == program).map(|g| g.kind)
}

/// What the option loop found.
#[derive(Default)]
struct Options {
    /// A command string given through the grammar's script option.
    script: Option<String>,
    /// Whether `watch -x` asked for an argument vector instead of a joined command string.
    exec: bool,
    /// Whether a `--` ended the options.
    ended: bool,
}

/// Reads options from `words[*i..]` until the first operand (or `--`).
fn read_options(
    grammar: &Grammar,
    words: &[Word],
    i: &mut usize,
    found: &mut Options,
) -> Result<(), Unmodelled> {
    let program = grammar.name;
    let text = |i: usize| words.get(i).map(|w| w.text.clone());
    while let Some(word) = words.get(*i) {
        let arg = word.text.as_str();
        if !word.is_plain() && arg.starts_with('-') {
            return Err(Unmodelled::RuntimeOption {
                program: program.to_string(),
                arg: arg.to_string(),
            });
        }
        if arg == "--" {
            *i += 1;
            found.ended = true;
            return Ok(());
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            if grammar.script_long == Some(name) {
                found.script = attached.map(str::to_string).or_else(|| text(*i + 1));
                *i += if attached.is_some() { 1 } else { 2 };
            } else if grammar.long_values.contains(&name) {
                *i += if attached.is_some() { 1 } else { 2 };
            } else if grammar.long_flags.contains(&name) {
                found.exec |= program == "watch" && name == "exec";
                *i += 1;
            } else {
                return Err(Unmodelled::Option {
                    program: program.to_string(),
                    arg: format!("--{name}"),
                });
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Ok(());
        };
        let mut consumed_next = false;
        for (at, letter) in cluster.char_indices() {
            let rest = &cluster[at + letter.len_utf8()..];
            if grammar.script_short == Some(letter) {
                consumed_next = rest.is_empty();
                found.script = if consumed_next {
                    text(*i + 1)
                } else {
                    Some(rest.to_string())
                };
                break;
            }
            if grammar.short_values.contains(letter) {
                consumed_next = rest.is_empty();
                break;
            }
            if !grammar.short_flags.contains(letter) {
                return Err(Unmodelled::Option {
                    program: program.to_string(),
                    arg: format!("-{letter}"),
                });
            }
            found.exec |= program == "watch" && letter == 'x';
        }
        *i += if consumed_next { 2 } else { 1 };
    }
    Ok(())
}

/// Parses a runner's words (`words[0]` is the runner). `Err` names what is not modelled.
pub(crate) fn parse_runner(program: &str, words: &[Word]) -> Result<Inner, Unmodelled> {
    let Some(grammar) = GRAMMARS.iter().find(|g| g.name == program) else {
        return Err(Unmodelled::NotARunner(program.to_string()));
    };
    let mut i = 1;
    let mut found = Options::default();
    read_options(grammar, words, &mut i, &mut found)?;
    // `su [USER] [-c CMD]`: the user may stand between options; without `-c` (or, for runuser, a
    // command after `--`) the rest goes to an interactive shell.
    if matches!(program, "su" | "runuser") && !found.ended {
        if words.get(i).is_some_and(|w| w.is_plain()) {
            i += 1;
        }
        read_options(grammar, words, &mut i, &mut found)?;
        if found.script.is_none() {
            return Ok(Inner::Itself);
        }
    }
    // Positionals (`chroot NEWROOT`, `flock FILE`, `taskset MASK`), then options again (`flock FILE
    // -c CMD`).
    if grammar.positionals > 0 {
        for _ in 0..grammar.positionals {
            match words.get(i) {
                Some(w) if w.is_plain() => i += 1,
                Some(w) => {
                    return Err(Unmodelled::RuntimeArgument {
                        program: program.to_string(),
                        arg: w.text.clone(),
                    });
                }
                None => return Ok(Inner::Itself),
            }
        }
        if !found.ended {
            read_options(grammar, words, &mut i, &mut found)?;
        }
    }
    if i > words.len() {
        return Err(Unmodelled::MissingValue(program.to_string()));
    }
    if let Some(script) = found.script {
        return Ok(Inner::Script {
            runner_len: i.min(words.len()),
            script,
        });
    }
    let mut assignments = Vec::new();
    if grammar.takes_assignments {
        while let Some(word) = words.get(i) {
            let Some((name, value)) = word.text.split_once('=') else {
                break;
            };
            if !is_valid_name(name) {
                break;
            }
            assignments.push((
                name.to_string(),
                Word {
                    text: value.to_string(),
                    dynamic: word.dynamic,
                    expands: word.expands,
                },
            ));
            i += 1;
        }
    }
    if i >= words.len() {
        return Ok(Inner::Itself);
    }
    if grammar.joins_into_script && !found.exec {
        // `watch CMD ARGS` hands `CMD ARGS` joined by spaces to `sh -c`.
        if let Some(w) = words[i..].iter().find(|w| !w.is_plain()) {
            return Err(Unmodelled::RuntimeCommandWord {
                program: program.to_string(),
                word: w.text.clone(),
            });
        }
        let script = words[i..]
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ");
        return Ok(Inner::Script {
            runner_len: words.len(),
            script,
        });
    }
    Ok(Inner::Argv {
        runner_len: i,
        assignments,
    })
}

/// `trap [-lp] [[ACTION] SIGNAL...]`: what the action runs, if anything.
pub(crate) enum TrapAction {
    /// Lists traps or signals, resets or ignores them: runs nothing.
    Nothing,
    /// Runs this script when a signal arrives (or at exit).
    Script(String),
}

/// Reads `trap`'s words (`words[0]` is `trap`).
pub(crate) fn trap_action(words: &[Word]) -> Result<TrapAction, Unmodelled> {
    let mut args = &words[1..];
    if let Some(w) = args.iter().find(|w| !w.is_plain()) {
        return Err(Unmodelled::RuntimeWord {
            program: "trap",
            arg: w.text.clone(),
        });
    }
    match args.first().map(|w| w.text.as_str()) {
        None => return Ok(TrapAction::Nothing),
        Some("-l" | "-p" | "-lp" | "-pl") => return Ok(TrapAction::Nothing),
        Some("--") => args = &args[1..],
        Some(a) if a.starts_with('-') && a != "-" => {
            return Err(Unmodelled::Option {
                program: "trap".to_string(),
                arg: a.to_string(),
            });
        }
        Some(_) => {}
    }
    match args {
        // One argument is a signal to reset; `-` resets and an empty action ignores.
        [] | [_] => Ok(TrapAction::Nothing),
        [action, ..] if action.text == "-" || action.text.trim().is_empty() => Ok(TrapAction::Nothing),
        [action, ..] => Ok(TrapAction::Script(action.text.clone())),
    }
}

/// `xargs` options: how many leading words they take. Unknown options are not modelled.
pub(crate) fn xargs_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    const FLAGS: &str = "0rtpxo";
    const VALUES: &str = "nLPsdaEI";
    const LONG_FLAGS: &[&str] = &[
        "null",
        "no-run-if-empty",
        "verbose",
        "interactive",
        "exit",
        "open-tty",
    ];
    const LONG_VALUES: &[&str] = &[
        "max-args",
        "max-lines",
        "max-procs",
        "max-chars",
        "delimiter",
        "arg-file",
        "eof",
        "replace",
        "process-slot-var",
    ];
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let arg = word.text.as_str();
        if !word.is_plain() {
            return Err(Unmodelled::RuntimeWord {
                program: "xargs",
                arg: arg.to_string(),
            });
        }
        if arg == "--" {
            return Ok(i + 1);
        }
        if let Some(long) = arg.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, _)) => (name, true),
                None => (long, false),
            };
            if name == "process-slot-var" {
                return Err(Unmodelled::XargsSetsVariable);
            }
            if LONG_VALUES.contains(&name) {
                i += if attached { 1 } else { 2 };
            } else if LONG_FLAGS.contains(&name) {
                i += 1;
            } else {
                return Err(Unmodelled::Option {
                    program: "xargs".to_string(),
                    arg: format!("--{name}"),
                });
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            return Ok(i);
        };
        // `-i[R]`, `-e[EOF]` and `-l[N]` take an optional attached value only.
        if let Some(letter @ ('i' | 'e' | 'l')) = cluster.chars().next() {
            let _ = letter;
            i += 1;
            continue;
        }
        let mut consumed_next = false;
        for (at, letter) in cluster.char_indices() {
            if VALUES.contains(letter) {
                consumed_next = cluster[at + 1..].is_empty();
                break;
            }
            if !FLAGS.contains(letter) {
                return Err(Unmodelled::Option {
                    program: "xargs".to_string(),
                    arg: format!("-{letter}"),
                });
            }
        }
        i += if consumed_next { 2 } else { 1 };
    }
    Ok(i.min(words.len()))
}

/// Programs that run each search result through a command given as an argument vector inside their
/// own arguments, with the options that start it (and end it, for find: `;` or `+`).
pub(crate) fn exec_clauses(program: &str, args: &[Word]) -> Option<(Vec<Word>, Vec<Vec<Word>>)> {
    let starts: &[&str] = match program {
        "find" => &["-exec", "-execdir", "-ok", "-okdir"],
        "fd" | "fdfind" => &["-x", "--exec", "-X", "--exec-batch"],
        _ => return None,
    };
    let mut outer = Vec::new();
    let mut inner = Vec::new();
    let mut iter = args.iter();
    while let Some(word) = iter.next() {
        if !starts.contains(&word.text.as_str()) {
            outer.push(word.clone());
            continue;
        }
        let mut clause = Vec::new();
        for w in iter.by_ref() {
            if w.text == ";"
                || (program == "find"
                    && w.text == "+"
                    && clause.last().is_some_and(|l: &Word| l.text == "{}"))
            {
                break;
            }
            clause.push(w.clone());
        }
        inner.push(clause);
    }
    if inner.is_empty() {
        return None;
    }
    Some((outer, inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn runner_grammars_find_the_inner_command() {
        let argv = |line: &str| {
            let w = words(line);
            let program = w[0].text.clone();
            match parse_runner(&program, &w) {
                Ok(Inner::Argv { runner_len, .. }) => w[runner_len..]
                    .iter()
                    .map(|w| w.text.clone())
                    .collect::<Vec<_>>()
                    .join(" "),
                other => panic!("{line}: {other:?}"),
            }
        };
        assert_eq!(argv("sudo rm -rf /"), "rm -rf /");
        assert_eq!(argv("sudo -u root -n rm x"), "rm x");
        assert_eq!(argv("sudo -uroot --preserve-env A=1 rm x"), "rm x");
        assert_eq!(argv("sudo --user=root -- rm x"), "rm x");
        assert_eq!(argv("doas -u root rm x"), "rm x");
        assert_eq!(argv("chroot /srv rm x"), "rm x");
        assert_eq!(argv("flock -n /tmp/lock rm x"), "rm x");
        assert_eq!(argv("unshare -r -n rm x"), "rm x");
        assert_eq!(argv("taskset -c 0 rm x"), "rm x");
        assert_eq!(argv("ionice -c 3 rm x"), "rm x");
        assert_eq!(argv("watch -x rm x"), "rm x");
        assert_eq!(argv("strace -f -o /tmp/t rm x"), "rm x");
    }

    #[test]
    fn runner_scripts_are_found() {
        let script = |line: &[&str]| {
            let w: Vec<Word> = line.iter().map(|s| Word::literal(*s)).collect();
            match parse_runner(line[0], &w) {
                Ok(Inner::Script { script, .. }) => script,
                other => panic!("{line:?}: {other:?}"),
            }
        };
        assert_eq!(script(&["su", "-c", "rm x", "root"]), "rm x");
        assert_eq!(script(&["su", "--command=rm x"]), "rm x");
        assert_eq!(script(&["flock", "/tmp/l", "-c", "rm x"]), "rm x");
        assert_eq!(script(&["watch", "-n", "1", "rm", "x"]), "rm x");
    }

    #[test]
    fn exec_clauses_are_split() {
        let (outer, inner) = exec_clauses("find", &words(". -name a -exec rm {} + -print")).unwrap();
        assert_eq!(
            outer.iter().map(|w| w.text.as_str()).collect::<Vec<_>>(),
            [".", "-name", "a", "-print"]
        );
        assert_eq!(inner.len(), 1);
        assert_eq!(
            inner[0].iter().map(|w| w.text.as_str()).collect::<Vec<_>>(),
            ["rm", "{}"]
        );
        let (_, inner) = exec_clauses("fd", &words("x -X rm")).unwrap();
        assert_eq!(inner[0][0].text, "rm");
        assert!(exec_clauses("find", &words(". -name a")).is_none());
    }
}
