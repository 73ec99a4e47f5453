//! Running one command hook: `sh -c COMMAND` in its own process group, input on stdin, output capped,
//! killed as a group on timeout or cancellation.

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::time::{Duration, Instant};

use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::hooks::capture::{CapturedOutput, OUTPUT_CAP_BYTES, read_capped};
use crate::hooks::config::CommandHook;
use crate::hooks::execution::{HookEnding, HookExecution};
use crate::process_group::{GroupKillGuard, GroupSignal, signal_group, terminate};

/// How long to wait for stdout/stderr to close after the shell exited. Longer means a background
/// child still holds the pipes; the group is then killed so the hook cannot hang the pipeline.
const OUTPUT_GRACE: Duration = Duration::from_millis(300);

/// The environment variables naming the project directory (Claude Code's name, then ours).
const PROJECT_DIR_VARIABLES: [&str; 2] = ["CLAUDE_PROJECT_DIR", "NERVE_PROJECT_DIR"];

enum Wait {
    Exited(ExitStatus),
    TimedOut,
    Cancelled,
    Failed(std::io::Error),
}

/// Runs `hook` with `stdin_json` on stdin from `project_dir`.
pub(crate) async fn run_command_hook(
    hook: &CommandHook,
    stdin_json: &[u8],
    project_dir: &Path,
    cancel: &CancellationToken,
) -> HookExecution {
    let started = Instant::now();
    let finish = |ending: HookEnding, stdout: CapturedOutput, stderr: CapturedOutput| HookExecution {
        hook: hook.clone(),
        ending,
        stdout,
        stderr,
        elapsed: started.elapsed(),
    };

    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg(&hook.command)
        .current_dir(project_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    crate::child_env::as_user(command.as_std_mut());
    for name in PROJECT_DIR_VARIABLES {
        command.env(name, project_dir);
    }

    let mut child = match command.spawn() {
        Ok(child) => child,
        Err(error) => {
            let reason = format!("could not start `sh -c` in {}: {error}", project_dir.display());
            return finish(
                HookEnding::NotStarted { reason },
                CapturedOutput::default(),
                CapturedOutput::default(),
            );
        }
    };
    let Some(pgid) = child.id() else {
        // The child was already reaped, which cannot happen before we wait on it; say so rather than
        // guess a result.
        return finish(
            HookEnding::WaitFailed {
                reason: "the hook process vanished before it could be tracked".to_owned(),
            },
            CapturedOutput::default(),
            CapturedOutput::default(),
        );
    };
    // With process_group(0) the shell leads a new group whose id is its pid.
    let mut guard = GroupKillGuard::new(pgid);

    let writer = spawn_stdin_writer(&mut child, stdin_json.to_vec());
    let drain_stop = CancellationToken::new();
    let stdout_task = spawn_reader(child.stdout.take(), drain_stop.clone());
    let stderr_task = spawn_reader(child.stderr.take(), drain_stop.clone());

    let wait = tokio::select! {
        biased;
        () = cancel.cancelled() => Wait::Cancelled,
        status = child.wait() => match status {
            Ok(status) => Wait::Exited(status),
            Err(error) => Wait::Failed(error),
        },
        () = tokio::time::sleep(hook.timeout) => Wait::TimedOut,
    };

    let ending = match wait {
        Wait::Exited(status) => ending_from_status(status),
        Wait::TimedOut => {
            terminate(pgid, &mut child).await;
            HookEnding::TimedOut { after: hook.timeout }
        }
        Wait::Cancelled => {
            terminate(pgid, &mut child).await;
            HookEnding::Cancelled
        }
        Wait::Failed(error) => {
            terminate(pgid, &mut child).await;
            HookEnding::WaitFailed {
                reason: error.to_string(),
            }
        }
    };
    if let Some(writer) = writer {
        writer.abort();
    }

    let outputs = async { tokio::join!(stdout_task, stderr_task) };
    tokio::pin!(outputs);
    let (stdout, stderr) = tokio::select! {
        outputs = &mut outputs => outputs,
        () = tokio::time::sleep(OUTPUT_GRACE) => {
            // The shell is gone but something it started still holds stdout or stderr open.
            tracing::debug!(
                command = %hook.command,
                "hook left a background process holding its output; killing its process group"
            );
            signal_group(pgid, GroupSignal::Kill);
            drain_stop.cancel();
            outputs.await
        }
    };
    guard.disarm();
    finish(ending, joined_output(stdout), joined_output(stderr))
}

fn ending_from_status(status: ExitStatus) -> HookEnding {
    match (status.code(), status.signal()) {
        (Some(code), _) => HookEnding::Exited { code },
        (None, Some(signal)) => HookEnding::KilledBySignal { signal },
        (None, None) => HookEnding::WaitFailed {
            reason: format!("exit status {status} has neither an exit code nor a signal"),
        },
    }
}

fn spawn_stdin_writer(child: &mut Child, input: Vec<u8>) -> Option<JoinHandle<()>> {
    let mut stdin = child.stdin.take()?;
    Some(tokio::spawn(async move {
        // A hook that ignores stdin may exit before reading it; the broken pipe is not its error.
        if let Err(error) = stdin.write_all(&input).await {
            tracing::debug!(%error, "hook did not read all of its input");
        }
        drop(stdin);
    }))
}

fn spawn_reader<R>(stream: Option<R>, stop: CancellationToken) -> JoinHandle<CapturedOutput>
where
    R: tokio::io::AsyncRead + Unpin + Send + 'static,
{
    tokio::spawn(async move {
        match stream {
            Some(stream) => read_capped(stream, OUTPUT_CAP_BYTES, stop).await,
            None => CapturedOutput::default(),
        }
    })
}

fn joined_output(result: Result<CapturedOutput, tokio::task::JoinError>) -> CapturedOutput {
    match result {
        Ok(output) => output,
        Err(error) => CapturedOutput {
            text: format!("[output lost: the reader task failed: {error}]"),
            dropped_bytes: 0,
        },
    }
}
