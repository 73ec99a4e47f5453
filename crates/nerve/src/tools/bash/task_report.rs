//! What TaskOutput and TaskStop tell the model about a background task.

use crate::tools::bash::background::{TaskInfo, TaskStatus};
use crate::tools::bash::render::render_output;
use crate::tools::bash::spool::excerpt_of_file;

/// The task's status line and its output so far (head and tail when long, with the file's path).
pub fn task_report(info: &TaskInfo) -> std::io::Result<String> {
    let status = match (info.status, info.exit_code) {
        (TaskStatus::Running, _) => "running".to_string(),
        (TaskStatus::Completed, _) => "completed (exit code 0)".to_string(),
        (TaskStatus::Failed, Some(code)) => format!("failed (exit code {code})"),
        (TaskStatus::Failed, None) => "failed (killed by a signal)".to_string(),
        (TaskStatus::Killed, _) => "killed".to_string(),
    };
    let excerpt = excerpt_of_file(&info.output_path)?;
    let output = render_output(&excerpt, Some(&info.output_path));
    let mut text = format!("Task {} ({}): {status}", info.id, info.command);
    if output.is_empty() {
        text.push_str("\n(no output yet)");
    } else {
        text.push_str("\n\n");
        text.push_str(&output);
    }
    Ok(text)
}
