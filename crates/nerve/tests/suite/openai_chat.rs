//! A session on an OpenAI-compatible server (Chat Completions), against the mock's
//! `/v1/chat/completions`, which checks requests as OpenAI does: the same loop, tools, executor
//! and history as on the Messages API, the translation both ways.

use nerve::events::{Event, EventSink};
use nerve::session::{ModelAuth, ModelProvider, ModelServer};
use nerve_protocol::prompt::AttachedImage;
use serde_json::json;

use crate::support::{Recorder, TestProject, mock, mock_session_options};

fn chat_options(model: &nerve_mock_model::MockServer) -> nerve::session::SessionOptions {
    let mut o = mock_session_options(model);
    o.server = ModelServer::Fixed {
        base_url: format!("{}/v1", model.url()),
        auth: ModelAuth::ApiKey(nerve::credentials::ApiKey::new("sk-test".to_string())),
        extra_headers: Vec::new(),
        provider: ModelProvider::OpenaiChat,
    };
    o
}

const PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_with_parallel_reads_streams_through_chat_completions() {
    let p = TestProject::new();
    let a = p.write("a.txt", "alpha\n").display().to_string();
    let b = p.write("b.txt", "beta\n").display().to_string();
    let model = mock(json!([
        {"expect": {"tools_include": ["Read", "Bash"], "last_user_images": ["image/png"],
                    "system_contains": "# Using your tools"},
         "response": {"type": "stream", "usage": {"input_tokens": 900, "output_tokens": 40},
                      "blocks": [
            {"type": "text", "text": ["Reading ", "both."]},
            {"type": "tool_use", "id": "call_a", "name": "Read", "input": {"file_path": a}},
            {"type": "tool_use", "id": "call_b", "name": "Read", "input": {"file_path": b}}]}},
        {"expect": {"tool_result": {"tool_use_id": "call_b", "contains": "beta", "is_error": false}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "alpha and beta."}]}}
    ]))
    .await;
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), chat_options(&model))
        .await
        .unwrap();
    let turn = Recorder::default();
    let image = AttachedImage {
        name: "dot.png".into(),
        data: PNG.into(),
    };
    let done = session
        .send("what do they say?", &[image], turn.sink())
        .await
        .unwrap();
    assert_eq!(done.final_text, "alpha and beta.", "{:?}", done.error);
    assert_eq!(model.remaining_steps(), 0);
    // Tokens from the usage chunk.
    assert!(done.usage.output_tokens >= 40, "{:?}", done.usage);

    let requests = model.requests();
    assert!(
        requests.iter().all(|r| r.path == "/v1/chat/completions"),
        "{:?}",
        requests.iter().map(|r| &r.path).collect::<Vec<_>>()
    );
    // The key went as a bearer token (the mock refuses a request without one, and records it
    // redacted), and none of Anthropic's headers went.
    assert!(requests[0].headers.contains_key("authorization"));
    assert!(!requests[0].headers.contains_key("x-api-key"));
    assert!(!requests[0].headers.contains_key("anthropic-version"));
    let second = &requests[1].body;
    assert_eq!(second["stream_options"], json!({"include_usage": true}));
    let roles: Vec<&str> = second["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["role"].as_str().unwrap())
        .collect();
    assert_eq!(roles[..4], ["system", "user", "assistant", "tool"]);
    // Both reads ran (side by side, as on the Messages API) and their results went back.
    let completed: Vec<String> = turn
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCompleted {
                tool_use_id,
                is_error: false,
                ..
            } => Some(tool_use_id),
            _ => None,
        })
        .collect();
    assert_eq!(completed.len(), 2, "{completed:?}");
    // The conversation reads back as any other.
    let state = session.state().unwrap();
    assert_eq!(state.history.len(), 4);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_errors_reach_the_user_in_words() {
    let p = TestProject::new();
    let model = mock(json!([
        {"response": {"type": "error", "status": 404, "error_type": "invalid_request_error",
                      "message": "The model `claude-test` does not exist"}}
    ]))
    .await;
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), chat_options(&model))
        .await
        .unwrap();
    let done = session.send("hi", &[], EventSink::discard()).await.unwrap();
    let error = done.error.unwrap_or_default();
    assert!(
        error.contains("The model `claude-test` does not exist"),
        "{error}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_responses_api_runs_the_same_turn() {
    let p = TestProject::new();
    let a = p.write("a.txt", "alpha\n").display().to_string();
    let model = mock(json!([
        {"expect": {"tools_include": ["Read"], "system_contains": "# Using your tools"},
         "response": {"type": "stream", "blocks": [
            {"type": "text", "text": "Reading."},
            {"type": "tool_use", "id": "call_a", "name": "Read", "input": {"file_path": a}}]}},
        {"expect": {"tool_result": {"tool_use_id": "call_a", "contains": "alpha"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "It says alpha."}]}}
    ]))
    .await;
    let mut options = chat_options(&model);
    if let ModelServer::Fixed { provider, .. } = &mut options.server {
        *provider = ModelProvider::OpenaiResponses;
    }
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), options)
        .await
        .unwrap();
    let done = session
        .send("what does a.txt say?", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "It says alpha.", "{:?}", done.error);
    let requests = model.requests();
    assert!(requests.iter().all(|r| r.path == "/v1/responses"));
    let second = &requests[1].body;
    assert_eq!(second["store"], json!(false));
    let kinds: Vec<&str> = second["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["type"].as_str().unwrap_or("message"))
        .collect();
    assert_eq!(
        kinds,
        ["message", "message", "function_call", "function_call_output"]
    );
}
