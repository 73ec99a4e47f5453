//! Building a Messages API request, with prompt-cache breakpoints where they pay off (the API takes
//! at most four): after the last built-in tool (the stable prefix; external tools come after it),
//! after the system prompt's first block (the guidance, shared by every session with the same
//! tools) and after its last, and on the latest message (so the next request reads the whole
//! conversation from cache).

use bytes::Bytes;
use serde::Serialize;
use serde_json::json;

use crate::model::body::RequestBody;
use crate::model::types::{
    CacheControl, ContentBlock, Message, MessagesRequest, Metadata, SystemBlock, TextBlock, ThinkingConfig,
    ToolDefinition,
};
use crate::registry::ToolSpec;
use crate::tool::ToolOrigin;

/// Builds the request for the next model call.
pub fn build_request(
    model: &str,
    max_tokens: u32,
    system: &[String],
    tools: &[ToolSpec],
    messages: &[Message],
    thinking: Option<ThinkingConfig>,
) -> MessagesRequest {
    let mut system_blocks: Vec<SystemBlock> = system
        .iter()
        .filter(|s| !s.trim().is_empty())
        .map(|s| {
            SystemBlock::Text(TextBlock {
                text: s.clone(),
                cache_control: None,
            })
        })
        .collect();
    // After the first block (the guidance, the same for every session with these tools: a new
    // session reads it from cache) and after the last (the whole prompt).
    if let Some(SystemBlock::Text(first)) = system_blocks.first_mut() {
        first.cache_control = Some(CacheControl::ephemeral());
    }
    if let Some(SystemBlock::Text(last)) = system_blocks.last_mut() {
        last.cache_control = Some(CacheControl::ephemeral());
    }

    let mut definitions: Vec<ToolDefinition> = tools
        .iter()
        .map(|t| ToolDefinition {
            name: t.name.clone(),
            description: Some(t.description.clone()),
            input_schema: t
                .input_schema
                .clone()
                .unwrap_or_else(|| json!({"type": "object"})),
            cache_control: None,
            defer_loading: t.deferred.then_some(true),
        })
        .collect();
    if let Some(last_builtin) = tools
        .iter()
        .rposition(|t| t.origin == ToolOrigin::BuiltIn && !t.deferred)
    {
        definitions[last_builtin].cache_control = Some(CacheControl::ephemeral());
    }

    let mut messages = messages.to_vec();
    if let Some(last) = messages.last_mut() {
        mark_last_cacheable(last);
    }
    MessagesRequest {
        model: model.to_string(),
        max_tokens,
        system: system_blocks,
        messages,
        tools: definitions,
        stream: true,
        thinking,
        metadata: None,
        temperature: None,
    }
}

/// The streamed request's body: `request` with `history` as its messages, written straight from
/// the conversation (only the last message, which carries the cache breakpoint, is copied). The
/// same bytes as serialising [`build_request`] over `history` with `stream: true`, without a deep
/// copy of a conversation that grows all session.
pub fn body_with_history(request: &MessagesRequest, history: &[Message]) -> serde_json::Result<RequestBody> {
    match history.split_last() {
        Some((last, earlier)) => write_body(request, &[], earlier, Some(last)),
        None => write_body(request, &[], &[], None),
    }
}

/// The streamed request's body from its parts: `request`'s fields (its messages ignored), then as
/// its messages `written` (messages already written as JSON, separated by commas: the parts joined,
/// shared rather than copied), `earlier`, and `last` marked as the cache breakpoint.
pub(crate) fn write_body(
    request: &MessagesRequest,
    written: &[Bytes],
    earlier: &[Message],
    last: Option<&Message>,
) -> serde_json::Result<RequestBody> {
    // The request's fields in `MessagesRequest`'s order: those before the messages, the messages,
    // those after; each part written by serde and joined.
    let before = serde_json::to_vec(&Before {
        model: &request.model,
        max_tokens: request.max_tokens,
        system: &request.system,
    })?;
    let after = serde_json::to_vec(&After {
        tools: &request.tools,
        stream: true,
        thinking: request.thinking,
        metadata: request.metadata.as_ref(),
        temperature: request.temperature,
    })?;
    let mut body = RequestBody::default();
    // `{"model":…,"max_tokens":…}` without its closing brace.
    let mut head = before;
    head.pop();
    head.extend_from_slice(b",\"messages\":[");
    body.push(Bytes::from(head));
    for part in written {
        body.push(part.clone());
    }
    let mut first = written.iter().all(|part| part.is_empty());
    let mut tail = Vec::with_capacity(after.len() + 4096);
    let last = last.map(|last| {
        let mut last = last.clone();
        mark_last_cacheable(&mut last);
        last
    });
    for message in earlier.iter().chain(&last) {
        if !first {
            tail.push(b',');
        }
        first = false;
        serde_json::to_writer(&mut tail, message)?;
    }
    tail.push(b']');
    // `{"tools":…,"stream":true…}` without its opening brace.
    tail.push(b',');
    tail.extend_from_slice(&after[1..]);
    body.push(Bytes::from(tail));
    Ok(body)
}

