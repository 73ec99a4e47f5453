//! Programs that only run another program (`timeout 5 nice -n 2 git status`), and the ones that run a
//! script given as text (`eval`, `bash -c`). Stripping them lets rules judge and match the real command.

use crate::tools::bash::analysis::CommandClass;
use crate::tools::bash::env_names::is_valid_name;
use crate::tools::bash::file_options::option_files;
use crate::tools::bash::options::is_option;
use crate::tools::bash::reasons::Unmodelled;
use crate::tools::bash::runners::{
    Inner, RunnerKind, TrapAction, parse_runner, runner_kind, trap_action, xargs_prefix,
};
use crate::tools::bash::words::{Word, basename, is_system_program};

/// A `NAME=value` assignment in front of a command or after `env`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Assignment {
    /// The variable name.
    pub name: String,
    /// The value after quote removal.
    pub value: Word,
}

/// What a command really runs once wrappers are stripped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Resolution {
    /// A program with its arguments.
    Command {
        /// The program and its arguments; empty for an assignment-only statement.
        argv: Vec<Word>,
        /// Assignments in front of the command or given to `env`.
        assignments: Vec<Assignment>,
        /// `xargs` appends arguments read from standard input.
        stdin_args: bool,
        /// A class decided by the wrapper itself (`command -v x` is a lookup).
        forced: Option<CommandClass>,
        /// Words of guarded runners in front of the command (`sudo -u root`), which allow rules
        /// must name and which make it never read-only (see [`crate::tools::bash::runners`]).
        runner: Vec<Word>,
    },
    /// A literal script to analyse recursively (`eval '...'`, `bash -c '...'`).
    Script {
        /// The script text.
        script: String,
        /// Assignments in front of the command.
        assignments: Vec<Assignment>,
        /// Words of guarded runners that run the script (`su -c '...'`).
        runner: Vec<Word>,
    },
    /// A form this analysis does not model; the caller fails closed.
    NotUnderstood {
        /// The words as far as they were stripped, for reporting and deny matching.
        argv: Vec<Word>,
        /// Why.
        reason: Unmodelled,
    },
}

/// Shells whose `-c SCRIPT` is analysed as bash. zsh differs in places (glob qualifiers); the grammar
/// rejects those forms as syntax errors, which fails closed.
const SHELLS: &[&str] = &["bash", "sh", "zsh", "dash"];

/// Strips wrappers from `words` (nested ones too) and reports what runs.
pub(crate) fn resolve(words: Vec<Word>, assignments: Vec<Assignment>) -> Resolution {
    resolve_with_inputs(words, assignments, &mut Vec::new())
}

