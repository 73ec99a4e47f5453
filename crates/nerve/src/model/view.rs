//! API messages read into what a front-end shows ([`nerve_protocol::message`]): the words of the
//! person and of the model, the prompt's pictures, and (in a history) the calls and results. The
//! engine's notes to the model ([`ContextFragment`]) are recognised here, where they are written,
//! and left out of the person's words.

use nerve_protocol::{
    AssistantWords, HistoryMessage, MessageImage, PastToolResult, PastToolUse, ResultBlock, UserWords,
};

use crate::model::context::{Attachment, ContextFragment};
use crate::model::types::{
    ContentBlock, MediaSource, Message, Role, ToolResult, ToolResultBlock, ToolResultContent,
};

/// What the person wrote in a user message.
pub fn user_words(message: &Message) -> UserWords {
    let text = join(message.content.iter().filter_map(|b| match b {
        ContentBlock::Text(t)
            if !ContextFragment::is_rendered(&t.text) && Attachment::parse_view(&t.text).is_none() =>
        {
            Some(t.text.as_str())
        }
        _ => None,
    }));
    let attachments = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Attachment::parse_view(&t.text),
            _ => None,
        })
        .collect();
    let images = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Image(image) => Some(picture(&image.source)),
            _ => None,
        })
        .collect();
    UserWords {
        text,
        images,
        attachments,
    }
}

/// What the model wrote in one of its messages.
pub fn assistant_words(message: &Message) -> AssistantWords {
    let text = join(message.content.iter().filter_map(|b| match b {
        ContentBlock::Text(t) => Some(t.text.as_str()),
        _ => None,
    }));
    let thinking = join(message.content.iter().filter_map(|b| match b {
        ContentBlock::Thinking(t) => Some(t.thinking.as_str()),
        _ => None,
    }));
    AssistantWords { text, thinking }
}

/// A conversation, to be shown again.
pub fn history(messages: &[Message]) -> Vec<HistoryMessage> {
    messages.iter().map(history_message).collect()
}

/// One message of a conversation, to be shown again.
pub fn history_message(message: &Message) -> HistoryMessage {
    match message.role {
        Role::User => HistoryMessage::User {
            words: user_words(message),
            tool_results: message
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolResult(r) => Some(past_result(r)),
                    _ => None,
                })
                .collect(),
        },
        Role::Assistant => HistoryMessage::Assistant {
            words: assistant_words(message),
            tool_uses: message
                .content
                .iter()
                .filter_map(|b| match b {
                    ContentBlock::ToolUse(u) => Some(PastToolUse {
                        id: u.id.clone(),
                        name: u.name.clone(),
                        input: u.input.clone(),
                    }),
                    _ => None,
                })
                .collect(),
        },
    }
}

fn past_result(result: &ToolResult) -> PastToolResult {
    let content = match &result.content {
        None => Vec::new(),
        Some(ToolResultContent::Text(text)) => vec![ResultBlock::text(text.clone())],
        Some(ToolResultContent::Blocks(blocks)) => blocks
            .iter()
            .map(|b| match b {
                ToolResultBlock::Text(t) => ResultBlock::text(t.text.clone()),
                ToolResultBlock::Image(image) => {
                    let MessageImage { media_type, data } = picture(&image.source);
                    ResultBlock::Image { media_type, data }
                }
            })
            .collect(),
    };
    PastToolResult {
        tool_use_id: result.tool_use_id.clone(),
        is_error: result.is_error,
        content,
    }
}

fn picture(source: &MediaSource) -> MessageImage {
    let MediaSource::Base64 { media_type, data } = source;
    MessageImage {
        media_type: media_type.clone(),
        data: data.clone(),
    }
}

/// The non-empty pieces, a blank line between them (how several text blocks read as one).
fn join<'a>(pieces: impl Iterator<Item = &'a str>) -> String {
    pieces.filter(|p| !p.is_empty()).collect::<Vec<_>>().join("\n\n")
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;

    fn message(value: serde_json::Value) -> Message {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn a_prompt_reads_as_the_persons_words_and_pictures_without_the_engines_notes() {
        let prompt = message(json!({"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBO"}},
            {"type": "text", "text": "what is this?"},
            {"type": "text", "text": ""},
            {"type": "text", "text": "and this"},
            {"type": "text", "text": ContextFragment::hook_context("UserPromptSubmit", "branch main").render()},
        ]}));
        assert_eq!(
            user_words(&prompt),
            UserWords {
                text: "what is this?\n\nand this".into(),
                images: vec![MessageImage {
                    media_type: "image/png".into(),
                    data: "iVBO".into()
                }],
                attachments: Vec::new(),
            }
        );
    }

    #[test]
    fn an_answer_reads_as_its_text_and_thinking() {
        let answer = message(json!({"role": "assistant", "content": [
            {"type": "thinking", "thinking": "hmm", "signature": "s"},
            {"type": "text", "text": "First."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
            {"type": "text", "text": "Second."},
        ]}));
        assert_eq!(
            assistant_words(&answer),
            AssistantWords {
                text: "First.\n\nSecond.".into(),
                thinking: "hmm".into()
            }
        );
    }

    #[test]
    fn a_history_carries_the_calls_and_the_results_as_the_model_got_them() {
        let messages = [
            message(json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "ls"}},
            ]})),
            message(json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "1\tfn main() {}"},
                {"type": "tool_result", "tool_use_id": "t2", "is_error": true, "content": [
                    {"type": "text", "text": "<tool_use_error>denied</tool_use_error>"},
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}},
                ]},
                {"type": "text", "text": "<system-reminder>\nThe user modified the input\n</system-reminder>"},
            ]})),
        ];
        assert_eq!(
            history(&messages),
            vec![
                HistoryMessage::Assistant {
                    words: AssistantWords::default(),
                    tool_uses: vec![
                        PastToolUse {
                            id: "t1".into(),
                            name: "Read".into(),
                            input: json!({"file_path": "/a"})
                        },
                        PastToolUse {
                            id: "t2".into(),
                            name: "Bash".into(),
                            input: json!({"command": "ls"})
                        },
                    ],
                },
                HistoryMessage::User {
                    words: UserWords::default(),
                    tool_results: vec![
                        PastToolResult {
                            tool_use_id: "t1".into(),
                            is_error: false,
                            content: vec![ResultBlock::text("1\tfn main() {}")],
                        },
                        PastToolResult {
                            tool_use_id: "t2".into(),
                            is_error: true,
                            content: vec![
                                ResultBlock::text("<tool_use_error>denied</tool_use_error>"),
                                ResultBlock::Image {
                                    media_type: "image/png".into(),
                                    data: "AA".into()
                                },
                            ],
                        },
                    ],
                },
            ]
        );
    }
}
