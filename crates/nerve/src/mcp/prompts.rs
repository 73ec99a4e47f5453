//! MCP prompts as slash commands, as Claude Code names them: `/mcp__<server>__<prompt> args`. The
//! words after the name fill the prompt's arguments in the order the server declares them (the
//! last argument takes the rest of the line); the server's messages become the prompt the model
//! gets. A prompt's text comes from the server: untrusted like any prompt, and every tool call it
//! leads to is still checked.

use std::sync::Arc;

use rmcp::model::{ContentBlock, Prompt as RemotePrompt, Role};
use serde_json::{Map, Value};

use crate::mcp::connection::McpConnection;
use crate::mcp::names::mcp_tool_name;
use crate::slash_commands::{CommandSource, SlashCommand};
use crate::tool::ToolError;

/// One server's prompt, offered as a command.
#[derive(Debug, Clone)]
pub struct McpPromptCommand {
    /// `mcp__<server>__<prompt>`.
    pub name: String,
    connection: Arc<McpConnection>,
    prompt: RemotePrompt,
}

impl McpPromptCommand {
    /// The prompt `prompt` of `connection`.
    pub fn new(connection: Arc<McpConnection>, prompt: RemotePrompt) -> Self {
        Self {
            name: mcp_tool_name(connection.name(), &prompt.name),
            connection,
            prompt,
        }
    }

    /// How a front-end lists it.
    pub fn listing(&self) -> SlashCommand {
        let hint: Vec<String> = self
            .prompt
            .arguments
            .iter()
            .flatten()
            .map(|a| {
                if a.required == Some(true) {
                    format!("<{}>", a.name)
                } else {
                    format!("[{}]", a.name)
                }
            })
            .collect();
        SlashCommand {
            name: self.name.clone(),
            description: self
                .prompt
                .description
                .clone()
                .or_else(|| self.prompt.title.clone())
                .unwrap_or_else(|| {
                    format!(
                        "Prompt {} of MCP server {}",
                        self.prompt.name,
                        self.connection.name()
                    )
                }),
            argument_hint: (!hint.is_empty()).then(|| hint.join(" ")),
            source: CommandSource::Mcp,
        }
    }

    /// The arguments for `line`: one word each, in declared order, the last taking the rest. A
    /// missing required argument is an error naming it.
    fn arguments(&self, line: &str) -> Result<Map<String, Value>, ToolError> {
        let declared = self.prompt.arguments.as_deref().unwrap_or_default();
        let mut map = Map::new();
        let mut rest = line.trim();
        for (i, argument) in declared.iter().enumerate() {
            if rest.is_empty() {
                if argument.required == Some(true) {
                    return Err(ToolError::InvalidInput(format!(
                        "/{} needs the argument `{}`{}",
                        self.name,
                        argument.name,
                        argument
                            .description
                            .as_deref()
                            .map_or(String::new(), |d| format!(" ({d})"))
                    )));
                }
                continue;
            }
            let value = if i + 1 == declared.len() {
                std::mem::take(&mut rest)
            } else {
                let (word, after) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
                rest = after.trim_start();
                word
            };
            map.insert(argument.name.clone(), Value::String(value.to_string()));
        }
        Ok(map)
    }

    /// Gets the prompt with `line`'s arguments and returns it as one prompt text.
    pub async fn expand(&self, line: &str) -> Result<String, ToolError> {
        let arguments = self.arguments(line)?;
        let result = self.connection.get_prompt(&self.prompt.name, arguments).await?;
        let parts: Vec<String> = result
            .messages
            .iter()
            .map(|m| {
                let text = content_text(&m.content);
                match m.role {
                    Role::User => text,
                    Role::Assistant => format!("(assistant) {text}"),
                }
            })
            .collect();
        Ok(parts.join("\n\n"))
    }
}

fn content_text(content: &ContentBlock) -> String {
    match content {
        ContentBlock::Text(t) => t.text.clone(),
        ContentBlock::Resource(r) => match &r.resource {
            rmcp::model::ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("{uri}:\n{text}")
            }
            rmcp::model::ResourceContents::BlobResourceContents { uri, mime_type, .. } => format!(
                "{uri}: binary content ({})",
                mime_type.as_deref().unwrap_or("unknown type")
            ),
            other => serde_json::to_string(other).unwrap_or_default(),
        },
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// If `prompt` is `/mcp__server__name args` for one of `commands`, that command and its arguments.
pub fn find_command<'a>(
    commands: &'a [McpPromptCommand],
    prompt: &'a str,
) -> Option<(&'a McpPromptCommand, &'a str)> {
    let rest = prompt.trim_start().strip_prefix('/')?;
    let (name, args) = match rest.split_once(char::is_whitespace) {
        Some((name, args)) => (name, args.trim()),
        None => (rest.trim_end(), ""),
    };
    commands.iter().find(|c| c.name == name).map(|c| (c, args))
}
