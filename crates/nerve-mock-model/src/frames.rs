//! Turning a scripted stream step into the exact SSE events the API would send.

use std::time::Duration;

use serde_json::{Value, json};

use crate::scenario::{BlockSpec, StreamResponse};

/// One SSE event with the pause to take before sending it.
#[derive(Debug, Clone, PartialEq)]
pub struct Frame {
    /// Pause before this event.
    pub delay: Duration,
    /// SSE event name (equal to the data's `type`).
    pub event: &'static str,
    /// The JSON data.
    pub data: Value,
}

impl Frame {
    /// Wire form: `event: NAME\ndata: JSON\n\n`.
    pub fn encode(&self) -> String {
        format!("event: {}\ndata: {}\n\n", self.event, self.data)
    }
}

/// The id a scripted tool_use gets when the scenario gives none: `toolu_mock_<step>_<block>`.
pub fn tool_use_id(step: usize, block: usize, spec: Option<&String>) -> String {
    spec.cloned()
        .unwrap_or_else(|| format!("toolu_mock_{step}_{block}"))
}

fn stop_reason(response: &StreamResponse) -> String {
    response.stop_reason.clone().unwrap_or_else(|| {
        let has_tool = response
            .blocks
            .iter()
            .any(|b| matches!(b, BlockSpec::ToolUse { .. }));
        if has_tool { "tool_use" } else { "end_turn" }.to_owned()
    })
}

/// Splits `text` into at most `parts` pieces of similar length on character boundaries.
pub fn split_fragments(text: &str, parts: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let parts = parts.clamp(1, chars.len().max(1));
    let size = chars.len().div_ceil(parts).max(1);
    let mut out: Vec<String> = chars.chunks(size).map(|c| c.iter().collect()).collect();
    if out.is_empty() {
        out.push(String::new());
    }
    out
}

fn tool_input_text(input: &Value, raw_input: Option<&String>) -> String {
    raw_input.cloned().unwrap_or_else(|| input.to_string())
}

/// The content blocks of the complete message (used for non-streaming answers).
pub fn content_blocks(step: usize, response: &StreamResponse) -> Vec<Value> {
    response
        .blocks
        .iter()
        .enumerate()
        .map(|(index, block)| match block {
            BlockSpec::Text { text, .. } => json!({"type": "text", "text": text.joined()}),
            BlockSpec::Thinking { thinking, signature, .. } => {
                json!({"type": "thinking", "thinking": thinking.joined(), "signature": signature})
            }
            BlockSpec::ToolUse { id, name, input, .. } => {
                json!({"type": "tool_use", "id": tool_use_id(step, index, id.as_ref()), "name": name, "input": input})
            }
            BlockSpec::ServerToolUse { id, name, input } => {
                json!({"type": "server_tool_use", "id": id, "name": name, "input": input})
            }
            BlockSpec::WebSearchToolResult { tool_use_id, content } => {
                json!({"type": "web_search_tool_result", "tool_use_id": tool_use_id, "content": content})
            }
        })
        .collect()
}

fn usage_json(response: &StreamResponse, output_tokens: u64) -> Value {
    json!({
        "input_tokens": response.usage.input_tokens,
        "cache_creation_input_tokens": response.usage.cache_creation_input_tokens,
        "cache_read_input_tokens": response.usage.cache_read_input_tokens,
        "output_tokens": output_tokens,
    })
}

/// The complete message as a non-streaming response body.
pub fn full_message(step: usize, response: &StreamResponse, model: &str, message_id: &str) -> Value {
    json!({
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": response.model.as_deref().unwrap_or(model),
        "content": content_blocks(step, response),
        "stop_reason": stop_reason(response),
        "stop_sequence": null,
        "usage": usage_json(response, response.usage.output_tokens),
    })
}

