//! Compaction: when the conversation nears the model's context window (or the user asks), the
//! model summarises it and the summary replaces the history. A boundary is recorded in the
//! transcript, so a resumed session continues from the summary; persisted outputs keep their paths.

use futures::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::agent::request::build_request;
use crate::events::Event;
use crate::hooks::HookEventInput;
use crate::hooks::input::{CompactTrigger, PreCompactInput};
use crate::model::client::ModelEvent;
use crate::model::types::{ContentBlock, Message, Role};
use crate::transcripts::TranscriptEntry;

const SUMMARIZER: &str = "You write the summary that lets a coding agent continue a long session after its history \
is cleared. Be complete about what matters and brief about everything else.";

const INSTRUCTION: &str = "Summarise this conversation so the work can continue from the summary alone. Include: the \
user's requests and goals in their own words; decisions made and why; files read, created or changed (with paths); \
commands run and their outcomes; errors and how they were resolved; the current state; and the next steps. Keep \
every path of a <persisted-output> file, so those outputs stay reachable. Do not call any tool: answer with the summary \
only, as text.";

/// Why a compaction did not happen (the conversation is left as it was).
#[derive(Debug, thiserror::Error)]
pub enum CompactError {
    /// The summary request failed.
    #[error("the summary request failed: {0}")]
    Request(#[source] crate::model::error::ModelError),
    /// The model answered without a summary.
    #[error("the model returned an empty summary")]
    EmptySummary,
}

impl Agent {
    /// Whether the last response used enough of the context window to compact before the next call.
    pub fn needs_compaction(&self) -> bool {
        let threshold = self.config.context_window as f64 * self.config.auto_compact_at;
        self.messages.len() > 2 && self.context_tokens as f64 >= threshold
    }

    /// Compacts the conversation now. PreCompact hooks run first (their output goes to the user;
    /// `instructions` and theirs guide the summary).
    pub async fn compact(
        &mut self,
        trigger: CompactTrigger,
        instructions: Option<&str>,
        cancel: &CancellationToken,
    ) -> Result<(), CompactError> {
        let hooks = std::sync::Arc::clone(self.runtime.pipeline.hooks());
        let mut guidance = instructions.unwrap_or_default().to_string();
        if !hooks.is_empty() {
            let event = HookEventInput::PreCompact(PreCompactInput {
                trigger,
                custom_instructions: guidance.clone(),
            });
            let outcome = crate::pipeline::hook_steps::run(&hooks, &self.runtime.context, event).await;
            if let Some(extra) = outcome.joined_additional_context() {
                guidance.push('\n');
                guidance.push_str(&extra);
            }
            let notices: Vec<String> = outcome.system_messages.iter().map(|m| m.value.clone()).collect();
            self.notify_all(&notices);
        }

        // The summary request is the session's next request plus an instruction: same tools, same
        // system prompt, same messages, so the API reads the whole conversation from its prompt
        // cache instead of charging it again as fresh input (a compaction happens when the context
        // is at its largest). The summarizer's role goes in the instruction for the same reason.
        let mut messages = self.messages.to_vec();
        let mut instruction = format!("{SUMMARIZER}\n\n{INSTRUCTION}");
        if !guidance.trim().is_empty() {
            instruction.push_str(&format!(
                "\n\nAlso follow these instructions for the summary:\n{guidance}"
            ));
        }
        match messages.last_mut() {
            Some(last) if last.role == Role::User => last.content.push(ContentBlock::text(instruction)),
            _ => messages.push(Message::user_text(instruction)),
        }
        let specs = self.runtime.pipeline.pool().specs();
        let request = build_request(
            &self.config.model,
            self.config.max_tokens,
            &self.system,
            &specs,
            &messages,
            None,
        );
        let mut stream = self.client.stream_message(request, cancel.clone());
        let mut summary = None;
        while let Some(item) = stream.next().await {
            match item {
                Ok(ModelEvent::MessageComplete(m)) => {
                    self.count_usage(&m.usage);
                    summary = crate::agent::turn::last_text(&m.to_message())
                }
                Ok(_) => {}
                Err(e) => return Err(CompactError::Request(e)),
            }
        }
        let summary = summary
            .filter(|s| !s.trim().is_empty())
            .ok_or(CompactError::EmptySummary)?;

        let tokens_before = self.context_tokens;
        self.record(&TranscriptEntry::CompactBoundary {
            trigger: trigger.as_str().to_string(),
            tokens_before,
        });
        self.messages.replace(Vec::new());
        self.context_tokens = 0;
        self.push_message(Message::user_text(format!(
            "This session continues from an earlier conversation that was compacted to save context. Summary of \
             everything before this point:\n\n{summary}"
        )));
        self.emit(Event::Notice {
            message: format!(
                "Conversation compacted {}; {tokens_before} tokens before.",
                match trigger {
                    CompactTrigger::Auto => "automatically, as the context filled up",
                    CompactTrigger::Manual => "on request",
                }
            ),
        });
        Ok(())
    }
}
