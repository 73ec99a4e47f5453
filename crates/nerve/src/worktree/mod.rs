//! A session's own git worktree: created on a new branch outside the project (in the project's data
//! folder), listed with where it stands against its base, landed in the main checkout (merge,
//! squash or cherry-pick; a conflict is reported file by file and the main checkout is left as it
//! was), or thrown away after saying what would be lost.
//!
//! Every git command is the engine's neutralised git ([`crate::git_command`]): no hook, filter or
//! configured program of the repository runs. Each worktree is recorded in its own small file
//! (`<project data>/worktrees/<session>.json`) beside its folder, so two sessions starting at once
//! never write the same file.

mod create;
mod git;
mod land;
pub mod stage;

use std::path::{Path, PathBuf};

pub use create::Created;
pub use nerve_protocol::workspace::{
    CleanReport, ConflictFile, DiscardPreview, KeptWorktree, LandOutcome, LandStrategy, Landed, NewWorktree,
    WorktreeInfo, WorktreeStatus,
};

/// Why a worktree could not be made, landed or removed.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    /// The project is not inside a git repository.
    #[error(
        "{} is not in a git repository, so a session cannot have a worktree of its own; it works in the folder itself (run `git init` and commit once to use worktrees)",
        dir.display()
    )]
    NotARepository {
        /// The project folder.
        dir: PathBuf,
    },
    /// A bare repository has no working tree to branch from.
    #[error("{} is a bare git repository: open a checkout of it to work in a worktree", dir.display())]
    Bare {
        /// The project folder.
        dir: PathBuf,
    },
    /// The repository has no commit yet: there is nothing to branch from.
    #[error("the repository at {} has no commit yet: commit once, then start a session in a worktree", dir.display())]
    NoCommit {
        /// The project folder.
        dir: PathBuf,
    },
    /// The base asked for is not a commit of the repository.
    #[error("`{base}` is not a branch, tag or commit of this repository")]
    UnknownBase {
        /// What was asked for.
        base: String,
    },
    /// The session has no worktree.
    #[error("session {session_id} has no worktree")]
    NoWorktree {
        /// The session.
        session_id: String,
    },
    /// The worktree's folder is gone.
    #[error("the worktree of session {session_id} at {} is gone; `nerve worktree clean` forgets it", path.display())]
    Missing {
        /// The session.
        session_id: String,
        /// Where it was.
        path: PathBuf,
    },
    /// The branch has nothing the main checkout does not have.
    #[error("the session's branch {branch} has no change to land")]
    NothingToLand {
        /// The branch.
        branch: String,
    },
    /// The main checkout is in the middle of a merge, rebase or cherry-pick of its own.
    #[error(
        "the main checkout is in the middle of a {operation}: finish or abort it first, then land the session"
    )]
    MainCheckoutBusy {
        /// The operation git is in.
        operation: &'static str,
    },
    /// Both sides changed the same lines; nothing was changed in the main checkout.
    #[error(
        "landing {branch} conflicts in {} file(s) ({}); the main checkout was left as it was",
        files.len(),
        files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>().join(", ")
    )]
    Conflict {
        /// The session's branch.
        branch: String,
        /// Each conflicting file with both sides.
        files: Vec<ConflictFile>,
    },
    /// Landing was refused by git before it changed anything (local changes it would overwrite),
    /// or a conflict could not be undone cleanly.
    #[error("{command} failed: {said}")]
    Git {
        /// The command.
        command: String,
        /// What git said.
        said: String,
    },
    /// A commit needs a message.
    #[error("a commit needs a message")]
    EmptyMessage,
    /// Nothing is staged to commit.
    #[error("nothing is staged: stage the files to commit first")]
    NothingStaged,
    /// Not a name git accepts for a branch.
    #[error("`{name}` is not a valid branch name")]
    BadBranchName {
        /// The name.
        name: String,
    },
    /// The branch exists.
    #[error("a branch named `{name}` exists already")]
    BranchExists {
        /// The name.
        name: String,
    },
    /// A path to stage or unstage is outside the repository.
    #[error("{} is not inside the repository", path.display())]
    OutsideRepository {
        /// The path.
        path: PathBuf,
    },
    /// One part of a file could not be staged or unstaged on its own.
    #[error("cannot {action} this part of {} on its own: {why}; {action} the whole file instead", path.display())]
    HunkNotApplied {
        /// "stage" or "unstage".
        action: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        why: String,
    },
    /// `git` could not be started.
    #[error("cannot run git: {source}")]
    GitMissing {
        /// Why.
        source: std::io::Error,
    },
    /// A file of the worktree's record could not be read or written.
    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        /// What was being done.
        what: &'static str,
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// The worktrees of one project: its repository, and the data folder they live in.
#[derive(Debug, Clone)]
pub struct Workspaces {
    /// The project folder (possibly below the repository's top).
    project_dir: PathBuf,
    /// The project's folder in Nerve's data folder.
    data_dir: PathBuf,
}

