//! Landing a session's work in the main checkout: its uncommitted changes are committed in the
//! worktree first, then its branch is merged, squashed or cherry-picked onto what the main checkout
//! has checked out. A conflict is read file by file (both sides) and then undone, so the main
//! checkout is never left half-merged.

use super::git;
use super::{ConflictFile, LandStrategy, Landed, Workspaces, WorktreeError, WorktreeInfo};

impl Workspaces {
    /// Lands the work of `session_id` in the main checkout. `message` is the commit message for
    /// the worktree's uncommitted changes and for a squash or merge commit (a default names the
    /// session's branch).
    pub fn land(
        &self,
        session_id: &str,
        strategy: LandStrategy,
        message: Option<&str>,
    ) -> Result<Landed, WorktreeError> {
        let info = self.require(session_id)?;
        if !info.path.is_dir() {
            return Err(WorktreeError::Missing {
                session_id: session_id.to_string(),
                path: info.path,
            });
        }
        let main = self.top()?;
        if let Some(operation) = operation_in_progress(&main) {
            return Err(WorktreeError::MainCheckoutBusy { operation });
        }

        let committed_first = commit_uncommitted(&info, message)?;
        let before = git::run(&main, &["rev-parse", "HEAD"])?;
        let fork = git::run(&main, &["merge-base", "HEAD", &info.branch])?;
        let commits = git::lines(&git::run(
            &main,
            &[
                "rev-list",
                "--reverse",
                "--no-merges",
                &format!("{fork}..{}", info.branch),
            ],
        )?);
        if commits.is_empty() {
            return Err(WorktreeError::NothingToLand { branch: info.branch });
        }

        let default_message = format!("Land {} (Nerve session {})", info.branch, short_id(session_id));
        let message = message.unwrap_or(&default_message);
        let (args, abort): (Vec<&str>, &[&str]) = match strategy {
            LandStrategy::Merge => (
                vec!["merge", "--no-ff", "--no-edit", "-m", message, &info.branch],
                &["merge", "--abort"],
            ),
            LandStrategy::Squash => (vec!["merge", "--squash", &info.branch], &["reset", "--merge"]),
            LandStrategy::CherryPick => {
                let mut args = vec!["cherry-pick", "--allow-empty"];
                args.extend(commits.iter().map(String::as_str));
                (args, &["cherry-pick", "--abort"])
            }
        };
        let out = git::output(&main, &args)?;
        if !out.status.success() {
            let conflicted =
                git::lines(&git::run(&main, &["diff", "--name-only", "--diff-filter=U"]).unwrap_or_default());
            if conflicted.is_empty() {
                // Refused before anything changed (local changes it would overwrite), in git's words.
                return Err(git::failed(&args, &out));
            }
            let files = conflicted.iter().map(|path| conflict_file(&main, path)).collect();
            git::run(&main, abort)?;
            let after = git::run(&main, &["rev-parse", "HEAD"])?;
            if after != before {
                git::run(&main, &["reset", "--merge", &before])?;
            }
            return Err(WorktreeError::Conflict {
                branch: info.branch,
                files,
            });
        }
        if strategy == LandStrategy::Squash {
            git::run(&main, &["commit", "--quiet", "--no-verify", "-m", message])?;
        }
        let head = git::run(&main, &["rev-parse", "HEAD"])?;
        let files = git::lines(&git::run(
            &main,
            &["diff", "--name-only", "--no-renames", &before, &head],
        )?);
        Ok(Landed {
            strategy,
            committed_first,
            head,
            files,
        })
    }

    /// The top of the main checkout.
    fn top(&self) -> Result<std::path::PathBuf, WorktreeError> {
        git::run(&self.project_dir, &["rev-parse", "--show-toplevel"]).map(std::path::PathBuf::from)
    }
}

/// Commits what the session left uncommitted in its worktree; the new commit, if one was made.
pub(super) fn commit_uncommitted(
    info: &WorktreeInfo,
    message: Option<&str>,
) -> Result<Option<String>, WorktreeError> {
    let status = git::run(
        &info.path,
        &["status", "--porcelain", crate::git_command::STATUS_SUBMODULES],
    )?;
    if status.is_empty() {
        return Ok(None);
    }
    git::run(&info.path, &["add", "--all"])?;
    let default = format!("Work of Nerve session {}", short_id(&info.session_id));
    git::run(
        &info.path,
        &[
            "commit",
            "--quiet",
            "--no-verify",
            "-m",
            message.unwrap_or(&default),
        ],
    )?;
    git::run(&info.path, &["rev-parse", "HEAD"]).map(Some)
}

/// The operation the checkout at `top` is in the middle of, if any.
fn operation_in_progress(top: &std::path::Path) -> Option<&'static str> {
    [
        ("MERGE_HEAD", "merge"),
        ("CHERRY_PICK_HEAD", "cherry-pick"),
        ("REVERT_HEAD", "revert"),
        ("rebase-merge", "rebase"),
        ("rebase-apply", "rebase"),
    ]
    .into_iter()
    .find(|(name, _)| {
        git::run(top, &["rev-parse", "--git-path", name])
            .map(|p| top.join(p).exists())
            .unwrap_or(false)
    })
    .map(|(_, operation)| operation)
}

/// Both sides of a conflicting file, as the index holds them mid-merge (stage 2 is the main
/// checkout's, stage 3 the session's).
fn conflict_file(top: &std::path::Path, path: &str) -> ConflictFile {
    let side = |stage: u8| {
        git::output(top, &["show", &format!(":{stage}:{path}")])
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
    };
    ConflictFile {
        path: path.to_string(),
        ours: side(2),
        theirs: side(3),
    }
}

fn short_id(session_id: &str) -> &str {
    session_id.get(..8).unwrap_or(session_id)
}
