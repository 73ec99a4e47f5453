//! EnterPlanMode and ExitPlanMode through the executor: writes are refused in plan mode, leaving it
//! asks the user (in every mode, bypass included), and an approved plan restores the mode in force
//! before.

use std::sync::Arc;

use crate::support::{ScriptedPrompter, TestProject, call, text_of};
use nerve::errors::ErrorClass;
use nerve::executor::ExecutorOptions;
use nerve::permissions::{PermissionMode, PermissionPrompter, UserAnswer};
use nerve::pipeline::{CallOutcome, ToolCall};
use nerve::project::{SessionRuntime, SessionSetup};
use nerve::tool::{ToolRef, ToolUseContext};
use nerve::tools::enter_plan_mode::EnterPlanModeTool;
use nerve::tools::exit_plan_mode::ExitPlanModeTool;
use nerve::tools::testing::all_test_tools;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn tools() -> Vec<ToolRef> {
    let mut tools = all_test_tools();
    tools.push(Arc::new(EnterPlanModeTool));
    tools.push(Arc::new(ExitPlanModeTool));
    tools
}

fn session(p: &TestProject, mode: PermissionMode, prompter: Option<Arc<ScriptedPrompter>>) -> SessionRuntime {
    let headless = prompter.is_none();
    p.session_with_setup(
        tools(),
        false,
        mode,
        &[],
        SessionSetup {
            prompter: prompter.map(|pr| pr as Arc<dyn PermissionPrompter>),
            headless,
            ..SessionSetup::default()
        },
    )
}

async fn run_turn(s: &SessionRuntime, calls: Vec<ToolCall>) -> (Vec<CallOutcome>, ToolUseContext) {
    let exec = s.executor(
        CancellationToken::new(),
        ExecutorOptions {
            max_concurrency: 10,
            ..ExecutorOptions::default()
        },
    );
    for c in calls {
        exec.add(c);
    }
    exec.finish().await
}

fn touch(id: &str, path: &std::path::Path) -> ToolCall {
    call(
        id,
        "TestTouch",
        json!({"file_path": path.display().to_string(), "content": id}),
    )
}

#[tokio::test]
async fn writes_are_denied_in_plan_mode_and_allowed_after_the_plan_is_approved() {
    let p = TestProject::new();
    let prompter = ScriptedPrompter::new(vec![UserAnswer::AllowOnce { updated_input: None }]);
    let s = session(&p, PermissionMode::AcceptEdits, Some(Arc::clone(&prompter)));
    let file = p.project_dir().join("out.txt");
    let (out, ctx) = run_turn(
        &s,
        vec![
            call("enter", "EnterPlanMode", json!({})),
            touch("write1", &file),
            call("exit", "ExitPlanMode", json!({"plan": "1. Write out.txt"})),
            touch("write2", &file),
        ],
    )
    .await;

    assert!(!out[0].is_error && text_of(&out[0].content).contains("Entered plan mode"));
    assert!(out[1].denied, "{:?}", out[1].content);
    assert!(
        text_of(&out[1].content).contains("plan mode"),
        "{}",
        text_of(&out[1].content)
    );
    assert!(!out[2].is_error, "{:?}", out[2].content);
    assert!(
        text_of(&out[2].content).starts_with("User has approved your plan. You can now start coding."),
        "{}",
        text_of(&out[2].content)
    );
    assert!(!out[3].is_error, "{:?}", out[3].content);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "write2",
        "only the write after approval ran"
    );

    let asked = prompter.asked();
    assert_eq!(
        asked.len(),
        1,
        "only ExitPlanMode asked; acceptEdits allowed the write"
    );
    assert_eq!(asked[0].tool_name, "ExitPlanMode");
    assert!(
        asked[0].reason.contains("Approve the plan?"),
        "{}",
        asked[0].reason
    );
    assert_eq!(asked[0].input["plan"], "1. Write out.txt");
    assert_eq!(
        ctx.permissions.mode,
        PermissionMode::AcceptEdits,
        "the previous mode is back"
    );
    assert_eq!(ctx.permissions.mode_before_plan, None);
}

