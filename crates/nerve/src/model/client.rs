//! HTTP client for `POST /v1/messages` with streaming, retries and cancellation.

pub use nerve_protocol::prompt::ModelListing;

use std::pin::Pin;
use std::time::{Duration, SystemTime};

use futures::{Stream, StreamExt};
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::model::api_key::ApiKey;
use crate::model::body::RequestBody;
use crate::model::error::{ModelError, StreamError, parse_error_body};
use crate::model::retry::{RetryNotice, RetryPolicy, RetryReason, is_retryable_status, server_retry_delay};
use crate::model::sse::{StreamEvent, decode_sse};
use crate::model::stream::{Assembled, MessageAssembler};
use crate::model::types::{AssistantMessage, ContentBlock, MessagesRequest};
pub use nerve_protocol::settings::ModelProvider;

/// Production endpoint.
pub const DEFAULT_BASE_URL: &str = "https://api.anthropic.com";
/// The API version this client speaks (`anthropic-version` header).
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
pub use crate::engine_env::{AUTH_TOKEN_ENV, BASE_URL_ENV, CUSTOM_HEADERS_ENV};

/// The base URL a front-end's setting names (blank means none), else `ANTHROPIC_BASE_URL` as
/// `env` has it; `None` means the API's own.
pub fn configured_base_url(env: &crate::engine_env::EngineEnv, setting: Option<&str>) -> Option<String> {
    setting
        .map(str::trim)
        .filter(|url| !url.is_empty())
        .map(str::to_owned)
        .or_else(|| env.base_url.clone())
}

/// How requests prove who sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelAuth {
    /// An Anthropic API key, sent as `x-api-key`.
    ApiKey(ApiKey),
    /// A token sent as `Authorization: Bearer`.
    Bearer(ApiKey),
    /// Nothing: a local Anthropic-compatible server (Ollama, llama.cpp's server) that wants no key.
    None,
}

/// Everything the client needs to reach the API.
#[derive(Debug, Clone)]
pub struct ModelConfig {
    /// Scheme, host and optional path prefix; `/v1/messages` is appended.
    pub base_url: String,
    /// The credentials sent with every request.
    pub auth: ModelAuth,
    /// Extra headers (`ANTHROPIC_CUSTOM_HEADERS`), sent with every request.
    pub extra_headers: Vec<(String, String)>,
    /// Values for the `anthropic-beta` header (joined with commas); empty sends no header.
    pub betas: Vec<String>,
    /// Limit for establishing the TCP/TLS connection.
    pub connect_timeout: Duration,
    /// Longest silence tolerated while reading the stream (the API pings regularly, so a
    /// silent connection is a dead one).
    pub idle_timeout: Duration,
    /// Backoff settings.
    pub retry: RetryPolicy,
    /// Which API the server speaks: the Messages API, or the Chat Completions API, whose requests
    /// and answers are translated on the way.
    pub provider: ModelProvider,
}

impl ModelConfig {
    /// Defaults: production URL, 10 s connect timeout, 120 s idle timeout, default retries.
    pub fn new(api_key: ApiKey) -> Self {
        Self::with_auth(ModelAuth::ApiKey(api_key))
    }

    /// Like [`Self::new`], with any form of credentials.
    pub fn with_auth(auth: ModelAuth) -> Self {
        Self {
            base_url: DEFAULT_BASE_URL.to_owned(),
            auth,
            extra_headers: Vec::new(),
            betas: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(120),
            retry: RetryPolicy::default(),
            provider: ModelProvider::Anthropic,
        }
    }

    /// Like [`Self::new`], with `base_url` replacing the default unless it is absent or blank.
    pub fn with_base_url_override(api_key: ApiKey, base_url: Option<String>) -> Self {
        let mut config = Self::new(api_key);
        if let Some(url) = base_url.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()) {
            config.base_url = url;
        }
        config
    }
}

