//! The conversation's messages, and their request JSON written once.
//!
//! Every request carries the whole conversation, which grows all session (2.4 MB after 5,000
//! tool calls), and only its end changes from one request to the next: the messages appended
//! since, and the last one, which carries the cache breakpoint. The earlier messages are kept here
//! already written as JSON, in shared parts the request body sends without joining them, so a
//! request writes and copies only what is new, and sends the same bytes for the same prefix (as
//! the prompt cache wants).
//!
//! Correct by construction: the messages change only through this type's methods. Appending, and
//! merging into the last message, leave the written prefix valid (it never holds the last message);
//! anything else ([`History::replace`], [`History::edit`]) forgets it.

use std::ops::Deref;

use bytes::Bytes;

use crate::agent::request::write_body;
use crate::model::body::RequestBody;
use crate::model::types::{Message, MessagesRequest};

/// The messages of a conversation.
#[derive(Debug, Default)]
pub(crate) struct History {
    messages: Vec<Message>,
    written: Written,
    /// Leading messages whose tool calls are known to be answered (see
    /// [`History::tool_uses_are_answered`]).
    answered: usize,
}

/// `messages[..count]` as the request writes them, separated by commas: the parts joined.
#[derive(Debug, Default)]
struct Written {
    parts: Vec<Bytes>,
    count: usize,
}

impl Written {
    /// Adds the next messages' JSON. A part at least as long as the one before it joins it, so
    /// the parts' lengths fall geometrically: a session's thousands of requests leave a few dozen
    /// parts, and each byte is copied a logarithmic number of times in all.
    fn push(&mut self, part: Vec<u8>) {
        self.parts.push(Bytes::from(part));
        while let [.., before, last] = self.parts.as_slice()
            && last.len() >= before.len()
        {
            let mut joined = Vec::with_capacity(before.len() + last.len());
            joined.extend_from_slice(before);
            joined.extend_from_slice(last);
            self.parts.truncate(self.parts.len() - 2);
            self.parts.push(Bytes::from(joined));
        }
    }
}

impl History {
    pub(crate) fn new(messages: Vec<Message>) -> Self {
        Self {
            messages,
            written: Written::default(),
            answered: 0,
        }
    }

    /// Appends `message`; a user message after a user message joins it (tool results first, as
    /// the API wants them).
    pub(crate) fn push_merged(&mut self, message: Message) {
        crate::transcripts::push_merged(&mut self.messages, message);
    }

    /// Puts `messages` in place of the whole conversation (compaction, rewind).
    pub(crate) fn replace(&mut self, messages: Vec<Message>) {
        self.messages = messages;
        self.written = Written::default();
        self.answered = 0;
    }

    /// The messages to change in place (a repair): what was written, and checked, is forgotten.
    pub(crate) fn edit(&mut self) -> &mut Vec<Message> {
        self.written = Written::default();
        self.answered = 0;
        &mut self.messages
    }

    /// Whether every tool call is answered in the message after it
    /// ([`crate::agent::conversation::tool_uses_are_answered`]), looking only at the messages
    /// added since the last time it was: checked before every request, this would otherwise
    /// read the whole session each time. The last two messages are always looked at again, as
    /// merging into the last one can change the answer to the one before it.
    pub(crate) fn tool_uses_are_answered(&mut self) -> bool {
        let answered = crate::agent::conversation::tool_uses_are_answered(
            self.messages.get(self.answered..).unwrap_or(&self.messages),
        );
        if answered {
            self.answered = self.messages.len().saturating_sub(2);
        }
        answered
    }

    /// The streamed request's body: `head` (its own messages ignored) with this conversation as
    /// its messages, the last one marked as the cache breakpoint. The same bytes as serialising
    /// [`crate::agent::request::build_request`] over the messages with `stream: true`.
    pub(crate) fn body(&mut self, head: &MessagesRequest) -> serde_json::Result<RequestBody> {
        let Some((last, earlier)) = self.messages.split_last() else {
            return write_body(head, &[], &[], None);
        };
        let written = &mut self.written;
        let new = earlier.get(written.count..).unwrap_or_default();
        if !new.is_empty() {
            let mut json = Vec::new();
            for message in new {
                if !(written.parts.is_empty() && json.is_empty()) {
                    json.push(b',');
                }
                serde_json::to_writer(&mut json, message)?;
            }
            written.push(json);
        }
        written.count = earlier.len();
        write_body(head, &written.parts, &[], Some(last))
    }
}

impl Deref for History {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::request::build_request;
    use crate::model::types::{ContentBlock, Role, ThinkingConfig};
    use crate::registry::ToolSpec;
    use crate::tool::ToolOrigin;

