//! Git as the engine runs it for itself (the git status in the system prompt, and any later
//! read of a repository): with every setting that makes git start a program neutralised, so a
//! configuration planted in a repository (its `.git/config`, a submodule's, a `.gitattributes`
//! picking a filter) runs nothing inside the engine. The sandbox keeps sandboxed commands from
//! writing those files; this is the second wall, for whatever got there another way.
//!
//! What git can run while it reads a repository, and how each is turned off here:
//!
//! | Setting | Runs | Neutralised by |
//! |---|---|---|
//! | `core.fsmonitor` | on every index refresh (status, diff, add) | `-c core.fsmonitor=false` |
//! | `core.hooksPath`, `.git/hooks/*` | on commits, checkouts, index writes (`post-index-change`) | `-c core.hooksPath=/dev/null` |
//! | `core.pager`, `pager.<cmd>`, `GIT_PAGER` | when output is shown | `--no-pager`, `-c core.pager=cat` |
//! | `core.editor`, `sequence.editor` | when a message is edited | `-c core.editor=false -c sequence.editor=false` |
//! | `diff.external`, `diff.<driver>.command` | on diffs | `-c diff.external=`, and `--no-ext-diff` on diff commands ([`NO_EXTERNAL_DIFF`]) |
//! | `diff.<driver>.textconv` | on diffs and blames | `--no-textconv` on those commands ([`NO_EXTERNAL_DIFF`]) |
//! | `filter.<driver>.clean`/`smudge`/`process` | when file content is compared or added (status can run `clean`) | each configured driver emptied: `-c filter.<name>.clean= ...` |
//! | `log.showSignature`, `gpg.program` | on `log`/`show` | `-c log.showSignature=false -c gpg.program=false -c gpg.ssh.program=false -c gpg.x509.program=false` |
//! | `core.sshCommand`, `core.gitProxy`, `credential.helper`, `core.askPass`, protocols | on network access | `-c protocol.allow=never -c core.sshCommand=false -c core.gitProxy= -c credential.helper= -c core.askPass=false` |
//! | submodules | status recurses into them (their own configuration) | `--ignore-submodules=dirty` on status ([`STATUS_SUBMODULES`]); the `-c` settings reach child gits too |
//! | `GIT_*` variables the engine inherited (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`...) | anything | every `GIT_*` variable removed |
//!
//! Command-line settings win over every configuration file, includes too.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// The settings given on every call, as `-c` pairs.
pub const NEUTRALISED: [&str; 17] = [
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.editor=false",
    "sequence.editor=false",
    "diff.external=",
    "log.showSignature=false",
    "gpg.program=false",
    "gpg.ssh.program=false",
    "gpg.x509.program=false",
    "protocol.allow=never",
    "core.sshCommand=false",
    "core.gitProxy=",
    "credential.helper=",
    "core.askPass=false",
    "uploadpack.packObjectsHook=",
    "core.alternateRefsCommand=",
];

/// Options for the commands that diff (`diff`, `log -p`, `show`, `blame`): no external diff, no
/// text conversion.
pub const NO_EXTERNAL_DIFF: [&str; 2] = ["--no-ext-diff", "--no-textconv"];

/// The option for `status`: a submodule is compared by its commit only, so no git runs inside it.
pub const STATUS_SUBMODULES: &str = "--ignore-submodules=dirty";

/// The keys of filter drivers that run programs.
const FILTER_KEYS: [&str; 3] = ["clean", "smudge", "process"];

/// A `git` command in `dir` with everything that could run a program neutralised (see the module
/// documentation). The caller adds the subcommand and its arguments.
pub fn git(dir: &Path) -> Command {
    let mut command = bare(dir);
    for name in filter_drivers(dir) {
        for key in FILTER_KEYS {
            command.arg("-c").arg(format!("filter.{name}.{key}="));
        }
        command.arg("-c").arg(format!("filter.{name}.required=false"));
    }
    command
}

