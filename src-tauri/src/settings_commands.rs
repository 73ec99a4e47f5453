//! The settings screen's commands: a project's rules (listed, checked as typed, edited in the
//! files the user owns), a dry run of a call, hooks, MCP servers and their approval, the model
//! server's models and the gateway token. Each is a thin call into `nerve::settings_view`, so the
//! screen and `nerve check-permission` cannot disagree.

use std::path::PathBuf;

use nerve::credentials;
use nerve::credentials::ApiKey;
use nerve::mcp::McpManager;
use nerve::project::{Project, ProjectOptions};
use nerve::session::ModelServer;
use nerve::settings_view::{self, McpServerView, PermissionCheck, RuleSyntax, RulesView, check_rule_syntax};
use nerve_protocol::prompt::ModelListing;
use nerve_protocol::settings::RuleEdit;
use nerve_protocol::{RuleBehavior, RuleSource};
use tauri::State;

use crate::commands::{Shell, blocking};
use crate::dto::ProjectSettingsView;
use crate::error::{ShellError, to_shell};

fn open(path: &str) -> Result<Project, ShellError> {
    Project::open(ProjectOptions::new(PathBuf::from(path.trim()))).map_err(to_shell)
}

/// Runs `work` on the project at `project_path` off the async workers (it reads and writes files),
/// with its error in the shell's words.
async fn in_project<T, E>(
    project_path: String,
    work: impl FnOnce(&Project) -> Result<T, E> + Send + 'static,
) -> Result<T, ShellError>
where
    T: Send + 'static,
    E: std::fmt::Display,
{
    blocking(move || work(&open(&project_path)?).map_err(to_shell)).await
}

/// A file a command wrote, as the window shows it.
fn written(path: PathBuf) -> String {
    path.display().to_string()
}

/// The rules of `session_id` when given (they include what was allowed during the session), or of
/// a new session of the project.
fn rules_of(shell: &Shell, project: &Project, session_id: Option<&str>) -> Result<RulesView, ShellError> {
    match session_id {
        Some(id) => Ok(shell.sessions.get(id)?.rules_view()),
        None => Ok(settings_view::rules_view(
            &project.rules(),
            project.locations(),
            project.dir(),
        )),
    }
}

/// A project's rules, hooks and MCP servers (not started: `probe_mcp_servers` starts them).
#[tauri::command]
pub async fn get_project_settings(
    shell: State<'_, Shell>,
    project_path: String,
    session_id: Option<String>,
) -> Result<ProjectSettingsView, ShellError> {
    let project = blocking(move || open(&project_path)).await?;
    let rules = rules_of(&shell, &project, session_id.as_deref())?;
    blocking(move || {
        let mcp_servers = settings_view::mcp_servers(
            project.dir(),
            project.locations(),
            project.reads_claude_settings(),
        )
        .map_err(to_shell)?;
        Ok(ProjectSettingsView {
            project_path: project.dir().display().to_string(),
            rules,
            hooks: settings_view::project_hooks(&project.hooks(), project.locations(), project.dir()),
            mcp_servers,
            definitions: project.definitions().view(),
        })
    })
    .await
}

/// What the rule parser says of a rule as it is typed (with the error's position).
#[tauri::command]
pub fn check_rule(text: String) -> RuleSyntax {
    check_rule_syntax(&text)
}

/// Adds, replaces or removes a rule in one of the settings files the user owns, and returns the
/// rules as a new session of the project will have them.
#[tauri::command]
pub async fn edit_rule(
    project_path: String,
    source: RuleSource,
    behavior: RuleBehavior,
    edit: RuleEdit,
) -> Result<RulesView, ShellError> {
    blocking(move || {
        let project = open(&project_path)?;
        settings_view::edit_rule(project.locations(), project.dir(), source, behavior, &edit)
            .map_err(to_shell)?;
        // Read back through the same loader sessions use, so what is shown is what applies.
        let project = open(&project_path)?;
        Ok(settings_view::rules_view(
            &project.rules(),
            project.locations(),
            project.dir(),
        ))
    })
    .await
}

/// What a new session of the project would do with a call (`nerve check-permission`). `input` is
/// the tool input as JSON text, as typed.
#[tauri::command]
pub async fn check_call(
    project_path: String,
    tool: String,
    input: String,
) -> Result<PermissionCheck, ShellError> {
    let input: serde_json::Value = serde_json::from_str(input.trim())
        .map_err(|e| ShellError::new(format!("the input is not valid JSON: {e}")))?;
    let project = blocking(move || open(&project_path)).await?;
    settings_view::check_call(&project, tool.trim(), input, McpManager::default().tools())
        .await
        .map_err(|e| ShellError::new(e.to_string()))
}

