//! The per-message aggregate budget. Many results each just under their own limit can still flood
//! the context, so the tool results that go back in one user message are capped together: over the
//! cap, the largest new results are persisted first.
//!
//! Read results are never persisted (the model would read the persisted file back, which could be
//! too large again, forever); Read bounds each result itself, at about 25,000 tokens. That bounds
//! one Read, not several: three large Reads in one message are about 300,000 characters. So when
//! the text of results that cannot be persisted still goes over the cap, the largest of them are
//! withheld: replaced by a notice asking the model to read again, alone or in parts. Nothing is
//! written for them, so there is no persisted file to read back and no loop; one Read alone always
//! fits and is never withheld.
//!
//! Once a result has been sent to the model, its form (inline or persisted) is frozen for the rest of
//! the session: changing it later would change an already-cached prompt prefix. The decisions are
//! recorded so a resumed session rebuilds exactly the same messages.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::budget::{PersistedOutput, ResultStore, persisted_wrapper, result_chars};
use crate::tool::ResultBlock;

/// Characters of tool results allowed in one user message.
pub const MESSAGE_BUDGET_CHARS: usize = 200_000;

/// The frozen form of one result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "form", rename_all = "snake_case")]
pub enum Replacement {
    /// Sent inline, as produced.
    Kept,
    /// Replaced by this `<persisted-output>` wrapper.
    Persisted {
        /// The wrapper text sent in place of the content.
        wrapper: String,
    },
    /// A result that may not be persisted (Read), left out of a message it would have overfilled.
    Withheld {
        /// The notice sent in place of the content.
        notice: String,
    },
}

/// The notice sent instead of a withheld result.
fn withheld_notice(tool_name: &str, chars: usize, limit: usize) -> String {
    format!(
        "<withheld-output>\nThis {tool_name} result ({chars} characters) was left out: with the other tool results of this message it went over the {limit}-character limit of one message. Its content was not kept. Call {tool_name} again on its own, or for a smaller part (offset and limit).\n</withheld-output>"
    )
}

/// Characters of text in a result; `None` when it carries an image or a document, whose size the
/// tool bounds by its own limits and which the model cannot ask for in smaller parts.
fn text_only_chars(content: &[ResultBlock]) -> Option<usize> {
    content
        .iter()
        .map(|b| match b {
            ResultBlock::Text { text } => Some(text.len()),
            ResultBlock::Image { .. } | ResultBlock::Document { .. } => None,
        })
        .sum()
}

/// A decision as written to the transcript.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReplacementRecord {
    /// The call.
    pub tool_use_id: String,
    /// Its frozen form.
    pub replacement: Replacement,
}

/// Decisions made so far in a session. A sub-agent starts from a clone of its parent's.
#[derive(Debug, Clone, Default)]
pub struct ContentReplacementState {
    decisions: HashMap<String, Replacement>,
}

impl ContentReplacementState {
    /// Rebuilds the state from transcript records (a resumed session).
    pub fn from_records(records: impl IntoIterator<Item = ReplacementRecord>) -> Self {
        Self {
            decisions: records
                .into_iter()
                .map(|r| (r.tool_use_id, r.replacement))
                .collect(),
        }
    }

    /// The frozen form of a result, if it was already sent.
    pub fn decision(&self, tool_use_id: &str) -> Option<&Replacement> {
        self.decisions.get(tool_use_id)
    }

    /// How many results have a frozen form.
    pub fn len(&self) -> usize {
        self.decisions.len()
    }

    /// Whether nothing was decided yet.
    pub fn is_empty(&self) -> bool {
        self.decisions.is_empty()
    }
}

/// A result on its way into a user message.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetedResult {
    /// The call.
    pub tool_use_id: String,
    /// The tool (for the persisted file's index entry).
    pub tool_name: String,
    /// The content; replaced by a wrapper when persisted.
    pub content: Vec<ResultBlock>,
    /// False for tools that must never be persisted (Read bounds itself instead).
    pub persistable: bool,
    /// Set when this budget persisted the result: the file, as the store wrote it.
    pub persisted: Option<PersistedOutput>,
}

