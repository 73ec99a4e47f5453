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

/// Builds a header map from the configuration's headers.
pub fn header_map(headers: &std::collections::BTreeMap<String, String>) -> Result<HeaderMap, String> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let name =
            HeaderName::from_bytes(name.as_bytes()).map_err(|e| format!("header name {name:?}: {e}"))?;
        let value = HeaderValue::from_str(value).map_err(|e| format!("the value of header {name}: {e}"))?;
        map.insert(name, value);
    }
    Ok(map)
}

impl SseTransport {
    /// Opens the event stream at `url` and waits for its `endpoint` event.
    pub async fn connect(client: reqwest::Client, url: &str, headers: HeaderMap) -> Result<Self, String> {
        let url = reqwest::Url::parse(url).map_err(|e| format!("the URL {url:?} is invalid: {e}"))?;
        let response = client
            .get(url.clone())
            .headers(headers.clone())
            .header(ACCEPT, "text/event-stream")
            .send()
            .await
            .map_err(|e| format!("could not open the event stream at {url}: {e}"))?;
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED {
            return Err(format!(
                "{url} answered 401 Unauthorized: the server needs a token"
            ));
        }
        if !status.is_success() {
            return Err(format!("{url} answered {status} to the event-stream request"));
        }
        let mut events = response.bytes_stream().eventsource();
        let endpoint = loop {
            match events.next().await {
                Some(Ok(event)) if event.event == "endpoint" => {
                    break url.join(event.data.trim()).map_err(|e| {
                        format!("the server named an invalid endpoint {:?}: {e}", event.data)
                    })?;
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(format!("the event stream from {url} broke: {e}")),
                None => {
                    return Err(format!(
                        "the event stream from {url} ended before naming its endpoint"
                    ));
                }
            }
        };
        if endpoint.origin() != url.origin() {
            return Err(format!(
                "the server named an endpoint on another origin ({endpoint}); it is not used"
            ));
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
