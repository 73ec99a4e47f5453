//! The outcome of evaluating a call against rules and mode, with the explanation front-ends show.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use nerve_protocol::permission::{DecidedBy, PartDecision, PartVerdict, Verdict};

use crate::permissions::MatchedRule;

/// The static evaluation of a call (everything before anyone is asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Evaluation {
    /// The verdict.
    pub decision: Verdict,
    /// What decided.
    pub decided_by: DecidedBy,
    /// Why, in a sentence for the user and the model.
    pub reason: String,
    /// The deciding rule, if a rule decided.
    pub rule: Option<MatchedRule>,
    /// For shell commands, every part with its verdict.
    pub parts: Vec<PartVerdict>,
    /// "Always allow" suggestions (for asks).
    pub suggestions: Vec<String>,
    /// Why the suggestions are narrower than usual, or absent (a call that may destroy data).
    #[serde(default)]
    pub suggestion_note: Option<String>,
    /// For an ask: whether the auto-mode classifier may settle it (a default ask, or asks about
    /// protected paths it may judge); asks from rules, hooks, the tool or an unparsed command go to
    /// the user.
    #[serde(default)]
    pub classifier_approvable: bool,
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
