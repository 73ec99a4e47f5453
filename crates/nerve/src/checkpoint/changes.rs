//! Change sets: per file, the net change of a turn or of the whole session, as the structured diff
//! Edit and Write previews use, with +/− counts, and the calls whose changes could not be seen.

pub use nerve_protocol::checkpoint::{ChangeScope, ChangeSet, FileChange, FileStatus, UnseenCall};

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::checkpoint::blobs::read_file;
use crate::checkpoint::{CallRef, CheckpointError, Checkpoints, Content, LogEntry, Seen};
use crate::files::{ChangeKind, DiffTag, FileDiff};

#[derive(Default)]
struct Track {
    before: Option<Content>,
    after: Option<Content>,
    seen: Option<Seen>,
    calls: Vec<CallRef>,
}

/// The change set of `scope`.
pub fn change_set(checkpoints: &Checkpoints, scope: ChangeScope) -> Result<ChangeSet, CheckpointError> {
    let in_scope = |t: u32| match &scope {
        ChangeScope::Session => true,
        ChangeScope::Turn { turn } => t == *turn,
        ChangeScope::Call { .. }
        | ChangeScope::GitUncommitted
        | ChangeScope::GitStaged
        | ChangeScope::GitBase { .. } => false,
    };
    if let ChangeScope::Call { tool_use_id } = &scope {
        return call_change_set(checkpoints, tool_use_id);
    }
    if matches!(
        scope,
        ChangeScope::GitUncommitted | ChangeScope::GitStaged | ChangeScope::GitBase { .. }
    ) {
        // Read from git by the session (`checkpoint::git_scope`), not from the checkpoints.
        return Err(CheckpointError::Git {
            command: "git diff".into(),
            said: "a git scope is read from the repository, not from the checkpoints".into(),
        });
    }
    let mut files: BTreeMap<PathBuf, Track> = BTreeMap::new();
    let mut unseen = Vec::new();
    for entry in checkpoints.log()? {
        match entry {
            LogEntry::Saved { turn, path, before } if in_scope(turn) => {
                files.entry(path).or_default().before.get_or_insert(before);
            }
            LogEntry::Changed {
                turn,
                path,
                after,
                call,
                seen,
            } if in_scope(turn) => {
                let track = files.entry(path).or_default();
                track.after = Some(after);
                track.seen.get_or_insert(seen);
                if !track.calls.contains(&call) {
                    track.calls.push(call);
                }
            }
            LogEntry::Unseen { turn, call, reason } if in_scope(turn) => unseen.push(UnseenCall {
                turn,
                message: reason.to_string(),
                call,
                reason,
            }),
            LogEntry::Saved { .. }
            | LogEntry::Changed { .. }
            | LogEntry::Unseen { .. }
            | LogEntry::Restored { .. }
            | LogEntry::RewindUndone { .. } => {}
        }
    }
    let mut changes = Vec::new();
    for (path, track) in files {
        let (Some(before), Some(seen)) = (track.before, track.seen) else {
            continue;
        };
        let old = checkpoints.blobs().get(&before)?;
        let new = match scope {
            ChangeScope::Session => read_file(&path)?,
            ChangeScope::Turn { .. }
            | ChangeScope::Call { .. }
            | ChangeScope::GitUncommitted
            | ChangeScope::GitStaged
            | ChangeScope::GitBase { .. } => match &track.after {
                Some(after) => checkpoints.blobs().get(after)?,
                None => continue,
            },
        };
        if old == new {
            continue;
        }
        changes.push(file_change(path, old, new, seen, track.calls));
    }
    Ok(ChangeSet {
        scope,
        files: changes,
        unseen,
    })
}

