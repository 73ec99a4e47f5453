//! Assembly of streamed events into a complete assistant message.
//!
//! [`MessageAssembler`] is fed every [`StreamEvent`] in order. It reports each block the moment
//! its `content_block_stop` arrives (so tool calls can start while the model is still talking)
//! and the whole message at `message_stop`. It never presents a partial message as complete:
//! a stream that ends early is [`StreamError::Truncated`].

use std::collections::BTreeMap;

use serde_json::Value;

use crate::model::error::StreamError;
use crate::model::sse::{BlockDelta, MessageStart, StreamEvent};
use crate::model::types::{AssistantMessage, ContentBlock, StopReason, Usage};

/// What the assembler learned from one event.
#[derive(Debug, Clone, PartialEq)]
pub enum Assembled {
    /// A block finished; tool_use input is parsed and is a JSON object.
    BlockComplete {
        /// Position in the message.
        index: usize,
        /// The finished block.
        block: ContentBlock,
    },
    /// `message_stop` arrived and every block is complete.
    MessageComplete(AssistantMessage),
}

#[derive(Debug)]
struct OpenBlock {
    block: ContentBlock,
    /// Concatenated `input_json_delta` fragments of a tool_use block.
    input_json: String,
}

/// Builds the final assistant message from stream events. See the module docs.
#[derive(Debug, Default)]
pub struct MessageAssembler {
    start: Option<MessageStart>,
    open: BTreeMap<usize, OpenBlock>,
    done: BTreeMap<usize, ContentBlock>,
    stop_reason: Option<StopReason>,
    stop_sequence: Option<String>,
    usage: Usage,
    complete: Option<AssistantMessage>,
}

impl MessageAssembler {
    /// An assembler waiting for `message_start`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether any content block has started (the point after which a retry would duplicate
    /// what the caller has seen).
    pub fn has_content(&self) -> bool {
        !self.open.is_empty() || !self.done.is_empty()
    }

    /// Usage known so far (input from `message_start`, cumulative output from `message_delta`).
    pub fn usage(&self) -> Usage {
        self.usage
    }

    /// Applies one event. An `error` event becomes [`StreamError::Api`]; events out of protocol
    /// order become [`StreamError::Protocol`].
    pub fn push(&mut self, event: &StreamEvent) -> Result<Option<Assembled>, StreamError> {
        if self.complete.is_some() {
            return match event {
                StreamEvent::Ping | StreamEvent::Unknown { .. } => Ok(None),
                other => Err(protocol(format!(
                    "received {} after message_stop",
                    event_name(other)
                ))),
            };
        }
        match event {
            StreamEvent::Ping | StreamEvent::Unknown { .. } => Ok(None),
            StreamEvent::Error { error } => Err(StreamError::Api {
                kind: error.kind.clone(),
                message: error.message.clone(),
            }),
            StreamEvent::MessageStart { message } => {
                if self.start.is_some() {
                    return Err(protocol("a second message_start arrived".to_owned()));
                }
                self.usage = message.usage;
                self.start = Some(message.clone());
                Ok(None)
            }
            StreamEvent::ContentBlockStart { index, content_block } => {
                self.require_started(event)?;
                if self.open.contains_key(index) || self.done.contains_key(index) {
                    return Err(protocol(format!("content block {index} started twice")));
                }
                self.open.insert(
                    *index,
                    OpenBlock {
                        block: content_block.clone(),
                        input_json: String::new(),
                    },
                );
                Ok(None)
            }
            StreamEvent::ContentBlockDelta { index, delta } => {
                self.require_started(event)?;
                let Some(open) = self.open.get_mut(index) else {
                    return Err(protocol(format!(
                        "delta for content block {index}, which is not open"
                    )));
                };
                apply_delta(*index, open, delta)?;
                Ok(None)
            }
            StreamEvent::ContentBlockStop { index } => {
                self.require_started(event)?;
                let Some(open) = self.open.remove(index) else {
                    return Err(protocol(format!(
                        "content_block_stop for block {index}, which is not open"
                    )));
                };
                let block = finish_block(*index, open)?;
                self.done.insert(*index, block.clone());
                Ok(Some(Assembled::BlockComplete { index: *index, block }))
            }
            StreamEvent::MessageDelta { delta, usage } => {
                self.require_started(event)?;
                if delta.stop_reason.is_some() {
                    self.stop_reason.clone_from(&delta.stop_reason);
                }
                if delta.stop_sequence.is_some() {
                    self.stop_sequence.clone_from(&delta.stop_sequence);
                }
                merge_usage(&mut self.usage, usage);
                Ok(None)
            }
            StreamEvent::MessageStop => self.finish_message().map(|m| Some(Assembled::MessageComplete(m))),
        }
    }

