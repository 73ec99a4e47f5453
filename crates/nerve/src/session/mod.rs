//! Sessions on disk: an append-only JSONL transcript per session, listed, resumed and forked.

mod rewind;
mod transcript;

pub use rewind::{PromptInfo, live_entries, next_turn, prompts};
pub use transcript::{
    SessionInfo, Transcript, TranscriptEntry, TranscriptError, fork_session, is_transcript, list_sessions,
    read_transcript, title_of,
};

pub use transcript::now_ms as transcript_now_ms;
