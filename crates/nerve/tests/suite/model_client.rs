//! `ModelClient` against the scripted mock server over real HTTP.

// Test helpers outside #[test] fns are not covered by clippy.toml's allow-*-in-tests.

use std::time::Duration;

use futures::StreamExt;
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig, ModelEvent};
use nerve::model::error::{ModelError, StreamError};
use nerve::model::retry::{RetryPolicy, RetryReason};
use nerve::model::sse::StreamEvent;
use nerve::model::types::{
    ContentBlock, Message, MessagesRequest, Role, StopReason, ToolDefinition, ToolUseBlock, Usage,
};
use nerve_mock_model::MockServer;

use crate::support::mock;
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn client(server: &MockServer, max_retries: u32) -> ModelClient {
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("sk-test-key"), Some(server.url()));
    config.retry = RetryPolicy {
        max_retries,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(5),
        max_server_delay: Duration::from_secs(1),
    };
    config.idle_timeout = Duration::from_millis(300);
    config.betas = vec!["test-beta-2025".into()];
    ModelClient::new(config).unwrap()
}

fn request() -> MessagesRequest {
    MessagesRequest {
        model: "claude-test".into(),
        max_tokens: 256,
        system: Vec::new(),
        messages: vec![Message::user_text("list the files")],
        tools: vec![ToolDefinition {
            name: "Bash".into(),
            description: Some("Run a shell command".into()),
            input_schema: json!({"type": "object", "properties": {"command": {"type": "string"}}}),
            cache_control: None,
            defer_loading: None,
        }],
        stream: false,
        thinking: None,
        metadata: None,
        temperature: None,
    }
}

async fn collect(client: &ModelClient, cancel: CancellationToken) -> Vec<Result<ModelEvent, ModelError>> {
    client.stream_message(request(), cancel).collect().await
}

fn last_error(events: &[Result<ModelEvent, ModelError>]) -> ModelError {
    match events.last() {
        Some(Err(error)) => error.clone(),
        other => panic!("expected the stream to end with an error, got {other:?}"),
    }
}

#[tokio::test]
async fn streamed_tool_use_is_assembled() {
    let server = mock(json!([{"expect": {"tool_count": 1, "last_user_text_contains": "list"},
        "response": {"type": "stream", "usage": {"input_tokens": 40, "output_tokens": 12},
        "blocks": [
            {"type": "thinking", "thinking": ["Use ", "ls."], "signature": "sig-abc"},
            {"type": "text", "text": ["Listing ", "files."]},
            {"type": "tool_use", "id": "toolu_42", "name": "Bash", "input": {"command": "ls -la", "timeout": 5}, "fragments": 5}
        ]}}]))
    .await;
    let events = collect(&client(&server, 0), CancellationToken::new()).await;
    let events: Vec<ModelEvent> = events.into_iter().map(Result::unwrap).collect();

    let tool = ContentBlock::ToolUse(ToolUseBlock {
        id: "toolu_42".into(),
        name: "Bash".into(),
        input: json!({"command": "ls -la", "timeout": 5}),
        cache_control: None,
    });
    let completed: Vec<(usize, ContentBlock)> = events
        .iter()
        .filter_map(|e| match e {
            ModelEvent::BlockComplete { index, block } => Some((*index, block.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(completed.len(), 3);
    assert_eq!(completed[2], (2, tool.clone()));
    assert!(matches!(
        events.first(),
        Some(ModelEvent::Event(StreamEvent::MessageStart { .. }))
    ));
    let Some(ModelEvent::MessageComplete(message)) = events.last() else {
        panic!("last event is {:?}", events.last());
    };
    assert_eq!(message.stop_reason, StopReason::ToolUse);
    assert_eq!(message.content[2], tool);
    assert_eq!(
        message.usage,
        Usage {
            input_tokens: 40,
            output_tokens: 12,
            ..Usage::default()
        }
    );
    assert_eq!(message.to_message().role, Role::Assistant);

    let recorded = server.requests();
    assert_eq!(recorded.len(), 1);
    assert_eq!(recorded[0].headers["anthropic-version"], "2023-06-01");
    assert_eq!(recorded[0].headers["anthropic-beta"], "test-beta-2025");
    assert_eq!(recorded[0].headers["x-api-key"], "<redacted>");
    assert_eq!(
        recorded[0].body["stream"],
        json!(true),
        "the client always asks for a stream"
    );
}

#[tokio::test]
async fn the_assembled_message_round_trips_through_the_mock_validator() {
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "thinking", "thinking": "t", "signature": "sig"},
            {"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": "ls"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "toolu_1", "contains": "README"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}}
    ]))
    .await;
    let client = client(&server, 0);
    let events: Vec<ModelEvent> = collect(&client, CancellationToken::new())
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let Some(ModelEvent::MessageComplete(first)) = events.last() else {
        panic!("no message")
    };
    let mut next = request();
    next.messages.push(first.to_message());
    next.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::tool_result("toolu_1", "README.md", false)],
    });
    let events: Vec<_> = client
        .stream_message(next, CancellationToken::new())
        .collect()
        .await;
    let Some(Ok(ModelEvent::MessageComplete(second))) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(second.content, vec![ContentBlock::text("done")]);
}

