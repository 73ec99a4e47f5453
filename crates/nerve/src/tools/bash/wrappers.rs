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
#[cfg(test)]
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
            "time" => Ok(1 + usize::from(words.get(1).is_some_and(|w| w.text == "-p"))),
            "nice" => nice_prefix(&words),
            "nohup" | "builtin" => Ok(1),
            "stdbuf" => stdbuf_prefix(&words),
            "command" => match words.get(1).map(|w| w.text.as_str()) {
                Some("-v" | "-V") => {
                    return command(
                        words,
                        assignments,
                        stdin_args,
                        Some(CommandClass::ReadOnly),
                        &mut runner,
                    );
                }
                Some("-p") => Ok(2),
                Some(_) | None => Ok(1),
            },
            "exec" => match words.get(1) {
                Some(w) if is_option(&w.text) || !w.is_plain() => Err(Unmodelled::ExecWithOptions),
                Some(_) | None => Ok(1),
            },
            "env" => env_prefix(&words, &mut assignments),
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

/// `timeout [-s SIG|-k DUR|--signal=SIG|--kill-after=DUR|--foreground|--preserve-status|-v] DURATION`.
fn timeout_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
            "-s" | "-k" | "--signal" | "--kill-after" => i += 2,
            "--foreground" | "--preserve-status" | "-v" | "--verbose" => i += 1,
            a if a.starts_with("--signal=") || a.starts_with("--kill-after=") => i += 1,
            a if (a.starts_with("-s") || a.starts_with("-k")) && a.len() > 2 => i += 1,
            a if is_option(a) => return Err(not_modelled("timeout", a)),
            // The duration.
            _ => return Ok(i + 1),
        }
    }
    Ok(i)
}

/// `nice [-n N | -nN | -N | --adjustment=N]`.
fn nice_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    match text(words, 1) {
        Some("-n" | "--adjustment") => Ok(3),
        Some(a) if a.starts_with("--adjustment=") => Ok(2),
        Some(a) if a.starts_with("-n") || a.strip_prefix('-').is_some_and(is_number) => Ok(2),
        Some(a) if is_option(a) => Err(not_modelled("nice", a)),
        Some(_) | None => Ok(1),
    }
}

fn is_number(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_digit())
}

/// `stdbuf` with any of `-i/-o/-e MODE`, `-iL`, `--output=MODE` ...
fn stdbuf_prefix(words: &[Word]) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(arg) = text(words, i) {
        match arg {
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

/// `env NAME=value ... CMD`: assignments move into `assignments`; any option (`-i`, `-u`, `-S`,
/// `--chdir`) changes the environment or splits strings in ways not modelled.
fn env_prefix(words: &[Word], assignments: &mut Vec<Assignment>) -> Result<usize, Unmodelled> {
    let mut i = 1;
    while let Some(word) = words.get(i) {
        if is_option(&word.text) {
            return Err(not_modelled("env", &word.text));
        }
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
    fn unmodelled_wrapper_forms_fail_closed() {
        for line in [
            "env -i ls",
            "xargs --bogus rm",
            "exec -a x ls",
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
