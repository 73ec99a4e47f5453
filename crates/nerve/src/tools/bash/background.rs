//! Commands started with `run_in_background`: a per-session registry of running shells, their output
//! files and how they ended. Shared by every clone of the session's context; when the last clone goes
//! (the session ends), every task still running is killed with its process group.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde::Serialize;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use crate::process_group::{GroupSignal, TERMINATE_GRACE, kill_group_in_background, signal_group};
use crate::tools::bash::process::{spawn_bash, terminate_group};
use crate::tools::bash::spool::Spool;
use crate::tools::bash::stream::pump;

/// How long output may keep coming after a background shell exited.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

pub use crate::tool::tasks::TaskStatus;
use crate::tool::tasks::{TaskBoard, TaskKind, TaskView, now_ms};

/// A background task as the UI and the model see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TaskInfo {
    /// The id (`bash_1`) the model passes to TaskOutput and TaskStop.
    pub id: String,
    /// The command as given.
    pub command: String,
    /// Where it is.
    pub status: TaskStatus,
    /// Its exit code, once it exited with one.
    pub exit_code: Option<i32>,
    /// The file its stdout and stderr are written to.
    pub output_path: PathBuf,
}

struct Task {
    id: String,
    command: String,
    output_path: PathBuf,
    tool_use_id: String,
    started_at_ms: u64,
    ended_at_ms: Mutex<Option<u64>>,
    pgid: u32,
    state: Mutex<(TaskStatus, Option<i32>)>,
    done: watch::Sender<bool>,
    stop: CancellationToken,
    kill_requested: AtomicBool,
}

impl Task {
    fn info(&self) -> TaskInfo {
        let (status, exit_code) = *self.state.lock().unwrap_or_else(PoisonError::into_inner);
        TaskInfo {
            id: self.id.clone(),
            command: self.command.clone(),
            status,
            exit_code,
            output_path: self.output_path.clone(),
        }
    }

    fn view(&self) -> TaskView {
        let info = self.info();
        TaskView {
            id: info.id,
            tool_use_id: self.tool_use_id.clone(),
            kind: TaskKind::Shell {
                command: info.command,
            },
            started_at_ms: self.started_at_ms,
            ended_at_ms: *self.ended_at_ms.lock().unwrap_or_else(PoisonError::into_inner),
            status: info.status,
            exit_code: info.exit_code,
            output_path: Some(info.output_path),
        }
    }

    fn running(&self) -> bool {
        !*self.done.borrow()
    }
}

#[derive(Default)]
struct Registry {
    next_id: AtomicU64,
    tasks: Mutex<Vec<Arc<Task>>>,
}

impl Drop for Registry {
    fn drop(&mut self) {
        let tasks = self.tasks.get_mut().unwrap_or_else(PoisonError::into_inner);
        for task in tasks.iter().filter(|t| t.running()) {
            // The session is over: no grace period, nobody is left to read a clean-up message.
            task.kill_requested.store(true, Ordering::SeqCst);
            signal_group(task.pgid, GroupSignal::Kill);
        }
    }
}

/// The session's background tasks. Cheap to clone; clones share the tasks.
#[derive(Clone, Default)]
pub struct BackgroundTasks {
    registry: Arc<Registry>,
}

impl std::fmt::Debug for BackgroundTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.list().iter().map(|t| t.id.clone()))
            .finish()
    }
}

impl BackgroundTasks {
    /// The session's background tasks (kept in the context's extensions, so every clone of the
    /// context and every sub-agent sees the same tasks).
    pub fn of(ctx: &crate::tool::ToolUseContext) -> Self {
        ctx.exec.extensions.get_or_default::<Self>()
    }

    /// Every task of the session, oldest first.
    pub fn list(&self) -> Vec<TaskInfo> {
        self.tasks().iter().map(|t| t.info()).collect()
    }

