//! The environment block: the part of the prompt that differs between sessions of one project
//! (date, git status), so it comes last.

use std::path::Path;

use crate::agent::system_prompt::SystemPromptInputs;

/// Most lines of `git status` shown.
const MAX_STATUS_LINES: usize = 40;

/// `<env>` with the working directory, project, platform, date, model and git status.
pub fn environment_block(inputs: &SystemPromptInputs<'_>) -> String {
    let mut env = format!(
        "<env>\nWorking directory: {}\nProject: {}\nPlatform: {}\nToday's date: {}\nModel: {}\n",
        inputs.cwd.display(),
        inputs.project_dir.display(),
        std::env::consts::OS,
        inputs.date,
        inputs.model
    );
    match git_summary(inputs.project_dir) {
        Some(summary) => env.push_str(&format!(
            "Git status at the start of the session (it does not update; run git for the current state):\n{summary}\n"
        )),
        None => env.push_str("Is a git repository: no\n"),
    }
    env.push_str("</env>");
    env
}

/// `git status --short --branch`, at most [`MAX_STATUS_LINES`] lines, or `None` outside a
/// repository.
fn git_summary(dir: &Path) -> Option<String> {
    // Neutralised: a configuration planted in the repository must not run in the engine.
    let out = crate::git_command::git(dir)
        .args(["-c", "core.quotepath=off", "status", "--short", "--branch"])
        .arg(crate::git_command::STATUS_SUBMODULES)
        .stdin(std::process::Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().collect();
    let mut summary = lines
        .iter()
        .take(MAX_STATUS_LINES)
        .copied()
        .collect::<Vec<_>>()
        .join("\n");
    if lines.len() > MAX_STATUS_LINES {
        summary.push_str(&format!(
            "\n… and {} more changed files",
            lines.len() - MAX_STATUS_LINES
        ));
    }
    Some(summary)
}
