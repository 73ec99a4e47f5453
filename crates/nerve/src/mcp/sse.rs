//! The older HTTP+SSE transport (MCP 2024-11-05), which rmcp no longer ships but many hosted
//! servers still speak: a GET opens an event stream whose first `endpoint` event names the URL
//! that messages are POSTed to; the server's messages arrive as `message` events on the stream.

use std::collections::HashMap;

use eventsource_stream::Eventsource;
use futures::StreamExt;
use reqwest::header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue};
use rmcp::service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage};
use rmcp::transport::Transport;
use tokio::sync::mpsc;

/// Messages buffered between the stream reader and the service.
const INBOX: usize = 64;

/// A connected SSE session.
pub struct SseTransport {
    client: reqwest::Client,
    endpoint: reqwest::Url,
    headers: HeaderMap,
    inbox: mpsc::Receiver<RxJsonRpcMessage<RoleClient>>,
    reader: tokio::task::JoinHandle<()>,
}

/// A configured header that cannot be sent.
#[derive(Debug, thiserror::Error)]
pub enum HeaderError {
    /// The name is not a valid header name.
    #[error("header name {name:?}: {source}")]
    Name {
        /// The name as configured.
        name: String,
        /// Why.
        source: reqwest::header::InvalidHeaderName,
    },
    /// The value is not a valid header value (a control character, a line break).
    #[error("the value of header {name}: {source}")]
    Value {
        /// The header.
        name: String,
        /// Why.
        source: reqwest::header::InvalidHeaderValue,
    },
}

/// Why an SSE session could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SseConnectError {
    /// The configured URL does not parse.
    #[error("the URL {url:?} is invalid: {reason}")]
    BadUrl {
        /// The URL as configured.
        url: String,
        /// Why.
        reason: String,
    },
    /// The request for the event stream failed (connection refused, TLS, timeout).
    #[error("could not open the event stream at {url}: {source}")]
    Unreachable {
        /// The stream's URL.
        url: reqwest::Url,
        /// Why.
        source: reqwest::Error,
    },
    /// The server wants a token.
    #[error("{url} answered 401 Unauthorized: the server needs a token")]
    Unauthorized {
        /// The stream's URL.
        url: reqwest::Url,
    },
    /// The server refused the stream.
    #[error("{url} answered {status} to the event-stream request")]
    Refused {
        /// The stream's URL.
        url: reqwest::Url,
        /// Its answer.
        status: reqwest::StatusCode,
    },
    /// The endpoint the server named does not parse.
    #[error("the server named an invalid endpoint {endpoint:?}: {reason}")]
    BadEndpoint {
        /// What the server sent.
        endpoint: String,
        /// Why.
        reason: String,
    },
    /// The endpoint is on another origin (a server must not send our messages elsewhere).
    #[error("the server named an endpoint on another origin ({endpoint}); it is not used")]
    OtherOrigin {
        /// The endpoint.
        endpoint: reqwest::Url,
    },
    /// The stream broke before it named its endpoint.
    #[error("the event stream from {url} broke: {reason}")]
    Broken {
        /// The stream's URL.
        url: reqwest::Url,
        /// Why.
        reason: String,
    },
    /// The stream ended before it named its endpoint.
    #[error("the event stream from {url} ended before naming its endpoint")]
    EndedEarly {
        /// The stream's URL.
        url: reqwest::Url,
    },
}

/// Builds a header map from the configuration's headers.
pub fn header_map(headers: &std::collections::BTreeMap<String, String>) -> Result<HeaderMap, HeaderError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes()).map_err(|source| HeaderError::Name {
            name: name.clone(),
            source,
        })?;
        let value = HeaderValue::from_str(value).map_err(|source| HeaderError::Value {
            name: name.clone(),
            source,
        })?;
        map.insert(header, value);
    }
    Ok(map)
}

impl SseTransport {
    /// Opens the event stream at `url` and waits for its `endpoint` event.
    pub async fn connect(
        client: reqwest::Client,
        url: &str,
        headers: HeaderMap,
    ) -> Result<Self, SseConnectError> {
        let url = reqwest::Url::parse(url).map_err(|e| SseConnectError::BadUrl {
            url: url.to_string(),
            reason: e.to_string(),
        })?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|source| SseConnectError::Unreachable {
                url: url.clone(),
                source,
            })?;
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(SseConnectError::Unauthorized { url });
        }
        if !status.is_success() {
            return Err(SseConnectError::Refused { url, status });
        }
        let mut events = response.bytes_stream().eventsource();
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event == "endpoint" => {
                    break url
                        .join(event.data.trim())
                        .map_err(|e| SseConnectError::BadEndpoint {
                            endpoint: event.data.clone(),
                            reason: e.to_string(),
                        })?;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => {
                    return Err(SseConnectError::Broken {
                        url,
                        reason: e.to_string(),
                    });
                }
                None => return Err(SseConnectError::EndedEarly { url }),
            }
        };
        if endpoint.origin() != url.origin() {
            return Err(SseConnectError::OtherOrigin { endpoint });
        }
        let (tx, inbox) = mpsc::channel(INBOX);
        let reader = tokio::spawn(async move {
            while let Some(Ok(event)) = events.next().await {
                if event.event != "message" && !event.event.is_empty() {
                    continue;
                }
                match serde_json::from_str::<RxJsonRpcMessage<RoleClient>>(&event.data) {
                    Ok(message) => {
                        if tx.send(message).await.is_err() {
                            return;
                        }
                    }
                    Err(e) => tracing::warn!("an MCP SSE message could not be parsed: {e}"),
                }
            }
        });
        Ok(Self {
            client,
            endpoint,
            headers,
            inbox,
            reader,
        })
    }
}

impl Transport<RoleClient> for SseTransport {
    type Error = std::io::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        let request = self
            .client
            .post(self.endpoint.clone())
            .headers(self.headers.clone())
            .header(CONTENT_TYPE, "application/json")
            .json(&item);
        async move {
            let response = request.send().await.map_err(std::io::Error::other)?;
            if response.status().is_success() {
                Ok(())
            } else {
                Err(std::io::Error::other(format!(
                    "the server answered {} to a message",
                    response.status()
                )))
            }
        }
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        self.inbox.recv()
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.reader.abort();
        self.inbox.close();
        std::future::ready(Ok(()))
    }
}

impl Drop for SseTransport {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// The same headers as rmcp's streamable HTTP client takes them.
pub fn header_hash_map(headers: &HeaderMap) -> HashMap<HeaderName, HeaderValue> {
    headers.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}
