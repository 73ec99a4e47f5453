//! The parsed command as the permission system sees it.

use std::path::Path;

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{ShellPart, ShellSubject};
use crate::tools::bash::{CommandClass, analyze, fallback_segments};

/// Parses `command` and describes it for permission matching; redirection targets are resolved
/// against `cwd`.
pub fn shell_subject(command: &str, cwd: &Path) -> ShellSubject {
    let analysis = analyze(command);
    let parts = analysis
        .subcommands
        .iter()
        .map(|c| ShellPart {
            as_written: c.as_written.clone(),
            canonical: c.canonical.clone(),
            argv: c.argv.clone(),
            read_only: matches!(c.class, CommandClass::ReadOnly),
            neutral: matches!(c.class, CommandClass::Neutral),
        })
        .collect();
    let write_targets = analysis
        .write_targets
        .iter()
        .map(|t| {
            let p = Path::new(t);
            normalize_lexically(&if p.is_absolute() {
                p.to_path_buf()
            } else {
                cwd.join(p)
            })
        })
        .collect();
    // Deny rules also look at crude segments: of the whole text when the command was not
    // understood, and of every command run through a program that runs another one (`sudo rm x`,
    // `watch rm x`), which the parser does not unwrap. Checking more candidates can only deny more.
    let fallback = if analysis.understood {
        analysis
            .subcommands
            .iter()
            .filter(|c| {
                c.argv
                    .first()
                    .is_some_and(|p| RUNS_ANOTHER_COMMAND.contains(&basename_of(p)))
            })
            .flat_map(|c| (1..c.argv.len()).map(|start| argv_from(&c.argv[start..])))
            .collect()
    } else {
        fallback_segments(command)
    };
    let read_targets = analysis
        .subcommands
        .iter()
        .filter(|c| matches!(c.class, CommandClass::ReadOnly))
        .flat_map(|c| read_arguments(&c.argv))
        .map(|arg| read_target(arg, cwd))
        .collect();
    ShellSubject {
        command: command.to_string(),
        read_targets,
        understood: analysis.understood,
        not_understood_reason: analysis.not_understood_reason,
        parts,
        write_targets,
        fallback_segments: fallback,
    }
}

/// Programs whose first operand is a pattern, not a path.
const PATTERN_FIRST: &[&str] = &["grep", "egrep", "fgrep", "rg", "ag", "ack", "sed", "awk", "jq"];

/// The operands of a read-only command that may name files: everything that is not an option,
/// minus a leading pattern for search programs and find's expression.
fn read_arguments(argv: &[String]) -> Vec<&str> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let name = basename_of(program);
    let mut operands: Vec<&str> = Vec::new();
    for arg in args {
        if name == "find" && (arg.starts_with('-') || arg == "(" || arg == "!") {
            // find's expression starts here; the paths come before it.
            break;
        }
        if arg.starts_with('-') && arg != "-" {
            continue;
        }
        operands.push(arg);
    }
    let pattern_given_by_option = args
        .iter()
        .any(|a| a == "-e" || a == "-f" || a.starts_with("--regexp"));
    if PATTERN_FIRST.contains(&name) && !pattern_given_by_option && !operands.is_empty() {
        operands.remove(0);
    }
    if name == "git" {
        // git reads its own repository, not files named by its arguments, except for explicit
        // out-of-tree forms, which carry an absolute or parent path and are kept.
        operands.retain(|a| a.starts_with('/') || a.starts_with('~') || a.contains(".."));
    }
    operands
}

/// Where a read operand points.
fn read_target(arg: &str, cwd: &Path) -> std::path::PathBuf {
    if arg.contains('$') || arg.contains('`') {
        return std::path::PathBuf::from("/");
    }
    let expanded = match arg.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().map(|h| h.join(rest)),
        None if arg == "~" => dirs::home_dir(),
        None => None,
    };
    let path = expanded.unwrap_or_else(|| Path::new(arg).to_path_buf());
    normalize_lexically(&if path.is_absolute() { path } else { cwd.join(path) })
}

/// Programs whose arguments are (or contain) another command line.
const RUNS_ANOTHER_COMMAND: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "runuser",
    "watch",
    "flock",
    "chroot",
    "nsenter",
    "unshare",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "strace",
    "ltrace",
    "valgrind",
    "firejail",
    "systemd-run",
    "script",
    "parallel",
];

fn basename_of(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// `argv` as a command text with the program reduced to its base name.
fn argv_from(argv: &[String]) -> String {
    let mut parts: Vec<&str> = argv.iter().map(String::as_str).collect();
    if let Some(first) = parts.first_mut() {
        *first = basename_of(first);
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_behind_sudo_are_deny_candidates() {
        let s = shell_subject("sudo -n /bin/rm -rf /tmp/x && ls", Path::new("/p"));
        assert!(s.understood);
        assert!(
            s.fallback_segments.contains(&"rm -rf /tmp/x".to_string()),
            "{:?}",
            s.fallback_segments
        );
    }

    #[test]
    fn ordinary_arguments_are_not_deny_candidates() {
        let s = shell_subject("git commit -m 'rm old files'", Path::new("/p"));
        assert!(s.fallback_segments.is_empty(), "{:?}", s.fallback_segments);
    }

    #[test]
    fn read_targets_are_the_operands_of_read_only_parts() {
        let s = shell_subject(
            "cat src/a.rs /etc/passwd | grep -n needle notes.txt && git log -3",
            Path::new("/p"),
        );
        assert_eq!(
            s.read_targets,
            vec![
                std::path::PathBuf::from("/p/src/a.rs"),
                std::path::PathBuf::from("/etc/passwd"),
                std::path::PathBuf::from("/p/notes.txt")
            ]
        );
        let s = shell_subject("find ../other -name '*.rs'", Path::new("/p/sub"));
        assert_eq!(s.read_targets, vec![std::path::PathBuf::from("/p/other")]);
        let s = shell_subject("cat $HOME/.ssh/id_rsa", Path::new("/p"));
        assert_eq!(s.read_targets, vec![std::path::PathBuf::from("/")]);
    }

    #[test]
    fn write_targets_are_absolute() {
        let s = shell_subject("echo hi > out/a.txt 2>/dev/null", Path::new("/p"));
        assert_eq!(s.write_targets, vec![std::path::PathBuf::from("/p/out/a.txt")]);
    }
}