    /// Numbers new tasks after the ids `used` (a resumed session's earlier tasks keep theirs).
    pub fn number_after<'a>(&self, used: impl IntoIterator<Item = &'a str>) {
        let highest = used
            .into_iter()
            .filter_map(|id| id.strip_prefix("bash_")?.parse::<u64>().ok())
            .max()
            .unwrap_or(0);
        self.registry.next_id.fetch_max(highest, Ordering::SeqCst);
    }

    /// Every task of the session as front-ends show them, oldest first.
    pub fn views(&self) -> Vec<TaskView> {
        self.tasks().iter().map(|t| t.view()).collect()
    }

    /// One task.
    pub fn get(&self, id: &str) -> Option<TaskInfo> {
        self.find(id).map(|t| t.info())
    }

    /// Starts `command` in `cwd` for the call `tool_use_id`, its output written to a file in
    /// `out_dir`; `board` hears when it starts and ends.
    pub(crate) fn start(
        &self,
        command: &str,
        cwd: &Path,
        out_dir: &Path,
        sandbox: Option<&crate::tools::bash::process::SandboxLaunch>,
        tool_use_id: &str,
        board: TaskBoard,
    ) -> std::io::Result<TaskInfo> {
        let n = self.registry.next_id.fetch_add(1, Ordering::SeqCst) + 1;
        let id = format!("bash_{n}");
        let mut spool = Spool::create(out_dir.join(format!("background-{id}-{}.log", uuid::Uuid::new_v4())))?;
        spool.keep();
        let output_path = spool.path().to_path_buf();
        let mut shell = spawn_bash(command, &[], cwd, sandbox)?;
        // The command's network proxy serves it until it ends.
        let proxy = sandbox.and_then(|launch| launch.proxy.clone());
        let Some(pgid) = shell.guard.pgid() else {
            return Err(std::io::Error::other("the background shell has no process group"));
        };
        let (done, _) = watch::channel(false);
        let task = Arc::new(Task {
            id,
            command: command.to_string(),
            output_path,
            tool_use_id: tool_use_id.to_string(),
            started_at_ms: now_ms(),
            ended_at_ms: Mutex::new(None),
            pgid,
            state: Mutex::new((TaskStatus::Running, None)),
            done,
            stop: CancellationToken::new(),
            kill_requested: AtomicBool::new(false),
        });
        self.registry
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(Arc::clone(&task));
        let info = task.info();
        board.changed(&task.view());

        // The supervisor holds the task, never the registry, so dropping the session's last
        // context still drops the registry (and kills the groups).
        tokio::spawn(async move {
            let reader_stop = CancellationToken::new();
            let reader = tokio::spawn(pump(shell.output, spool, None, reader_stop.clone()));
            let status = tokio::select! {
                s = shell.child.wait() => {
                    shell.guard.disarm();
                    s.ok()
                }
                () = task.stop.cancelled() => {
                    task.kill_requested.store(true, Ordering::SeqCst);
                    terminate_group(&mut shell.child, &mut shell.guard).await
                }
            };
            if tokio::time::timeout(DRAIN_GRACE, reader).await.is_err() {
                reader_stop.cancel();
            }
            let outcome = if task.kill_requested.load(Ordering::SeqCst) {
                (TaskStatus::Killed, status.and_then(|s| s.code()))
            } else {
                match status {
                    Some(s) if s.success() => (TaskStatus::Completed, Some(0)),
                    Some(s) => (TaskStatus::Failed, s.code()),
                    None => (TaskStatus::Failed, None),
                }
            };
            *task.state.lock().unwrap_or_else(PoisonError::into_inner) = outcome;
            *task.ended_at_ms.lock().unwrap_or_else(PoisonError::into_inner) = Some(now_ms());
            drop(proxy);
            board.changed(&task.view());
            task.done.send_replace(true);
        });
        Ok(info)
    }

    /// Waits up to `timeout` for the task to finish; returns it as it is then.
    pub async fn wait(&self, id: &str, timeout: Duration) -> Option<TaskInfo> {
        let task = self.find(id)?;
        let mut done = task.done.subscribe();
        let _ = tokio::time::timeout(timeout, done.wait_for(|d| *d)).await;
        Some(task.info())
    }

    /// Stops a running task (its whole process group: SIGTERM, then SIGKILL) and waits for it.
    /// Returns `None` for an unknown id.
    pub async fn stop(&self, id: &str) -> Option<TaskInfo> {
        let task = self.find(id)?;
        if task.running() {
            task.kill_requested.store(true, Ordering::SeqCst);
            task.stop.cancel();
        }
        self.wait(id, TERMINATE_GRACE + DRAIN_GRACE + Duration::from_secs(1))
            .await
    }

    /// Kills every running task (for an orderly session end; dropping the last handle does the
    /// same without the grace period).
    pub fn shutdown(&self) {
        for task in self.tasks().iter().filter(|t| t.running()) {
            task.kill_requested.store(true, Ordering::SeqCst);
            task.stop.cancel();
            kill_group_in_background(task.pgid);
        }
    }

    fn tasks(&self) -> Vec<Arc<Task>> {
        self.registry
            .tasks
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    fn find(&self, id: &str) -> Option<Arc<Task>> {
        self.tasks().into_iter().find(|t| t.id == id)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::tools::bash::test_util::{process_gone, read_pid};

    #[tokio::test]
    async fn a_task_runs_to_completion_with_its_output_in_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BackgroundTasks::default();
        let info = tasks
            .start(
                "echo out; echo err >&2; exit 3",
                dir.path(),
                dir.path(),
                None,
                "call",
                TaskBoard::default(),
            )
            .unwrap();
        assert_eq!(info.id, "bash_1");
        assert_eq!(info.status, TaskStatus::Running);
        let done = tasks.wait("bash_1", Duration::from_secs(10)).await.unwrap();
        assert_eq!((done.status, done.exit_code), (TaskStatus::Failed, Some(3)));
        let text = std::fs::read_to_string(&done.output_path).unwrap();
        assert!(text.contains("out") && text.contains("err"), "{text}");
        assert_eq!(tasks.list().len(), 1);
        assert!(tasks.get("bash_9").is_none());
    }

    #[tokio::test]
    async fn stop_kills_the_group() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BackgroundTasks::default();
        let pidfile = dir.path().join("pid");
        let cmd = format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display());
        tasks
            .start(&cmd, dir.path(), dir.path(), None, "call", TaskBoard::default())
            .unwrap();
        let pid = read_pid(&pidfile).await;
        let info = tasks.stop("bash_1").await.unwrap();
        assert_eq!(info.status, TaskStatus::Killed);
        assert!(process_gone(pid, Duration::from_secs(3)).await);
    }

    #[tokio::test]
    async fn dropping_the_last_handle_kills_running_tasks() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BackgroundTasks::default();
        let pidfile = dir.path().join("pid");
        let cmd = format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display());
        tasks
            .start(&cmd, dir.path(), dir.path(), None, "call", TaskBoard::default())
            .unwrap();
        let pid = read_pid(&pidfile).await;
        let clone = tasks.clone();
        drop(tasks);
        assert!(
            !process_gone(pid, Duration::from_millis(200)).await,
            "a clone still holds the session"
        );
        drop(clone);
        assert!(process_gone(pid, Duration::from_secs(3)).await);
    }

    #[tokio::test]
    async fn shutdown_kills_running_tasks() {
        let dir = tempfile::tempdir().unwrap();
        let tasks = BackgroundTasks::default();
        let pidfile = dir.path().join("pid");
        let cmd = format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display());
        tasks
            .start(&cmd, dir.path(), dir.path(), None, "call", TaskBoard::default())
            .unwrap();
        let pid = read_pid(&pidfile).await;
        tasks.shutdown();
        assert!(process_gone(pid, Duration::from_secs(4)).await);
        let info = tasks.wait("bash_1", Duration::from_secs(5)).await.unwrap();
        assert_eq!(info.status, TaskStatus::Killed);
    }
}