/// Every event of the streamed answer, in order, with its pause.
pub fn stream_frames(step: usize, response: &StreamResponse, model: &str, message_id: &str) -> Vec<Frame> {
    let delta_delay = Duration::from_millis(response.delta_delay_ms);
    let mut frames = vec![
        Frame {
            delay: Duration::from_millis(response.delay_ms),
            event: "message_start",
            data: json!({"type": "message_start", "message": {
                "id": message_id, "type": "message", "role": "assistant",
                "model": response.model.as_deref().unwrap_or(model),
                "content": [], "stop_reason": null, "stop_sequence": null,
                "usage": usage_json(response, 1),
            }}),
        },
        Frame {
            delay: Duration::ZERO,
            event: "ping",
            data: json!({"type": "ping"}),
        },
    ];
    let delta = |index: usize, delta: Value| Frame {
        delay: delta_delay,
        event: "content_block_delta",
        data: json!({"type": "content_block_delta", "index": index, "delta": delta}),
    };
    for (index, block) in response.blocks.iter().enumerate() {
        let (delay_ms, start, deltas) = match block {
            BlockSpec::Text { text, delay_ms } => (
                *delay_ms,
                json!({"type": "text", "text": ""}),
                text.chunks()
                    .into_iter()
                    .map(|t| json!({"type": "text_delta", "text": t}))
                    .collect::<Vec<_>>(),
            ),
            BlockSpec::Thinking {
                thinking,
                signature,
                delay_ms,
            } => {
                let mut deltas: Vec<Value> = thinking
                    .chunks()
                    .into_iter()
                    .map(|t| json!({"type": "thinking_delta", "thinking": t}))
                    .collect();
                deltas.push(json!({"type": "signature_delta", "signature": signature}));
                (
                    *delay_ms,
                    json!({"type": "thinking", "thinking": "", "signature": ""}),
                    deltas,
                )
            }
            BlockSpec::ToolUse {
                id,
                name,
                input,
                raw_input,
                fragments,
                delay_ms,
            } => (
                *delay_ms,
                json!({"type": "tool_use", "id": tool_use_id(step, index, id.as_ref()), "name": name, "input": {}}),
                std::iter::once(String::new())
                    .chain(split_fragments(
                        &tool_input_text(input, raw_input.as_ref()),
                        *fragments,
                    ))
                    .map(|fragment| json!({"type": "input_json_delta", "partial_json": fragment}))
                    .collect(),
            ),
            // As the API streams them: the call's input in one delta, the results whole at start.
            BlockSpec::ServerToolUse { id, name, input } => (
                0,
                json!({"type": "server_tool_use", "id": id, "name": name, "input": {}}),
                vec![json!({"type": "input_json_delta", "partial_json": input.to_string()})],
            ),
            BlockSpec::WebSearchToolResult { tool_use_id, content } => (
                0,
                json!({"type": "web_search_tool_result", "tool_use_id": tool_use_id, "content": content}),
                Vec::new(),
            ),
        };
        frames.push(Frame {
            delay: Duration::from_millis(delay_ms),
            event: "content_block_start",
            data: json!({"type": "content_block_start", "index": index, "content_block": start}),
        });
        frames.extend(deltas.into_iter().map(|d| delta(index, d)));
        frames.push(Frame {
            delay: Duration::ZERO,
            event: "content_block_stop",
            data: json!({"type": "content_block_stop", "index": index}),
        });
    }
    frames.push(Frame {
        delay: Duration::ZERO,
        event: "message_delta",
        data: json!({"type": "message_delta",
                     "delta": {"stop_reason": stop_reason(response), "stop_sequence": null},
                     "usage": {"output_tokens": response.usage.output_tokens}}),
    });
    frames.push(Frame {
        delay: Duration::ZERO,
        event: "message_stop",
        data: json!({"type": "message_stop"}),
    });
    frames
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{TextSpec, UsageSpec};
    use pretty_assertions::assert_eq;

    fn response(blocks: Vec<BlockSpec>) -> StreamResponse {
        StreamResponse {
            blocks,
            stop_reason: None,
            usage: UsageSpec::default(),
            model: None,
            delay_ms: 0,
            delta_delay_ms: 0,
            drop_after_events: None,
            stream_error: None,
        }
    }

    #[test]
    fn fragments_cover_the_text_exactly() {
        assert_eq!(split_fragments("abcdefg", 3), vec!["abc", "def", "g"]);
        assert_eq!(split_fragments("ab", 5), vec!["a", "b"]);
        assert_eq!(split_fragments("", 3), vec![""]);
        assert_eq!(split_fragments("héllo✓", 2).concat(), "héllo✓");
    }

    #[test]
    fn event_sequence_follows_the_protocol() {
        let frames = stream_frames(
            0,
            &response(vec![
                BlockSpec::Thinking {
                    thinking: TextSpec::Whole("t".into()),
                    signature: "s".into(),
                    delay_ms: 0,
                },
                BlockSpec::ToolUse {
                    id: None,
                    name: "Bash".into(),
                    input: json!({"command": "ls -la"}),
                    raw_input: None,
                    fragments: 2,
                    delay_ms: 0,
                },
            ]),
            "claude-test",
            "msg_1",
        );
        let names: Vec<&str> = frames.iter().map(|f| f.event).collect();
        assert_eq!(
            names,
            vec![
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert_eq!(frames[6].data["content_block"]["id"], "toolu_mock_0_1");
        let input: String = frames[7..10]
            .iter()
            .map(|f| f.data["delta"]["partial_json"].as_str().unwrap())
            .collect();
        assert_eq!(
            serde_json::from_str::<Value>(&input).unwrap(),
            json!({"command": "ls -la"})
        );
        assert_eq!(frames[11].data["delta"]["stop_reason"], "tool_use");
        assert_eq!(frames[0].encode().lines().next(), Some("event: message_start"));
    }
}
