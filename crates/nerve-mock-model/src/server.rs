//! The HTTP server: `POST /v1/messages` plays the scenario, `GET /__mock/requests` lists what
//! was received.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use futures::StreamExt;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::expect;
use crate::frames::{Frame, full_message, stream_frames};
use crate::scenario::{
    ErrorResponse, Response as StepResponse, Scenario, Step, StreamResponse, error_type_for_status,
};
use crate::validate::{Rejection, validate_request_with};

/// One request as the mock received it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedRequest {
    /// Order of arrival, from 0.
    pub index: usize,
    /// Request path.
    pub path: String,
    /// Headers, lower-case names; the `x-api-key` and `authorization` values are replaced by
    /// `<redacted>` so recordings can be printed safely.
    pub headers: BTreeMap<String, String>,
    /// The JSON body, or the raw text as a JSON string when it was not JSON.
    pub body: Value,
    /// Scenario step that answered (None when validation rejected the request or the scenario
    /// was exhausted).
    pub step: Option<usize>,
    /// Status of the answer.
    pub status: u16,
}

#[derive(Debug)]
struct Shared {
    steps: Vec<Step>,
    auth: crate::scenario::AuthMode,
    models: Vec<String>,
    /// Which steps have answered a request.
    used: Vec<bool>,
    requests: Vec<RecordedRequest>,
    /// The simulated prompt cache, when the scenario asks for one.
    cache: Option<crate::cache::PromptCache>,
    record_bodies: bool,
    /// Time spent reading, checking and answering requests (not streaming the answers).
    busy: std::time::Duration,
}

type SharedState = Arc<Mutex<Shared>>;

fn lock(state: &SharedState) -> MutexGuard<'_, Shared> {
    // A panic elsewhere must not hide the recordings from the test that wants to read them.
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Why the server could not start.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// Binding the port failed.
    #[error("cannot listen on {addr}: {message}")]
    Bind {
        /// Address tried.
        addr: String,
        /// The OS error.
        message: String,
    },
}

/// A running mock. Dropping it stops the server.
#[derive(Debug)]
pub struct MockServer {
    addr: SocketAddr,
    state: SharedState,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl MockServer {
    /// Starts serving `scenario` on 127.0.0.1 with a free port.
    pub async fn start(scenario: Scenario) -> Result<Self, MockError> {
        Self::start_on_port(scenario, 0).await
    }

    /// Starts serving `scenario` on 127.0.0.1:`port` (0 picks a free port).
    pub async fn start_on_port(scenario: Scenario, port: u16) -> Result<Self, MockError> {
        let wanted = SocketAddr::from(([127, 0, 0, 1], port));
        let bind_error = |e: std::io::Error| MockError::Bind {
            addr: wanted.to_string(),
            message: e.to_string(),
        };
        let listener = tokio::net::TcpListener::bind(wanted).await.map_err(bind_error)?;
        let addr = listener.local_addr().map_err(bind_error)?;
        let scenario_steps = scenario.steps.len();
        let state = Arc::new(Mutex::new(Shared {
            steps: scenario.steps,
            auth: scenario.auth,
            models: scenario
                .models
                .unwrap_or_else(|| vec!["claude-sonnet-4-5".to_owned(), "claude-haiku-4-5".to_owned()]),
            used: vec![false; scenario_steps],
            requests: Vec::new(),
            cache: scenario.prompt_cache.then(crate::cache::PromptCache::default),
            record_bodies: scenario.record_bodies,
            busy: std::time::Duration::ZERO,
        }));
        let app = Router::new()
            .route("/v1/messages", post(messages))
            .route("/v1/chat/completions", post(chat_completions))
            .route("/v1/responses", post(responses))
            .route("/v1/models", get(list_models))
            .route("/__mock/requests", get(list_requests))
            .route("/__mock/sink", post(sink))
            .route("/__mock/busy", get(busy))
            .fallback(not_found)
            // The API takes requests of up to 32 MB (axum's own default is 2 MB, which a long
            // session's requests pass).
            .layer(axum::extract::DefaultBodyLimit::max(MAX_REQUEST_BYTES))
            .with_state(Arc::clone(&state));
        let (stop, stopped) = oneshot::channel::<()>();
        let task = tokio::spawn(async move {
            // Answers go out as they are written, as the API's do: with Nagle's algorithm on, a
            // streamed answer's last small write waits for the client's delayed ACK (~40 ms).
            let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
                let _ = tcp.set_nodelay(true);
            });
            let serve = axum::serve(listener, app).with_graceful_shutdown(async {
                let _ = stopped.await;
            });
            if let Err(error) = serve.await {
                tracing::error!(%error, "mock server stopped with an error");
            }
        });
        Ok(Self {
            addr,
            state,
            stop: Some(stop),
            task: Some(task),
        })
    }

    /// Base URL, for example `http://127.0.0.1:41234` (use it as `ANTHROPIC_BASE_URL`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The bound address.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        lock(&self.state).requests.clone()
    }

    /// Time the server has spent reading, checking and answering requests, not counting the
    /// streaming of answers: what a benchmark of the client subtracts to see the client's own time
    /// (the server parses and checks every request whole, as the API does, so its share grows with
    /// the conversation).
    pub fn busy(&self) -> std::time::Duration {
        lock(&self.state).busy
    }

    /// Steps not yet played.
    pub fn remaining_steps(&self) -> usize {
        let shared = lock(&self.state);
        shared.used.iter().filter(|used| !**used).count()
    }

    /// Serves until the process is killed (for the binary).
    pub async fn wait(mut self) {
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }

    /// Stops accepting requests; connections still streaming get a second to finish.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(1), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for MockServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

