//! Messages API request and response types, shaped exactly as the API documents them.
//!
//! Field names follow <https://docs.anthropic.com/en/api/messages> and the prompt-caching guide.
//! Optional fields are omitted when unset, because the API treats `null` and "absent" differently
//! for some fields (for example `cache_control`).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

/// Who wrote a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Role {
    /// The human side, which also carries tool results.
    User,
    /// The model.
    Assistant,
}

/// Prompt-cache lifetime of a breakpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CacheTtl {
    /// Five minutes (the API default; writes cost 1.25x input).
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour (writes cost 2x input).
    #[serde(rename = "1h")]
    OneHour,
}

/// The only cache-control kind the API knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CacheControlKind {
    /// `{"type": "ephemeral"}`.
    Ephemeral,
}

/// A prompt-cache breakpoint: `{"type": "ephemeral"}` with an optional `ttl`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    /// Always `ephemeral`.
    #[serde(rename = "type")]
    pub kind: CacheControlKind,
    /// Lifetime; absent means the API default (5 minutes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ttl: Option<CacheTtl>,
}

impl CacheControl {
    /// An ephemeral breakpoint with the default lifetime.
    pub fn ephemeral() -> Self {
        Self {
            kind: CacheControlKind::Ephemeral,
            ttl: None,
        }
    }
}

/// `{"type": "text", "text": ...}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextBlock {
    /// The text.
    pub text: String,
    /// Cache breakpoint placed after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{"type": "thinking", "thinking": ..., "signature": ...}`.
///
/// The signature must be sent back unchanged with the block, or the API rejects the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ThinkingBlock {
    /// The model's visible reasoning.
    pub thinking: String,
    /// Opaque signature proving the thinking came from the model. Empty only while streaming.
    #[serde(default)]
    pub signature: String,
}

/// `{"type": "redacted_thinking", "data": ...}`: encrypted thinking, returned verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RedactedThinkingBlock {
    /// Opaque encrypted payload.
    pub data: String,
}

/// `{"type": "tool_use", "id", "name", "input"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolUseBlock {
    /// Id the matching `tool_result` must refer to.
    pub id: String,
    /// Tool name, as given in the request's tool definitions.
    pub name: String,
    /// Tool input; always a JSON object in a complete block.
    pub input: Value,
    /// Cache breakpoint placed after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// Base64 payload with its media type, as used by image and document sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MediaSource {
    /// `{"type": "base64", "media_type": ..., "data": ...}`.
    Base64 {
        /// For example `image/png` or `application/pdf`.
        media_type: String,
        /// Base64 of the bytes.
        data: String,
    },
}

/// `{"type": "image", "source": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImageBlock {
    /// Where the image bytes come from.
    pub source: MediaSource,
    /// Cache breakpoint placed after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// `{"type": "document", "source": {...}}` (base64 PDF).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocumentBlock {
    /// Where the document bytes come from (`application/pdf`).
    pub source: MediaSource,
    /// Optional document title shown to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Cache breakpoint placed after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// A block allowed inside a `tool_result`'s content array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToolResultBlock {
    /// Text output.
    Text(TextBlock),
    /// Image output (for example a screenshot).
    Image(ImageBlock),
}

/// The `content` of a `tool_result`: either a plain string or a list of blocks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ToolResultContent {
    /// `"content": "..."`.
    Text(String),
    /// `"content": [{"type": "text", ...}, {"type": "image", ...}]`.
    Blocks(Vec<ToolResultBlock>),
}

/// `{"type": "tool_result", "tool_use_id", "content", "is_error"}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The `id` of the `tool_use` this answers.
    pub tool_use_id: String,
    /// What the tool returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<ToolResultContent>,
    /// Whether the tool failed; omitted when false.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    /// Cache breakpoint placed after this block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// One content block of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text(TextBlock),
    /// Extended thinking with its signature.
    Thinking(ThinkingBlock),
    /// Encrypted thinking.
    RedactedThinking(RedactedThinkingBlock),
    /// A tool call from the model.
    ToolUse(ToolUseBlock),
    /// A tool's answer, sent in a user message.
    ToolResult(ToolResult),
    /// An image.
    Image(ImageBlock),
    /// A PDF document.
    Document(DocumentBlock),
}

impl ContentBlock {
    /// A text block without a cache breakpoint.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextBlock {
            text: text.into(),
            cache_control: None,
        })
    }

    /// A tool_result block with string content.
    pub fn tool_result(tool_use_id: impl Into<String>, content: impl Into<String>, is_error: bool) -> Self {
        Self::ToolResult(ToolResult {
            tool_use_id: tool_use_id.into(),
            content: Some(ToolResultContent::Text(content.into())),
            is_error,
            cache_control: None,
        })
    }
}

