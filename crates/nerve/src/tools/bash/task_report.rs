//! What TaskOutput and TaskStop tell the model about a background task.

use crate::tools::bash::background::{TaskInfo, TaskStatus};
use crate::tools::bash::render::render_output;
use crate::tools::bash::spool::excerpt_of_file;

/// Longest command shown in a report (the whole report must stay under the result limit).
const COMMAND_CHARS: usize = 200;

fn shortened(command: &str) -> String {
    let mut short: String = command.chars().take(COMMAND_CHARS).collect();
    if command.chars().count() > COMMAND_CHARS {
        short.push('…');
    }
    short
}

/// The task's status line and its output so far (head and tail when long, with the file's path).
pub fn task_report(info: &TaskInfo) -> std::io::Result<String> {
    let status = match (info.status, info.exit_code) {
        (TaskStatus::Running, _) => "running".to_string(),
        (TaskStatus::Completed, _) => "completed (exit code 0)".to_string(),
        (TaskStatus::Failed, Some(code)) => format!("failed (exit code {code})"),
        (TaskStatus::Failed, None) => "failed (killed by a signal)".to_string(),
        (TaskStatus::Killed, _) => "killed".to_string(),
        (TaskStatus::Lost, _) => "lost (the app that ran it ended)".to_string(),
    };
    let excerpt = excerpt_of_file(&info.output_path)?;
    let output = render_output(&excerpt, Some(&info.output_path)).text;
    let mut text = format!("Task {} ({}): {status}", info.id, shortened(&info.command));
    if output.is_empty() {
        text.push_str("\n(no output yet)");
    } else {
        text.push_str("\n\n");
        text.push_str(&output);
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_report_of_huge_output_and_a_huge_command_stays_under_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        std::fs::write(&path, vec![b'y'; 1_000_000]).unwrap();
        let info = TaskInfo {
            id: "bash_1".into(),
            command: "x".repeat(50_000),
            status: TaskStatus::Running,
            exit_code: None,
            output_path: path,
        };
        let text = task_report(&info).unwrap();
        assert!(text.starts_with("Task bash_1 (xxx"), "{}", &text[..40]);
        assert!(text.contains("bytes omitted"));
        assert!(
            text.len() < crate::tools::bash::MAX_RESULT_CHARS,
            "{}",
            text.len()
        );
    }
}