fn record_headers(headers: &HeaderMap) -> BTreeMap<String, String> {
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for (name, value) in headers {
        let name = name.as_str().to_ascii_lowercase();
        let value = if name == "x-api-key" || name == "authorization" {
            "<redacted>".to_owned()
        } else {
            String::from_utf8_lossy(value.as_bytes()).into_owned()
        };
        out.entry(name)
            .and_modify(|existing| {
                existing.push_str(", ");
                existing.push_str(&value);
            })
            .or_insert(value);
    }
    out
}

fn error_body(error_type: &str, message: &str, request_id: &str) -> Value {
    json!({"type": "error", "error": {"type": error_type, "message": message}, "request_id": request_id})
}

fn json_error(status: u16, error_type: &str, message: &str, request_id: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let mut response = (status, Json(error_body(error_type, message, request_id))).into_response();
    insert_header(&mut response, "request-id", request_id);
    response
}

fn insert_header(response: &mut Response, name: &'static str, value: &str) {
    if let Ok(value) = HeaderValue::from_str(value) {
        response.headers_mut().insert(name, value);
    }
}

async fn not_found(uri: axum::http::Uri) -> Response {
    json_error(
        404,
        "not_found_error",
        &format!(
            "the mock serves POST /v1/messages, GET /v1/models, GET /__mock/requests, GET /__mock/busy and POST /__mock/sink, not {}",
            uri.path()
        ),
        "req_mock_404",
    )
}

/// `POST /__mock/sink`: takes a body and answers 204, checking nothing and counting no time: what
/// sending a request costs by itself over the same connection stack (a benchmark's floor).
async fn sink(body: Bytes) -> StatusCode {
    std::hint::black_box(body.len());
    StatusCode::NO_CONTENT
}

/// `GET /__mock/busy`: [`MockServer::busy`] as `{"busy_ns": N}`, for a benchmark whose mock runs
/// in a process of its own (so that its allocations and threads are not the client's).
async fn busy(State(state): State<SharedState>) -> Json<Value> {
    let busy = lock(&state).busy;
    Json(serde_json::json!({ "busy_ns": u64::try_from(busy.as_nanos()).unwrap_or(u64::MAX) }))
}

