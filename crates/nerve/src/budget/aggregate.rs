//! The per-message aggregate budget. Many results each just under their own limit can still flood
//! the context, so the tool results that go back in one user message are capped together: over the
//! cap, the largest new results are persisted first.
//!
//! Once a result has been sent to the model, its form (inline or persisted) is frozen for the rest of
//! the session: changing it later would change an already-cached prompt prefix. The decisions are
//! recorded so a resumed session rebuilds exactly the same messages.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::budget::{ResultStore, persisted_wrapper, result_chars};
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
