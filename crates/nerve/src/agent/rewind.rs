//! Rewinding a session to just before one of its prompts: the code (files put back from the
//! checkpoints), the conversation (a `rewind` boundary in the transcript, so the next request and
//! a resume no longer hold the later turns), or both. The same functions serve a live agent and a
//! session on disk (the `nerve rewind` CLI); a turn running anywhere holds the session's turn lock
//! and makes a rewind fail with [`RewindError::TurnRunning`].

pub use nerve_protocol::rewind::{ConversationRewind, RewindReport, RewindRequest, RewindUndoReport};

use std::path::{Path, PathBuf};

use crate::agent::Agent;
use crate::checkpoint::changes::change_set;
use crate::checkpoint::{
    ChangeScope, ChangeSet, CheckpointError, Checkpoints, CodeRewindPlan, CodeRewindReport, TurnLock,
    TurnRunning, restore,
};
use crate::transcripts::{
    PromptInfo, Transcript, TranscriptEntry, TranscriptError, live_entries, prompts, read_transcript,
};

/// Why a rewind did not happen.
#[derive(Debug, thiserror::Error)]
pub enum RewindError {
    /// A turn of the session is running.
    #[error(transparent)]
    TurnRunning(#[from] TurnRunning),
    /// The prompt is not in the conversation.
    #[error(
        "there is no prompt {to_turn} in this conversation (its prompts are: {known:?}); `nerve changes` lists them"
    )]
    NoSuchPrompt {
        /// The prompt asked for.
        to_turn: u32,
        /// The prompts there are.
        known: Vec<u32>,
    },
    /// Neither code nor conversation was asked for.
    #[error("nothing to rewind: ask for the code, the conversation, or both")]
    NothingChosen,
    /// The session keeps no transcript or checkpoints (a headless agent without a session folder).
    #[error("this session keeps no transcript and checkpoints, so it cannot be rewound")]
    NotRecorded,
    /// The checkpoints could not be read or a file could not be restored.
    #[error(transparent)]
    Checkpoint(#[from] CheckpointError),
    /// The transcript could not be read or written.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
}

/// The files of one session: its transcript and its checkpoints.
#[derive(Debug, Clone)]
pub struct SessionFiles {
    /// The transcript.
    pub transcript: PathBuf,
    /// The checkpoints.
    pub checkpoints: Checkpoints,
}

impl SessionFiles {
    /// The files of `session_id` in a project's data folder.
    pub fn of(project_data_dir: &Path, session_id: &str) -> Self {
        Self {
            transcript: Transcript::path_for(project_data_dir, session_id),
            checkpoints: Checkpoints::open(&Checkpoints::session_dir(project_data_dir, session_id)),
        }
    }

    /// The prompts of the conversation as it stands, each with the index of its message.
    pub fn prompts(&self) -> Result<Vec<PromptInfo>, RewindError> {
        let (entries, _warnings) = read_transcript(&self.transcript)?;
        let live = live_entries(entries);
        let mut found = prompts(&live);
        let at = crate::transcripts::replay(live).prompt_messages;
        place_prompts(&mut found, &at);
        Ok(found)
    }

    /// The change set of a turn or of the whole session.
    pub fn changes(&self, scope: ChangeScope) -> Result<ChangeSet, RewindError> {
        Ok(change_set(&self.checkpoints, scope)?)
    }

    /// What a code rewind to just before prompt `to_turn` would do (for the confirmation step).
    pub fn plan_code_rewind(&self, to_turn: u32) -> Result<CodeRewindPlan, RewindError> {
        self.prompt(to_turn)?;
        Ok(restore::plan(&self.checkpoints, to_turn)?)
    }

