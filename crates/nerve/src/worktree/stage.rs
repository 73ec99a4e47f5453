//! What the Changes panel's git scopes do besides showing: stage and unstage files, commit what is
//! staged, and create a branch, in the session's folder (its worktree, or the project). Paths come
//! from a change set (absolute); one outside the repository is refused, never passed to git.

use std::path::{Path, PathBuf};

use super::{WorktreeError, git};

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
