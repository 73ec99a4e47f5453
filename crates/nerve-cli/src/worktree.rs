//! `nerve worktree`: the sessions that work in worktrees of their own (`nerve -p --worktree`), and
//! what becomes of their work: land it in the main checkout, throw it away, or clean up what a
//! deleted session left.

use std::path::PathBuf;

use crate::exit::Exit;
use anyhow::Result;
use clap::{Args, Subcommand};
use nerve_protocol::workspace::{LandOutcome, LandStrategy};

/// What to do with the project's worktrees.
#[derive(Subcommand)]
pub enum WorktreeCommand {
    /// List the worktrees as JSON: session, folder, branch, base, commits ahead and behind,
    /// uncommitted files, and whether its folder or session is gone.
    List {
        #[command(flatten)]
        at: At,
    },
    /// Land a session's work in the main checkout: what it left uncommitted is committed in its
    /// worktree first, then its branch is merged (the default), squashed or cherry-picked. A
    /// conflict prints both sides of each file and leaves the main checkout as it was (exit 1).
    Apply {
        #[command(flatten)]
        at: At,
        /// The session.
        session: String,
        /// One new commit with all of the session's work.
        #[arg(long, conflicts_with = "cherry_pick")]
        squash: bool,
        /// Copy the session's commits one by one.
        #[arg(long)]
        cherry_pick: bool,
        /// The message of the commit(s) made (uncommitted work, the squash or the merge).
        #[arg(short, long)]
        message: Option<String>,
    },
    /// Remove a session's worktree and its branch. Prints what would be lost and stops (exit 2)
    /// unless --yes is given or nothing would be lost.
    Discard {
        #[command(flatten)]
        at: At,
        /// The session.
        session: String,
        /// Keep the branch (only the worktree's folder goes).
        #[arg(long)]
        keep_branch: bool,
        /// Discard even when uncommitted changes or unmerged commits would be lost.
        #[arg(long)]
        yes: bool,
    },
    /// Remove the worktrees whose session was deleted or whose folder is gone. Uncommitted work is
    /// never removed; branches with commits no other branch has are kept.
    Clean {
        #[command(flatten)]
        at: At,
    },
}

/// The project.
#[derive(Args)]
pub struct At {
    /// The project folder.
    #[arg(long, default_value = ".")]
    cwd: PathBuf,
}

impl At {
    fn project(&self) -> Result<nerve::Project> {
        // Worktrees do not depend on settings: a project whose settings are broken still lists them.
        let mut options = nerve::project::ProjectOptions::new(&self.cwd);
        options.bare = true;
        Ok(nerve::Project::open(options)?)
    }
}

/// Runs the command; the process's exit code.
pub fn run(command: WorktreeCommand) -> Result<Exit> {
    match command {
        WorktreeCommand::List { at } => {
            println!("{}", serde_json::to_string_pretty(&at.project()?.worktrees()?)?);
            Ok(Exit::Success)
        }
        WorktreeCommand::Apply {
            at,
            session,
            squash,
            cherry_pick,
            message,
        } => {
            let strategy = match (squash, cherry_pick) {
                (true, _) => LandStrategy::Squash,
                (_, true) => LandStrategy::CherryPick,
                _ => LandStrategy::Merge,
            };
            match at.project()?.land(&session, strategy, message.as_deref())? {
                LandOutcome::Landed(landed) => {
                    if let Some(commit) = &landed.committed_first {
                        println!("committed the session's uncommitted work as {}", short(commit));
                    }
                    println!(
                        "landed ({}): {} file(s) changed, HEAD is now {}",
                        strategy_name(strategy),
                        landed.files.len(),
                        short(&landed.head)
                    );
                    for file in &landed.files {
                        println!("  {file}");
                    }
                    Ok(Exit::Success)
                }
                LandOutcome::Conflict { branch, files } => {
                    eprintln!(
                        "error: landing {branch} conflicts in {} file(s); the main checkout was left as it was",
                        files.len()
                    );
                    for f in &files {
                        eprintln!("\n{}", f.path);
                        eprintln!("<<<<<<< main checkout");
                        eprint!("{}", f.ours.as_deref().unwrap_or("(deleted or not text)\n"));
                        eprintln!("=======");
                        eprint!("{}", f.theirs.as_deref().unwrap_or("(deleted or not text)\n"));
                        eprintln!(">>>>>>> {branch}");
                    }
                    Ok(Exit::Failure)
                }
            }
        }
        WorktreeCommand::Discard {
            at,
            session,
            keep_branch,
            yes,
        } => {
            let project = at.project()?;
            let preview = project.discard_preview(&session)?;
            let lost_commits = if keep_branch {
                0
            } else {
                preview.unmerged_commits.len()
            };
            if !yes && (!preview.uncommitted.is_empty() || lost_commits > 0) {
                eprintln!("discarding the worktree of {session} would lose:");
                for line in &preview.uncommitted {
                    eprintln!("  uncommitted: {line}");
                }
                if !keep_branch {
                    for line in &preview.unmerged_commits {
                        eprintln!("  commit on {} only: {line}", preview.info.branch);
                    }
                }
                eprintln!("run it again with --yes to discard (or --keep-branch to keep the commits)");
                return Ok(Exit::NeedsConfirmation);
            }
            let info = project.discard_worktree(&session, keep_branch)?;
            match keep_branch {
                true => println!("removed {}; kept branch {}", info.path.display(), info.branch),
                false => println!("removed {} and branch {}", info.path.display(), info.branch),
            }
            Ok(Exit::Success)
        }
        WorktreeCommand::Clean { at } => {
            let report = at.project()?.clean_worktrees()?;
            for info in &report.removed {
                println!("removed {} ({})", info.path.display(), info.session_id);
            }
            for branch in &report.kept_branches {
                println!("kept branch {branch}: it has commits no other branch has");
            }
            for kept in &report.kept {
                println!(
                    "kept {} ({}): {}",
                    kept.info.path.display(),
                    kept.info.session_id,
                    kept.why
                );
            }
            if report.removed.is_empty() && report.kept.is_empty() {
                println!("nothing to clean");
            }
            Ok(Exit::Success)
        }
    }
}

fn strategy_name(strategy: LandStrategy) -> &'static str {
    match strategy {
        LandStrategy::Merge => "merge",
        LandStrategy::Squash => "squash",
        LandStrategy::CherryPick => "cherry-pick",
    }
}

fn short(commit: &str) -> &str {
    commit.get(..8).unwrap_or(commit)
}
