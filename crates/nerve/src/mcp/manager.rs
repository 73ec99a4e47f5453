//! Connects a session's MCP servers and keeps them until the session ends.

use std::collections::HashSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use crate::events::{Event, EventSink};
use crate::input::CompiledSchema;
use crate::mcp::config::McpServerConfig;
use crate::mcp::connection::{ConnectError, ConnectTarget, McpConnection};
use crate::mcp::prompts::{McpPromptCommand, find_command};
use crate::mcp::resources::{ListMcpResourcesTool, ReadMcpResourceTool};
use crate::mcp::tool::McpTool;
use crate::slash_commands::SlashCommand;
use crate::tool::ToolRef;

/// Default time a server gets to start, initialise and list its tools.
pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default size above which an MCP result is persisted and previewed.
pub const DEFAULT_MAX_RESULT_CHARS: usize = 25_000;

/// Tunables of MCP connections.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOptions {
    /// How long a server may take to start and list its tools.
    pub connect_timeout: Duration,
    /// [`crate::tool::Tool::max_result_size_chars`] of every MCP tool.
    pub max_result_chars: usize,
    /// The keyring service OAuth tokens are kept under ([`crate::mcp::oauth::KEYRING_SERVICE`]).
    pub keyring_service: String,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            connect_timeout: DEFAULT_CONNECT_TIMEOUT,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS,
            keyring_service: crate::mcp::oauth::KEYRING_SERVICE.to_string(),
        }
    }
}

impl McpOptions {
    /// The defaults, overridden by `NERVE_MCP_CONNECT_TIMEOUT_MS`, `NERVE_MCP_MAX_RESULT_CHARS` and
    /// `NERVE_MCP_KEYRING_SERVICE` as `env` has them.
    pub fn from_engine_env(env: &crate::engine_env::EngineEnv) -> Self {
        let mut options = Self::default();
        if let Some(ms) = env.mcp_connect_timeout_ms {
            options.connect_timeout = Duration::from_millis(ms);
        }
        if let Some(n) = env.mcp_max_result_chars {
            options.max_result_chars = n;
        }
        if let Some(service) = &env.mcp_keyring_service {
            options.keyring_service = service.clone();
        }
        options
    }

    /// What a connection to `server` needs.
    pub fn target(&self, server: &McpServerConfig, cwd: &Path) -> ConnectTarget {
        ConnectTarget {
            name: server.name.clone(),
            transport: server.transport.clone(),
            cwd: cwd.to_path_buf(),
            timeout: self.connect_timeout,
            keyring_service: self.keyring_service.clone(),
        }
    }
}

/// The Messages API's longest tool name.
const MAX_TOOL_NAME_CHARS: usize = 64;

/// Why a tool cannot be offered to the model. The API rejects a whole request over one bad tool,
/// so a tool it would reject is left out rather than breaking every turn.
fn unusable_reason(name: &str, schema: &serde_json::Value) -> Option<String> {
    if name.chars().count() > MAX_TOOL_NAME_CHARS {
        return Some(format!(
            "its full name {name} is longer than the {MAX_TOOL_NAME_CHARS} characters the API accepts \
             (shorten the server's name in the MCP config)"
        ));
    }
    if schema.get("type").and_then(serde_json::Value::as_str) != Some("object") {
        return Some("its input schema is not of \"type\": \"object\", which the API requires".into());
    }
    CompiledSchema::compile(name, schema)
        .err()
        .map(|e| format!("its input schema is invalid: {e}"))
}

/// A server (or one of its tools) that could not be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerFailure {
    /// The server's name.
    pub server: String,
    /// What happened, for the user.
    pub message: String,
    /// The server needs an OAuth sign-in before it can be used.
    pub needs_sign_in: bool,
}

