//! The Outputs browser's commands: a project's persisted tool outputs, with no session open. Each
//! is a thin call into `nerve::outputs` (the engine reads the files; the UI only shows them), so the
//! browser and `nerve outputs` cannot disagree. Save-as and reveal go through the dialog and opener
//! plugins from Rust, so the UI holds no file-system permission.

use std::path::{Path, PathBuf};

use nerve::outputs::{self, Deleted, OutputFilter, OutputInfo, OutputLine, SearchHit};
use serde::Serialize;
use tauri::ipc::Channel;
use ts_rs::TS;

use crate::commands::blocking;
use crate::error::{ShellError, to_shell};

/// Most hits one search sends (the browser says when it stopped there).
const MAX_HITS: usize = 5_000;
/// Most lines one read returns.
const MAX_LINES: usize = 5_000;

/// A project's outputs and the disk space they take.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct OutputsView {
    /// The outputs, newest first.
    pub outputs: Vec<OutputInfo>,
    /// Bytes they take on disk.
    #[ts(type = "number")]
    pub disk_bytes: u64,
}

/// How a search ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SearchDone {
    /// Hits sent.
    #[ts(type = "number")]
    pub hits: u64,
    /// Whether it stopped at the limit before the end.
    pub truncated: bool,
}

fn data_dir(project_path: &str) -> Result<PathBuf, ShellError> {
    nerve::project::data_dir_of(&nerve::EngineEnv::process(), Path::new(project_path.trim()))
        .map_err(to_shell)
}

fn filter(session_id: Option<String>, tool: Option<String>) -> OutputFilter {
    OutputFilter { session_id, tool }
}

/// The project's persisted outputs (optionally one session's or one tool's) and their disk use.
#[tauri::command]
pub async fn list_outputs(
    project_path: String,
    session_id: Option<String>,
    tool: Option<String>,
) -> Result<OutputsView, ShellError> {
    blocking(move || {
        let data = data_dir(&project_path)?;
        Ok(OutputsView {
            outputs: outputs::list_outputs(&data, &filter(session_id, tool)).map_err(to_shell)?,
            disk_bytes: outputs::disk_usage(&data).map_err(to_shell)?,
        })
    })
    .await
}

/// Searches the outputs' contents, sending each matching line on `on_hit` as it is found.
#[tauri::command]
pub async fn search_outputs(
    project_path: String,
    pattern: String,
    regex: bool,
    session_id: Option<String>,
    tool: Option<String>,
    on_hit: Channel<SearchHit>,
) -> Result<SearchDone, ShellError> {
    blocking(move || {
        let data = data_dir(&project_path)?;
        let mut sent = 0usize;
        let mut closed = false;
        outputs::search_outputs(&data, &filter(session_id, tool), &pattern, regex, |hit| {
            if on_hit.send(hit).is_err() {
                // The window went away: stop searching.
                closed = true;
                return false;
            }
            sent += 1;
            sent < MAX_HITS
        })
        .map_err(to_shell)?;
        Ok(SearchDone {
            hits: sent as u64,
            truncated: sent >= MAX_HITS && !closed,
        })
    })
    .await
}

/// Lines `first..first + count` (1-based) of one output (by call id or path).
#[tauri::command]
pub async fn read_output_lines(
    project_path: String,
    output: String,
    first: u64,
    count: usize,
) -> Result<Vec<OutputLine>, ShellError> {
    blocking(move || {
        let entry = outputs::find_output(&data_dir(&project_path)?, &output).map_err(to_shell)?;
        outputs::read_lines(&entry.path, first, count.min(MAX_LINES)).map_err(to_shell)
    })
    .await
}

/// The last `count` lines of one output, read backwards from its end.
#[tauri::command]
pub async fn tail_output(
    project_path: String,
    output: String,
    count: usize,
) -> Result<Vec<String>, ShellError> {
    blocking(move || {
        let entry = outputs::find_output(&data_dir(&project_path)?, &output).map_err(to_shell)?;
        outputs::tail_lines(&entry.path, count.min(MAX_LINES)).map_err(to_shell)
    })
    .await
}

/// Deletes outputs (call ids or paths) or all of a session's; says what it freed.
#[tauri::command]
pub async fn delete_outputs(
    project_path: String,
    outputs: Vec<String>,
    session_id: Option<String>,
) -> Result<Deleted, ShellError> {
    blocking(move || {
        outputs::delete_outputs(&data_dir(&project_path)?, &outputs, session_id.as_deref()).map_err(to_shell)
    })
    .await
}

/// Saves a byte-identical copy of one output where the user picks (the system's save dialog);
/// the path, or nothing when the user cancelled.
#[tauri::command]
pub async fn save_output_as(
    app: tauri::AppHandle,
    project_path: String,
    output: String,
) -> Result<Option<String>, ShellError> {
    use tauri_plugin_dialog::DialogExt;
    blocking(move || {
        let entry = outputs::find_output(&data_dir(&project_path)?, &output).map_err(to_shell)?;
        let name = entry
            .path
            .file_name()
            .map_or_else(|| "output.txt".to_string(), |n| n.to_string_lossy().into_owned());
        // The end-to-end test names the target instead of driving the system's dialog.
        let target = match std::env::var_os("NERVE_TEST_SAVE_AS") {
            Some(path) => PathBuf::from(path),
            None => {
                let Some(picked) = app.dialog().file().set_file_name(&name).blocking_save_file() else {
                    return Ok(None);
                };
                picked.into_path().map_err(to_shell)?
            }
        };
        copy_whole(&entry.path, &target)?;
        Ok(Some(target.display().to_string()))
    })
    .await
}

fn copy_whole(from: &Path, to: &Path) -> Result<(), ShellError> {
    std::fs::copy(from, to).map(|_| ()).map_err(|e| {
        ShellError::new(format!(
            "could not copy {} to {}: {e}",
            from.display(),
            to.display()
        ))
    })
}

/// Shows one output's file in the system's file manager (only files of the app's data folder).
#[tauri::command]
pub async fn reveal_output(
    app: tauri::AppHandle,
    project_path: String,
    output: String,
) -> Result<(), ShellError> {
    use tauri_plugin_opener::OpenerExt;
    let entry =
        blocking(move || outputs::find_output(&data_dir(&project_path)?, &output).map_err(to_shell)).await?;
    let data_root = nerve::project::data_root(&nerve::EngineEnv::process());
    if !entry.path.starts_with(&data_root) {
        return Err(ShellError::new(format!(
            "{} is not in the app's data folder",
            entry.path.display()
        )));
    }
    app.opener()
        .reveal_item_in_dir(&entry.path)
        .map_err(|e| ShellError::new(format!("could not show {}: {e}", entry.path.display())))
}
