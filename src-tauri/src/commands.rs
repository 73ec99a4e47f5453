//! The commands the UI may call (each one allowed by name in `capabilities/default.json`). They
//! translate between IPC and the engine and hold no logic of their own.

use std::path::{Path, PathBuf};

use nerve::credentials::{self, ApiKey};
use nerve::outputs::read_chunk;
use nerve::project::{Project, ProjectOptions};
use nerve::session::{configured_base_url, default_fast_model, default_model};
use nerve_protocol::checkpoint::{ChangeScope, ChangeSet, CodeRewindPlan, CodeRewindReport};
use nerve_protocol::prompt::{AttachedImage, FileMatch, SlashCommand};
use nerve_protocol::rewind::RewindRequest;
use nerve_protocol::{Event, PermissionMode, PermissionPreview, UserAnswer};
use tauri::State;
use tauri::ipc::Channel;

use crate::dto::{
    AppSettings, AppState, CompactOutcome, PersistedChunk, ProjectInfo, RewindOutcome, SessionInfo,
    TurnSummary,
};
use crate::error::{ShellError, to_shell};
use crate::sessions::{Sessions, StartRequest};
use crate::settings::SettingsStore;

/// Most matches one `find_files` call returns.
const MAX_FILE_MATCHES: usize = 200;

/// The app's state, managed by Tauri.
pub struct Shell {
    /// The settings file.
    pub settings: SettingsStore,
    /// The open sessions.
    pub sessions: Sessions,
    /// The engine's environment variables, read once at start.
    pub env: std::sync::Arc<nerve::EngineEnv>,
    /// The running demo (its session's id and its model and sample folder), if any.
    pub demo: tokio::sync::Mutex<Option<(String, crate::demo::Demo)>>,
    /// The user's terminals.
    pub terminals: crate::terminal::Terminals,
}

pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ShellError> + Send + 'static,
) -> Result<T, ShellError> {
    // The keyring talks D-Bus synchronously and checkpoints read files: keep both off the async
    // workers (and the main thread).
    tokio::task::spawn_blocking(f).await.map_err(to_shell)?
}

/// What the first screen needs: whether a key is configured (never the key), the settings.
#[tauri::command]
pub async fn get_app_state(shell: State<'_, Shell>) -> Result<AppState, ShellError> {
    let file = shell.settings.load()?;
    let env = nerve::EngineEnv::process();
    let base_url = configured_base_url(&env, file.settings.base_url.as_deref());
    let provider = file.settings.provider.unwrap_or_default();
    let credentials =
        blocking(move || Ok(credentials::status_for(&env, provider, base_url.as_deref()))).await?;
    Ok(AppState {
        credentials,
        settings: file.settings,
        default_model: default_model(&shell.env, None),
        default_fast_model: default_fast_model(&shell.env, None),
        recent_projects: file.recent_projects,
    })
}

/// Saves the settings (blank fields mean the defaults).
#[tauri::command]
pub async fn save_settings(
    shell: State<'_, Shell>,
    settings: AppSettings,
) -> Result<AppSettings, ShellError> {
    let store = shell.settings.clone();
    blocking(move || store.save_settings(settings)).await
}

/// Uses a model server on this machine without a key (the first run's offer); see
/// [`crate::settings::SettingsStore::use_local_server`].
#[tauri::command]
pub async fn use_local_server(shell: State<'_, Shell>, base_url: String) -> Result<AppSettings, ShellError> {
    let store = shell.settings.clone();
    blocking(move || store.use_local_server(&base_url)).await
}

/// Stores the API key in the OS keyring, or, when no keyring answers, in a file only the user can
/// read. It is never sent back to the UI. Returns a note for the user when the file was used.
#[tauri::command]
pub async fn set_api_key(
    key: String,
    provider: Option<nerve_protocol::settings::ModelProvider>,
) -> Result<Option<String>, ShellError> {
    blocking(move || {
        let stored = credentials::store_provider_key(
            &nerve::EngineEnv::process(),
            provider.unwrap_or_default(),
            &ApiKey::new(key.trim().to_string()),
        )
        .map_err(to_shell)?;
        Ok(stored_note(&stored, "key"))
    })
    .await
}

