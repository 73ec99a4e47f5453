//! OpenAI's Responses API (`POST /v1/responses`), played from the same scenarios: a request is
//! checked as OpenAI checks it (a bearer key, `model`, `input` items, each `function_call_output`
//! answering an earlier `function_call` and every call answered, function tools with names and
//! parameters), read as a Messages API request for `when` and `expect`, and answered with the
//! Responses stream's typed events.

use std::collections::HashSet;
use std::time::Duration;

use axum::http::HeaderMap;
use serde_json::{Value, json};

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

/// Checks a Responses request as the API does; on success, the request and its Messages reading.
pub fn validate(headers: &HeaderMap, body: &[u8], auth: AuthMode) -> Result<(Value, Value), Rejection> {
    crate::chat::check_bearer(headers, auth)?;
    let request: Value = serde_json::from_slice(body)
        .map_err(|e| invalid(format!("We could not parse the JSON body of your request: {e}")))?;
    if request["model"].as_str().is_none_or(str::is_empty) {
        return Err(invalid("Missing required parameter: 'model'."));
    }
    let Some(input) = request["input"].as_array() else {
        return Err(invalid("Missing required parameter: 'input'."));
    };
    let mut calls = HashSet::new();
    for (i, item) in input.iter().enumerate() {
        match item["type"].as_str() {
            Some("function_call") => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if id.is_empty() || item["arguments"].as_str().is_none() {
                    return Err(invalid(format!(
                        "Invalid 'input[{i}]': a function_call needs call_id and string arguments."
                    )));
                }
                calls.insert(id.to_string());
            }
            Some("function_call_output") => {
                let id = item["call_id"].as_str().unwrap_or_default();
                if !calls.remove(id) {
                    return Err(invalid(format!(
                        "No tool call found for function call output with call_id {id}."
                    )));
                }
            }
            None | Some("message") => {
                if !matches!(
                    item["role"].as_str(),
                    Some("user" | "assistant" | "system" | "developer")
                ) {
                    return Err(invalid(format!("Invalid 'input[{i}].role'.")));
                }
            }
            Some(other) => return Err(invalid(format!("Invalid 'input[{i}].type': '{other}'."))),
        }
    }
    if let Some(open) = calls.iter().next() {
        return Err(invalid(format!("No tool output found for function call {open}.")));
    }
    for (i, tool) in request["tools"].as_array().into_iter().flatten().enumerate() {
        if tool["type"] != "function"
            || tool["name"].as_str().is_none_or(str::is_empty)
            || !tool["parameters"].is_object()
        {
            return Err(invalid(format!(
                "Invalid 'tools[{i}]': a function tool needs a name and parameters."
            )));
        }
    }
    let view = messages_view(&request);
    Ok((request, view))
}

fn messages_view(request: &Value) -> Value {
    let mut messages: Vec<Value> = Vec::new();
    let mut push = |role: &str, block: Value| {
        if let Some(last) = messages.last_mut()
            && last["role"] == role
            && let Some(content) = last["content"].as_array_mut()
        {
            content.push(block);
            return;
        }
        messages.push(json!({"role": role, "content": [block]}));
    };
    for item in request["input"].as_array().into_iter().flatten() {
        match item["type"].as_str() {
            Some("function_call") => push(
                "assistant",
                json!({"type": "tool_use", "id": item["call_id"], "name": item["name"],
                       "input": serde_json::from_str::<Value>(item["arguments"].as_str().unwrap_or("{}")).unwrap_or(json!({}))}),
            ),
            Some("function_call_output") => push(
                "user",
                json!({"type": "tool_result", "tool_use_id": item["call_id"], "content": item["output"]}),
            ),
            _ => {
                let role = if item["role"] == "assistant" {
                    "assistant"
                } else {
                    "user"
                };
                for part in item["content"].as_array().into_iter().flatten() {
                    match part["type"].as_str() {
                        Some("input_text" | "output_text") => {
                            push(role, json!({"type": "text", "text": part["text"]}))
                        }
                        Some("input_image") => {
                            let url = part["image_url"].as_str().unwrap_or_default();
                            let (media, data) = url
                                .strip_prefix("data:")
                                .and_then(|r| r.split_once(";base64,"))
                                .unwrap_or(("", ""));
                            push(
                                role,
                                json!({"type": "image", "source": {"type": "base64", "media_type": media, "data": data}}),
                            );
                        }
                        _ => {}
                    }
                }
            }
        }
    }
    let tools: Vec<Value> = request["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|t| json!({"name": t["name"], "description": t["description"], "input_schema": t["parameters"]}))
        .collect();
    json!({
        "model": request["model"],
        "system": request["instructions"].as_str().map(|s| vec![json!({"type": "text", "text": s})]).unwrap_or_default(),
        "messages": messages,
        "tools": tools,
        "stream": request["stream"],
    })
}

/// The stream's events, each with the pause before it, as SSE.
pub fn events(step: usize, response: &StreamResponse, model: &str, id: &str) -> Vec<(Duration, String)> {
    let delay = Duration::from_millis(response.delta_delay_ms);
    let mut out = vec![(
        Duration::from_millis(response.delay_ms),
        json!({"type": "response.created", "response": {"id": id, "model": model, "status": "in_progress"}}),
    )];
    for (index, block) in response.blocks.iter().enumerate() {
        match block {
            BlockSpec::Text { text, .. } => {
                out.push((Duration::ZERO, json!({"type": "response.output_item.added", "output_index": index, "item": {"type": "message", "role": "assistant"}})));
                for piece in text.chunks() {
                    out.push((
                        delay,
                        json!({"type": "response.output_text.delta", "output_index": index, "delta": piece}),
                    ));
                }
                out.push((Duration::ZERO, json!({"type": "response.output_item.done", "output_index": index, "item": {"type": "message"}})));
            }
            BlockSpec::ToolUse {
                id: spec,
                name,
                input,
                raw_input,
                fragments,
                ..
            } => {
                let call_id = tool_use_id(step, index, spec.as_ref());
                out.push((
                    Duration::ZERO,
                    json!({"type": "response.output_item.added", "output_index": index,
                    "item": {"type": "function_call", "call_id": call_id, "name": name, "arguments": ""}}),
                ));
                let arguments = raw_input.clone().unwrap_or_else(|| input.to_string());
                for piece in split_fragments(&arguments, *fragments) {
                    out.push((delay, json!({"type": "response.function_call_arguments.delta", "output_index": index, "delta": piece})));
                }
                out.push((Duration::ZERO, json!({"type": "response.output_item.done", "output_index": index,
                    "item": {"type": "function_call", "call_id": call_id, "name": name, "arguments": arguments}})));
            }
            _ => {}
        }
    }
    let cached = response.usage.cache_read_input_tokens;
    out.push((
        Duration::ZERO,
        json!({"type": "response.completed", "response": {"id": id, "model": model, "status": "completed",
            "usage": {"input_tokens": response.usage.input_tokens + cached, "output_tokens": response.usage.output_tokens,
                      "input_tokens_details": {"cached_tokens": cached}}}}),
    ));
    out.into_iter()
        .map(|(d, v)| {
            let event = v["type"].as_str().unwrap_or_default().to_string();
            (d, format!("event: {event}\ndata: {v}\n\n"))
        })
        .collect()
}
