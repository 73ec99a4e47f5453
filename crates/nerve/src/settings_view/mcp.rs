//! The project's `.mcp.json` servers: which are approved and by which file, their status when
//! started, and approving one in the user's personal file for the project.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::events::EventSink;
use crate::mcp::config::{McpConfigError, McpConfigSource, McpTransport, load_config};
use crate::mcp::{McpManager, McpOptions};
use crate::permissions::RuleSource;
use crate::permissions::settings::{
    LoadOptions, SettingsError, SettingsLocations, load_all, local_settings_path, set_mcpjson_server_enabled,
};

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpServerView {
    /// Its name in `mcpServers`.
    pub name: String,
    /// The file that configures it.
    pub config_file: String,
    /// How it is reached, in one line (`npx -y server --flag`, `http https://...`).
    pub transport: String,
    /// The personal settings file that approves it, when one does.
    pub approved_in: Option<String>,
    /// Whether the approval switch can change it here: approval (and its withdrawal) is written
    /// to the project's local settings, so an approval from another file is shown, not switched.
    pub switchable: bool,
    /// What happened when it was last started (or why it is not).
    pub status: McpServerStatus,
}

/// A server's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerStatus {
    /// `.mcp.json` names it, and no personal settings file approves it: it is never started.
    NotApproved,
    /// Approved, not started yet (the next session starts it).
    NotStarted,
    /// Started, with these tools.
    Connected {
        /// Full tool names (`mcp__server__tool`).
        tools: Vec<String>,
    },
    /// Could not be started or listed.
    Failed {
        /// Why.
        error: String,
    },
}

/// Why the servers could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum McpViewError {
    /// A settings file is unreadable or invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// `.mcp.json` is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] McpConfigError),
}

fn transport_line(transport: &McpTransport) -> String {
    match transport {
        McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        McpTransport::Unsupported { kind, url } => match url {
            Some(url) => format!("{kind} {url}"),
            None => kind.clone(),
        },
    }
}

/// The project's `.mcp.json` servers with their approval (not started: see [`probe_mcp_servers`]).
pub fn mcp_servers(
    project_root: &Path,
    locations: &SettingsLocations,
    read_claude_settings: bool,
) -> Result<Vec<McpServerView>, McpViewError> {
    let loaded = load_all(project_root, locations, LoadOptions { read_claude_settings })?;
    let local = local_settings_path(project_root);
    let config = McpConfigSource::ProjectFile(project_root.join(".mcp.json"));
    let servers = load_config(config)?.unwrap_or_default();
    Ok(servers
        .into_iter()
        .map(|server| {
            // The same personal files as `LoadedSettings::project_mcp_approval`, highest first.
            let approver = loaded.files().iter().find(|f| {
                let personal = match f.source {
                    RuleSource::ProjectSettings | RuleSource::ClaudeProjectSettings => false,
                    RuleSource::Managed
                    | RuleSource::CliArg
                    | RuleSource::Session
                    | RuleSource::LocalSettings
                    | RuleSource::UserSettings
                    | RuleSource::ClaudeLocalSettings => true,
                };
                personal
                    && (f.enable_all_project_mcp_servers == Some(true)
                        || f.enabled_mcpjson_servers.contains(&server.name))
            });
            let by_name_in_local =
                approver.is_some_and(|f| f.path == local && f.enable_all_project_mcp_servers != Some(true));
            McpServerView {
                transport: transport_line(&server.transport),
                config_file: server.source.path().display().to_string(),
                approved_in: approver.map(|f| f.path.display().to_string()),
                switchable: approver.is_none() || by_name_in_local,
                status: if approver.is_some() {
                    McpServerStatus::NotStarted
                } else {
                    McpServerStatus::NotApproved
                },
                name: server.name,
            }
        })
        .collect())
}

/// [`mcp_servers`], with every approved server started (within the connect timeout), listed and
/// stopped again, so each shows whether it works and which tools it offers.
pub async fn probe_mcp_servers(
    project_root: &Path,
    locations: &SettingsLocations,
    read_claude_settings: bool,
) -> Result<Vec<McpServerView>, McpViewError> {
    let mut views = mcp_servers(project_root, locations, read_claude_settings)?;
    let config = McpConfigSource::ProjectFile(project_root.join(".mcp.json"));
    let approved: Vec<_> = load_config(config)?
        .unwrap_or_default()
        .into_iter()
        .filter(|s| views.iter().any(|v| v.name == s.name && v.approved_in.is_some()))
        .collect();
    let manager = McpManager::connect(
        &approved,
        project_root,
        &McpOptions::from_env(),
        &EventSink::discard(),
    )
    .await;
    let connected = manager.connected();
    for view in &mut views {
        if view.approved_in.is_none() {
            continue;
        }
        let failures: Vec<&str> = manager
            .failures()
            .iter()
            .filter(|f| f.server == view.name)
            .map(|f| f.message.as_str())
            .collect();
        view.status = if connected.contains(&view.name) {
            McpServerStatus::Connected {
                tools: manager.tools_of(&view.name),
            }
        } else {
            McpServerStatus::Failed {
                error: if failures.is_empty() {
                    "the server did not start".to_string()
                } else {
                    failures.join("; ")
                },
            }
        };
    }
    manager.shutdown().await;
    Ok(views)
}

/// Approves (or withdraws the approval of) the project's `.mcp.json` server `name` in the
/// project's local settings file, never in the committed project file. Returns that file's path.
pub fn set_mcp_server_approved(
    project_root: &Path,
    name: &str,
    approved: bool,
) -> Result<PathBuf, SettingsError> {
    let path = local_settings_path(project_root);
    set_mcpjson_server_enabled(&path, name, approved)?;
    Ok(path)
}
