//! Request checks the real Messages API performs, with its status codes and message style.
//!
//! The mock is slightly stricter than the API in one place: consecutive messages with the same
//! role are rejected (the API merges them), because in Nerve they always mean a loop bug.

use std::collections::{BTreeSet, HashSet};

use axum::http::HeaderMap;
use serde_json::Value;

/// A request the API would refuse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rejection {
    /// HTTP status (400 or 401).
    pub status: u16,
    /// `error.type`.
    pub error_type: &'static str,
    /// `error.message`.
    pub message: String,
}

fn invalid(message: impl Into<String>) -> Rejection {
    Rejection {
        status: 400,
        error_type: "invalid_request_error",
        message: message.into(),
    }
}

/// Checks headers and body; returns the parsed body when the API would accept it.
pub fn validate_request(headers: &HeaderMap, body: &[u8]) -> Result<Value, Rejection> {
    validate_request_with(headers, body, crate::scenario::AuthMode::Required)
}

/// [`validate_request`], with the credentials `auth` asks for.
pub fn validate_request_with(
    headers: &HeaderMap,
    body: &[u8],
    auth: crate::scenario::AuthMode,
) -> Result<Value, Rejection> {
    check_credentials(headers, auth)?;
    if headers.get("anthropic-version").is_none() {
        return Err(invalid("anthropic-version: header is required"));
    }
    let body: Value = serde_json::from_slice(body).map_err(|e| {
        invalid(format!(
            "There was an error parsing the body of your request: {e}"
        ))
    })?;
    validate_body(&body)?;
    Ok(body)
}

/// The credentials check every endpoint makes: a key or a bearer token, unless `auth` wants none.
pub fn check_credentials(headers: &HeaderMap, auth: crate::scenario::AuthMode) -> Result<(), Rejection> {
    let key = headers.get("x-api-key").is_some_and(|v| !v.is_empty());
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|token| !token.trim().is_empty());
    if auth == crate::scenario::AuthMode::Required && !key && !bearer {
        return Err(Rejection {
            status: 401,
            error_type: "authentication_error",
            message: "x-api-key header is required".to_owned(),
        });
    }
    Ok(())
}

/// Checks a request body.
pub fn validate_body(body: &Value) -> Result<(), Rejection> {
    let Some(object) = body.as_object() else {
        return Err(invalid("the request body must be a JSON object"));
    };
    match object.get("model") {
        None => return Err(invalid("model: Field required")),
        Some(Value::String(model)) if !model.is_empty() => {}
        Some(_) => return Err(invalid("model: Input should be a non-empty string")),
    }
    match object.get("max_tokens") {
        None => return Err(invalid("max_tokens: Field required")),
        Some(value) if value.as_u64().is_some_and(|n| n >= 1) => {}
        Some(_) => {
            return Err(invalid(
                "max_tokens: Input should be an integer greater than or equal to 1",
            ));
        }
    }
    validate_thinking(object)?;
    validate_system(object.get("system"))?;
    validate_tools(object.get("tools"))?;
    let breakpoints = count_cache_breakpoints(body);
    if breakpoints > MAX_CACHE_BREAKPOINTS {
        return Err(invalid(format!(
            "A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}."
        )));
    }
    match object.get("messages") {
        None => Err(invalid("messages: Field required")),
        Some(Value::Array(messages)) => validate_messages(messages),
        Some(_) => Err(invalid("messages: Input should be a valid list")),
    }
}

