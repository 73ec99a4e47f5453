//! Errors of the model client and of stream decoding.

use std::time::Duration;

/// Something wrong with one streamed response.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StreamError {
    /// The connection failed while the body was being read.
    #[error("the connection failed while reading the response stream: {0}")]
    Transport(String),
    /// No bytes arrived for longer than the idle-read timeout.
    #[error("no data arrived for {0:?}; the connection is considered dead")]
    IdleTimeout(Duration),
    /// An event's data was not the JSON its type promises.
    #[error("could not decode the `{event}` event ({message}); raw data: {raw}")]
    Decode {
        /// SSE event name.
        event: String,
        /// The parser's complaint.
        message: String,
        /// The data line as received.
        raw: String,
    },
    /// Events arrived in an order the protocol does not allow.
    #[error("the response stream broke the protocol: {0}")]
    Protocol(String),
    /// A tool_use block's streamed input is not a JSON object. The raw text is kept so the
    /// caller can show it or tell the model what went wrong.
    #[error(
        "tool `{name}` (id {tool_use_id}, block {index}) sent input that is not a JSON object ({reason}): {raw}"
    )]
    InvalidToolInput {
        /// Block index in the message.
        index: usize,
        /// The tool_use id.
        tool_use_id: String,
        /// The tool name.
        name: String,
        /// The concatenated input_json_delta fragments.
        raw: String,
        /// Why parsing failed.
        reason: String,
    },
    /// The server sent an `error` event inside the stream.
    #[error("the API reported {kind} inside the stream: {message}")]
    Api {
        /// Error type, for example `overloaded_error`.
        kind: String,
        /// Human-readable message from the API.
        message: String,
    },
    /// The stream ended before `message_stop`; whatever arrived is not a complete message.
    #[error("the response stream ended before message_stop; the message is incomplete")]
    Truncated,
}

impl StreamError {
    /// Whether sending the same request again may succeed (network trouble, overload).
    pub fn is_transient(&self) -> bool {
        match self {
            Self::Transport(_) | Self::IdleTimeout(_) | Self::Truncated => true,
            Self::Api { kind, .. } => is_transient_error_kind(kind),
            Self::Decode { .. } | Self::Protocol(_) | Self::InvalidToolInput { .. } => false,
        }
    }
}

/// Error types the API documents as temporary.
pub(crate) fn is_transient_error_kind(kind: &str) -> bool {
    matches!(kind, "overloaded_error" | "api_error" | "rate_limit_error")
}

/// Failure of one `stream_message` call, after any retries.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// The client configuration cannot produce a valid request (bad URL, bad header value).
    #[error("the model client is misconfigured: {0}")]
    Config(String),
    /// The request could not be sent (DNS, refused connection, TLS, connect timeout).
    #[error("could not reach the API at {url}: {message}; check the network or ANTHROPIC_BASE_URL")]
    Connect {
        /// Endpoint that was tried.
        url: String,
        /// The transport's complaint.
        message: String,
    },
    /// The API answered with an error status.
    #[error("the API answered {status} {kind}: {message}{}", request_id.as_ref().map(|id| format!(" (request id {id})")).unwrap_or_default())]
    Api {
        /// HTTP status.
        status: u16,
        /// Error type from the body (`invalid_request_error`, `overloaded_error`...) or `http_error`
        /// when the body was not the API's JSON.
        kind: String,
        /// Message from the body, or the body text itself.
        message: String,
        /// `request-id` header or body field, for support tickets.
        request_id: Option<String>,
    },
    /// A stream problem that retrying the request will not fix (bad JSON, protocol violation,
    /// invalid tool input, a non-transient in-stream error).
    #[error("{0}")]
    Stream(StreamError),
    /// The stream died after events had already been handed to the caller. The partial message
    /// must be discarded; the agent loop decides whether to send the whole request again.
    /// The client does not retry by itself here, because the caller has already shown or acted
    /// on part of the answer.
    #[error("the response stream was interrupted after {events_delivered} events: {cause}")]
    StreamInterrupted {
        /// What ended the stream.
        cause: StreamError,
        /// How many events the caller had already received.
        events_delivered: usize,
    },
    /// The caller cancelled the request.
    #[error("the request was cancelled")]
    Cancelled,
}

/// Reads an error response body: the API's JSON envelope
/// `{"type":"error","error":{"type":..,"message":..},"request_id":..}` or any other text.
/// Returns (kind, message, request id from the body).
pub(crate) fn parse_error_body(body: &str) -> (String, String, Option<String>) {
    #[derive(serde::Deserialize)]
    struct Envelope {
        error: Detail,
        #[serde(default)]
        request_id: Option<String>,
    }
    #[derive(serde::Deserialize)]
    struct Detail {
        #[serde(rename = "type")]
        kind: String,
        message: String,
    }
    match serde_json::from_str::<Envelope>(body) {
        Ok(envelope) => (envelope.error.kind, envelope.error.message, envelope.request_id),
        Err(_) => {
            let text = body.trim();
            let message = if text.is_empty() {
                "(empty body)".to_owned()
            } else {
                // A proxy may answer with a whole HTML page; the start is enough to recognise it.
                text.chars().take(500).collect()
            };
            ("http_error".to_owned(), message, None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn json_error_body_is_read() {
        let body = r#"{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: Field required"},"request_id":"req_1"}"#;
        assert_eq!(
            parse_error_body(body),
            (
                "invalid_request_error".to_owned(),
                "max_tokens: Field required".to_owned(),
                Some("req_1".to_owned())
            )
        );
    }

    #[test]
    fn plain_text_and_empty_bodies_are_reported_as_is() {
        assert_eq!(
            parse_error_body("Bad Gateway\n"),
            ("http_error".to_owned(), "Bad Gateway".to_owned(), None)
        );
        assert_eq!(parse_error_body("").1, "(empty body)");
    }

    #[test]
    fn api_error_display_names_status_kind_and_request_id() {
        let error = ModelError::Api {
            status: 400,
            kind: "invalid_request_error".into(),
            message: "bad".into(),
            request_id: Some("req_9".into()),
        };
        assert_eq!(
            error.to_string(),
            "the API answered 400 invalid_request_error: bad (request id req_9)"
        );
    }

    #[test]
    fn transient_classification() {
        assert!(StreamError::Truncated.is_transient());
        assert!(
            StreamError::Api {
                kind: "overloaded_error".into(),
                message: String::new()
            }
            .is_transient()
        );
        assert!(
            !StreamError::Api {
                kind: "invalid_request_error".into(),
                message: String::new()
            }
            .is_transient()
        );
        assert!(!StreamError::Protocol("x".into()).is_transient());
    }
}
