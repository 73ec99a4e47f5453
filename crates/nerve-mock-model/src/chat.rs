//! The OpenAI-compatible Chat Completions API (`POST /v1/chat/completions`), played from the same
//! scenarios as the Messages API: a request is checked as OpenAI checks it (a bearer key, the
//! message roles, every assistant `tool_calls` answered by `tool` messages right after it, each
//! `tool` message answering such a call, function tools with valid names), then read as a
//! Messages API request so the steps' `when` and `expect` apply unchanged, and a step's blocks are
//! streamed as chat chunks (text as `content` deltas, a tool_use as `tool_calls` deltas with its
//! arguments in fragments, then `finish_reason`, the usage chunk when `stream_options.include_usage`
//! asks, and `[DONE]`).

use std::collections::HashSet;
use std::time::Duration;

use axum::http::HeaderMap;
use serde_json::{Map, Value, json};

use crate::frames::{split_fragments, tool_use_id};
use crate::scenario::{AuthMode, BlockSpec, StreamResponse};
use crate::validate::Rejection;

fn invalid(message: impl Into<String>) -> Rejection {
    Rejection {
        status: 400,
        error_type: "invalid_request_error",
        message: message.into(),
    }
}

/// OpenAI's APIs take the key as a bearer token only; without one (where a key is required) the
/// answer is OpenAI's 401.
pub fn check_bearer(headers: &HeaderMap, auth: AuthMode) -> Result<(), Rejection> {
    let bearer = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .is_some_and(|token| !token.trim().is_empty());
    if auth == AuthMode::Required && !bearer {
        return Err(Rejection {
            status: 401,
            error_type: "invalid_request_error",
            message: "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).".into(),
        });
    }
    Ok(())
}

/// Checks a chat request as the API does; on success, the request and its Messages API reading.
pub fn validate(headers: &HeaderMap, body: &[u8], auth: AuthMode) -> Result<(Value, Value), Rejection> {
    check_bearer(headers, auth)?;
    if headers.contains_key("anthropic-version") || headers.contains_key("x-api-key") {
        return Err(invalid(
            "this is an OpenAI-compatible endpoint: Anthropic's headers were sent to it",
        ));
    }
    let request: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("We could not parse the JSON body of your request: {e}")))?;
    if request["model"].as_str().is_none_or(str::is_empty) {
        return Err(invalid("you must provide a model parameter"));
    }
    let Some(messages) = request["messages"].as_array().filter(|m| !m.is_empty()) else {
        return Err(invalid("'messages' must be a non-empty array"));
    };
    if request.get("stream_options").is_some_and(|o| !o.is_null()) && request["stream"] != json!(true) {
        return Err(invalid(
            "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        ));
    }
    validate_tools(&request)?;
    validate_messages(messages)?;
    let view = messages_view(&request);
    Ok((request, view))
}

fn validate_tools(request: &Value) -> Result<(), Rejection> {
    let Some(tools) = request.get("tools").filter(|t| !t.is_null()) else {
        return Ok(());
    };
    let Some(tools) = tools.as_array() else {
        return Err(invalid("'tools' must be an array"));
    };
    let mut names = HashSet::new();
    for (i, tool) in tools.iter().enumerate() {
        if tool["type"] != "function" {
            return Err(invalid(format!(
                "Invalid value for 'tools[{i}].type': expected 'function'."
            )));
        }
        let name = tool["function"]["name"].as_str().unwrap_or_default();
        let valid = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid {
            return Err(invalid(format!(
                "Invalid 'tools[{i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'."
            )));
        }
        if !names.insert(name.to_string()) {
            return Err(invalid(format!("Duplicate tool name: {name}")));
        }
        if let Some(p) = tool["function"].get("parameters")
            && !p.is_object()
        {
            return Err(invalid(format!(
                "Invalid 'tools[{i}].function.parameters': expected an object."
            )));
        }
    }
    Ok(())
}

fn validate_messages(messages: &[Value]) -> Result<(), Rejection> {
    // The calls of the latest assistant message still waiting for their `tool` message.
    let mut waiting: Vec<String> = Vec::new();
    for (i, message) in messages.iter().enumerate() {
        let role = message["role"].as_str().unwrap_or_default();
        if role != "tool" && !waiting.is_empty() {
            return Err(invalid(format!(
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
                waiting.join(", ")
            )));
        }
        match role {
            "system" | "developer" | "user" => {
                if message.get("content").is_none_or(Value::is_null) {
                    return Err(invalid(format!(
                        "Invalid value for 'messages[{i}].content': expected a string or an array."
                    )));
                }
            }
            "assistant" => {
                if let Some(calls) = message.get("tool_calls").and_then(Value::as_array) {
                    for call in calls {
                        let Some(id) = call["id"].as_str().filter(|id| !id.is_empty()) else {
                            return Err(invalid(format!("Missing 'messages[{i}].tool_calls.id'.")));
                        };
                        if call["function"]["arguments"].as_str().is_none() {
                            return Err(invalid(format!(
                                "'messages[{i}].tool_calls.function.arguments' must be a string."
                            )));
                        }
                        waiting.push(id.to_string());
                    }
                } else if message.get("content").is_none_or(Value::is_null) {
                    return Err(invalid(format!(
                        "Invalid 'messages[{i}]': an assistant message needs content or tool_calls."
                    )));
                }
            }
            "tool" => {
                let id = message["tool_call_id"].as_str().unwrap_or_default();
                let Some(at) = waiting.iter().position(|w| w == id) else {
                    return Err(invalid(format!(
                        "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'. (messages[{i}], tool_call_id {id:?})"
                    )));
                };
                waiting.remove(at);
            }
            other => {
                return Err(invalid(format!(
                    "Invalid value: '{other}'. Supported values are: 'system', 'assistant', 'user', 'tool', and 'developer'."
                )));
            }
        }
    }
    if !waiting.is_empty() {
        return Err(invalid(format!(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: {}",
            waiting.join(", ")
        )));
    }
    Ok(())
}

/// The request read as a Messages API request, for the scenario's `when` and `expect`.
fn messages_view(request: &Value) -> Value {
    let mut system = Vec::new();
    let mut messages: Vec<Value> = Vec::new();
    let text_of = |content: &Value| -> Vec<Value> {
        match content {
            Value::String(s) => vec![json!({"type": "text", "text": s})],
            Value::Array(parts) => parts
                .iter()
                .filter_map(|p| match p["type"].as_str() {
                    Some("text") => Some(json!({"type": "text", "text": p["text"]})),
                    Some("image_url") => {
                        let url = p["image_url"]["url"].as_str().unwrap_or_default();
                        let (media, data) = url
                            .strip_prefix("data:")
                            .and_then(|rest| rest.split_once(";base64,"))
                            .unwrap_or(("", ""));
                        Some(json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}))
                    }
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    };
    for message in request["messages"].as_array().into_iter().flatten() {
        match message["role"].as_str().unwrap_or_default() {
            "system" | "developer" => system.extend(text_of(&message["content"])),
            "user" => push_blocks(&mut messages, "user", text_of(&message["content"])),
            "tool" => push_blocks(
                &mut messages,
                "user",
                vec![
                    json!({"type": "tool_result", "tool_use_id": message["tool_call_id"],
                            "content": message["content"],
                            "is_error": message["content"].as_str().is_some_and(|c| c.starts_with("Error: "))}),
                ],
            ),
            "assistant" => {
                let mut blocks = text_of(&message["content"]);
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    let input: Value =
                        serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}"))
                            .unwrap_or(json!({}));
                    blocks.push(json!({"type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": input}));
                }
                push_blocks(&mut messages, "assistant", blocks);
            }
            _ => {}
        }
    }
    let tools: Vec<Value> = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| json!({"name": t["function"]["name"], "description": t["function"]["description"], "input_schema": t["function"]["parameters"]}))
        .collect();
    let mut view = Map::new();
    view.insert("model".into(), request["model"].clone());
    view.insert("system".into(), Value::Array(system));
    view.insert("messages".into(), Value::Array(messages));
    view.insert("tools".into(), Value::Array(tools));
    view.insert("stream".into(), request["stream"].clone());
    Value::Object(view)
}