/// What to tell the user about where a secret went: nothing for the keyring, the file otherwise.
pub(crate) fn stored_note(stored: &credentials::StoredIn, what: &str) -> Option<String> {
    match stored {
        credentials::StoredIn::Keyring => None,
        credentials::StoredIn::File { path, .. } => Some(format!(
            "No system keyring answered, so the {what} is kept in {}, readable only by you.",
            path.display()
        )),
    }
}

/// Removes the API key from the OS keyring.
#[tauri::command]
pub async fn delete_api_key(
    provider: Option<nerve_protocol::settings::ModelProvider>,
) -> Result<(), ShellError> {
    blocking(move || {
        let env = nerve::EngineEnv::process();
        match provider.unwrap_or_default() {
            nerve_protocol::settings::ModelProvider::Anthropic => {
                credentials::delete_api_key(&env).map(|_| ()).map_err(to_shell)
            }
            other => {
                use credentials::SecretStore as _;
                let store = credentials::provider_store(&env, other)
                    .ok_or_else(|| to_shell(credentials::CredentialError::KeyringOff))?;
                store.remove().map(|_| ()).map_err(to_shell)
            }
        }
    })
    .await
}

/// Opens a project folder: validates its settings and lists its sessions (off the main thread:
/// listing reads every transcript's title).
#[tauri::command]
pub async fn open_project(shell: State<'_, Shell>, path: String) -> Result<ProjectInfo, ShellError> {
    let settings = shell.settings.clone();
    blocking(move || open_project_now(&settings, &path)).await
}

fn open_project_now(settings: &SettingsStore, path: &str) -> Result<ProjectInfo, ShellError> {
    let mut options = ProjectOptions::new(PathBuf::from(path.trim()));
    options.fallback_mode = settings.load()?.settings.default_mode;
    let project = Project::open(options).map_err(to_shell)?;
    let sessions = project.sessions("").map_err(to_shell)?;
    let (_, unapproved) = project.mcp_servers(&[]).map_err(to_shell)?;
    let path = project.dir().display().to_string();
    settings.remember_project(&path)?;
    Ok(ProjectInfo {
        path,
        mode: project.mode(),
        sessions,
        unapproved_mcp_servers: unapproved,
    })
}

/// Starts a session in a project, or resumes one.
#[tauri::command]
pub async fn start_session(
    shell: State<'_, Shell>,
    project_path: String,
    resume: Option<String>,
    worktree: Option<bool>,
) -> Result<SessionInfo, ShellError> {
    let settings = shell.settings.load()?.settings;
    shell
        .sessions
        .start(StartRequest {
            project_path: PathBuf::from(project_path),
            resume,
            settings,
            demo_model: None,
            worktree,
        })
        .await
}

/// Runs one turn (the prompt and any attached images); its events arrive in order on `on_event`.
/// Resolves when the turn ends.
#[tauri::command]
pub async fn send_prompt(
    shell: State<'_, Shell>,
    session_id: String,
    prompt: String,
    images: Vec<AttachedImage>,
    attachments: Option<Vec<nerve_protocol::prompt::PromptAttachment>>,
    on_event: Channel<Event>,
) -> Result<TurnSummary, ShellError> {
    let attachments = attachments.unwrap_or_default();
    shell
        .sessions
        .send(&session_id, &prompt, &images, &attachments, on_event)
        .await
}

/// Stops the running turn.
#[tauri::command]
pub fn abort_turn(shell: State<'_, Shell>, session_id: String) -> Result<(), ShellError> {
    shell.sessions.get(&session_id)?.abort();
    Ok(())
}

/// Interrupts the running turn for a new message (the UI's "Send now" on a queued prompt).
#[tauri::command]
pub fn interrupt_turn(shell: State<'_, Shell>, session_id: String) -> Result<(), ShellError> {
    shell.sessions.get(&session_id)?.interrupt();
    Ok(())
}

/// Answers a permission request.
#[tauri::command]
pub fn answer_permission(
    shell: State<'_, Shell>,
    session_id: String,
    request_id: String,
    answer: UserAnswer,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .answer(&request_id, answer)
        .map_err(to_shell)
}

/// Allows for the project what the sandbox refused a command of the session (a card's one-click
/// "allow this path / host"); returns the settings file it was written to.
#[tauri::command]
pub fn allow_sandbox_refusal(
    shell: State<'_, Shell>,
    session_id: String,
    refusal: nerve_protocol::SandboxRefusal,
) -> Result<String, ShellError> {
    let file = shell
        .sessions
        .get(&session_id)?
        .allow_sandbox_refusal(&refusal)
        .map_err(to_shell)?;
    Ok(file.display().to_string())
}

