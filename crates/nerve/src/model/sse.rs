//! Decoding of the Messages API's server-sent events into typed [`StreamEvent`]s.
//!
//! The `data:` JSON's `type` decides the variant (the docs promise it matches the SSE event
//! name). Event types this code does not know become [`StreamEvent::Unknown`], as the API's
//! versioning policy asks; a known type with malformed data is a [`StreamError::Decode`].
//! So is a content block or delta of a type this code does not model (for example a server
//! tool's block): it cannot be assembled or sent back faithfully, so it fails closed instead of
//! being dropped silently.

use std::fmt::Display;

use eventsource_stream::{EventStreamError, Eventsource};
use futures::{Stream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::error::StreamError;
use crate::model::types::{ContentBlock, StopReason, Usage};

/// The `message` object of `message_start`: a message with empty content.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageStart {
    /// Message id.
    pub id: String,
    /// Model answering.
    pub model: String,
    /// Content so far (empty in practice).
    #[serde(default)]
    pub content: Vec<ContentBlock>,
    /// Always null at the start.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// Always null at the start.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Input-side usage; `output_tokens` here is a placeholder.
    #[serde(default)]
    pub usage: Usage,
}

/// The incremental change carried by `content_block_delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum BlockDelta {
    /// More text for a text block.
    TextDelta {
        /// The added text.
        text: String,
    },
    /// More reasoning for a thinking block.
    ThinkingDelta {
        /// The added reasoning.
        thinking: String,
    },
    /// The thinking block's signature, sent just before its `content_block_stop`.
    SignatureDelta {
        /// The signature.
        signature: String,
    },
    /// A fragment of a tool_use block's input JSON; only the concatenation is valid JSON.
    InputJsonDelta {
        /// The fragment.
        partial_json: String,
    },
}

/// Top-level changes carried by `message_delta`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessageDeltaBody {
    /// Why the model stopped.
    #[serde(default)]
    pub stop_reason: Option<StopReason>,
    /// The stop sequence hit, if any.
    #[serde(default)]
    pub stop_sequence: Option<String>,
}

/// Usage in `message_delta`: cumulative counts; absent fields keep their earlier value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DeltaUsage {
    /// Input tokens, when restated.
    #[serde(default)]
    pub input_tokens: Option<u64>,
    /// Output tokens so far (cumulative, not an increment).
    #[serde(default)]
    pub output_tokens: Option<u64>,
    /// Cache-write tokens, when restated.
    #[serde(default)]
    pub cache_creation_input_tokens: Option<u64>,
    /// Cache-read tokens, when restated.
    #[serde(default)]
    pub cache_read_input_tokens: Option<u64>,
}

/// Body of an `error` event (same shape as the `error` object of an HTTP error body).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ApiErrorDetail {
    /// Error type, for example `overloaded_error`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Human-readable message.
    pub message: String,
}

/// One server-sent event of a streamed Messages response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum StreamEvent {
    /// The message begins.
    MessageStart {
        /// Message metadata with empty content.
        message: MessageStart,
    },
    /// A content block begins at `index`.
    ContentBlockStart {
        /// Position in the final content array.
        index: usize,
        /// The block with empty content (tool_use input is `{}`).
        content_block: ContentBlock,
    },
    /// A content block grows.
    ContentBlockDelta {
        /// Block being updated.
        index: usize,
        /// The change.
        delta: BlockDelta,
    },
    /// A content block is complete.
    ContentBlockStop {
        /// Block that finished.
        index: usize,
    },
    /// Stop reason and cumulative usage.
    MessageDelta {
        /// Top-level changes.
        delta: MessageDeltaBody,
        /// Cumulative usage.
        #[serde(default)]
        usage: DeltaUsage,
    },
    /// The message is complete.
    MessageStop,
    /// Keep-alive.
    Ping,
    /// The server reports an error inside the stream (for example `overloaded_error`).
    Error {
        /// What went wrong.
        error: ApiErrorDetail,
    },
    /// An event type newer than this code; ignored by the assembler.
    #[serde(skip)]
    Unknown {
        /// The `type` that was not recognised.
        event_type: String,
    },
}

const KNOWN_TYPES: [&str; 8] = [
    "message_start",
    "content_block_start",
    "content_block_delta",
    "content_block_stop",
    "message_delta",
    "message_stop",
    "ping",
    "error",
];

/// Decodes one event from its SSE event name and `data:` text.
pub fn parse_event(event_name: &str, data: &str) -> Result<StreamEvent, StreamError> {
    let decode_error = |message: String| StreamError::Decode {
        event: event_name.to_owned(),
        message,
        raw: data.to_owned(),
    };
    let value: Value = serde_json::from_str(data).map_err(|e| decode_error(e.to_string()))?;
    let event_type = match value.get("type").and_then(Value::as_str) {
        Some(kind) => kind.to_owned(),
        None => return Err(decode_error("the data has no string `type` field".to_owned())),
    };
    if !KNOWN_TYPES.contains(&event_type.as_str()) {
        return Ok(StreamEvent::Unknown { event_type });
    }
    serde_json::from_value(value).map_err(|e| decode_error(e.to_string()))
}

