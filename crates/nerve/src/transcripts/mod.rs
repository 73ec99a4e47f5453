//! What sessions leave on disk: an append-only JSONL transcript per session, listed (with a small cached
//! summary each), searched, resumed, forked, renamed and deleted.

mod catalog;
pub(crate) use catalog::existing_transcript;
mod markdown;
mod replay;
mod rewind;
pub mod search_index;
mod transcript;

pub use catalog::{
    DeletedSession, TranscriptSummary, delete_session, list_sessions, rename_session, search_sessions,
    session_title,
};
pub use markdown::session_markdown;
pub(crate) use replay::{Replayed, history_of, push_merged, replay};
pub use rewind::{PromptInfo, live_entries, next_turn, prompts, undoable_rewind};
pub use transcript::{
    Transcript, TranscriptEntry, TranscriptError, fork_session, fork_session_before, is_transcript,
    read_transcript,
};

pub use transcript::now_ms as transcript_now_ms;
