//! Git as the worktree commands run it: the engine's neutralised git (nothing a repository's
//! configuration names runs, no hook), with an identity for the commits it makes when the user has
//! none configured, and errors that carry git's own words.

use std::path::Path;
use std::process::{Output, Stdio};

use super::WorktreeError;

/// Runs `git args` in `dir`; its standard output (trimmed at the end) when it succeeds.
pub(super) fn run(dir: &Path, args: &[&str]) -> Result<String, WorktreeError> {
    let out = output(dir, args)?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
    } else {
        Err(failed(args, &out))
    }
}

/// Runs `git args` in `dir` and returns what it did, whether or not it succeeded.
pub(super) fn output(dir: &Path, args: &[&str]) -> Result<Output, WorktreeError> {
    let mut command = crate::git_command::git(dir);
    if !has_identity(dir) {
        // Commits need a name; a machine where git never made one still gets its work landed.
        command.args(["-c", "user.name=Nerve", "-c", "user.email=nerve@localhost"]);
    }
    command
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|source| WorktreeError::GitMissing { source })
}

/// Runs `git args` in `dir` and returns its standard output as bytes (a blob's content).
pub(super) fn bytes(dir: &Path, args: &[&str]) -> Result<Vec<u8>, WorktreeError> {
    let out = output(dir, args)?;
    if out.status.success() {
        Ok(out.stdout)
    } else {
        Err(failed(args, &out))
    }
}

/// Runs `git args` in `dir` with `input` on its standard input; its output, trimmed.
pub(super) fn run_with_input(dir: &Path, args: &[&str], input: &[u8]) -> Result<String, WorktreeError> {
    use std::io::Write;
    let mut child = crate::git_command::git(dir)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| WorktreeError::GitMissing { source })?;
    if let Some(mut stdin) = child.stdin.take() {
        // A write error means git ended early; its own error, read below, says why.
        let _ = stdin.write_all(input);
    }
    let out = child
        .wait_with_output()
        .map_err(|source| WorktreeError::GitMissing { source })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).trim_end().to_string())
    } else {
        Err(failed(args, &out))
    }
}

/// Whether `git args` succeeds in `dir` (a question, such as whether a ref exists).
pub(super) fn succeeds(dir: &Path, args: &[&str]) -> bool {
    output(dir, args).is_ok_and(|o| o.status.success())
}

/// The error for a git command that failed: the command and what git said.
pub(super) fn failed(args: &[&str], out: &Output) -> WorktreeError {
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let said = if stderr.trim().is_empty() { stdout } else { stderr };
    WorktreeError::Git {
        command: format!("git {}", args.join(" ")),
        said: said.trim().to_string(),
    }
}

fn has_identity(dir: &Path) -> bool {
    let Ok(out) = crate::git_command::git(dir)
        .args(["config", "user.email"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
    else {
        return false;
    };
    out.status.success() && !out.stdout.trim_ascii().is_empty()
}

/// The lines of `text`, without empty ones.
pub(super) fn lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}