/// `thinking` as the API checks it: `enabled` with a budget of at least 1,024 tokens below
/// `max_tokens`, `disabled`, or `adaptive`; and with thinking on, no temperature but 1.
fn validate_thinking(object: &serde_json::Map<String, Value>) -> Result<(), Rejection> {
    let Some(thinking) = object.get("thinking") else {
        return Ok(());
    };
    match thinking.get("type").and_then(Value::as_str) {
        Some("disabled") => return Ok(()),
        Some("adaptive") => {}
        Some("enabled") => {
            let Some(budget) = thinking.get("budget_tokens").and_then(Value::as_u64) else {
                return Err(invalid("thinking.enabled.budget_tokens: Field required"));
            };
            if budget < 1024 {
                return Err(invalid(
                    "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
                ));
            }
            let max_tokens = object.get("max_tokens").and_then(Value::as_u64).unwrap_or(0);
            if budget >= max_tokens {
                return Err(invalid(format!(
                    "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size (max_tokens {max_tokens}, budget_tokens {budget})"
                )));
            }
        }
        _ => {
            return Err(invalid(
                "thinking: Input tag does not match any of the expected tags: 'enabled', 'disabled', 'adaptive'",
            ));
        }
    }
    match object.get("temperature").and_then(Value::as_f64) {
        Some(t) if (t - 1.0).abs() > f64::EPSILON => Err(invalid(
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility",
        )),
        _ => Ok(()),
    }
}

/// Most prompt-cache breakpoints (`cache_control` marks) one request may carry.
pub const MAX_CACHE_BREAKPOINTS: usize = 4;

/// The `cache_control` marks anywhere in the request (tools, system, messages, nested blocks).
fn count_cache_breakpoints(value: &Value) -> usize {
    match value {
        Value::Object(map) => map
            .iter()
            .map(|(key, v)| {
                if key == "cache_control" {
                    usize::from(!v.is_null())
                } else {
                    count_cache_breakpoints(v)
                }
            })
            .sum(),
        Value::Array(items) => items.iter().map(count_cache_breakpoints).sum(),
        _ => 0,
    }
}

fn validate_system(system: Option<&Value>) -> Result<(), Rejection> {
    match system {
        None | Some(Value::String(_)) => Ok(()),
        Some(Value::Array(blocks)) => {
            for (index, block) in blocks.iter().enumerate() {
                if block.get("type").and_then(Value::as_str) != Some("text")
                    || !block.get("text").is_some_and(Value::is_string)
                {
                    return Err(invalid(format!(
                        "system.{index}: Input should be a text block with a string `text`"
                    )));
                }
            }
            Ok(())
        }
        Some(_) => Err(invalid(
            "system: Input should be a valid string or list of text blocks",
        )),
    }
}

fn validate_tools(tools: Option<&Value>) -> Result<(), Rejection> {
    let tools = match tools {
        None => return Ok(()),
        Some(Value::Array(tools)) => tools,
        Some(_) => return Err(invalid("tools: Input should be a valid list")),
    };
    let mut names = HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            return Err(invalid(format!("tools.{index}.name: Field required")));
        };
        // Server tools (web_search, tool_search...) carry a `type` and no schema.
        if tool.get("type").is_none() && !tool.get("input_schema").is_some_and(Value::is_object) {
            return Err(invalid(format!("tools.{index}.input_schema: Field required")));
        }
        if !names.insert(name.to_owned()) {
            return Err(invalid("tools: Tool names must be unique."));
        }
        if let Some(kind) = tool.get("type").and_then(Value::as_str)
            && kind.starts_with("web_search_")
        {
            validate_web_search_tool(index, kind, name, tool)?;
        }
    }
    Ok(())
}

/// The server-side web search tool as the API checks it: its version, its fixed name, a positive
/// `max_uses`, and one domain list at most.
fn validate_web_search_tool(index: usize, kind: &str, name: &str, tool: &Value) -> Result<(), Rejection> {
    if kind != "web_search_20250305" {
        return Err(invalid(format!(
            "tools.{index}.type: unknown server tool type `{kind}`"
        )));
    }
    if name != "web_search" {
        return Err(invalid(format!(
            "tools.{index}.name: Input should be 'web_search'"
        )));
    }
    if let Some(uses) = tool.get("max_uses")
        && uses.as_u64().is_none_or(|n| n == 0)
    {
        return Err(invalid(format!(
            "tools.{index}.max_uses: Input should be greater than 0"
        )));
    }
    let list = |key: &str| {
        tool.get(key)
            .and_then(Value::as_array)
            .is_some_and(|l| !l.is_empty())
    };
    if list("allowed_domains") && list("blocked_domains") {
        return Err(invalid(format!(
            "tools.{index}: Cannot specify both allowed_domains and blocked_domains"
        )));
    }
    Ok(())
}