/// `Name: Value` lines (`ANTHROPIC_CUSTOM_HEADERS`); blank lines are skipped, a line without a colon
/// is an error naming it.
pub fn parse_custom_headers(text: &str) -> Result<Vec<(String, String)>, ModelError> {
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (name, value) = line.split_once(':').ok_or_else(|| {
                ModelError::Config(format!("{CUSTOM_HEADERS_ENV}: `{line}` is not `Name: Value`"))
            })?;
            Ok((name.trim().to_owned(), value.trim().to_owned()))
        })
        .collect()
}

/// Whether `base_url` points at this machine (a local model server), where no key is needed.
pub fn is_local_server(base_url: &str) -> bool {
    let Ok(url) = reqwest::Url::parse(base_url.trim()) else {
        return false;
    };
    url.host_str().is_some_and(|host| {
        host.eq_ignore_ascii_case("localhost")
            || host
                .trim_matches(['[', ']'])
                .parse::<std::net::IpAddr>()
                .is_ok_and(|ip| ip.is_loopback())
    })
}

/// What [`ModelClient::stream_message`] yields.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelEvent {
    /// A request failed transiently and will be sent again after `delay`.
    Retrying(RetryNotice),
    /// A decoded wire event (for live text/thinking display). `message_start` and early pings
    /// are held back until the first content block so a retry never shows a duplicate start.
    Event(StreamEvent),
    /// A content block finished; tool_use blocks can be executed from here.
    BlockComplete {
        /// Position in the message.
        index: usize,
        /// The finished block.
        block: ContentBlock,
    },
    /// The whole message arrived; always the last item of a successful stream.
    MessageComplete(AssistantMessage),
}

/// The stream returned by [`ModelClient::stream_message`].
pub type ModelEventStream = Pin<Box<dyn Stream<Item = Result<ModelEvent, ModelError>> + Send>>;

/// Client of the Messages API. Cheap to clone.
#[derive(Debug, Clone)]
pub struct ModelClient {
    http: reqwest::Client,
    endpoint: String,
    headers: HeaderMap,
    config: ModelConfig,
}

impl ModelClient {
    /// Validates the configuration and builds the HTTP client.
    pub fn new(config: ModelConfig) -> Result<Self, ModelError> {
        match &config.auth {
            ModelAuth::ApiKey(key) if key.is_empty() => {
                return Err(ModelError::Config(
                    "the API key is empty; set ANTHROPIC_API_KEY or store a key in the keyring".to_owned(),
                ));
            }
            ModelAuth::Bearer(token) if token.is_empty() => {
                return Err(ModelError::Config(format!("{AUTH_TOKEN_ENV} is empty")));
            }
            _ => {}
        }
        let endpoint = match config.provider {
            ModelProvider::Anthropic => format!("{}/v1/messages", config.base_url.trim_end_matches('/')),
            ModelProvider::OpenaiChat => crate::model::openai::api_url(&config.base_url, "chat/completions"),
            ModelProvider::OpenaiResponses => crate::model::openai::api_url(&config.base_url, "responses"),
        };
        reqwest::Url::parse(&endpoint).map_err(|e| {
            ModelError::Config(format!(
                "the base URL `{}` is not a valid URL: {e}",
                config.base_url
            ))
        })?;
        let headers = build_headers(&config)?;
        let http = crate::http::client_builder()
            .connect_timeout(config.connect_timeout)
            .build()
            .map_err(|e| ModelError::Config(format!("could not build the HTTP client: {e}")))?;
        Ok(Self {
            http,
            endpoint,
            headers,
            config,
        })
    }

