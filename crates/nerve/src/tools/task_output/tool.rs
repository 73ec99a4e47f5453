//! The TaskOutput tool.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::bash::{BackgroundTasks, TaskInfo, TaskStatus, task_report};

/// Default wait when blocking, in milliseconds.
const DEFAULT_TIMEOUT_MS: u64 = 30_000;
/// Longest wait, in milliseconds.
const MAX_TIMEOUT_MS: u64 = 600_000;

/// Input of [`TaskOutputTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TaskOutputInput {
    /// The id of the background task (e.g. "bash_1"), as returned by Bash with run_in_background.
    pub task_id: String,
    /// Wait for the task to finish (up to `timeout`) before answering. Default true; false returns
    /// the output so far at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<bool>,
    /// How long to wait when blocking, in milliseconds (default 30000, at most 600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
}

/// Reads a background task's output.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskOutputTool;

#[async_trait]
impl Tool for TaskOutputTool {
    type Input = TaskOutputInput;

    fn name(&self) -> &str {
        "TaskOutput"
    }

    fn description(&self) -> String {
        format!(
            "Reads the output of a background command started with Bash run_in_background (task ids look like \"bash_1\").\n\
             - By default waits for the task to finish, up to `timeout` ms (default {DEFAULT_TIMEOUT_MS}, at most {MAX_TIMEOUT_MS}), then returns its status, exit code and output.\n\
             - With block: false it answers at once with the output so far and status \"running\".\n\
             - Long output is cut to its beginning and end; the full output file's path is given (search it with Grep or read parts with Read).\n\
             - Stop a task with TaskStop."
        )
    }

    fn is_concurrency_safe(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &TaskOutputInput) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(crate::tools::bash::MAX_RESULT_CHARS)
    }

    async fn validate_input(&self, input: &TaskOutputInput, ctx: &ToolUseContext) -> Validation {
        if let Some(t) = input.timeout
            && t > MAX_TIMEOUT_MS
        {
            return Err(format!(
                "timeout {t} ms is over the maximum of {MAX_TIMEOUT_MS} ms."
            ));
        }
        if BackgroundTasks::of(ctx).get(&input.task_id).is_none() {
            return Err(unknown_task(&input.task_id, &BackgroundTasks::of(ctx).list()));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: TaskOutputInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let tasks = BackgroundTasks::of(ctx);
        let info = if input.block.unwrap_or(true) {
            let wait = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_TIMEOUT_MS));
            tokio::select! {
                info = tasks.wait(&input.task_id, wait) => info,
                () = ctx.exec.cancel.cancelled() => return Err(ToolError::Cancelled("stopped waiting for the task".into())),
            }
        } else {
            tasks.get(&input.task_id)
        };
        let info =
            info.ok_or_else(|| ToolError::InvalidInput(unknown_task(&input.task_id, &tasks.list())))?;
        let text = task_report(&info)
            .map_err(|e| ToolError::io(format!("could not read the output of {}", info.id), e))?;
        let waited_out = input.block.unwrap_or(true) && info.status == TaskStatus::Running;
        Ok(ToolOutput::text(if waited_out {
            format!(
                "{text}\n(The task is still running after the wait; call TaskOutput again to keep waiting, or TaskStop to stop it.)"
            )
        } else {
            text
        }))
    }

    fn summary(&self, input: &TaskOutputInput, _cwd: &std::path::Path) -> String {
        input.task_id.clone()
    }
}

fn unknown_task(id: &str, tasks: &[TaskInfo]) -> String {
    if tasks.is_empty() {
        format!(
            "No background task with id {id}: this session has started none. Start one with Bash and run_in_background: true."
        )
    } else {
        let ids: Vec<&str> = tasks.iter().map(|t| t.id.as_str()).collect();
        format!(
            "No background task with id {id}. This session's tasks: {}.",
            ids.join(", ")
        )
    }
}