/// The session's MCP servers and their tools.
#[derive(Debug, Default)]
pub struct McpManager {
    connections: Vec<Arc<McpConnection>>,
    /// Behind a lock: a server's `list_changed` replaces its tools between turns.
    tools: std::sync::Mutex<Vec<Arc<McpTool>>>,
    prompts: Vec<McpPromptCommand>,
    max_result_chars: usize,
    failures: Vec<ServerFailure>,
}

impl McpManager {
    /// Starts every server at once and waits for all of them (each within the connect timeout).
    /// A server that fails is reported through a [`Event::Notice`] and in
    /// [`McpManager::failures`]; its tools are simply absent.
    pub async fn connect(
        servers: &[McpServerConfig],
        cwd: &Path,
        options: &McpOptions,
        events: &EventSink,
    ) -> Self {
        let starts = servers
            .iter()
            .map(|s| McpConnection::start(options.target(s, cwd)));
        let results = futures::future::join_all(starts).await;
        let mut manager = Self {
            max_result_chars: options.max_result_chars,
            ..Self::default()
        };
        for (server, result) in servers.iter().zip(results) {
            match result {
                Ok((connection, remote_tools)) => {
                    manager.add_tools(&connection, &remote_tools, options);
                    manager.connections.push(connection);
                }
                Err(error) => manager.failures.push(ServerFailure {
                    server: server.name.clone(),
                    needs_sign_in: matches!(error, ConnectError::NeedsSignIn(_)),
                    message: error.message().to_string(),
                }),
            }
        }
        manager.list_prompts(options.connect_timeout).await;
        for f in &manager.failures {
            events.emit(Event::Notice {
                message: f.message.clone(),
            });
        }
        manager
    }

    /// Lists the prompts of the servers that offer them (a server that fails to list them keeps
    /// its tools; the failure is reported).
    async fn list_prompts(&mut self, timeout: Duration) {
        let offering: Vec<Arc<McpConnection>> = self
            .connections
            .iter()
            .filter(|c| c.offers().1)
            .cloned()
            .collect();
        let lists = futures::future::join_all(
            offering
                .iter()
                .map(|c| tokio::time::timeout(timeout, c.list_prompts())),
        )
        .await;
        for (connection, listed) in offering.into_iter().zip(lists) {
            match listed {
                Ok(Ok(prompts)) => self.prompts.extend(
                    prompts
                        .into_iter()
                        .map(|p| McpPromptCommand::new(Arc::clone(&connection), p)),
                ),
                Ok(Err(e)) => self.failures.push(ServerFailure {
                    server: connection.name().to_string(),
                    message: format!(
                        "the prompts of MCP server {} could not be listed: {e}",
                        connection.name()
                    ),
                    needs_sign_in: false,
                }),
                Err(_) => self.failures.push(ServerFailure {
                    server: connection.name().to_string(),
                    message: format!(
                        "MCP server {} did not list its prompts in time",
                        connection.name()
                    ),
                    needs_sign_in: false,
                }),
            }
        }
    }

    /// The servers' prompts as slash commands.
    pub fn prompt_commands(&self) -> Vec<SlashCommand> {
        self.prompts.iter().map(McpPromptCommand::listing).collect()
    }

    /// If `prompt` is `/mcp__server__prompt args`, the server's prompt for it (or why it could not
    /// be had); `None` for any other text.
    pub async fn expand_prompt(&self, prompt: &str) -> Option<Result<String, crate::tool::ToolError>> {
        let (command, args) = find_command(&self.prompts, prompt)?;
        Some(command.expand(args).await)
    }

