//! The outcome of evaluating a call against rules and mode, with the explanation front-ends show.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::permissions::MatchedRule;

/// Allow, ask or deny.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Runs without asking.
    Allow,
    /// Someone must decide.
    Ask,
    /// Refused.
    Deny,
}

/// What decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A permission rule.
    Rule,
    /// A PreToolUse or PermissionRequest hook.
    Hook,
    /// The tool's own check.
    Tool,
    /// The permission mode.
    Mode,
    /// The call only reads inside the working directories.
    ReadOnly,
    /// A protected path (never pre-approved).
    ProtectedPath,
    /// A command the parser could not understand.
    Unparsed,
    /// The auto-mode classifier.
    Classifier,
    /// The user.
    User,
    /// Nothing pre-approves it.
    Default,
}

/// The verdict on one part of a shell command (or a redirection target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PartDecision {
    /// A deny rule matched.
    Denied,
    /// An ask rule matched.
    AskRule,
    /// An allow rule matched.
    AllowedByRule,
    /// Known to only read.
    ReadOnly,
    /// Neither reads nor writes.
    Neutral,
    /// Nothing pre-approves it.
    NeedsApproval,
}

/// One part of a command with its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PartVerdict {
    /// The simple command, or `> path` for a redirection target.
    pub part: String,
    /// Its verdict.
    pub decision: PartDecision,
    /// The rule that decided, if any.
    pub rule: Option<MatchedRule>,
}

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