/// Recomputes a waiting permission request's preview for an input the user edited in the dialog
/// (the engine computes it with the tool's own logic; the window never does).
#[tauri::command]
pub async fn preview_permission_edit(
    shell: State<'_, Shell>,
    session_id: String,
    request_id: String,
    input: serde_json::Value,
) -> Result<Option<PermissionPreview>, ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .preview_edit(&request_id, input)
        .await
        .map_err(to_shell)
}

/// Which of the session's waiting requests these allow rules would let run (the batch panel shows
/// it before the user allows a rule); the engine judges each call as it judged it when it asked.
#[tauri::command]
pub async fn requests_covered_by(
    shell: State<'_, Shell>,
    session_id: String,
    rules: Vec<String>,
) -> Result<Vec<String>, ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .requests_covered_by(&rules)
        .await
        .map_err(to_shell)
}

/// Switches the session's permission mode.
#[tauri::command]
pub fn set_permission_mode(
    shell: State<'_, Shell>,
    session_id: String,
    mode: PermissionMode,
) -> Result<PermissionMode, ShellError> {
    shell.sessions.get(&session_id)?.set_mode(mode).map_err(to_shell)
}

/// Ends a session.
#[tauri::command]
pub async fn end_session(shell: State<'_, Shell>, session_id: String) -> Result<(), ShellError> {
    shell.terminals.close_session(&session_id);
    shell.sessions.end(&session_id).await
}

/// The changes of a call (a tool card's diff), a turn or the whole session.
#[tauri::command]
pub async fn get_changes(
    shell: State<'_, Shell>,
    session_id: String,
    scope: ChangeScope,
) -> Result<ChangeSet, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || session.changes(scope).map_err(to_shell)).await
}

/// What rewinding the code to just before prompt `to_turn` would restore, and what it cannot.
#[tauri::command]
pub async fn plan_rewind(
    shell: State<'_, Shell>,
    session_id: String,
    to_turn: u32,
) -> Result<CodeRewindPlan, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || session.plan_rewind(to_turn).map_err(to_shell)).await
}

/// Rewinds the code, the conversation or both to just before a prompt.
#[tauri::command]
pub async fn rewind_session(
    shell: State<'_, Shell>,
    session_id: String,
    request: RewindRequest,
) -> Result<RewindOutcome, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || session.rewind(&request).map_err(to_shell)).await
}

/// Undoes the latest rewind: the conversation it cut comes back when nothing was said since, and
/// the files it put back hold again what they held just before it.
#[tauri::command]
pub async fn undo_rewind(
    shell: State<'_, Shell>,
    session_id: String,
) -> Result<nerve_protocol::session::RewindUndoOutcome, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || session.undo_rewind().map_err(to_shell)).await
}

/// What reverting one changed file would do (before the session, or before turn `from_turn`).
#[tauri::command]
pub async fn plan_file_revert(
    shell: State<'_, Shell>,
    session_id: String,
    path: String,
    from_turn: Option<u32>,
) -> Result<CodeRewindPlan, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || {
        session
            .plan_file_revert(Path::new(&path), from_turn)
            .map_err(to_shell)
    })
    .await
}

/// Reverts one changed file; one changed on disk since the agent's change needs `confirmed`.
#[tauri::command]
pub async fn revert_file(
    shell: State<'_, Shell>,
    session_id: String,
    path: String,
    from_turn: Option<u32>,
    confirmed: bool,
) -> Result<CodeRewindReport, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || {
        session
            .revert_file(Path::new(&path), from_turn, confirmed)
            .map_err(to_shell)
    })
    .await
}

/// The slash commands the composer offers: built-ins, then the user's and the project's own.
#[tauri::command]
pub async fn list_commands(
    shell: State<'_, Shell>,
    session_id: String,
) -> Result<Vec<SlashCommand>, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || Ok(session.commands())).await
}

/// The project's files best matching `query`, for the composer's `@` picker.
#[tauri::command]
pub async fn find_files(
    shell: State<'_, Shell>,
    session_id: String,
    query: String,
    limit: usize,
) -> Result<Vec<FileMatch>, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || Ok(session.find_files(&query, limit.min(MAX_FILE_MATCHES)))).await
}

