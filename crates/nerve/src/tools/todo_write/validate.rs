//! Checks on a todo list: refused when a task has no text, warned when several run at once.

use crate::tool::{TodoItem, TodoStatus};

/// A task the list cannot hold; the message says which and what to give.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BlankTask {
    /// The task (1-based) has no description.
    #[error(
        "Task {task} has an empty `content`. Give every task a short imperative description (\"Run the tests\")."
    )]
    Content {
        /// Its position, from 1.
        task: usize,
    },
    /// The task (1-based) has no present continuous form.
    #[error(
        "Task {task} (\"{content}\") has an empty `activeForm`. Give its present continuous form (\"Running the tests\")."
    )]
    ActiveForm {
        /// Its position, from 1.
        task: usize,
        /// Its description.
        content: String,
    },
}

/// Refuses a list with a task whose `content` or `activeForm` is blank.
pub fn validate_todos(todos: &[TodoItem]) -> Result<(), BlankTask> {
    for (i, todo) in todos.iter().enumerate() {
        if todo.content.trim().is_empty() {
            return Err(BlankTask::Content { task: i + 1 });
        }
        if todo.active_form.trim().is_empty() {
            return Err(BlankTask::ActiveForm {
                task: i + 1,
                content: todo.content.clone(),
            });
        }
    }
    Ok(())
}

/// A reminder when more than one task is in progress: a convention, not a rule, so the list is
/// still accepted.
pub fn in_progress_warning(todos: &[TodoItem]) -> Option<String> {
    let n = todos
        .iter()
        .filter(|t| t.status == TodoStatus::InProgress)
        .count();
    (n > 1).then(|| {
        format!("Note: {n} tasks are in_progress. Keep exactly one task in_progress at a time: finish it (mark it completed) before starting the next.")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(content: &str, active: &str) -> TodoItem {
        TodoItem {
            content: content.into(),
            status: TodoStatus::Pending,
            active_form: active.into(),
        }
    }

    #[test]
    fn blank_content_or_active_form_is_refused() {
        let err = validate_todos(&[item("ok", "oking"), item("  ", "x")]).unwrap_err();
        assert_eq!(err, BlankTask::Content { task: 2 });
        assert_eq!(
            err.to_string(),
            "Task 2 has an empty `content`. Give every task a short imperative description (\"Run the tests\")."
        );
        let err = validate_todos(&[item("Build", "")]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Task 1 (\"Build\") has an empty `activeForm`. Give its present continuous form (\"Running the tests\")."
        );
        assert_eq!(validate_todos(&[]), Ok(()));
    }

    #[test]
    fn one_in_progress_is_fine() {
        let mut a = item("a", "aing");
        a.status = TodoStatus::InProgress;
        assert_eq!(in_progress_warning(&[a.clone(), item("b", "bing")]), None);
        assert!(in_progress_warning(&[a.clone(), a]).is_some());
    }
}
