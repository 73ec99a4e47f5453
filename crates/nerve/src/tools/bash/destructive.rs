//! Which commands destroy data, for the UI's warning (the permission decision does not depend on
//! it). Judged per subcommand from the parsed words; an unparsed command counts as destructive.

use crate::tools::bash::{CommandAnalysis, analyze_shared};

/// Programs that delete or overwrite data whatever their arguments.
const DESTRUCTIVE_PROGRAMS: &[&str] = &[
    "rm", "rmdir", "shred", "dd", "mkfs", "truncate", "unlink", "wipefs", "fdisk", "sfdisk", "parted",
];

/// Whether running `command` may destroy data.
pub fn is_destructive(command: &str) -> bool {
    let analysis = analyze_shared(command);
    destructive_analysis(&analysis)
}

fn destructive_analysis(analysis: &CommandAnalysis) -> bool {
    if !analysis.understood {
        return true;
    }
    analysis.subcommands.iter().any(|c| {
        let Some((program, args)) = c.argv.split_first() else {
            return false;
        };
        let name = program.rsplit('/').next().unwrap_or(program);
        let name = name.split('.').next().unwrap_or(name);
        DESTRUCTIVE_PROGRAMS.contains(&name)
            || (name == "git" && destructive_git(args))
            || (name == "find" && args.iter().any(|a| a == "-delete"))
    })
}

/// `git` subcommands that discard work: hard resets, cleans, forced pushes, discarding checkouts
/// and forced branch deletion.
fn destructive_git(args: &[String]) -> bool {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let has = |flag: &str| words.contains(&flag);
    match words.iter().find(|w| !w.starts_with('-')).copied() {
        Some("reset") => has("--hard"),
        Some("clean") => true,
        Some("push") => has("--force") || has("-f") || words.iter().any(|w| w.starts_with("--force")),
        Some("checkout") | Some("restore") => has("--") || has(".") || has("--force") || has("-f"),
        Some("branch") => has("-D"),
        Some("stash") => words.contains(&"drop") || words.contains(&"clear"),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn judges_destruction_per_subcommand() {
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
            "echo \"unterminated",
        ] {
            assert!(is_destructive(cmd), "{cmd}");
        }
        for cmd in [
            "ls -la",
            "git status",
            "git push origin main",
            "cargo test",
            "echo rm",
        ] {
            assert!(!is_destructive(cmd), "{cmd}");
        }
    }
}
