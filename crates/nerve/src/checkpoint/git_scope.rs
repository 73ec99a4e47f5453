//! Change sets read from git instead of the session's checkpoints: what is uncommitted, what is
//! staged, and what differs from a base (a branch, or the commit a session's worktree started
//! from). The files are the same `FileChange`s the Changes panel shows for a turn or a session,
//! each marked as seen by git, so one view renders both.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::changes::file_change;
use super::{ChangeScope, ChangeSet, CheckpointError, Seen};

/// The change set of a git scope in the repository holding `dir`; `default_base` answers
/// `GitBase { base: None }` (the session's worktree's base commit).
pub fn git_change_set(
    dir: &Path,
    scope: ChangeScope,
    default_base: Option<&str>,
) -> Result<ChangeSet, CheckpointError> {
    let top = PathBuf::from(run(dir, &["rev-parse", "--show-toplevel"])?.trim_end());
    let has_head = run(&top, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]).is_ok();
    // The tree an unborn branch's changes are read against: nothing.
    let empty_tree = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let head = if has_head { "HEAD" } else { empty_tree };
    let (old_rev, new_side, mut paths) = match &scope {
        ChangeScope::GitUncommitted => {
            let mut paths = names(&top, &["diff", "--name-only", "-z", "--no-renames", head])?;
            paths.extend(names(
                &top,
                &["ls-files", "-z", "--others", "--exclude-standard"],
            )?);
            (head.to_string(), Side::WorkTree, paths)
        }
        ChangeScope::GitStaged => (
            head.to_string(),
            Side::Index,
            names(
                &top,
                &["diff", "--cached", "--name-only", "-z", "--no-renames", head],
            )?,
        ),
        ChangeScope::GitBase { base } => {
            let base = base.as_deref().or(default_base).ok_or(CheckpointError::NoBase)?;
            if base.starts_with('-') {
                return Err(CheckpointError::Git {
                    command: "git merge-base".into(),
                    said: format!("`{base}` is not a branch, tag or commit"),
                });
            }
            let fork = run(&top, &["merge-base", base, "HEAD"])?.trim_end().to_string();
            let mut paths = names(&top, &["diff", "--name-only", "-z", "--no-renames", &fork])?;
            paths.extend(names(
                &top,
                &["ls-files", "-z", "--others", "--exclude-standard"],
            )?);
            (fork, Side::WorkTree, paths)
        }
        ChangeScope::Session | ChangeScope::Turn { .. } | ChangeScope::Call { .. } => {
            return Err(CheckpointError::Git {
                command: "git diff".into(),
                said: "not a git scope".into(),
            });
        }
    };
    paths.sort();
    paths.dedup();
    let mut files = Vec::new();
    for rel in paths {
        let old = blob(&top, &format!("{old_rev}:{rel}"));
        let new = match new_side {
            Side::Index => blob(&top, &format!(":{rel}")),
            Side::WorkTree => match std::fs::symlink_metadata(top.join(&rel)) {
                Ok(m) if m.is_file() => Some(
                    std::fs::read(top.join(&rel))
                        .map_err(|e| CheckpointError::io("read", top.join(&rel), e))?,
                ),
                Ok(m) if m.file_type().is_symlink() => std::fs::read_link(top.join(&rel))
                    .ok()
                    .map(|t| t.to_string_lossy().into_owned().into_bytes()),
                _ => None,
            },
        };
        if old == new && old.is_none() {
            continue;
        }
        // The same content on both sides: only the mode changed (the file says so, with no hunk).
        files.push(file_change(top.join(&rel), old, new, Seen::Git, Vec::new()));
    }
    Ok(ChangeSet {
        scope,
        files,
        unseen: Vec::new(),
    })
}

enum Side {
    WorkTree,
    Index,
}

/// A blob's bytes (`REV:path`, `:path` for the index), `None` when it is not there.
fn blob(top: &Path, spec: &str) -> Option<Vec<u8>> {
    let out = crate::git_command::git(top)
        .args(["cat-file", "blob", spec])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    out.status.success().then_some(out.stdout)
}

fn names(top: &Path, args: &[&str]) -> Result<Vec<String>, CheckpointError> {
    Ok(run(top, args)?
        .split('\0')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect())
}

fn run(dir: &Path, args: &[&str]) -> Result<String, CheckpointError> {
    let out = crate::git_command::git(dir)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| CheckpointError::Git {
            command: format!("git {}", args.join(" ")),
            said: e.to_string(),
        })?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(CheckpointError::Git {
            command: format!("git {}", args.first().copied().unwrap_or("")),
            said: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}
