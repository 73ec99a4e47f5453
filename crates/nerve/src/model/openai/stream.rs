//! A Chat Completions stream read as the Messages API's events, so the assembler, the executor and
//! every front-end work as they do with Anthropic's API. Text deltas open a text block; each tool
//! call (by its `index`) opens a tool_use block whose `arguments` fragments are its input JSON.
//! A call's block closes as soon as the next call starts or the choice finishes, so the executor
//! starts it the moment its arguments are complete, as with the Messages API. The usage chunk
//! (`stream_options.include_usage`) gives the turn's tokens; `[DONE]`, or the stream's end after a
//! finish reason, ends the message.

use std::collections::VecDeque;
use std::fmt::Display;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use serde_json::{Value, json};

use crate::model::error::StreamError;
use crate::model::sse::{
    ApiErrorDetail, BlockDelta, DeltaUsage, MessageDeltaBody, MessageStart, StreamEvent,
};
use crate::model::types::{ContentBlock, StopReason, TextBlock, ThinkingBlock, ToolUseBlock, Usage};

/// The signature a chat server's reasoning gets as a thinking block (never checked by anyone).
pub const REASONING_SIGNATURE: &str = "nerve:openai-chat-reasoning";

/// What is open while the chunks arrive.
#[derive(Debug, Default)]
pub struct ChatTranslator {
    started: bool,
    next_block: usize,
    /// The open block: its index, and the call's `index` when it is a tool call.
    open: Option<(usize, Option<u64>)>,
    /// Whether the open block is the model's reasoning (a thinking block).
    thinking: bool,
    finish: Option<StopReason>,
    usage: Usage,
    ended: bool,
}

/// One translated event, or why the stream failed.
pub type Item = Result<StreamEvent, StreamError>;

impl ChatTranslator {
    /// The events one SSE `data:` payload stands for.
    pub fn push(&mut self, data: &str) -> Vec<Item> {
        let mut out = Vec::new();
        if self.ended {
            return out;
        }
        if data.trim() == "[DONE]" {
            self.end(&mut out);
            return out;
        }
        let chunk: Value = match serde_json::from_str(data) {
            Ok(v) => v,
            Err(e) => {
                out.push(Err(StreamError::Protocol(format!("a chunk is not JSON: {e}"))));
                return out;
            }
        };
        if let Some(error) = chunk.get("error") {
            out.push(Ok(StreamEvent::Error {
                error: ApiErrorDetail {
                    kind: error["type"].as_str().unwrap_or("api_error").to_string(),
                    message: error["message"]
                        .as_str()
                        .unwrap_or("the server reported an error")
                        .to_string(),
                },
            }));
            return out;
        }
        if !self.started {
            self.started = true;
            out.push(Ok(StreamEvent::MessageStart {
                message: MessageStart {
                    id: chunk["id"].as_str().unwrap_or("chatcmpl").to_string(),
                    model: chunk["model"].as_str().unwrap_or_default().to_string(),
                    content: Vec::new(),
                    stop_reason: None,
                    stop_sequence: None,
                    usage: Usage::default(),
                },
            }));
        }
        if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
            let prompt = usage["prompt_tokens"].as_u64().unwrap_or(0);
            let cached = usage["prompt_tokens_details"]["cached_tokens"]
                .as_u64()
                .unwrap_or(0);
            self.usage = Usage {
                input_tokens: prompt.saturating_sub(cached),
                output_tokens: usage["completion_tokens"].as_u64().unwrap_or(0),
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: cached,
            };
        }
        let Some(choice) = chunk["choices"].as_array().and_then(|c| c.first()) else {
            return out;
        };
        let delta = &choice["delta"];
        // Reasoning models' thoughts: `reasoning_content` (vLLM, DeepSeek, llama.cpp) or
        // `reasoning` (Ollama, LM Studio), shown as thinking.
        let reasoning = delta["reasoning_content"]
            .as_str()
            .or_else(|| delta["reasoning"].as_str())
            .filter(|t| !t.is_empty());
        if let Some(thought) = reasoning {
            if !self.thinking {
                self.close(&mut out);
                let index = self.open_block(None);
                self.thinking = true;
                out.push(Ok(StreamEvent::ContentBlockStart {
                    index,
                    content_block: ContentBlock::Thinking(ThinkingBlock {
                        thinking: String::new(),
                        signature: String::new(),
                    }),
                }));
            }
            out.push(Ok(self.delta(BlockDelta::ThinkingDelta {
                thinking: thought.to_string(),
            })));
        }
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            if !matches!(self.open, Some((_, None))) || self.thinking {
                self.close(&mut out);
                let index = self.open_block(None);
                out.push(Ok(StreamEvent::ContentBlockStart {
                    index,
                    content_block: ContentBlock::Text(TextBlock {
                        text: String::new(),
                        cache_control: None,
                    }),
                }));
            }
            out.push(Ok(self.delta(BlockDelta::TextDelta {
                text: text.to_string(),
            })));
        }
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let call_index = call["index"].as_u64().unwrap_or(0);
            if self.open.map(|(_, c)| c) != Some(Some(call_index)) {
                self.close(&mut out);
                let index = self.open_block(Some(call_index));
                let id = call["id"]
                    .as_str()
                    .filter(|id| !id.is_empty())
                    .map_or_else(|| format!("call_{index}"), str::to_string);
                out.push(Ok(StreamEvent::ContentBlockStart {
                    index,
                    content_block: ContentBlock::ToolUse(ToolUseBlock {
                        id,
                        name: call["function"]["name"].as_str().unwrap_or_default().to_string(),
                        input: json!({}),
                        cache_control: None,
                    }),
                }));
            }
            if let Some(arguments) = call["function"]["arguments"].as_str().filter(|a| !a.is_empty()) {
                out.push(Ok(self.delta(BlockDelta::InputJsonDelta {
                    partial_json: arguments.to_string(),
                })));
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            // The last call's arguments are complete: it may start now.
            self.close(&mut out);
            self.finish = Some(match reason {
                "stop" => StopReason::EndTurn,
                "length" => StopReason::MaxTokens,
                "tool_calls" | "function_call" => StopReason::ToolUse,
                "content_filter" => StopReason::Refusal,
                other => StopReason::Other(other.to_string()),
            });
        }
        out
    }

    /// The stream ended: a message that finished is complete; one that did not is truncated (the
    /// assembler says so).
    pub fn finish_stream(&mut self) -> Vec<Item> {
        let mut out = Vec::new();
        if self.finish.is_some() && !self.ended {
            self.end(&mut out);
        }
        out
    }

    fn open_block(&mut self, call: Option<u64>) -> usize {
        let index = self.next_block;
        self.next_block += 1;
        self.open = Some((index, call));
        index
    }

    fn delta(&self, delta: BlockDelta) -> StreamEvent {
        StreamEvent::ContentBlockDelta {
            index: self.open.map_or(0, |(i, _)| i),
            delta,
        }
    }

    fn close(&mut self, out: &mut Vec<Item>) {
        if let Some((index, _)) = self.open.take() {
            if std::mem::take(&mut self.thinking) {
                // A thinking block needs a signature to be complete; this one is never sent to
                // Anthropic (the chat request leaves thinking out), so it is marked as the
                // server's own.
                out.push(Ok(StreamEvent::ContentBlockDelta {
                    index,
                    delta: BlockDelta::SignatureDelta {
                        signature: REASONING_SIGNATURE.to_string(),
                    },
                }));
            }
            out.push(Ok(StreamEvent::ContentBlockStop { index }));
        }
    }

    fn end(&mut self, out: &mut Vec<Item>) {
        self.close(out);
        self.ended = true;
        let stop_reason = self.finish.clone().or(Some(StopReason::EndTurn));
        out.push(Ok(StreamEvent::MessageDelta {
            delta: MessageDeltaBody {
                stop_reason,
                stop_sequence: None,
            },
            usage: DeltaUsage {
                input_tokens: Some(self.usage.input_tokens),
                output_tokens: Some(self.usage.output_tokens),
                cache_creation_input_tokens: Some(0),
                cache_read_input_tokens: Some(self.usage.cache_read_input_tokens),
            },
        }));
        out.push(Ok(StreamEvent::MessageStop));
    }
}