/// [`resolve`], also collecting the files the stripped wrappers read as input (`xargs -a FILE` is
/// `xargs < FILE`; see [`crate::tools::bash::file_options`]).
pub(crate) fn resolve_with_inputs(
    mut words: Vec<Word>,
    mut assignments: Vec<Assignment>,
    inputs: &mut Vec<Word>,
) -> Resolution {
    let mut stdin_args = false;
    let mut runner: Vec<Word> = Vec::new();
    // Every exit below hands the guarded runners found so far to the command it reports.
    let command = |argv, assignments, stdin_args, forced, runner: &mut Vec<Word>| Resolution::Command {
        argv,
        assignments,
        stdin_args,
        forced,
        runner: std::mem::take(runner),
    };
    loop {
        let Some(first) = words.first() else {
            return command(words, assignments, stdin_args, None, &mut runner);
        };
        if first.dynamic {
            let reason = Unmodelled::RuntimeCommandName(first.text.clone());
            return Resolution::NotUnderstood { argv: words, reason };
        }
        if first.expands {
            let reason = Unmodelled::ExpandedCommandName(first.text.clone());
            return Resolution::NotUnderstood { argv: words, reason };
        }
        if !is_system_program(&first.text) {
            // `/tmp/x/timeout 5 ls` runs `/tmp/x/timeout`, not a wrapper; classify judges the path.
            return command(words, assignments, stdin_args, None, &mut runner);
        }
        let program = basename(&first.text).to_string();
        let skip = match program.as_str() {
            "timeout" => timeout_prefix(&words),
            "time" => time_prefix(&words),
            "nice" => nice_prefix(&words),
            "nohup" | "builtin" => Ok(end_of_options(&words, 1)),
            "stdbuf" => stdbuf_prefix(&words),
            "command" => match command_prefix(&words) {
                // `command -v x`, `command -V x`: a lookup, whatever `-p` and `--` say.
                Ok(CommandPrefix::Lookup) => {
                    return command(
                        words,
                        assignments,
                        stdin_args,
                        Some(CommandClass::ReadOnly),
                        &mut runner,
                    );
                }
                Ok(CommandPrefix::Runs(n)) => Ok(n),
                Err(reason) => Err(reason),
            },
            "exec" => match exec_prefix(&words) {
                Ok(ExecPrefix { len, renames }) => {
                    if renames {
                        // `exec -a NAME` runs the program under another name: a multi-call binary
                        // would become that program, and an allow rule must name the renaming.
                        if words
                            .get(len)
                            .is_some_and(|w| matches!(basename(&w.text), "busybox" | "toybox"))
                        {
                            Err(Unmodelled::ExecWithOptions)
                        } else {
                            runner.extend(words[..len.min(words.len())].iter().cloned());
                            Ok(len)
                        }
                    } else {
                        Ok(len)
                    }
                }
                Err(reason) => Err(reason),
            },
            "env" => env_prefix(&mut words, &mut assignments),
            "xargs" => match xargs_prefix(&words) {
                // Plain `xargs` runs `echo` with the input.
                Ok(n) if n >= words.len() => {
                    inputs.extend(xargs_input_files(&words));
                    return command(words, assignments, true, Some(CommandClass::Neutral), &mut runner);
                }
                Ok(n) => {
                    inputs.extend(xargs_input_files(&words[..n]));
                    stdin_args = true;
                    Ok(n)
                }
                Err(reason) => Err(reason),
            },
            // Multi-call binaries: `busybox rm x` is `rm x`.
            "busybox" | "toybox" => match words.get(1) {
                Some(w) if !is_option(&w.text) => Ok(1),
                Some(_) | None => return command(words, assignments, stdin_args, None, &mut runner),
            },
            "trap" => {
                return match trap_action(&words) {
                    Ok(TrapAction::Nothing) => command(
                        words,
                        assignments,
                        stdin_args,
                        Some(CommandClass::Neutral),
                        &mut runner,
                    ),
                    Ok(TrapAction::Script(script)) => Resolution::Script {
                        script,
                        assignments,
                        runner,
                    },
                    Err(reason) => Resolution::NotUnderstood { argv: words, reason },
                };
            }
            p if runner_kind(p).is_some() => match parse_runner(p, &words) {
                Ok(Inner::Argv {
                    runner_len,
                    assignments: passed,
                }) => {
                    if runner_kind(p) == Some(RunnerKind::Guarded) {
                        runner.extend(words[..runner_len].iter().cloned());
                    }
                    assignments.extend(passed.into_iter().map(|(name, value)| Assignment { name, value }));
                    // The runner's words were checked by its grammar.
                    words.drain(..runner_len);
                    continue;
                }
                Ok(Inner::Script { script, .. }) => {
                    if runner_kind(p) == Some(RunnerKind::Guarded) {
                        runner.extend(words.iter().cloned());
                    }
                    return Resolution::Script {
                        script,
                        assignments,
                        runner,
                    };
                }
                Ok(Inner::Itself) => return command(words, assignments, stdin_args, None, &mut runner),
                Err(reason) => Err(reason),
            },
            "eval" => return eval(words, assignments, runner),
            p if SHELLS.contains(&p) => return shell(words, assignments, runner),
            _ => return command(words, assignments, stdin_args, None, &mut runner),
        };
        match skip {
            Err(reason) => return Resolution::NotUnderstood { argv: words, reason },
            // A wrapper with nothing to run is judged as itself (`time` alone, `nohup` alone).
            Ok(n) if n >= words.len() => return command(words, assignments, stdin_args, None, &mut runner),
            Ok(n) => {
                if let Some(w) = words[..n].iter().find(|w| !w.is_plain()) {
                    let reason = Unmodelled::RuntimeWrapperArgument(w.text.clone());
                    return Resolution::NotUnderstood { argv: words, reason };
                }
                words.drain(..n);
            }
        }
    }
}