/// A conversation turn. Content is always serialized as a block list; a plain string is
/// accepted when decoding because the API accepts it too.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Message {
    /// Author of the turn.
    pub role: Role,
    /// The blocks of the turn.
    #[serde(deserialize_with = "string_or_blocks")]
    pub content: Vec<ContentBlock>,
}

impl Message {
    /// A user message with one text block.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: vec![ContentBlock::text(text)],
        }
    }
}

fn string_or_blocks<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<ContentBlock>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Either {
        Text(String),
        Blocks(Vec<ContentBlock>),
    }
    Ok(match Either::deserialize(deserializer)? {
        Either::Text(text) => vec![ContentBlock::text(text)],
        Either::Blocks(blocks) => blocks,
    })
}

/// One block of the `system` prompt (the API only accepts text here).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum SystemBlock {
    /// `{"type": "text", "text": ..., "cache_control"?}`.
    Text(TextBlock),
}

/// A client tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolDefinition {
    /// Name the model uses in `tool_use.name`.
    pub name: String,
    /// What the tool does and when to use it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the input object.
    pub input_schema: Value,
    /// Cache breakpoint placed after this tool (caches every tool up to here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
    /// Tool-search: keep the definition out of the prompt until the model searches for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defer_loading: Option<bool>,
}

/// Extended-thinking configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ThinkingConfig {
    /// `{"type": "enabled", "budget_tokens": N}`; the budget must be below `max_tokens`.
    Enabled {
        /// Tokens the model may spend thinking.
        budget_tokens: u32,
    },
    /// `{"type": "disabled"}`.
    Disabled,
    /// `{"type": "adaptive"}`: the model decides how much to think (newer models).
    Adaptive,
}

/// Request metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metadata {
    /// Opaque, non-identifying id of the end user (for abuse detection).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_id: Option<String>,
}

/// Body of `POST /v1/messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MessagesRequest {
    /// Model id, for example `claude-sonnet-4-5`.
    pub model: String,
    /// Upper bound on generated tokens.
    pub max_tokens: u32,
    /// System prompt blocks; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub system: Vec<SystemBlock>,
    /// The conversation so far, starting with a user message.
    pub messages: Vec<Message>,
    /// Tools the model may call; omitted when empty.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolDefinition>,
    /// Whether to stream the answer as server-sent events.
    #[serde(default)]
    pub stream: bool,
    /// Extended thinking.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking: Option<ThinkingConfig>,
    /// Request metadata.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
    /// Sampling temperature (must be unset or 1 when thinking is enabled).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
}

/// Why the model stopped. Unknown values decode to [`StopReason::Other`] so a new API value
/// never breaks decoding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "String", into = "String")]
pub enum StopReason {
    /// The model finished its turn.
    EndTurn,
    /// `max_tokens` was reached; the message is cut off.
    MaxTokens,
    /// A custom stop sequence was generated.
    StopSequence,
    /// The model wants tool results.
    ToolUse,
    /// A long server-side turn was paused; send the conversation back to continue.
    PauseTurn,
    /// The model declined for safety reasons.
    Refusal,
    /// A value this code does not know yet.
    Other(String),
}

impl From<String> for StopReason {
    fn from(value: String) -> Self {
        match value.as_str() {
            "end_turn" => Self::EndTurn,
            "max_tokens" => Self::MaxTokens,
            "stop_sequence" => Self::StopSequence,
            "tool_use" => Self::ToolUse,
            "pause_turn" => Self::PauseTurn,
            "refusal" => Self::Refusal,
            _ => Self::Other(value),
        }
    }
}

impl From<StopReason> for String {
    fn from(value: StopReason) -> Self {
        match value {
            StopReason::EndTurn => "end_turn".to_owned(),
            StopReason::MaxTokens => "max_tokens".to_owned(),
            StopReason::StopSequence => "stop_sequence".to_owned(),
            StopReason::ToolUse => "tool_use".to_owned(),
            StopReason::PauseTurn => "pause_turn".to_owned(),
            StopReason::Refusal => "refusal".to_owned(),
            StopReason::Other(other) => other,
        }
    }
}

/// Token usage of one response. Cache counters are `null` or absent when caching was not used;
/// both decode to zero.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Uncached input tokens.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub input_tokens: u64,
    /// Generated tokens.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub output_tokens: u64,
    /// Input tokens written to the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_creation_input_tokens: u64,
    /// Input tokens read from the prompt cache.
    #[serde(default, deserialize_with = "null_as_zero")]
    pub cache_read_input_tokens: u64,
}