impl Workspaces {
    /// The worktrees of the project at `project_dir`, kept under `project_data_dir`.
    pub fn new(project_dir: &Path, project_data_dir: &Path) -> Self {
        Self {
            project_dir: project_dir.to_path_buf(),
            data_dir: project_data_dir.to_path_buf(),
        }
    }

    fn root(&self) -> PathBuf {
        self.data_dir.join("worktrees")
    }

    fn record_path(&self, session_id: &str) -> PathBuf {
        self.root()
            .join(format!("{}.json", crate::storage::safe_file_stem(session_id)))
    }

    /// The worktree of `session_id`, if it has one.
    pub fn of_session(&self, session_id: &str) -> Result<Option<WorktreeInfo>, WorktreeError> {
        let path = self.record_path(session_id);
        match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes)
                .map(Some)
                .map_err(|e| WorktreeError::Io {
                    what: "read",
                    path,
                    source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
                }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(WorktreeError::Io {
                what: "read",
                path,
                source,
            }),
        }
    }

    /// Every worktree recorded, oldest first. A damaged record is skipped with a warning (it names
    /// no folder that could be trusted).
    pub fn recorded(&self) -> Result<Vec<WorktreeInfo>, WorktreeError> {
        let root = self.root();
        let entries = match std::fs::read_dir(&root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(WorktreeError::Io {
                    what: "list",
                    path: root,
                    source,
                });
            }
        };
        let mut infos: Vec<WorktreeInfo> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .filter_map(|p| match std::fs::read(&p).map(|b| serde_json::from_slice(&b)) {
                Ok(Ok(info)) => Some(info),
                _ => {
                    tracing::warn!(path = %p.display(), "skipping a damaged worktree record");
                    None
                }
            })
            .collect();
        infos.sort_by_key(|i: &WorktreeInfo| i.created_ms);
        Ok(infos)
    }

    /// Every worktree with where it stands; `session_exists` says whether a session's transcript
    /// is still there (a worktree whose session was deleted is orphaned).
    pub fn list(&self, session_exists: impl Fn(&str) -> bool) -> Result<Vec<WorktreeStatus>, WorktreeError> {
        Ok(self
            .recorded()?
            .into_iter()
            .map(|info| self.status_of(info, &session_exists))
            .collect())
    }

    fn status_of(&self, info: WorktreeInfo, session_exists: &impl Fn(&str) -> bool) -> WorktreeStatus {
        let missing = !info.path.is_dir();
        let count = |range: String| {
            git::run(&self.project_dir, &["rev-list", "--count", &range])
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        };
        let ahead = count(format!("{}..{}", info.base_commit, info.branch));
        let behind = info
            .base_branch
            .as_ref()
            .map_or(0, |b| count(format!("{}..{b}", info.base_commit)));
        let uncommitted = if missing {
            0
        } else {
            git::run(
                &info.path,
                &["status", "--porcelain", crate::git_command::STATUS_SUBMODULES],
            )
            .map(|s| git::lines(&s).len() as u32)
            .unwrap_or(0)
        };
        let orphaned = !session_exists(&info.session_id);
        WorktreeStatus {
            info,
            ahead,
            behind,
            uncommitted,
            missing,
            orphaned,
        }
    }

    /// What discarding the worktree of `session_id` would lose.
    pub fn discard_preview(&self, session_id: &str) -> Result<DiscardPreview, WorktreeError> {
        let info = self.require(session_id)?;
        let uncommitted = if info.path.is_dir() {
            git::lines(&git::run(
                &info.path,
                &["status", "--short", crate::git_command::STATUS_SUBMODULES],
            )?)
        } else {
            Vec::new()
        };
        let unmerged_commits = self.unmerged_commits(&info)?;
        Ok(DiscardPreview {
            info,
            uncommitted,
            unmerged_commits,
        })
    }

    /// The subjects of the branch's commits that no other branch has.
    fn unmerged_commits(&self, info: &WorktreeInfo) -> Result<Vec<String>, WorktreeError> {
        if !git::succeeds(
            &self.project_dir,
            &[
                "show-ref",
                "--verify",
                "--quiet",
                &format!("refs/heads/{}", info.branch),
            ],
        ) {
            return Ok(Vec::new());
        }
        // `--exclude` before `--branches` is matched against the branch name, without `refs/heads/`.
        let exclude = format!("--exclude={}", info.branch);
        Ok(git::lines(&git::run(
            &self.project_dir,
            &[
                "log",
                "--format=%h %s",
                &info.branch,
                "--not",
                &exclude,
                "--branches",
            ],
        )?))
    }

    /// Removes the worktree of `session_id` (and its branch unless `keep_branch`), uncommitted
    /// changes and all: ask first, with [`Self::discard_preview`].
    pub fn discard(&self, session_id: &str, keep_branch: bool) -> Result<WorktreeInfo, WorktreeError> {
        let info = self.require(session_id)?;
        if info.path.is_dir() {
            let path = info.path.to_string_lossy().to_string();
            git::run(
                &self.project_dir,
                &["worktree", "remove", "--force", "--force", &path],
            )?;
        } else {
            // Removed by hand: git still lists it until pruned.
            git::run(&self.project_dir, &["worktree", "prune"])?;
        }
        if !keep_branch
            && git::succeeds(
                &self.project_dir,
                &[
                    "show-ref",
                    "--verify",
                    "--quiet",
                    &format!("refs/heads/{}", info.branch),
                ],
            )
        {
            git::run(&self.project_dir, &["branch", "-D", &info.branch])?;
        }
        self.forget(session_id)?;
        Ok(info)
    }

    /// Removes the worktree of `session_id` without losing work: what is uncommitted is committed
    /// to its branch, and the branch stays when it has commits no other branch has. Returns the
    /// branch kept, if any.
    pub fn remove_keeping_work(&self, session_id: &str) -> Result<Option<String>, WorktreeError> {
        let info = self.require(session_id)?;
        if info.path.is_dir() {
            land::commit_uncommitted(&info, Some("Work left by a deleted Nerve session"))?;
        }
        let keep_branch = !self.unmerged_commits(&info)?.is_empty();
        self.discard(session_id, keep_branch)?;
        Ok(keep_branch.then_some(info.branch))
    }

    /// Removes the worktrees whose session is gone or whose folder is gone. A worktree with
    /// uncommitted changes is kept (nothing is lost without asking); a branch with commits no
    /// other branch has is kept. Returns what was removed and what was kept, with why.
    pub fn clean(&self, session_exists: impl Fn(&str) -> bool) -> Result<CleanReport, WorktreeError> {
        let mut report = CleanReport::default();
        for status in self.list(&session_exists)? {
            if !status.missing && !status.orphaned {
                continue;
            }
            let id = status.info.session_id.clone();
            if status.uncommitted > 0 {
                report.kept.push(KeptWorktree {
                    info: status.info,
                    why: format!(
                        "{} uncommitted change(s); discard it by name to lose them",
                        status.uncommitted
                    ),
                });
                continue;
            }
            let keep_branch = !self.unmerged_commits(&status.info)?.is_empty();
            let info = self.discard(&id, keep_branch)?;
            if keep_branch {
                report.kept_branches.push(info.branch.clone());
            }
            report.removed.push(info);
        }
        Ok(report)
    }

    fn require(&self, session_id: &str) -> Result<WorktreeInfo, WorktreeError> {
        self.of_session(session_id)?
            .ok_or_else(|| WorktreeError::NoWorktree {
                session_id: session_id.to_string(),
            })
    }

    fn forget(&self, session_id: &str) -> Result<(), WorktreeError> {
        let path = self.record_path(session_id);
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(source) => Err(WorktreeError::Io {
                what: "remove",
                path,
                source,
            }),
        }
    }
}

/// The git folders of the worktree at `path` that lie outside it (its own folder and the
/// repository's common one), as git names them; `None` when git cannot say.
pub fn git_folders(path: &Path) -> Option<crate::sandbox::WorktreeGit> {
    let out = git::run(
        path,
        &[
            "rev-parse",
            "--path-format=absolute",
            "--git-dir",
            "--git-common-dir",
        ],
    )
    .ok()?;
    let mut lines = out.lines();
    let own = PathBuf::from(lines.next()?);
    let common = PathBuf::from(lines.next()?);
    Some(crate::sandbox::WorktreeGit {
        own: std::fs::canonicalize(&own).unwrap_or(own),
        common: std::fs::canonicalize(&common).unwrap_or(common),
    })
}
