//! Context the engine adds to the conversation for the model: a hook's additional context, a note
//! that the user edited an input, a reminder. One marker format, written and recognised only here,
//! so the engine's notes are never mistaken for the person's words (the classifier's view of what
//! the user asked, the Markdown export) and a front-end never has to parse them out of text.

use crate::model::types::ContentBlock;

const OPEN: &str = "<system-reminder>";
const CLOSE: &str = "</system-reminder>";

/// One note from the engine to the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFragment {
    text: String,
}

impl ContextFragment {
    /// A note with this text.
    pub fn new(text: impl Into<String>) -> Self {
        Self { text: text.into() }
    }

    /// What a hook added for the model at `event` (`UserPromptSubmit`, `PreToolUse`...).
    pub fn hook_context(event: &str, text: &str) -> Self {
        Self::new(format!("{event} hook additional context: {text}"))
    }

    /// The note as the model reads it.
    pub fn render(&self) -> String {
        format!("{OPEN}\n{}\n{CLOSE}", self.text)
    }

    /// The note as a text block of a user message.
    pub fn block(&self) -> ContentBlock {
        ContentBlock::text(self.render())
    }

    /// Whether a text block of the conversation is such a note rather than someone's words.
    pub fn is_rendered(text: &str) -> bool {
        text.trim_start().starts_with(OPEN)
    }

    /// The note's text, when `text` is a rendered note.
    pub fn parse(text: &str) -> Option<&str> {
        let inner = text.trim().strip_prefix(OPEN)?.strip_suffix(CLOSE)?;
        Some(
            inner
                .strip_prefix('\n')
                .unwrap_or(inner)
                .strip_suffix('\n')
                .unwrap_or(inner),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_note_renders_in_the_one_marker_format_and_is_recognised() {
        let note = ContextFragment::hook_context("PreToolUse", "the branch is main");
        assert_eq!(
            note.render(),
            "<system-reminder>\nPreToolUse hook additional context: the branch is main\n</system-reminder>"
        );
        assert!(ContextFragment::is_rendered(&note.render()));
        assert_eq!(
            ContextFragment::parse(&note.render()),
            Some("PreToolUse hook additional context: the branch is main")
        );
        assert!(!ContextFragment::is_rendered(
            "please add a <system-reminder> tag"
        ));
        assert_eq!(ContextFragment::parse("plain words"), None);
    }
}