/// Turns a byte stream (an HTTP body) into typed events. Transport errors of the byte stream
/// become [`StreamError::Transport`]; the stream simply ends when the body ends, so callers
/// must check for `message_stop` themselves (the [`MessageAssembler`] does).
///
/// [`MessageAssembler`]: crate::model::stream::MessageAssembler
pub fn decode_sse<S, B, E>(bytes: S) -> impl Stream<Item = Result<StreamEvent, StreamError>>
where
    S: Stream<Item = Result<B, E>>,
    B: AsRef<[u8]>,
    E: Display,
{
    bytes.eventsource().map(|item| match item {
        Ok(event) => parse_event(&event.event, &event.data),
        Err(EventStreamError::Transport(e)) => Err(StreamError::Transport(e.to_string())),
        Err(EventStreamError::Utf8(e)) => Err(StreamError::Protocol(format!("the stream is not UTF-8: {e}"))),
        Err(EventStreamError::Parser(e)) => Err(StreamError::Protocol(format!("malformed SSE framing: {e}"))),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::model::types::{ThinkingBlock, ToolUseBlock};
    use futures::executor::block_on;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    /// The basic streaming example of the "Streaming messages" docs page.
    pub(crate) const DOCS_TEXT_STREAM: &str = "event: message_start
data: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY\", \"type\": \"message\", \"role\": \"assistant\", \"content\": [], \"model\": \"claude-opus-4-7\", \"stop_reason\": null, \"stop_sequence\": null, \"usage\": {\"input_tokens\": 25, \"output_tokens\": 1}}}

event: content_block_start
data: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}

event: ping
data: {\"type\": \"ping\"}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"Hello\"}}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"text_delta\", \"text\": \"!\"}}

event: content_block_stop
data: {\"type\": \"content_block_stop\", \"index\": 0}

event: message_delta
data: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\":null}, \"usage\": {\"output_tokens\": 15}}

event: message_stop
data: {\"type\": \"message_stop\"}

";

    /// The tool-use streaming example of the docs (text, then a tool_use with fragmented input).
    pub(crate) const DOCS_TOOL_STREAM: &str = "event: message_start
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_014p7gG3wDgGV9EUtLvnow3U\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-7\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":472,\"output_tokens\":2},\"content\":[],\"stop_reason\":null}}

event: content_block_start
data: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}

event: ping
data: {\"type\": \"ping\"}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Okay\"}}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\", let's check the weather.\"}}

event: content_block_stop
data: {\"type\":\"content_block_stop\",\"index\":0}

event: content_block_start
data: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_01T1x1fJ34qAmk2tNTrN7Up6\",\"name\":\"get_weather\",\"input\":{}}}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\"}}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"location\\\":\"}}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\" \\\"San Fra\"}}

event: content_block_delta
data: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"ncisco, CA\\\"}\"}}

event: content_block_stop
data: {\"type\":\"content_block_stop\",\"index\":1}

event: message_delta
data: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":89}}

event: message_stop
data: {\"type\":\"message_stop\"}

";

    /// The extended-thinking streaming example of the docs (thinking, signature, then text).
    pub(crate) const DOCS_THINKING_STREAM: &str = "event: message_start
data: {\"type\": \"message_start\", \"message\": {\"id\": \"msg_01\", \"type\": \"message\", \"role\": \"assistant\", \"content\": [], \"model\": \"claude-sonnet-4-5\", \"stop_reason\": null, \"stop_sequence\": null}}

event: content_block_start
data: {\"type\": \"content_block_start\", \"index\": 0, \"content_block\": {\"type\": \"thinking\", \"thinking\": \"\"}}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"thinking_delta\", \"thinking\": \"I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\\n\\n1071 = 2 \\u00d7 462 + 147\"}}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"thinking_delta\", \"thinking\": \"\\n462 = 3 \\u00d7 147 + 21\"}}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 0, \"delta\": {\"type\": \"signature_delta\", \"signature\": \"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...\"}}

event: content_block_stop
data: {\"type\": \"content_block_stop\", \"index\": 0}

event: content_block_start
data: {\"type\": \"content_block_start\", \"index\": 1, \"content_block\": {\"type\": \"text\", \"text\": \"\"}}

event: content_block_delta
data: {\"type\": \"content_block_delta\", \"index\": 1, \"delta\": {\"type\": \"text_delta\", \"text\": \"The greatest common divisor of 1071 and 462 is **21**.\"}}

event: content_block_stop
data: {\"type\": \"content_block_stop\", \"index\": 1}

event: message_delta
data: {\"type\": \"message_delta\", \"delta\": {\"stop_reason\": \"end_turn\", \"stop_sequence\": null}}

event: message_stop
data: {\"type\": \"message_stop\"}

";

    /// Decodes `text` delivered in chunks of `chunk` bytes, to exercise framing across reads.
    pub(crate) fn decode_text(text: &str, chunk: usize) -> Vec<Result<StreamEvent, StreamError>> {
        let pieces: Vec<Result<Vec<u8>, std::io::Error>> =
            text.as_bytes().chunks(chunk).map(|c| Ok(c.to_vec())).collect();
        block_on(decode_sse(futures::stream::iter(pieces)).collect())
    }

    #[test]
    fn docs_text_stream_decodes_to_typed_events() {
        let events: Vec<StreamEvent> = decode_text(DOCS_TEXT_STREAM, 7)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(events.len(), 8);
        assert_eq!(
            events[1],
            StreamEvent::ContentBlockStart {
                index: 0,
                content_block: ContentBlock::text("")
            }
        );
        assert_eq!(events[2], StreamEvent::Ping);
        assert_eq!(
            events[3],
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: BlockDelta::TextDelta { text: "Hello".into() }
            }
        );
        assert_eq!(
            events[6],
            StreamEvent::MessageDelta {
                delta: MessageDeltaBody {
                    stop_reason: Some(StopReason::EndTurn),
                    stop_sequence: None
                },
                usage: DeltaUsage {
                    output_tokens: Some(15),
                    ..DeltaUsage::default()
                }
            }
        );
        assert_eq!(events[7], StreamEvent::MessageStop);
        let StreamEvent::MessageStart { message } = &events[0] else {
            panic!("first event is {:?}", events[0]);
        };
        assert_eq!(message.usage.input_tokens, 25);
        assert_eq!(message.model, "claude-opus-4-7");
    }

    #[test]
    fn tool_and_thinking_blocks_decode() {
        let tool: Vec<StreamEvent> = decode_text(DOCS_TOOL_STREAM, 64)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            tool[6],
            StreamEvent::ContentBlockStart {
                index: 1,
                content_block: ContentBlock::ToolUse(ToolUseBlock {
                    id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
                    name: "get_weather".into(),
                    input: json!({}),
                    cache_control: None
                })
            }
        );
        let thinking: Vec<StreamEvent> = decode_text(DOCS_THINKING_STREAM, 5)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            thinking[1],
            StreamEvent::ContentBlockStart {
                index: 0,
                content_block: ContentBlock::Thinking(ThinkingBlock {
                    thinking: String::new(),
                    signature: String::new()
                })
            }
        );
        assert_eq!(
            thinking[4],
            StreamEvent::ContentBlockDelta {
                index: 0,
                delta: BlockDelta::SignatureDelta {
                    signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...".into()
                }
            }
        );
    }

    #[test]
    fn error_event_decodes() {
        let text = "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n";
        assert_eq!(
            decode_text(text, 3),
            vec![Ok(StreamEvent::Error {
                error: ApiErrorDetail {
                    kind: "overloaded_error".into(),
                    message: "Overloaded".into()
                }
            })]
        );
    }

    #[test]
    fn unknown_event_types_are_kept_as_unknown() {
        assert_eq!(
            parse_event("future_event", r#"{"type":"future_event","x":1}"#),
            Ok(StreamEvent::Unknown {
                event_type: "future_event".into()
            })
        );
    }

    #[test]
    fn malformed_known_events_are_decode_errors_with_the_raw_data() {
        let raw = r#"{"type":"content_block_delta","index":"zero"}"#;
        let Err(StreamError::Decode { event, raw: kept, .. }) = parse_event("content_block_delta", raw)
        else {
            panic!("expected a decode error");
        };
        assert_eq!(event, "content_block_delta");
        assert_eq!(kept, raw);
        assert!(matches!(
            parse_event("ping", "not json"),
            Err(StreamError::Decode { .. })
        ));
        assert!(matches!(
            parse_event("ping", "{}"),
            Err(StreamError::Decode { .. })
        ));
    }

    #[test]
    fn transport_errors_surface_as_transport() {
        let pieces: Vec<Result<&[u8], std::io::Error>> = vec![
            Ok(b"event: ping\ndata: {\"type\":\"ping\"}\n\n"),
            Err(std::io::Error::other("connection reset")),
        ];
        let out: Vec<_> = block_on(decode_sse(futures::stream::iter(pieces)).collect());
        assert_eq!(
            out,
            vec![
                Ok(StreamEvent::Ping),
                Err(StreamError::Transport("connection reset".into()))
            ]
        );
    }
}
