//! The Anthropic Messages API client: request/response types, SSE decoding, message assembly,
//! retries with backoff, and usage/cost accounting.
//!
//! Flow: [`client::ModelClient::stream_message`] sends a [`types::MessagesRequest`], retries
//! transient failures that happen before any content arrived, decodes the SSE body
//! ([`sse`]), assembles blocks ([`stream::MessageAssembler`]) and hands the caller a stream of
//! [`client::ModelEvent`]s ending with the complete [`types::AssistantMessage`].

pub mod api_key;
pub mod body;
pub mod catalog;
pub mod client;
pub mod context;
pub mod error;
pub mod openai;
pub mod retry;
pub mod small;
pub mod sse;
pub mod stream;
pub mod types;
pub mod usage;
pub mod view;
