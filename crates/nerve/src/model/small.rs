//! A small, fast model for side jobs of tools (summarising a fetched page for WebFetch), behind a
//! trait so tools never depend on the HTTP client and tests can plug in their own.

use async_trait::async_trait;
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::model::client::{ModelClient, ModelEvent};
use crate::model::error::{ModelError, StreamError};
use crate::model::types::{ContentBlock, Message, MessagesRequest, SystemBlock, TextBlock};

/// One-shot text completion: a system prompt and a user message in, the answer's text out.
///
/// Cancellation is the caller's: dropping the future aborts the request (the pipeline races every
/// tool call against the turn's token).
#[async_trait]
pub trait SmallModel: Send + Sync + std::fmt::Debug {
    /// Sends one user message and returns the text of the answer (text blocks joined).
    async fn complete(&self, system: &str, user: &str) -> Result<String, ModelError>;

    /// Runs the Messages API's server-side web search for `query` in a request of its own and
    /// returns the API's answer message as JSON (its `content` holds `server_tool_use`,
    /// `web_search_tool_result` and `text` blocks). Only the answer's domains are filtered
    /// (`filter`); what the results mean is the caller's. Default: not available.
    async fn web_search(&self, query: &str, filter: &DomainFilter) -> Result<serde_json::Value, ModelError> {
        let _ = (query, filter);
        Err(ModelError::Config(
            "web search is not available with this model server".into(),
        ))
    }
}

/// The domains a web search is limited to or kept away from (the API takes one list or the other).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DomainFilter {
    /// Any domain.
    #[default]
    Any,
    /// Only these.
    Only(Vec<String>),
    /// Not these.
    Not(Vec<String>),
}

/// How many searches one WebSearch call may make (the server tool's `max_uses`).
pub const WEB_SEARCH_MAX_USES: u32 = 8;

/// [`SmallModel`] over the Messages API client, collecting the streamed answer.
#[derive(Debug, Clone)]
pub struct ClientSmallModel {
    client: ModelClient,
    model: String,
    max_tokens: u32,
}

impl ClientSmallModel {
    /// Answers come from `model` (for example a Haiku model), at most `max_tokens` long.
    pub fn new(client: ModelClient, model: impl Into<String>, max_tokens: u32) -> Self {
        Self {
            client,
            model: model.into(),
            max_tokens,
        }
    }
}

#[async_trait]
impl SmallModel for ClientSmallModel {
    async fn complete(&self, system: &str, user: &str) -> Result<String, ModelError> {
        let request = MessagesRequest {
            model: self.model.clone(),
            max_tokens: self.max_tokens,
            system: if system.is_empty() {
                Vec::new()
            } else {
                vec![SystemBlock::Text(TextBlock {
                    text: system.to_owned(),
                    cache_control: None,
                })]
            },
            messages: vec![Message::user_text(user)],
            tools: Vec::new(),
            stream: true,
            thinking: None,
            metadata: None,
            temperature: None,
        };
        let mut stream = self.client.stream_message(request, CancellationToken::new());
        while let Some(event) = stream.next().await {
            if let ModelEvent::MessageComplete(message) = event? {
                let text: Vec<&str> = message
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::Text(t) => Some(t.text.as_str()),
                        ContentBlock::Thinking(_)
                        | ContentBlock::RedactedThinking(_)
                        | ContentBlock::ToolUse(_)
                        | ContentBlock::ToolResult(_)
                        | ContentBlock::Image(_)
                        | ContentBlock::Document(_) => None,
                    })
                    .collect();
                return Ok(text.join("\n"));
            }
        }
        Err(ModelError::Stream(StreamError::Truncated))
    }

    async fn web_search(&self, query: &str, filter: &DomainFilter) -> Result<serde_json::Value, ModelError> {
        let mut tool = serde_json::json!({
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": WEB_SEARCH_MAX_USES,
        });
        match filter {
            DomainFilter::Any => {}
            DomainFilter::Only(list) => tool["allowed_domains"] = serde_json::json!(list),
            DomainFilter::Not(list) => tool["blocked_domains"] = serde_json::json!(list),
        }
        let body = serde_json::json!({
            "model": self.model,
            "max_tokens": self.max_tokens,
            "system": "You search the web for another assistant. Search for the query, then answer \
                       in a few sentences from what the results say, citing them; say so when they do \
                       not answer it.",
            "messages": [{"role": "user", "content": format!("Perform a web search for the query: {query}")}],
            "tools": [tool],
        });
        self.client
            .send_message_json(body, &CancellationToken::new())
            .await
    }
}
