//! The project's MCP servers in every scope (user, `.mcp.json`, local): which are approved and by
//! which file, their status when started (connected, needs sign-in, failed, not approved), approving
//! a `.mcp.json` server in the user's personal file for the project, and adding, removing, signing
//! in to and out of servers (what `nerve mcp` and the app's MCP settings do).

pub use nerve_protocol::settings::{
    McpImportReport, McpImportSkip, McpImportSource, McpServerSpec, McpServerStatus, McpServerView,
};

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
    /// A server's configuration cannot be used.
    #[error("{0}")]
    Invalid(String),
    /// A name a server cannot have.
    #[error("{0:?} cannot name an MCP server: use letters, digits, '-' and '_'")]
    BadName(String),
    /// Another program's configuration could not be read.
    #[error("could not read {path}: {message}")]
    Foreign {
        /// The file.
        path: String,
        /// Why.
        message: String,
    },
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
    let raw = raw_servers(&files)?;
    let disabled = loaded.project_mcp_approval().disabled;
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
            let spec = raw
                .iter()
                .find(|r| r.name == server.name && r.source == server.source)
                .and_then(|r| spec_of(&r.transport));
            McpServerView {
                spec,
                tools_off: Vec::new(),
                stderr: Vec::new(),
                enabled: !disabled.contains(&server.name),
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

/// Every scope's servers as written (`${VAR}`s unexpanded).
fn raw_servers(files: &McpConfigFiles) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let mut all = Vec::new();
    for scope in ["user", "project", "local"] {
        if let Some(source) = files.source(scope) {
            all.extend(crate::mcp::config::load_raw_config(source)?.unwrap_or_default());
        }
    }
    Ok(all)
}

/// A transport as the app edits it (`None`: one it cannot, `ws`).
pub fn spec_of(transport: &McpTransport) -> Option<McpServerSpec> {
    match transport {
        McpTransport::Stdio { command, args, env } => Some(McpServerSpec::Stdio {
            command: command.clone(),
            args: args.clone(),
            env: env.clone(),
        }),
        McpTransport::Http { url, headers } => Some(McpServerSpec::Http {
            url: url.clone(),
            headers: headers.clone(),
        }),
        McpTransport::Sse { url, headers } => Some(McpServerSpec::Sse {
            url: url.clone(),
            headers: headers.clone(),
        }),
        McpTransport::Unsupported { .. } => None,
    }
}

/// The transport an edited `spec` describes, refusing what cannot start (no command, a URL that
/// is not http or https).
pub fn transport_of(spec: &McpServerSpec) -> Result<McpTransport, McpViewError> {
    let url_ok = |url: &str| {
        let url = url.trim();
        url.starts_with("http://") || url.starts_with("https://") || url.starts_with("${")
    };
    match spec {
        McpServerSpec::Stdio { command, args, env } => {
            if command.trim().is_empty() {
                return Err(McpViewError::Invalid("a stdio server needs a command".into()));
            }
            Ok(McpTransport::Stdio {
                command: command.trim().to_string(),
                args: args.clone(),
                env: env.clone(),
            })
        }
        McpServerSpec::Http { url, headers } | McpServerSpec::Sse { url, headers } => {
            if !url_ok(url) {
                return Err(McpViewError::Invalid(format!(
                    "{url:?} is not an http or https URL"
                )));
            }
            let (url, headers) = (url.trim().to_string(), headers.clone());
            Ok(if matches!(spec, McpServerSpec::Sse { .. }) {
                McpTransport::Sse { url, headers }
            } else {
                McpTransport::Http { url, headers }
            })
        }
    }
}

/// The configuration file of `scope` (`local`, `project`, `user`).
fn scope_source(
    project_root: &Path,
    locations: &SettingsLocations,
    scope: &str,
) -> Result<McpConfigSource, McpViewError> {
    config_files(project_root, locations)
        .source(scope)
        .ok_or_else(|| McpViewError::Scope(scope.to_string()))
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
    let loaded = load_all(project_root, locations, LoadOptions { read_claude_settings })?;
    let files = config_files(project_root, locations);
    let approved: Vec<_> = effective_servers(&files)?
        .into_iter()
        .filter(|s| {
            views
                .iter()
                .any(|v| v.name == s.name && v.approved_in.is_some() && v.enabled)
        })
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
        if view.approved_in.is_none() || !view.enabled {
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
            let tools = manager.tools_of(&view.name);
            let rules = loaded.rules();
            view.tools_off = tools
                .iter()
                .filter(|t| rules.bare_deny_for(t).is_some())
                .cloned()
                .collect();
            view.stderr = manager.stderr_of(&view.name);
            McpServerStatus::Connected { tools }
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
    let source = scope_source(project_root, locations, scope)?;
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

/// Whether `name` can name a server (it becomes part of its tools' names, `mcp__name__tool`).
pub fn check_server_name(name: &str) -> Result<(), McpViewError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(McpViewError::BadName(name.to_string()))
    }
}

