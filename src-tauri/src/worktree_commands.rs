//! The worktree and review commands: a project's session worktrees listed with where each stands, a
//! session's work landed in the main checkout or thrown away after the UI showed what would be lost
//! (thin calls into the engine's `Project`, as `nerve worktree` makes); and the Changes panel's git
//! actions (stage, unstage, commit, branch, a suggested message), hunk undo and review prompt
//! (thin calls into the live `Session`).

use std::path::PathBuf;

use nerve::project::{Project, ProjectOptions};
use nerve_protocol::workspace::{DiscardPreview, LandOutcome, LandStrategy, WorktreeInfo, WorktreeStatus};
use tauri::State;

use crate::commands::{Shell, blocking};
use crate::error::{ShellError, to_shell};

/// The project at `project_path` (settings are not needed for its worktrees).
fn project(project_path: &str) -> Result<Project, ShellError> {
    let mut options = ProjectOptions::new(PathBuf::from(project_path.trim()));
    options.bare = true;
    Project::open(options).map_err(to_shell)
}

/// The project's worktrees, oldest first, with commits ahead and behind and uncommitted files.
#[tauri::command]
pub async fn list_worktrees(project_path: String) -> Result<Vec<WorktreeStatus>, ShellError> {
    blocking(move || project(&project_path)?.worktrees().map_err(to_shell)).await
}

/// Removes the project's worktrees whose session or folder is gone (one with uncommitted work, or
/// a branch with commits nowhere else, is kept and said so).
#[tauri::command]
pub async fn clean_worktrees(
    project_path: String,
) -> Result<nerve_protocol::workspace::CleanReport, ShellError> {
    blocking(move || project(&project_path)?.clean_worktrees().map_err(to_shell)).await
}

/// Lands a session's work in the main checkout; a conflict comes back as an outcome with both
/// sides of each file (the main checkout left as it was). The session may stay open.
#[tauri::command]
pub async fn land_worktree(
    project_path: String,
    session_id: String,
    strategy: LandStrategy,
    message: Option<String>,
) -> Result<LandOutcome, ShellError> {
    blocking(move || {
        let message = message.filter(|m| !m.trim().is_empty());
        project(&project_path)?
            .land(&session_id, strategy, message.as_deref())
            .map_err(to_shell)
    })
    .await
}

/// What discarding a session's worktree would lose (uncommitted files, commits only it has).
#[tauri::command]
pub async fn worktree_discard_preview(
    project_path: String,
    session_id: String,
) -> Result<DiscardPreview, ShellError> {
    blocking(move || {
        project(&project_path)?
            .discard_preview(&session_id)
            .map_err(to_shell)
    })
    .await
}

/// Throws a session's worktree away (and its branch unless `keep_branch`); the UI asked first. An
/// open session is ended first: it cannot go on in a folder that is gone.
#[tauri::command]
pub async fn discard_worktree(
    shell: State<'_, Shell>,
    project_path: String,
    session_id: String,
    keep_branch: bool,
) -> Result<WorktreeInfo, ShellError> {
    if shell.sessions.is_open(&session_id) {
        shell.sessions.end(&session_id).await?;
    }
    blocking(move || {
        project(&project_path)?
            .discard_worktree(&session_id, keep_branch)
            .map_err(to_shell)
    })
    .await
}

/// Stages files in the session's folder (the Changes panel's git scopes).
#[tauri::command]
pub fn git_stage(shell: State<'_, Shell>, session_id: String, paths: Vec<PathBuf>) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_stage(&paths)
        .map_err(to_shell)
}

/// Stages one hunk of a file's uncommitted change (the Changes panel's hunk Stage).
#[tauri::command]
pub fn git_stage_hunk(
    shell: State<'_, Shell>,
    session_id: String,
    path: PathBuf,
    hunk: nerve_protocol::DiffHunk,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_stage_hunk(&path, &hunk)
        .map_err(to_shell)
}

/// Unstages one hunk of a file's staged change.
#[tauri::command]
pub fn git_unstage_hunk(
    shell: State<'_, Shell>,
    session_id: String,
    path: PathBuf,
    hunk: nerve_protocol::DiffHunk,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_unstage_hunk(&path, &hunk)
        .map_err(to_shell)
}

/// Puts a file back to the last commit (work tree and index; a renamed file's old name comes
/// back); the UI asked first.
#[tauri::command]
pub async fn git_revert_file(
    shell: State<'_, Shell>,
    session_id: String,
    path: PathBuf,
    renamed_from: Option<PathBuf>,
) -> Result<(), ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || {
        session
            .git_revert_file(&path, renamed_from.as_deref())
            .map_err(to_shell)
    })
    .await
}

/// Unstages files in the session's folder.
#[tauri::command]
pub fn git_unstage(
    shell: State<'_, Shell>,
    session_id: String,
    paths: Vec<PathBuf>,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_unstage(&paths)
        .map_err(to_shell)
}

/// Commits what is staged in the session's folder; the new commit.
#[tauri::command]
pub fn git_commit(
    shell: State<'_, Shell>,
    session_id: String,
    message: String,
) -> Result<String, ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_commit(&message)
        .map_err(to_shell)
}

/// Creates a branch at the session's folder's current commit.
#[tauri::command]
pub fn git_create_branch(
    shell: State<'_, Shell>,
    session_id: String,
    name: String,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .git_create_branch(name.trim())
        .map_err(to_shell)
}

/// A commit message for what is staged, from the fast model (the user edits it).
#[tauri::command]
pub async fn suggest_commit_message(
    shell: State<'_, Shell>,
    session_id: String,
) -> Result<String, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    session.suggest_commit_message().await.map_err(to_shell)
}

/// Undoes one hunk of a change in the file as it is now (the Changes panel's Undo).
#[tauri::command]
pub fn undo_hunk(
    shell: State<'_, Shell>,
    session_id: String,
    path: PathBuf,
    hunk: nerve_protocol::DiffHunk,
) -> Result<(), ShellError> {
    shell
        .sessions
        .get(&session_id)?
        .undo_hunk(&path, &hunk)
        .map_err(to_shell)
}

/// The prompt that sends review comments back to the agent (the UI sends it as a prompt).
#[tauri::command]
pub fn review_prompt(
    shell: State<'_, Shell>,
    session_id: String,
    comments: Vec<nerve_protocol::checkpoint::ReviewComment>,
) -> Result<String, ShellError> {
    Ok(shell.sessions.get(&session_id)?.review_prompt(&comments))
}
