//! A resumed conversation's tool calls as the live events described them: the one-line summary,
//! the batch the executor ran each call in, whether the user denied it, and its persisted output.
//! Front-ends rebuild their tool cards from this instead of guessing from raw messages.

pub use nerve_protocol::transcripts::PastCall;

use std::collections::{HashMap, HashSet};

use super::Agent;
use super::conversation::tool_uses_of;
use crate::executor::{input_is_concurrency_safe, partition};
use crate::model::types::{ContentBlock, Role, ToolResultBlock, ToolResultContent};
use crate::pipeline::{ToolCall, prepare_input};
use crate::transcripts::{TranscriptEntry, read_transcript};

impl Agent {
    /// The conversation's tool calls, in order, as the live events described them.
    pub fn past_calls(&self) -> Vec<PastCall> {
        let denied = self.transcript_path().map(denied_call_ids).unwrap_or_default();
        let persisted = self.runtime.pipeline.store().saved_by_call();
        calls_of(self, self.messages(), &denied, &persisted)
    }

    /// A sub-agent's conversation as it was when it ended, read from its transcript: the messages
    /// and its calls as cards (their diffs from this session's checkpoints, which the sub-agent
    /// shared, and their saved outputs from its own store).
    pub fn subagent_transcript(
        &self,
        agent_id: &str,
    ) -> Result<nerve_protocol::transcripts::SubagentTranscript, crate::transcripts::TranscriptError> {
        let session_dir = self
            .session_dir()
            .ok_or_else(|| crate::transcripts::TranscriptError::Read {
                path: agent_id.into(),
                source: std::io::Error::new(std::io::ErrorKind::NotFound, "this session keeps no transcript"),
            })?;
        let path = session_dir
            .join("subagents")
            .join(format!("{}.jsonl", crate::storage::safe_file_stem(agent_id)));
        let (entries, _) = read_transcript(&path)?;
        let (messages, _) = crate::transcripts::history_of(entries);
        let denied = denied_call_ids(&path);
        let persisted = crate::budget::ResultStore::new(&session_dir, agent_id).saved_by_call();
        Ok(nerve_protocol::transcripts::SubagentTranscript {
            agent_id: agent_id.to_string(),
            history: crate::model::view::history(&messages),
            past_calls: calls_of(self, &messages, &denied, &persisted),
        })
    }

    /// The folder beside the transcript where the session keeps its sub-agents and outputs.
    pub(crate) fn session_dir(&self) -> Option<std::path::PathBuf> {
        let transcript = self.transcript_path()?;
        let dir = transcript.parent()?;
        Some(dir.join(crate::storage::safe_file_stem(
            &self.runtime.context.config.session_id,
        )))
    }
}

/// The calls of `messages` as cards, read with the session's tools.
fn calls_of(
    agent: &Agent,
    messages: &[crate::model::types::Message],
    denied: &HashSet<String>,
    persisted: &HashMap<String, (std::path::PathBuf, u64)>,
) -> Vec<PastCall> {
    let pool = &agent.runtime.pipeline.pool();
    let cwd = &agent.runtime.context.exec.cwd;
    // Unreadable checkpoints only cost the cards their diffs.
    let mut changed = agent
        .own_checkpoints()
        .and_then(|c| crate::checkpoint::changes::changed_files_by_call(c).ok())
        .unwrap_or_default();
    let errors = engine_errors(messages);
    let mut calls = Vec::new();
    let mut batch_index = 0u32;
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        let uses: Vec<ToolCall> = tool_uses_of(message)
            .into_iter()
            .map(|t| ToolCall {
                id: t.id,
                name: t.name,
                input: t.input,
            })
            .collect();
        // Each input read once, as the executor read it when the call was queued.
        let prepared: Vec<_> = uses
            .iter()
            .map(|c| {
                let tool = pool.find(&c.name)?;
                // An invalid input never ran in parallel; its card still says what it tried.
                let (input, valid) = match prepare_input(pool, tool.as_ref(), c.input.clone()) {
                    Ok(input) => (input, true),
                    Err(_) => (tool.prepare(c.input.clone()), false),
                };
                Some((tool, input, valid))
            })
            .collect();
        let safe: Vec<bool> = prepared
            .iter()
            .map(|p| {
                p.as_ref().is_some_and(|(tool, input, valid)| {
                    *valid && input_is_concurrency_safe(tool.as_ref(), input)
                })
            })
            .collect();
        for batch in partition(&safe) {
            batch_index += 1;
            for i in batch.calls {
                let (Some(call), Some(prepared)) = (uses.get(i), prepared.get(i)) else {
                    continue;
                };
                let saved = persisted.get(&call.id);
                calls.push(PastCall {
                    tool_use_id: call.id.clone(),
                    tool_name: prepared
                        .as_ref()
                        .map_or_else(|| call.name.clone(), |(t, _, _)| t.name().to_string()),
                    kind: prepared
                        .as_ref()
                        .map_or(nerve_protocol::ToolKind::Other, |(t, _, _)| t.kind()),
                    display_name: prepared.as_ref().map_or_else(
                        || call.name.clone(),
                        |(t, input, _)| t.user_facing_name(Some(input)),
                    ),
                    summary: prepared
                        .as_ref()
                        .map(|(t, input, _)| t.summary(input, cwd))
                        .unwrap_or_default(),
                    batch_index,
                    concurrent: batch.concurrent,
                    denied: denied.contains(&call.id),
                    error: errors.get(&call.id).cloned(),
                    destructive: prepared
                        .as_ref()
                        .is_some_and(|(t, input, valid)| *valid && t.is_destructive(input, cwd)),
                    persisted_path: saved.map(|(p, _)| p.clone()),
                    persisted_bytes: saved.map(|(_, n)| *n),
                    changed_files: changed.remove(&call.id).unwrap_or_default(),
                });
            }
        }
    }
    calls
}

/// The messages of the engine-written errors among the conversation's tool results, by call.
fn engine_errors(messages: &[crate::model::types::Message]) -> HashMap<String, String> {
    let mut out = HashMap::new();
    for message in messages.iter().filter(|m| m.role == Role::User) {
        for block in &message.content {
            let ContentBlock::ToolResult(result) = block else {
                continue;
            };
            if !result.is_error {
                continue;
            }
            let first_text = match &result.content {
                Some(ToolResultContent::Text(text)) => Some(text.as_str()),
                Some(ToolResultContent::Blocks(blocks)) => blocks.iter().find_map(|b| match b {
                    ToolResultBlock::Text(t) => Some(t.text.as_str()),
                    ToolResultBlock::Image(_) => None,
                }),
                None => None,
            };
            if let Some(message) = first_text.and_then(crate::errors::tool_use_error_message) {
                out.insert(result.tool_use_id.clone(), message.to_string());
            }
        }
    }
    out
}

/// Calls the transcript at `path` records as refused.
fn denied_call_ids(path: &std::path::Path) -> HashSet<String> {
    // An unreadable transcript only costs the "denied" marks; the history itself is in memory.
    let Ok((entries, _)) = read_transcript(path) else {
        return HashSet::new();
    };
    entries
        .into_iter()
        .filter_map(|e| match e {
            TranscriptEntry::Permission {
                tool_use_id,
                allowed: false,
                ..
            } => Some(tool_use_id),
            _ => None,
        })
        .collect()
}
