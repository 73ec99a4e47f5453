//! The pipeline's side of checkpoints: save before a call that changes files, record what it
//! changed after.

use std::path::{Path, PathBuf};

use crate::checkpoint::FileEffect;
use crate::checkpoint::worktree::{TreeState, git_root, scan};
use crate::checkpoint::{CallRef, CheckpointError, Checkpoints, LogEntry, Seen, UnseenReason};

/// What to look at once a call is done.
#[derive(Debug)]
pub(crate) struct Watch {
    checkpoints: Checkpoints,
    turn: u32,
    call: CallRef,
    kind: WatchKind,
}

#[derive(Debug)]
enum WatchKind {
    Files(Vec<PathBuf>),
    Tree { root: PathBuf, before: TreeState },
}

/// Saves what a call with `effect` may change. An error means a file the call names could not be
/// saved: the call must not run (its change could not be rewound). Calls outside a turn, and calls
/// whose changes cannot be seen, run unwatched (the latter with a note in the log).
pub(crate) async fn before_call(
    checkpoints: &Checkpoints,
    effect: FileEffect,
    project_dir: &Path,
    call: CallRef,
) -> Result<Option<Watch>, CheckpointError> {
    let Some(turn) = checkpoints.turn() else {
        return Ok(None);
    };
    let cp = checkpoints.clone();
    let kind = match effect {
        FileEffect::None => return Ok(None),
        FileEffect::Files(paths) => {
            let saved = paths.clone();
            blocking(move || saved.iter().try_for_each(|p| cp.save_before(turn, p))).await?;
            WatchKind::Files(paths)
        }
        FileEffect::Opaque { outlives_call: true } => {
            note(checkpoints, turn, call, UnseenReason::Background);
            return Ok(None);
        }
        FileEffect::Opaque { outlives_call: false } => {
            let Some(root) = git_root(project_dir) else {
                note(checkpoints, turn, call, UnseenReason::NotGitRepository);
                return Ok(None);
            };
            let scan_root = root.clone();
            let scanned = blocking(move || {
                let exclude = [cp.session_folder().to_path_buf()];
                Ok(scan(&scan_root, &exclude, Some(cp.blobs()), cp.limits()))
            })
            .await?;
            match scanned {
                Ok(before) => WatchKind::Tree { root, before },
                Err(reason) => {
                    note(checkpoints, turn, call, reason);
                    return Ok(None);
                }
            }
        }
    };
    Ok(Some(Watch {
        checkpoints: checkpoints.clone(),
        turn,
        call,
        kind,
    }))
}

impl Watch {
    /// Records what the call changed and returns the files. Failures are logged and noted: the
    /// change already happened.
    pub(crate) async fn after_call(self) -> Vec<PathBuf> {
        let Self {
            checkpoints,
            turn,
            call,
            kind,
        } = self;
        let cp = checkpoints.clone();
        let noted_call = call.clone();
        let result = blocking(move || {
            let mut changed = Vec::new();
            match kind {
                WatchKind::Files(paths) => {
                    for path in paths {
                        let after = cp.blobs().capture(&path)?;
                        cp.append(&LogEntry::Changed {
                            turn,
                            path: path.clone(),
                            after,
                            call: call.clone(),
                            seen: Seen::Tool,
                        })?;
                        changed.push(path);
                    }
                }
                WatchKind::Tree { root, before } => {
                    let exclude = [cp.session_folder().to_path_buf()];
                    let after = match scan(&root, &exclude, None, cp.limits()) {
                        Ok(after) => after,
                        Err(reason) => {
                            note(&cp, turn, call, reason);
                            return Ok(changed);
                        }
                    };
                    for (path, was) in before.changed_in(&after) {
                        cp.save_known_before(turn, &path, was)?;
                        let after = cp.blobs().capture(&path)?;
                        cp.append(&LogEntry::Changed {
                            turn,
                            path: path.clone(),
                            after,
                            call: call.clone(),
                            seen: Seen::WorkTree,
                        })?;
                        changed.push(path);
                    }
                    note(&cp, turn, call, UnseenReason::OutsideWorkTree { root });
                }
            }
            Ok(changed)
        })
        .await;
        result.unwrap_or_else(|e| {
            tracing::warn!("could not record what a call changed: {e}");
            note(
                &checkpoints,
                turn,
                noted_call,
                UnseenReason::ScanFailed {
                    detail: e.to_string(),
                },
            );
            Vec::new()
        })
    }
}

fn note(checkpoints: &Checkpoints, turn: u32, call: CallRef, reason: UnseenReason) {
    if let Err(e) = checkpoints.append(&LogEntry::Unseen { turn, call, reason }) {
        tracing::warn!("could not write the checkpoint log: {e}");
    }
}

/// File work off the async threads (a work-tree scan may take a while).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, CheckpointError> {
    tokio::task::spawn_blocking(f).await.unwrap_or_else(|e| {
        Err(CheckpointError::io(
            "save a checkpoint",
            PathBuf::new(),
            std::io::Error::other(e),
        ))
    })
}