fn null_as_zero<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u64, D::Error> {
    Ok(Option::<u64>::deserialize(deserializer)?.unwrap_or(0))
}

/// A complete assistant message, as assembled from a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// Message id (`msg_...`).
    pub id: String,
    /// Model that answered.
    pub model: String,
    /// The blocks, in index order.
    pub content: Vec<ContentBlock>,
    /// Why generation stopped.
    pub stop_reason: StopReason,
    /// The stop sequence hit, if any.
    #[serde(default)]
    pub stop_sequence: Option<String>,
    /// Final usage (input from `message_start`, output from the last `message_delta`).
    pub usage: Usage,
}

impl AssistantMessage {
    /// This message as a conversation turn, ready to append to the next request.
    pub fn to_message(&self) -> Message {
        Message {
            role: Role::Assistant,
            content: self.content.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn request_serializes_with_documented_field_names() {
        let request = MessagesRequest {
            model: "claude-sonnet-4-5".into(),
            max_tokens: 1024,
            system: vec![SystemBlock::Text(TextBlock {
                text: "You are Nerve.".into(),
                cache_control: Some(CacheControl::ephemeral()),
            })],
            messages: vec![
                Message::user_text("hi"),
                Message {
                    role: Role::Assistant,
                    content: vec![
                        ContentBlock::Thinking(ThinkingBlock {
                            thinking: "hmm".into(),
                            signature: "sig".into(),
                        }),
                        ContentBlock::ToolUse(ToolUseBlock {
                            id: "toolu_1".into(),
                            name: "Bash".into(),
                            input: json!({"command": "ls"}),
                            cache_control: None,
                        }),
                    ],
                },
                Message {
                    role: Role::User,
                    content: vec![ContentBlock::tool_result("toolu_1", "a\nb", false)],
                },
            ],
            tools: vec![ToolDefinition {
                name: "Bash".into(),
                description: Some("Run a command".into()),
                input_schema: json!({"type": "object"}),
                cache_control: Some(CacheControl {
                    kind: CacheControlKind::Ephemeral,
                    ttl: Some(CacheTtl::OneHour),
                }),
                defer_loading: None,
            }],
            stream: true,
            thinking: Some(ThinkingConfig::Enabled { budget_tokens: 2048 }),
            metadata: Some(Metadata {
                user_id: Some("u".into()),
            }),
            temperature: None,
        };
        let expected = json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 1024,
            "system": [{"type": "text", "text": "You are Nerve.", "cache_control": {"type": "ephemeral"}}],
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "sig"},
                    {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}
                ]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "a\nb"}]}
            ],
            "tools": [{"name": "Bash", "description": "Run a command", "input_schema": {"type": "object"},
                       "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
            "stream": true,
            "thinking": {"type": "enabled", "budget_tokens": 2048},
            "metadata": {"user_id": "u"}
        });
        assert_eq!(serde_json::to_value(&request).unwrap(), expected);
    }

    #[test]
    fn blocks_round_trip_including_media_and_error_results() {
        let blocks = json!([
            {"type": "redacted_thinking", "data": "EncRypted"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBOR"}},
            {"type": "document", "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBER"}},
            {"type": "tool_result", "tool_use_id": "toolu_2", "is_error": true,
             "content": [{"type": "text", "text": "boom"},
                         {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/"}}]}
        ]);
        let decoded: Vec<ContentBlock> = serde_json::from_value(blocks.clone()).unwrap();
        assert_eq!(serde_json::to_value(&decoded).unwrap(), blocks);
    }

    #[test]
    fn string_content_decodes_to_a_text_block() {
        let message: Message = serde_json::from_value(json!({"role": "user", "content": "hello"})).unwrap();
        assert_eq!(message, Message::user_text("hello"));
    }

    #[test]
    fn unknown_stop_reason_is_kept_not_rejected() {
        let known: StopReason = serde_json::from_value(json!("pause_turn")).unwrap();
        assert_eq!(known, StopReason::PauseTurn);
        let new: StopReason = serde_json::from_value(json!("model_context_window_exceeded")).unwrap();
        assert_eq!(new, StopReason::Other("model_context_window_exceeded".into()));
        assert_eq!(
            serde_json::to_value(&new).unwrap(),
            json!("model_context_window_exceeded")
        );
    }

    #[test]
    fn usage_treats_null_and_missing_cache_counters_as_zero() {
        let usage: Usage = serde_json::from_value(
            json!({"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": null}),
        )
        .unwrap();
        assert_eq!(
            usage,
            Usage {
                input_tokens: 5,
                output_tokens: 1,
                cache_creation_input_tokens: 0,
                cache_read_input_tokens: 0
            }
        );
    }
}