    /// Rewinds. Refused while a turn of the session runs.
    pub fn rewind(&self, request: &RewindRequest) -> Result<RewindReport, RewindError> {
        if !request.code && !request.conversation {
            return Err(RewindError::NothingChosen);
        }
        let _lock = TurnLock::try_acquire(self.checkpoints.session_folder())?;
        let prompt = self.prompt(request.to_turn)?;
        let code = if request.code {
            let plan = restore::plan(&self.checkpoints, request.to_turn)?;
            Some(restore::apply(&self.checkpoints, plan, &request.confirmed)?)
        } else {
            None
        };
        let conversation = if request.conversation {
            let all = self.prompts()?;
            let prompts_removed = all.iter().filter(|p| p.turn >= request.to_turn).count();
            Transcript::open(&self.transcript)?.append(&TranscriptEntry::Rewind {
                to_turn: request.to_turn,
                time_ms: crate::transcripts::transcript_now_ms(),
                code: code.as_ref().is_some_and(|c| !c.restored.is_empty()),
            })?;
            Some(ConversationRewind {
                prompt,
                prompts_removed,
            })
        } else {
            None
        };
        Ok(RewindReport {
            to_turn: request.to_turn,
            code,
            conversation,
        })
    }

    /// What putting one file back would do: back to what it held before the session first changed
    /// it, or with `from_turn`, before that turn did.
    pub fn plan_file_revert(
        &self,
        path: &Path,
        from_turn: Option<u32>,
    ) -> Result<CodeRewindPlan, RewindError> {
        let mut plan = restore::plan(&self.checkpoints, from_turn.unwrap_or(0))?;
        plan.files.retain(|f| f.path == path);
        // Calls that could not be seen concern the whole tree, not this file.
        plan.unseen.clear();
        Ok(plan)
    }

    /// Puts one file back (see [`Self::plan_file_revert`]). A file someone else changed since the
    /// agent's change is only overwritten when `confirmed`. Refused while a turn runs.
    pub fn revert_file(
        &self,
        path: &Path,
        from_turn: Option<u32>,
        confirmed: bool,
    ) -> Result<CodeRewindReport, RewindError> {
        let _lock = TurnLock::try_acquire(self.checkpoints.session_folder())?;
        let plan = self.plan_file_revert(path, from_turn)?;
        let confirmed = if confirmed {
            vec![path.to_path_buf()]
        } else {
            Vec::new()
        };
        Ok(restore::apply(&self.checkpoints, plan, &confirmed)?)
    }

    /// Undoes the latest rewind. A conversation rewind with nothing said since brings the prompts
    /// it cut off back (and, when it also put files back, those files forward again); otherwise
    /// the latest rewind of the code is undone: the files it put back hold again what they held
    /// just before it (a file changed since is left as it is, and listed). Refused while a turn
    /// runs.
    pub fn undo_rewind(&self) -> Result<RewindUndoReport, RewindError> {
        let _lock = TurnLock::try_acquire(self.checkpoints.session_folder())?;
        let (entries, _warnings) = read_transcript(&self.transcript)?;
        let Some(with_code) = crate::transcripts::undoable_rewind(&entries) else {
            return Ok(RewindUndoReport {
                code: Some(restore::undo_last(&self.checkpoints)?),
                prompts_back: None,
            });
        };
        let before = self.prompts()?.len();
        let code = if with_code {
            Some(restore::undo_last(&self.checkpoints)?)
        } else {
            None
        };
        Transcript::open(&self.transcript)?.append(&TranscriptEntry::RewindUndone {
            time_ms: crate::transcripts::transcript_now_ms(),
        })?;
        let after = self.prompts()?.len();
        Ok(RewindUndoReport {
            code,
            prompts_back: Some(after.saturating_sub(before)),
        })
    }

    fn prompt(&self, to_turn: u32) -> Result<PromptInfo, RewindError> {
        let all = self.prompts()?;
        let known = all.iter().map(|p| p.turn).collect();
        all.into_iter()
            .find(|p| p.turn == to_turn)
            .ok_or(RewindError::NoSuchPrompt { to_turn, known })
    }
}

impl Agent {
    /// Undoes the latest rewind (see [`SessionFiles::undo_rewind`]); when the conversation comes
    /// back, the next request holds it again.
    pub fn undo_rewind(&mut self) -> Result<RewindUndoReport, RewindError> {
        self.resumed_prompts = None;
        let files = self.session_files().ok_or(RewindError::NotRecorded)?;
        let report = files.undo_rewind()?;
        if report.prompts_back.is_some() {
            self.reload_history(&files)?;
        }
        Ok(report)
    }

