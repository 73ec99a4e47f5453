//! `McpTool`: one tool of a connected MCP server, going through the same pipeline as built-ins.

use std::sync::Arc;

use async_trait::async_trait;
use rmcp::model::Tool as RemoteTool;
use serde_json::{Map, Value};

use crate::mcp::connection::McpConnection;
use crate::mcp::content::result_blocks;
use crate::mcp::names::mcp_tool_name;
use crate::tool::{ProgressSink, ResultBlock, Tool, ToolError, ToolOrigin, ToolOutput, ToolUseContext};

/// Longest server description kept (as Claude Code does: some servers send pages of text).
const MAX_DESCRIPTION_CHARS: usize = 2048;

/// A tool of an MCP server.
#[derive(Debug)]
pub struct McpTool {
    name: String,
    remote_name: String,
    description: String,
    schema: Value,
    read_only: bool,
    destructive: bool,
    /// The server asked for this tool to be sent in full (`_meta["anthropic/alwaysLoad"]: true`).
    always_load: bool,
    max_result_chars: usize,
    connection: Arc<McpConnection>,
}

impl McpTool {
    /// Wraps `remote`, a tool listed by the server behind `connection`.
    ///
    /// The server's annotations are hints from an untrusted party, so only the ones that make a
    /// call more careful are taken at face value, plus `readOnlyHint: true` (which lets the call
    /// run in parallel and is what Claude Code trusts too). `destructiveHint` defaults to true for
    /// a tool that is not read-only, as the MCP specification says.
    pub fn new(remote: &RemoteTool, connection: Arc<McpConnection>, max_result_chars: usize) -> Self {
        let server = connection.name();
        let hints = remote.annotations.as_ref();
        let read_only = hints.and_then(|a| a.read_only_hint) == Some(true);
        let destructive = hints.and_then(|a| a.destructive_hint).unwrap_or(!read_only);
        let text: String = remote
            .description
            .as_deref()
            .unwrap_or("")
            .chars()
            .take(MAX_DESCRIPTION_CHARS)
            .collect();
        Self {
            name: mcp_tool_name(server, &remote.name),
            remote_name: remote.name.to_string(),
            description: format!("[MCP server {server}] {text}").trim_end().to_string(),
            schema: Value::Object(remote.input_schema.as_ref().clone()),
            read_only,
            destructive,
            always_load: remote
                .meta
                .as_ref()
                .and_then(|meta| meta.get("anthropic/alwaysLoad"))
                .and_then(Value::as_bool)
                .unwrap_or(false),
            max_result_chars,
            connection,
        }
    }

    /// The tool's name on its server (before normalisation).
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }

    /// The server's name.
    pub fn server(&self) -> &str {
        self.connection.name()
    }

    /// Calls the tool outside the pipeline (the permission-prompt tool is called this way) and
    /// returns its content; an `isError` result is an [`ToolError::WithContent`].
    pub async fn call_direct(
        &self,
        arguments: Map<String, Value>,
        cancel: &tokio_util::sync::CancellationToken,
    ) -> Result<Vec<ResultBlock>, ToolError> {
        self.call_with_progress(arguments, cancel, None).await
    }

    /// [`McpTool::call_direct`], with the server's progress reports sent to `progress`.
    pub async fn call_with_progress(
        &self,
        arguments: Map<String, Value>,
        cancel: &tokio_util::sync::CancellationToken,
        progress: Option<&ProgressSink>,
    ) -> Result<Vec<ResultBlock>, ToolError> {
        let result = self
            .connection
            .call(&self.remote_name, arguments, cancel, progress)
            .await?;
        let blocks = result_blocks(&result);
        if result.is_error == Some(true) {
            Err(ToolError::WithContent(blocks))
        } else {
            Ok(blocks)
        }
    }
}

#[async_trait]
impl Tool for McpTool {
    type Input = Map<String, Value>;

    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> String {
        self.description.clone()
    }

    fn input_schema(&self) -> Value {
        self.schema.clone()
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(self.max_result_chars)
    }

    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp
    }

    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        self.read_only
    }

    fn is_read_only(&self, _input: &Self::Input) -> bool {
        self.read_only
    }

    fn is_destructive(&self, _input: &Self::Input, _cwd: &std::path::Path) -> bool {
        self.destructive
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn always_load(&self) -> bool {
        self.always_load
    }

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Mcp {
            server: self.server().to_string(),
            tool: self.remote_name.clone(),
        }
    }

    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        format!("{} - {} (MCP)", self.server(), self.remote_name)
    }

    fn summary(&self, input: &Self::Input, _cwd: &std::path::Path) -> String {
        let args = Value::Object(input.clone()).to_string();
        let short: String = args.chars().take(120).collect();
        format!("{}: {}", self.remote_name, short)
    }

    fn classifier_input(&self, input: &Self::Input) -> String {
        format!("{} {}", self.name, Value::Object(input.clone()))
    }

    async fn call(
        &self,
        input: Self::Input,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let content = self
            .call_with_progress(input, &ctx.exec.cancel, Some(progress))
            .await?;
        Ok(ToolOutput {
            content,
            ..ToolOutput::default()
        })
    }
}
