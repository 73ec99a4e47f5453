//! The TaskStop tool.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolPermission, ToolUseContext, Validation};
use crate::tools::bash::{BackgroundTasks, task_report};

/// Input of [`TaskStopTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TaskStopInput {
    /// The id of the background task to stop (e.g. "bash_1").
    pub task_id: String,
}

/// Stops a background task.
#[derive(Debug, Default, Clone, Copy)]
pub struct TaskStopTool;

#[async_trait]
impl Tool for TaskStopTool {
    type Input = TaskStopInput;

    fn file_effect(&self, _input: &TaskStopInput, _ctx: &ToolUseContext) -> crate::tool::FileEffect {
        crate::tool::FileEffect::None
    }

    fn name(&self) -> &str {
        "TaskStop"
    }

    fn description(&self) -> String {
        "Stops a background command started with Bash run_in_background, by its task id (e.g. \"bash_1\"). \
         The command and every process it started get SIGTERM, then SIGKILL after 2 seconds. \
         Returns the task's final status and its output. Stopping a task that already finished just reports it."
            .to_string()
    }

    async fn check_permissions(&self, _input: &TaskStopInput, _ctx: &ToolUseContext) -> ToolPermission {
        // The task was approved when it started; stopping it only ends what the session began.
        ToolPermission::Allow {
            reason: "stops a background task this session started".into(),
        }
    }

    async fn validate_input(&self, input: &TaskStopInput, ctx: &ToolUseContext) -> Validation {
        if BackgroundTasks::of(ctx).get(&input.task_id).is_none() {
            let ids: Vec<String> = BackgroundTasks::of(ctx)
                .list()
                .into_iter()
                .map(|t| t.id)
                .collect();
            return Err(format!(
                "No background task with id {}. This session's tasks: {}.",
                input.task_id,
                if ids.is_empty() {
                    "none".to_string()
                } else {
                    ids.join(", ")
                }
            ));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: TaskStopInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let info = BackgroundTasks::of(ctx)
            .stop(&input.task_id)
            .await
            .ok_or_else(|| {
                ToolError::InvalidInput(format!("No background task with id {}.", input.task_id))
            })?;
        let text = task_report(&info)
            .map_err(|e| ToolError::io(format!("could not read the output of {}", info.id), e))?;
        Ok(ToolOutput::text(text))
    }

    fn summary(&self, input: &TaskStopInput, _cwd: &std::path::Path) -> String {
        input.task_id.clone()
    }
}