    /// The complete message, or [`StreamError::Truncated`] when `message_stop` never arrived.
    /// Call this when the event stream ends.
    pub fn finish(&self) -> Result<AssistantMessage, StreamError> {
        self.complete.clone().ok_or(StreamError::Truncated)
    }

    fn require_started(&self, event: &StreamEvent) -> Result<(), StreamError> {
        if self.start.is_none() {
            return Err(protocol(format!(
                "{} arrived before message_start",
                event_name(event)
            )));
        }
        Ok(())
    }

    fn finish_message(&mut self) -> Result<AssistantMessage, StreamError> {
        let Some(start) = &self.start else {
            return Err(protocol("message_stop arrived before message_start".to_owned()));
        };
        if let Some(index) = self.open.keys().next() {
            return Err(protocol(format!(
                "message_stop arrived while content block {index} was still open"
            )));
        }
        let Some(stop_reason) = self.stop_reason.clone() else {
            return Err(protocol(
                "message_stop arrived without a stop_reason in any message_delta".to_owned(),
            ));
        };
        // Indices must be 0..n with no hole, or the content array would misplace blocks.
        if let Some((position, index)) = self
            .done
            .keys()
            .enumerate()
            .find(|(position, index)| position != *index)
        {
            return Err(protocol(format!(
                "content block {position} is missing (next block has index {index})"
            )));
        }
        let message = AssistantMessage {
            id: start.id.clone(),
            model: start.model.clone(),
            content: self.done.values().cloned().collect(),
            stop_reason,
            stop_sequence: self.stop_sequence.clone(),
            usage: self.usage,
        };
        self.complete = Some(message.clone());
        Ok(message)
    }
}

fn protocol(message: String) -> StreamError {
    StreamError::Protocol(message)
}

fn event_name(event: &StreamEvent) -> &'static str {
    match event {
        StreamEvent::MessageStart { .. } => "message_start",
        StreamEvent::ContentBlockStart { .. } => "content_block_start",
        StreamEvent::ContentBlockDelta { .. } => "content_block_delta",
        StreamEvent::ContentBlockStop { .. } => "content_block_stop",
        StreamEvent::MessageDelta { .. } => "message_delta",
        StreamEvent::MessageStop => "message_stop",
        StreamEvent::Ping => "ping",
        StreamEvent::Error { .. } => "error",
        StreamEvent::Unknown { .. } => "an unknown event",
    }
}

fn block_name(block: &ContentBlock) -> &'static str {
    match block {
        ContentBlock::Text(_) => "text",
        ContentBlock::Thinking(_) => "thinking",
        ContentBlock::RedactedThinking(_) => "redacted_thinking",
        ContentBlock::ToolUse(_) => "tool_use",
        ContentBlock::ToolResult(_) => "tool_result",
        ContentBlock::Image(_) => "image",
        ContentBlock::Document(_) => "document",
    }
}

fn delta_name(delta: &BlockDelta) -> &'static str {
    match delta {
        BlockDelta::TextDelta { .. } => "text_delta",
        BlockDelta::ThinkingDelta { .. } => "thinking_delta",
        BlockDelta::SignatureDelta { .. } => "signature_delta",
        BlockDelta::InputJsonDelta { .. } => "input_json_delta",
    }
}

fn apply_delta(index: usize, open: &mut OpenBlock, delta: &BlockDelta) -> Result<(), StreamError> {
    match (&mut open.block, delta) {
        (ContentBlock::Text(block), BlockDelta::TextDelta { text }) => block.text.push_str(text),
        (ContentBlock::Thinking(block), BlockDelta::ThinkingDelta { thinking }) => {
            block.thinking.push_str(thinking)
        }
        (ContentBlock::Thinking(block), BlockDelta::SignatureDelta { signature }) => {
            block.signature.push_str(signature)
        }
        (ContentBlock::ToolUse(_), BlockDelta::InputJsonDelta { partial_json }) => {
            open.input_json.push_str(partial_json)
        }
        (block, delta) => {
            return Err(protocol(format!(
                "{} cannot apply to content block {index} of type {}",
                delta_name(delta),
                block_name(block)
            )));
        }
    }
    Ok(())
}