/// The files `xargs -a FILE` / `--arg-file=FILE` reads, from xargs's own words.
fn xargs_input_files(words: &[Word]) -> Vec<Word> {
    let texts: Vec<String> = words.iter().skip(1).map(|w| w.text.clone()).collect();
    option_files("xargs", &texts)
        .files
        .into_iter()
        .map(|f| Word::literal(f.path))
        .collect()
}

fn command(argv: Vec<Word>, assignments: Vec<Assignment>, runner: Vec<Word>) -> Resolution {
    Resolution::Command {
        argv,
        assignments,
        stdin_args: false,
        forced: None,
        runner,
    }
}

/// An option of `program` this analysis does not know.
fn not_modelled(program: &str, arg: &str) -> Unmodelled {
    Unmodelled::Option {
        program: program.to_string(),
        arg: arg.to_string(),
    }
}

fn text(words: &[Word], i: usize) -> Option<&str> {
    words.get(i).map(|w| w.text.as_str())
}

/// Skips one `--` at `i`, which ends a wrapper's options.
fn end_of_options(words: &[Word], i: usize) -> usize {
    i + usize::from(text(words, i) == Some("--"))
}

/// What `command [-pvV] [--]` does.
enum CommandPrefix {
    /// Looks the name up (`-v`, `-V`).
    Lookup,
    /// Runs the command after this many words.
    Runs(usize),
}

/// `command [-p] [-v|-V] [--] NAME ...`: options may be clustered (`-pv`) and repeated.
fn command_prefix(words: &[Word]) -> Result<CommandPrefix, Unmodelled> {
    let mut i = 1;
    let mut lookup = false;
    while let Some(arg) = text(words, i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
            break;
        };
        if !letters.chars().all(|c| matches!(c, 'p' | 'v' | 'V')) {
            return Err(not_modelled("command", arg));
        }
        lookup |= letters.contains(['v', 'V']);
        i += 1;
    }
    Ok(if lookup {
        CommandPrefix::Lookup
    } else {
        CommandPrefix::Runs(i)
    })
}

/// `exec [-cl] [-a NAME] [--] COMMAND`.
struct ExecPrefix {
    /// Words before the command.
    len: usize,
    /// Whether `-a NAME` gives the program another name.
    renames: bool,
}

fn exec_prefix(words: &[Word]) -> Result<ExecPrefix, Unmodelled> {
    let mut i = 1;
    let mut renames = false;
    while let Some(arg) = text(words, i) {
        if arg == "--" {
            i += 1;
            break;
        }
        let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) else {
            break;
        };
        let mut step = 1;
        for (at, letter) in letters.char_indices() {
            match letter {
                'c' | 'l' => {}
                'a' => {
                    renames = true;
                    // The name is the rest of the cluster or the next word.
                    if at + 1 == letters.len() {
                        step = 2;
                    }
                    break;
                }
                _ => return Err(not_modelled("exec", arg)),
            }
        }
        i += step;
    }
    if i > words.len() {
        return Err(Unmodelled::MissingValue("exec".into()));
    }
    Ok(ExecPrefix { len: i, renames })
}

/// bash's `time [-p] [--]`, or GNU time's options that only change what it prints. `-o FILE`
/// writes a file, so it is not modelled.
fn time_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
            "--" => return Ok(i + 1),
            "-p" | "-v" | "-q" | "--portability" | "--verbose" | "--quiet" => i += 1,
            "-f" | "--format" => i += 2,
            a if a.starts_with("--format=") || (a.starts_with("-f") && a.len() > 2) => i += 1,
            a if is_option(a) => return Err(not_modelled("time", a)),
            _ => return Ok(i),
        }
    }
    Ok(i)
}

