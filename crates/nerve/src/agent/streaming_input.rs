//! Tool calls while the model writes them: a card the moment a tool_use block starts, and for the
//! tools whose input is mostly one text (Write's content, Edit's new text, Bash's command) that
//! text as it arrives, with the file it names. The input is read with a partial JSON parser at most
//! every [`THROTTLE`] per call, so a long Write costs a few parses, not one per fragment.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use jiter::{JsonValue, PartialMode};

use crate::events::Event;
use crate::model::types::ToolUseBlock;
use crate::tool::ToolPool;

/// Least time between two deltas of one call.
pub(crate) const THROTTLE: Duration = Duration::from_millis(100);

/// The input key naming a file, for the kinds of tool that write one.
const PATH_KEY: &str = "file_path";

struct Open {
    tool_use_id: String,
    text_key: Option<&'static str>,
    path_key: Option<&'static str>,
    json: String,
    sent_text: String,
    sent_path: Option<String>,
    last: Option<Instant>,
}

/// The tool calls of one response whose input is streaming, by block index.
#[derive(Default)]
pub(crate) struct StreamingInputs {
    open: HashMap<usize, Open>,
}

impl StreamingInputs {
    /// A tool_use block started: its card's event.
    pub(crate) fn start(&mut self, index: usize, block: &ToolUseBlock, pool: &ToolPool) -> Event {
        let tool = pool.find(&block.name);
        let kind = tool.map_or(nerve_protocol::ToolKind::Other, |t| t.kind());
        let path_key = matches!(
            kind,
            nerve_protocol::ToolKind::FileWrite | nerve_protocol::ToolKind::FileEdit
        )
        .then_some(PATH_KEY);
        let text_key = tool.and_then(|t| t.editable_field()).map(|f| f.input_key());
        let event = Event::ToolInputStarted {
            tool_use_id: block.id.clone(),
            tool_name: tool.map_or_else(|| block.name.clone(), |t| t.name().to_string()),
            kind,
            display_name: tool.map_or_else(|| block.name.clone(), |t| t.user_facing_name(None)),
        };
        self.open.insert(
            index,
            Open {
                tool_use_id: block.id.clone(),
                text_key,
                path_key,
                json: String::new(),
                sent_text: String::new(),
                sent_path: None,
                last: None,
            },
        );
        event
    }

    /// A fragment of a block's input arrived: a delta, when one is due.
    pub(crate) fn fragment(&mut self, index: usize, partial_json: &str, now: Instant) -> Option<Event> {
        let open = self.open.get_mut(&index)?;
        open.json.push_str(partial_json);
        if open.last.is_some_and(|last| now.duration_since(last) < THROTTLE) {
            return None;
        }
        open.last = Some(now);
        open.delta()
    }

    /// A block's input is complete (its call is queued next): the last delta, if anything is new.
    pub(crate) fn complete(&mut self, index: usize) -> Option<Event> {
        self.open.remove(&index)?.delta()
    }

    /// The response ended: calls whose input never completed, except `answered` (a broken input
    /// the turn answers with an error).
    pub(crate) fn abandoned(&mut self, answered: Option<&str>) -> Vec<Event> {
        let mut open: Vec<_> = self.open.drain().collect();
        open.sort_by_key(|(index, _)| *index);
        open.into_iter()
            .filter(|(_, o)| Some(o.tool_use_id.as_str()) != answered)
            .map(|(_, o)| Event::ToolInputAbandoned {
                tool_use_id: o.tool_use_id,
            })
            .collect()
    }
}

impl Open {
    fn delta(&mut self) -> Option<Event> {
        if self.text_key.is_none() && self.path_key.is_none() {
            return None;
        }
        // Input that does not read as an object yet (or ever) sends nothing; the engine's answer
        // to a broken input comes when the block ends.
        let (text, path) = read_partial(&self.json, self.text_key, self.path_key)?;
        let text = text.unwrap_or_default();
        let (appended, restart) = match text.strip_prefix(self.sent_text.as_str()) {
            Some(rest) => (rest.to_string(), false),
            None => (text.clone(), true),
        };
        if appended.is_empty() && !restart && path == self.sent_path {
            return None;
        }
        self.sent_text = text;
        self.sent_path.clone_from(&path);
        Some(Event::ToolInputDelta {
            tool_use_id: self.tool_use_id.clone(),
            path,
            text: appended,
            restart,
            input_bytes: self.json.len() as u64,
        })
    }
}