    /// The conversation from the transcript as it now stands (after a rewind or its undo).
    fn reload_history(&mut self, files: &SessionFiles) -> Result<(), RewindError> {
        let (entries, _warnings) = read_transcript(&files.transcript)?;
        let (mut messages, records) = crate::transcripts::history_of(live_entries(entries));
        crate::agent::answer_missing_tool_uses(&mut messages);
        self.messages.replace(messages);
        self.replacements = crate::budget::ContentReplacementState::from_records(records);
        self.context_tokens = 0;
        Ok(())
    }

    /// This session's files, when it keeps a transcript and checkpoints.
    pub fn session_files(&self) -> Option<SessionFiles> {
        Some(SessionFiles {
            transcript: self.transcript_path()?.to_path_buf(),
            checkpoints: self.own_checkpoints()?.clone(),
        })
    }

    /// The prompts of the conversation as it stands (what a rewind can go back to).
    pub fn prompts(&self) -> Result<Vec<PromptInfo>, RewindError> {
        if let Some(prompts) = &self.resumed_prompts {
            return Ok(prompts.clone());
        }
        self.session_files().ok_or(RewindError::NotRecorded)?.prompts()
    }

    /// The change set of a turn (a tool card's or a turn's diff) or of the whole session.
    pub fn changes(&self, scope: ChangeScope) -> Result<ChangeSet, RewindError> {
        self.session_files()
            .ok_or(RewindError::NotRecorded)?
            .changes(scope)
    }

    /// Rewinds to just before prompt `request.to_turn`; with `conversation`, the next request
    /// starts from the history as it was then.
    pub fn rewind(&mut self, request: &RewindRequest) -> Result<RewindReport, RewindError> {
        // The rewind writes to the transcript itself: the prompts found at resume are stale.
        self.resumed_prompts = None;
        let files = self.session_files().ok_or(RewindError::NotRecorded)?;
        let report = files.rewind(request)?;
        if report.conversation.is_some() {
            self.reload_history(&files)?;
        }
        Ok(report)
    }

    /// The main agent's checkpoints (a sub-agent records into its parent's turn and starts none).
    pub(crate) fn own_checkpoints(&self) -> Option<&Checkpoints> {
        if self.runtime.context.agent.agent_id.is_some() {
            return None;
        }
        self.runtime.context.config.checkpoints.as_ref()
    }

    /// Takes the session's turn lock for a turn. A lock that cannot be taken (another process runs
    /// a turn of the same session) does not stop this turn: it only means rewinds are refused.
    pub(crate) fn lock_turn(&self) -> Option<TurnLock> {
        let checkpoints = self.own_checkpoints()?;
        match TurnLock::try_acquire(checkpoints.session_folder()) {
            Ok(lock) => Some(lock),
            Err(e) => {
                tracing::warn!("{e}");
                None
            }
        }
    }

    /// Numbers the prompt about to be sent and starts its checkpoints.
    pub(crate) fn start_turn(&mut self) {
        if self.runtime.context.agent.agent_id.is_some() {
            return;
        }
        let turn = self.next_turn;
        self.next_turn += 1;
        self.record(&TranscriptEntry::TurnStart {
            turn,
            time_ms: crate::transcripts::transcript_now_ms(),
        });
        if let Some(checkpoints) = self.own_checkpoints() {
            checkpoints.begin_turn(turn);
        }
        self.emit(crate::events::Event::TurnStarted { turn });
    }
}

/// Sets each prompt's `message_index` from a replay's (turn, message index) pairs.
pub(crate) fn place_prompts(found: &mut [PromptInfo], at: &[(u32, usize)]) {
    for prompt in found {
        prompt.message_index = at
            .iter()
            .find(|(turn, _)| *turn == prompt.turn)
            .and_then(|(_, index)| u32::try_from(*index).ok());
    }
}