/// `timeout [-s SIG|-k DUR|--signal=SIG|--kill-after=DUR|--foreground|--preserve-status|-v] [--]
/// DURATION`.
fn timeout_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
            "-s" | "-k" | "--signal" | "--kill-after" => i += 2,
            "--foreground" | "--preserve-status" | "-v" | "--verbose" => i += 1,
            // The duration follows.
            "--" => return Ok(i + 2),
            a if a.starts_with("--signal=") || a.starts_with("--kill-after=") => i += 1,
            a if (a.starts_with("-s") || a.starts_with("-k")) && a.len() > 2 => i += 1,
            a if is_option(a) => return Err(not_modelled("timeout", a)),
            // The duration.
            _ => return Ok(i + 1),
        }
    }
    Ok(i)
}

/// `nice [-n N | -nN | -N | --adjustment=N | --adjustment N]... [--]`.
fn nice_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
            "--" => return Ok(i + 1),
            "-n" | "--adjustment" => i += 2,
            a if a.starts_with("--adjustment=") => i += 1,
            a if a.starts_with("-n") || a.strip_prefix('-').is_some_and(is_number) => i += 1,
            a if is_option(a) => return Err(not_modelled("nice", a)),
            _ => return Ok(i),
        }
    }
    Ok(i)
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `stdbuf` with any of `-i/-o/-e MODE`, `-iL`, `--output=MODE` ..., then `--`.
fn stdbuf_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
            "--" => return Ok(i + 1),
            "-i" | "-o" | "-e" | "--input" | "--output" | "--error" => i += 2,
            a if ["--input=", "--output=", "--error="]
                .iter()
                .any(|p| a.starts_with(p)) =>
            {
                i += 1
            }
            a if ["-i", "-o", "-e"].iter().any(|p| a.starts_with(p)) => i += 1,
            a if is_option(a) => return Err(not_modelled("stdbuf", a)),
            _ => return Ok(i),
        }
    }
    Ok(i)
}

/// Characters `env -S` treats as plain text; a string with anything else (quotes, backslashes,
/// `${VAR}`, `#`) is split by rules not modelled here.
fn is_plain_split_string(s: &str) -> bool {
    s.chars()
        .all(|c| c.is_ascii_alphanumeric() || c.is_ascii_whitespace() || "_-./=:@+,%^".contains(c))
}

