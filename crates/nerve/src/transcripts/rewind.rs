//! Conversation rewinds in the transcript: `turn_start` entries mark where each prompt began, and a
//! `rewind` entry cuts the history back to one of those marks. Reading applies the cuts, so a
//! resumed session continues the rewound conversation while the file keeps every line.

pub use nerve_protocol::transcripts::PromptInfo;

use crate::model::types::{ContentBlock, Role};
use crate::transcripts::TranscriptEntry;

/// The entries that make up the conversation now: every `rewind` removes what came after its
/// prompt's `turn_start` (that entry included). A rewind naming an unknown prompt changes nothing.
pub fn live_entries(entries: Vec<TranscriptEntry>) -> Vec<TranscriptEntry> {
    let mut live = Vec::with_capacity(entries.len());
    let mut starts: Vec<(u32, usize)> = Vec::new();
    // What each rewind still undoable cut off (its entries and prompt starts, by offset), newest
    // last. Anything said after a rewind makes the rewinds before it final.
    let mut cuts: Vec<Cut> = Vec::new();
    for entry in entries {
        if is_said(&entry) {
            cuts.clear();
        }
        match entry {
            TranscriptEntry::TurnStart { turn, .. } => {
                starts.push((turn, live.len()));
                live.push(entry);
            }
            TranscriptEntry::Rewind { to_turn, .. } => match starts.iter().position(|(t, _)| *t == to_turn) {
                Some(i) => {
                    let at = starts[i].1;
                    let cut_starts = starts
                        .split_off(i)
                        .into_iter()
                        .map(|(t, p)| (t, p - at))
                        .collect();
                    cuts.push((live.split_off(at), cut_starts));
                }
                None => tracing::warn!("a rewind names prompt {to_turn}, which is not in the conversation"),
            },
            TranscriptEntry::RewindUndone { .. } => match cuts.pop() {
                Some((tail, cut_starts)) => {
                    let at = live.len();
                    starts.extend(cut_starts.into_iter().map(|(t, p)| (t, p + at)));
                    live.extend(tail);
                }
                None => tracing::warn!("an undone rewind names no rewind that can be undone"),
            },
            // Everything else is part of the conversation as it stands.
            _ => live.push(entry),
        }
    }
    live
}

/// What a rewind cut off: its entries, and the prompts among them (number, offset in the cut).
type Cut = (Vec<TranscriptEntry>, Vec<(u32, usize)>);

/// Whether `entry` says something in the conversation (a prompt, a message, a compaction): once
/// something is said after a rewind, that rewind and those before it can no longer be undone.
fn is_said(entry: &TranscriptEntry) -> bool {
    match entry {
        TranscriptEntry::TurnStart { .. }
        | TranscriptEntry::Message { .. }
        | TranscriptEntry::AssistantBlock { .. }
        | TranscriptEntry::CompactBoundary { .. } => true,
        TranscriptEntry::SessionStart { .. }
        | TranscriptEntry::Replacement { .. }
        | TranscriptEntry::Usage { .. }
        | TranscriptEntry::Title { .. }
        | TranscriptEntry::ModelChoice { .. }
        | TranscriptEntry::Permission { .. }
        | TranscriptEntry::Rewind { .. }
        | TranscriptEntry::RewindUndone { .. }
        | TranscriptEntry::TurnEnd { .. } => false,
    }
}

/// The latest conversation rewind an undo would bring back (`Some(code)`: whether it also put
/// files back), or `None` when there is none: nothing was rewound, or something was said since.
/// Follows the same rules as [`live_entries`].
pub fn undoable_rewind(entries: &[TranscriptEntry]) -> Option<bool> {
    let mut undoable: Vec<bool> = Vec::new();
    for entry in entries {
        if is_said(entry) {
            undoable.clear();
        }
        match entry {
            TranscriptEntry::Rewind { code, .. } => undoable.push(*code),
            TranscriptEntry::RewindUndone { .. } => {
                undoable.pop();
            }
            _ => {}
        }
    }
    undoable.last().copied()
}

