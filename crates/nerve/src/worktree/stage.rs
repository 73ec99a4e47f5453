//! What the Changes panel's git scopes do besides showing: stage and unstage files, commit what is
//! staged, and create a branch, in the session's folder (its worktree, or the project). Paths come
//! from a change set (absolute); one outside the repository is refused, never passed to git.

use std::path::{Path, PathBuf};

use nerve_protocol::DiffHunk;

use super::{WorktreeError, git};
use crate::files::hunk_text::{Miss, apply_in, undo_in};

/// Adds `paths` (their current content, or their deletion) to the index.
pub fn stage(dir: &Path, paths: &[PathBuf]) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    let rel = relative(&top, paths)?;
    let mut args = vec!["add", "--all", "--"];
    args.extend(rel.iter().map(String::as_str));
    git::run(&top, &args).map(drop)
}

/// Takes `paths` out of the index again (their work-tree content stays).
pub fn unstage(dir: &Path, paths: &[PathBuf]) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    let rel = relative(&top, paths)?;
    let has_head = git::succeeds(&top, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
    let mut args: Vec<&str> = if has_head {
        vec!["restore", "--staged", "--"]
    } else {
        // Before the first commit there is no HEAD to restore from: the files leave the index.
        vec!["rm", "--cached", "--quiet", "-r", "--"]
    };
    args.extend(rel.iter().map(String::as_str));
    git::run(&top, &args).map(drop)
}

/// Stages one hunk of the uncommitted change of `path` (a hunk of the `GitUncommitted` scope, the
/// last commit against the work tree): the index's copy of the file gets that hunk and keeps
/// whatever else it held, as `git add --patch` does. The work tree is not touched.
pub fn stage_hunk(dir: &Path, path: &Path, hunk: &DiffHunk) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    let rel = one_relative(&top, path)?;
    let (mode, text) = index_copy(&top, &rel, path, "stage")?;
    let staged = apply_in(&text, hunk).map_err(|miss| not_applied("stage", path, miss))?;
    write_index(&top, &rel, &mode, staged.as_bytes())
}

/// Unstages one hunk of the staged change of `path` (a hunk of the `GitStaged` scope, the last
/// commit against the index): the index's copy of the file loses that hunk only. The work tree is
/// not touched.
pub fn unstage_hunk(dir: &Path, path: &Path, hunk: &DiffHunk) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    let rel = one_relative(&top, path)?;
    let (mode, text) = index_copy(&top, &rel, path, "unstage")?;
    let unstaged = undo_in(&text, hunk).map_err(|miss| not_applied("unstage", path, miss))?;
    write_index(&top, &rel, &mode, unstaged.as_bytes())
}

/// Puts `path` back to what the last commit holds, in the work tree and the index (a file the
/// commit does not have is deleted and leaves the index); with `renamed_from`, that file comes
/// back too. What the file held is lost: the front-end asks first.
pub fn revert_file(dir: &Path, path: &Path, renamed_from: Option<&Path>) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    let mut paths = vec![path.to_path_buf()];
    paths.extend(renamed_from.map(Path::to_path_buf));
    let has_head = git::succeeds(&top, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]);
    for (full, rel) in paths.iter().zip(relative(&top, &paths)?) {
        let in_head = has_head && git::succeeds(&top, &["cat-file", "-e", &format!("HEAD:{rel}")]);
        if in_head {
            git::run(
                &top,
                &["restore", "--source=HEAD", "--staged", "--worktree", "--", &rel],
            )?;
        } else {
            git::run(
                &top,
                &["rm", "--cached", "--quiet", "--ignore-unmatch", "--", &rel],
            )?;
            match std::fs::remove_file(full) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(WorktreeError::Io {
                        what: "delete",
                        path: full.clone(),
                        source,
                    });
                }
            }
        }
    }
    Ok(())
}

/// The index's entry for `rel`: its mode and text. A file not in the index yet starts from
/// nothing, with the work tree's file mode.
fn index_copy(
    top: &Path,
    rel: &str,
    path: &Path,
    action: &'static str,
) -> Result<(String, String), WorktreeError> {
    let entry = git::run(top, &["ls-files", "--stage", "-z", "--", rel])?;
    let (mode, bytes) = match entry.split_once(' ') {
        Some((mode, _)) if !entry.is_empty() => (
            mode.to_string(),
            git::bytes(top, &["cat-file", "blob", &format!(":{rel}")])?,
        ),
        _ => (work_tree_mode(path), Vec::new()),
    };
    let text = String::from_utf8(bytes).map_err(|_| WorktreeError::HunkNotApplied {
        action,
        path: path.to_path_buf(),
        why: "it is not text".into(),
    })?;
    Ok((mode, text))
}