fn finish_block(index: usize, open: OpenBlock) -> Result<ContentBlock, StreamError> {
    let OpenBlock {
        mut block,
        input_json,
    } = open;
    match &mut block {
        ContentBlock::ToolUse(tool_use) => {
            // A tool without parameters streams no fragments (or only ""), keeping the start's `{}`.
            let parsed = if input_json.trim().is_empty() {
                Ok(tool_use.input.clone())
            } else {
                serde_json::from_str::<Value>(&input_json).map_err(|e| e.to_string())
            };
            match parsed {
                Ok(input @ Value::Object(_)) => tool_use.input = input,
                Ok(other) => {
                    return Err(StreamError::InvalidToolInput {
                        index,
                        tool_use_id: tool_use.id.clone(),
                        name: tool_use.name.clone(),
                        raw: if input_json.is_empty() {
                            other.to_string()
                        } else {
                            input_json
                        },
                        reason: "the input must be a JSON object".to_owned(),
                    });
                }
                Err(reason) => {
                    return Err(StreamError::InvalidToolInput {
                        index,
                        tool_use_id: tool_use.id.clone(),
                        name: tool_use.name.clone(),
                        raw: input_json,
                        reason,
                    });
                }
            }
        }
        ContentBlock::Thinking(thinking) => {
            // Without its signature a thinking block cannot be sent back: the next request fails.
            if thinking.signature.is_empty() {
                return Err(protocol(format!(
                    "thinking block {index} ended without a signature"
                )));
            }
        }
        ContentBlock::Text(_)
        | ContentBlock::RedactedThinking(_)
        | ContentBlock::ToolResult(_)
        | ContentBlock::Image(_)
        | ContentBlock::Document(_) => {}
    }
    Ok(block)
}

