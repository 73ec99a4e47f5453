//! The scenario file format: an ordered list of steps, one per expected request.

use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A scripted conversation with the mock: step N answers the N-th valid request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Steps in the order requests are expected.
    pub steps: Vec<Step>,
    /// Which credentials a request must carry.
    #[serde(default)]
    pub auth: AuthMode,
    /// The models `GET /v1/models` lists (a default pair when absent).
    #[serde(default)]
    pub models: Option<Vec<String>>,
    /// Count each answer's input, cache reads and cache writes from the request, as the API's
    /// prompt cache would (see [`crate::cache`]), instead of the scripted `usage` figures.
    #[serde(default)]
    pub prompt_cache: bool,
    /// Keep each request's body for `requests()` (the default). A long benchmark turns it off:
    /// every request carries the whole conversation, so keeping them all grows quadratically.
    #[serde(default = "keep_bodies")]
    pub record_bodies: bool,
}

fn keep_bodies() -> bool {
    true
}

/// Which credentials the mock asks for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AuthMode {
    /// An API key (`x-api-key`) or a bearer token (`Authorization: Bearer`), as the API accepts.
    #[default]
    Required,
    /// None at all: a local model server that wants no key.
    None,
}

impl Scenario {
    /// Parses a scenario from JSON text.
    pub fn from_json(text: &str) -> Result<Self, ScenarioError> {
        let scenario: Self = serde_json::from_str(text).map_err(|e| ScenarioError::Parse(e.to_string()))?;
        scenario.check()?;
        Ok(scenario)
    }