    /// The configuration in use.
    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    /// The models the server lists (`GET /v1/models`, which Anthropic's API, Ollama and
    /// llama.cpp's server all answer with `{"data": [{"id": ...}]}`), in the server's order.
    pub async fn list_models(&self) -> Result<Vec<ModelListing>, ModelError> {
        let url = match self.config.provider {
            ModelProvider::Anthropic => format!(
                "{}/v1/models?limit=1000",
                self.config.base_url.trim_end_matches('/')
            ),
            ModelProvider::OpenaiChat | ModelProvider::OpenaiResponses => {
                crate::model::openai::api_url(&self.config.base_url, "models")
            }
        };
        let response = self
            .http
            .get(&url)
            .headers(self.headers.clone())
            .header(ACCEPT, "application/json")
            .timeout(std::time::Duration::from_secs(20))
            .send()
            .await
            .map_err(|e| ModelError::Connect {
                url: url.clone(),
                message: error_chain(&e),
            })?;
        let status = response.status();
        let body = response.text().await.map_err(|e| ModelError::Connect {
            url: url.clone(),
            message: error_chain(&e),
        })?;
        if !status.is_success() {
            let (kind, message, request_id) = crate::model::error::parse_error_body(&body);
            return Err(ModelError::Api {
                status: status.as_u16(),
                kind,
                message,
                request_id,
            });
        }
        #[derive(serde::Deserialize)]
        struct Listing {
            data: Vec<Listed>,
        }
        /// What the server says of a model; the rest is Nerve's own knowledge, not the server's.
        #[derive(serde::Deserialize)]
        struct Listed {
            id: String,
            #[serde(default)]
            display_name: Option<String>,
        }
        serde_json::from_str::<Listing>(&body)
            .map(|l| {
                l.data
                    .into_iter()
                    .map(|m| crate::model::catalog::listing(m.id, m.display_name))
                    .collect()
            })
            .map_err(|e| ModelError::Config(format!("{url} did not answer with a model list: {e}")))
    }

    /// Sends `request` with `stream: true` and yields events until the message is complete, an
    /// error ends it, or `cancel` fires ([`ModelError::Cancelled`]). The stream ends after its
    /// first `Err`. Dropping the stream aborts the request.
    ///
    /// Transient failures before any content block arrived are retried per the policy, each
    /// announced with [`ModelEvent::Retrying`]. A failure after content was delivered is
    /// [`ModelError::StreamInterrupted`]: discard the partial message and decide whether to
    /// resend.
    pub fn stream_message(&self, request: MessagesRequest, cancel: CancellationToken) -> ModelEventStream {
        let mut request = request;
        request.stream = true;
        self.stream_body(serde_json::to_vec(&request).map(RequestBody::from), cancel)
    }

    /// [`Self::stream_message`] for a body already written (with `stream: true`), e.g. by
    /// [`crate::agent::body_with_history`], which writes the conversation without copying it.
    pub fn stream_body(
        &self,
        body: serde_json::Result<RequestBody>,
        cancel: CancellationToken,
    ) -> ModelEventStream {
        let (tx, rx) = mpsc::channel(64);
        let client = self.clone();
        // For an OpenAI server, the Messages API body is written in its API's terms.
        let body = match self.config.provider {
            ModelProvider::Anthropic => body,
            provider => body.and_then(|b| {
                let value: serde_json::Value = serde_json::from_slice(&b.to_vec())?;
                let written = if provider == ModelProvider::OpenaiResponses {
                    crate::model::openai::responses::responses_body(&value)
                } else {
                    crate::model::openai::request::chat_body(&value)
                };
                serde_json::to_vec(&written.map_err(serde::de::Error::custom)?).map(RequestBody::from)
            }),
        };
        let driver = async move {
            let result = match body {
                Ok(body) => client.drive(body, &tx, &cancel).await,
                Err(e) => Err(ModelError::Config(format!(
                    "the request cannot be serialized: {e}"
                ))),
            };
            if let Err(error) = result {
                // The receiver may be gone (stream dropped); nobody is left to tell.
                let _ = tx.send(Err(error)).await;
            }
        };
        let received =
            futures::stream::unfold(rx, |mut rx| async move { rx.recv().await.map(|item| (item, rx)) });
        // The driver runs inside the returned stream (no spawn), so it needs no runtime handle
        // at call time and stops when the stream is dropped.
        let driving = futures::stream::once(driver).filter_map(|()| async { None });
        Box::pin(futures::stream::select(received, driving))
    }