/// `env [OPTION]... [--] [NAME=value]... CMD`: assignments move into `assignments`. Options that
/// only change the environment (`-i`, `-u NAME`) or signal handling, and `--`, are skipped;
/// `-S STRING` is split into words in place when it is plain text; `-C DIR` changes where the
/// command runs and is not modelled.
fn env_prefix(words: &mut Vec<Word>, assignments: &mut Vec<Assignment>) -> Result<usize, Unmodelled> {
    const FLAGS: &[&str] = &[
        "-i",
        "-",
        "-0",
        "-v",
        "--ignore-environment",
        "--null",
        "--debug",
        "--list-signal-handling",
        "--block-signal",
        "--default-signal",
        "--ignore-signal",
    ];
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let arg = word.text.clone();
        if !is_option(&arg) && arg != "-" {
            break;
        }
        if !word.is_plain() {
            return Err(Unmodelled::RuntimeOption {
                program: "env".into(),
                arg,
            });
        }
        if arg == "--" {
            i += 1;
            break;
        }
        let split = if arg == "-S" || arg == "--split-string" {
            let value = words.get(i + 1).ok_or(Unmodelled::MissingValue("env".into()))?;
            if !value.is_plain() {
                return Err(Unmodelled::RuntimeOption {
                    program: "env".into(),
                    arg: value.text.clone(),
                });
            }
            Some((value.text.clone(), 2))
        } else {
            arg.strip_prefix("--split-string=")
                .or_else(|| arg.strip_prefix("-S").filter(|v| !v.is_empty()))
                .map(|value| (value.to_string(), 1))
        };
        if let Some((string, taken)) = split {
            if !is_plain_split_string(&string) {
                return Err(not_modelled("env", &format!("-S {string}")));
            }
            // `env -S 'A B'` runs as `env A B`.
            let parts: Vec<Word> = string.split_ascii_whitespace().map(Word::literal).collect();
            words.splice(i..i + taken, parts);
            continue;
        }
        let is_signal_option = ["--block-signal=", "--default-signal=", "--ignore-signal="]
            .iter()
            .any(|p| arg.starts_with(p));
        if FLAGS.contains(&arg.as_str()) || is_signal_option || arg.starts_with("--unset=") {
            i += 1;
        } else if arg == "-u" || arg == "--unset" {
            i += 2;
        } else if arg.starts_with("-u")
            || (arg.starts_with("-i") && arg[2..].chars().all(|c| c == 'v' || c == '0'))
        {
            i += 1;
        } else {
            return Err(not_modelled("env", &arg));
        }
    }
    while let Some(word) = words.get(i) {
        let Some((name, value)) = word.text.split_once('=') else {
            break;
        };
        if !is_valid_name(name) {
            return Err(Unmodelled::EnvNotPlainAssignment(word.text.clone()));
        }
        assignments.push(Assignment {
            name: name.to_string(),
            value: Word {
                text: value.to_string(),
                dynamic: word.dynamic,
                expands: word.expands,
            },
        });
        i += 1;
    }
    // `env A=1` alone prints the environment: keep the words so it is judged as `env`.
    if i >= words.len() {
        return Ok(words.len());
    }
    Ok(i)
}

/// `eval ARGS`: bash joins the arguments with spaces and runs the result.
fn eval(words: Vec<Word>, assignments: Vec<Assignment>, runner: Vec<Word>) -> Resolution {
    let args = match words.get(1) {
        Some(w) if w.text == "--" => &words[2..],
        Some(_) | None => &words[1..],
    };
    if let Some(w) = args.iter().find(|w| !w.is_plain()) {
        let reason = Unmodelled::RuntimeEval(w.text.clone());
        return Resolution::NotUnderstood { argv: words, reason };
    }
    let script = args.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
    Resolution::Script {
        script,
        assignments,
        runner,
    }
}

