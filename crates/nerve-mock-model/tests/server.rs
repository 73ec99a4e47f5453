//! The mock spoken to over real HTTP.

// Test helpers outside #[test] fns are not covered by clippy.toml's allow-*-in-tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use futures::StreamExt;
use nerve_mock_model::{MockServer, Scenario};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

fn scenario(value: Value) -> Scenario {
    Scenario::from_json(&value.to_string()).unwrap()
}

/// A plain client; the process's rustls provider first (see the dev-dependency's comment).
fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

fn request_body() -> Value {
    json!({"model": "claude-test", "max_tokens": 64, "stream": true,
           "messages": [{"role": "user", "content": "hello"}]})
}

/// `GET url` read as JSON.
async fn get_json(url: String) -> Value {
    client().get(url).send().await.unwrap().json().await.unwrap()
}

async fn post(server: &MockServer, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/v1/messages", server.url()))
        .header("x-api-key", "sk-test-secret")
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .unwrap()
}

/// Splits an SSE body into (event, data) pairs, asserting the framing on the way.
fn parse_sse(text: &str) -> Vec<(String, Value)> {
    assert!(text.ends_with("\n\n"), "the body must end with a blank line");
    text.trim_end()
        .split("\n\n")
        .map(|record| {
            let lines: Vec<&str> = record.lines().collect();
            assert_eq!(
                lines.len(),
                2,
                "each event is one event: line and one data: line: {record:?}"
            );
            let event = lines[0].strip_prefix("event: ").expect("event: line").to_owned();
            let data: Value =
                serde_json::from_str(lines[1].strip_prefix("data: ").expect("data: line")).unwrap();
            assert_eq!(
                data["type"],
                event.as_str(),
                "the data type matches the event name"
            );
            (event, data)
        })
        .collect()
}

#[tokio::test]
async fn streams_well_formed_sse_and_records_the_request() {
    let server = MockServer::start(scenario(
        json!({"steps": [{"response": {"type": "stream", "blocks": [
        {"type": "text", "text": ["Hel", "lo"]},
        {"type": "tool_use", "id": "toolu_9", "name": "Read", "input": {"path": "a.txt"}, "fragments": 4}
    ], "usage": {"input_tokens": 7, "output_tokens": 3}}}]}),
    ))
    .await
    .unwrap();
    let response = post(&server, &request_body()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers()["content-type"],
        "text/event-stream; charset=utf-8"
    );
    let events = parse_sse(&response.text().await.unwrap());
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(names.first(), Some(&"message_start"));
    assert_eq!(names.last(), Some(&"message_stop"));
    assert_eq!(events[0].1["message"]["model"], "claude-test");
    assert_eq!(events[0].1["message"]["usage"]["input_tokens"], 7);
    let text: String = events
        .iter()
        .filter(|(_, d)| d["delta"]["type"] == "text_delta")
        .map(|(_, d)| d["delta"]["text"].as_str().unwrap())
        .collect();
    assert_eq!(text, "Hello");
    let fragments: Vec<&str> = events
        .iter()
        .filter(|(_, d)| d["delta"]["type"] == "input_json_delta")
        .map(|(_, d)| d["delta"]["partial_json"].as_str().unwrap())
        .collect();
    assert_eq!(fragments.len(), 5, "an empty first fragment, then four pieces");
    assert_eq!(
        serde_json::from_str::<Value>(&fragments.concat()).unwrap(),
        json!({"path": "a.txt"})
    );
    let delta = events.iter().find(|(name, _)| name == "message_delta").unwrap();
    assert_eq!(delta.1["delta"]["stop_reason"], "tool_use");
    assert_eq!(delta.1["usage"]["output_tokens"], 3);

    let recorded = server.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].headers["x-api-key"], "<redacted>");
    assert_eq!(recorded[0].body, request_body());
    assert_eq!((recorded[0].step, recorded[0].status), (Some(0), 200));
    let listed = get_json(format!("{}/__mock/requests", server.url())).await;
    assert_eq!(listed[0]["headers"]["anthropic-version"], "2023-06-01");
    assert!(!listed.to_string().contains("sk-test-secret"));
    server.shutdown().await;
}