    /// Reads and parses a scenario file.
    pub fn from_file(path: &Path) -> Result<Self, ScenarioError> {
        let text = std::fs::read_to_string(path).map_err(|e| ScenarioError::Read {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        Self::from_json(&text)
    }

    /// Rejects scenarios that could not be played faithfully.
    fn check(&self) -> Result<(), ScenarioError> {
        for (step_index, step) in self.steps.iter().enumerate() {
            let invalid = |message: String| ScenarioError::Invalid {
                step: step_index,
                message,
            };
            match &step.response {
                Response::Error(error) => {
                    if !(400..=599).contains(&error.status) {
                        return Err(invalid(format!("error status {} is not 4xx/5xx", error.status)));
                    }
                }
                Response::Stream(stream) => {
                    if stream.drop_after_events.is_some() && stream.stream_error.is_some() {
                        return Err(invalid(
                            "drop_after_events and stream_error cannot both end the same stream".to_owned(),
                        ));
                    }
                    for (block_index, block) in stream.blocks.iter().enumerate() {
                        if let BlockSpec::ToolUse { fragments: 0, .. } = block {
                            return Err(invalid(format!(
                                "block {block_index}: fragments must be at least 1"
                            )));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// Why a scenario could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    /// The file could not be read.
    #[error("cannot read scenario file {path}: {message}")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        message: String,
    },
    /// The JSON does not match the scenario format (see the crate docs).
    #[error("the scenario is not valid: {0}")]
    Parse(String),
    /// A step describes something impossible.
    #[error("scenario step {step} is not valid: {message}")]
    Invalid {
        /// Zero-based step.
        step: usize,
        /// What is wrong.
        message: String,
    },
}

/// One expected request and the scripted answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    /// Which requests this step answers: the earliest unused step whose `when` holds answers a
    /// request (the same fields as `expect`; empty matches any request, so steps without it play
    /// in order). Lets one scenario script requests that arrive in no fixed order, such as a
    /// sub-agent's (`{"when": {"system_contains": "sub-agent"}}`) beside its parent's.
    #[serde(default)]
    pub when: Expect,
    /// Assertions on the request; a failed one is answered with a 400 naming it.
    #[serde(default)]
    pub expect: Expect,
    /// What the mock sends back.
    pub response: Response,
}

/// The scripted answer of a step.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Response {
    /// A successful answer, streamed as SSE (or one JSON message when the request did not ask
    /// for streaming).
    Stream(StreamResponse),
    /// An HTTP error with the API's JSON error body.
    Error(ErrorResponse),
}

/// A streamed assistant message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamResponse {
    /// Content blocks, in order.
    #[serde(default)]
    pub blocks: Vec<BlockSpec>,
    /// Defaults to `tool_use` when a block is a tool_use, else `end_turn`.
    #[serde(default)]
    pub stop_reason: Option<String>,
    /// Token counts reported in `message_start` / `message_delta`.
    #[serde(default)]
    pub usage: UsageSpec,
    /// Model name reported; defaults to the request's model.
    #[serde(default)]
    pub model: Option<String>,
    /// Pause after the headers, before the first event.
    #[serde(default)]
    pub delay_ms: u64,
    /// Pause before each delta event.
    #[serde(default)]
    pub delta_delay_ms: u64,
    /// Close the connection abruptly after this many events (no `message_stop`).
    #[serde(default)]
    pub drop_after_events: Option<usize>,
    /// Send an `error` event after some events and end the stream there (how the API reports
    /// overload in the middle of a stream).
    #[serde(default)]
    pub stream_error: Option<StreamErrorSpec>,
}

/// An `error` event inside a stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamErrorSpec {
    /// Events sent before the error.
    pub after_events: usize,
    /// `error.type`; defaults to `overloaded_error`.
    #[serde(default = "overloaded")]
    pub error_type: String,
    /// `error.message`; defaults to `Overloaded`.
    #[serde(default = "overloaded_message")]
    pub message: String,
}

fn overloaded() -> String {
    "overloaded_error".to_owned()
}

fn overloaded_message() -> String {
    "Overloaded".to_owned()
}

/// Scripted text: one string (sent as one delta) or a list of chunks (one delta each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum TextSpec {
    /// Sent as a single delta.
    Whole(String),
    /// Each element is one delta.
    Chunks(Vec<String>),
}

impl TextSpec {
    /// The deltas to send.
    pub fn chunks(&self) -> Vec<String> {
        match self {
            Self::Whole(text) => vec![text.clone()],
            Self::Chunks(chunks) => chunks.clone(),
        }
    }

    /// The whole text.
    pub fn joined(&self) -> String {
        self.chunks().concat()
    }
}

fn default_fragments() -> usize {
    3
}

fn empty_object() -> Value {
    Value::Object(serde_json::Map::new())
}

/// One scripted content block.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum BlockSpec {
    /// A text block.
    Text {
        /// The text.
        text: TextSpec,
        /// Pause before this block starts.
        #[serde(default)]
        delay_ms: u64,
    },
    /// A thinking block followed by its signature_delta.
    Thinking {
        /// The reasoning.
        thinking: TextSpec,
        /// The signature.
        signature: String,
        /// Pause before this block starts.
        #[serde(default)]
        delay_ms: u64,
    },
    /// A tool call whose input JSON is streamed in fragments.
    ToolUse {
        /// Tool-use id; defaults to `toolu_mock_<step>_<block>`.
        #[serde(default)]
        id: Option<String>,
        /// Tool name.
        name: String,
        /// Input object.
        #[serde(default = "empty_object")]
        input: Value,
        /// Sent instead of the serialized `input` (to script invalid JSON).
        #[serde(default)]
        raw_input: Option<String>,
        /// Number of input_json_delta fragments (at least 1).
        #[serde(default = "default_fragments")]
        fragments: usize,
        /// Pause before this block starts.
        #[serde(default)]
        delay_ms: u64,
    },
    /// A call of a server tool (the API's own web search), run by the server: the client only
    /// sees it. Only answered when the request offered that server tool.
    ServerToolUse {
        /// Its id (`srvtoolu_…`).
        id: String,
        /// The server tool's name (`web_search`).
        name: String,
        /// Its input.
        #[serde(default = "empty_object")]
        input: Value,
    },
    /// The server's web search results for a `server_tool_use`: `content` is the list of
    /// `web_search_result`s or a `web_search_tool_result_error`, as the API sends them.
    WebSearchToolResult {
        /// The `server_tool_use` it answers.
        tool_use_id: String,
        /// The results or the error.
        content: Value,
    },
}

/// Reported token counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UsageSpec {
    /// Uncached input tokens.
    #[serde(default = "ten")]
    pub input_tokens: u64,
    /// Output tokens (final count, sent in `message_delta`).
    #[serde(default = "ten")]
    pub output_tokens: u64,
    /// Cache-write tokens.
    #[serde(default)]
    pub cache_creation_input_tokens: u64,
    /// Cache-read tokens.
    #[serde(default)]
    pub cache_read_input_tokens: u64,
}

fn ten() -> u64 {
    10
}

impl Default for UsageSpec {
    fn default() -> Self {
        Self {
            input_tokens: 10,
            output_tokens: 10,
            cache_creation_input_tokens: 0,
            cache_read_input_tokens: 0,
        }
    }
}

/// An HTTP error answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ErrorResponse {
    /// HTTP status, for example 529, 429, 500.
    pub status: u16,
    /// `error.type`; defaults from the status the way the API maps them.
    #[serde(default)]
    pub error_type: Option<String>,
    /// `error.message`; defaults to a generic message for the type.
    #[serde(default)]
    pub message: Option<String>,
    /// `retry-after` header value (seconds or HTTP date).
    #[serde(default)]
    pub retry_after: Option<String>,
    /// `retry-after-ms` header value.
    #[serde(default)]
    pub retry_after_ms: Option<String>,
    /// Send this text (`text/plain`) instead of the JSON error body.
    #[serde(default)]
    pub raw_body: Option<String>,
}