struct Parsed<'a> {
    role: &'a str,
    blocks: Vec<&'a Value>,
}

fn validate_messages(messages: &[Value]) -> Result<(), Rejection> {
    if messages.is_empty() {
        return Err(invalid("messages: at least one message is required"));
    }
    let mut parsed = Vec::with_capacity(messages.len());
    for (i, message) in messages.iter().enumerate() {
        parsed.push(parse_message(i, message, i + 1 == messages.len())?);
    }
    if parsed[0].role != "user" {
        return Err(invalid("messages: first message must use the \"user\" role"));
    }
    for i in 1..parsed.len() {
        if parsed[i].role == parsed[i - 1].role {
            return Err(invalid(format!(
                "messages.{i}: roles must alternate between \"user\" and \"assistant\", but found multiple \"{}\" roles in a row",
                parsed[i].role
            )));
        }
    }
    let mut all_tool_use_ids = HashSet::new();
    for (i, message) in parsed.iter().enumerate() {
        validate_blocks(i, message)?;
        if message.role == "assistant" {
            for (j, block) in message.blocks.iter().enumerate() {
                if let Some(id) = tool_use_id(block)
                    && !all_tool_use_ids.insert(id.to_owned())
                {
                    return Err(invalid(format!(
                        "messages.{i}.content.{j}: `tool_use` ids must be unique; found `{id}` twice"
                    )));
                }
            }
        }
    }
    for (i, message) in parsed.iter().enumerate() {
        match message.role {
            "assistant" => check_tool_uses_answered(i, message, parsed.get(i + 1))?,
            _ => check_tool_results(i, message, if i == 0 { None } else { parsed.get(i - 1) })?,
        }
    }
    Ok(())
}

fn parse_message(i: usize, message: &Value, is_last: bool) -> Result<Parsed<'_>, Rejection> {
    let Some(role @ ("user" | "assistant")) = message.get("role").and_then(Value::as_str) else {
        return Err(invalid(format!(
            "messages.{i}.role: Input should be 'user' or 'assistant'"
        )));
    };
    let empty = || {
        invalid(format!(
            "messages.{i}: all messages must have non-empty content except for the optional final assistant message"
        ))
    };
    let final_assistant = is_last && role == "assistant";
    match message.get("content") {
        Some(Value::String(text)) => {
            if text.is_empty() && !final_assistant {
                return Err(empty());
            }
            Ok(Parsed {
                role,
                blocks: Vec::new(),
            })
        }
        Some(Value::Array(blocks)) => {
            if blocks.is_empty() && !final_assistant {
                return Err(empty());
            }
            Ok(Parsed {
                role,
                blocks: blocks.iter().collect(),
            })
        }
        None => Err(invalid(format!("messages.{i}.content: Field required"))),
        Some(_) => Err(invalid(format!(
            "messages.{i}.content: Input should be a valid string or list of content blocks"
        ))),
    }
}

fn block_type(block: &Value) -> Option<&str> {
    block.get("type").and_then(Value::as_str)
}

fn tool_use_id(block: &Value) -> Option<&str> {
    (block_type(block) == Some("tool_use"))
        .then(|| block.get("id").and_then(Value::as_str))
        .flatten()
}

fn non_empty_string(block: &Value, field: &str) -> bool {
    block
        .get(field)
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty())
}

