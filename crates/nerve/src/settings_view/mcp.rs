//! The project's MCP servers in every scope (user, `.mcp.json`, local): which are approved and by
//! which file, their status when started (connected, needs sign-in, failed, not approved), approving
//! a `.mcp.json` server in the user's personal file for the project, and adding, removing, signing
//! in to and out of servers (what `nerve mcp` and the app's MCP settings do).

pub use nerve_protocol::settings::{McpServerStatus, McpServerView};

use std::path::{Path, PathBuf};

use crate::events::EventSink;
use crate::mcp::config::{McpConfigError, McpConfigFiles, McpConfigSource, McpServerConfig, McpTransport};
use crate::mcp::{McpManager, McpOptions, oauth};
use crate::permissions::RuleSource;
use crate::settings::{
    LoadOptions, SettingsError, SettingsLocations, load_all, local_settings_path, set_mcp_server_entry,
    set_mcpjson_server_enabled,
};

/// Why the servers could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum McpViewError {
    /// A settings file is unreadable or invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// `.mcp.json` is unreadable or invalid.
    #[error(transparent)]
    Config(#[from] McpConfigError),
    /// No configured server has this name.
    #[error("no MCP server named {0:?} is configured for this project")]
    Unknown(String),
    /// `--scope` names no scope.
    #[error("unknown scope {0:?}; use local, project or user")]
    Scope(String),
    /// The server exists in this scope already.
    #[error("an MCP server named {name:?} already exists in the {scope} scope ({path}); remove it first")]
    Exists {
        /// The server.
        name: String,
        /// The scope.
        scope: String,
        /// Its file.
        path: String,
    },
    /// Several scopes configure this name, and none was chosen.
    #[error("MCP server {name:?} is configured in several scopes ({scopes}); choose one with --scope")]
    Ambiguous {
        /// The server.
        name: String,
        /// The scopes.
        scopes: String,
    },
    /// Signing in failed, or the server is not one that can be signed in to.
    #[error("{0}")]
    SignIn(String),
}

/// The project's configured servers, the effective one per name (local over project over user),
/// in scope order.
fn effective_servers(files: &McpConfigFiles) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let mut servers: Vec<McpServerConfig> = Vec::new();
    for server in files.all_servers()? {
        servers.retain(|s| s.name != server.name);
        servers.push(server);
    }
    Ok(servers)
}

/// The project's servers with their approval (not started: see [`probe_mcp_servers`]).
pub fn mcp_servers(
    project_root: &Path,
    locations: &SettingsLocations,
    read_claude_settings: bool,
) -> Result<Vec<McpServerView>, McpViewError> {
    let loaded = load_all(project_root, locations, LoadOptions { read_claude_settings })?;
    let local = local_settings_path(project_root);
    let files = config_files(project_root, locations);
    Ok(effective_servers(&files)?
        .into_iter()
        .map(|server| {
            let personal_file = match &server.source {
                McpConfigSource::ProjectFile(_) => None,
                other => Some(other.path().display().to_string()),
            };
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
            let approved_in = personal_file
                .clone()
                .or_else(|| approver.map(|f| f.path.display().to_string()));
            McpServerView {
                scope: server.source.scope().to_string(),
                transport: server.transport.summary(),
                config_file: server.source.path().display().to_string(),
                remote: matches!(server.transport, McpTransport::Http { .. }),
                switchable: personal_file.is_none() && (approver.is_none() || by_name_in_local),
                status: if approved_in.is_some() {
                    McpServerStatus::NotStarted
                } else {
                    McpServerStatus::NotApproved
                },
                approved_in,
                name: server.name,
            }
        })
        .collect())
}

fn config_files(project_root: &Path, locations: &SettingsLocations) -> McpConfigFiles {
    McpConfigFiles::new(
        project_root,
        locations.path_for(RuleSource::UserSettings, project_root),
    )
}

/// [`mcp_servers`], with every approved server started (within the connect timeout), listed and
/// stopped again, so each shows whether it works, needs a sign-in, and which tools it offers.
pub async fn probe_mcp_servers(
    env: &crate::engine_env::EngineEnv,
    project_root: &Path,
    locations: &SettingsLocations,
    read_claude_settings: bool,
) -> Result<Vec<McpServerView>, McpViewError> {
    let mut views = mcp_servers(project_root, locations, read_claude_settings)?;
    let files = config_files(project_root, locations);
    let approved: Vec<_> = effective_servers(&files)?
        .into_iter()
        .filter(|s| views.iter().any(|v| v.name == s.name && v.approved_in.is_some()))
        .collect();
    let manager = McpManager::connect(
        &approved,
        project_root,
        &McpOptions::from_engine_env(env),
        &EventSink::discard(),
    )
    .await;
    let connected = manager.connected();
    for view in &mut views {
        if view.approved_in.is_none() {
            continue;
        }
        let failures: Vec<_> = manager
            .failures()
            .iter()
            .filter(|f| f.server == view.name)
            .collect();
        let error = failures
            .iter()
            .map(|f| f.message.as_str())
            .collect::<Vec<_>>()
            .join("; ");
        view.status = if connected.contains(&view.name) {
            McpServerStatus::Connected {
                tools: manager.tools_of(&view.name),
            }
        } else if failures.iter().any(|f| f.needs_sign_in) {
            McpServerStatus::NeedsSignIn { message: error }
        } else {
            McpServerStatus::Failed {
                error: if error.is_empty() {
                    "the server did not start".to_string()
                } else {
                    error
                },
            }
        };
    }
    manager.shutdown().await;
    Ok(views)
}