#[tokio::test]
async fn overloaded_is_retried_with_a_retry_event() {
    let server = mock(json!([
        {"response": {"type": "error", "status": 529, "retry_after": "0"}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]))
    .await;
    let events: Vec<ModelEvent> = collect(&client(&server, 3), CancellationToken::new())
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let ModelEvent::Retrying(notice) = &events[0] else {
        panic!("first event is {:?}", events[0])
    };
    assert_eq!(notice.attempt, 1);
    assert_eq!(notice.max_retries, 3);
    assert_eq!(notice.delay, Duration::ZERO, "retry-after: 0 is honoured");
    assert_eq!(
        notice.reason,
        RetryReason::Status {
            status: 529,
            error_type: "overloaded_error".into(),
            message: "Overloaded".into()
        }
    );
    assert!(matches!(events.last(), Some(ModelEvent::MessageComplete(_))));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn retries_stop_at_the_limit_with_the_last_api_error() {
    let server = mock(json!([
        {"response": {"type": "error", "status": 500}},
        {"response": {"type": "error", "status": 429, "message": "slow down"}},
        {"response": {"type": "error", "status": 529}}
    ]))
    .await;
    let events = collect(&client(&server, 2), CancellationToken::new()).await;
    let retries = events
        .iter()
        .filter(|e| matches!(e, Ok(ModelEvent::Retrying(_))))
        .count();
    assert_eq!(retries, 2);
    assert_eq!(
        last_error(&events),
        ModelError::Api {
            status: 529,
            kind: "overloaded_error".into(),
            message: "Overloaded".into(),
            request_id: Some("req_mock_2".into())
        }
    );
}

#[tokio::test]
async fn a_drop_after_content_is_stream_interrupted_and_not_retried() {
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": ["a", "b", "c"]}], "drop_after_events": 5}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "never sent"}]}}
    ]))
    .await;
    let events = collect(&client(&server, 3), CancellationToken::new()).await;
    let ModelError::StreamInterrupted {
        cause,
        events_delivered,
    } = last_error(&events)
    else {
        panic!("{events:?}");
    };
    assert!(matches!(cause, StreamError::Transport(_)), "{cause:?}");
    assert_eq!(
        events_delivered, 5,
        "message_start, ping, block start and two deltas reached the caller"
    );
    assert_eq!(
        server.requests().len(),
        1,
        "the client must not retry once content was shown"
    );
}

#[tokio::test]
async fn a_drop_before_content_is_retried_transparently() {
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "lost"}], "drop_after_events": 2}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "kept"}]}}
    ]))
    .await;
    let events: Vec<ModelEvent> = collect(&client(&server, 3), CancellationToken::new())
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert!(
        matches!(&events[0], ModelEvent::Retrying(n) if matches!(n.reason, RetryReason::StreamFailed { .. }))
    );
    let starts = events
        .iter()
        .filter(|e| matches!(e, ModelEvent::Event(StreamEvent::MessageStart { .. })))
        .count();
    assert_eq!(
        starts, 1,
        "the held-back message_start of the failed attempt is never shown"
    );
    let Some(ModelEvent::MessageComplete(message)) = events.last() else {
        panic!("{events:?}")
    };
    assert_eq!(message.content, vec![ContentBlock::text("kept")]);
}

#[tokio::test]
async fn error_bodies_are_reported_with_status_and_message() {
    let server = mock(json!([
        {"response": {"type": "error", "status": 400, "message": "max_tokens: too large"}},
        {"response": {"type": "error", "status": 502, "raw_body": "Bad gateway from proxy"}}
    ]))
    .await;
    let client = client(&server, 0);
    let events = collect(&client, CancellationToken::new()).await;
    assert_eq!(
        last_error(&events),
        ModelError::Api {
            status: 400,
            kind: "invalid_request_error".into(),
            message: "max_tokens: too large".into(),
            request_id: Some("req_mock_0".into())
        }
    );
    let events = collect(&client, CancellationToken::new()).await;
    let ModelError::Api {
        status,
        kind,
        message,
        ..
    } = last_error(&events)
    else {
        panic!("{events:?}")
    };
    assert_eq!(
        (status, kind.as_str(), message.as_str()),
        (502, "http_error", "Bad gateway from proxy")
    );
}