/// Compacts the conversation now (`/compact`).
#[tauri::command]
pub async fn compact_session(
    shell: State<'_, Shell>,
    session_id: String,
    instructions: Option<String>,
) -> Result<CompactOutcome, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    session.compact(instructions.as_deref()).await.map_err(to_shell)
}

/// Saves the session as Markdown where the user picks in the system's save dialog (opened from Rust,
/// so the UI gets no file-system or dialog permission for it). Returns the path, or nothing when the
/// user cancelled.
#[tauri::command]
pub async fn export_session(
    app: tauri::AppHandle,
    shell: State<'_, Shell>,
    session_id: String,
) -> Result<Option<String>, ShellError> {
    use tauri_plugin_dialog::DialogExt;
    let session = shell.sessions.get(&session_id)?;
    blocking(move || {
        let markdown = session.markdown().map_err(to_shell)?;
        let name = format!(
            "nerve-session-{}.md",
            session_id.chars().take(8).collect::<String>()
        );
        let Some(picked) = app
            .dialog()
            .file()
            .add_filter("Markdown", &["md"])
            .set_file_name(&name)
            .blocking_save_file()
        else {
            return Ok(None);
        };
        let path = picked.into_path().map_err(to_shell)?;
        std::fs::write(&path, markdown)
            .map_err(|e| ShellError::new(format!("could not write {}: {e}", path.display())))?;
        Ok(Some(path.display().to_string()))
    })
    .await
}

/// Opens a link from the conversation in the system's browser: http and https only, so a reply
/// cannot make the app open files, other apps' URL schemes or `javascript:`.
#[tauri::command]
pub fn open_link(app: tauri::AppHandle, url: String) -> Result<(), ShellError> {
    use tauri_plugin_opener::OpenerExt;
    let url = web_link(&url)?;
    app.opener()
        .open_url(url.as_str(), None::<&str>)
        .map_err(|e| ShellError::new(format!("could not open {url}: {e}")))
}

/// `text` as a web link, or why it is not one.
fn web_link(text: &str) -> Result<tauri::Url, ShellError> {
    let url =
        tauri::Url::parse(text.trim()).map_err(|e| ShellError::new(format!("not a link ({e}): {text}")))?;
    match url.scheme() {
        "http" | "https" if url.host_str().is_some_and(|h| !h.is_empty()) => Ok(url),
        scheme => Err(ShellError::new(format!(
            "only http and https links open from the conversation, not {scheme}: links"
        ))),
    }
}

/// Uses another main model for the session (the model picker, `/model`): from the next request,
/// or from the next prompt while a turn runs.
#[tauri::command]
pub fn set_model(
    shell: State<'_, Shell>,
    session_id: String,
    model: String,
) -> Result<nerve_protocol::prompt::ModelChoice, ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .set_model(&model)
        .map_err(to_shell)
}

/// Sets how hard the session's model thinks (the effort control, `/effort`): from the next prompt.
#[tauri::command]
pub fn set_effort(
    shell: State<'_, Shell>,
    session_id: String,
    effort: nerve_protocol::prompt::Effort,
) -> Result<nerve_protocol::prompt::ModelChoice, ShellError> {
    Ok(shell.sessions.get(&session_id)?.set_effort(effort))
}

/// Reads part of a persisted tool output of the session's project (off the main thread).
#[tauri::command]
pub async fn read_persisted_output(
    shell: State<'_, Shell>,
    session_id: String,
    path: String,
    offset: u64,
    len: usize,
) -> Result<PersistedChunk, ShellError> {
    let data_dir = shell.sessions.get(&session_id)?.project().data_dir();
    blocking(move || read_chunk(&data_dir, Path::new(&path), offset, len).map_err(to_shell)).await
}

#[cfg(test)]
mod tests {
    use super::web_link;

    #[test]
    fn only_web_links_open() {
        for ok in [
            "https://docs.rs/tauri",
            "http://localhost:8080/x?y=1",
            " https://example.com ",
        ] {
            assert!(web_link(ok).is_ok(), "{ok}");
        }
        for refused in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "vscode://open?file=/x",
            "mailto:a@b.c",
            "https://",
            "/relative/path",
            "",
        ] {
            assert!(web_link(refused).is_err(), "{refused}");
        }
    }
}