/// A base64 image source, checked as the API checks it: a supported media type, data that decodes,
/// and bytes that are the image the media type says.
fn validate_image_source(at: &str, block: &Value) -> Result<(), Rejection> {
    use base64::Engine as _;
    let source = block.get("source").unwrap_or(&Value::Null);
    if source.get("type").and_then(Value::as_str) != Some("base64") {
        // URL and file sources are not checked here.
        return Ok(());
    }
    let media_type = source
        .get("media_type")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let magic: &[&[u8]] = match media_type {
        "image/png" => &[b"\x89PNG\r\n\x1a\n"],
        "image/jpeg" => &[&[0xFF, 0xD8, 0xFF]],
        "image/gif" => &[b"GIF87a", b"GIF89a"],
        "image/webp" => &[b"RIFF"],
        other => {
            return Err(invalid(format!(
                "{at}.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp' (got {other:?})"
            )));
        }
    };
    let data = source.get("data").and_then(Value::as_str).unwrap_or_default();
    let Ok(bytes) = base64::engine::general_purpose::STANDARD.decode(data) else {
        return Err(invalid(format!(
            "{at}.image.source.base64.data: invalid base64 data"
        )));
    };
    if !magic.iter().any(|m| bytes.starts_with(m)) {
        return Err(invalid(format!(
            "{at}.image.source.base64: The image was specified using the {media_type} media type, but the data is not such an image"
        )));
    }
    Ok(())
}

fn validate_blocks(i: usize, message: &Parsed<'_>) -> Result<(), Rejection> {
    for (j, block) in message.blocks.iter().enumerate() {
        let at = format!("messages.{i}.content.{j}");
        let Some(kind) = block_type(block) else {
            return Err(invalid(format!("{at}.type: Field required")));
        };
        match (kind, message.role) {
            ("text", _) => {
                if !block.get("text").is_some_and(Value::is_string) {
                    return Err(invalid(format!("{at}.text.text: Field required")));
                }
                if !non_empty_string(block, "text") {
                    return Err(invalid("messages: text content blocks must be non-empty"));
                }
            }
            ("image" | "document", "user") => {
                if !block.get("source").is_some_and(Value::is_object) {
                    return Err(invalid(format!("{at}.{kind}.source: Field required")));
                }
                if kind == "image" {
                    validate_image_source(&at, block)?;
                }
            }
            ("thinking", "assistant") => {
                if !block.get("thinking").is_some_and(Value::is_string) {
                    return Err(invalid(format!("{at}.thinking.thinking: Field required")));
                }
                if !non_empty_string(block, "signature") {
                    return Err(invalid(format!("{at}.thinking.signature: Field required")));
                }
            }
            ("redacted_thinking", "assistant") => {
                if !non_empty_string(block, "data") {
                    return Err(invalid(format!("{at}.redacted_thinking.data: Field required")));
                }
            }
            ("tool_use", "assistant") => {
                if !non_empty_string(block, "id") {
                    return Err(invalid(format!("{at}.tool_use.id: Field required")));
                }
                if !non_empty_string(block, "name") {
                    return Err(invalid(format!("{at}.tool_use.name: Field required")));
                }
                if !block.get("input").is_some_and(Value::is_object) {
                    return Err(invalid(format!(
                        "{at}.tool_use.input: Input should be a valid dictionary"
                    )));
                }
            }
            ("tool_result", "user") => {
                if !non_empty_string(block, "tool_use_id") {
                    return Err(invalid(format!("{at}.tool_result.tool_use_id: Field required")));
                }
                match block.get("content") {
                    None | Some(Value::String(_)) => {}
                    Some(Value::Array(parts)) => {
                        for (k, part) in parts.iter().enumerate() {
                            if !matches!(block_type(part), Some("text" | "image")) {
                                return Err(invalid(format!(
                                    "{at}.tool_result.content.{k}: Input tag should be 'text' or 'image'"
                                )));
                            }
                        }
                    }
                    Some(_) => {
                        return Err(invalid(format!(
                            "{at}.tool_result.content: Input should be a valid string or list"
                        )));
                    }
                }
            }
            (other, role) => {
                return Err(invalid(format!(
                    "{at}: `{other}` blocks are not allowed in {role} messages"
                )));
            }
        }
    }
    Ok(())
}