    async fn drive(
        &self,
        body: RequestBody,
        tx: &Sender,
        cancel: &CancellationToken,
    ) -> Result<(), ModelError> {
        let mut retry_number = 0;
        loop {
            let (reason, server_delay, final_error) = match self.attempt(body.clone(), tx, cancel).await {
                Attempt::Done => return Ok(()),
                Attempt::Fatal(error) => return Err(error),
                Attempt::Transient {
                    reason,
                    server_delay,
                    error,
                } => (reason, server_delay, error),
            };
            retry_number += 1;
            let jitter = jitter();
            let Some(delay) = self.config.retry.delay_for(retry_number, server_delay, jitter) else {
                return Err(final_error);
            };
            tracing::warn!(
                attempt = retry_number,
                ?delay,
                ?reason,
                "retrying the model request"
            );
            let notice = RetryNotice {
                attempt: retry_number,
                max_retries: self.config.retry.max_retries,
                delay,
                reason,
            };
            if tx.send(Ok(ModelEvent::Retrying(notice))).await.is_err() {
                return Ok(());
            }
            tokio::select! {
                () = cancel.cancelled() => return Err(ModelError::Cancelled),
                () = tokio::time::sleep(delay) => {}
            }
        }
    }

    async fn attempt(&self, body: RequestBody, tx: &Sender, cancel: &CancellationToken) -> Attempt {
        let send = self
            .http
            .post(&self.endpoint)
            .headers(self.headers.clone())
            .body(reqwest::Body::wrap(body))
            .send();
        // Streaming responses send their headers at once; a server that does not is as dead as
        // a silent stream.
        let idle = self.config.idle_timeout;
        let response = tokio::select! {
            () = cancel.cancelled() => return Attempt::Fatal(ModelError::Cancelled),
            response = tokio::time::timeout(idle, send) => response,
        };
        let Ok(response) = response else {
            let message = format!("no response headers arrived within {} s", idle.as_secs_f64());
            return Attempt::Transient {
                reason: RetryReason::Connection {
                    message: message.clone(),
                },
                server_delay: None,
                error: ModelError::Connect {
                    url: self.endpoint.clone(),
                    message,
                },
            };
        };
        let response = match response {
            Ok(response) => response,
            Err(e) if e.is_builder() => {
                return Attempt::Fatal(ModelError::Config(format!("the request could not be built: {e}")));
            }
            Err(e) => {
                let message = error_chain(&e);
                return Attempt::Transient {
                    reason: RetryReason::Connection {
                        message: message.clone(),
                    },
                    server_delay: None,
                    error: ModelError::Connect {
                        url: self.endpoint.clone(),
                        message,
                    },
                };
            }
        };
        if response.status().is_success() {
            return self.read_stream(response, tx, cancel).await;
        }
        self.read_error(response, cancel).await
    }

    /// One request answered as one JSON message (`stream: false`), for side requests whose answer
    /// holds blocks the conversation's types do not (a server tool's results). Not retried: the
    /// caller's tool call fails with the error instead.
    pub async fn send_message_json(
        &self,
        mut body: serde_json::Value,
        cancel: &CancellationToken,
    ) -> Result<serde_json::Value, ModelError> {
        body["stream"] = serde_json::Value::Bool(false);
        let bytes = serde_json::to_vec(&body)
            .map_err(|e| ModelError::Config(format!("the request cannot be serialized: {e}")))?;
        let send = self
            .http
            .post(&self.endpoint)
            .headers(self.headers.clone())
            .body(bytes)
            .send();
        // The whole answer comes at once, after the server's searches: allow it time.
        let limit = self.config.idle_timeout.max(Duration::from_secs(120));
        let connect_error = |message: String| ModelError::Connect {
            url: self.endpoint.clone(),
            message,
        };
        let response = tokio::select! {
            () = cancel.cancelled() => return Err(ModelError::Cancelled),
            response = tokio::time::timeout(limit, send) => response,
        }
        .map_err(|_| connect_error(format!("no answer within {} s", limit.as_secs())))?
        .map_err(|e| connect_error(error_chain(&e)))?;
        if !response.status().is_success() {
            return Err(match self.read_error(response, cancel).await {
                Attempt::Fatal(error) | Attempt::Transient { error, .. } => error,
                Attempt::Done => ModelError::Stream(StreamError::Truncated),
            });
        }
        let text = tokio::time::timeout(limit, response.text())
            .await
            .map_err(|_| connect_error("the answer did not arrive in time".into()))?
            .map_err(|e| connect_error(error_chain(&e)))?;
        serde_json::from_str(&text).map_err(|e| ModelError::Config(format!("the answer is not JSON: {e}")))
    }

