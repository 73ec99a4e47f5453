//! The session's task board: every background shell and sub-agent it runs, announced to the
//! front-end as each starts and ends (`Event::TaskChanged`) and written to a small log beside the
//! transcript, so a session resumed after the app died still knows which tasks were running (they
//! went with the app: they are listed as lost, never as running).
//!
//! Shells keep their own registry (`tools::bash::background`); the board only hears of their
//! changes. Sub-agents are registered here with their cancel token, so a front-end can stop one
//! without stopping the turn.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

pub use nerve_protocol::tasks::{TaskKind, TaskStatus, TaskView, now_ms};
use tokio_util::sync::CancellationToken;

use crate::events::{Event, EventSink};

/// The log's file name, in the session's data folder.
pub const TASK_LOG: &str = "tasks.jsonl";

#[derive(Default)]
struct Board {
    events: Mutex<Option<EventSink>>,
    log: Mutex<Option<PathBuf>>,
    subagents: Mutex<HashMap<String, (TaskView, CancellationToken)>>,
}

/// The session's task board. Cheap to clone; clones share it (it lives in the session's
/// extensions, so sub-agents see the parent's).
#[derive(Clone, Default)]
pub struct TaskBoard(Arc<Board>);

impl std::fmt::Debug for TaskBoard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TaskBoard")
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The board holds plain values; a panic elsewhere cannot leave them half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl TaskBoard {
    /// The session's board.
    pub fn of(ctx: &crate::tool::ToolUseContext) -> Self {
        ctx.exec.extensions.get_or_default::<Self>()
    }

    /// Where changes go: the session's events, and the log (`None`: a session without a data
    /// folder keeps none).
    pub fn connect(&self, events: EventSink, log: Option<PathBuf>) {
        *lock(&self.0.events) = Some(events);
        *lock(&self.0.log) = log;
    }

    /// Announces a task as it is now, and records it.
    pub fn changed(&self, task: &TaskView) {
        if let Some(path) = lock(&self.0.log).clone() {
            // A full disk costs the record, not the task; the live event still goes out.
            if let Err(e) = append(&path, task) {
                tracing::warn!(path = %path.display(), error = %e, "could not record a task");
            }
        }
        let events = lock(&self.0.events).clone();
        if let Some(events) = events {
            events.emit(Event::TaskChanged { task: task.clone() });
        }
    }

    /// A sub-agent started; `cancel` stops it alone.
    pub fn subagent_started(&self, task: TaskView, cancel: CancellationToken) {
        lock(&self.0.subagents).insert(task.id.clone(), (task.clone(), cancel));
        self.changed(&task);
    }

    /// A sub-agent ended.
    pub fn subagent_ended(&self, id: &str, status: TaskStatus) {
        let Some((mut task, _)) = lock(&self.0.subagents).remove(id) else {
            return;
        };
        task.status = status;
        task.ended_at_ms = Some(now_ms());
        self.changed(&task);
    }

    /// Whether the sub-agent `id` was stopped by [`TaskBoard::stop_subagent`] (its end is the
    /// user's doing, not a failure).
    pub fn subagent_stopped(&self, id: &str) -> bool {
        lock(&self.0.subagents)
            .get(id)
            .is_some_and(|(_, cancel)| cancel.is_cancelled())
    }

    /// Stops a running sub-agent (its turn ends as aborted; the Agent call reports that to the
    /// model and the parent's turn goes on). `None`: no running sub-agent has that id.
    pub fn stop_subagent(&self, id: &str) -> Option<TaskView> {
        let subagents = lock(&self.0.subagents);
        let (task, cancel) = subagents.get(id)?;
        cancel.cancel();
        Some(task.clone())
    }

    /// The running sub-agents.
    pub fn subagents(&self) -> Vec<TaskView> {
        lock(&self.0.subagents).values().map(|(t, _)| t.clone()).collect()
    }
}

fn append(path: &Path, task: &TaskView) -> std::io::Result<()> {
    let mut line = serde_json::to_vec(task).map_err(std::io::Error::other)?;
    line.push(b'\n');
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    // One write per line: a reader never sees half of one, and a crash loses at most the last.
    file.write_all(&line)
}

