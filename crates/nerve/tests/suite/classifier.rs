//! The auto-mode classifier in the real pipeline, against the scripted mock Messages API: what
//! its verdicts do to a call that would otherwise ask the user.

use std::sync::Arc;
use std::time::Duration;

use crate::support::{ScriptedPrompter, TestProject, mock, text_of};
use nerve::model::api_key::ApiKey;
use nerve::model::client::ModelConfig;
use nerve::permissions::classifier::{ModelClassifier, RecentIntent};
use nerve::permissions::{PermissionMode, UserAnswer};
use nerve::pipeline::{CallOutcome, ToolCall};
use nerve::project::SessionSetup;
use nerve_mock_model::MockServer;
use serde_json::{Value, json};

const FAST: &str = "claude-haiku-test";

fn classifier(server: &MockServer, intent: &RecentIntent) -> ModelClassifier {
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("test-key"), Some(server.url()));
    config.retry.base_delay = Duration::from_millis(5);
    config.retry.max_delay = Duration::from_millis(10);
    ModelClassifier::over_config(config, FAST, intent.clone()).unwrap()
}

fn text_step(text: &str) -> Value {
    json!({"expect": {"model": FAST},
           "response": {"type": "stream", "blocks": [{"type": "text", "text": text}]}})
}

/// Runs one call in auto mode with the classifier over `server` and a prompter that allows once.
async fn run(p: &TestProject, server: &MockServer, call: ToolCall) -> (CallOutcome, Arc<ScriptedPrompter>) {
    let intent = RecentIntent::new();
    intent.record("write the release notes into notes.txt");
    let prompter = ScriptedPrompter::new(vec![UserAnswer::AllowOnce { updated_input: None }]);
    let mut tools = nerve::registry::all_builtin_tools();
    tools.extend(nerve::tools::testing::all_test_tools());
    let session = p.session_with_setup(
        tools,
        false,
        PermissionMode::Auto,
        &[],
        SessionSetup {
            prompter: Some(prompter.clone()),
            classifier: Some(Arc::new(classifier(server, &intent))),
            ..SessionSetup::default()
        },
    );
    (session.run_one(&call).await, prompter)
}

fn write_call(p: &TestProject) -> ToolCall {
    ToolCall {
        id: "toolu_w".into(),
        name: "Write".into(),
        input: json!({"file_path": p.project_dir().join("notes.txt"), "content": "v1.2: faster\n"}),
    }
}

fn ran(p: &TestProject, outcome: &CallOutcome) -> bool {
    !outcome.denied && !outcome.is_error && p.project_dir().join("notes.txt").exists()
}

fn user_text(request: &Value) -> String {
    request["messages"][0]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn a_quick_allow_runs_the_call_without_asking() {
    let p = TestProject::new();
    let server = mock(json!([text_step("ALLOW")])).await;
    let (outcome, prompter) = run(&p, &server, write_call(&p)).await;
    assert!(ran(&p, &outcome), "{}", text_of(&outcome.content));
    assert!(prompter.asked().is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(body["max_tokens"], 16);
    assert!(
        body["system"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("ALLOW or ASK.")
    );
    let message = user_text(body);
    assert!(
        message.contains("[1] write the release notes into notes.txt"),
        "{message}"
    );
    assert!(message.contains("<action tool=\"Write\">"), "{message}");
    assert!(message.contains("v1.2: faster"), "{message}");
}

#[tokio::test]
async fn a_quick_ask_goes_to_the_user() {
    let p = TestProject::new();
    let server = mock(json!([text_step("ASK")])).await;
    let (outcome, prompter) = run(&p, &server, write_call(&p)).await;
    assert_eq!(prompter.asked().len(), 1);
    assert_eq!(prompter.asked()[0].tool_name, "Write");
    assert!(ran(&p, &outcome), "the user allowed it once");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn garbage_then_a_careful_allow_runs_the_call() {
    let p = TestProject::new();
    let server = mock(json!([
        text_step("Sure, writing notes seems fine to me."),
        text_step("The user asked for the notes file; it is inside the project.\nVERDICT: ALLOW")
    ]))
    .await;
    let (outcome, prompter) = run(&p, &server, write_call(&p)).await;
    assert!(ran(&p, &outcome), "{}", text_of(&outcome.content));
    assert!(prompter.asked().is_empty());
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].body["max_tokens"], 400);
    assert!(
        requests[1].body["system"][0]["text"]
            .as_str()
            .unwrap()
            .contains("VERDICT: ASK")
    );
    assert_eq!(user_text(&requests[0].body), user_text(&requests[1].body));
}

#[tokio::test]
async fn garbage_from_both_stages_goes_to_the_user() {
    let p = TestProject::new();
    let server = mock(json!([text_step("hmm"), text_step("I cannot decide.")])).await;
    let (_, prompter) = run(&p, &server, write_call(&p)).await;
    assert_eq!(prompter.asked().len(), 1);
}

#[tokio::test]
async fn a_server_error_goes_to_the_user() {
    let p = TestProject::new();
    // The first attempt and the one retry both fail.
    let server = mock(json!([
        {"response": {"type": "error", "status": 500, "retry_after": "0"}},
        {"response": {"type": "error", "status": 500, "retry_after": "0"}}
    ]))
    .await;
    let (_, prompter) = run(&p, &server, write_call(&p)).await;
    assert_eq!(prompter.asked().len(), 1);
    assert_eq!(server.remaining_steps(), 0);
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_tool_without_classifier_input_is_never_sent() {
    let p = TestProject::new();
    let server = mock(json!([text_step("ALLOW")])).await;
    let call = ToolCall {
        id: "toolu_t".into(),
        name: "TestTouch".into(),
        input: json!({"file_path": "touched.txt", "content": "x"}),
    };
    let (_, prompter) = run(&p, &server, call).await;
    assert!(server.requests().is_empty());
    assert_eq!(prompter.asked().len(), 1);
    assert_eq!(prompter.asked()[0].tool_name, "TestTouch");
}

#[tokio::test]
async fn an_interrupted_call_stops_waiting_for_the_classifier() {
    let p = TestProject::new();
    // The verdict would come long after the guard below gives up.
    let server = Arc::new(
        mock(json!([{"expect": {"model": FAST},
            "response": {"type": "stream", "delay_ms": 600_000, "blocks": [{"type": "text", "text": "ALLOW"}]}}]))
        .await,
    );
    let prompter = ScriptedPrompter::new(vec![]);
    let session = p.session_with_setup(
        nerve::registry::all_builtin_tools(),
        false,
        PermissionMode::Auto,
        &[],
        SessionSetup {
            prompter: Some(prompter.clone()),
            // Only the interruption can end the wait: the classifier's own limit is far away.
            classifier: Some(Arc::new(
                classifier(&server, &RecentIntent::new()).with_timeout(Duration::from_secs(600)),
            )),
            ..SessionSetup::default()
        },
    );
    let cancel = session.context.exec.cancel.clone();
    let watcher = {
        let requests = Arc::clone(&server);
        tokio::spawn(async move {
            while requests.requests().is_empty() {
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            cancel.cancel();
        })
    };
    let outcome = tokio::time::timeout(Duration::from_secs(20), session.run_one(&write_call(&p)))
        .await
        .expect("the interrupted call ends without waiting for the verdict");
    watcher.await.unwrap();
    assert!(
        outcome.is_error || outcome.denied,
        "{}",
        text_of(&outcome.content)
    );
    assert!(!p.project_dir().join("notes.txt").exists());
}
