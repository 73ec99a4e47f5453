//! OpenAI's Responses API (`POST /v1/responses`), the newer of its two: the same translation as
//! Chat Completions, in its terms. The request's system prompt becomes `instructions`, the
//! conversation `input` items (messages, `function_call`s and their `function_call_output`s), tools
//! flat functions; nothing is stored on the server (`store: false`), so every request carries the
//! whole conversation as the Messages API's do. The stream's typed events become the Messages
//! API's: a function call's block closes at its `response.output_item.done`, so the call starts
//! the moment its arguments are complete.

use std::fmt::Display;

use futures::Stream;
use serde_json::{Value, json};

use crate::model::error::StreamError;
use crate::model::sse::{
    ApiErrorDetail, BlockDelta, DeltaUsage, MessageDeltaBody, MessageStart, StreamEvent,
};
use crate::model::types::{ContentBlock, StopReason, TextBlock, ThinkingBlock, ToolUseBlock, Usage};

/// The Responses API body for `messages_body` (a Messages API request as JSON).
pub fn responses_body(messages_body: &Value) -> Result<Value, String> {
    let mut out = super::request::common_fields(messages_body, "max_output_tokens");
    out.insert("store".into(), Value::Bool(false));
    let system = super::request::system_text(messages_body.get("system"));
    if !system.is_empty() {
        out.insert("instructions".into(), Value::String(system));
    }
    let Some(messages) = messages_body.get("messages").and_then(Value::as_array) else {
        return Err("the request has no messages".into());
    };
    let mut input = Vec::new();
    for message in messages {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        let blocks: Vec<Value> = match message.get("content") {
            Some(Value::String(text)) => vec![json!({"type": "text", "text": text})],
            Some(Value::Array(blocks)) => blocks.clone(),
            _ => Vec::new(),
        };
        let mut parts = Vec::new();
        for block in &blocks {
            match (role, block.get("type").and_then(Value::as_str)) {
                ("user", Some("text")) => parts.push(json!({"type": "input_text", "text": block["text"]})),
                ("user", Some("image")) => {
                    let source = &block["source"];
                    if let (Some(media), Some(data)) =
                        (source["media_type"].as_str(), source["data"].as_str())
                    {
                        parts.push(json!({"type": "input_image", "image_url": format!("data:{media};base64,{data}")}));
                    }
                }
                ("user", Some("tool_result")) => input.push(json!({
                    "type": "function_call_output",
                    "call_id": block["tool_use_id"],
                    "output": super::request::tool_result_text(block),
                })),
                ("assistant", Some("text")) => {
                    parts.push(json!({"type": "output_text", "text": block["text"]}))
                }
                ("assistant", Some("tool_use")) => {
                    flush(&mut input, role, &mut parts);
                    input.push(json!({
                        "type": "function_call",
                        "call_id": block["id"],
                        "name": block["name"],
                        "arguments": block["input"].to_string(),
                    }));
                }
                _ => {}
            }
        }
        flush(&mut input, role, &mut parts);
    }
    out.insert("input".into(), Value::Array(input));
    let tools: Vec<Value> = messages_body
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|t| t.get("type").is_none() && t.get("input_schema").is_some())
        .map(|t| json!({"type": "function", "name": t["name"], "description": t["description"], "parameters": t["input_schema"]}))
        .collect();
    if !tools.is_empty() {
        out.insert("tools".into(), Value::Array(tools));
    }
    Ok(Value::Object(out))
}

/// The parts gathered so far as one message item.
fn flush(input: &mut Vec<Value>, role: &str, parts: &mut Vec<Value>) {
    if !parts.is_empty() {
        input.push(json!({"role": role, "content": std::mem::take(parts)}));
    }
}

/// The kind of the open block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Text,
    Thinking,
    Call,
}

/// What is open while the events arrive.
#[derive(Debug, Default)]
struct Translator {
    started: bool,
    next_block: usize,
    /// The open block's index and kind.
    open: Option<(usize, Open)>,
    calls: usize,
    ended: bool,
}

use super::stream::Item;

