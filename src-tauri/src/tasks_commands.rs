//! The session's background work: its background shells and sub-agents listed, followed, tailed and
//! stopped, a finished sub-agent's conversation read back, and the session's events between turns
//! (a background command ending after its turn did) sent to the window. Thin calls into the live
//! `Session`.

use nerve_protocol::Event;
use nerve_protocol::tasks::TaskView;
use nerve_protocol::transcripts::SubagentTranscript;
use tauri::State;
use tauri::ipc::Channel;

use crate::commands::{Shell, blocking};
use crate::error::{ShellError, to_shell};

/// Most lines one tail returns.
const MAX_TAIL_LINES: usize = 2_000;

/// The session's background shells and sub-agents, oldest first: running, ended, and those lost
/// with an app that ended while they ran.
#[tauri::command]
pub async fn list_tasks(shell: State<'_, Shell>, session_id: String) -> Result<Vec<TaskView>, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || Ok(session.tasks())).await
}

/// Stops a task: a background shell's process group, or one sub-agent (the turn goes on).
#[tauri::command]
pub async fn stop_task(
    shell: State<'_, Shell>,
    session_id: String,
    task_id: String,
) -> Result<TaskView, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    session.stop_task(&task_id).await.map_err(to_shell)
}

/// The last `count` lines a background shell wrote, read from its output file (the file the model
/// reads with TaskOutput, not a copy).
#[tauri::command]
pub async fn tail_task(
    shell: State<'_, Shell>,
    session_id: String,
    task_id: String,
    count: usize,
) -> Result<Vec<String>, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || {
        let path = session
            .tasks()
            .into_iter()
            .find(|t| t.id == task_id)
            .and_then(|t| t.output_path)
            .ok_or_else(|| ShellError::new(format!("task {task_id} has no output file")))?;
        nerve::outputs::tail_lines(&path, count.min(MAX_TAIL_LINES)).map_err(to_shell)
    })
    .await
}

/// A finished sub-agent's conversation, as it was when it ended.
#[tauri::command]
pub async fn subagent_transcript(
    shell: State<'_, Shell>,
    session_id: String,
    agent_id: String,
) -> Result<SubagentTranscript, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    blocking(move || session.subagent_transcript(&agent_id).map_err(to_shell)).await
}

/// Sends the session's events between turns (a background task ending) to `on_event`, replacing
/// the channel a window gave before.
#[tauri::command]
pub async fn watch_session(
    shell: State<'_, Shell>,
    session_id: String,
    on_event: Channel<Event>,
) -> Result<(), ShellError> {
    shell.sessions.watch(&session_id, on_event)
}