    /// Keeps the tools whose schema compiles and whose normalised name is new; a server's bad tool
    /// must not take the session's whole tool pool down.
    fn add_tools(
        &mut self,
        connection: &Arc<McpConnection>,
        remote_tools: &[rmcp::model::Tool],
        options: &McpOptions,
    ) {
        let mut tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut names: HashSet<String> = tools
            .iter()
            .map(|t| crate::tool::Tool::name(t.as_ref()).to_string())
            .collect();
        for remote in remote_tools {
            let tool = McpTool::new(remote, Arc::clone(connection), options.max_result_chars);
            let name = crate::tool::Tool::name(&tool).to_string();
            let schema = crate::tool::Tool::input_schema(&tool);
            if let Some(reason) = unusable_reason(&name, &schema) {
                self.failures.push(ServerFailure {
                    server: connection.name().to_string(),
                    needs_sign_in: false,
                    message: format!(
                        "MCP tool `{}` of server {} was skipped: {reason}",
                        remote.name,
                        connection.name()
                    ),
                });
                continue;
            }
            if !names.insert(name.clone()) {
                self.failures.push(ServerFailure {
                    server: connection.name().to_string(),
                    needs_sign_in: false,
                    message: format!(
                        "MCP tool `{}` of server {} was skipped: another tool already has the name {name}",
                        remote.name,
                        connection.name()
                    ),
                });
                continue;
            }
            tools.push(Arc::new(tool));
        }
    }

    /// Every usable tool, for [`crate::registry::assemble_tool_pool`]'s `external`: the servers'
    /// tools, and the two resource tools when a connected server offers resources.
    pub fn tools(&self) -> Vec<ToolRef> {
        let mut tools: Vec<ToolRef> = self.current_tools().into_iter().map(|t| t as ToolRef).collect();
        let with_resources: Vec<Arc<McpConnection>> = self
            .connections
            .iter()
            .filter(|c| c.offers().0)
            .cloned()
            .collect();
        if !with_resources.is_empty() {
            tools.push(Arc::new(ListMcpResourcesTool::new(with_resources.clone())));
            tools.push(Arc::new(ReadMcpResourceTool::new(
                with_resources,
                self.max_result_chars,
            )));
        }
        tools
    }

    /// A tool by its full name (`mcp__server__tool`).
    pub fn find_tool(&self, name: &str) -> Option<Arc<McpTool>> {
        self.current_tools()
            .into_iter()
            .find(|t| crate::tool::Tool::name(t.as_ref()) == name)
    }

    /// The last lines `server` wrote to stderr, if it is connected.
    pub fn stderr_of(&self, server: &str) -> Vec<String> {
        self.connections
            .iter()
            .find(|c| c.name() == server)
            .map(|c| c.stderr_lines())
            .unwrap_or_default()
    }

    /// The full names of `server`'s usable tools.
    pub fn tools_of(&self, server: &str) -> Vec<String> {
        self.current_tools()
            .iter()
            .filter(|t| t.server() == server)
            .map(|t| crate::tool::Tool::name(t.as_ref()).to_string())
            .collect()
    }

