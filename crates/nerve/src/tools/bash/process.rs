//! Starting `bash -c` as the leader of its own process group, and stopping the whole group.
//!
//! Killing only `bash` would leave `make`'s compilers or a `sleep &` running with our pipes open, so
//! every stop (timeout, abort, TaskStop, session end) signals the group: SIGTERM first so programs
//! can clean up, SIGKILL after a grace period.

use std::path::Path;
use std::process::{ExitStatus, Stdio};

use tokio::net::unix::pipe;
use tokio::process::{Child, Command};

pub(crate) use crate::process_group::GroupKillGuard;

/// Variables that would make a non-interactive bash read startup files.
const STARTUP_FILE_VARIABLES: [&str; 2] = ["BASH_ENV", "ENV"];

/// A started shell: the child, its output pipe and its process group.
#[derive(Debug)]
pub(crate) struct Shell {
    /// The `bash` process (the group leader).
    pub child: Child,
    /// Its standard output and standard error: one pipe, so bytes arrive in the order they were
    /// written (with two pipes, a failing test's last stderr line could be read before the stdout
    /// still buffered ahead of it, and fall out of the tail the model sees).
    pub output: pipe::Receiver,
    /// Kills the group if dropped while armed.
    pub guard: GroupKillGuard,
}

/// How to run a command through the sandbox helper: the helper binary, the policy (`None`:
/// unrestricted, only supervised so it dies with the engine), the temp folder.
#[derive(Debug, Clone)]
pub(crate) struct SandboxLaunch {
    /// The binary acting as the sandbox helper.
    pub helper: std::path::PathBuf,
    /// What the command may touch.
    pub policy: Option<crate::sandbox::SandboxPolicy>,
    /// The session's temp folder, given as `TMPDIR`.
    pub temp_dir: std::path::PathBuf,
    /// The network proxy started for this command (kept running while it runs).
    pub proxy: Option<std::sync::Arc<crate::sandbox::proxy::NetworkProxy>>,
}

/// Starts `bash --noprofile --norc -c SCRIPT nerve-bash ARGS...` in `cwd`: non-login, no rc files,
/// stdin from /dev/null, stdout and stderr into one pipe, in a new process group; through the
/// sandbox helper when `sandbox` is given (the helper restricts itself, then becomes `bash`, in the
/// same process: the group, the pipes and the directory are the same).
pub(crate) fn spawn_bash(
    script: &str,
    args: &[&str],
    cwd: &Path,
    sandbox: Option<&SandboxLaunch>,
) -> std::io::Result<Shell> {
    let (reader, writer) = std::io::pipe()?;
    let error_writer = writer.try_clone()?;
    let output = pipe::Receiver::from_owned_fd(reader.into())?;
    let mut command = match sandbox {
        Some(launch) => {
            std::fs::create_dir_all(&launch.temp_dir)?;
            let mut c = Command::new(&launch.helper);
            c.args(
                crate::sandbox::helper::command_line(launch.policy.as_ref())
                    .map_err(std::io::Error::other)?,
            )
            .arg("bash")
            .env("TMPDIR", &launch.temp_dir);
            if let Some(bridge) = launch.policy.as_ref().and_then(|p| p.proxy.as_ref()) {
                c.envs(bridge.environment());
            }
            c
        }
        None => Command::new("bash"),
    };
    command
        .arg("--noprofile")
        .arg("--norc")
        .arg("-c")
        .arg(script)
        .arg("nerve-bash")
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::from(writer))
        .stderr(Stdio::from(error_writer))
        .process_group(0)
        .kill_on_drop(true)
        // Nobody can type into an editor or pager: make git and friends fall through.
        .env("GIT_EDITOR", "true")
        .env("GIT_PAGER", "cat")
        .env("PAGER", "cat");
    crate::child_env::as_user(command.as_std_mut());
    for name in STARTUP_FILE_VARIABLES {
        command.env_remove(name);
    }
    let child = command.spawn()?;
    // Our copies of the pipe's write end must close, or the reader never sees the end of output.
    drop(command);
    let Some(pgid) = child.id() else {
        return Err(std::io::Error::other("the shell started without a process id"));
    };
    Ok(Shell {
        child,
        output,
        guard: GroupKillGuard::new(pgid),
    })
}

/// Stops the group (see [`crate::process_group::terminate`]) and disarms its guard. Returns the
/// leader's exit status if it could be collected.
pub(crate) async fn terminate_group(child: &mut Child, guard: &mut GroupKillGuard) -> Option<ExitStatus> {
    let pgid = guard.pgid()?;
    let status = crate::process_group::terminate(pgid, child).await;
    guard.disarm();
    status
}

/// How the shell ended, in words for the model ("Exit code 2").
pub(crate) fn describe_status(status: &ExitStatus) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(0), _) => None,
        (Some(code), _) => Some(format!("Exit code {code}")),
        (None, Some(signal)) => Some(format!("Killed by signal {signal}")),
        (None, None) => Some("The command ended without an exit code".to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;
    use tokio::io::AsyncReadExt;

    #[tokio::test]
    async fn runs_without_rc_files_and_passes_args() {
        let dir = tempfile::tempdir().unwrap();
        let mut shell = spawn_bash(
            r#"printf '%s|%s' "$1" "${BASH_ENV-unset}""#,
            &["arg one"],
            dir.path(),
            None,
        )
        .unwrap();
        let mut out = String::new();
        shell.output.read_to_string(&mut out).await.unwrap();
        let status = shell.child.wait().await.unwrap();
        shell.guard.disarm();
        assert!(status.success());
        assert_eq!(out, "arg one|unset");
    }

    #[tokio::test]
    async fn terminate_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let pidfile = dir.path().join("pid");
        let script = format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display());
        let mut shell = spawn_bash(&script, &[], dir.path(), None).unwrap();
        let pid = loop {
            if let Ok(text) = std::fs::read_to_string(&pidfile)
                && let Ok(pid) = text.trim().parse::<u32>()
            {
                break pid;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        };
        let status = terminate_group(&mut shell.child, &mut shell.guard).await.unwrap();
        assert!(!status.success());
        assert!(shell.guard.pgid().is_none());
        assert!(crate::tools::bash::test_util::process_gone(pid, Duration::from_secs(3)).await);
    }

    #[test]
    fn statuses_are_described() {
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(describe_status(&ExitStatus::from_raw(0)), None);
        assert_eq!(
            describe_status(&ExitStatus::from_raw(2 << 8)).as_deref(),
            Some("Exit code 2")
        );
        assert_eq!(
            describe_status(&ExitStatus::from_raw(9)).as_deref(),
            Some("Killed by signal 9")
        );
    }
}
