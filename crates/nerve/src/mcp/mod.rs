//! MCP (Model Context Protocol) servers as tool providers.
//!
//! Servers are configured in Claude Code's shape ([`config`]): the project's `.mcp.json` and any
//! `--mcp-config FILE`. `--mcp-config` servers always start. A `.mcp.json` server starts only when
//! the settings approve it, with `"enableAllProjectMcpServers": true` or by name in
//! `"enabledMcpjsonServers": ["name"]`, in the user's or the project-local settings (the shared,
//! committed project settings cannot approve: a cloned repository must not be able to run its own
//! commands).
//!
//! [`McpManager::connect`] starts each server as a child process, initialises it and lists its
//! tools within a timeout; a server that fails is reported and left out. Each tool becomes an
//! [`McpTool`] named `mcp__<server>__<tool>` that goes through the same pipeline, permission rules
//! and hooks as the built-in tools. [`McpPermissionPrompter`] lets an MCP tool answer permission
//! questions (`--permission-prompt-tool`).

pub mod config;
mod connection;
mod content;
mod manager;
mod names;
pub mod oauth;
mod prompt_tool;
mod prompts;
mod resources;
mod sse;
mod tool;

pub use config::{
    McpConfigError, McpConfigFiles, McpConfigSource, McpServerConfig, McpTransport, ProjectServerApproval,
    collect_servers,
};
pub use connection::{ConnectError, ConnectTarget, McpConnection};
pub use manager::{DEFAULT_CONNECT_TIMEOUT, DEFAULT_MAX_RESULT_CHARS, McpManager, McpOptions, ServerFailure};
pub use names::{mcp_tool_name, normalize_name_part};
pub use prompt_tool::McpPermissionPrompter;
pub use prompts::McpPromptCommand;
pub use resources::{ListMcpResourcesTool, ReadMcpResourceTool};
pub use tool::McpTool;