/// Replaces the entry of the server `name` in `scope` with `transport`; returns the file written.
pub fn edit_mcp_server(
    project_root: &Path,
    locations: &SettingsLocations,
    scope: &str,
    name: &str,
    transport: &McpTransport,
) -> Result<PathBuf, McpViewError> {
    let source = scope_source(project_root, locations, scope)?;
    let path = source.path().to_path_buf();
    let existing = crate::mcp::config::load_raw_config(source)?.unwrap_or_default();
    if !existing.iter().any(|s| s.name == name) {
        return Err(McpViewError::Unknown(name.to_string()));
    }
    set_mcp_server_entry(&path, name, Some(server_entry(transport)))?;
    Ok(path)
}

/// Switches the server `name` off (not started by later sessions, whatever its scope) or back on,
/// in the project's local settings; returns the file written.
pub fn set_mcp_server_enabled(
    project_root: &Path,
    name: &str,
    enabled: bool,
) -> Result<PathBuf, McpViewError> {
    check_server_name(name)?;
    let path = local_settings_path(project_root);
    crate::settings::set_mcp_server_disabled(&path, name, !enabled)?;
    Ok(path)
}

/// Switches the MCP tool `tool` (`mcp__server__tool`) off or back on for this project: a deny rule
/// of its bare name in the project's local settings hides it from the model (the registry leaves
/// out a tool such a rule names). Returns the file written.
pub fn set_mcp_tool_enabled(
    project_root: &Path,
    locations: &SettingsLocations,
    tool: &str,
    enabled: bool,
) -> Result<PathBuf, McpViewError> {
    if !tool.starts_with("mcp__") || tool.contains(char::is_whitespace) || tool.contains('(') {
        return Err(McpViewError::Invalid(format!(
            "{tool:?} is not an MCP tool's name"
        )));
    }
    let edit = if enabled {
        nerve_protocol::settings::RuleEdit::Remove {
            rule: tool.to_string(),
        }
    } else {
        nerve_protocol::settings::RuleEdit::Add {
            rule: tool.to_string(),
        }
    };
    Ok(crate::settings_view::edit_rule(
        locations,
        project_root,
        RuleSource::LocalSettings,
        crate::permissions::RuleBehavior::Deny,
        &edit,
    )?)
}

/// Where `from` keeps its MCP servers, and the `mcpServers` objects to import from it: Claude
/// Code's user servers and this project's local ones; Claude Desktop's servers.
fn foreign_server_lists(
    from: McpImportSource,
    project_root: &Path,
    locations: &SettingsLocations,
) -> Result<(PathBuf, Vec<serde_json::Value>), McpViewError> {
    let path = match from {
        McpImportSource::ClaudeCode => locations.home.join(".claude.json"),
        McpImportSource::ClaudeDesktop => locations.config_dir.join("Claude/claude_desktop_config.json"),
    };
    let text = std::fs::read_to_string(&path).map_err(|e| McpViewError::Foreign {
        path: path.display().to_string(),
        message: e.to_string(),
    })?;
    let root: serde_json::Value = serde_json::from_str(&text).map_err(|e| McpViewError::Foreign {
        path: path.display().to_string(),
        message: format!("not JSON: {e}"),
    })?;
    let mut lists = vec![root.get("mcpServers").cloned().unwrap_or_default()];
    if from == McpImportSource::ClaudeCode
        && let Some(project) = root
            .get("projects")
            .and_then(|p| p.get(project_root.display().to_string()))
    {
        lists.push(project.get("mcpServers").cloned().unwrap_or_default());
    }
    Ok((path, lists))
}

/// Imports the MCP servers of Claude Code's or Claude Desktop's configuration into `scope`, as
/// written there (`${VAR}`s stay unexpanded). A server whose name the scope has already, or whose
/// entry cannot be used, is left out with the reason.
pub fn import_mcp_servers(
    project_root: &Path,
    locations: &SettingsLocations,
    from: McpImportSource,
    scope: &str,
) -> Result<McpImportReport, McpViewError> {
    let source = scope_source(project_root, locations, scope)?;
    let path = source.path().to_path_buf();
    let mut taken: Vec<String> = crate::mcp::config::load_raw_config(source)?
        .unwrap_or_default()
        .into_iter()
        .map(|s| s.name)
        .collect();
    let (_, lists) = foreign_server_lists(from, project_root, locations)?;
    let mut report = McpImportReport {
        file: path.display().to_string(),
        imported: Vec::new(),
        skipped: Vec::new(),
    };
    for (name, transport) in lists.iter().flat_map(crate::mcp::config::foreign_servers) {
        let skip = |reason: String| McpImportSkip {
            name: name.clone(),
            reason,
        };
        if check_server_name(&name).is_err() {
            report
                .skipped
                .push(skip("its name cannot name a server here".into()));
            continue;
        }
        if taken.contains(&name) {
            report
                .skipped
                .push(skip(format!("the {scope} scope has a server of that name")));
            continue;
        }
        match transport {
            Ok(transport) => {
                set_mcp_server_entry(&path, &name, Some(server_entry(&transport)))?;
                taken.push(name.clone());
                report.imported.push(name);
            }
            Err(reason) => report.skipped.push(skip(reason)),
        }
    }
    Ok(report)
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