/// `bash [-euxv] [-o OPT] -c SCRIPT [NAME ARGS...]`. Without `-c` the shell runs a file or reads
/// standard input, which is judged as the program `bash` (not read-only).
fn shell(words: Vec<Word>, assignments: Vec<Assignment>, runner: Vec<Word>) -> Resolution {
    const SHORT: &str = "euxvc";
    const SET_OPTIONS: &[&str] = &["pipefail", "errexit", "nounset", "xtrace"];
    let mut has_c = false;
    let mut i = 1;
    while let Some(word) = words.get(i) {
        let arg = word.text.as_str();
        if !word.is_plain() {
            if has_c {
                break;
            }
            let reason = Unmodelled::RuntimeShellArgument(arg.to_string());
            return Resolution::NotUnderstood { argv: words, reason };
        }
        if arg == "-o" || arg == "+o" {
            if !text(&words, i + 1).is_some_and(|o| SET_OPTIONS.contains(&o)) {
                let reason = Unmodelled::ShellSetOption;
                return Resolution::NotUnderstood { argv: words, reason };
            }
            i += 2;
        } else if arg == "--norc" || arg == "--noprofile" {
            i += 1;
        } else if let Some(letters) = arg.strip_prefix('-').filter(|l| !l.is_empty()) {
            if !letters.chars().all(|c| SHORT.contains(c)) {
                let reason = Unmodelled::ShellOption(arg.to_string());
                return Resolution::NotUnderstood { argv: words, reason };
            }
            has_c |= letters.contains('c');
            i += 1;
        } else {
            break;
        }
    }
    if !has_c {
        return command(words, assignments, runner);
    }
    match words.get(i) {
        Some(script) if script.is_plain() => Resolution::Script {
            script: script.text.clone(),
            assignments,
            runner,
        },
        Some(script) => {
            let reason = Unmodelled::RuntimeShellScript(script.text.clone());
            Resolution::NotUnderstood { argv: words, reason }
        }
        None => {
            let reason = Unmodelled::ShellWithoutScript;
            Resolution::NotUnderstood { argv: words, reason }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn words(line: &str) -> Vec<Word> {
        line.split_whitespace().map(Word::literal).collect()
    }

    fn stripped(line: &str) -> Vec<String> {
        let resolution = resolve(words(line), Vec::new());
        let Resolution::Command { argv, .. } = resolution else {
            panic!("{line}: {resolution:?}");
        };
        argv.into_iter().map(|w| w.text).collect()
    }

    #[test]
    fn wrappers_nest() {
        assert_eq!(stripped("timeout 5 nice -n 2 git status"), ["git", "status"]);
        assert_eq!(stripped("timeout -k 5 --signal=KILL 30s rm x"), ["rm", "x"]);
        assert_eq!(stripped("time -p nohup stdbuf -oL -e 0 grep x"), ["grep", "x"]);
        assert_eq!(stripped("/usr/bin/env A=1 B=2 ls"), ["ls"]);
        assert_eq!(stripped("command -p builtin exec ls"), ["ls"]);
        assert_eq!(stripped("nice -10 ls"), ["ls"]);
        assert_eq!(stripped("time"), ["time"]);
        assert_eq!(stripped("env A=1"), ["env", "A=1"]);
    }

    #[test]
    fn wrappers_accept_double_dash_and_their_documented_options() {
        for line in [
            "command -- rm a",
            "command -p -- rm a",
            "builtin -- rm a",
            "exec -- rm a",
            "exec -cl -- rm a",
            "exec -a name -- rm a",
            "exec -aname rm a",
            "nice -- rm a",
            "nice -n 5 -- rm a",
            "nice --adjustment=3 -- rm a",
            "nohup -- rm a",
            "env -- rm a",
            "env -i -u HOME -- rm a",
            "env --unset=HOME A=1 rm a",
            "env -S rm a",
            "env --split-string=rm a",
            "timeout -- 5 rm a",
            "timeout -s KILL -- 5 rm a",
            "time -p -- rm a",
            "time -- rm a",
            "stdbuf -oL -- rm a",
        ] {
            assert_eq!(stripped(line), ["rm", "a"], "{line}");
        }
        assert!(matches!(
            resolve(words("command -p -v rm"), Vec::new()),
            Resolution::Command {
                forced: Some(CommandClass::ReadOnly),
                ..
            }
        ));
    }

    #[test]
    fn unmodelled_wrapper_forms_fail_closed() {
        for line in [
            "env -C /tmp ls",
            "env -S 'ls' x",
            "xargs --bogus rm",
            "exec -a rm busybox x",
            "exec -z ls",
            "command -x ls",
            "time -o out ls",
            "timeout --bogus 5 ls",
            "bash -l -c ls",
        ] {
            assert!(
                matches!(resolve(words(line), Vec::new()), Resolution::NotUnderstood { .. }),
                "{line}"
            );
        }
    }

    #[test]
    fn scripts_are_extracted() {
        let script = |line: &str| {
            let resolution = resolve(words(line), Vec::new());
            let Resolution::Script { script, .. } = resolution else {
                panic!("{line}: {resolution:?}");
            };
            script
        };
        assert_eq!(script("bash -c ls"), "ls");
        assert_eq!(script("sh -ec ls x y"), "ls");
        assert_eq!(script("eval rm x"), "rm x");
        assert!(matches!(
            resolve(words("bash script.sh"), Vec::new()),
            Resolution::Command { .. }
        ));
    }
}