/// [`MessagesRequest`]'s fields before `messages`, with its omissions (`model` and `max_tokens`
/// are always there: the object is never empty).
#[derive(Serialize)]
struct Before<'a> {
    model: &'a str,
    max_tokens: u32,
    #[serde(skip_serializing_if = "<[SystemBlock]>::is_empty")]
    system: &'a [SystemBlock],
}

/// [`MessagesRequest`]'s fields after `messages` (`stream` is always there).
#[derive(Serialize)]
struct After<'a> {
    #[serde(skip_serializing_if = "<[ToolDefinition]>::is_empty")]
    tools: &'a [ToolDefinition],
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    thinking: Option<ThinkingConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metadata: Option<&'a Metadata>,
    #[serde(skip_serializing_if = "Option::is_none")]
    temperature: Option<f32>,
}

pub(crate) fn mark_last_cacheable(message: &mut Message) {
    for block in message.content.iter_mut().rev() {
        let slot = match block {
            ContentBlock::Text(b) => &mut b.cache_control,
            ContentBlock::ToolResult(b) => &mut b.cache_control,
            ContentBlock::ToolUse(b) => &mut b.cache_control,
            ContentBlock::Image(b) => &mut b.cache_control,
            ContentBlock::Document(b) => &mut b.cache_control,
            // Thinking blocks cannot carry a breakpoint; look further back.
            ContentBlock::Thinking(_) | ContentBlock::RedactedThinking(_) => continue,
        };
        *slot = Some(CacheControl::ephemeral());
        return;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::Role;

    /// The borrowed body is byte for byte the request the typed struct would send.
    #[test]
    fn the_body_is_the_built_request_with_stream_on() {
        let tools = [
            spec("Read", ToolOrigin::BuiltIn),
            spec("mcp__x__y", ToolOrigin::Mcp),
        ];
        let history = [
            Message::user_text("hello"),
            Message {
                role: Role::Assistant,
                content: vec![ContentBlock::text("hi"), ContentBlock::text("there")],
            },
            Message::user_text("more \"quoted\" text"),
        ];
        let thinking = Some(ThinkingConfig::Enabled { budget_tokens: 2048 });
        for (system, history) in [
            (vec!["You are Nerve.".to_string()], &history[..]),
            (Vec::new(), &history[..1]),
            (vec!["a".into(), "b".into()], &[][..]),
        ] {
            let mut expected = build_request("m", 100, &system, &tools, history, thinking);
            expected.stream = true;
            let head = build_request("m", 100, &system, &tools, &[], thinking);
            assert_eq!(
                String::from_utf8(body_with_history(&head, history).unwrap().to_vec()).unwrap(),
                serde_json::to_string(&expected).unwrap()
            );
        }
    }

    fn spec(name: &str, origin: ToolOrigin) -> ToolSpec {
        ToolSpec {
            name: name.into(),
            description: "d".into(),
            input_schema: Some(json!({"type": "object"})),
            deferred: false,
            origin,
        }
    }

    #[test]
    fn breakpoints_on_the_system_blocks_last_builtin_and_last_message() {
        let tools = [
            spec("A", ToolOrigin::BuiltIn),
            spec("B", ToolOrigin::BuiltIn),
            spec("mcp__x__y", ToolOrigin::Mcp),
        ];
        let messages = [Message::user_text("hi")];
        let r = build_request(
            "m",
            100,
            &["one".into(), "two".into(), "three".into()],
            &tools,
            &messages,
            None,
        );
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(
            v["system"][0]["cache_control"]["type"], "ephemeral",
            "after the guidance"
        );
        assert!(v["system"][1].get("cache_control").is_none());
        assert_eq!(v["system"][2]["cache_control"]["type"], "ephemeral");
        assert_eq!(
            v.to_string().matches("cache_control").count(),
            4,
            "the API takes at most four breakpoints"
        );
        assert!(v["tools"][0].get("cache_control").is_none());
        assert_eq!(
            v["tools"][1]["cache_control"]["type"], "ephemeral",
            "after the last built-in"
        );
        assert!(v["tools"][2].get("cache_control").is_none());
        assert_eq!(
            v["messages"][0]["content"][0]["cache_control"]["type"],
            "ephemeral"
        );
        assert_eq!(v["stream"], true);
        assert_eq!(r.messages[0].role, Role::User);
    }

    #[test]
    fn deferred_tools_are_sent_by_name() {
        let mut t = spec("Deferred", ToolOrigin::Mcp);
        t.deferred = true;
        t.input_schema = None;
        let r = build_request("m", 100, &[], &[t], &[Message::user_text("x")], None);
        let v = serde_json::to_value(&r).unwrap();
        assert_eq!(v["tools"][0]["defer_loading"], true);
    }
}