/// Starts each approved `.mcp.json` server, lists its tools and stops it again.
#[tauri::command]
pub async fn probe_mcp_servers(project_path: String) -> Result<Vec<McpServerView>, ShellError> {
    let project = blocking(move || open(&project_path)).await?;
    settings_view::probe_mcp_servers(
        &nerve::EngineEnv::process(),
        project.dir(),
        project.locations(),
        project.reads_claude_settings(),
    )
    .await
    .map_err(to_shell)
}

/// Approves (or withdraws) a `.mcp.json` server in the project's local settings file; the next
/// session starts it.
#[tauri::command]
pub async fn set_mcp_server_approved(
    project_path: String,
    name: String,
    approved: bool,
) -> Result<Vec<McpServerView>, ShellError> {
    blocking(move || {
        let project = open(&project_path)?;
        settings_view::set_mcp_server_approved(project.dir(), &name, approved).map_err(to_shell)?;
        let project = open(&project_path)?;
        settings_view::mcp_servers(
            project.dir(),
            project.locations(),
            project.reads_claude_settings(),
        )
        .map_err(to_shell)
    })
    .await
}

/// Adds an MCP server to `scope` (`local`, `project`, `user`); returns the file written. The next
/// session starts it (a `project` server once approved).
#[tauri::command]
pub async fn add_mcp_server(
    project_path: String,
    scope: String,
    name: String,
    spec: settings_view::McpServerSpec,
) -> Result<String, ShellError> {
    blocking(move || {
        let project = open(&project_path)?;
        let name = name.trim();
        settings_view::check_server_name(name).map_err(to_shell)?;
        let transport = settings_view::transport_of(&spec).map_err(to_shell)?;
        settings_view::add_mcp_server(project.dir(), project.locations(), &scope, name, &transport)
            .map(|path| path.display().to_string())
            .map_err(to_shell)
    })
    .await
}

/// Replaces the configuration of the MCP server `name` in `scope`; returns the file written.
#[tauri::command]
pub async fn edit_mcp_server(
    project_path: String,
    scope: String,
    name: String,
    spec: settings_view::McpServerSpec,
) -> Result<String, ShellError> {
    blocking(move || {
        let project = open(&project_path)?;
        let transport = settings_view::transport_of(&spec).map_err(to_shell)?;
        settings_view::edit_mcp_server(project.dir(), project.locations(), &scope, &name, &transport)
            .map(|path| path.display().to_string())
            .map_err(to_shell)
    })
    .await
}

/// Removes the MCP server `name` from `scope`; returns the file written.
#[tauri::command]
pub async fn remove_mcp_server(
    project_path: String,
    scope: String,
    name: String,
) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::remove_mcp_server(project.dir(), project.locations(), Some(&scope), &name)
    })
    .await
    .map(written)
}

/// Imports Claude Code's or Claude Desktop's MCP servers into `scope`.
#[tauri::command]
pub async fn import_mcp_servers(
    project_path: String,
    from: settings_view::McpImportSource,
    scope: String,
) -> Result<settings_view::McpImportReport, ShellError> {
    in_project(project_path, move |project| {
        settings_view::import_mcp_servers(project.dir(), project.locations(), from, &scope)
    })
    .await
}

/// Switches an MCP server off (later sessions do not start it) or back on, in the project's local
/// settings; returns the file written.
#[tauri::command]
pub async fn set_mcp_server_enabled(
    project_path: String,
    name: String,
    enabled: bool,
) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::set_mcp_server_enabled(project.dir(), &name, enabled)
    })
    .await
    .map(written)
}

/// Switches one MCP tool off (hidden from the model) or back on, in the project's local settings;
/// returns the file written.
#[tauri::command]
pub async fn set_mcp_tool_enabled(
    project_path: String,
    tool: String,
    enabled: bool,
) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::set_mcp_tool_enabled(project.dir(), project.locations(), &tool, enabled)
    })
    .await
    .map(written)
}

/// The instruction files the model reads for the project (the user's, the project's, imports).
#[tauri::command]
pub async fn memory_files(project_path: String) -> Result<Vec<settings_view::MemoryFileView>, ShellError> {
    blocking(move || {
        let project = open(&project_path)?;
        Ok(settings_view::memory_files(project.dir(), project.locations()))
    })
    .await
}

/// The text of one of the project's instruction files ("" before it is created).
#[tauri::command]
pub async fn read_memory_file(project_path: String, path: String) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::read_memory_file(project.dir(), project.locations(), &path)
    })
    .await
}

/// Replaces the text of one of the project's instruction files.
#[tauri::command]
pub async fn write_memory_file(project_path: String, path: String, text: String) -> Result<(), ShellError> {
    in_project(project_path, move |project| {
        settings_view::write_memory_file(project.dir(), project.locations(), &path, &text)
    })
    .await
}

/// Appends a line (a prompt's `# …`) to one of the project's instruction files.
#[tauri::command]
pub async fn append_memory_line(project_path: String, path: String, line: String) -> Result<(), ShellError> {
    in_project(project_path, move |project| {
        settings_view::append_memory_line(project.dir(), project.locations(), &path, &line)
    })
    .await
}

