//! `nerve changes` and `nerve rewind`: a session's change sets and rewinds, from the command line.

use std::path::{Path, PathBuf};

use crate::exit::Exit;
use anyhow::{Context as _, Result};
use nerve::agent::SessionFiles;
use nerve_protocol::DiffTag;
use nerve_protocol::checkpoint::{ChangeScope, ChangeSet, FileStatus, RefusalReason, RestoreAction};
use nerve_protocol::rewind::RewindRequest;

fn session_files(cwd: &Path, session: &str) -> Result<SessionFiles> {
    let dir = std::fs::canonicalize(cwd).with_context(|| format!("cannot open {}", cwd.display()))?;
    let data = nerve::project::data_dir_of(&nerve::EngineEnv::process(), &dir)?;
    let files = SessionFiles::of(&data, session);
    if !files.transcript.exists() {
        anyhow::bail!(
            "no session {session} in {} (`nerve sessions --cwd {}` lists them)",
            dir.display(),
            cwd.display()
        );
    }
    Ok(files)
}

/// Prints the change set of a session or of one of its turns.
pub fn changes(cwd: &Path, session: &str, turn: Option<u32>, json: bool) -> Result<()> {
    let files = session_files(cwd, session)?;
    let scope = turn.map_or(ChangeScope::Session, |turn| ChangeScope::Turn { turn });
    let set = files.changes(scope)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&set)?);
        return Ok(());
    }
    if turn.is_none() {
        println!("prompts:");
        for p in files.prompts()? {
            let first_line = p.text.lines().next().unwrap_or_default();
            println!(
                "  {:>3}  {}",
                p.turn,
                first_line.chars().take(80).collect::<String>()
            );
        }
    }
    print!("{}", render(&set));
    Ok(())
}

/// Prints what git sees changed in the project (or in the session's worktree).
pub fn git_changes(
    cwd: &Path,
    session: Option<&str>,
    staged: bool,
    base: Option<String>,
    json: bool,
) -> Result<()> {
    let mut options = nerve::project::ProjectOptions::new(cwd);
    options.bare = true;
    let project = nerve::Project::open(options)?;
    let scope = match (staged, base) {
        (true, _) => ChangeScope::GitStaged,
        (false, Some(base)) => ChangeScope::GitBase {
            base: Some(base).filter(|b| !b.is_empty()),
        },
        (false, None) => ChangeScope::GitUncommitted,
    };
    let set = project.git_changes(session, scope)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&set)?);
    } else {
        print!("{}", render(&set));
    }
    Ok(())
}

/// The change set as text: a line per file with its +/− counts, then its hunks.
fn render(set: &ChangeSet) -> String {
    let mut out = String::new();
    let (added, removed) = set.totals();
    out.push_str(&format!(
        "{} files changed, +{added} −{removed}\n",
        set.files.len()
    ));
    for file in &set.files {
        let status = match file.status {
            FileStatus::Created => "created",
            FileStatus::Modified => "modified",
            FileStatus::Deleted => "deleted",
            FileStatus::Renamed => "renamed",
        };
        let counts = if file.binary {
            "binary".to_string()
        } else if file.hunks.is_empty() && file.status == FileStatus::Renamed {
            "the same content".to_string()
        } else if file.hunks.is_empty() && file.status == FileStatus::Modified {
            "no textual change: its mode or type only".to_string()
        } else {
            format!("+{} −{}", file.added, file.removed)
        };
        match &file.renamed_from {
            Some(from) => out.push_str(&format!(
                "\n{} (renamed from {}, {counts})\n",
                file.path.display(),
                from.display()
            )),
            None => out.push_str(&format!("\n{} ({status}, {counts})\n", file.path.display())),
        }
        for hunk in &file.hunks {
            out.push_str(&format!(
                "@@ -{},{} +{},{} @@\n",
                hunk.old_start, hunk.old_lines, hunk.new_start, hunk.new_lines
            ));
            for line in &hunk.lines {
                let mark = match line.tag {
                    DiffTag::Context => ' ',
                    DiffTag::Delete => '-',
                    DiffTag::Insert => '+',
                };
                out.push_str(&format!("{mark}{}\n", line.text));
            }
        }
    }
    for unseen in &set.unseen {
        out.push_str(&format!(
            "\nnote: {} {} (prompt {}): {}\n",
            unseen.call.tool_name, unseen.call.tool_use_id, unseen.turn, unseen.message
        ));
    }
    out
}