/// `GET /v1/models` in the API's shape, behind the same credentials check as messages.
async fn list_models(State(state): State<SharedState>, headers: HeaderMap) -> Response {
    let shared = lock(&state);
    if let Err(rejection) = crate::validate::check_credentials(&headers, shared.auth) {
        return json_error(
            rejection.status,
            rejection.error_type,
            &rejection.message,
            "req_mock_models",
        );
    }
    let data: Vec<Value> = shared
        .models
        .iter()
        .map(
            |id| json!({"type": "model", "id": id, "display_name": id, "created_at": "2026-01-01T00:00:00Z"}),
        )
        .collect();
    Json(json!({
        "data": data,
        "has_more": false,
        "first_id": shared.models.first(),
        "last_id": shared.models.last(),
    }))
    .into_response()
}

async fn list_requests(State(state): State<SharedState>) -> Json<Vec<RecordedRequest>> {
    Json(lock(&state).requests.clone())
}

enum Plan {
    Reject(Rejection),
    Exhausted {
        steps: usize,
        /// Steps left unused, none of whose `when` matched.
        unmatched: usize,
    },
    ExpectationFailed {
        step: usize,
        message: String,
    },
    Play {
        step: usize,
        response: Box<StepResponse>,
        body: Value,
    },
}

/// The Messages API's request size limit.
const MAX_REQUEST_BYTES: usize = 32 * 1024 * 1024;

async fn messages(State(state): State<SharedState>, headers: HeaderMap, body: Bytes) -> Response {
    let started = std::time::Instant::now();
    let response = answer_messages(&state, &headers, body, Dialect::Messages);
    lock(&state).busy += started.elapsed();
    response
}

async fn chat_completions(State(state): State<SharedState>, headers: HeaderMap, body: Bytes) -> Response {
    let started = std::time::Instant::now();
    let response = answer_messages(&state, &headers, body, Dialect::Chat);
    lock(&state).busy += started.elapsed();
    response
}

async fn responses(State(state): State<SharedState>, headers: HeaderMap, body: Bytes) -> Response {
    let started = std::time::Instant::now();
    let response = answer_messages(&state, &headers, body, Dialect::Responses);
    lock(&state).busy += started.elapsed();
    response
}

/// Which API a request came in on: the same steps answer all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dialect {
    /// Anthropic's Messages API.
    Messages,
    /// The OpenAI-compatible Chat Completions API.
    Chat,
    /// OpenAI's Responses API.
    Responses,
}

impl Dialect {
    fn path(self) -> &'static str {
        match self {
            Dialect::Messages => "/v1/messages",
            Dialect::Chat => "/v1/chat/completions",
            Dialect::Responses => "/v1/responses",
        }
    }

    /// An error in this API's own shape.
    fn error(self, status: u16, error_type: &str, message: &str, request_id: &str) -> Response {
        match self {
            Dialect::Messages => json_error(status, error_type, message, request_id),
            Dialect::Chat | Dialect::Responses => {
                let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
                let mut response =
                    (status, Json(crate::chat::error_body(error_type, message))).into_response();
                insert_header(&mut response, "x-request-id", request_id);
                response
            }
        }
    }
}

