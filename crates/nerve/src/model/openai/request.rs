//! A Messages API request body written as a Chat Completions one: the system prompt as the first
//! message, each tool result as a `tool` message right after the call it answers, images as data
//! URLs, tools as functions. Thinking blocks and cache breakpoints have no equivalent and are left
//! out; the Messages API's server tools (web search) are not sent.

use serde_json::{Map, Value, json};

/// The Chat Completions body for `messages_body` (a Messages API request as JSON), streamed with
/// usage in its last chunk.
pub fn chat_body(messages_body: &Value) -> Result<Value, String> {
    let mut out = common_fields(messages_body, "max_tokens");
    out.insert("stream_options".into(), json!({"include_usage": true}));

    let mut messages = Vec::new();
    let system = system_text(messages_body.get("system"));
    if !system.is_empty() {
        messages.push(json!({"role": "system", "content": system}));
    }
    let Some(list) = messages_body.get("messages").and_then(Value::as_array) else {
        return Err("the request has no messages".into());
    };
    for message in list {
        match message.get("role").and_then(Value::as_str) {
            Some("user") => user_messages(message.get("content"), &mut messages),
            Some("assistant") => messages.push(assistant_message(message.get("content"))),
            other => return Err(format!("a message has the role {other:?}")),
        }
    }
    out.insert("messages".into(), Value::Array(messages));

    let tools: Vec<Value> = messages_body
        .get("tools")
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                // Server tools carry a `type` and run on Anthropic's side only.
                .filter(|t| t.get("type").is_none() && t.get("input_schema").is_some())
                .map(|t| {
                    let mut function = Map::new();
                    function.insert("name".into(), t["name"].clone());
                    if let Some(d) = t.get("description").filter(|d| !d.is_null()) {
                        function.insert("description".into(), d.clone());
                    }
                    function.insert("parameters".into(), t["input_schema"].clone());
                    json!({"type": "function", "function": function})
                })
                .collect()
        })
        .unwrap_or_default();
    if !tools.is_empty() {
        out.insert("tools".into(), Value::Array(tools));
    }
    Ok(Value::Object(out))
}

/// What both OpenAI APIs take the same way: the model, the token limit (named `limit_key`), the
/// temperature, and streaming on.
pub(super) fn common_fields(messages_body: &Value, limit_key: &str) -> Map<String, Value> {
    let mut out = Map::new();
    out.insert("model".into(), messages_body["model"].clone());
    if let Some(max) = messages_body.get("max_tokens").filter(|v| !v.is_null()) {
        out.insert(limit_key.into(), max.clone());
    }
    if let Some(t) = messages_body.get("temperature").filter(|v| !v.is_null()) {
        out.insert("temperature".into(), t.clone());
    }
    out.insert("stream".into(), Value::Bool(true));
    out
}

/// The system blocks' texts, joined.
pub(super) fn system_text(system: Option<&Value>) -> String {
    match system {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// A user message: its tool results first, each a `tool` message (they must follow the assistant
/// message whose calls they answer), then the rest as one user message.
fn user_messages(content: Option<&Value>, out: &mut Vec<Value>) {
    let blocks = match content {
        Some(Value::String(text)) => {
            out.push(json!({"role": "user", "content": text}));
            return;
        }
        Some(Value::Array(blocks)) => blocks,
        _ => return,
    };
    let mut parts = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("tool_result") => out.push(json!({
                "role": "tool",
                "tool_call_id": block["tool_use_id"],
                "content": tool_result_text(block),
            })),
            Some("text") => parts.push(json!({"type": "text", "text": block["text"]})),
            Some("image") => {
                if let Some(url) = image_url(&block["source"]) {
                    parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
                }
            }
            Some("document") => parts.push(json!({"type": "text", "text": "[A PDF document was attached; this model server cannot read it.]"})),
            _ => {}
        }
    }
    if parts.is_empty() {
        return;
    }
    let only_text = parts.iter().all(|p| p["type"] == "text");
    let content = if only_text {
        Value::String(
            parts
                .iter()
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
        )
    } else {
        Value::Array(parts)
    };
    out.push(json!({"role": "user", "content": content}));
}