/// The API's error type for an HTTP status.
pub fn error_type_for_status(status: u16) -> &'static str {
    match status {
        400 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        529 => "overloaded_error",
        _ => "api_error",
    }
}

/// Assertions on a request. All given ones must hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The system prompt (string or joined text blocks) contains this.
    #[serde(default)]
    pub system_contains: Option<String>,
    /// The system prompt contains each of these.
    #[serde(default)]
    pub system_includes: Vec<String>,
    /// The system prompt contains none of these.
    #[serde(default)]
    pub system_excludes: Vec<String>,
    /// The request has exactly this many tools.
    #[serde(default)]
    pub tool_count: Option<usize>,
    /// The request has exactly this many messages.
    #[serde(default)]
    pub message_count: Option<usize>,
    /// The request's model.
    #[serde(default)]
    pub model: Option<String>,
    /// The request's `thinking` exactly (`null`: the request has none).
    #[serde(default, deserialize_with = "present")]
    pub thinking: Option<Value>,
    /// The last message is a user message whose text contains this.
    #[serde(default)]
    pub last_user_text_contains: Option<String>,
    /// The last message is a user message with this tool_result.
    #[serde(default)]
    pub tool_result: Option<ToolResultExpect>,
    /// No message of the request holds this text anywhere (its text, tool inputs or results), for
    /// checking that rewound turns are gone.
    #[serde(default)]
    pub no_message_contains: Option<String>,
    /// The last message is a user message whose image blocks have exactly these media types, in
    /// order (the images a user attached to the prompt).
    #[serde(default)]
    pub last_user_images: Option<Vec<String>>,
    /// The request's tool list names each of these tools.
    #[serde(default)]
    pub tools_include: Vec<String>,
    /// The request's tool list names none of these tools.
    #[serde(default)]
    pub tools_exclude: Vec<String>,
}

/// Expected tool_result in the last user message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolResultExpect {
    /// The tool_use id it answers.
    pub tool_use_id: String,
    /// Text its content (string or joined text blocks) contains.
    #[serde(default)]
    pub contains: Option<String>,
    /// Expected `is_error` (absent in the request counts as false).
    #[serde(default)]
    pub is_error: Option<bool>,
}

/// A field that is there, even as `null` (`Some(Value::Null)`), as opposed to absent (`None`).
fn present<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn documented_example_parses_with_defaults() {
        let scenario = Scenario::from_json(
            r#"{"steps": [
                {"response": {"type": "stream", "blocks": [
                    {"type": "text", "text": ["Hel", "lo"]},
                    {"type": "tool_use", "name": "Bash", "input": {"command": "ls"}}
                ]}},
                {"expect": {"tool_result": {"tool_use_id": "toolu_mock_0_1", "contains": "README"}},
                 "response": {"type": "error", "status": 529, "retry_after": "0"}}
            ]}"#,
        )
        .unwrap();
        let Response::Stream(stream) = &scenario.steps[0].response else {
            panic!("not a stream");
        };
        assert_eq!(stream.usage, UsageSpec::default());
        assert_eq!(
            stream.blocks[1],
            BlockSpec::ToolUse {
                id: None,
                name: "Bash".into(),
                input: serde_json::json!({"command": "ls"}),
                raw_input: None,
                fragments: 3,
                delay_ms: 0
            }
        );
    }

    #[test]
    fn the_example_in_the_crate_docs_is_a_valid_scenario() {
        let docs = include_str!("lib.rs");
        let example: String = docs
            .lines()
            .skip_while(|line| !line.contains("```json"))
            .skip(1)
            .take_while(|line| !line.contains("```"))
            .map(|line| line.trim_start_matches("//!"))
            .collect::<Vec<_>>()
            .join("\n");
        let scenario = Scenario::from_json(&example).unwrap();
        assert_eq!(scenario.steps.len(), 3);
    }

    #[test]
    fn bad_scenarios_are_rejected_with_a_reason() {
        let unknown_field =
            Scenario::from_json(r#"{"steps": [{"response": {"type": "stream", "blockz": []}}]}"#);
        assert!(matches!(unknown_field, Err(ScenarioError::Parse(m)) if m.contains("blockz")));
        let bad_status =
            Scenario::from_json(r#"{"steps": [{"response": {"type": "error", "status": 200}}]}"#);
        assert!(matches!(bad_status, Err(ScenarioError::Invalid { step: 0, .. })));
        let zero = Scenario::from_json(
            r#"{"steps": [{"response": {"type": "stream", "blocks": [{"type": "tool_use", "name": "x", "fragments": 0}]}}]}"#,
        );
        assert!(matches!(zero, Err(ScenarioError::Invalid { .. })));
        let both = Scenario::from_json(
            r#"{"steps": [{"response": {"type": "stream", "drop_after_events": 1, "stream_error": {"after_events": 2}}}]}"#,
        );
        assert!(matches!(both, Err(ScenarioError::Invalid { .. })));
    }
}
