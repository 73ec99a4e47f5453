//! Per-step assertions on the request body.

use serde_json::Value;

use crate::scenario::{Expect, ToolResultExpect};

/// Checks every assertion of `expect`; the error names the first one that failed.
pub fn check(expect: &Expect, body: &Value) -> Result<(), String> {
    if let Some(needle) = &expect.system_contains {
        let system = system_text(body);
        if !system.contains(needle.as_str()) {
            return Err(format!("the system prompt does not contain {needle:?}"));
        }
    }
    if !expect.system_includes.is_empty() || !expect.system_excludes.is_empty() {
        let system = system_text(body);
        if let Some(missing) = expect
            .system_includes
            .iter()
            .find(|n| !system.contains(n.as_str()))
        {
            return Err(format!("the system prompt does not contain {missing:?}"));
        }
        if let Some(present) = expect
            .system_excludes
            .iter()
            .find(|n| system.contains(n.as_str()))
        {
            return Err(format!("the system prompt contains {present:?}"));
        }
    }
    if let Some(count) = expect.tool_count {
        let actual = body.get("tools").and_then(Value::as_array).map_or(0, Vec::len);
        if actual != count {
            return Err(format!("expected {count} tools, the request has {actual}"));
        }
    }
    if !expect.tools_include.is_empty() || !expect.tools_exclude.is_empty() {
        let names: Vec<&str> = body
            .get("tools")
            .and_then(Value::as_array)
            .map(|tools| {
                tools
                    .iter()
                    .filter_map(|t| t.get("name").and_then(Value::as_str))
                    .collect()
            })
            .unwrap_or_default();
        if let Some(missing) = expect.tools_include.iter().find(|t| !names.contains(&t.as_str())) {
            return Err(format!(
                "the request's tools do not include {missing:?} (they are {names:?})"
            ));
        }
        if let Some(present) = expect.tools_exclude.iter().find(|t| names.contains(&t.as_str())) {
            return Err(format!("the request's tools include {present:?}"));
        }
    }
    if let Some(count) = expect.message_count {
        let actual = messages(body).len();
        if actual != count {
            return Err(format!("expected {count} messages, the request has {actual}"));
        }
    }
    if let Some(model) = &expect.model {
        let actual = body.get("model").and_then(Value::as_str).unwrap_or_default();
        if actual != model {
            return Err(format!("expected model {model:?}, the request uses {actual:?}"));
        }
    }
    if let Some(thinking) = &expect.thinking {
        let actual = body.get("thinking").unwrap_or(&Value::Null);
        if actual != thinking {
            return Err(format!("expected thinking {thinking}, the request has {actual}"));
        }
    }
    if let Some(needle) = &expect.last_user_text_contains {
        let text = last_user_message(body)?.map(text_of_content).unwrap_or_default();
        if !text.contains(needle.as_str()) {
            return Err(format!(
                "the last user message's text does not contain {needle:?} (it is {text:?})"
            ));
        }
    }
    if let Some(expected) = &expect.last_user_images {
        let actual: Vec<String> = match last_user_message(body)? {
            Some(Value::Array(blocks)) => blocks
                .iter()
                .filter(|b| b.get("type").and_then(Value::as_str) == Some("image"))
                .map(|b| {
                    b.pointer("/source/media_type")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned()
                })
                .collect(),
            _ => Vec::new(),
        };
        if &actual != expected {
            return Err(format!(
                "expected the last user message to carry images {expected:?}, it carries {actual:?}"
            ));
        }
    }
    if let Some(tool_result) = &expect.tool_result {
        check_tool_result(tool_result, body)?;
    }
    if let Some(needle) = &expect.no_message_contains {
        let found = messages(body)
            .iter()
            .position(|m| m.to_string().contains(needle.as_str()));
        if let Some(index) = found {
            return Err(format!("message {index} contains {needle:?}"));
        }
    }
    Ok(())
}

fn messages(body: &Value) -> &[Value] {
    body.get("messages")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn last_user_message(body: &Value) -> Result<Option<&Value>, String> {
    match messages(body).last() {
        Some(message) if message.get("role").and_then(Value::as_str) == Some("user") => {
            Ok(message.get("content"))
        }
        Some(_) => Err("the last message is not a user message".to_owned()),
        None => Err("the request has no messages".to_owned()),
    }
}

/// Text of a string content or the text blocks of a block list, joined by newlines.
fn text_of_content(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter(|b| b.get("type").and_then(Value::as_str) == Some("text"))
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn system_text(body: &Value) -> String {
    body.get("system").map(text_of_content).unwrap_or_default()
}

/// A scripted answer that uses a server tool (`server_tool_use` blocks) is only possible when the
/// request offered that server tool, as on the real API.
pub fn server_tools_offered(response: &crate::scenario::Response, body: &Value) -> Result<(), String> {
    let crate::scenario::Response::Stream(stream) = response else {
        return Ok(());
    };
    let offered: Vec<&str> = body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter(|t| t.get("type").is_some())
                .filter_map(|t| t["name"].as_str())
                .collect()
        })
        .unwrap_or_default();
    for block in &stream.blocks {
        if let crate::scenario::BlockSpec::ServerToolUse { name, .. } = block
            && !offered.contains(&name.as_str())
        {
            return Err(format!(
                "the answer uses the server tool `{name}`, which the request does not offer"
            ));
        }
    }
    Ok(())
}