fn merge_usage(usage: &mut Usage, delta: &crate::model::sse::DeltaUsage) {
    if let Some(value) = delta.input_tokens {
        usage.input_tokens = value;
    }
    if let Some(value) = delta.output_tokens {
        usage.output_tokens = value;
    }
    if let Some(value) = delta.cache_creation_input_tokens {
        usage.cache_creation_input_tokens = value;
    }
    if let Some(value) = delta.cache_read_input_tokens {
        usage.cache_read_input_tokens = value;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::sse::tests::{DOCS_TEXT_STREAM, DOCS_THINKING_STREAM, DOCS_TOOL_STREAM, decode_text};
    use crate::model::sse::{ApiErrorDetail, DeltaUsage, MessageDeltaBody};
    use crate::model::types::{ThinkingBlock, ToolUseBlock};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn assemble(text: &str) -> (Vec<Assembled>, Result<AssistantMessage, StreamError>) {
        let mut assembler = MessageAssembler::new();
        let mut out = Vec::new();
        for event in decode_text(text, 11) {
            match assembler.push(&event.unwrap()) {
                Ok(Some(item)) => out.push(item),
                Ok(None) => {}
                Err(error) => return (out, Err(error)),
            }
        }
        (out, assembler.finish())
    }

    fn start_event() -> StreamEvent {
        StreamEvent::MessageStart {
            message: MessageStart {
                id: "msg_1".into(),
                model: "m".into(),
                content: vec![],
                stop_reason: None,
                stop_sequence: None,
                usage: Usage::default(),
            },
        }
    }

    fn tool_start(index: usize) -> StreamEvent {
        StreamEvent::ContentBlockStart {
            index,
            content_block: ContentBlock::ToolUse(ToolUseBlock {
                id: "toolu_1".into(),
                name: "Bash".into(),
                input: json!({}),
                cache_control: None,
            }),
        }
    }

    fn json_delta(index: usize, fragment: &str) -> StreamEvent {
        StreamEvent::ContentBlockDelta {
            index,
            delta: BlockDelta::InputJsonDelta {
                partial_json: fragment.into(),
            },
        }
    }

    #[test]
    fn text_stream_assembles_with_final_usage() {
        let (items, message) = assemble(DOCS_TEXT_STREAM);
        let message = message.unwrap();
        assert_eq!(
            message,
            AssistantMessage {
                id: "msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY".into(),
                model: "claude-opus-4-7".into(),
                content: vec![ContentBlock::text("Hello!")],
                stop_reason: StopReason::EndTurn,
                stop_sequence: None,
                usage: Usage {
                    input_tokens: 25,
                    output_tokens: 15,
                    ..Usage::default()
                },
            }
        );
        assert_eq!(
            items,
            vec![
                Assembled::BlockComplete {
                    index: 0,
                    block: ContentBlock::text("Hello!")
                },
                Assembled::MessageComplete(message)
            ]
        );
    }

    #[test]
    fn tool_use_input_is_assembled_from_fragments_at_block_stop() {
        let (items, message) = assemble(DOCS_TOOL_STREAM);
        let tool = ContentBlock::ToolUse(ToolUseBlock {
            id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6".into(),
            name: "get_weather".into(),
            input: json!({"location": "San Francisco, CA"}),
            cache_control: None,
        });
        assert_eq!(
            items[1],
            Assembled::BlockComplete {
                index: 1,
                block: tool.clone()
            }
        );
        let message = message.unwrap();
        assert_eq!(message.stop_reason, StopReason::ToolUse);
        assert_eq!(
            message.content,
            vec![ContentBlock::text("Okay, let's check the weather."), tool]
        );
    }

    #[test]
    fn thinking_keeps_its_signature() {
        let (_, message) = assemble(DOCS_THINKING_STREAM);
        let message = message.unwrap();
        assert_eq!(
            message.content[0],
            ContentBlock::Thinking(ThinkingBlock {
                thinking: "I need to find the GCD of 1071 and 462 using the Euclidean algorithm.\n\n1071 = 2 × 462 + 147\n462 = 3 × 147 + 21".into(),
                signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...".into(),
            })
        );
    }

    #[test]
    fn thinking_without_signature_is_rejected() {
        let mut assembler = MessageAssembler::new();
        assembler.push(&start_event()).unwrap();
        assembler
            .push(&StreamEvent::ContentBlockStart {
                index: 0,
                content_block: ContentBlock::Thinking(ThinkingBlock {
                    thinking: String::new(),
                    signature: String::new(),
                }),
            })
            .unwrap();
        let error = assembler
            .push(&StreamEvent::ContentBlockStop { index: 0 })
            .unwrap_err();
        assert_eq!(
            error,
            StreamError::Protocol("thinking block 0 ended without a signature".into())
        );
    }

    #[test]
    fn invalid_tool_json_is_an_error_carrying_the_raw_text() {
        let mut assembler = MessageAssembler::new();
        assembler.push(&start_event()).unwrap();
        assembler.push(&tool_start(0)).unwrap();
        assembler.push(&json_delta(0, "{\"command\": ")).unwrap();
        assembler.push(&json_delta(0, "\"ls")).unwrap();
        let error = assembler
            .push(&StreamEvent::ContentBlockStop { index: 0 })
            .unwrap_err();
        let StreamError::InvalidToolInput {
            raw,
            tool_use_id,
            name,
            index,
            ..
        } = error
        else {
            panic!("unexpected {error:?}");
        };
        assert_eq!(
            (raw.as_str(), tool_use_id.as_str(), name.as_str(), index),
            ("{\"command\": \"ls", "toolu_1", "Bash", 0)
        );
    }

    #[test]
    fn non_object_tool_input_is_rejected() {
        let mut assembler = MessageAssembler::new();
        assembler.push(&start_event()).unwrap();
        assembler.push(&tool_start(0)).unwrap();
        assembler.push(&json_delta(0, "[1, 2]")).unwrap();
        assert!(matches!(
            assembler.push(&StreamEvent::ContentBlockStop { index: 0 }),
            Err(StreamError::InvalidToolInput { .. })
        ));
    }

    #[test]
    fn tool_without_fragments_keeps_empty_object() {
        let mut assembler = MessageAssembler::new();
        assembler.push(&start_event()).unwrap();
        assembler.push(&tool_start(0)).unwrap();
        assembler.push(&json_delta(0, "")).unwrap();
        let Some(Assembled::BlockComplete {
            block: ContentBlock::ToolUse(tool),
            ..
        }) = assembler
            .push(&StreamEvent::ContentBlockStop { index: 0 })
            .unwrap()
        else {
            panic!("no block");
        };
        assert_eq!(tool.input, json!({}));
    }

    proptest::proptest! {
        #[test]
        fn tool_input_survives_any_fragmentation(
            input in proptest::collection::btree_map("[a-z_]{1,8}", "[ -~é✓\\\\\"]{0,12}", 0..5),
            cuts in proptest::collection::vec(0usize..200, 0..8),
        ) {
            let expected = json!(input);
            let text = expected.to_string();
            let chars: Vec<char> = text.chars().collect();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (chars.len() + 1)).collect();
            cuts.sort_unstable();
            let mut assembler = MessageAssembler::new();
            assembler.push(&start_event()).unwrap();
            assembler.push(&tool_start(0)).unwrap();
            let mut previous = 0;
            for cut in cuts.into_iter().chain(std::iter::once(chars.len())) {
                let fragment: String = chars[previous..cut].iter().collect();
                assembler.push(&json_delta(0, &fragment)).unwrap();
                previous = cut;
            }
            let Some(Assembled::BlockComplete { block: ContentBlock::ToolUse(tool), .. }) =
                assembler.push(&StreamEvent::ContentBlockStop { index: 0 }).unwrap()
            else {
                panic!("no block");
            };
            proptest::prop_assert_eq!(tool.input, expected);
        }
    }

    #[test]
    fn stream_without_message_stop_is_truncated() {
        let cut = DOCS_TOOL_STREAM.split("event: message_delta").next().unwrap();
        let (items, message) = assemble(cut);
        assert_eq!(items.len(), 2, "both blocks were complete before the cut");
        assert_eq!(message, Err(StreamError::Truncated));
    }

    #[test]
    fn error_event_and_protocol_violations_are_errors() {
        let mut assembler = MessageAssembler::new();
        assert!(matches!(
            assembler.push(&tool_start(0)),
            Err(StreamError::Protocol(_))
        ));
        assembler.push(&start_event()).unwrap();
        assert!(matches!(
            assembler.push(&json_delta(3, "{}")),
            Err(StreamError::Protocol(_))
        ));
        assembler
            .push(&StreamEvent::ContentBlockStart {
                index: 0,
                content_block: ContentBlock::text(""),
            })
            .unwrap();
        assert_eq!(
            assembler.push(&json_delta(0, "{}")),
            Err(StreamError::Protocol(
                "input_json_delta cannot apply to content block 0 of type text".into()
            ))
        );
        assert_eq!(
            assembler.push(&StreamEvent::Error {
                error: ApiErrorDetail {
                    kind: "overloaded_error".into(),
                    message: "Overloaded".into()
                }
            }),
            Err(StreamError::Api {
                kind: "overloaded_error".into(),
                message: "Overloaded".into()
            })
        );
        assert!(matches!(
            assembler.push(&StreamEvent::MessageStop),
            Err(StreamError::Protocol(_))
        ));
    }

    #[test]
    fn message_stop_requires_stop_reason_and_contiguous_blocks() {
        let mut assembler = MessageAssembler::new();
        assembler.push(&start_event()).unwrap();
        assembler
            .push(&StreamEvent::ContentBlockStart {
                index: 1,
                content_block: ContentBlock::text("x"),
            })
            .unwrap();
        assembler
            .push(&StreamEvent::ContentBlockStop { index: 1 })
            .unwrap();
        assert!(
            matches!(assembler.push(&StreamEvent::MessageStop), Err(StreamError::Protocol(m)) if m.contains("stop_reason"))
        );
        assembler
            .push(&StreamEvent::MessageDelta {
                delta: MessageDeltaBody {
                    stop_reason: Some(StopReason::EndTurn),
                    stop_sequence: None,
                },
                usage: DeltaUsage::default(),
            })
            .unwrap();
        assert!(
            matches!(assembler.push(&StreamEvent::MessageStop), Err(StreamError::Protocol(m)) if m.contains("block 0 is missing"))
        );
        assert_eq!(assembler.finish(), Err(StreamError::Truncated));
    }
}