/// Appends `blocks` to the last message when it has the same role (a tool result and the words
/// after it are one user message in the Messages API), else as a new message.
fn push_blocks(messages: &mut Vec<Value>, role: &str, blocks: Vec<Value>) {
    if let Some(last) = messages.last_mut()
        && last["role"] == role
        && let Some(content) = last["content"].as_array_mut()
    {
        content.extend(blocks);
        return;
    }
    messages.push(json!({"role": role, "content": blocks}));
}

fn finish_reason(response: &StreamResponse) -> &'static str {
    let tool = response
        .blocks
        .iter()
        .any(|b| matches!(b, BlockSpec::ToolUse { .. }));
    match response.stop_reason.as_deref() {
        Some("max_tokens") => "length",
        Some("refusal") => "content_filter",
        _ if tool => "tool_calls",
        _ => "stop",
    }
}

/// The chunks of a streamed answer, each with the pause before it, as `data:` lines.
pub fn chunks(
    step: usize,
    response: &StreamResponse,
    model: &str,
    id: &str,
    include_usage: bool,
) -> Vec<(Duration, String)> {
    let chunk = |delta: Value, finish: Value| {
        json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model,
               "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]})
    };
    let delay = Duration::from_millis(response.delta_delay_ms);
    let mut out = vec![(
        Duration::from_millis(response.delay_ms),
        chunk(json!({"role": "assistant", "content": ""}), Value::Null),
    )];
    let mut call_index = 0u64;
    for (index, block) in response.blocks.iter().enumerate() {
        match block {
            BlockSpec::Text { text, .. } => {
                for piece in text.chunks() {
                    out.push((delay, chunk(json!({"content": piece}), Value::Null)));
                }
            }
            BlockSpec::ToolUse {
                id: spec_id,
                name,
                input,
                raw_input,
                fragments,
                ..
            } => {
                let call_id = tool_use_id(step, index, spec_id.as_ref());
                out.push((
                    delay,
                    chunk(
                        json!({"tool_calls": [{"index": call_index, "id": call_id, "type": "function",
                                               "function": {"name": name, "arguments": ""}}]}),
                        Value::Null,
                    ),
                ));
                let arguments = raw_input.clone().unwrap_or_else(|| input.to_string());
                for piece in split_fragments(&arguments, *fragments) {
                    out.push((
                        delay,
                        chunk(
                            json!({"tool_calls": [{"index": call_index, "function": {"arguments": piece}}]}),
                            Value::Null,
                        ),
                    ));
                }
                call_index += 1;
            }
            // Chat Completions has no thinking blocks nor Anthropic's server tools.
            _ => {}
        }
    }
    out.push((Duration::ZERO, chunk(json!({}), json!(finish_reason(response)))));
    if include_usage {
        let cached = response.usage.cache_read_input_tokens;
        out.push((
            Duration::ZERO,
            json!({"id": id, "object": "chat.completion.chunk", "created": 0, "model": model, "choices": [],
                   "usage": {"prompt_tokens": response.usage.input_tokens + cached,
                             "completion_tokens": response.usage.output_tokens,
                             "total_tokens": response.usage.input_tokens + cached + response.usage.output_tokens,
                             "prompt_tokens_details": {"cached_tokens": cached}}}),
        ));
    }
    let mut encoded: Vec<(Duration, String)> = out
        .into_iter()
        .map(|(d, v)| (d, format!("data: {v}\n\n")))
        .collect();
    encoded.push((Duration::ZERO, "data: [DONE]\n\n".to_string()));
    encoded
}