/// Applies frozen decisions, then persists the largest new results until the message fits `limit`.
/// Returns the decisions made for new results, to be recorded in the transcript.
///
/// If writing a file fails (a full disk), that result stays inline: nothing the model produced or a
/// tool returned is lost, the message is just larger than the budget.
pub fn enforce_message_budget(
    results: &mut [BudgetedResult],
    state: &mut ContentReplacementState,
    store: &ResultStore,
    limit: usize,
) -> Vec<ReplacementRecord> {
    let mut new_ids = Vec::new();
    for r in results.iter_mut() {
        match state.decisions.get(&r.tool_use_id) {
            Some(Replacement::Persisted { wrapper }) => r.content = vec![ResultBlock::text(wrapper.clone())],
            Some(Replacement::Withheld { notice }) => r.content = vec![ResultBlock::text(notice.clone())],
            Some(Replacement::Kept) => {}
            None => new_ids.push(r.tool_use_id.clone()),
        }
    }
    let mut total: usize = results.iter().map(|r| result_chars(&r.content)).sum();

    let mut candidates: Vec<usize> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| r.persistable && new_ids.contains(&r.tool_use_id))
        .map(|(i, _)| i)
        .collect();
    // Largest first; ties keep request order so the outcome is deterministic.
    candidates.sort_by(|&a, &b| {
        result_chars(&results[b].content)
            .cmp(&result_chars(&results[a].content))
            .then(a.cmp(&b))
    });

    let mut records = Vec::new();
    // Results given a replacement (persisted or withheld); the others are recorded as kept.
    let mut persisted_ids = Vec::new();
    for i in candidates {
        if total <= limit {
            break;
        }
        let r = &mut results[i];
        let before = result_chars(&r.content);
        match store.persist(&r.tool_name, &r.tool_use_id, &r.content) {
            Ok(p) => {
                let wrapper = persisted_wrapper(&p);
                total = total - before + wrapper.len();
                r.content = vec![ResultBlock::text(wrapper.clone())];
                r.persisted = Some(p);
                persisted_ids.push(r.tool_use_id.clone());
                records.push(ReplacementRecord {
                    tool_use_id: r.tool_use_id.clone(),
                    replacement: Replacement::Persisted { wrapper },
                });
            }
            Err(e) => {
                tracing::warn!(error_kind = ?e.kind(), "could not persist a tool result; keeping it inline");
            }
        }
    }

    // Still over in text: withhold the largest new text results that cannot be persisted, never
    // the last one left inline (one Read alone is within its own limit). Images and documents are
    // not counted here: their tools bound them, and they cannot be asked for in smaller parts.
    let mut text_total: usize = results
        .iter()
        .flat_map(|r| &r.content)
        .map(|b| match b {
            ResultBlock::Text { text } => text.len(),
            ResultBlock::Image { .. } | ResultBlock::Document { .. } => 0,
        })
        .sum();
    let mut unpersistable: Vec<(usize, usize)> = results
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.persistable && new_ids.contains(&r.tool_use_id))
        .filter_map(|(i, r)| text_only_chars(&r.content).map(|chars| (i, chars)))
        .collect();
    unpersistable.sort_by(|&(a, ca), &(b, cb)| cb.cmp(&ca).then(a.cmp(&b)));
    let mut inline_left = unpersistable.len();
    for (i, chars) in unpersistable {
        if text_total <= limit || inline_left <= 1 {
            break;
        }
        let r = &mut results[i];
        let notice = withheld_notice(&r.tool_name, chars, limit);
        text_total = text_total - chars + notice.len();
        r.content = vec![ResultBlock::text(notice.clone())];
        inline_left -= 1;
        persisted_ids.push(r.tool_use_id.clone());
        records.push(ReplacementRecord {
            tool_use_id: r.tool_use_id.clone(),
            replacement: Replacement::Withheld { notice },
        });
    }

    for id in new_ids {
        if !persisted_ids.contains(&id) {
            records.push(ReplacementRecord {
                tool_use_id: id,
                replacement: Replacement::Kept,
            });
        }
    }
    for rec in &records {
        state
            .decisions
            .insert(rec.tool_use_id.clone(), rec.replacement.clone());
    }
    records
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn result(id: &str, chars: usize) -> BudgetedResult {
        BudgetedResult {
            tool_use_id: id.into(),
            tool_name: "T".into(),
            content: vec![ResultBlock::text("x".repeat(chars))],
            persistable: true,
            persisted: None,
        }
    }

    #[test]
    fn under_budget_keeps_everything() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let mut rs = vec![result("a", 10), result("b", 20)];
        let recs = enforce_message_budget(&mut rs, &mut state, &store, 100);
        assert_eq!(recs.len(), 2);
        assert!(recs.iter().all(|r| r.replacement == Replacement::Kept));
        assert_eq!(result_chars(&rs[1].content), 20);
    }

    #[test]
    fn persists_largest_first_until_it_fits() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let mut rs = vec![
            result("small", 40_000),
            result("big", 90_000),
            result("mid", 80_000),
        ];
        enforce_message_budget(&mut rs, &mut state, &store, 130_000);
        let forms: Vec<bool> = rs
            .iter()
            .map(|r| {
                matches!(
                    state.decision(&r.tool_use_id),
                    Some(Replacement::Persisted { .. })
                )
            })
            .collect();
        assert_eq!(forms, vec![false, true, false], "only the largest had to go");
        let file = rs[1].persisted.as_ref().expect("the store's answer is kept");
        assert_eq!(
            (file.path.clone(), file.size_bytes),
            (dir.path().join("s/tool-results/big.txt"), 90_000)
        );
        assert!(rs[0].persisted.is_none() && rs[2].persisted.is_none());
        let total: usize = rs.iter().map(|r| result_chars(&r.content)).sum();
        assert!(total <= 130_000);
        assert!(dir.path().join("s/tool-results/big.txt").exists());
    }

    #[test]
    fn never_persists_unpersistable_results() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let mut r = result("read", 500);
        r.persistable = false;
        let mut rs = vec![r];
        enforce_message_budget(&mut rs, &mut state, &store, 10);
        assert_eq!(state.decision("read"), Some(&Replacement::Kept));
    }

    fn unpersistable(id: &str, chars: usize) -> BudgetedResult {
        BudgetedResult {
            persistable: false,
            tool_name: "Read".into(),
            ..result(id, chars)
        }
    }

    #[test]
    fn one_read_alone_is_never_withheld_and_media_is_not_counted() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let image = BudgetedResult {
            content: vec![ResultBlock::Image {
                media_type: "image/png".into(),
                data: "A".repeat(500),
            }],
            ..unpersistable("image", 0)
        };
        let mut rs = vec![unpersistable("read", 300), image];
        let records = enforce_message_budget(&mut rs, &mut state, &store, 100);
        assert!(
            records.iter().all(|r| r.replacement == Replacement::Kept),
            "{records:?}"
        );
    }

    #[test]
    fn withheld_results_stay_withheld_when_the_session_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let mut rs = vec![unpersistable("a", 80), unpersistable("b", 90)];
        let records = enforce_message_budget(&mut rs, &mut state, &store, 100);
        let notice = withheld_notice("Read", 90, 100);
        assert_eq!(
            records,
            vec![
                ReplacementRecord {
                    tool_use_id: "b".into(),
                    replacement: Replacement::Withheld {
                        notice: notice.clone()
                    },
                },
                ReplacementRecord {
                    tool_use_id: "a".into(),
                    replacement: Replacement::Kept
                },
            ]
        );
        let mut resumed = ContentReplacementState::from_records(records);
        let mut again = vec![unpersistable("a", 80), unpersistable("b", 90)];
        enforce_message_budget(&mut again, &mut resumed, &store, 1_000_000);
        assert_eq!(again[1].content, vec![ResultBlock::text(notice)]);
    }

    #[test]
    fn frozen_decisions_are_reapplied_and_not_revisited() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let mut state = ContentReplacementState::default();
        let mut first = vec![result("old", 300)];
        enforce_message_budget(&mut first, &mut state, &store, 100);
        let records: Vec<ReplacementRecord> = vec![ReplacementRecord {
            tool_use_id: "old".into(),
            replacement: state.decision("old").cloned().unwrap(),
        }];
        // A resumed session sees the raw result again and must produce the same wrapper.
        let mut resumed = ContentReplacementState::from_records(records);
        let mut again = vec![result("old", 300), result("kept", 50)];
        let recs = enforce_message_budget(&mut again, &mut resumed, &store, 1_000_000);
        assert_eq!(again[0].content, first[0].content);
        assert_eq!(
            recs,
            vec![ReplacementRecord {
                tool_use_id: "kept".into(),
                replacement: Replacement::Kept
            }]
        );
        // An already-kept result is not persisted later even when the budget is exceeded.
        let mut later = vec![result("kept", 50), result("new", 10)];
        enforce_message_budget(&mut later, &mut resumed, &store, 1);
        assert_eq!(result_chars(&later[0].content), 50);
    }

    #[test]
    fn full_disk_keeps_content_inline() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("f");
        std::fs::write(&blocker, "x").unwrap();
        let store = ResultStore::new(&blocker, "s");
        let mut state = ContentReplacementState::default();
        let mut rs = vec![result("a", 500)];
        enforce_message_budget(&mut rs, &mut state, &store, 10);
        assert_eq!(result_chars(&rs[0].content), 500, "content not lost");
        assert_eq!(state.decision("a"), Some(&Replacement::Kept));
    }
}
