//! Putting files back as they were just before a prompt. A plan first, so a front-end can show
//! what will happen and ask about files someone else changed since the agent did; then the plan
//! is applied, file by file, refusing each file that changed on disk unless the user confirmed it.
//! A file is only ever deleted when the agent created it.

pub use nerve_protocol::checkpoint::{
    CodeRewindPlan, CodeRewindReport, PlannedRestore, RefusalReason, RefusedRestore, RestoreAction,
};

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::checkpoint::changes::UnseenCall;
use crate::checkpoint::{CheckpointError, Checkpoints, Content, LogEntry, content_of_file};

/// What putting the files back as they were just before prompt `to_turn` would do.
pub fn plan(checkpoints: &Checkpoints, to_turn: u32) -> Result<CodeRewindPlan, CheckpointError> {
    // The first content saved in or after that turn is what the file held just before it; the
    // latest recorded content is what the agent (or a rewind) left.
    let mut target: BTreeMap<PathBuf, Content> = BTreeMap::new();
    let mut expected: BTreeMap<PathBuf, Content> = BTreeMap::new();
    let mut unseen = Vec::new();
    for entry in checkpoints.log()? {
        match entry {
            LogEntry::Saved { turn, path, before } => {
                if turn >= to_turn {
                    target.entry(path.clone()).or_insert_with(|| before.clone());
                }
                expected.insert(path, before);
            }
            LogEntry::Changed { path, after, .. } => {
                expected.insert(path, after);
            }
            LogEntry::Restored { path, content, .. } => {
                expected.insert(path, content);
            }
            LogEntry::Unseen { turn, call, reason } => {
                if turn >= to_turn {
                    unseen.push(UnseenCall {
                        turn,
                        message: reason.to_string(),
                        call,
                        reason,
                    });
                }
            }
        }
    }
    let mut files = Vec::new();
    for (path, target) in target {
        let current = content_of_file(&path)?;
        if current == target {
            continue;
        }
        let expected = expected.remove(&path).unwrap_or(Content::Absent);
        files.push(PlannedRestore {
            action: match target {
                Content::Absent => RestoreAction::Delete,
                Content::Present { .. } => RestoreAction::Write,
            },
            changed_on_disk: current != expected,
            path,
            target,
            current,
            expected,
        });
    }
    Ok(CodeRewindPlan {
        to_turn,
        files,
        unseen,
    })
}

/// Applies a plan. Files changed on disk since the agent's change are put back only when listed in
/// `confirmed`; a file that changed since the plan was made is left alone.
pub fn apply(
    checkpoints: &Checkpoints,
    plan: CodeRewindPlan,
    confirmed: &[PathBuf],
) -> Result<CodeRewindReport, CheckpointError> {
    let mut restored = Vec::new();
    let mut refused = Vec::new();
    for file in plan.files {
        let refuse = |reason| RefusedRestore {
            path: file.path.clone(),
            reason,
        };
        if file.changed_on_disk && !confirmed.contains(&file.path) {
            refused.push(refuse(RefusalReason::ChangedOnDisk));
            continue;
        }
        match content_of_file(&file.path) {
            Ok(now) if now == file.current => {}
            Ok(_) => {
                refused.push(refuse(RefusalReason::ChangedSincePlan));
                continue;
            }
            Err(e) => {
                refused.push(refuse(RefusalReason::Failed {
                    message: e.to_string(),
                }));
                continue;
            }
        }
        let done = match checkpoints.blobs().get(&file.target)? {
            Some(bytes) => crate::files::write_atomic(&file.path, &bytes),
            None => std::fs::remove_file(&file.path),
        };
        if let Err(e) = done {
            refused.push(refuse(RefusalReason::Failed {
                message: e.to_string(),
            }));
            continue;
        }
        checkpoints.append(&LogEntry::Restored {
            to_turn: plan.to_turn,
            path: file.path.clone(),
            content: file.target.clone(),
        })?;
        restored.push(file);
    }
    Ok(CodeRewindReport {
        to_turn: plan.to_turn,
        restored,
        refused,
        unseen: plan.unseen,
    })
}