/// The tasks a log records, each as its last line says, in the order they started. A damaged line
/// is skipped.
pub fn recorded_tasks(path: &Path) -> Vec<TaskView> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    let mut order: Vec<String> = Vec::new();
    let mut last: HashMap<String, TaskView> = HashMap::new();
    for task in text
        .lines()
        .filter_map(|l| serde_json::from_str::<TaskView>(l).ok())
    {
        if !last.contains_key(&task.id) {
            order.push(task.id.clone());
        }
        last.insert(task.id.clone(), task);
    }
    order.into_iter().filter_map(|id| last.remove(&id)).collect()
}

/// The session's tasks: the live ones as they are, and the recorded ones that no longer run here.
/// A recorded task that says it is running but is not live ran in an app that is gone: lost.
pub fn merge_tasks(live: Vec<TaskView>, recorded: Vec<TaskView>) -> Vec<TaskView> {
    let mut out: Vec<TaskView> = recorded
        .into_iter()
        .filter(|r| !live.iter().any(|l| l.id == r.id))
        .map(|mut r| {
            if r.status == TaskStatus::Running {
                r.status = TaskStatus::Lost;
            }
            r
        })
        .collect();
    out.extend(live);
    out.sort_by_key(|t| t.started_at_ms);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn shell(id: &str, status: TaskStatus, at: u64) -> TaskView {
        TaskView {
            id: id.into(),
            tool_use_id: format!("call_{id}"),
            kind: TaskKind::Shell {
                command: "sleep 9".into(),
            },
            started_at_ms: at,
            ended_at_ms: status.is_final().then_some(at + 5),
            status,
            exit_code: None,
            output_path: None,
        }
    }

    #[test]
    fn a_task_running_in_a_gone_app_is_lost_and_the_last_line_wins() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join(TASK_LOG);
        let board = TaskBoard::default();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let sink = Arc::clone(&seen);
        board.connect(EventSink::new(move |e| lock(&sink).push(e)), Some(log.clone()));
        board.changed(&shell("bash_1", TaskStatus::Running, 10));
        board.changed(&shell("bash_2", TaskStatus::Running, 20));
        board.changed(&shell("bash_1", TaskStatus::Completed, 10));
        std::fs::OpenOptions::new()
            .append(true)
            .open(&log)
            .unwrap()
            .write_all(b"{damaged\n")
            .unwrap();
        assert_eq!(lock(&seen).len(), 3);

        let recorded = recorded_tasks(&log);
        assert_eq!(
            recorded,
            vec![
                shell("bash_1", TaskStatus::Completed, 10),
                shell("bash_2", TaskStatus::Running, 20)
            ]
        );
        let live = vec![shell("bash_3", TaskStatus::Running, 30)];
        let merged = merge_tasks(live, recorded);
        let statuses: Vec<_> = merged.iter().map(|t| (t.id.as_str(), t.status)).collect();
        assert_eq!(
            statuses,
            vec![
                ("bash_1", TaskStatus::Completed),
                ("bash_2", TaskStatus::Lost),
                ("bash_3", TaskStatus::Running)
            ]
        );
    }

    #[test]
    fn stopping_a_sub_agent_cancels_its_token_only() {
        let board = TaskBoard::default();
        let turn = CancellationToken::new();
        let child = turn.child_token();
        let mut task = shell("agent-1", TaskStatus::Running, 1);
        task.kind = TaskKind::Subagent {
            description: "look".into(),
            subagent_type: "Explore".into(),
        };
        board.subagent_started(task, child.clone());
        assert!(board.stop_subagent("agent-2").is_none());
        assert!(board.stop_subagent("agent-1").is_some());
        assert!(child.is_cancelled() && !turn.is_cancelled());
        assert!(board.subagent_stopped("agent-1"));
        board.subagent_ended("agent-1", TaskStatus::Killed);
        assert!(board.subagents().is_empty());
    }
}