#[tokio::test]
async fn invalid_requests_get_the_api_error_shape_without_consuming_steps() {
    let server = MockServer::start(scenario(
        json!({"steps": [{"response": {"type": "stream", "blocks": [
        {"type": "text", "text": "ok"}]}}]}),
    ))
    .await
    .unwrap();
    let unanswered = json!({"model": "m", "max_tokens": 5, "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "A", "input": {}}]},
        {"role": "user", "content": [{"type": "text", "text": "forgot the result"}]}
    ]});
    let response = post(&server, &unanswered).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["type"], "error");
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(
        body["error"]["message"],
        "messages.2: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_1. Each `tool_use` block must have a corresponding `tool_result` block in the next message."
    );

    let no_key = client()
        .post(format!("{}/v1/messages", server.url()))
        .header("anthropic-version", "2023-06-01")
        .json(&request_body())
        .send()
        .await
        .unwrap();
    assert_eq!(no_key.status(), 401);
    let body: Value = no_key.json().await.unwrap();
    assert_eq!(body["error"]["type"], "authentication_error");

    assert_eq!(
        server.remaining_steps(),
        1,
        "rejected requests do not consume the step"
    );
    assert_eq!(post(&server, &request_body()).await.status(), 200);
    let exhausted = post(&server, &request_body()).await;
    assert_eq!(exhausted.status(), 500);
    let body: Value = exhausted.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("mock scenario exhausted")
    );
    let statuses: Vec<(Option<usize>, u16)> = server.requests().iter().map(|r| (r.step, r.status)).collect();
    assert_eq!(
        statuses,
        vec![(None, 400), (None, 401), (Some(0), 200), (None, 500)]
    );
}

#[tokio::test]
async fn overloaded_step_then_success() {
    let server = MockServer::start(scenario(json!({"steps": [
        {"response": {"type": "error", "status": 529, "retry_after": "2", "retry_after_ms": "1500"}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]})))
    .await
    .unwrap();
    let first = post(&server, &request_body()).await;
    assert_eq!(first.status(), 529);
    assert_eq!(first.headers()["retry-after"], "2");
    assert_eq!(first.headers()["retry-after-ms"], "1500");
    let body: Value = first.json().await.unwrap();
    assert_eq!(
        body["error"],
        json!({"type": "overloaded_error", "message": "Overloaded"})
    );
    let second = post(&server, &request_body()).await;
    assert_eq!(second.status(), 200);
    assert!(second.text().await.unwrap().contains("message_stop"));
}

#[tokio::test]
async fn expectations_are_checked() {
    let server = MockServer::start(scenario(json!({"steps": [
        {"expect": {"tool_count": 2}, "response": {"type": "stream", "blocks": [{"type": "text", "text": "x"}]}}
    ]})))
    .await
    .unwrap();
    let response = post(&server, &request_body()).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "mock expectation failed at step 0: expected 2 tools, the request has 0"
    );
}

/// Steps with `when` answer the requests whose system prompt matches, whatever their order; a
/// request no remaining step matches gets a 500 saying so.
#[tokio::test]
async fn steps_are_chosen_by_the_system_prompt() {
    let server = MockServer::start(scenario(json!({"steps": [
        {"when": {"system_contains": "sub-agent"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "child answer"}]}},
        {"when": {"system_excludes": ["sub-agent"]},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "parent answer"}]}}
    ]})))
    .await
    .unwrap();
    let with_system = |system: &str| {
        let mut body = request_body();
        body["system"] = json!([{"type": "text", "text": system}]);
        body
    };
    let parent = post(&server, &with_system("You are Nerve.")).await;
    assert!(parent.text().await.unwrap().contains("parent answer"));
    let unmatched = post(&server, &with_system("You are Nerve, again.")).await;
    assert_eq!(unmatched.status(), 500);
    let body: Value = unmatched.json().await.unwrap();
    assert_eq!(
        body["error"]["message"],
        "mock scenario has no step for request #1: 1 steps are left, and the `when` of none of them matches it"
    );
    let child = post(&server, &with_system("You are a Nerve sub-agent.")).await;
    assert!(child.text().await.unwrap().contains("child answer"));
    assert_eq!(server.remaining_steps(), 0);
    let steps: Vec<Option<usize>> = server.requests().iter().map(|r| r.step).collect();
    assert_eq!(steps, vec![Some(1), None, Some(0)]);
}

