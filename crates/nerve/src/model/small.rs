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
}

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
}