fn check_tool_uses_answered(
    i: usize,
    message: &Parsed<'_>,
    next: Option<&Parsed<'_>>,
) -> Result<(), Rejection> {
    let uses: BTreeSet<&str> = message.blocks.iter().filter_map(|b| tool_use_id(b)).collect();
    if uses.is_empty() {
        return Ok(());
    }
    let answered: BTreeSet<&str> = next
        .map(|n| n.blocks.iter().filter_map(|b| tool_result_id(b)).collect())
        .unwrap_or_default();
    let missing: Vec<&str> = uses.difference(&answered).copied().collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(invalid(format!(
        "messages.{}: `tool_use` ids were found without `tool_result` blocks immediately after: {}. Each `tool_use` block must have a corresponding `tool_result` block in the next message.",
        if next.is_some() { i + 1 } else { i },
        missing.join(", ")
    )))
}

fn tool_result_id(block: &Value) -> Option<&str> {
    (block_type(block) == Some("tool_result"))
        .then(|| block.get("tool_use_id").and_then(Value::as_str))
        .flatten()
}

fn check_tool_results(
    i: usize,
    message: &Parsed<'_>,
    previous: Option<&Parsed<'_>>,
) -> Result<(), Rejection> {
    let uses: HashSet<&str> = previous
        .map(|p| p.blocks.iter().filter_map(|b| tool_use_id(b)).collect())
        .unwrap_or_default();
    let mut seen = HashSet::new();
    let mut other_content_seen = false;
    for (j, block) in message.blocks.iter().enumerate() {
        let Some(id) = tool_result_id(block) else {
            other_content_seen = true;
            continue;
        };
        if other_content_seen {
            return Err(invalid(format!(
                "messages.{i}.content.{j}: `tool_result` blocks must come before any other content in the message"
            )));
        }
        if !uses.contains(id) {
            return Err(invalid(format!(
                "messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {id}. Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
            )));
        }
        if !seen.insert(id) {
            return Err(invalid(format!(
                "messages.{i}.content.{j}: each `tool_use` must have a single result. Found multiple `tool_result` blocks with id: {id}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn body(messages: Value) -> Value {
        json!({"model": "claude-test", "max_tokens": 100, "messages": messages})
    }

    fn message_of(result: Result<(), Rejection>) -> String {
        result.unwrap_err().message
    }

    fn tool_turn() -> Vec<Value> {
        vec![
            json!({"role": "user", "content": "list files"}),
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hm", "signature": "sig"},
                {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}},
                {"type": "tool_use", "id": "toolu_2", "name": "Bash", "input": {}}
            ]}),
        ]
    }

    #[test]
    fn well_formed_tool_round_trip_passes() {
        let mut messages = tool_turn();
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "ok"}]},
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a b", "is_error": false},
            {"type": "text", "text": "continue"}
        ]}));
        assert_eq!(validate_body(&body(json!(messages))), Ok(()));
    }

    #[test]
    fn at_most_four_cache_breakpoints() {
        let mark = json!({"type": "ephemeral"});
        let request = |n: usize| {
            let mut system: Vec<Value> = (0..n.min(3))
                .map(|i| json!({"type": "text", "text": format!("s{i}"), "cache_control": mark}))
                .collect();
            system.push(json!({"type": "text", "text": "unmarked"}));
            let mut content = vec![json!({"type": "text", "text": "hi"})];
            if n > 3 {
                for i in 3..n {
                    content.push(json!({"type": "text", "text": format!("m{i}"), "cache_control": mark}));
                }
            }
            json!({"model": "m", "max_tokens": 1, "system": system,
                   "messages": [{"role": "user", "content": content}]})
        };
        for n in 0..=4 {
            assert_eq!(validate_body(&request(n)), Ok(()), "{n} breakpoints");
        }
        assert_eq!(
            message_of(validate_body(&request(5))),
            "A maximum of 4 blocks with cache_control may be provided. Found 5."
        );
    }

    #[test]
    fn user_images_must_be_what_their_media_type_says() {
        let image = |media_type: &str, data: &str| {
            body(json!([{"role": "user", "content": [
                {"type": "image", "source": {"type": "base64", "media_type": media_type, "data": data}},
                {"type": "text", "text": "what is this?"}
            ]}]))
        };
        // "iVBORw0KGgo=" is the PNG signature; "/9j/" starts a JPEG.
        assert_eq!(validate_body(&image("image/png", "iVBORw0KGgo=")), Ok(()));
        assert_eq!(
            message_of(validate_body(&image("image/png", "/9j/4AAQ"))),
            "messages.0.content.0.image.source.base64: The image was specified using the image/png media type, but the data is not such an image"
        );
        assert_eq!(
            message_of(validate_body(&image("image/png", "not base64!"))),
            "messages.0.content.0.image.source.base64.data: invalid base64 data"
        );
        assert!(
            message_of(validate_body(&image("image/bmp", "Qk0="))).contains("Input should be 'image/jpeg'")
        );
    }

    #[test]
    fn thinking_needs_a_budget_of_at_least_1024_below_max_tokens_and_no_other_temperature() {
        let with = |max_tokens: u64, thinking: Value, extra: Value| {
            let mut b = json!({"model": "m", "max_tokens": max_tokens, "thinking": thinking,
                "messages": [{"role": "user", "content": "hi"}]});
            if let (Some(b), Some(extra)) = (b.as_object_mut(), extra.as_object()) {
                b.extend(extra.clone());
            }
            validate_body(&b)
        };
        let enabled = |budget: u64| json!({"type": "enabled", "budget_tokens": budget});
        assert_eq!(with(32_000, enabled(24_000), json!({})), Ok(()));
        assert_eq!(
            with(16_000, json!({"type": "disabled"}), json!({"temperature": 0.2})),
            Ok(())
        );
        assert_eq!(with(16_000, json!({"type": "adaptive"}), json!({})), Ok(()));
        assert_eq!(
            message_of(with(16_000, enabled(512), json!({}))),
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"
        );
        assert!(
            message_of(with(16_000, enabled(24_000), json!({})))
                .starts_with("`max_tokens` must be greater than `thinking.budget_tokens`")
        );
        assert!(
            message_of(with(32_000, enabled(4_000), json!({"temperature": 0.5})))
                .starts_with("`temperature` may only be set to 1")
        );
        assert_eq!(with(32_000, enabled(4_000), json!({"temperature": 1.0})), Ok(()));
        assert!(
            message_of(with(32_000, json!({"type": "lots"}), json!({}))).starts_with("thinking: Input tag")
        );
    }

    #[test]
    fn missing_fields_and_headers() {
        assert_eq!(
            message_of(validate_body(&json!({"max_tokens": 1, "messages": []}))),
            "model: Field required"
        );
        assert_eq!(
            message_of(validate_body(&json!({"model": "m", "messages": []}))),
            "max_tokens: Field required"
        );
        let mut headers = HeaderMap::new();
        let rejection = validate_request(&headers, b"{}").unwrap_err();
        assert_eq!(
            (rejection.status, rejection.error_type),
            (401, "authentication_error")
        );
        headers.insert("x-api-key", HeaderValue::from_static("k"));
        assert_eq!(
            validate_request(&headers, b"{}").unwrap_err().message,
            "anthropic-version: header is required"
        );
        headers.insert("anthropic-version", HeaderValue::from_static("2023-06-01"));
        assert_eq!(validate_request(&headers, b"{").unwrap_err().status, 400);
    }

    #[test]
    fn role_order_and_empty_content() {
        assert_eq!(
            message_of(validate_body(&body(
                json!([{"role": "assistant", "content": "hi"}])
            ))),
            "messages: first message must use the \"user\" role"
        );
        assert!(
            message_of(validate_body(&body(json!([
                {"role": "user", "content": "a"}, {"role": "user", "content": "b"}
            ]))))
            .contains("roles must alternate")
        );
        assert!(
            message_of(validate_body(&body(json!([{"role": "user", "content": []}]))))
                .contains("non-empty content")
        );
        assert_eq!(
            validate_body(&body(
                json!([{"role": "user", "content": "a"}, {"role": "assistant", "content": ""}])
            )),
            Ok(()),
            "an empty final assistant message (prefill) is allowed"
        );
        assert!(
            message_of(validate_body(&body(json!([{"role": "system", "content": "x"}])))).contains("role")
        );
    }

    #[test]
    fn unanswered_tool_use_is_rejected() {
        let mut messages = tool_turn();
        messages.push(json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "x"}
        ]}));
        assert_eq!(
            message_of(validate_body(&body(json!(messages)))),
            "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_2. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
        );
        assert!(
            message_of(validate_body(&body(json!(tool_turn())))).starts_with("messages.1: `tool_use` ids")
        );
    }

    #[test]
    fn tool_result_problems_are_rejected() {
        let results = |blocks: Value| {
            let mut messages = tool_turn();
            messages.push(json!({"role": "user", "content": blocks}));
            message_of(validate_body(&body(json!(messages))))
        };
        assert!(results(json!([
            {"type": "tool_result", "tool_use_id": "toolu_1"}, {"type": "tool_result", "tool_use_id": "toolu_2"},
            {"type": "tool_result", "tool_use_id": "toolu_9"}
        ]))
        .contains("unexpected `tool_use_id` found in `tool_result` blocks: toolu_9"));
        assert!(results(json!([
            {"type": "tool_result", "tool_use_id": "toolu_1"}, {"type": "tool_result", "tool_use_id": "toolu_2"},
            {"type": "tool_result", "tool_use_id": "toolu_1"}
        ]))
        .contains("Found multiple `tool_result` blocks with id: toolu_1"));
        assert!(results(json!([
            {"type": "text", "text": "first"},
            {"type": "tool_result", "tool_use_id": "toolu_1"}, {"type": "tool_result", "tool_use_id": "toolu_2"}
        ]))
        .contains("must come before any other content"));
    }

    #[test]
    fn duplicate_tool_use_ids_and_unsigned_thinking() {
        let duplicate = body(json!([
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [
                {"type": "tool_use", "id": "toolu_1", "name": "A", "input": {}},
                {"type": "tool_use", "id": "toolu_1", "name": "B", "input": {}}
            ]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1"}]}
        ]));
        assert!(message_of(validate_body(&duplicate)).contains("`tool_use` ids must be unique"));
        let unsigned = body(json!([
            {"role": "user", "content": "a"},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}, {"type": "text", "text": "y"}]}
        ]));
        assert_eq!(
            message_of(validate_body(&unsigned)),
            "messages.1.content.0.thinking.signature: Field required"
        );
    }

    #[test]
    fn tools_need_schema_and_unique_names() {
        let mut request = body(json!([{"role": "user", "content": "a"}]));
        request["tools"] = json!([{"name": "A", "input_schema": {}}, {"name": "A", "input_schema": {}}]);
        assert_eq!(
            message_of(validate_body(&request)),
            "tools: Tool names must be unique."
        );
        request["tools"] = json!([{"name": "A"}]);
        assert_eq!(
            message_of(validate_body(&request)),
            "tools.0.input_schema: Field required"
        );
    }
}