impl Translator {
    fn open_block(&mut self, out: &mut Vec<Item>, block: ContentBlock, kind: Open) -> usize {
        self.close(out);
        let index = self.next_block;
        self.next_block += 1;
        self.open = Some((index, kind));
        out.push(Ok(StreamEvent::ContentBlockStart {
            index,
            content_block: block,
        }));
        index
    }

    fn close(&mut self, out: &mut Vec<Item>) {
        if let Some((index, kind)) = self.open.take() {
            if kind == Open::Thinking {
                out.push(Ok(StreamEvent::ContentBlockDelta {
                    index,
                    delta: BlockDelta::SignatureDelta {
                        signature: super::stream::REASONING_SIGNATURE.to_string(),
                    },
                }));
            }
            out.push(Ok(StreamEvent::ContentBlockStop { index }));
        }
    }

    fn delta(&self, delta: BlockDelta) -> Item {
        Ok(StreamEvent::ContentBlockDelta {
            index: self.open.map_or(0, |(i, _)| i),
            delta,
        })
    }

    fn push(&mut self, data: &str) -> Vec<Item> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        let event: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => return vec![Err(StreamError::Protocol(format!("an event is not JSON: {e}")))],
        };
        let kind = event["type"].as_str().unwrap_or_default();
        if !self.started && kind != "error" {
            self.started = true;
            let response = &event["response"];
            out.push(Ok(StreamEvent::MessageStart {
                message: MessageStart {
                    id: response["id"].as_str().unwrap_or("resp").to_string(),
                    model: response["model"].as_str().unwrap_or_default().to_string(),
                    content: Vec::new(),
                    stop_reason: None,
                    stop_sequence: None,
                    usage: Usage::default(),
                },
            }));
        }
        match kind {
            "response.output_text.delta" => {
                if !matches!(self.open, Some((_, Open::Text))) {
                    let text = ContentBlock::Text(TextBlock {
                        text: String::new(),
                        cache_control: None,
                    });
                    self.open_block(&mut out, text, Open::Text);
                }
                out.push(self.delta(BlockDelta::TextDelta {
                    text: event["delta"].as_str().unwrap_or_default().to_string(),
                }));
            }
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                if !matches!(self.open, Some((_, Open::Thinking))) {
                    let block = ContentBlock::Thinking(ThinkingBlock {
                        thinking: String::new(),
                        signature: String::new(),
                    });
                    self.open_block(&mut out, block, Open::Thinking);
                }
                out.push(self.delta(BlockDelta::ThinkingDelta {
                    thinking: event["delta"].as_str().unwrap_or_default().to_string(),
                }));
            }
            "response.output_item.added" if event["item"]["type"] == "function_call" => {
                let item = &event["item"];
                self.calls += 1;
                let block = ContentBlock::ToolUse(ToolUseBlock {
                    id: item["call_id"].as_str().unwrap_or_default().to_string(),
                    name: item["name"].as_str().unwrap_or_default().to_string(),
                    input: json!({}),
                    cache_control: None,
                });
                self.open_block(&mut out, block, Open::Call);
            }
            "response.function_call_arguments.delta" => {
                out.push(self.delta(BlockDelta::InputJsonDelta {
                    partial_json: event["delta"].as_str().unwrap_or_default().to_string(),
                }));
            }
            // The item is complete: a call may start now.
            "response.output_item.done" => self.close(&mut out),
            "response.completed" | "response.incomplete" => {
                self.close(&mut out);
                self.ended = true;
                let usage = &event["response"]["usage"];
                let cached = usage["input_tokens_details"]["cached_tokens"]
                    .as_u64()
                    .unwrap_or(0);
                let stop_reason = if kind == "response.incomplete" {
                    StopReason::MaxTokens
                } else if self.calls > 0 {
                    StopReason::ToolUse
                } else {
                    StopReason::EndTurn
                };
                out.push(Ok(StreamEvent::MessageDelta {
                    delta: MessageDeltaBody {
                        stop_reason: Some(stop_reason),
                        stop_sequence: None,
                    },
                    usage: DeltaUsage {
                        input_tokens: Some(
                            usage["input_tokens"].as_u64().unwrap_or(0).saturating_sub(cached),
                        ),
                        output_tokens: Some(usage["output_tokens"].as_u64().unwrap_or(0)),
                        cache_creation_input_tokens: Some(0),
                        cache_read_input_tokens: Some(cached),
                    },
                }));
                out.push(Ok(StreamEvent::MessageStop));
            }
            "response.failed" | "error" => {
                let error = if kind == "error" {
                    &event
                } else {
                    &event["response"]["error"]
                };
                out.push(Ok(StreamEvent::Error {
                    error: ApiErrorDetail {
                        kind: error["code"].as_str().unwrap_or("api_error").to_string(),
                        message: error["message"]
                            .as_str()
                            .unwrap_or("the server reported an error")
                            .to_string(),
                    },
                }));
            }
            _ => {}
        }
        out
    }
}

