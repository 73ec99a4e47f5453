//! Turning tool outcomes into the user message the API expects, and keeping the history valid:
//! every `tool_use` answered by exactly one `tool_result` in the next user message.

use std::collections::HashSet;

use crate::budget::{
    BudgetedResult, ContentReplacementState, PersistedOutput, ReplacementRecord, ResultStore,
    enforce_message_budget,
};
use crate::model::context::ContextFragment;
use crate::model::types::{
    ContentBlock, DocumentBlock, ImageBlock, MediaSource, Message, Role, TextBlock, ToolResult,
    ToolResultBlock, ToolResultContent, ToolUseBlock,
};
use crate::pipeline::CallOutcome;
use crate::tool::{NewMessage, ResultBlock};

/// The tool_use blocks of an assistant message, in order.
pub fn tool_uses_of(message: &Message) -> Vec<ToolUseBlock> {
    message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolUse(t) => Some(t.clone()),
            _ => None,
        })
        .collect()
}

/// The user message answering a turn's calls, and what the per-message budget decided for it.
#[derive(Debug)]
pub struct AnsweredCalls {
    /// The message.
    pub message: Message,
    /// The form of each result sent for the first time (recorded in the transcript).
    pub records: Vec<ReplacementRecord>,
    /// The results this budget persisted: the call and its file, as the store wrote it.
    pub persisted: Vec<(String, PersistedOutput)>,
}

/// Builds the user message answering a turn's tool calls: one `tool_result` per outcome, in request
/// order, after the per-message aggregate budget; then any extra messages the tools or hooks added
/// (as text blocks after every tool_result, which the API requires to come first).
pub fn outcomes_to_user_message(
    outcomes: &[CallOutcome],
    replacements: &mut ContentReplacementState,
    store: &ResultStore,
    budget_chars: usize,
) -> AnsweredCalls {
    let mut budgeted: Vec<BudgetedResult> = outcomes
        .iter()
        .map(|o| BudgetedResult {
            tool_use_id: o.tool_use_id.clone(),
            tool_name: o.tool_name.clone(),
            content: o.content.clone(),
            persistable: o.persistable,
            persisted: None,
        })
        .collect();
    let records = enforce_message_budget(&mut budgeted, replacements, store, budget_chars);
    let mut persisted = Vec::new();

    let mut content = Vec::new();
    let mut trailing = Vec::new();
    for (outcome, result) in outcomes.iter().zip(budgeted) {
        if let Some(file) = result.persisted {
            persisted.push((result.tool_use_id, file));
        }
        let mut blocks = Vec::new();
        for block in result.content {
            match block {
                ResultBlock::Text { text } => blocks.push(ToolResultBlock::Text(TextBlock {
                    text,
                    cache_control: None,
                })),
                ResultBlock::Image { media_type, data } => blocks.push(ToolResultBlock::Image(ImageBlock {
                    source: MediaSource::Base64 { media_type, data },
                    cache_control: None,
                })),
                // Documents go next to the results (the result says where to find them).
                ResultBlock::Document { media_type, data } => {
                    trailing.push(ContentBlock::Document(DocumentBlock {
                        source: MediaSource::Base64 { media_type, data },
                        title: None,
                        cache_control: None,
                    }))
                }
            }
        }
        if blocks.is_empty() {
            blocks.push(ToolResultBlock::Text(TextBlock {
                text: format!("({} returned a document, attached below)", outcome.tool_name),
                cache_control: None,
            }));
        }
        content.push(ContentBlock::ToolResult(ToolResult {
            tool_use_id: outcome.tool_use_id.clone(),
            content: Some(ToolResultContent::Blocks(blocks)),
            is_error: outcome.is_error,
            cache_control: None,
        }));
        for m in &outcome.new_messages {
            if matches!(m, NewMessage::SubagentTranscript { .. }) {
                continue;
            }
            let note = match m {
                NewMessage::SystemReminder { text } => ContextFragment::new(text.as_str()),
                NewMessage::HookContext { event, text } => ContextFragment::hook_context(event, text),
                NewMessage::Attachment { label, value } => ContextFragment::new(format!("{label}:\n{value}")),
                NewMessage::SubagentTranscript { .. } => continue,
            };
            trailing.push(note.block());
        }
    }
    content.extend(trailing);
    AnsweredCalls {
        message: Message {
            role: Role::User,
            content,
        },
        records,
        persisted,
    }
}

/// Whether every tool_use already has its one tool_result, in request order, at the start of the
/// next user message, and no other tool_result follows: the history [`answer_missing_tool_uses`]
/// leaves as it is. Reads only (no copy of the history), so it can run before every request.
pub fn tool_uses_are_answered(messages: &[Message]) -> bool {
    messages.iter().enumerate().all(|(i, message)| {
        if message.role != Role::Assistant {
            return true;
        }
        let mut uses = message
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse(t) => Some(t.id.as_str()),
                _ => None,
            })
            .peekable();
        if uses.peek().is_none() {
            return true;
        }
        let Some(next) = messages.get(i + 1).filter(|m| m.role == Role::User) else {
            return false;
        };
        let mut blocks = next.content.iter();
        uses.all(|id| matches!(blocks.next(), Some(ContentBlock::ToolResult(r)) if r.tool_use_id == id))
            && !blocks.any(|b| matches!(b, ContentBlock::ToolResult(_)))
    })
}

