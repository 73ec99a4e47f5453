//! The sidebar's commands: a project's saved sessions listed and searched, renamed, forked and
//! deleted (each a thin call into the engine's `Project`, as `nerve sessions` makes), and the demo.

use std::path::PathBuf;

use nerve::project::{Project, ProjectOptions};
use nerve_protocol::transcripts::{DeletedSession, TranscriptSummary};
use serde::Serialize;
use tauri::State;
use ts_rs::TS;

use crate::commands::{Shell, blocking};
use crate::demo::Demo;
use crate::dto::SessionInfo;
use crate::error::{ShellError, to_shell};
use crate::sessions::StartRequest;

/// The project at `project_path`.
fn project(project_path: &str) -> Result<Project, ShellError> {
    Project::open(ProjectOptions::new(PathBuf::from(project_path.trim()))).map_err(to_shell)
}

/// The project's sessions, newest first; with a query, only those whose title or a prompt
/// contains it (any case).
#[tauri::command]
pub async fn list_sessions(
    project_path: String,
    query: Option<String>,
) -> Result<Vec<TranscriptSummary>, ShellError> {
    blocking(move || {
        project(&project_path)?
            .sessions(query.as_deref().unwrap_or(""))
            .map_err(to_shell)
    })
    .await
}

/// Names a session (open or not). Returns the name as kept.
#[tauri::command]
pub async fn rename_session(
    project_path: String,
    session_id: String,
    title: String,
) -> Result<String, ShellError> {
    blocking(move || {
        project(&project_path)?
            .rename(&session_id, &title)
            .map_err(to_shell)
    })
    .await
}

/// Forks a session into a new one (its conversation copied; with `before_turn`, as it was just
/// before that prompt); returns the new id, to resume.
#[tauri::command]
pub async fn fork_session(
    project_path: String,
    session_id: String,
    before_turn: Option<u32>,
) -> Result<String, ShellError> {
    blocking(move || {
        let project = project(&project_path)?;
        match before_turn {
            Some(turn) => project.fork_before(&session_id, turn),
            None => project.fork(&session_id),
        }
        .map_err(to_shell)
    })
    .await
}

/// Deletes a session for good (the UI asks first): an open one is ended first, then its transcript,
/// checkpoints and persisted outputs go. Says how much disk that freed.
#[tauri::command]
pub async fn delete_session(
    shell: State<'_, Shell>,
    project_path: String,
    session_id: String,
) -> Result<DeletedSession, ShellError> {
    if shell.sessions.is_open(&session_id) {
        shell.terminals.close_session(&session_id);
        shell.sessions.end(&session_id).await?;
    }
    blocking(move || project(&project_path)?.delete(&session_id).map_err(to_shell)).await
}

/// A started demo: its session, and the sample project's folder.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct DemoStarted {
    /// The session, ready for its first prompt.
    pub session: SessionInfo,
    /// The prompt that starts the tour.
    pub prompt: String,
}

/// The prompt that starts the demo's tour.
const DEMO_PROMPT: &str = "Show me around this project and fix what you find.";

/// Starts the demo: a fresh sample project and the scripted model, and a session on them. A demo
/// already running ends first (its session and sample folder go).
#[tauri::command]
pub async fn start_demo(shell: State<'_, Shell>) -> Result<DemoStarted, ShellError> {
    let previous = shell.demo.lock().await.take();
    if let Some((old_session, _old_demo)) = previous {
        let _ = shell.sessions.end(&old_session).await;
    }
    let demo = Demo::start().await?;
    let settings = shell.settings.load()?.settings;
    let session = shell
        .sessions
        .start(StartRequest {
            project_path: demo.project(),
            resume: None,
            settings,
            demo_model: Some(demo.url()),
            worktree: Some(false),
        })
        .await?;
    *shell.demo.lock().await = Some((session.state.session_id.clone(), demo));
    Ok(DemoStarted {
        session,
        prompt: DEMO_PROMPT.to_string(),
    })
}

/// Most places one search returns.
const SEARCH_HITS: usize = 100;

/// The best places in the project's sessions matching `query` (titles, prompts, replies, tool
/// inputs and results), from the project's full-text index.
#[tauri::command]
pub async fn search_sessions(
    project_path: String,
    query: String,
) -> Result<Vec<nerve_protocol::transcripts::SessionSearchHit>, ShellError> {
    blocking(move || {
        let mut options = ProjectOptions::new(PathBuf::from(project_path.trim()));
        options.bare = true;
        let project = Project::open(options).map_err(to_shell)?;
        project.search_sessions(&query, SEARCH_HITS).map_err(to_shell)
    })
    .await
}