/// The prompts of `live` entries, in order.
pub fn prompts(live: &[TranscriptEntry]) -> Vec<PromptInfo> {
    let mut out = Vec::new();
    for (i, entry) in live.iter().enumerate() {
        let TranscriptEntry::TurnStart { turn, time_ms } = entry else {
            continue;
        };
        let text = live[i + 1..]
            .iter()
            .find_map(|e| match e {
                TranscriptEntry::Message { message } if message.role == Role::User => {
                    Some(message.content.iter().find_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.clone()),
                        _ => None,
                    }))
                }
                _ => None,
            })
            .flatten()
            .unwrap_or_default();
        // Its end is the first turn end before the next prompt.
        let end = live[i + 1..]
            .iter()
            .take_while(|e| !matches!(e, TranscriptEntry::TurnStart { .. }))
            .find_map(|e| match e {
                TranscriptEntry::TurnEnd { reason, time_ms } => Some((reason.clone(), *time_ms)),
                _ => None,
            });
        out.push(PromptInfo {
            turn: *turn,
            text,
            time_ms: *time_ms,
            message_index: None,
            outcome: end.as_ref().map(|(reason, _)| reason.clone()),
            ended_ms: end.map(|(_, at)| at),
        });
    }
    out
}

/// The number the next prompt gets: one more than any prompt ever recorded, rewound or not, so a
/// number always names one prompt.
pub fn next_turn(entries: &[TranscriptEntry]) -> u32 {
    entries
        .iter()
        .filter_map(|e| match e {
            TranscriptEntry::TurnStart { turn, .. } => Some(*turn),
            _ => None,
        })
        .max()
        .map_or(1, |t| t + 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::Message;
    use pretty_assertions::assert_eq;

    fn start(turn: u32) -> TranscriptEntry {
        TranscriptEntry::TurnStart { turn, time_ms: 0 }
    }
    fn says(text: &str) -> TranscriptEntry {
        TranscriptEntry::Message {
            message: Message::user_text(text),
        }
    }
    fn rewind(to_turn: u32) -> TranscriptEntry {
        TranscriptEntry::Rewind {
            to_turn,
            time_ms: 0,
            code: false,
        }
    }
    fn undone() -> TranscriptEntry {
        TranscriptEntry::RewindUndone { time_ms: 0 }
    }

    #[test]
    fn an_undone_rewind_brings_the_conversation_back_until_something_is_said() {
        let three = || {
            vec![
                start(1),
                says("one"),
                start(2),
                says("two"),
                start(3),
                says("three"),
            ]
        };
        let all = three();
        let mut entries = three();
        entries.extend([rewind(3), rewind(2), undone()]);
        assert_eq!(live_entries(entries.clone()), all[..4].to_vec());
        entries.push(undone());
        assert_eq!(live_entries(entries.clone()), all);
        assert_eq!(undoable_rewind(&entries), None);
        // Said after the rewind: the rewind is final, an undo changes nothing.
        let mut entries = three();
        entries.extend([rewind(2), start(4), says("four"), undone()]);
        assert_eq!(
            live_entries(entries.clone()),
            vec![start(1), says("one"), start(4), says("four")]
        );
        assert_eq!(undoable_rewind(&entries), None);
        let mut entries = three();
        entries.push(rewind(2));
        assert_eq!(undoable_rewind(&entries), Some(false));
        // Numbers of the prompts that came back stay theirs: a later rewind finds them.
        entries.extend([undone(), rewind(3)]);
        assert_eq!(live_entries(entries), all[..4].to_vec());
    }

    #[test]
    fn a_rewind_cuts_back_to_its_prompt_and_numbers_are_never_reused() {
        let entries = vec![
            start(1),
            says("one"),
            start(2),
            says("two"),
            start(3),
            says("three"),
            rewind(2),
            start(4),
            says("four"),
        ];
        assert_eq!(next_turn(&entries), 5);
        let live = live_entries(entries);
        assert_eq!(live, vec![start(1), says("one"), start(4), says("four")]);
        let numbers: Vec<(u32, String)> = prompts(&live).into_iter().map(|p| (p.turn, p.text)).collect();
        assert_eq!(numbers, vec![(1, "one".into()), (4, "four".into())]);
    }

    #[test]
    fn a_rewind_to_a_prompt_already_rewound_away_changes_nothing() {
        let entries = vec![start(1), says("one"), start(2), says("two"), rewind(2), rewind(2)];
        assert_eq!(live_entries(entries), vec![start(1), says("one")]);
    }
}
