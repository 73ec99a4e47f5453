//! `--permission-prompt-tool`: permission questions answered by an MCP tool instead of a person,
//! with Claude Code's protocol.
//!
//! The tool is called with `{"tool_name", "input", "tool_use_id"}` and must answer with one text
//! block holding JSON: `{"behavior": "allow", "updatedInput"?: {...}}` or
//! `{"behavior": "deny", "message"?: "..."}`. Anything else (an error result, no JSON, another
//! behaviour, the server gone) denies the call, with the reason sent to the model.

use std::sync::Arc;

use async_trait::async_trait;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

use crate::mcp::tool::McpTool;
use crate::permissions::{PermissionPrompter, PermissionRequest, UserAnswer};
use crate::tool::Tool;
use crate::tool::text_of;

/// Answers permission requests by calling an MCP tool.
#[derive(Debug)]
pub struct McpPermissionPrompter {
    tool: Arc<McpTool>,
}

impl McpPermissionPrompter {
    /// A prompter calling `tool`.
    pub fn new(tool: Arc<McpTool>) -> Self {
        Self { tool }
    }
}

#[derive(Deserialize)]
#[serde(tag = "behavior", rename_all = "lowercase")]
enum PromptAnswer {
    Allow {
        #[serde(default, rename = "updatedInput")]
        updated_input: Option<Map<String, Value>>,
    },
    Deny {
        #[serde(default)]
        message: Option<String>,
    },
}

/// Reads the tool's text answer.
pub(crate) fn interpret(tool_name: &str, text: &str) -> UserAnswer {
    match serde_json::from_str::<PromptAnswer>(text.trim()) {
        Ok(PromptAnswer::Allow { updated_input }) => UserAnswer::AllowOnce {
            updated_input: updated_input.map(Value::Object),
        },
        Ok(PromptAnswer::Deny { message }) => UserAnswer::Deny {
            message: Some(
                message.unwrap_or_else(|| format!("the permission prompt tool {tool_name} denied this call")),
            ),
        },
        Err(e) => UserAnswer::Deny {
            message: Some(format!(
                "the permission prompt tool {tool_name} gave an answer that is not \
                 {{\"behavior\": \"allow\"|\"deny\", ...}} JSON ({e}), so the call was denied: {}",
                text.chars().take(200).collect::<String>()
            )),
        },
    }
}

#[async_trait]
impl PermissionPrompter for McpPermissionPrompter {
    async fn ask(&self, request: PermissionRequest) -> UserAnswer {
        let name = self.tool.name().to_string();
        let mut args = Map::new();
        args.insert("tool_name".into(), json!(request.tool_name));
        args.insert("input".into(), request.input.clone());
        args.insert("tool_use_id".into(), json!(request.tool_use_id));
        match self.tool.call_direct(args, &CancellationToken::new()).await {
            Ok(blocks) => interpret(&name, &text_of(&blocks)),
            Err(e) => UserAnswer::Deny {
                message: Some(format!(
                    "the permission prompt tool {name} failed, so the call was denied: {e}"
                )),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn reads_allow_and_deny() {
        assert_eq!(
            interpret("p", r#"{"behavior": "allow", "updatedInput": {"a": 1}}"#),
            UserAnswer::AllowOnce {
                updated_input: Some(json!({"a": 1}))
            }
        );
        assert_eq!(
            interpret("p", r#"{"behavior": "allow"}"#),
            UserAnswer::AllowOnce { updated_input: None }
        );
        assert_eq!(
            interpret("p", r#"{"behavior": "deny", "message": "no"}"#),
            UserAnswer::Deny {
                message: Some("no".into())
            }
        );
    }

    #[test]
    fn anything_else_denies_with_a_reason() {
        for text in [
            "yes",
            r#"{"behavior": "maybe"}"#,
            r#"{"behavior": "allow", "updatedInput": 3}"#,
            "",
        ] {
            let UserAnswer::Deny { message: Some(m) } = interpret("mcp__t__approve", text) else {
                panic!("{text} did not deny");
            };
            assert!(m.contains("mcp__t__approve") && m.contains("denied"), "{m}");
        }
    }
}