fn answer_messages(state: &SharedState, headers: &HeaderMap, body: Bytes, dialect: Dialect) -> Response {
    // Parsed once more only to be kept: a long benchmark that keeps no bodies skips it.
    let keep = lock(state).record_bodies;
    let recorded_body = if keep {
        serde_json::from_slice::<Value>(&body)
            .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(&body).into_owned()))
    } else {
        Value::Null
    };
    let (index, plan) = {
        let mut shared = lock(state);
        let index = shared.requests.len();
        let validated = match dialect {
            Dialect::Messages => {
                validate_request_with(headers, &body, shared.auth).map(|parsed| (parsed.clone(), parsed))
            }
            Dialect::Chat => crate::chat::validate(headers, &body, shared.auth),
            Dialect::Responses => crate::responses::validate(headers, &body, shared.auth),
        };
        let plan = match validated {
            // Rejected requests do not consume a step: the real API refuses them before
            // anything is generated.
            Err(rejection) => Plan::Reject(rejection),
            // The earliest step not used yet whose `when` the request satisfies (a step without
            // `when` takes any request, so a plain scenario plays in order).
            Ok((request, parsed)) => match (0..shared.steps.len())
                .find(|&i| !shared.used[i] && expect::check(&shared.steps[i].when, &parsed).is_ok())
            {
                None => Plan::Exhausted {
                    steps: shared.steps.len(),
                    unmatched: shared.used.iter().filter(|used| !**used).count(),
                },
                Some(step_index) => {
                    let step = shared.steps[step_index].clone();
                    shared.used[step_index] = true;
                    match expect::check(&step.expect, &parsed)
                        .and_then(|()| expect::server_tools_offered(&step.response, &parsed))
                    {
                        Err(message) => Plan::ExpectationFailed {
                            step: step_index,
                            message,
                        },
                        Ok(()) => {
                            let mut response = step.response;
                            if let (Some(cache), StepResponse::Stream(stream)) =
                                (shared.cache.as_mut(), &mut response)
                            {
                                let counted = cache.account(&parsed);
                                stream.usage.input_tokens = counted.input_tokens;
                                stream.usage.cache_creation_input_tokens =
                                    counted.cache_creation_input_tokens;
                                stream.usage.cache_read_input_tokens = counted.cache_read_input_tokens;
                            }
                            Plan::Play {
                                step: step_index,
                                response: Box::new(response),
                                body: request,
                            }
                        }
                    }
                }
            },
        };
        let (step, status) = match &plan {
            Plan::Reject(rejection) => (None, rejection.status),
            Plan::Exhausted { .. } => (None, 500),
            Plan::ExpectationFailed { step, .. } => (Some(*step), 400),
            Plan::Play { step, response, .. } => match response.as_ref() {
                StepResponse::Error(error) => (Some(*step), error.status),
                StepResponse::Stream(_) => (Some(*step), 200),
            },
        };
        shared.requests.push(RecordedRequest {
            index,
            path: dialect.path().to_owned(),
            headers: record_headers(headers),
            body: recorded_body,
            step,
            status,
        });
        (index, plan)
    };
    let request_id = format!("req_mock_{index}");
    match plan {
        Plan::Reject(rejection) => dialect.error(
            rejection.status,
            rejection.error_type,
            &rejection.message,
            &request_id,
        ),
        Plan::Exhausted { steps, unmatched: 0 } => dialect.error(
            500,
            "api_error",
            &format!(
                "mock scenario exhausted: all {steps} scripted steps were used, and request #{index} has no scripted answer; add a step to the scenario"
            ),
            &request_id,
        ),
        Plan::Exhausted { unmatched, .. } => dialect.error(
            500,
            "api_error",
            &format!(
                "mock scenario has no step for request #{index}: {unmatched} steps are left, and the `when` of none of them matches it"
            ),
            &request_id,
        ),
        Plan::ExpectationFailed { step, message } => dialect.error(
            400,
            "invalid_request_error",
            &format!("mock expectation failed at step {step}: {message}"),
            &request_id,
        ),
        Plan::Play { step, response, body } => match *response {
            StepResponse::Error(error) if dialect != Dialect::Messages => dialect.error(
                error.status,
                &error.error_type.clone().unwrap_or_else(|| error_type_for_status(error.status).to_owned()),
                error.message.as_deref().unwrap_or("scripted error"),
                &request_id,
            ),
            StepResponse::Error(error) => scripted_error(&error, &request_id),
            StepResponse::Stream(stream) if dialect == Dialect::Responses => {
                let model = body.get("model").and_then(Value::as_str).unwrap_or("mock").to_owned();
                let id = format!("resp_mock_{index}");
                sse_response(crate::responses::events(step, &stream, &model, &id), &request_id)
            }
            StepResponse::Stream(stream) if dialect == Dialect::Chat => {
                let model = body.get("model").and_then(Value::as_str).unwrap_or("mock").to_owned();
                let id = format!("chatcmpl-mock-{index}");
                if body.get("stream").and_then(Value::as_bool) == Some(true) {
                    let usage = body["stream_options"]["include_usage"] == json!(true);
                    sse_response(crate::chat::chunks(step, &stream, &model, &id, usage), &request_id)
                } else {
                    Json(crate::chat::completion(step, &stream, &model, &id)).into_response()
                }
            }
            StepResponse::Stream(stream) => {
                let model = body
                    .get("model")
                    .and_then(Value::as_str)
                    .unwrap_or("claude-mock")
                    .to_owned();
                let message_id = format!("msg_mock_{index}");
                if body.get("stream").and_then(Value::as_bool) == Some(true) {
                    streamed(step, &stream, &model, &message_id, &request_id)
                } else {
                    let mut response = Json(full_message(step, &stream, &model, &message_id)).into_response();
                    insert_header(&mut response, "request-id", &request_id);
                    response
                }
            }
        },
    }
}