/// Adds a hook to the user's, the project's or the project's local settings; returns the file.
#[tauri::command]
pub async fn add_hook(
    project_path: String,
    source: RuleSource,
    hook: settings_view::HookSpec,
) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::add_hook(project.locations(), project.dir(), source, &hook)
    })
    .await
    .map(written)
}

/// Removes a hook (its event, matcher and command) from one of those files; returns the file.
#[tauri::command]
pub async fn remove_hook(
    project_path: String,
    source: RuleSource,
    hook: settings_view::HookSpec,
) -> Result<String, ShellError> {
    in_project(project_path, move |project| {
        settings_view::remove_hook(project.locations(), project.dir(), source, &hook)
    })
    .await
    .map(written)
}

/// Runs a hook once against a sample event of its kind, as a session would, in the project.
#[tauri::command]
pub async fn test_hook(
    project_path: String,
    hook: settings_view::HookSpec,
) -> Result<settings_view::HookTestResult, ShellError> {
    let project = blocking(move || open(&project_path)).await?;
    settings_view::test_hook(project.dir(), &hook)
        .await
        .map_err(to_shell)
}

/// Signs in to a remote MCP server with OAuth: the authorization page opens in the browser
/// (`$BROWSER` when set, else the system's), the token goes to the OS keyring, and the servers
/// are checked again so the row shows the result.
#[tauri::command]
pub async fn mcp_sign_in(
    app: tauri::AppHandle,
    project_path: String,
    name: String,
) -> Result<Vec<McpServerView>, ShellError> {
    let project = blocking(move || open(&project_path)).await?;
    let service = nerve::mcp::McpOptions::from_engine_env(&nerve::EngineEnv::process()).keyring_service;
    settings_view::mcp_login(project.dir(), project.locations(), &name, &service, |url| {
        let opened = if std::env::var_os("BROWSER").is_some() {
            nerve::mcp::oauth::open_in_browser(url).map_err(|e| e.to_string())
        } else {
            use tauri_plugin_opener::OpenerExt;
            app.opener()
                .open_url(url, None::<&str>)
                .map_err(|e| e.to_string())
        };
        if let Err(e) = opened {
            tracing::warn!("could not open the sign-in page: {e}");
        }
    })
    .await
    .map_err(to_shell)?;
    settings_view::probe_mcp_servers(
        &nerve::EngineEnv::process(),
        project.dir(),
        project.locations(),
        project.reads_claude_settings(),
    )
    .await
    .map_err(to_shell)
}

/// Forgets a remote MCP server's stored sign-in.
#[tauri::command]
pub async fn mcp_sign_out(project_path: String, name: String) -> Result<Vec<McpServerView>, ShellError> {
    let project = blocking(move || open(&project_path)).await?;
    let service = nerve::mcp::McpOptions::from_engine_env(&nerve::EngineEnv::process()).keyring_service;
    settings_view::mcp_logout(project.dir(), project.locations(), &name, &service)
        .await
        .map_err(to_shell)?;
    blocking(move || {
        settings_view::mcp_servers(
            project.dir(),
            project.locations(),
            project.reads_claude_settings(),
        )
        .map_err(to_shell)
    })
    .await
}

/// The models a model server lists (`GET /v1/models`), reached with the credentials and headers a
/// session would use. `base_url` is the one being edited (the saved one when `None`).
#[tauri::command]
pub async fn list_models(
    shell: State<'_, Shell>,
    base_url: Option<String>,
    custom_headers: Option<String>,
) -> Result<Vec<ModelListing>, ShellError> {
    let saved = shell.settings.load()?.settings;
    let blank_is_none = |text: Option<String>| text.filter(|t| !t.trim().is_empty());
    nerve::session::list_models(
        &nerve::EngineEnv::process(),
        ModelServer::Configured {
            base_url: blank_is_none(base_url).or(saved.base_url),
            custom_headers: custom_headers.or(saved.custom_headers),
            provider: saved.provider,
        },
    )
    .await
    .map_err(to_shell)
}

/// Stores a gateway's bearer token (sent as `Authorization: Bearer` instead of the key); like the
/// key, it never comes back to the UI.
#[tauri::command]
pub async fn set_auth_token(token: String) -> Result<Option<String>, ShellError> {
    blocking(move || {
        let stored = credentials::store_auth_token(
            &nerve::EngineEnv::process(),
            &ApiKey::new(token.trim().to_string()),
        )
        .map_err(to_shell)?;
        Ok(crate::commands::stored_note(&stored, "token"))
    })
    .await
}

/// Removes the stored bearer token.
#[tauri::command]
pub async fn delete_auth_token() -> Result<(), ShellError> {
    blocking(|| {
        credentials::delete_auth_token(&nerve::EngineEnv::process())
            .map(|_| ())
            .map_err(to_shell)
    })
    .await
}