impl super::stream::EventTranslator for Translator {
    fn push(&mut self, data: &str) -> Vec<Item> {
        Translator::push(self, data)
    }
}

/// Decodes a Responses API SSE body into Messages API events.
pub fn decode_responses_sse<S, B, E>(bytes: S) -> impl Stream<Item = Item>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: Display,
{
    super::stream::decode_translated(bytes, Translator::default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stream::{Assembled, MessageAssembler};

    #[test]
    fn a_conversation_becomes_instructions_and_input_items() {
        let body = json!({"model": "gpt-5", "max_tokens": 1000,
            "system": [{"type": "text", "text": "You are Nerve."}],
            "tools": [{"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": "/a"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "alpha"}]}]});
        assert_eq!(
            responses_body(&body).unwrap(),
            json!({"model": "gpt-5", "max_output_tokens": 1000, "stream": true, "store": false,
                   "instructions": "You are Nerve.",
                   "input": [
                       {"role": "user", "content": [{"type": "input_text", "text": "go"}]},
                       {"role": "assistant", "content": [{"type": "output_text", "text": "Reading."}]},
                       {"type": "function_call", "call_id": "call_1", "name": "Read", "arguments": "{\"file_path\":\"/a\"}"},
                       {"type": "function_call_output", "call_id": "call_1", "output": "alpha"}],
                   "tools": [{"type": "function", "name": "Read", "description": "Read a file", "parameters": {"type": "object"}}]})
        );
    }

    #[test]
    fn text_and_a_call_assemble_with_the_usage() {
        let events = [
            json!({"type": "response.created", "response": {"id": "resp_1", "model": "gpt-5"}}),
            json!({"type": "response.output_item.added", "item": {"type": "message", "id": "m"}}),
            json!({"type": "response.output_text.delta", "delta": "Reading "}),
            json!({"type": "response.output_text.delta", "delta": "it."}),
            json!({"type": "response.output_item.done", "item": {"type": "message"}}),
            json!({"type": "response.output_item.added", "item": {"type": "function_call", "call_id": "call_1", "name": "Read"}}),
            json!({"type": "response.function_call_arguments.delta", "delta": "{\"file_path\":"}),
            json!({"type": "response.function_call_arguments.delta", "delta": "\"/a\"}"}),
            json!({"type": "response.output_item.done", "item": {"type": "function_call"}}),
            json!({"type": "response.completed", "response": {"usage": {"input_tokens": 100, "output_tokens": 9, "input_tokens_details": {"cached_tokens": 60}}}}),
        ];
        let mut t = Translator::default();
        let mut assembler = MessageAssembler::new();
        let mut message = None;
        for e in events {
            for item in t.push(&e.to_string()) {
                if let Some(Assembled::MessageComplete(m)) = assembler.push(&item.unwrap()).unwrap() {
                    message = Some(m);
                }
            }
        }
        let message = message.unwrap();
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(
            serde_json::to_value(&message.content).unwrap(),
            json!([{"type": "text", "text": "Reading it."},
                   {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": "/a"}}])
        );
        assert_eq!(
            (message.usage.input_tokens, message.usage.cache_read_input_tokens),
            (40, 60)
        );
    }
}