    async fn read_error(&self, response: reqwest::Response, cancel: &CancellationToken) -> Attempt {
        let status = response.status().as_u16();
        let server_delay = server_retry_delay(response.headers(), SystemTime::now());
        let header_request_id = response
            .headers()
            .get("request-id")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned);
        let body = tokio::select! {
            () = cancel.cancelled() => return Attempt::Fatal(ModelError::Cancelled),
            body = tokio::time::timeout(self.config.idle_timeout, response.text()) => body,
        };
        let text = match body {
            Ok(Ok(text)) => text,
            Ok(Err(e)) => format!("(the error body could not be read: {})", error_chain(&e)),
            Err(_) => "(the error body did not arrive in time)".to_owned(),
        };
        let (kind, mut message, body_request_id) = parse_error_body(&text);
        if status == 401 && self.config.auth == ModelAuth::None {
            // Sent without credentials because the server is on this machine: say how to give some.
            message.push_str(&format!(
                ". No credentials were sent to this local server; set ANTHROPIC_API_KEY (or store a key with `nerve auth set`) or {AUTH_TOKEN_ENV}"
            ));
        }
        let error = ModelError::Api {
            status,
            kind: kind.clone(),
            message: message.clone(),
            request_id: body_request_id.or(header_request_id),
        };
        if is_retryable_status(status) {
            Attempt::Transient {
                reason: RetryReason::Status {
                    status,
                    error_type: kind,
                    message,
                },
                server_delay,
                error,
            }
        } else {
            Attempt::Fatal(error)
        }
    }

    async fn read_stream(
        &self,
        response: reqwest::Response,
        tx: &Sender,
        cancel: &CancellationToken,
    ) -> Attempt {
        let idle = self.config.idle_timeout;
        let mut events: Pin<Box<dyn Stream<Item = Result<StreamEvent, StreamError>> + Send>> =
            match self.config.provider {
                ModelProvider::Anthropic => Box::pin(decode_sse(response.bytes_stream())),
                ModelProvider::OpenaiChat => Box::pin(crate::model::openai::stream::decode_chat_sse(
                    response.bytes_stream(),
                )),
                ModelProvider::OpenaiResponses => Box::pin(
                    crate::model::openai::responses::decode_responses_sse(response.bytes_stream()),
                ),
            };
        let mut assembler = MessageAssembler::new();
        let mut held_back: Vec<StreamEvent> = Vec::new();
        let mut delivered = 0usize;
        loop {
            let next = tokio::select! {
                () = cancel.cancelled() => return Attempt::Fatal(ModelError::Cancelled),
                next = tokio::time::timeout(idle, events.next()) => next,
            };
            let event = match next {
                Err(_) => return stream_failure(StreamError::IdleTimeout(idle), delivered),
                Ok(None) => {
                    let error = assembler.finish().err().unwrap_or(StreamError::Truncated);
                    return stream_failure(error, delivered);
                }
                Ok(Some(Err(error))) => return stream_failure(error, delivered),
                Ok(Some(Ok(event))) => event,
            };
            let assembled = match assembler.push(&event) {
                Ok(assembled) => assembled,
                Err(error) => return stream_failure(error, delivered),
            };
            let preamble = matches!(
                event,
                StreamEvent::MessageStart { .. } | StreamEvent::Ping | StreamEvent::Unknown { .. }
            );
            if delivered == 0 && preamble && !assembler.has_content() {
                held_back.push(event);
                continue;
            }
            for event in held_back.drain(..).chain(std::iter::once(event)) {
                if tx.send(Ok(ModelEvent::Event(event))).await.is_err() {
                    return Attempt::Done;
                }
                delivered += 1;
            }
            let item = match assembled {
                None => continue,
                Some(Assembled::BlockComplete { index, block }) => ModelEvent::BlockComplete { index, block },
                Some(Assembled::MessageComplete(message)) => ModelEvent::MessageComplete(message),
            };
            let complete = matches!(item, ModelEvent::MessageComplete(_));
            if tx.send(Ok(item)).await.is_err() || complete {
                return Attempt::Done;
            }
            delivered += 1;
        }
    }
}

