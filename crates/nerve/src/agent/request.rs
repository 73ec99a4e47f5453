//! Building a Messages API request, with prompt-cache breakpoints where they pay off: after the
//! system prompt, after the last built-in tool (the stable prefix; external tools come after it),
//! and on the latest message (so the next request reads the whole conversation from cache).

use serde_json::json;

use crate::model::types::{
    CacheControl, ContentBlock, Message, MessagesRequest, SystemBlock, TextBlock, ThinkingConfig,
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

fn mark_last_cacheable(message: &mut Message) {
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
    fn breakpoints_on_system_last_builtin_and_last_message() {
        let tools = [
            spec("A", ToolOrigin::BuiltIn),
            spec("B", ToolOrigin::BuiltIn),
            spec("mcp__x__y", ToolOrigin::Mcp),
        ];
        let messages = [Message::user_text("hi")];
        let r = build_request("m", 100, &["one".into(), "two".into()], &tools, &messages, None);
        let v = serde_json::to_value(&r).unwrap();
        assert!(v["system"][0].get("cache_control").is_none());
        assert_eq!(v["system"][1]["cache_control"]["type"], "ephemeral");
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