    fn expected(head: &MessagesRequest, messages: &[Message]) -> String {
        let mut request = head.clone();
        request.messages = build_request("m", 1, &[], &[], messages, None).messages;
        request.stream = true;
        serde_json::to_string(&request).unwrap()
    }

    fn heads() -> Vec<MessagesRequest> {
        let tools = [ToolSpec {
            name: "Read".into(),
            description: "d".into(),
            input_schema: Some(json!({"type": "object"})),
            deferred: false,
            origin: ToolOrigin::BuiltIn,
        }];
        vec![
            build_request("m", 100, &["You are Nerve.".into()], &tools, &[], None),
            build_request(
                "m",
                100,
                &[],
                &[],
                &[],
                Some(ThinkingConfig::Enabled { budget_tokens: 2048 }),
            ),
        ]
    }

    fn result(id: &str) -> Message {
        Message {
            role: Role::User,
            content: vec![ContentBlock::tool_result(id, "ok \"quoted\"\nline", false)],
        }
    }

    /// Request after request, as a session grows, is merged into, repaired and replaced: each body
    /// is byte for byte the request built whole from the messages at that moment.
    #[test]
    fn each_body_is_the_whole_request_written_at_once() {
        for head in heads() {
            let mut history = History::default();
            let check = |history: &mut History| {
                let body = String::from_utf8(history.body(&head).unwrap().to_vec()).unwrap();
                assert_eq!(body, expected(&head, history));
            };
            check(&mut history);
            history.push_merged(Message::user_text("hello"));
            check(&mut history);
            history.push_merged(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::text("calling")],
            });
            history.push_merged(result("toolu_1"));
            check(&mut history);
            // Merged into the last message, which is never among the written ones.
            history.push_merged(Message::user_text("and another thing"));
            check(&mut history);
            history.push_merged(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::text("done")],
            });
            history.push_merged(Message::user_text("next"));
            check(&mut history);
            check(&mut history);
            history.edit()[0] = Message::user_text("repaired");
            check(&mut history);
            history.replace(vec![Message::user_text("a summary")]);
            check(&mut history);
            history.push_merged(Message {
                role: Role::Assistant,
                content: vec![ContentBlock::text("ok")],
            });
            history.push_merged(Message::user_text("on"));
            check(&mut history);
        }
    }

    /// A thousand requests' worth of new messages leave the bytes in order in a few parts.
    #[test]
    fn written_parts_stay_few_and_in_order() {
        let mut written = Written::default();
        let mut expected = Vec::new();
        for i in 0..1_000u32 {
            let part = format!(",{{\"n\":{i}}}").into_bytes();
            expected.extend_from_slice(&part);
            written.push(part);
        }
        let joined: Vec<u8> = written.parts.iter().flat_map(|p| p.iter().copied()).collect();
        assert_eq!(joined, expected);
        assert!(written.parts.len() <= 11, "{} parts", written.parts.len());
    }

    fn calls(ids: &[&str]) -> Message {
        Message {
            role: Role::Assistant,
            content: ids
                .iter()
                .map(|id| {
                    ContentBlock::ToolUse(crate::model::types::ToolUseBlock {
                        id: (*id).into(),
                        name: "Read".into(),
                        input: json!({}),
                        cache_control: None,
                    })
                })
                .collect(),
        }
    }

    /// Checked incrementally, the answer is the whole history's at every step: a call answered
    /// later, an answer given twice by merging into the last message, a repair and a replace.
    #[test]
    fn the_incremental_answered_check_agrees_with_the_whole_history() {
        let mut history = History::default();
        let check = |history: &mut History, expected: bool| {
            assert_eq!(
                crate::agent::conversation::tool_uses_are_answered(history),
                expected,
                "the whole history's answer"
            );
            assert_eq!(history.tool_uses_are_answered(), expected);
        };
        check(&mut history, true);
        history.push_merged(Message::user_text("read them"));
        history.push_merged(calls(&["toolu_1", "toolu_2"]));
        check(&mut history, false);
        history.push_merged(result("toolu_1"));
        check(&mut history, false);
        history.push_merged(result("toolu_2"));
        check(&mut history, true);
        for turn in 3..8 {
            let id = format!("toolu_{turn}");
            history.push_merged(calls(&[&id]));
            history.push_merged(result(&id));
            check(&mut history, true);
        }
        // Long after the first calls were checked, the last answer is given twice.
        history.push_merged(result("toolu_7"));
        check(&mut history, false);
        crate::agent::conversation::answer_missing_tool_uses(history.edit());
        check(&mut history, true);
        history.replace(vec![Message::user_text("a summary"), calls(&["toolu_9"])]);
        check(&mut history, false);
    }
}