/// `git` with the fixed settings and a clean environment, before the filter drivers are known.
fn bare(dir: &Path) -> Command {
    let mut command = Command::new("git");
    crate::child_env::as_user(&mut command);
    let inherited: Vec<OsString> = std::env::vars_os()
        .map(|(name, _)| name)
        .filter(|name| name.to_string_lossy().starts_with("GIT_"))
        .collect();
    for name in inherited {
        command.env_remove(name);
    }
    command
        .current_dir(dir)
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("--no-pager");
    for setting in NEUTRALISED {
        command.arg("-c").arg(setting);
    }
    command
}

/// The names of the filter drivers the configuration in effect in `dir` defines (reading the
/// configuration runs nothing). Names that cannot be passed back as one `-c` key are skipped:
/// git could not have read them as a driver either.
fn filter_drivers(dir: &Path) -> Vec<String> {
    let Ok(out) = bare(dir)
        .args([
            "config",
            "--null",
            "--name-only",
            "--get-regexp",
            r"^filter\..*\.(clean|smudge|process)$",
        ])
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
    else {
        return Vec::new();
    };
    let mut names: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .split('\0')
        .filter_map(|key| key.strip_prefix("filter."))
        .filter_map(|rest| rest.rsplit_once('.').map(|(name, _)| name.to_string()))
        .filter(|name| !name.contains(['=', '\n']))
        .collect();
    names.sort();
    names.dedup();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) {
        let status = Command::new("git")
            .args(args)
            .current_dir(dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .status()
            .unwrap();
        assert!(status.success(), "git {args:?}");
    }

    /// A repository whose configuration runs `touch <marker>` in every way the table names: the
    /// engine's git reads it (status, diff, log, show) and nothing runs, while a plain `git status`
    /// does run it (the planted configuration is live).
    #[test]
    fn a_planted_configuration_runs_nothing_in_the_engines_git() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir(&repo).unwrap();
        run(&repo, &["init", "-q"]);
        run(&repo, &["config", "user.email", "t@example.com"]);
        run(&repo, &["config", "user.name", "t"]);
        std::fs::write(repo.join("a.txt"), "one\n").unwrap();
        std::fs::write(repo.join(".gitattributes"), "*.txt filter=evil diff=evil\n").unwrap();
        run(&repo, &["add", "."]);
        run(&repo, &["commit", "-qm", "first"]);
        let marker = dir.path().join("ran");
        let touch = format!("touch {}; false", marker.display());
        let planted = [
            ("core.fsmonitor", touch.clone()),
            ("core.pager", touch.clone()),
            ("diff.external", touch.clone()),
            ("diff.evil.textconv", touch.clone()),
            ("diff.evil.command", touch.clone()),
            ("filter.evil.clean", touch.clone()),
            ("filter.evil.smudge", touch.clone()),
            ("log.showSignature", "true".into()),
            ("gpg.program", touch.clone()),
        ];
        for (key, value) in &planted {
            run(&repo, &["config", key, value]);
        }
        std::fs::write(
            repo.join(".git/hooks/post-index-change"),
            format!("#!/bin/sh\n{touch}\n"),
        )
        .unwrap();
        // Changed content with the same size and an old time: git must read it to compare.
        std::fs::write(repo.join("a.txt"), "two\n").unwrap();

        let commands: [&[&str]; 5] = [
            &["status", "--short", STATUS_SUBMODULES],
            &["diff", NO_EXTERNAL_DIFF[0], NO_EXTERNAL_DIFF[1]],
            &["log", "-p", NO_EXTERNAL_DIFF[0], NO_EXTERNAL_DIFF[1]],
            &["show", NO_EXTERNAL_DIFF[0], NO_EXTERNAL_DIFF[1]],
            &["ls-files", "-m"],
        ];
        for args in commands {
            let out = git(&repo).args(args).output().unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!marker.exists(), "git {args:?} ran a planted program");
        }
        println!(
            "{} planted settings, {} commands: nothing ran",
            planted.len(),
            commands.len()
        );

        // The same repository, read by a plain git: the planted program runs.
        let _ = Command::new("git")
            .args(["status"])
            .current_dir(&repo)
            .output()
            .unwrap();
        assert!(
            marker.exists(),
            "the planted configuration is live (the test would prove nothing)"
        );
    }
}