fn check_tool_result(expect: &ToolResultExpect, body: &Value) -> Result<(), String> {
    let content = last_user_message(body)?;
    let blocks = content.and_then(Value::as_array).map_or(&[][..], Vec::as_slice);
    let Some(result) = blocks.iter().find(|b| {
        b.get("type").and_then(Value::as_str) == Some("tool_result")
            && b.get("tool_use_id").and_then(Value::as_str) == Some(expect.tool_use_id.as_str())
    }) else {
        return Err(format!(
            "the last user message has no tool_result for {}",
            expect.tool_use_id
        ));
    };
    if let Some(needle) = &expect.contains {
        let text = result.get("content").map(text_of_content).unwrap_or_default();
        if !text.contains(needle.as_str()) {
            return Err(format!(
                "the tool_result for {} does not contain {needle:?} (it is {text:?})",
                expect.tool_use_id
            ));
        }
    }
    if let Some(is_error) = expect.is_error {
        let actual = result.get("is_error").and_then(Value::as_bool).unwrap_or(false);
        if actual != is_error {
            return Err(format!(
                "the tool_result for {} has is_error={actual}, expected {is_error}",
                expect.tool_use_id
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn request() -> Value {
        json!({
            "model": "m", "max_tokens": 5,
            "system": [{"type": "text", "text": "You are Nerve."}],
            "tools": [{"name": "A", "input_schema": {}}],
            "messages": [
                {"role": "user", "content": "go"},
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "A", "input": {}}]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "file.txt"}]},
                    {"type": "text", "text": "and then?"}
                ]}
            ]
        })
    }

    #[test]
    fn matching_expectations_pass() {
        let expect = Expect {
            system_contains: Some("Nerve".into()),
            system_includes: vec!["You are".into(), "Nerve.".into()],
            system_excludes: vec!["Claude".into()],
            tool_count: Some(1),
            message_count: Some(3),
            model: Some("m".into()),
            thinking: Some(serde_json::Value::Null),
            last_user_text_contains: Some("then".into()),
            tool_result: Some(ToolResultExpect {
                tool_use_id: "toolu_1".into(),
                contains: Some("file".into()),
                is_error: Some(false),
            }),
            no_message_contains: Some("rewound".into()),
            last_user_images: Some(Vec::new()),
            tools_include: vec!["A".into()],
            tools_exclude: vec!["B".into()],
        };
        assert_eq!(check(&expect, &request()), Ok(()));
    }

    #[test]
    fn each_mismatch_is_named() {
        let cases = [
            (
                Expect {
                    tool_count: Some(2),
                    ..Expect::default()
                },
                "expected 2 tools, the request has 1",
            ),
            (
                Expect {
                    thinking: Some(json!({"type": "enabled", "budget_tokens": 4000})),
                    ..Expect::default()
                },
                "expected thinking {\"type\":\"enabled\",\"budget_tokens\":4000}, the request has null",
            ),
            (
                Expect {
                    no_message_contains: Some("then".into()),
                    ..Expect::default()
                },
                "message 2 contains \"then\"",
            ),
            (
                Expect {
                    system_contains: Some("Claude".into()),
                    ..Expect::default()
                },
                "the system prompt does not contain \"Claude\"",
            ),
            (
                Expect {
                    system_includes: vec!["You".into(), "plan mode".into()],
                    ..Expect::default()
                },
                "the system prompt does not contain \"plan mode\"",
            ),
            (
                Expect {
                    system_excludes: vec!["Claude".into(), "Nerve".into()],
                    ..Expect::default()
                },
                "the system prompt contains \"Nerve\"",
            ),
            (
                Expect {
                    tool_result: Some(ToolResultExpect {
                        tool_use_id: "toolu_9".into(),
                        contains: None,
                        is_error: None,
                    }),
                    ..Expect::default()
                },
                "the last user message has no tool_result for toolu_9",
            ),
            (
                Expect {
                    tool_result: Some(ToolResultExpect {
                        tool_use_id: "toolu_1".into(),
                        contains: None,
                        is_error: Some(true),
                    }),
                    ..Expect::default()
                },
                "the tool_result for toolu_1 has is_error=false, expected true",
            ),
            (
                Expect {
                    last_user_images: Some(vec!["image/png".into()]),
                    ..Expect::default()
                },
                "expected the last user message to carry images [\"image/png\"], it carries []",
            ),
            (
                Expect {
                    tools_include: vec!["mcp__docs__search".into()],
                    ..Expect::default()
                },
                "the request's tools do not include \"mcp__docs__search\" (they are [\"A\"])",
            ),
            (
                Expect {
                    tools_exclude: vec!["A".into()],
                    ..Expect::default()
                },
                "the request's tools include \"A\"",
            ),
        ];
        for (expect, message) in cases {
            assert_eq!(check(&expect, &request()), Err(message.to_owned()));
        }
    }
}