#[tokio::test]
async fn dropped_stream_breaks_the_connection_after_n_events() {
    let server = MockServer::start(scenario(json!({"steps": [{"response": {"type": "stream",
        "blocks": [{"type": "text", "text": ["a", "b", "c"]}], "drop_after_events": 4}}]})))
    .await
    .unwrap();
    let response = post(&server, &request_body()).await;
    assert_eq!(response.status(), 200);
    let mut body = response.bytes_stream();
    let mut received = Vec::new();
    let mut failed = false;
    while let Some(chunk) = body.next().await {
        match chunk {
            Ok(bytes) => received.extend_from_slice(&bytes),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert!(
        failed,
        "the body must end with a transport error, not a clean end"
    );
    let text = String::from_utf8(received).unwrap();
    let names: Vec<String> = parse_sse(&text).into_iter().map(|(name, _)| name).collect();
    assert_eq!(
        names,
        vec![
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta"
        ]
    );
}

#[tokio::test]
async fn stream_error_sends_an_error_event_and_ends() {
    let server = MockServer::start(scenario(json!({"steps": [{"response": {"type": "stream",
        "blocks": [{"type": "text", "text": "a"}], "stream_error": {"after_events": 3}}}]})))
    .await
    .unwrap();
    let events = parse_sse(&post(&server, &request_body()).await.text().await.unwrap());
    let names: Vec<&str> = events.iter().map(|(name, _)| name.as_str()).collect();
    assert_eq!(
        names,
        vec!["message_start", "ping", "content_block_start", "error"]
    );
    assert_eq!(
        events[3].1,
        json!({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})
    );
}

#[tokio::test]
async fn unknown_paths_get_a_json_404() {
    let server = MockServer::start(scenario(json!({"steps": []}))).await.unwrap();
    let response = client()
        .get(format!("{}/v1/complete", server.url()))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "not_found_error");
}

/// The time spent answering messages, over HTTP for a client in another process: none before the
/// first request, then what `busy()` says (the sink counts no time).
#[tokio::test]
async fn busy_time_is_served_and_the_sink_adds_none() {
    let server = MockServer::start(scenario(json!({"steps": [
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "hi"}]}}]})))
    .await
    .unwrap();
    let busy = || get_json(format!("{}/__mock/busy", server.url()));
    assert_eq!(busy().await, json!({"busy_ns": 0}));
    assert_eq!(post(&server, &request_body()).await.status(), 200);
    let sunk = client()
        .post(format!("{}/__mock/sink", server.url()))
        .body(vec![b'x'; 1 << 20])
        .send()
        .await
        .unwrap();
    assert_eq!(sunk.status(), 204);
    let after = busy().await;
    let answered = u64::try_from(server.busy().as_nanos()).unwrap();
    assert!(answered > 0);
    assert_eq!(after, json!({"busy_ns": answered}));
}

/// Only orderings and lower bounds (a delay is at least its length, however loaded the machine):
/// the headers come before the first delay, so the first event follows them by most of it.
#[tokio::test]
async fn delays_are_honoured() {
    let server = MockServer::start(scenario(json!({"steps": [{"response": {"type": "stream", "delay_ms": 600,
        "blocks": [{"type": "text", "text": "first"}, {"type": "text", "text": "second", "delay_ms": 200}]}}]})))
    .await
    .unwrap();
    let started = Instant::now();
    let response = post(&server, &request_body()).await;
    let headers_at = started.elapsed();
    let mut body = response.bytes_stream();
    let mut text = String::new();
    let mut first_at = None;
    let mut second_at = None;
    while let Some(chunk) = body.next().await {
        text.push_str(std::str::from_utf8(&chunk.unwrap()).unwrap());
        if first_at.is_none() && text.contains("message_start") {
            first_at = Some(started.elapsed());
        }
        if second_at.is_none() && text.contains("\"index\":1") {
            second_at = Some(started.elapsed());
        }
    }
    let (first_at, second_at) = (first_at.unwrap(), second_at.unwrap());
    assert!(
        first_at >= Duration::from_millis(600),
        "first event at {first_at:?}"
    );
    assert!(
        first_at >= headers_at + Duration::from_millis(300),
        "headers at {headers_at:?} should come before the 600 ms delay, first event at {first_at:?}"
    );
    assert!(
        second_at >= first_at + Duration::from_millis(200),
        "second block at {second_at:?}, first at {first_at:?}"
    );
}

#[tokio::test]
async fn non_streaming_requests_get_one_json_message() {
    let server = MockServer::start(scenario(
        json!({"steps": [{"response": {"type": "stream", "blocks": [
        {"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": ["a", "b"]}]}}]}),
    ))
    .await
    .unwrap();
    let mut body = request_body();
    body["stream"] = json!(false);
    let message: Value = post(&server, &body).await.json().await.unwrap();
    assert_eq!(
        message["content"],
        json!([{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "ab"}])
    );
    assert_eq!(message["stop_reason"], "end_turn");
}

#[test]
fn binary_prints_its_address_and_serves() {
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scenario.json");
    std::fs::write(&path, r#"{"steps": []}"#).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_nerve-mock-model"))
        .arg("--scenario")
        .arg(&path)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let url = nerve_mock_model::read_announced_url(child.stdout.take().unwrap()).unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let listed = runtime.block_on(get_json(format!("{url}/__mock/requests")));
    assert_eq!(listed, json!([]));
    child.kill().unwrap();
    child.wait().unwrap();

    let bad = Command::new(env!("CARGO_BIN_EXE_nerve-mock-model"))
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("--scenario FILE is required"));
}
