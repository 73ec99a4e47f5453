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
    // Every blob in one `git cat-file --batch`: a process per file cost 5 ms each.
    let mut specs: Vec<String> = paths.iter().map(|rel| format!("{old_rev}:{rel}")).collect();
    if matches!(new_side, Side::Index) {
        specs.extend(paths.iter().map(|rel| format!(":{rel}")));
    }
    let mut blobs = blobs(&top, &specs)?.into_iter();
    let mut old_blobs: Vec<Option<Vec<u8>>> = blobs.by_ref().take(paths.len()).collect();
    let mut index_blobs: Vec<Option<Vec<u8>>> = blobs.collect();
    old_blobs.reverse();
    index_blobs.reverse();
    let mut sides = Vec::new();
    for rel in paths {
        let old = old_blobs.pop().flatten();
        let new = match new_side {
            Side::Index => index_blobs.pop().flatten(),
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

/// The bytes of each blob `specs` name (`REV:path`, `:path` for the index), in order; `None`
/// for one that is not there (or not a blob).
fn blobs(top: &Path, specs: &[String]) -> Result<Vec<Option<Vec<u8>>>, CheckpointError> {
    if specs.is_empty() {
        return Ok(Vec::new());
    }
    let failed = |said: String| CheckpointError::Git {
        command: "git cat-file --batch".into(),
        said,
    };
    // A path holding a line break cannot be asked for on a line: such a file is asked alone.
    let mut child = crate::git_command::git(top)
        .args(["cat-file", "--batch"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| failed(e.to_string()))?;
    let mut stdin = child.stdin.take().ok_or_else(|| failed("no input".into()))?;
    let asked: Vec<String> = specs.iter().filter(|s| !s.contains('\n')).cloned().collect();
    // Written from another thread: git answers while it reads, and a full pipe would stall both.
    let writer = std::thread::spawn(move || {
        use std::io::Write;
        for spec in asked {
            if writeln!(stdin, "{spec}").is_err() {
                break;
            }
        }
    });
    let out = child.wait_with_output().map_err(|e| failed(e.to_string()))?;
    let _ = writer.join();
    let mut rest = out.stdout.as_slice();
    let mut found = Vec::with_capacity(specs.len());
    for spec in specs {
        if spec.contains('\n') {
            found.push(blob_alone(top, spec));
            continue;
        }
        let Some(end) = rest.iter().position(|&b| b == b'\n') else {
            return Err(failed("its answer ended early".into()));
        };
        let header = String::from_utf8_lossy(&rest[..end]).into_owned();
        rest = &rest[end + 1..];
        let mut words = header.rsplitn(3, ' ');
        let (size, kind) = (words.next(), words.next());
        match (kind, size.and_then(|s| s.parse::<usize>().ok())) {
            (Some(kind), Some(size)) if rest.len() > size => {
                let bytes = rest[..size].to_vec();
                rest = &rest[size + 1..];
                found.push((kind == "blob").then_some(bytes));
            }
            // `<spec> missing` (or ambiguous): nothing there.
            _ => found.push(None),
        }
    }
    Ok(found)
}

/// One blob asked for with its own `git cat-file` (a path with a line break in it).
fn blob_alone(top: &Path, spec: &str) -> Option<Vec<u8>> {
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