/// Repairs a history so every tool_use has exactly one tool_result in the next user message:
/// missing answers are added as "interrupted" errors (a crash, a kill, an abort mid-turn), and
/// results for unknown or duplicate ids are dropped. Used on resume and after failures.
pub fn answer_missing_tool_uses(messages: &mut Vec<Message>) {
    let mut i = 0;
    while i < messages.len() {
        if messages[i].role != Role::Assistant {
            i += 1;
            continue;
        }
        let uses = tool_uses_of(&messages[i]);
        if uses.is_empty() {
            i += 1;
            continue;
        }
        let wanted: Vec<String> = uses.iter().map(|u| u.id.clone()).collect();
        let next_is_user = messages.get(i + 1).is_some_and(|m| m.role == Role::User);
        if !next_is_user {
            messages.insert(
                i + 1,
                Message {
                    role: Role::User,
                    content: Vec::new(),
                },
            );
        }
        let next = &mut messages[i + 1];
        let mut seen = HashSet::new();
        let mut results = Vec::new();
        let mut others = Vec::new();
        for block in std::mem::take(&mut next.content) {
            match block {
                ContentBlock::ToolResult(r)
                    if wanted.contains(&r.tool_use_id) && seen.insert(r.tool_use_id.clone()) =>
                {
                    results.push(ContentBlock::ToolResult(r));
                }
                ContentBlock::ToolResult(_) => {}
                other => others.push(other),
            }
        }
        for id in &wanted {
            if !seen.contains(id) {
                results.push(interrupted_result(id));
            }
        }
        // Results in request order, then everything else.
        results.sort_by_key(|b| match b {
            ContentBlock::ToolResult(r) => wanted
                .iter()
                .position(|w| *w == r.tool_use_id)
                .unwrap_or(usize::MAX),
            _ => usize::MAX,
        });
        results.extend(others);
        next.content = results;
        i += 2;
    }
}

fn interrupted_result(id: &str) -> ContentBlock {
    ContentBlock::ToolResult(ToolResult {
        tool_use_id: id.to_string(),
        content: Some(ToolResultContent::Text(crate::errors::wrap_tool_use_error(
            "Interrupted: the session ended before this tool call finished; its effects, if any, are unknown.",
        ))),
        is_error: true,
        cache_control: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool_use(id: &str) -> ContentBlock {
        ContentBlock::ToolUse(ToolUseBlock {
            id: id.into(),
            name: "T".into(),
            input: json!({}),
            cache_control: None,
        })
    }

    #[test]
    fn missing_results_are_added_in_order() {
        let mut history = vec![
            Message::user_text("go"),
            Message {
                role: Role::Assistant,
                content: vec![tool_use("a"), tool_use("b")],
            },
            Message {
                role: Role::User,
                content: vec![
                    ContentBlock::tool_result("b", "done", false),
                    ContentBlock::tool_result("zzz", "stray", false),
                ],
            },
            Message {
                role: Role::Assistant,
                content: vec![tool_use("c")],
            },
        ];
        answer_missing_tool_uses(&mut history);
        assert_eq!(history.len(), 5);
        let ids: Vec<(String, bool)> = history[2]
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult(r) => Some((r.tool_use_id.clone(), r.is_error)),
                _ => None,
            })
            .collect();
        assert_eq!(ids, vec![("a".into(), true), ("b".into(), false)]);
        assert!(
            matches!(&history[4].content[0], ContentBlock::ToolResult(r) if r.tool_use_id == "c" && r.is_error)
        );
    }

    /// The read-only check says "answered" exactly when the repair would change nothing.
    #[test]
    fn the_check_agrees_with_the_repair() {
        let assistant = |blocks: Vec<ContentBlock>| Message {
            role: Role::Assistant,
            content: blocks,
        };
        let user = |blocks: Vec<ContentBlock>| Message {
            role: Role::User,
            content: blocks,
        };
        let result = |id: &str| ContentBlock::tool_result(id, "ok", false);
        let histories = vec![
            vec![Message::user_text("go")],
            vec![Message::user_text("go"), assistant(vec![tool_use("a")])],
            vec![
                Message::user_text("go"),
                assistant(vec![tool_use("a"), tool_use("b")]),
                user(vec![result("a"), result("b"), ContentBlock::text("and then")]),
            ],
            vec![
                Message::user_text("go"),
                assistant(vec![tool_use("a"), tool_use("b")]),
                user(vec![result("b"), result("a")]),
            ],
            vec![
                Message::user_text("go"),
                assistant(vec![tool_use("a")]),
                user(vec![result("a"), result("stray")]),
            ],
            vec![
                Message::user_text("go"),
                assistant(vec![tool_use("a")]),
                user(vec![ContentBlock::text("first"), result("a")]),
            ],
            vec![
                Message::user_text("go"),
                assistant(vec![ContentBlock::text("no tools")]),
                Message::user_text("next"),
            ],
        ];
        for history in histories {
            let mut repaired = history.clone();
            answer_missing_tool_uses(&mut repaired);
            assert_eq!(
                tool_uses_are_answered(&history),
                repaired == history,
                "{history:?}"
            );
        }
    }
}
