//! MCP resources as two tools in Claude Code's shape: `ListMcpResourcesTool` lists the resources of
//! every connected server (or one), `ReadMcpResourceTool` reads one by server and URI. Both are
//! deferred like other MCP tools, and offered only when a connected server has resources.

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::ResourceContents;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::mcp::connection::McpConnection;
use crate::tool::{ProgressSink, ResultBlock, Tool, ToolError, ToolOutput, ToolUseContext};

/// Image types the Messages API accepts as image blocks.
const API_IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Input of `ListMcpResourcesTool`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ListResourcesInput {
    /// Only this server's resources (all servers when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<String>,
}

/// Input of `ReadMcpResourceTool`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReadResourceInput {
    /// The server's name.
    pub server: String,
    /// The resource's URI, as `ListMcpResourcesTool` gave it.
    pub uri: String,
}

fn find<'a>(
    connections: &'a [Arc<McpConnection>],
    server: &str,
) -> Result<&'a Arc<McpConnection>, ToolError> {
    connections.iter().find(|c| c.name() == server).ok_or_else(|| {
        let names: Vec<&str> = connections.iter().map(|c| c.name()).collect();
        ToolError::InvalidInput(format!(
            "no connected MCP server is named {server:?}; the connected servers are: {}",
            names.join(", ")
        ))
    })
}

/// `ListMcpResourcesTool`.
#[derive(Debug)]
pub struct ListMcpResourcesTool {
    connections: Vec<Arc<McpConnection>>,
}

impl ListMcpResourcesTool {
    /// Over the servers that offer resources.
    pub fn new(connections: Vec<Arc<McpConnection>>) -> Self {
        Self { connections }
    }
}

#[async_trait]
impl Tool for ListMcpResourcesTool {
    type Input = ListResourcesInput;

    fn name(&self) -> &str {
        "ListMcpResourcesTool"
    }

    fn description(&self) -> String {
        "Lists the resources (files, records, documents) that connected MCP servers offer, with each \
         one's server, URI, name, type and description. Give `server` to list one server's. Read one \
         with ReadMcpResourceTool."
            .to_string()
    }

    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        true
    }

    fn is_read_only(&self, _input: &Self::Input) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        "List MCP resources".to_string()
    }

    fn summary(&self, input: &Self::Input, _cwd: &std::path::Path) -> String {
        input.server.clone().unwrap_or_else(|| "all servers".to_string())
    }

    async fn call(
        &self,
        input: Self::Input,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let servers: Vec<&Arc<McpConnection>> = match &input.server {
            Some(name) => vec![find(&self.connections, name)?],
            None => self.connections.iter().collect(),
        };
        let lists = futures::future::join_all(servers.iter().map(|c| c.list_resources())).await;
        let mut listed = Vec::new();
        let mut failures = Vec::new();
        for (connection, result) in servers.iter().zip(lists) {
            match result {
                Ok(resources) => listed.extend(resources.into_iter().map(|r| {
                    let mut entry = json!({"server": connection.name(), "uri": r.uri, "name": r.name});
                    if let Some(mime) = &r.mime_type {
                        entry["mimeType"] = json!(mime);
                    }
                    if let Some(description) = &r.description {
                        entry["description"] = json!(description);
                    }
                    entry
                })),
                Err(e) => failures.push(format!("{}: {e}", connection.name())),
            }
        }
        if listed.is_empty() && !failures.is_empty() {
            return Err(ToolError::Failed(failures.join("\n")));
        }
        let mut text = if listed.is_empty() {
            "No resources found. MCP servers may still provide tools even if they have no resources."
                .to_string()
        } else {
            serde_json::to_string_pretty(&Value::Array(listed)).unwrap_or_default()
        };
        if !failures.is_empty() {
            text.push_str(&format!(
                "\n\nThese servers could not be listed:\n{}",
                failures.join("\n")
            ));
        }
        Ok(ToolOutput {
            content: vec![ResultBlock::text(text)],
            ..ToolOutput::default()
        })
    }
}

/// `ReadMcpResourceTool`.
#[derive(Debug)]
pub struct ReadMcpResourceTool {
    connections: Vec<Arc<McpConnection>>,
    max_result_chars: usize,
}

impl ReadMcpResourceTool {
    /// Over the servers that offer resources; results over `max_result_chars` are persisted.
    pub fn new(connections: Vec<Arc<McpConnection>>, max_result_chars: usize) -> Self {
        Self {
            connections,
            max_result_chars,
        }
    }
}

/// One content item as blocks: text as text, API images as images, any other binary as a line
/// saying what it is (its bytes would only be noise to the model).
fn content_block(content: &ResourceContents) -> ResultBlock {
    match content {
        ResourceContents::TextResourceContents { uri, text, .. } => {
            ResultBlock::text(format!("{uri}:\n{text}"))
        }
        ResourceContents::BlobResourceContents {
            uri, mime_type, blob, ..
        } => match mime_type.as_deref() {
            Some(mime) if API_IMAGE_TYPES.contains(&mime) => ResultBlock::Image {
                media_type: mime.to_string(),
                data: blob.clone(),
            },
            mime => ResultBlock::text(format!(
                "{uri}: binary content ({}, {} bytes base64-encoded), not shown",
                mime.unwrap_or("unknown type"),
                blob.len()
            )),
        },
        other => ResultBlock::text(serde_json::to_string(other).unwrap_or_default()),
    }
}

#[async_trait]
impl Tool for ReadMcpResourceTool {
    type Input = ReadResourceInput;

    fn name(&self) -> &str {
        "ReadMcpResourceTool"
    }

    fn description(&self) -> String {
        "Reads one resource of a connected MCP server by its server name and URI (as \
         ListMcpResourcesTool lists them)."
            .to_string()
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(self.max_result_chars)
    }

    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        true
    }

    fn is_read_only(&self, _input: &Self::Input) -> bool {
        true
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        "Read MCP resource".to_string()
    }

    fn summary(&self, input: &Self::Input, _cwd: &std::path::Path) -> String {
        format!("{} {}", input.server, input.uri)
    }

    async fn call(
        &self,
        input: Self::Input,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let connection = find(&self.connections, &input.server)?;
        let result = connection.read_resource(&input.uri).await?;
        let mut content: Vec<ResultBlock> = result.contents.iter().map(content_block).collect();
        if content.is_empty() {
            content.push(ResultBlock::text(format!("{} is empty.", input.uri)));
        }
        Ok(ToolOutput {
            content,
            ..ToolOutput::default()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn resource_contents_become_text_images_or_a_description() {
        let text = ResourceContents::TextResourceContents {
            uri: "file:///a.txt".into(),
            mime_type: Some("text/plain".into()),
            text: "hello".into(),
            meta: None,
        };
        assert_eq!(content_block(&text), ResultBlock::text("file:///a.txt:\nhello"));
        let png = ResourceContents::BlobResourceContents {
            uri: "file:///a.png".into(),
            mime_type: Some("image/png".into()),
            blob: "iVBO".into(),
            meta: None,
        };
        assert_eq!(
            content_block(&png),
            ResultBlock::Image {
                media_type: "image/png".into(),
                data: "iVBO".into()
            }
        );
        let zip = ResourceContents::BlobResourceContents {
            uri: "file:///a.zip".into(),
            mime_type: None,
            blob: "AAAA".into(),
            meta: None,
        };
        assert_eq!(
            content_block(&zip),
            ResultBlock::text(
                "file:///a.zip: binary content (unknown type, 4 bytes base64-encoded), not shown"
            )
        );
    }
}