/// The configuration entry `nerve mcp add` writes for `transport`, in Claude Code's shape.
pub fn server_entry(transport: &McpTransport) -> serde_json::Value {
    use serde_json::json;
    match transport {
        McpTransport::Stdio { command, args, env } => {
            let mut entry = json!({"type": "stdio", "command": command, "args": args});
            if !env.is_empty() {
                entry["env"] = json!(env);
            }
            entry
        }
        McpTransport::Http { url, headers } | McpTransport::Sse { url, headers } => {
            let kind = if matches!(transport, McpTransport::Sse { .. }) {
                "sse"
            } else {
                "http"
            };
            let mut entry = json!({"type": kind, "url": url});
            if !headers.is_empty() {
                entry["headers"] = json!(headers);
            }
            entry
        }
        McpTransport::Unsupported { kind, url } => json!({"type": kind, "url": url}),
    }
}

/// Adds the server `name` to `scope` (`local`, `project`, `user`); returns the file written. A
/// server of that name already in that scope is an error (remove it first), as in `claude mcp add`.
pub fn add_mcp_server(
    project_root: &Path,
    locations: &SettingsLocations,
    scope: &str,
    name: &str,
    transport: &McpTransport,
) -> Result<PathBuf, McpViewError> {
    let files = config_files(project_root, locations);
    let source = files
        .source(scope)
        .ok_or_else(|| McpViewError::Scope(scope.to_string()))?;
    let path = source.path().to_path_buf();
    let existing = crate::mcp::config::load_config(source)?.unwrap_or_default();
    if existing.iter().any(|s| s.name == name) {
        return Err(McpViewError::Exists {
            name: name.to_string(),
            scope: scope.to_string(),
            path: path.display().to_string(),
        });
    }
    set_mcp_server_entry(&path, name, Some(server_entry(transport)))?;
    Ok(path)
}

/// Removes the server `name` from `scope`, or from the one scope that has it; returns the file.
pub fn remove_mcp_server(
    project_root: &Path,
    locations: &SettingsLocations,
    scope: Option<&str>,
    name: &str,
) -> Result<PathBuf, McpViewError> {
    let files = config_files(project_root, locations);
    let holding: Vec<McpServerConfig> = files
        .all_servers()?
        .into_iter()
        .filter(|s| s.name == name)
        .collect();
    let chosen = match scope {
        Some(scope) => {
            files
                .source(scope)
                .ok_or_else(|| McpViewError::Scope(scope.to_string()))?;
            holding.into_iter().find(|s| s.source.scope() == scope)
        }
        None if holding.len() > 1 => {
            return Err(McpViewError::Ambiguous {
                name: name.to_string(),
                scopes: holding
                    .iter()
                    .map(|s| s.source.scope())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        None => holding.into_iter().next(),
    };
    let server = chosen.ok_or_else(|| McpViewError::Unknown(name.to_string()))?;
    let path = server.source.path().to_path_buf();
    set_mcp_server_entry(&path, name, None)?;
    Ok(path)
}

/// The effective configuration of the server `name`.
pub fn find_mcp_server(
    project_root: &Path,
    locations: &SettingsLocations,
    name: &str,
) -> Result<McpServerConfig, McpViewError> {
    effective_servers(&config_files(project_root, locations))?
        .into_iter()
        .find(|s| s.name == name)
        .ok_or_else(|| McpViewError::Unknown(name.to_string()))
}

/// Signs in to the remote server `name` (see [`oauth::login`]): `open_browser` gets the
/// authorization page's URL. The token goes to the OS keyring under `keyring_service`.
pub async fn mcp_login(
    project_root: &Path,
    locations: &SettingsLocations,
    name: &str,
    keyring_service: &str,
    open_browser: impl FnOnce(&str),
) -> Result<(), McpViewError> {
    let server = find_mcp_server(project_root, locations, name)?;
    let McpTransport::Http { url, .. } = &server.transport else {
        return Err(McpViewError::SignIn(format!(
            "MCP server {name} is reached by {}, not over HTTP: there is nothing to sign in to",
            server.transport.summary()
        )));
    };
    oauth::login(
        url,
        oauth::token_entry(keyring_service, name, url),
        open_browser,
        oauth::LOGIN_TIMEOUT,
    )
    .await
    .map_err(|e| McpViewError::SignIn(e.to_string()))
}

/// Forgets the stored sign-in of the remote server `name`; `false` when there was none.
pub async fn mcp_logout(
    project_root: &Path,
    locations: &SettingsLocations,
    name: &str,
    keyring_service: &str,
) -> Result<bool, McpViewError> {
    let server = find_mcp_server(project_root, locations, name)?;
    let Some(url) = server.transport.url().map(str::to_string) else {
        return Ok(false);
    };
    let entry = oauth::token_entry(keyring_service, name, &url);
    tokio::task::spawn_blocking(move || entry.remove())
        .await
        .map_err(|e| McpViewError::SignIn(e.to_string()))?
        .map_err(|e| McpViewError::SignIn(e.to_string()))
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