#[tokio::test]
async fn leaving_plan_mode_asks_even_when_the_previous_mode_was_bypass() {
    let p = TestProject::new();
    let prompter = ScriptedPrompter::new(vec![UserAnswer::Deny {
        message: Some("add tests to the plan".into()),
    }]);
    let s = session(&p, PermissionMode::BypassPermissions, Some(Arc::clone(&prompter)));
    let file = p.project_dir().join("out.txt");
    let (out, ctx) = run_turn(
        &s,
        vec![
            call("enter", "EnterPlanMode", json!({})),
            call("exit", "ExitPlanMode", json!({"plan": "1. Write"})),
            touch("write", &file),
        ],
    )
    .await;
    assert_eq!(prompter.asked().len(), 1);
    assert!(out[1].denied);
    assert!(
        text_of(&out[1].content).contains("add tests to the plan"),
        "{}",
        text_of(&out[1].content)
    );
    assert!(out[2].denied, "still in plan mode: {:?}", out[2].content);
    assert!(!file.exists());
    assert_eq!(ctx.permissions.mode, PermissionMode::Plan);
    assert_eq!(
        ctx.permissions.mode_before_plan,
        Some(PermissionMode::BypassPermissions)
    );
}

#[tokio::test]
async fn headless_runs_deny_leaving_plan_mode_with_a_clear_message() {
    let p = TestProject::new();
    let s = session(&p, PermissionMode::Default, None);
    let (out, ctx) = run_turn(
        &s,
        vec![
            call("enter", "EnterPlanMode", json!({})),
            call("exit", "ExitPlanMode", json!({"plan": "1. Write"})),
        ],
    )
    .await;
    assert!(!out[0].is_error);
    assert!(out[1].denied);
    assert_eq!(out[1].error_class, Some(ErrorClass::Permission));
    assert_eq!(
        text_of(&out[1].content),
        "<tool_use_error>Permission to use ExitPlanMode was denied: Approve the plan? Leaving plan \
         mode needs the user's approval, and no one is available to approve it in this mode.</tool_use_error>"
    );
    assert_eq!(ctx.permissions.mode, PermissionMode::Plan);
}

#[tokio::test]
async fn the_tools_refuse_to_run_in_the_wrong_mode() {
    let p = TestProject::new();
    let s = session(&p, PermissionMode::Default, None);
    let exit = s.run_one(&call("x", "ExitPlanMode", json!({"plan": "p"}))).await;
    assert_eq!(exit.error_class, Some(ErrorClass::Validation));
    assert!(
        text_of(&exit.content).contains("Not in plan mode"),
        "{}",
        text_of(&exit.content)
    );

    let s = session(&p, PermissionMode::Plan, None);
    let enter = s.run_one(&call("e", "EnterPlanMode", json!({}))).await;
    assert_eq!(enter.error_class, Some(ErrorClass::Validation));
    assert!(text_of(&enter.content).contains("Already in plan mode"));
}

#[tokio::test]
async fn mode_and_task_list_changes_are_sent_as_events() {
    let p = TestProject::new();
    let mut all = tools();
    all.push(Arc::new(nerve::tools::todo_write::TodoWriteTool));
    let s = p.session_with_setup(
        all,
        false,
        PermissionMode::AcceptEdits,
        &[],
        SessionSetup {
            headless: true,
            ..SessionSetup::default()
        },
    );
    let todos =
        json!({"todos": [{"content": "Run tests", "status": "in_progress", "activeForm": "Running tests"}]});
    let (_, after) = run_turn(
        &s,
        vec![
            call("t1", "EnterPlanMode", json!({})),
            call("t2", "TodoWrite", todos.clone()),
            call("t3", "TodoWrite", todos),
        ],
    )
    .await;
    assert_eq!(after.permissions.mode, PermissionMode::Plan);
    let mut modes = Vec::new();
    let mut lists = Vec::new();
    for e in p.recorder.events() {
        match e {
            nerve::events::Event::ModeChanged { mode } => modes.push(mode),
            nerve::events::Event::TodosChanged { todos } => lists.push(todos),
            _ => {}
        }
    }
    assert_eq!(modes, vec![PermissionMode::Plan]);
    // The second, identical list is no change.
    assert_eq!(lists.len(), 1, "{lists:?}");
    assert_eq!(lists[0][0].content, "Run tests");
}