/// The whole answer as one `chat.completion` (a request without `stream`).
pub fn completion(step: usize, response: &StreamResponse, model: &str, id: &str) -> Value {
    let text: String = response
        .blocks
        .iter()
        .filter_map(|b| match b {
            BlockSpec::Text { text, .. } => Some(text.joined()),
            _ => None,
        })
        .collect();
    let calls: Vec<Value> = response
        .blocks
        .iter()
        .enumerate()
        .filter_map(|(index, b)| match b {
            BlockSpec::ToolUse { id, name, input, .. } => Some(json!({
                "id": tool_use_id(step, index, id.as_ref()), "type": "function",
                "function": {"name": name, "arguments": input.to_string()}})),
            _ => None,
        })
        .collect();
    let mut message = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { Value::String(text) }});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    json!({"id": id, "object": "chat.completion", "created": 0, "model": model,
           "choices": [{"index": 0, "message": message, "finish_reason": finish_reason(response)}],
           "usage": {"prompt_tokens": response.usage.input_tokens, "completion_tokens": response.usage.output_tokens,
                     "total_tokens": response.usage.input_tokens + response.usage.output_tokens}})
}

/// An error as OpenAI writes it.
pub fn error_body(error_type: &str, message: &str) -> Value {
    json!({"error": {"message": message, "type": error_type, "param": null, "code": null}})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers() -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert("authorization", "Bearer k".parse().unwrap());
        h
    }

    #[test]
    fn an_unanswered_call_and_a_stray_tool_message_are_refused_as_openai_does() {
        let body = |messages: Value| {
            json!({"model": "m", "messages": messages})
                .to_string()
                .into_bytes()
        };
        let call = json!({"role": "assistant", "content": null, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "Read", "arguments": "{}"}}]});
        let unanswered = validate(
            &headers(),
            &body(json!([{"role": "user", "content": "go"}, call, {"role": "user", "content": "next"}])),
            AuthMode::Required,
        );
        assert!(
            unanswered
                .unwrap_err()
                .message
                .contains("did not have response messages: c1")
        );
        let stray = validate(
            &headers(),
            &body(
                json!([{"role": "user", "content": "go"}, {"role": "tool", "tool_call_id": "x", "content": "r"}]),
            ),
            AuthMode::Required,
        );
        assert!(
            stray
                .unwrap_err()
                .message
                .contains("must be a response to a preceeding message with 'tool_calls'")
        );
        let (_, view) = validate(
            &headers(),
            &body(
                json!([{"role": "system", "content": "S"}, {"role": "user", "content": "go"}, call,
                         {"role": "tool", "tool_call_id": "c1", "content": "hello"}]),
            ),
            AuthMode::Required,
        )
        .unwrap();
        assert_eq!(view["system"], json!([{"type": "text", "text": "S"}]));
        assert_eq!(view["messages"][1]["content"][0]["type"], "tool_use");
        assert_eq!(view["messages"][2]["content"][0]["tool_use_id"], "c1");
        let no_key = validate(
            &HeaderMap::new(),
            &body(json!([{"role": "user", "content": "go"}])),
            AuthMode::Required,
        );
        assert_eq!(no_key.unwrap_err().status, 401);
    }
}