/// The text and path fields of an incomplete JSON object, as far as they arrived (a string cut
/// off mid-way is read up to where it stops).
fn read_partial(
    json: &str,
    text_key: Option<&str>,
    path_key: Option<&str>,
) -> Option<(Option<String>, Option<String>)> {
    let Ok(JsonValue::Object(object)) =
        JsonValue::parse_with_config(json.as_bytes(), false, PartialMode::TrailingStrings)
    else {
        return None;
    };
    let field = |key: Option<&str>| {
        let key = key?;
        object.iter().find_map(|(k, v)| match v {
            JsonValue::Str(s) if k == key => Some(s.to_string()),
            _ => None,
        })
    };
    Some((field(text_key), field(path_key)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    fn text_of(event: Option<Event>) -> (String, Option<String>, bool) {
        match event {
            Some(Event::ToolInputDelta {
                text, path, restart, ..
            }) => (text, path, restart),
            other => panic!("not a delta: {other:?}"),
        }
    }

    fn open(text_key: Option<&'static str>, path_key: Option<&'static str>) -> StreamingInputs {
        let mut inputs = StreamingInputs::default();
        inputs.open.insert(
            1,
            Open {
                tool_use_id: "w".into(),
                text_key,
                path_key,
                json: String::new(),
                sent_text: String::new(),
                sent_path: None,
                last: None,
            },
        );
        inputs
    }

    #[test]
    fn a_write_streams_its_path_then_its_content_in_throttled_appends() {
        let mut inputs = open(Some("content"), Some("file_path"));
        let t0 = Instant::now();
        assert_eq!(
            text_of(inputs.fragment(1, r#"{"file_path": "src/ma"#, t0)),
            (String::new(), Some("src/ma".into()), false)
        );
        // Within the throttle: nothing is parsed or sent.
        assert!(
            inputs
                .fragment(1, r#"in.rs", "content": "fn main() {\n"#, t0)
                .is_none()
        );
        assert_eq!(
            text_of(inputs.fragment(1, r#"    println!(\"hi\u00e9"#, t0 + THROTTLE)),
            (
                "fn main() {\n    println!(\"hié".into(),
                Some("src/main.rs".into()),
                false
            )
        );
        // An escape cut in the middle waits for its end.
        assert!(inputs.fragment(1, r#"\"#, t0 + THROTTLE * 2).is_none());
        assert!(inputs.fragment(1, r#"");\n}"}"#, t0 + THROTTLE * 2).is_none());
        assert_eq!(
            text_of(inputs.complete(1)),
            ("\");\n}".into(), Some("src/main.rs".into()), false)
        );
        assert!(inputs.abandoned(None).is_empty());
    }

    #[test]
    fn a_tool_without_streamed_fields_only_gets_its_card_and_a_cut_call_is_abandoned() {
        let mut inputs = open(None, None);
        assert!(inputs.fragment(1, r#"{"pattern": "x"#, Instant::now()).is_none());
        assert!(inputs.complete(1).is_none());
        let mut inputs = open(Some("command"), None);
        let _ = inputs.fragment(1, r#"{"command": "ls"#, Instant::now());
        assert!(inputs.abandoned(Some("w")).is_empty());
        let mut inputs = open(Some("command"), None);
        let _ = inputs.fragment(1, r#"{"command": "ls"#, Instant::now());
        assert_eq!(
            inputs.abandoned(None),
            vec![Event::ToolInputAbandoned {
                tool_use_id: "w".into()
            }]
        );
    }

    #[test]
    fn input_that_is_not_an_object_sends_nothing() {
        let mut inputs = open(Some("command"), None);
        assert!(inputs.fragment(1, "[1, 2", Instant::now()).is_none());
        assert!(inputs.complete(1).is_none());
    }
}
