//! The pipeline's side of checkpoints: save before a call that changes files, record what it
//! changed after.

use std::path::{Path, PathBuf};

use crate::checkpoint::FileEffect;
use crate::checkpoint::gitwatch::{self, WatchError};
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
    /// A git work tree, compared through git: in proportion to what the command changed.
    Git {
        root: PathBuf,
        before: gitwatch::Before,
    },
    /// A work tree git cannot answer for (no `git`, a damaged repository): every file hashed,
    /// within limits.
    Tree {
        root: PathBuf,
        before: TreeState,
    },
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
            let watch_root = root.clone();
            let watched = blocking(move || {
                let exclude = [cp.session_folder().to_path_buf()];
                match gitwatch::before(&watch_root, &exclude, cp.blobs(), cp.git_cache()) {
                    Ok(before) => {
                        return Ok(Ok(WatchKind::Git {
                            root: watch_root,
                            before,
                        }));
                    }
                    Err(WatchError::Save(e)) => {
                        return Ok(Err(UnseenReason::ScanFailed {
                            detail: e.to_string(),
                        }));
                    }
                    Err(WatchError::Git(e)) => {
                        tracing::debug!("comparing the whole work tree instead: {e}");
                    }
                }
                Ok(
                    scan(&watch_root, &exclude, Some(cp.blobs()), cp.limits()).map(|before| {
                        WatchKind::Tree {
                            root: watch_root,
                            before,
                        }
                    }),
                )
            })
            .await?;
            match watched {
                Ok(kind) => kind,
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
                WatchKind::Git { root, before } => {
                    let found = match before.changes(cp.blobs(), cp.git_cache()) {
                        Ok(found) => found,
                        Err(e) => {
                            note(&cp, turn, call, UnseenReason::ScanFailed { detail: e.to_string() });
                            return Ok(changed);
                        }
                    };
                    record(&cp, turn, &call, found.changed, &mut changed)?;
                    if !found.unrestorable.is_empty() {
                        let list: Vec<String> = found.unrestorable.iter().map(|p| p.display().to_string()).collect();
                        note(
                            &cp,
                            turn,
                            call.clone(),
                            UnseenReason::ScanFailed {
                                detail: format!(
                                    "git converts the bytes of {} on checkout (a filter or line endings), so their content before is not git's copy",
                                    list.join(", ")
                                ),
                            },
                        );
                    }
                    note(&cp, turn, call, UnseenReason::OutsideWorkTree { root });
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
                    record(&cp, turn, &call, before.changed_in(&after), &mut changed)?;
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

/// Records each of `found` (a file and its content before) as changed by `call` in the work tree,
/// its content before saved first.
fn record(
    cp: &Checkpoints,
    turn: u32,
    call: &CallRef,
    found: Vec<(PathBuf, crate::checkpoint::Content)>,
    changed: &mut Vec<PathBuf>,
) -> Result<(), CheckpointError> {
    for (path, was) in found {
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
    Ok(())
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