#[cfg(unix)]
fn work_tree_mode(path: &Path) -> String {
    use std::os::unix::fs::PermissionsExt;
    let executable = std::fs::metadata(path).is_ok_and(|m| m.permissions().mode() & 0o111 != 0);
    if executable { "100755" } else { "100644" }.to_string()
}

#[cfg(not(unix))]
fn work_tree_mode(_path: &Path) -> String {
    "100644".to_string()
}

/// Stores `content` as a blob and points the index's entry for `rel` at it.
fn write_index(top: &Path, rel: &str, mode: &str, content: &[u8]) -> Result<(), WorktreeError> {
    // The content is already as the repository keeps it (read from the index): no filters.
    let blob = git::run_with_input(top, &["hash-object", "-w", "--no-filters", "--stdin"], content)?;
    let info = format!("{mode},{blob},{rel}");
    git::run(top, &["update-index", "--add", "--cacheinfo", &info]).map(drop)
}

fn not_applied(action: &'static str, path: &Path, miss: Miss) -> WorktreeError {
    let why = match miss {
        Miss::Changed => match action {
            "stage" => "the index holds other changes of these lines".to_string(),
            _ => "the staged lines differ from this change".to_string(),
        },
        Miss::Ambiguous(count) => {
            format!("its lines appear {count} times and none where the change put them")
        }
    };
    WorktreeError::HunkNotApplied {
        action,
        path: path.to_path_buf(),
        why,
    }
}

fn one_relative(top: &Path, path: &Path) -> Result<String, WorktreeError> {
    relative(top, &[path.to_path_buf()])?
        .pop()
        .ok_or_else(|| WorktreeError::OutsideRepository {
            path: path.to_path_buf(),
        })
}

/// Commits what is staged with `message`; the new commit. Hooks do not run (the engine's git).
pub fn commit(dir: &Path, message: &str) -> Result<String, WorktreeError> {
    let top = top(dir)?;
    if message.trim().is_empty() {
        return Err(WorktreeError::EmptyMessage);
    }
    if git::succeeds(&top, &["diff", "--cached", "--quiet"]) {
        return Err(WorktreeError::NothingStaged);
    }
    git::run(&top, &["commit", "--quiet", "--no-verify", "-m", message])?;
    git::run(&top, &["rev-parse", "HEAD"])
}

/// Creates branch `name` at the current commit (the checkout stays on its branch).
pub fn create_branch(dir: &Path, name: &str) -> Result<(), WorktreeError> {
    let top = top(dir)?;
    if name.starts_with('-') || !git::succeeds(&top, &["check-ref-format", "--branch", name]) {
        return Err(WorktreeError::BadBranchName {
            name: name.to_string(),
        });
    }
    if git::succeeds(
        &top,
        &["show-ref", "--verify", "--quiet", &format!("refs/heads/{name}")],
    ) {
        return Err(WorktreeError::BranchExists {
            name: name.to_string(),
        });
    }
    git::run(&top, &["branch", name]).map(drop)
}

/// The staged diff as text (for a suggested commit message), at most `limit` characters.
pub fn staged_diff(dir: &Path, limit: usize) -> Result<String, WorktreeError> {
    let top = top(dir)?;
    let mut diff = git::run(
        &top,
        &[
            "diff",
            "--cached",
            "--stat",
            "--patch",
            "--no-ext-diff",
            "--no-textconv",
        ],
    )?;
    if diff.len() > limit {
        let mut cut = limit;
        while !diff.is_char_boundary(cut) {
            cut -= 1;
        }
        diff.truncate(cut);
        diff.push_str("\n[… the rest of the diff is left out]");
    }
    Ok(diff)
}

fn top(dir: &Path) -> Result<PathBuf, WorktreeError> {
    match git::run(dir, &["rev-parse", "--show-toplevel"]) {
        Ok(top) => Ok(PathBuf::from(top)),
        Err(_) => Err(WorktreeError::NotARepository {
            dir: dir.to_path_buf(),
        }),
    }
}

/// `paths` relative to `top`; a path outside it is an error.
fn relative(top: &Path, paths: &[PathBuf]) -> Result<Vec<String>, WorktreeError> {
    let top_canonical = std::fs::canonicalize(top).unwrap_or_else(|_| top.to_path_buf());
    paths
        .iter()
        .map(|p| {
            let full = if p.is_absolute() { p.clone() } else { top.join(p) };
            full.strip_prefix(&top_canonical)
                .or_else(|_| full.strip_prefix(top))
                .ok()
                .filter(|r| {
                    !r.as_os_str().is_empty() && !r.components().any(|c| c == std::path::Component::ParentDir)
                })
                .map(|r| r.to_string_lossy().into_owned())
                .ok_or_else(|| WorktreeError::OutsideRepository { path: p.clone() })
        })
        .collect()
}