type Sender = mpsc::Sender<Result<ModelEvent, ModelError>>;

enum Attempt {
    Done,
    Fatal(ModelError),
    Transient {
        reason: RetryReason,
        server_delay: Option<Duration>,
        /// Reported if no retry is left.
        error: ModelError,
    },
}

fn stream_failure(error: StreamError, delivered: usize) -> Attempt {
    if !error.is_transient() {
        return Attempt::Fatal(ModelError::Stream(error));
    }
    if delivered > 0 {
        return Attempt::Fatal(ModelError::StreamInterrupted {
            cause: error,
            events_delivered: delivered,
        });
    }
    let final_error = match &error {
        StreamError::Api { .. } => ModelError::Stream(error.clone()),
        StreamError::Transport(_)
        | StreamError::IdleTimeout(_)
        | StreamError::Truncated
        | StreamError::Decode { .. }
        | StreamError::Protocol(_)
        | StreamError::InvalidToolInput { .. } => ModelError::StreamInterrupted {
            cause: error.clone(),
            events_delivered: 0,
        },
    };
    Attempt::Transient {
        reason: RetryReason::StreamFailed {
            message: error.to_string(),
        },
        server_delay: None,
        error: final_error,
    }
}

fn build_headers(config: &ModelConfig) -> Result<HeaderMap, ModelError> {
    let mut headers = HeaderMap::new();
    // Extra headers first, so they can never replace the credentials or the version.
    for (name, value) in &config.extra_headers {
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| {
            ModelError::Config(format!("{CUSTOM_HEADERS_ENV}: `{name}` is not a header name"))
        })?;
        let value = HeaderValue::from_str(value).map_err(|_| {
            ModelError::Config(format!(
                "{CUSTOM_HEADERS_ENV}: the value of `{name}` cannot be sent"
            ))
        })?;
        headers.insert(name, value);
    }
    let secret = |text: &str, what: &str| {
        HeaderValue::from_str(text)
            .map(|mut v| {
                v.set_sensitive(true);
                v
            })
            .map_err(|_| {
                ModelError::Config(format!(
                    "{what} contains characters that cannot be sent in a header"
                ))
            })
    };
    let openai = config.provider.is_openai();
    match &config.auth {
        // OpenAI-compatible servers take every key as a bearer token.
        ModelAuth::ApiKey(key) | ModelAuth::Bearer(key) if openai => {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                secret(&format!("Bearer {}", key.expose()), "the API key")?,
            );
        }
        ModelAuth::ApiKey(key) => {
            headers.insert(
                HeaderName::from_static("x-api-key"),
                secret(key.expose(), "the API key")?,
            );
        }
        ModelAuth::Bearer(token) => {
            headers.insert(
                reqwest::header::AUTHORIZATION,
                secret(&format!("Bearer {}", token.expose()), AUTH_TOKEN_ENV)?,
            );
        }
        ModelAuth::None => {}
    }
    headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
    if openai {
        return Ok(headers);
    }
    headers.insert(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_static(ANTHROPIC_VERSION),
    );
    if !config.betas.is_empty() {
        let betas = config.betas.join(",");
        let value = HeaderValue::from_str(&betas).map_err(|_| {
            ModelError::Config(format!("the beta list `{betas}` is not a valid header value"))
        })?;
        headers.insert(HeaderName::from_static("anthropic-beta"), value);
    }
    Ok(headers)
}

