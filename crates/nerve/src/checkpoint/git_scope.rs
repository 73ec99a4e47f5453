//! Change sets read from git instead of the session's checkpoints: what is uncommitted, what is
//! staged, and what differs from a base (a branch, or the commit a session's worktree started
//! from). The files are the same `FileChange`s the Changes panel shows for a turn or a session,
//! each marked as seen by git, so one view renders both.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use super::changes::file_change;
use super::{ChangeScope, ChangeSet, CheckpointError, FileStatus, Seen};

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
    let mut sides = Vec::new();
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
        sides.push((rel, old, new));
    }
    let renames = renames(&sides);
    let mut files = Vec::new();
    for (i, (rel, old, new)) in sides.iter().enumerate() {
        if renames.iter().any(|&(from, _)| from == i) {
            continue;
        }
        match renames.iter().find(|&&(_, to)| to == i) {
            Some(&(from, _)) => {
                let (from_rel, from_old, _) = &sides[from];
                let mut change = file_change(
                    top.join(rel),
                    from_old.clone(),
                    new.clone(),
                    Seen::Git,
                    Vec::new(),
                );
                change.status = FileStatus::Renamed;
                change.renamed_from = Some(top.join(from_rel));
                files.push(change);
            }
            // The same content on both sides: only the mode changed (the file says so, with no hunk).
            None => files.push(file_change(
                top.join(rel),
                old.clone(),
                new.clone(),
                Seen::Git,
                Vec::new(),
            )),
        }
    }
    Ok(ChangeSet {
        scope,
        files,
        unseen: Vec::new(),
    })
}

/// Pairs of (deleted, created) among `sides` that are one file moved: the same bytes, or for text
/// files at least half the lines the same (git's default rename threshold), each deleted file
/// paired with the created file most like it. Git itself only sees renames it was told about
/// (`git mv`, or both sides staged); a file the agent moved with `mv` is found here too.
fn renames(sides: &[FileSides]) -> Vec<(usize, usize)> {
    // Past this many comparisons only identical content counts: the pairing stays cheap for a
    // change that deletes and creates thousands of files.
    const MAX_SIMILARITY_CHECKS: usize = 2_500;
    const MAX_COMPARED_BYTES: usize = 256 * 1024;
    let deleted: Vec<(usize, &Vec<u8>)> = sides
        .iter()
        .enumerate()
        .filter_map(|(i, (_, old, new))| match (old, new) {
            (Some(old), None) => Some((i, old)),
            _ => None,
        })
        .collect();
    let mut created: Vec<(usize, &Vec<u8>)> = sides
        .iter()
        .enumerate()
        .filter_map(|(i, (_, old, new))| match (old, new) {
            (None, Some(new)) => Some((i, new)),
            _ => None,
        })
        .collect();
    let similar_too = deleted.len() * created.len() <= MAX_SIMILARITY_CHECKS;
    let mut pairs = Vec::new();
    for (from, old) in deleted {
        let exact = created.iter().position(|(_, new)| *new == old);
        let best = exact.or_else(|| {
            if !similar_too || old.len() > MAX_COMPARED_BYTES {
                return None;
            }
            let old_text = std::str::from_utf8(old).ok()?;
            created
                .iter()
                .enumerate()
                .filter(|(_, (_, new))| new.len() <= MAX_COMPARED_BYTES)
                .filter_map(|(at, (_, new))| {
                    let new_text = std::str::from_utf8(new).ok()?;
                    let ratio = similar::TextDiff::from_lines(old_text, new_text).ratio();
                    (ratio >= 0.5).then_some((at, ratio))
                })
                .max_by(|a, b| a.1.total_cmp(&b.1))
                .map(|(at, _)| at)
        });
        if let Some(at) = best {
            let (to, _) = created.remove(at);
            pairs.push((from, to));
        }
    }
    pairs
}

/// A file's path (relative to the repository's top) and its bytes on the old and new side.
type FileSides = (String, Option<Vec<u8>>, Option<Vec<u8>>);

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