fn scripted_error(error: &ErrorResponse, request_id: &str) -> Response {
    let error_type = error
        .error_type
        .clone()
        .unwrap_or_else(|| error_type_for_status(error.status).to_owned());
    let mut response = match &error.raw_body {
        Some(raw) => {
            let status = StatusCode::from_u16(error.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            let mut response = (status, raw.clone()).into_response();
            insert_header(&mut response, "content-type", "text/plain; charset=utf-8");
            response
        }
        None => {
            let message = error
                .message
                .clone()
                .unwrap_or_else(|| match error_type.as_str() {
                    "overloaded_error" => "Overloaded".to_owned(),
                    "rate_limit_error" => "Number of request tokens has exceeded your rate limit".to_owned(),
                    _ => "Internal server error".to_owned(),
                });
            json_error(error.status, &error_type, &message, request_id)
        }
    };
    if let Some(value) = &error.retry_after {
        insert_header(&mut response, "retry-after", value);
    }
    if let Some(value) = &error.retry_after_ms {
        insert_header(&mut response, "retry-after-ms", value);
    }
    response
}

fn streamed(
    step: usize,
    stream: &StreamResponse,
    model: &str,
    message_id: &str,
    request_id: &str,
) -> Response {
    let mut frames = stream_frames(step, stream, model, message_id);
    let drop_after = stream.drop_after_events;
    if let Some(count) = drop_after {
        frames.truncate(count);
    }
    if let Some(error) = &stream.stream_error {
        frames.truncate(error.after_events);
        frames.push(Frame {
            delay: Duration::ZERO,
            event: "error",
            data: json!({"type": "error", "error": {"type": error.error_type, "message": error.message}}),
        });
    }
    let chunks = frames
        .into_iter()
        .map(|frame| {
            (
                frame.delay,
                Ok::<Bytes, std::io::Error>(Bytes::from(frame.encode())),
            )
        })
        .chain(drop_after.map(|_| {
            // An error ends the body without the final chunk: the client sees the connection
            // break, like a real network drop. The pause lets hyper flush the headers and the
            // events first; an error before that would abort the response as a whole.
            (
                Duration::from_millis(50),
                Err(std::io::Error::other("mock: scripted connection drop")),
            )
        }));
    let body = futures::stream::iter(chunks).then(|(delay, chunk)| async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        chunk
    });
    let mut response = Response::new(Body::from_stream(body));
    insert_header(&mut response, "content-type", "text/event-stream; charset=utf-8");
    insert_header(&mut response, "cache-control", "no-cache");
    insert_header(&mut response, "request-id", request_id);
    response
}

/// An SSE body of already encoded chunks, each after its pause.
fn sse_response(chunks: Vec<(Duration, String)>, request_id: &str) -> Response {
    let body = futures::stream::iter(chunks).then(|(delay, chunk)| async move {
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        Ok::<Bytes, std::io::Error>(Bytes::from(chunk))
    });
    let mut response = Response::new(Body::from_stream(body));
    insert_header(&mut response, "content-type", "text/event-stream; charset=utf-8");
    insert_header(&mut response, "cache-control", "no-cache");
    insert_header(&mut response, "x-request-id", request_id);
    response
}