/// What the call `tool_use_id` changed: per file, its content just before the call (what the turn
/// saved, or what an earlier call or a rewind left) against what the call left.
fn call_change_set(checkpoints: &Checkpoints, tool_use_id: &str) -> Result<ChangeSet, CheckpointError> {
    let mut last_known: BTreeMap<PathBuf, Content> = BTreeMap::new();
    let mut files: BTreeMap<PathBuf, Track> = BTreeMap::new();
    let mut unseen = Vec::new();
    for entry in checkpoints.log()? {
        match entry {
            LogEntry::Saved { path, before, .. } => {
                last_known.insert(path, before);
            }
            LogEntry::Changed {
                path,
                after,
                call,
                seen,
                ..
            } => {
                if call.tool_use_id == tool_use_id {
                    let track = files.entry(path.clone()).or_default();
                    if track.before.is_none() {
                        track.before = last_known.get(&path).cloned();
                    }
                    track.after = Some(after.clone());
                    track.seen.get_or_insert(seen);
                    if !track.calls.contains(&call) {
                        track.calls.push(call);
                    }
                }
                last_known.insert(path, after);
            }
            LogEntry::Restored { path, content, .. } => {
                last_known.insert(path, content);
            }
            LogEntry::Unseen { turn, call, reason } if call.tool_use_id == tool_use_id => {
                unseen.push(UnseenCall {
                    turn,
                    message: reason.to_string(),
                    call,
                    reason,
                });
            }
            LogEntry::Unseen { .. } | LogEntry::RewindUndone { .. } => {}
        }
    }
    let mut changes = Vec::new();
    for (path, track) in files {
        let (Some(before), Some(after), Some(seen)) = (track.before, track.after, track.seen) else {
            continue;
        };
        let old = checkpoints.blobs().get(&before)?;
        let new = checkpoints.blobs().get(&after)?;
        if old != new {
            changes.push(file_change(path, old, new, seen, track.calls));
        }
    }
    Ok(ChangeSet {
        scope: ChangeScope::Call {
            tool_use_id: tool_use_id.to_string(),
        },
        files: changes,
        unseen,
    })
}

/// The files each call changed, by `tool_use` id (what a resumed session's cards offer to show).
pub fn changed_files_by_call(
    checkpoints: &Checkpoints,
) -> Result<std::collections::HashMap<String, Vec<PathBuf>>, CheckpointError> {
    let mut by_call: std::collections::HashMap<String, Vec<PathBuf>> = std::collections::HashMap::new();
    for entry in checkpoints.log()? {
        if let LogEntry::Changed { path, call, .. } = entry {
            let paths = by_call.entry(call.tool_use_id).or_default();
            if !paths.contains(&path) {
                paths.push(path);
            }
        }
    }
    Ok(by_call)
}

pub(crate) fn file_change(
    path: PathBuf,
    old: Option<Vec<u8>>,
    new: Option<Vec<u8>>,
    seen: Seen,
    calls: Vec<CallRef>,
) -> FileChange {
    let status = match (&old, &new) {
        (None, _) => FileStatus::Created,
        (Some(_), None) => FileStatus::Deleted,
        (Some(_), Some(_)) => FileStatus::Modified,
    };
    let text = |b: &Option<Vec<u8>>| match b {
        None => Some(String::new()),
        Some(bytes) => String::from_utf8(bytes.clone())
            .ok()
            .filter(|s| !s.contains('\0')),
    };
    let (hunks, binary) = match (text(&old), text(&new)) {
        (Some(old_text), Some(new_text)) => {
            let kind = if old.is_none() {
                ChangeKind::Create
            } else {
                ChangeKind::Update
            };
            let diff = FileDiff::between(&path.to_string_lossy(), kind, &old_text, &new_text);
            (diff.hunks, false)
        }
        _ => (Vec::new(), true),
    };
    let count = |tag| {
        hunks
            .iter()
            .flat_map(|h| &h.lines)
            .filter(|l| l.tag == tag)
            .count()
    };
    FileChange {
        added: count(DiffTag::Insert),
        removed: count(DiffTag::Delete),
        path,
        status,
        binary,
        renamed_from: None,
        hunks,
        seen,
        calls,
    }
}
