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
            LogEntry::RewindUndone { .. } => {}
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
    let rewind = checkpoints
        .log()?
        .iter()
        .filter_map(|e| match e {
            LogEntry::Restored { rewind, .. } => Some(*rewind),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        + 1;
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
        // What it holds now is kept, so the rewind can be undone.
        let before = checkpoints.blobs().capture(&file.path)?;
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
            before: Some(before),
            rewind,
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

/// Undoes the session's latest rewind of the code that is not undone yet: each file it put back
/// holds again what it held just before. A file changed since the rewind is left as it is (and
/// listed). The undo is itself in the log, so a later rewind plans from what the files now hold.
pub fn undo_last(checkpoints: &Checkpoints) -> Result<CodeRewindReport, CheckpointError> {
    let log = checkpoints.log()?;
    let undone: Vec<u32> = log
        .iter()
        .filter_map(|e| match e {
            LogEntry::RewindUndone { rewind } => Some(*rewind),
            _ => None,
        })
        .collect();
    let Some(last) = log
        .iter()
        .filter_map(|e| match e {
            LogEntry::Restored {
                rewind,
                before: Some(_),
                ..
            } if *rewind > 0 && !undone.contains(rewind) => Some(*rewind),
            _ => None,
        })
        .max()
    else {
        return Err(CheckpointError::NothingToUndo);
    };
    let mut restored = Vec::new();
    let mut refused = Vec::new();
    let mut to_turn = 0;
    for entry in log {
        let LogEntry::Restored {
            to_turn: turn,
            path,
            content,
            before: Some(before),
            rewind,
        } = entry
        else {
            continue;
        };
        if rewind != last {
            continue;
        }
        to_turn = turn;
        let current = content_of_file(&path)?;
        if current != content {
            refused.push(RefusedRestore {
                path,
                reason: RefusalReason::ChangedSincePlan,
            });
            continue;
        }
        let done = match checkpoints.blobs().get(&before)? {
            Some(bytes) => crate::files::write_atomic(&path, &bytes),
            None => match std::fs::remove_file(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        };
        if let Err(e) = done {
            refused.push(RefusedRestore {
                path,
                reason: RefusalReason::Failed {
                    message: e.to_string(),
                },
            });
            continue;
        }
        checkpoints.append(&LogEntry::Restored {
            to_turn: turn,
            path: path.clone(),
            content: before.clone(),
            before: Some(current.clone()),
            rewind: 0,
        })?;
        restored.push(PlannedRestore {
            action: match before {
                Content::Absent => RestoreAction::Delete,
                Content::Present { .. } => RestoreAction::Write,
            },
            changed_on_disk: false,
            path,
            target: before,
            expected: current.clone(),
            current,
        });
    }
    checkpoints.append(&LogEntry::RewindUndone { rewind: last })?;
    Ok(CodeRewindReport {
        to_turn,
        restored,
        refused,
        unseen: Vec::new(),
    })
}