/// A tool result's text (an error says so first; an image cannot be a tool message's content, in
/// either OpenAI API).
pub(super) fn tool_result_text(block: &Value) -> String {
    let text = match block.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p.get("type").and_then(Value::as_str) {
                Some("text") => p["text"].as_str().unwrap_or_default().to_string(),
                Some("image") => "[an image this model server cannot be sent in a tool result]".to_string(),
                _ => String::new(),
            })
            .filter(|t| !t.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    };
    if block.get("is_error").and_then(Value::as_bool) == Some(true) {
        format!("Error: {text}")
    } else {
        text
    }
}

/// A base64 image source as a data URL.
fn image_url(source: &Value) -> Option<String> {
    match source.get("type").and_then(Value::as_str) {
        Some("base64") => Some(format!(
            "data:{};base64,{}",
            source.get("media_type")?.as_str()?,
            source.get("data")?.as_str()?
        )),
        Some("url") => source.get("url")?.as_str().map(str::to_string),
        _ => None,
    }
}

/// An assistant message: its text and its calls (thinking has no equivalent).
fn assistant_message(content: Option<&Value>) -> Value {
    let blocks = match content {
        Some(Value::String(text)) => return json!({"role": "assistant", "content": text}),
        Some(Value::Array(blocks)) => blocks.as_slice(),
        _ => &[],
    };
    let text: Vec<&str> = blocks
        .iter()
        .filter(|b| b["type"] == "text")
        .filter_map(|b| b["text"].as_str())
        .collect();
    let calls: Vec<Value> = blocks
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| {
            json!({
                "id": b["id"],
                "type": "function",
                "function": {"name": b["name"], "arguments": b["input"].to_string()},
            })
        })
        .collect();
    let mut message = Map::new();
    message.insert("role".into(), "assistant".into());
    message.insert(
        "content".into(),
        if text.is_empty() {
            Value::Null
        } else {
            Value::String(text.join("\n\n"))
        },
    );
    if !calls.is_empty() {
        message.insert("tool_calls".into(), Value::Array(calls));
    }
    Value::Object(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_conversation_with_calls_results_and_an_image_becomes_chat_messages() {
        let body = json!({
            "model": "qwen3-coder",
            "max_tokens": 4096,
            "stream": true,
            "thinking": {"type": "enabled", "budget_tokens": 2000},
            "system": [{"type": "text", "text": "You are Nerve.", "cache_control": {"type": "ephemeral"}},
                       {"type": "text", "text": "Env."}],
            "tools": [
                {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}},
                {"type": "web_search_20250305", "name": "web_search"}
            ],
            "messages": [
                {"role": "user", "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
                    {"type": "text", "text": "what is in a.txt?"}]},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hmm", "signature": "s"},
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": "/p/a.txt"}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "call_1", "content": [{"type": "text", "text": "hello"}]},
                    {"type": "text", "text": "<system-reminder>\nnote\n</system-reminder>"}]}
            ]
        });
        assert_eq!(
            chat_body(&body).unwrap(),
            json!({
                "model": "qwen3-coder",
                "max_tokens": 4096,
                "stream": true,
                "stream_options": {"include_usage": true},
                "messages": [
                    {"role": "system", "content": "You are Nerve.\n\nEnv."},
                    {"role": "user", "content": [
                        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBO"}},
                        {"type": "text", "text": "what is in a.txt?"}]},
                    {"role": "assistant", "content": "Reading.", "tool_calls": [
                        {"id": "call_1", "type": "function",
                         "function": {"name": "Read", "arguments": "{\"file_path\":\"/p/a.txt\"}"}}]},
                    {"role": "tool", "tool_call_id": "call_1", "content": "hello"},
                    {"role": "user", "content": "<system-reminder>\nnote\n</system-reminder>"}
                ],
                "tools": [{"type": "function", "function": {
                    "name": "Read", "description": "Read a file", "parameters": {"type": "object"}}}]
            })
        );
    }

    #[test]
    fn an_error_result_says_so_and_a_call_without_words_has_null_content() {
        let body = json!({"model": "m", "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c", "is_error": true, "content": "denied"}]}
        ]});
        let chat = chat_body(&body).unwrap();
        assert_eq!(chat["messages"][1]["content"], Value::Null);
        assert_eq!(
            chat["messages"][2],
            json!({"role": "tool", "tool_call_id": "c", "content": "Error: denied"})
        );
        assert_eq!(chat["messages"].as_array().unwrap().len(), 3);
    }
}
