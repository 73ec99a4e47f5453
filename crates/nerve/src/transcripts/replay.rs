//! A transcript replayed into the conversation it holds: the messages (assistant blocks a crash
//! left mid-stream become a message), the frozen forms of tool results, and where each prompt is.
//! Resuming, rewinding and exporting read a transcript through this one replay.

use crate::model::types::{ContentBlock, Message, Role};
use crate::transcripts::TranscriptEntry;

/// The conversation a transcript's live entries hold (the messages, with assistant blocks left by a
/// crash mid-stream as a message) and the frozen forms of its tool results.
pub(crate) fn history_of(
    entries: Vec<TranscriptEntry>,
) -> (Vec<Message>, Vec<crate::budget::ReplacementRecord>) {
    let replayed = replay(entries);
    (replayed.messages, replayed.records)
}

/// The conversation a transcript holds, and where in it each prompt is.
pub(crate) struct Replayed {
    /// The messages.
    pub messages: Vec<Message>,
    /// The tool-result replacements.
    pub records: Vec<crate::budget::ReplacementRecord>,
    /// Each prompt still in the messages: its number and the index of the message holding it.
    pub prompt_messages: Vec<(u32, usize)>,
}

/// Replays a transcript's entries into the conversation (see [`history_of`]).
pub(crate) fn replay(entries: Vec<TranscriptEntry>) -> Replayed {
    let mut messages = Vec::new();
    let mut records = Vec::new();
    let mut prompt_messages = Vec::new();
    // The prompt whose message is the next user message.
    let mut starting: Option<u32> = None;
    // Blocks of an assistant message that never completed (the process died mid-stream).
    let mut partial: Vec<ContentBlock> = Vec::new();
    for e in entries {
        match e {
            TranscriptEntry::AssistantBlock { block } => partial.push(block),
            TranscriptEntry::Message { message } => {
                if message.role == Role::Assistant {
                    partial.clear();
                } else if !partial.is_empty() {
                    let content = std::mem::take(&mut partial);
                    push_merged(
                        &mut messages,
                        Message {
                            role: Role::Assistant,
                            content,
                        },
                    );
                }
                let is_user = message.role == Role::User;
                push_merged(&mut messages, message);
                if is_user && let Some(turn) = starting.take() {
                    prompt_messages.push((turn, messages.len() - 1));
                }
            }
            TranscriptEntry::Replacement { record } => records.push(record),
            TranscriptEntry::CompactBoundary { .. } => {
                messages.clear();
                partial.clear();
                prompt_messages.clear();
            }
            TranscriptEntry::TurnStart { turn, .. } => starting = Some(turn),
            TranscriptEntry::SessionStart { .. }
            | TranscriptEntry::Permission { .. }
            | TranscriptEntry::Rewind { .. }
            | TranscriptEntry::RewindUndone { .. }
            | TranscriptEntry::TurnEnd { .. }
            | TranscriptEntry::Title { .. }
            | TranscriptEntry::ModelChoice { .. }
            | TranscriptEntry::Usage { .. } => {}
        }
    }
    if !partial.is_empty() {
        push_merged(
            &mut messages,
            Message {
                role: Role::Assistant,
                content: partial,
            },
        );
    }
    Replayed {
        messages,
        records,
        prompt_messages,
    }
}

/// Appends a message; two user messages in a row become one (a prompt after an aborted turn, or
/// tool results after a prompt), keeping tool_results first as the API requires.
pub(crate) fn push_merged(messages: &mut Vec<Message>, message: Message) {
    match messages.last_mut() {
        Some(last) if last.role == message.role && message.role == Role::User => {
            let (mut results, mut rest): (Vec<ContentBlock>, Vec<ContentBlock>) =
                std::mem::take(&mut last.content)
                    .into_iter()
                    .partition(|b| matches!(b, ContentBlock::ToolResult(_)));
            for b in message.content {
                if matches!(b, ContentBlock::ToolResult(_)) {
                    results.push(b);
                } else {
                    rest.push(b);
                }
            }
            results.extend(rest);
            last.content = results;
        }
        _ => messages.push(message),
    }
}