/// reqwest's Display hides the cause ("error sending request"); the chain says what failed.
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A number in [0, 1) that differs from call to call and process to process: enough to spread
/// retries apart (std's hasher keys are random per process and per `RandomState`), without a
/// random-number crate for one call.
fn jitter() -> f64 {
    use std::hash::{BuildHasher as _, Hasher as _};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    // The top 53 bits, as an f64 in [0, 1).
    (hasher.finish() >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn base_url_override_only_when_set() {
        let key = ApiKey::new("k");
        assert_eq!(
            ModelConfig::with_base_url_override(key.clone(), None).base_url,
            DEFAULT_BASE_URL
        );
        assert_eq!(
            ModelConfig::with_base_url_override(key.clone(), Some("  ".into())).base_url,
            DEFAULT_BASE_URL
        );
        assert_eq!(
            ModelConfig::with_base_url_override(key, Some("http://127.0.0.1:9/".into())).base_url,
            "http://127.0.0.1:9/"
        );
    }

    #[test]
    fn headers_carry_version_key_and_betas() {
        let mut config = ModelConfig::new(ApiKey::new("sk-test"));
        config.betas = vec!["a-2025".into(), "b-2026".into()];
        let headers = build_headers(&config).unwrap();
        assert_eq!(headers["anthropic-version"], "2023-06-01");
        assert_eq!(headers["anthropic-beta"], "a-2025,b-2026");
        assert!(headers["x-api-key"].is_sensitive());
        assert!(!format!("{headers:?}").contains("sk-test"));
    }

    #[test]
    fn each_auth_form_has_its_header_and_extra_headers_never_replace_them() {
        let mut bearer = ModelConfig::with_auth(ModelAuth::Bearer(ApiKey::new("tok-123")));
        bearer.extra_headers = parse_custom_headers("X-Gateway: team-a\n\nauthorization: nope\n").unwrap();
        let headers = build_headers(&bearer).unwrap();
        assert_eq!(headers["authorization"], "Bearer tok-123");
        assert!(headers["authorization"].is_sensitive());
        assert_eq!(headers["x-gateway"], "team-a");
        assert!(headers.get("x-api-key").is_none());
        let none = build_headers(&ModelConfig::with_auth(ModelAuth::None)).unwrap();
        assert!(none.get("x-api-key").is_none() && none.get("authorization").is_none());
        assert!(matches!(
            parse_custom_headers("no colon here"),
            Err(ModelError::Config(_))
        ));
    }

    #[test]
    fn local_servers_are_recognised() {
        for local in [
            "http://localhost:11434",
            "http://127.0.0.1:8080/",
            "http://[::1]:9",
        ] {
            assert!(is_local_server(local), "{local}");
        }
        for remote in [
            "https://api.anthropic.com",
            "http://10.0.0.5:8080",
            "not a url",
            "http://localhost.example.com",
        ] {
            assert!(!is_local_server(remote), "{remote}");
        }
    }

    #[test]
    fn bad_configuration_is_rejected_up_front() {
        assert!(matches!(
            ModelClient::new(ModelConfig::new(ApiKey::new(""))),
            Err(ModelError::Config(_))
        ));
        assert!(matches!(
            ModelClient::new(ModelConfig::new(ApiKey::new("bad\u{7f}key"))),
            Err(ModelError::Config(_))
        ));
        let mut config = ModelConfig::new(ApiKey::new("k"));
        config.base_url = "not a url".into();
        assert!(matches!(ModelClient::new(config), Err(ModelError::Config(_))));
    }

    #[test]
    fn client_debug_does_not_show_the_key() {
        let client = ModelClient::new(ModelConfig::new(ApiKey::new("sk-very-secret"))).unwrap();
        assert!(!format!("{client:?}").contains("sk-very-secret"));
    }

    #[test]
    fn transient_stream_failures_retry_only_before_delivery() {
        assert!(matches!(
            stream_failure(StreamError::Truncated, 0),
            Attempt::Transient { .. }
        ));
        assert!(matches!(
            stream_failure(StreamError::Truncated, 3),
            Attempt::Fatal(ModelError::StreamInterrupted {
                events_delivered: 3,
                ..
            })
        ));
        assert!(matches!(
            stream_failure(StreamError::Protocol("x".into()), 0),
            Attempt::Fatal(ModelError::Stream(StreamError::Protocol(_)))
        ));
    }
}