/// Go back to just before a prompt: put files back (--code), cut the conversation back
/// (--conversation), or both (neither flag). Exits with 2 when some files were left as they are.
#[derive(Debug, clap::Args)]
pub struct RewindArgs {
    /// The project folder.
    #[arg(long, default_value = ".")]
    pub cwd: PathBuf,
    /// The session.
    #[arg(long)]
    pub session: String,
    /// The prompt's number (`nerve changes --session ID` lists them).
    #[arg(long, required_unless_present = "undo")]
    pub to_prompt: Option<u32>,
    /// Undo the latest rewind of the code instead: the files it put back hold again what they
    /// held just before it (a file changed since is left as it is).
    #[arg(long, conflicts_with_all = ["to_prompt", "code", "conversation", "confirm", "confirm_all"])]
    pub undo: bool,
    /// Put files back.
    #[arg(long)]
    pub code: bool,
    /// Cut the conversation back.
    #[arg(long)]
    pub conversation: bool,
    /// Overwrite this file although it changed on disk since the agent's change (repeatable).
    #[arg(long)]
    pub confirm: Vec<PathBuf>,
    /// Overwrite every file that changed on disk since the agent's change.
    #[arg(long)]
    pub confirm_all: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Rewinds a session; returns the exit code (`Exit::Partial` when some files were left as they are).
pub fn rewind(args: RewindArgs) -> Result<Exit> {
    let files = session_files(&args.cwd, &args.session)?;
    let Some(to_prompt) = args.to_prompt.filter(|_| !args.undo) else {
        let report = files.undo_rewind()?;
        let refused = report.code.as_ref().is_some_and(|c| !c.refused.is_empty());
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            if let Some(back) = report.prompts_back {
                println!("the conversation is back: {back} prompt(s) returned");
            }
            for f in report.code.iter().flat_map(|c| &c.restored) {
                println!("brought back: {}", f.path.display());
            }
            for f in report.code.iter().flat_map(|c| &c.refused) {
                println!("left as it is (changed since the rewind): {}", f.path.display());
            }
        }
        return Ok(if refused { Exit::Partial } else { Exit::Success });
    };
    // Neither flag: both, the usual wish ("go back to before that prompt").
    let (code, conversation) = if args.code || args.conversation {
        (args.code, args.conversation)
    } else {
        (true, true)
    };
    let confirmed = if args.confirm_all {
        files
            .plan_code_rewind(to_prompt)?
            .files
            .into_iter()
            .map(|f| f.path)
            .collect()
    } else {
        args.confirm
    };
    let report = files.rewind(&RewindRequest {
        to_turn: to_prompt,
        code,
        conversation,
        confirmed,
    })?;
    let refused = report.code.as_ref().map_or(0, |c| c.refused.len());
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(if refused > 0 { Exit::Partial } else { Exit::Success });
    }
    if let Some(code) = &report.code {
        for f in &code.restored {
            let action = match f.action {
                RestoreAction::Write => "restored",
                RestoreAction::Delete => "deleted (created after that prompt)",
            };
            println!("{action}: {}", f.path.display());
        }
        for f in &code.refused {
            let why = match &f.reason {
                RefusalReason::ChangedOnDisk => {
                    "changed on disk since the agent's change; pass --confirm PATH (or --confirm-all) to overwrite it".to_string()
                }
                RefusalReason::ChangedSincePlan => "changed while rewinding; run the rewind again".to_string(),
                RefusalReason::Failed { message } => message.clone(),
            };
            println!("left as it is: {}: {why}", f.path.display());
        }
        for u in &code.unseen {
            println!(
                "not restorable: {} {} (prompt {}): {}",
                u.call.tool_name, u.call.tool_use_id, u.turn, u.message
            );
        }
        if code.restored.is_empty() && code.refused.is_empty() {
            println!("files: nothing to put back");
        }
    }
    if let Some(c) = &report.conversation {
        println!(
            "conversation: rewound to just before prompt {} ({} prompt(s) removed; the transcript keeps them). The prompt was:\n{}",
            report.to_turn, c.prompts_removed, c.prompt.text
        );
    }
    Ok(if refused > 0 { Exit::Partial } else { Exit::Success })
}

#[cfg(test)]
mod tests {
    use super::*;
    use nerve_protocol::checkpoint::{CallRef, FileChange, Seen, UnseenCall, UnseenReason};
    use nerve_protocol::{DiffHunk, DiffLine};
    use pretty_assertions::assert_eq;

    #[test]
    fn the_text_form_lists_counts_hunks_and_what_cannot_be_restored() {
        let set = ChangeSet {
            scope: ChangeScope::Turn { turn: 2 },
            files: vec![FileChange {
                path: PathBuf::from("/p/a.txt"),
                status: FileStatus::Modified,
                added: 1,
                removed: 1,
                binary: false,
                renamed_from: None,
                hunks: vec![DiffHunk {
                    old_start: 1,
                    old_lines: 1,
                    new_start: 1,
                    new_lines: 1,
                    lines: vec![
                        DiffLine::new(DiffTag::Delete, "old"),
                        DiffLine::new(DiffTag::Insert, "new"),
                    ],
                }],
                seen: Seen::Tool,
                calls: Vec::new(),
            }],
            unseen: vec![UnseenCall {
                turn: 2,
                call: CallRef {
                    tool_use_id: "t1".into(),
                    tool_name: "Bash".into(),
                },
                reason: UnseenReason::NotGitRepository,
                message: UnseenReason::NotGitRepository.to_string(),
            }],
        };
        assert_eq!(
            render(&set),
            "1 files changed, +1 −1\n\n/p/a.txt (modified, +1 −1)\n@@ -1,1 +1,1 @@\n-old\n+new\n\nnote: Bash t1 (prompt 2): the project is not a git repository, so files a command changed cannot be seen or restored\n"
        );
    }
}
