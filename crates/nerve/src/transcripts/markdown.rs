//! A session as Markdown, for people: the prompts, the answers, and each tool call with its input and
//! result, in the conversation's order (after any rewind; from the summary on after a compaction).
//! The engine's own notes to the model (`<system-reminder>` blocks) and thinking are left out;
//! images and documents are named, not embedded. One renderer serves the app's Export and
//! `nerve sessions --export`.

use std::path::Path;

use super::{TranscriptError, live_entries, read_transcript};
use crate::model::types::{ContentBlock, Message, Role, ToolResultBlock, ToolResultContent};

/// The Markdown of the session whose transcript is at `path`.
pub fn session_markdown(path: &Path) -> Result<String, TranscriptError> {
    let (entries, _warnings) = read_transcript(path)?;
    let title = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let messages = super::replay(live_entries(entries)).messages;
    Ok(markdown(&title, &messages))
}

/// The Markdown of `messages`, headed by `session_id`.
pub fn markdown(session_id: &str, messages: &[Message]) -> String {
    let mut out = format!("# Nerve session {session_id}\n");
    for message in messages {
        match message.role {
            Role::User => user(&mut out, message),
            Role::Assistant => assistant(&mut out, message),
        }
    }
    out
}

/// Whether a text block is the engine's note to the model rather than the user's words.
fn is_engine_note(text: &str) -> bool {
    crate::model::context::ContextFragment::is_rendered(text)
}

fn user(out: &mut String, message: &Message) {
    let said: Vec<&str> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) if !is_engine_note(&t.text) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    for block in &message.content {
        if let ContentBlock::ToolResult(result) = block {
            let label = if result.is_error { "Error" } else { "Result" };
            out.push_str(&format!("\n{label}:\n\n"));
            let text = match &result.content {
                None => String::new(),
                Some(ToolResultContent::Text(text)) => text.clone(),
                Some(ToolResultContent::Blocks(blocks)) => blocks
                    .iter()
                    .map(|b| match b {
                        ToolResultBlock::Text(t) => t.text.clone(),
                        ToolResultBlock::Image(_) => "[image]".to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            };
            out.push_str(&fenced(&text, ""));
        }
    }
    if !said.is_empty() {
        out.push_str("\n## User\n\n");
        out.push_str(&said.join("\n\n"));
        out.push('\n');
    }
    for block in &message.content {
        match block {
            ContentBlock::Image(_) => out.push_str("\n[image]\n"),
            ContentBlock::Document(_) => out.push_str("\n[document]\n"),
            _ => {}
        }
    }
}

fn assistant(out: &mut String, message: &Message) {
    out.push_str("\n## Assistant\n");
    for block in &message.content {
        match block {
            ContentBlock::Text(t) => {
                out.push('\n');
                out.push_str(t.text.trim_end());
                out.push('\n');
            }
            ContentBlock::ToolUse(call) => {
                out.push_str(&format!("\n**{}** (`{}`)\n\n", call.name, call.id));
                let input = serde_json::to_string_pretty(&call.input).unwrap_or_default();
                out.push_str(&fenced(&input, "json"));
            }
            ContentBlock::Thinking(_)
            | ContentBlock::RedactedThinking(_)
            | ContentBlock::ToolResult(_)
            | ContentBlock::Image(_)
            | ContentBlock::Document(_) => {}
        }
    }
}

/// `text` in a code fence longer than any run of backticks inside it, so nothing in a tool's
/// output can close the fence early.
fn fenced(text: &str, language: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{language}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn message(role: Role, blocks: serde_json::Value) -> Message {
        Message {
            role,
            content: serde_json::from_value(blocks).unwrap(),
        }
    }

    #[test]
    fn a_conversation_reads_as_markdown() {
        let messages = vec![
            message(
                Role::User,
                serde_json::json!([
                    {"type": "text", "text": "<system-reminder>\nbranch is main\n</system-reminder>"},
                    {"type": "text", "text": "Count the lines"}
                ]),
            ),
            message(
                Role::Assistant,
                serde_json::json!([
                    {"type": "thinking", "thinking": "hmm", "signature": "s"},
                    {"type": "text", "text": "Counting."},
                    {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "wc -l a.md"}}
                ]),
            ),
            message(
                Role::User,
                serde_json::json!([
                    {"type": "tool_result", "tool_use_id": "t1", "content": "3 a.md\n```\nfence inside\n"}
                ]),
            ),
            message(
                Role::Assistant,
                serde_json::json!([{"type": "text", "text": "Three lines."}]),
            ),
        ];
        assert_eq!(
            markdown("s1", &messages),
            "# Nerve session s1\n\
             \n## User\n\nCount the lines\n\
             \n## Assistant\n\nCounting.\n\
             \n**Bash** (`t1`)\n\n```json\n{\n  \"command\": \"wc -l a.md\"\n}\n```\n\
             \nResult:\n\n````\n3 a.md\n```\nfence inside\n````\n\
             \n## Assistant\n\nThree lines.\n"
        );
    }
}