/// What turns one API's SSE payloads into the Messages API's events (Chat Completions' chunks,
/// the Responses API's typed events).
pub trait EventTranslator {
    /// The events one SSE `data:` payload stands for.
    fn push(&mut self, data: &str) -> Vec<Item>;

    /// The events the end of the body stands for (none by default: a message never finished is
    /// truncated, and the assembler says so).
    fn finish_stream(&mut self) -> Vec<Item> {
        Vec::new()
    }
}

impl EventTranslator for ChatTranslator {
    fn push(&mut self, data: &str) -> Vec<Item> {
        ChatTranslator::push(self, data)
    }

    fn finish_stream(&mut self) -> Vec<Item> {
        ChatTranslator::finish_stream(self)
    }
}

/// Decodes a Chat Completions SSE body into Messages API events.
pub fn decode_chat_sse<S, B, E>(bytes: S) -> impl Stream<Item = Item>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: Display,
{
    decode_translated(bytes, ChatTranslator::default())
}

/// Decodes an SSE body with `translator`, ending at the first transport or framing error.
pub fn decode_translated<S, B, E, T>(bytes: S, translator: T) -> impl Stream<Item = Item>
where
    S: Stream<Item = Result<B, E>> + Unpin,
    B: AsRef<[u8]>,
    E: Display,
    T: EventTranslator,
{
    let state = (
        Box::pin(bytes.eventsource()),
        translator,
        VecDeque::<Item>::new(),
        false,
    );
    futures::stream::unfold(
        state,
        |(mut events, mut translator, mut pending, mut done)| async move {
            loop {
                if let Some(item) = pending.pop_front() {
                    return Some((item, (events, translator, pending, done)));
                }
                if done {
                    return None;
                }
                match events.next().await {
                    Some(Ok(event)) => pending.extend(translator.push(&event.data)),
                    Some(Err(EventStreamError::Transport(e))) => {
                        pending.push_back(Err(StreamError::Transport(e.to_string())));
                        done = true;
                    }
                    Some(Err(EventStreamError::Utf8(e))) => {
                        pending.push_back(Err(StreamError::Protocol(format!(
                            "the stream is not UTF-8: {e}"
                        ))));
                        done = true;
                    }
                    Some(Err(EventStreamError::Parser(e))) => {
                        pending.push_back(Err(StreamError::Protocol(format!("malformed SSE framing: {e}"))));
                        done = true;
                    }
                    None => {
                        pending.extend(translator.finish_stream());
                        done = true;
                    }
                }
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::stream::{Assembled, MessageAssembler};

    fn events(chunks: &[Value]) -> Vec<StreamEvent> {
        let mut t = ChatTranslator::default();
        let mut out: Vec<StreamEvent> = chunks
            .iter()
            .flat_map(|c| t.push(&c.to_string()))
            .map(Result::unwrap)
            .collect();
        out.extend(t.push("[DONE]").into_iter().map(Result::unwrap));
        out
    }

    #[test]
    fn text_then_two_calls_assemble_into_one_message_each_call_closed_when_the_next_starts() {
        let chunk = |delta: Value, finish: Value| json!({"id": "chatcmpl-1", "model": "qwen", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        let all = events(&[
            chunk(json!({"role": "assistant", "content": ""}), Value::Null),
            chunk(json!({"content": "Reading "}), Value::Null),
            chunk(json!({"content": "both."}), Value::Null),
            chunk(
                json!({"tool_calls": [{"index": 0, "id": "call_a", "type": "function", "function": {"name": "Read", "arguments": ""}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "{\"file_path\":"}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": "\"/a\"}"}}]}),
                Value::Null,
            ),
            chunk(
                json!({"tool_calls": [{"index": 1, "id": "call_b", "function": {"name": "Read", "arguments": "{\"file_path\":\"/b\"}"}}]}),
                Value::Null,
            ),
            chunk(json!({}), json!("tool_calls")),
            json!({"id": "chatcmpl-1", "model": "qwen", "choices": [], "usage": {"prompt_tokens": 120, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 100}}}),
        ]);
        // The first call's block closes before the second starts.
        let stops: Vec<usize> = all
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, StreamEvent::ContentBlockStop { index: 1 }))
            .map(|(i, _)| i)
            .collect();
        let second_start = all
            .iter()
            .position(|e| matches!(e, StreamEvent::ContentBlockStart { index: 2, .. }))
            .unwrap();
        assert!(stops[0] < second_start);
        let mut assembler = MessageAssembler::new();
        let mut message = None;
        for e in &all {
            if let Some(Assembled::MessageComplete(m)) = assembler.push(e).unwrap() {
                message = Some(m);
            }
        }
        let message = message.expect("a complete message");
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(
            serde_json::to_value(&message.content).unwrap(),
            json!([
                {"type": "text", "text": "Reading both."},
                {"type": "tool_use", "id": "call_a", "name": "Read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "call_b", "name": "Read", "input": {"file_path": "/b"}}
            ])
        );
        assert_eq!(
            (
                message.usage.input_tokens,
                message.usage.cache_read_input_tokens,
                message.usage.output_tokens
            ),
            (20, 100, 30)
        );
    }

    #[test]
    fn a_stream_without_done_ends_after_its_finish_reason_and_an_error_chunk_is_an_error() {
        let mut t = ChatTranslator::default();
        let mut all: Vec<Item> = t.push(
            &json!({"id": "x", "model": "m", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]})
                .to_string(),
        );
        all.extend(t.finish_stream());
        assert!(matches!(all.last(), Some(Ok(StreamEvent::MessageStop))));
        let mut t = ChatTranslator::default();
        let error = t.push(
            &json!({"error": {"message": "model not loaded", "type": "invalid_request_error"}}).to_string(),
        );
        assert!(matches!(&error[0], Ok(StreamEvent::Error { error }) if error.message == "model not loaded"));
        let mut t = ChatTranslator::default();
        assert!(
            t.finish_stream().is_empty(),
            "no finish reason: the assembler calls it truncated"
        );
    }

    #[test]
    fn reasoning_becomes_thinking_before_the_answer() {
        let chunk = |delta: Value, finish: Value| json!({"id": "c", "model": "qwq", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        let all = events(&[
            chunk(json!({"reasoning_content": "The user "}), Value::Null),
            chunk(json!({"reasoning": "wants a number."}), Value::Null),
            chunk(json!({"content": "42"}), json!("stop")),
        ]);
        let mut assembler = MessageAssembler::new();
        let mut message = None;
        for e in &all {
            if let Some(Assembled::MessageComplete(m)) = assembler.push(e).unwrap() {
                message = Some(m);
            }
        }
        assert_eq!(
            serde_json::to_value(&message.unwrap().content).unwrap(),
            json!([
                {"type": "thinking", "thinking": "The user wants a number.", "signature": REASONING_SIGNATURE},
                {"type": "text", "text": "42"}
            ])
        );
    }
}