    fn current_tools(&self) -> Vec<Arc<McpTool>> {
        self.tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Lists again the tools of every server that sent `notifications/tools/list_changed` since
    /// the last look, and returns the new [`McpManager::tools`] when anything changed (`None`
    /// otherwise). Called between turns, never during one. The order of the earlier tools is kept
    /// (a changed tool stays where it was, a removed one goes, new ones come last), so the request
    /// prefix the API has cached stays as long as it can.
    pub async fn refresh_changed_tools(&self) -> Option<Vec<ToolRef>> {
        let changed: Vec<Arc<McpConnection>> = self
            .connections
            .iter()
            .filter(|c| c.notices().take_tools_changed())
            .cloned()
            .collect();
        if changed.is_empty() {
            return None;
        }
        let mut fresh: Vec<(Arc<McpConnection>, Vec<rmcp::model::Tool>)> = Vec::new();
        for connection in changed {
            match connection.list_tools().await {
                Ok(remote) => fresh.push((connection, remote)),
                // The old list stays; the next call of a vanished tool says so itself.
                Err(e) => tracing::warn!(
                    "MCP server {} changed its tools but could not list them: {e}",
                    connection.name()
                ),
            }
        }
        if fresh.is_empty() {
            return None;
        }
        let max_result_chars = self.max_result_chars;
        let mut tools = self
            .tools
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut kept: Vec<Arc<McpTool>> = Vec::new();
        for tool in tools.iter() {
            match fresh.iter().find(|(c, _)| c.name() == tool.server()) {
                None => kept.push(Arc::clone(tool)),
                Some((connection, remote)) => {
                    if let Some(r) = remote.iter().find(|r| r.name.as_ref() == tool.remote_name()) {
                        kept.push(Arc::new(McpTool::new(
                            r,
                            Arc::clone(connection),
                            max_result_chars,
                        )));
                    }
                }
            }
        }
        let mut names: HashSet<String> = kept
            .iter()
            .map(|t| crate::tool::Tool::name(t.as_ref()).to_string())
            .collect();
        for (connection, remote) in &fresh {
            for r in remote {
                let tool = McpTool::new(r, Arc::clone(connection), max_result_chars);
                let name = crate::tool::Tool::name(&tool).to_string();
                let schema = crate::tool::Tool::input_schema(&tool);
                if unusable_reason(&name, &schema).is_none() && names.insert(name) {
                    kept.push(Arc::new(tool));
                }
            }
        }
        *tools = kept;
        drop(tools);
        Some(self.tools())
    }

    /// The connected servers.
    pub fn connections(&self) -> &[Arc<McpConnection>] {
        &self.connections
    }

    /// The names of the connected servers.
    pub fn connected(&self) -> Vec<String> {
        self.connections.iter().map(|c| c.name().to_string()).collect()
    }

    /// What could not be used.
    pub fn failures(&self) -> &[ServerFailure] {
        &self.failures
    }

    /// Stops every server (each is asked to exit, then killed).
    pub async fn shutdown(&self) {
        futures::future::join_all(self.connections.iter().map(|c| c.shutdown())).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn tools_the_api_would_reject_are_unusable() {
        let object = json!({"type": "object", "properties": {"a": {"type": "string"}}});
        assert_eq!(unusable_reason("mcp__s__t", &object), None);
        let long = format!("mcp__s__{}", "t".repeat(60));
        assert!(
            unusable_reason(&long, &object)
                .unwrap()
                .contains("longer than the 64")
        );
        assert!(
            unusable_reason("mcp__s__t", &json!({"type": "string"}))
                .unwrap()
                .contains("\"object\"")
        );
        assert!(unusable_reason("mcp__s__t", &json!({})).is_some());
        let bad = json!({"type": "object", "properties": {"a": {"type": 5}}});
        assert!(unusable_reason("mcp__s__t", &bad).unwrap().contains("invalid"));
    }

    #[test]
    fn options_default_to_30_s_and_25_000_chars_and_read_the_environment() {
        use crate::engine_env::EngineEnv;
        assert_eq!(
            McpOptions::from_engine_env(&EngineEnv::default()),
            McpOptions {
                connect_timeout: Duration::from_secs(30),
                max_result_chars: 25_000,
                keyring_service: "nerve-mcp-oauth".to_string(),
            }
        );
        let env = |k: &str| match k {
            "NERVE_MCP_CONNECT_TIMEOUT_MS" => Some("1500".to_string()),
            "NERVE_MCP_MAX_RESULT_CHARS" => Some(" 1000 ".to_string()),
            _ => None,
        };
        assert_eq!(
            McpOptions::from_engine_env(&EngineEnv::from_lookup(env)),
            McpOptions {
                connect_timeout: Duration::from_millis(1500),
                max_result_chars: 1000,
                keyring_service: "nerve-mcp-oauth".to_string(),
            }
        );
        let bad = |k: &str| (k != "NERVE_MCP_KEYRING_SERVICE").then(|| "0".to_string());
        assert_eq!(
            McpOptions::from_engine_env(&EngineEnv::from_lookup(bad)),
            McpOptions::default()
        );
    }
}