#[tokio::test]
async fn validation_failures_of_the_mock_reach_the_caller() {
    let server = mock(json!([])).await;
    let mut bad = request();
    bad.messages.push(Message {
        role: Role::User,
        content: vec![ContentBlock::text("twice")],
    });
    let events: Vec<_> = client(&server, 3)
        .stream_message(bad, CancellationToken::new())
        .collect()
        .await;
    let ModelError::Api { status, message, .. } = last_error(&events) else {
        panic!("{events:?}")
    };
    assert_eq!(status, 400);
    assert!(message.contains("roles must alternate"), "{message}");
    assert_eq!(events.len(), 1, "400 is not retried");
}

#[tokio::test]
async fn invalid_tool_json_is_a_stream_error_with_the_raw_text() {
    let server = mock(json!([{"response": {"type": "stream", "blocks": [
        {"type": "tool_use", "id": "toolu_bad", "name": "Bash", "raw_input": "{\"command\": \"ls", "fragments": 2}]}}]))
    .await;
    let events = collect(&client(&server, 3), CancellationToken::new()).await;
    let ModelError::Stream(StreamError::InvalidToolInput { raw, tool_use_id, .. }) = last_error(&events)
    else {
        panic!("{events:?}");
    };
    assert_eq!(
        (raw.as_str(), tool_use_id.as_str()),
        ("{\"command\": \"ls", "toolu_bad")
    );
}

#[tokio::test]
async fn a_silent_connection_hits_the_idle_timeout() {
    let server = mock(json!([{"response": {"type": "stream", "delay_ms": 2000, "blocks": [{"type": "text", "text": "late"}]}}])).await;
    let events = collect(&client(&server, 0), CancellationToken::new()).await;
    assert_eq!(
        last_error(&events),
        ModelError::StreamInterrupted {
            cause: StreamError::IdleTimeout(Duration::from_millis(300)),
            events_delivered: 0
        }
    );
}

#[tokio::test]
async fn cancellation_ends_the_stream() {
    let server = mock(json!([{"response": {"type": "stream", "blocks": [
        {"type": "text", "text": "a"}, {"type": "text", "text": "b", "delay_ms": 5000}]}}]))
    .await;
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("k"), Some(server.url()));
    config.idle_timeout = Duration::from_secs(30);
    let client = ModelClient::new(config).unwrap();
    let cancel = CancellationToken::new();
    let mut stream = client.stream_message(request(), cancel.clone());
    let mut seen = 0;
    let started = std::time::Instant::now();
    let last = loop {
        match stream.next().await {
            Some(Ok(ModelEvent::BlockComplete { .. })) => cancel.cancel(),
            Some(Ok(_)) => seen += 1,
            Some(Err(error)) => break error,
            None => panic!("the stream ended without an error"),
        }
    };
    assert_eq!(last, ModelError::Cancelled);
    assert!(seen > 0);
    assert!(started.elapsed() < Duration::from_secs(3));
    assert!(stream.next().await.is_none(), "nothing follows the error");
}

#[tokio::test]
async fn an_in_stream_overload_before_content_is_retried() {
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "x"}], "stream_error": {"after_events": 2}}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]))
    .await;
    let events: Vec<ModelEvent> = collect(&client(&server, 3), CancellationToken::new())
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    let ModelEvent::Retrying(notice) = &events[0] else {
        panic!("{events:?}")
    };
    assert!(
        matches!(&notice.reason, RetryReason::StreamFailed { message } if message.contains("overloaded_error")),
        "{notice:?}"
    );
    assert!(matches!(events.last(), Some(ModelEvent::MessageComplete(_))));
}

#[tokio::test]
async fn an_in_stream_overload_after_content_is_stream_interrupted() {
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "x"}], "stream_error": {"after_events": 3}}}
    ]))
    .await;
    let events = collect(&client(&server, 3), CancellationToken::new()).await;
    assert_eq!(
        last_error(&events),
        ModelError::StreamInterrupted {
            cause: StreamError::Api {
                kind: "overloaded_error".into(),
                message: "Overloaded".into()
            },
            events_delivered: 3
        }
    );
}

#[tokio::test]
async fn connection_failures_are_retried_then_reported() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("k"), Some(url.clone()));
    config.retry = RetryPolicy {
        max_retries: 1,
        base_delay: Duration::from_millis(1),
        max_delay: Duration::from_millis(1),
        max_server_delay: Duration::from_secs(1),
    };
    let events: Vec<_> = ModelClient::new(config)
        .unwrap()
        .stream_message(request(), CancellationToken::new())
        .collect()
        .await;
    assert!(
        matches!(&events[0], Ok(ModelEvent::Retrying(n)) if matches!(n.reason, RetryReason::Connection { .. }))
    );
    let ModelError::Connect { url: failed, message } = last_error(&events) else {
        panic!("{events:?}")
    };
    assert_eq!(failed, format!("{url}/v1/messages"));
    assert!(!message.is_empty());
    assert_eq!(events.len(), 2);
}
