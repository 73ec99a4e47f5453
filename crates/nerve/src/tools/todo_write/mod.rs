//! TodoWrite: the model's task list. It touches no file (read-only, never asks permission), but
//! replaces the session's list, so it runs alone. The list reaches later calls through a context
//! modifier and the UI through the result's display data.

mod validate;

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::tool::{
    ContextModifier, ProgressSink, TodoItem, TodoStatus, Tool, ToolError, ToolOutput, ToolUseContext,
    Validation,
};

pub use validate::{in_progress_warning, validate_todos};

/// Input of the TodoWrite tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TodoWriteInput {
    /// The whole updated list (it replaces the previous one). Each task has `content`
    /// ("Run the tests"), `status` (`pending`, `in_progress` or `completed`) and `activeForm`
    /// ("Running the tests").
    pub todos: Vec<TodoItem>,
}

/// What the model reads after a successful write.
pub const SUCCESS_TEXT: &str = "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable";

/// The TodoWrite tool.
#[derive(Debug, Default)]
pub struct TodoWriteTool;

const DESCRIPTION: &str = r#"Creates and updates your task list for the current session: track progress, organise multi-step work, and show the user where you are.

Use it for tasks with 3 or more steps, when the user gives several tasks, or asks for a todo list. Skip it for a single trivial task.
- Send the whole list every time; it replaces the previous one.
- Each task: `content` (imperative: "Run the tests"), `activeForm` (present continuous: "Running the tests"), `status`: "pending", "in_progress" or "completed".
- Keep exactly one task in_progress at a time; mark a task completed as soon as it is done (not in batches), and only when it is fully done (tests pass, no errors).
- When every task is completed, the list is cleared."#;

#[async_trait]
impl Tool for TodoWriteTool {
    type Input = TodoWriteInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Todo
    }

    fn name(&self) -> &str {
        "TodoWrite"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn is_read_only(&self, _input: &TodoWriteInput) -> bool {
        true
    }

    async fn validate_input(&self, input: &TodoWriteInput, _ctx: &ToolUseContext) -> Validation {
        validate_todos(&input.todos).map_err(|e| e.to_string())
    }

    fn summary(&self, input: &TodoWriteInput, _cwd: &std::path::Path) -> String {
        let done = input
            .todos
            .iter()
            .filter(|t| t.status == TodoStatus::Completed)
            .count();
        format!("{done}/{} done", input.todos.len())
    }

    async fn call(
        &self,
        input: TodoWriteInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        validate_todos(&input.todos).map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        let old = Arc::clone(&ctx.exec.todos);
        let all_done = input.todos.iter().all(|t| t.status == TodoStatus::Completed);
        // A finished list is cleared (as Claude Code does), so the next task starts from nothing;
        // the UI still gets the final state to show it completed.
        let kept: Arc<Vec<TodoItem>> = if all_done {
            Arc::default()
        } else {
            Arc::new(input.todos.clone())
        };
        let mut text = SUCCESS_TEXT.to_string();
        if let Some(warning) = in_progress_warning(&input.todos) {
            text.push_str("\n\n");
            text.push_str(&warning);
        }
        let display = json!({ "todos": input.todos, "old_todos": *old });
        Ok(ToolOutput::text(text)
            .with_display(display)
            .with_context_modifier(ContextModifier::new(move |mut c: ToolUseContext| {
                c.exec.todos = kept;
                c
            })))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_support::{context_in, no_progress, text};

    fn item(content: &str, status: TodoStatus) -> TodoItem {
        TodoItem {
            content: content.into(),
            status,
            active_form: format!("{content}ing"),
        }
    }

    #[tokio::test]
    async fn the_list_reaches_the_context_and_the_ui() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context_in(dir.path());
        let todos = vec![
            item("Test", TodoStatus::InProgress),
            item("Ship", TodoStatus::Pending),
        ];
        let out = TodoWriteTool
            .call(TodoWriteInput { todos: todos.clone() }, &ctx, &no_progress())
            .await
            .unwrap();
        assert_eq!(text(&out), SUCCESS_TEXT);
        let display = out.display.clone().unwrap();
        assert_eq!(display["todos"], serde_json::to_value(&todos).unwrap());
        assert_eq!(display["todos"][0]["activeForm"], "Testing");
        assert_eq!(display["old_todos"], json!([]));
        let ctx = out.context_modifier.unwrap().apply(ctx);
        assert_eq!(*ctx.exec.todos, todos);
    }

    #[tokio::test]
    async fn a_finished_list_is_cleared_but_shown() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context_in(dir.path());
        let todos = vec![item("Test", TodoStatus::Completed)];
        let out = TodoWriteTool
            .call(TodoWriteInput { todos }, &ctx, &no_progress())
            .await
            .unwrap();
        assert_eq!(out.display.clone().unwrap()["todos"][0]["status"], "completed");
        let ctx = out.context_modifier.unwrap().apply(ctx);
        assert!(ctx.exec.todos.is_empty());
    }

    #[tokio::test]
    async fn two_in_progress_warn_but_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context_in(dir.path());
        let todos = vec![
            item("A", TodoStatus::InProgress),
            item("B", TodoStatus::InProgress),
        ];
        let out = TodoWriteTool
            .call(TodoWriteInput { todos }, &ctx, &no_progress())
            .await
            .unwrap();
        let t = text(&out);
        assert!(t.starts_with(SUCCESS_TEXT), "{t}");
        assert!(t.contains("2 tasks are in_progress"), "{t}");
    }

    #[test]
    fn safety_flags() {
        let input = TodoWriteInput { todos: Vec::new() };
        assert!(TodoWriteTool.is_read_only(&input));
        assert!(!TodoWriteTool.is_concurrency_safe(&input));
    }

    #[test]
    fn schema_uses_claude_code_names() {
        let schema = TodoWriteTool.input_schema();
        let item = &schema["properties"]["todos"]["items"];
        assert_eq!(item["required"], json!(["content", "status", "activeForm"]));
        let statuses: Vec<&str> = item["properties"]["status"]["oneOf"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["const"].as_str().unwrap())
            .collect();
        assert_eq!(statuses, ["pending", "in_progress", "completed"]);
    }
}
