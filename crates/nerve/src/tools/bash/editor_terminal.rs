//! Running a foreground command in a terminal of the editor the session runs inside (an ACP client
//! that offered terminals), so the user watches it live in the call's card. The command line is
//! the one [`super::run::run_foreground`] would start itself: the same shell, the same
//! working-directory tracking and, through the sandbox helper, the same sandbox; the engine keeps
//! the timeout and the abort, and turns the output into the same result.

use std::os::unix::process::ExitStatusExt as _;
use std::process::ExitStatus;
use std::sync::Arc;
use std::time::Duration;

use crate::tool::editor::{Editor, TerminalCommand, TerminalEnd};
use crate::tool::{ProgressSink, ToolError, ToolOutput, ToolUseContext};
use crate::tools::bash::cwd::tracking_script;
use crate::tools::bash::render::Ending;
use crate::tools::bash::run::{Ran, conclude, output_dir, sandbox_launch, start_dir};
use crate::tools::bash::spool::Spool;

/// Most output the editor is asked to keep; beyond it, the start goes (the model sees the end).
pub(crate) const OUTPUT_BYTE_LIMIT: u64 = 4 * 1024 * 1024;

/// Runs `command` in a terminal of `editor`'s with a timeout.
pub(crate) async fn run_in_editor(
    editor: &Arc<dyn Editor>,
    command: &str,
    timeout: Duration,
    ctx: &ToolUseContext,
    progress: &ProgressSink,
    sandboxed: bool,
) -> Result<ToolOutput, ToolError> {
    let (cwd, mut notes) = {
        let (dir, note) = start_dir(ctx);
        (dir, note.into_iter().collect::<Vec<_>>())
    };
    let mut spool = Spool::create(output_dir(ctx).join(format!("bash-{}.log", uuid::Uuid::new_v4())))
        .map_err(|e| ToolError::io("could not create the command output file", e))?;
    let cwd_file = tempfile::NamedTempFile::new()
        .map_err(|e| ToolError::io("could not create the working-directory file", e))?;
    let launch = sandbox_launch(ctx, command, sandboxed, &[cwd_file.path().to_path_buf()]);
    let shell = [
        "--noprofile".to_string(),
        "--norc".to_string(),
        "-c".to_string(),
        tracking_script(cwd_file.path()),
        "nerve-bash".to_string(),
        command.to_string(),
    ];
    // Nobody can type into an editor or pager; no startup file may run before the command.
    let mut env: Vec<(String, String)> = [
        ("GIT_EDITOR", "true"),
        ("GIT_PAGER", "cat"),
        ("PAGER", "cat"),
        ("BASH_ENV", ""),
        ("ENV", ""),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let (program, args) = match &launch {
        Some(launch) => {
            std::fs::create_dir_all(&launch.temp_dir)
                .map_err(|e| ToolError::io("could not create the session's temp folder", e))?;
            env.push(("TMPDIR".into(), launch.temp_dir.display().to_string()));
            if let Some(bridge) = launch.policy.as_ref().and_then(|p| p.proxy.as_ref()) {
                env.extend(bridge.environment().into_iter().map(|(k, v)| (k.to_string(), v)));
            }
            let mut args: Vec<String> =
                crate::sandbox::helper::command_line_started_elsewhere(launch.policy.as_ref())
                    .map_err(|e| ToolError::Failed(format!("the sandbox policy could not be written: {e}")))?
                    .into_iter()
                    .map(|a| a.to_string_lossy().into_owned())
                    .collect();
            args.push("bash".into());
            args.extend(shell);
            (launch.helper.clone(), args)
        }
        None => ("bash".into(), shell.to_vec()),
    };

    // One token for both ways a command is stopped early; the reason is read from the context.
    let stop = ctx.exec.cancel.child_token();
    let timer = {
        let stop = stop.clone();
        tokio::spawn(async move {
            tokio::time::sleep(timeout).await;
            stop.cancel();
        })
    };
    let ran = editor
        .run_in_terminal(
            progress.tool_use_id(),
            TerminalCommand {
                program,
                args,
                env,
                cwd: cwd.clone(),
                output_byte_limit: OUTPUT_BYTE_LIMIT,
            },
            stop,
        )
        .await;
    timer.abort();
    let ran = ran.map_err(|e| ToolError::Failed(format!("{e}; the command did not run")))?;

    // A terminal ends lines with CR LF; the model reads them as a pipe would give them.
    spool.push(ran.output.replace("\r\n", "\n").as_bytes());
    if ran.truncated {
        notes.push(format!(
            "The editor's terminal kept only the last {} MB of the output; the start is lost.",
            OUTPUT_BYTE_LIMIT / (1024 * 1024)
        ));
    }
    let ending = match ran.end {
        TerminalEnd::Exited(code) => Ending::Exited(ExitStatus::from_raw(exit_status_word(code))),
        TerminalEnd::Signalled(name) => Ending::Exited(ExitStatus::from_raw(signal_number(&name))),
        TerminalEnd::Stopped if ctx.is_cancelled() => Ending::Interrupted,
        TerminalEnd::Stopped => Ending::TimedOut(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX)),
    };
    conclude(
        Ran {
            spool,
            ending,
            cwd: &cwd,
            cwd_file: cwd_file.path(),
            launch: launch.as_ref(),
            notes,
        },
        ctx,
        progress,
    )
}

/// The wait status of a process that exited with `code` (the low byte, as the kernel keeps it).
fn exit_status_word(code: u32) -> i32 {
    i32::try_from(code & 0xff).unwrap_or(1) << 8
}

/// The wait status of a process a signal named `name` (`SIGKILL`, `KILL` or a number) ended.
fn signal_number(name: &str) -> i32 {
    let name = name.trim();
    if let Ok(number) = name.parse::<i32>() {
        return number & 0x7f;
    }
    let full = if name.starts_with("SIG") {
        name.to_string()
    } else {
        format!("SIG{name}")
    };
    full.parse::<nix::sys::signal::Signal>()
        .map(|s| s as i32)
        // An unknown name still ends the command by a signal: SIGKILL stands in.
        .unwrap_or(nix::sys::signal::Signal::SIGKILL as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exits_and_signals_become_wait_statuses() {
        assert_eq!(ExitStatus::from_raw(exit_status_word(0)).code(), Some(0));
        assert_eq!(ExitStatus::from_raw(exit_status_word(2)).code(), Some(2));
        assert_eq!(ExitStatus::from_raw(exit_status_word(256 + 3)).code(), Some(3));
        assert_eq!(ExitStatus::from_raw(signal_number("SIGTERM")).signal(), Some(15));
        assert_eq!(ExitStatus::from_raw(signal_number("KILL")).signal(), Some(9));
        assert_eq!(ExitStatus::from_raw(signal_number("2")).signal(), Some(2));
        assert_eq!(ExitStatus::from_raw(signal_number("SIGNOPE")).signal(), Some(9));
    }
}
