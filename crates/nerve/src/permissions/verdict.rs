//! The outcome of evaluating a call against rules and mode, with the explanation front-ends show.

pub use nerve_protocol::permission::Evaluation;

use serde_json::Value;

pub use nerve_protocol::permission::{DecidedBy, PartDecision, PartVerdict, Verdict};

/// What allowed a call, in words (the transcript's record of the decision).
pub fn allowed_by_words(by: DecidedBy) -> &'static str {
    match by {
        DecidedBy::Rule => "allowed by a permission rule",
        DecidedBy::Hook => "allowed by a hook",
        DecidedBy::Tool => "allowed by the tool's own check",
        DecidedBy::Mode => "allowed by the permission mode",
        DecidedBy::ReadOnly => "allowed: it only reads inside the working directories",
        DecidedBy::ProtectedPath => "allowed by the user for a protected path",
        DecidedBy::Unparsed => "allowed by the user for a command that could not be parsed",
        DecidedBy::Classifier => "allowed by the auto-mode classifier",
        DecidedBy::User => "allowed by the user",
        DecidedBy::Default => "allowed",
    }
}

/// The final answer for a call, after prompts and classifier.
#[derive(Debug, Clone, PartialEq)]
pub enum Resolution {
    /// Run it, with the input as possibly edited by the user or a hook.
    Allow {
        /// Replacement input, if any.
        updated_input: Option<Value>,
        /// Whether the user changed the input (the model is told).
        user_modified: bool,
        /// Engine-only input fields the resolver itself computed for the approved input (a previewed
        /// sed edit). Kept apart from `updated_input`, whose engine-only fields are always stripped
        /// because it comes from outside; the pipeline merges these only when the input that runs is
        /// the one the preview was made for.
        engine_input: Option<serde_json::Map<String, Value>>,
        /// What decided.
        decided_by: DecidedBy,
    },
    /// Do not run it; `message` goes to the model.
    Deny {
        /// For the model.
        message: String,
        /// What decided.
        decided_by: DecidedBy,
    },
}
