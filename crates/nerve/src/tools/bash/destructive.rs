//! Which commands destroy data, for the UI's warning and for "always allow", which then offers only
//! the exact command. Judged per part from the parsed words: a part destroys data when it deletes
//! (`rm`, `git clean`, `find -delete`) or overwrites (`sed -i`, `cp`/`mv` onto an existing file, a
//! truncating redirection of an existing file, `git checkout -- PATH`). A command that is not fully
//! understood is not destructive for that alone: it asks anyway, and the parts that were found (or,
//! when it did not parse, the crude segments of its text) decide.

use std::path::Path;

use crate::tools::bash::words::Word;
use crate::tools::bash::wrappers::{Resolution, resolve};
use crate::tools::bash::writes::overwritten_files;
use crate::tools::bash::{analyze_shared, fallback::segment_words};

/// Programs that delete or overwrite data whatever their arguments.
const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "shred", "dd", "mkfs", "truncate", "unlink", "wipefs", "fdisk", "sfdisk", "parted",
];

/// Whether running `command` in `cwd` may destroy data. Overwrites are judged against the files
/// that exist now: `> new.txt` creates, `> README.md` destroys.
pub fn is_destructive(command: &str, cwd: &Path) -> bool {
    let analysis = analyze_shared(command);
    let exists = |target: &str| {
        let path = Path::new(target);
        let path = if path.is_absolute() {
            path.to_path_buf()
        } else {
            cwd.join(path)
        };
        std::fs::metadata(path).is_ok_and(|m| m.is_file())
    };
    if analysis.truncated_targets.iter().any(|t| exists(t)) {
        return true;
    }
    if analysis.subcommands.iter().any(|c| destroys(&c.argv, &exists)) {
        return true;
    }
    // A command that did not parse: each crude segment, with its wrappers stripped.
    !analysis.understood
        && segment_words(command).into_iter().any(|words| {
            let words = words.into_iter().map(Word::literal).collect();
            match resolve(words, Vec::new()) {
                Resolution::Command { argv, .. } | Resolution::NotUnderstood { argv, .. } => {
                    let argv: Vec<String> = argv.into_iter().map(|w| w.text).collect();
                    destroys(&argv, &exists)
                }
                Resolution::Script { script, .. } => is_destructive(&script, cwd),
            }
        })
}

/// Whether one command (program and arguments) deletes or overwrites data.
fn destroys(argv: &[String], exists: &dyn Fn(&str) -> bool) -> bool {
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let name = program.rsplit('/').next().unwrap_or(program);
    let name = name.split('.').next().unwrap_or(name);
    DESTRUCTIVE_PROGRAMS.contains(&name)
        || (name == "git" && destructive_git(args))
        || (name == "find" && args.iter().any(|a| a == "-delete"))
        || (name == "rsync"
            && args
                .iter()
                .any(|a| a.starts_with("--delete") || a.starts_with("--remove-source")))
        || overwritten_files(name, args).is_some_and(|o| o.always || o.if_existing.iter().any(|t| exists(t)))
}

/// `git` subcommands that discard work: hard resets, cleans, forced pushes, checkouts and restores
/// of paths, forced switches and branch deletion, dropped stashes, forced removals.
fn destructive_git(args: &[String]) -> bool {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let has = |flag: &str| words.contains(&flag);
    let sub_at = words.iter().position(|w| !w.starts_with('-'));
    let rest = sub_at.map_or(&[][..], |at| &words[at + 1..]);
    let rest_has = |flag: &str| rest.contains(&flag);
    match sub_at.map(|at| words[at]) {
        Some("reset") => has("--hard"),
        Some("clean") => true,
        Some("push") => {
            has("--force")
                || has("-f")
                || words.iter().any(|w| w.starts_with("--force"))
                || rest.iter().any(|w| w.starts_with('+'))
        }
        Some("checkout") => {
            has("--") || has(".") || has("--force") || has("-f") || has("-p") || has("--patch")
        }
        // `git restore PATH` discards changes in the working tree; `--staged` alone only unstages.
        Some("restore") => {
            !(rest_has("--staged") || rest_has("-S")) || rest_has("--worktree") || rest_has("-W")
        }
        Some("switch") => has("--discard-changes") || has("-f") || has("--force"),
        Some("branch") => has("-D") || (has("-d") && has("--force")),
        Some("stash") => rest_has("drop") || rest_has("clear"),
        Some("rm") => rest
            .iter()
            .any(|w| *w == "--force" || (w.starts_with('-') && !w.starts_with("--") && w.contains('f'))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_destruction_per_subcommand() {
        let cwd = Path::new("/nonexistent-cwd");
        for cmd in [
            "rm -rf build",
            "ls && /bin/rm x",
            "git reset --hard HEAD~1",
            "git push -f origin main",
            "git clean -fdx",
            "dd if=/dev/zero of=x",
            "find . -name '*.tmp' -delete",
            "sudo rm -rf /var/tmp/x",
            "find . -exec rm {} +",
            "rm -rf \"unterminated",
            "sed -i s/a/b/ f",
            "git checkout -- src/main.rs",
        ] {
            assert!(is_destructive(cmd, cwd), "{cmd}");
        }
        for cmd in [
            "ls -la",
            "git status",
            "git push origin main",
            "cargo test",
            "echo rm",
            "echo \"unterminated",
            "echo x > new.txt",
        ] {
            assert!(!is_destructive(cmd, cwd), "{cmd}");
        }
    }
}
