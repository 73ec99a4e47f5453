//! Errors found while reading the `hooks` section of a settings file.
//!
//! Every error names the settings file and the path inside its JSON, because a hook that silently
//! disappears is worse than a configuration that refuses to load: the user believes a guard is running.

use std::fmt;

use crate::hooks::matcher::InvalidMatcher;

/// One problem in one place of one settings file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_label}: {path}: {problem}")]
pub struct HookConfigError {
    /// The label of the settings file (usually its path), as given by the caller.
    pub source_label: String,
    /// Where inside the file, e.g. `hooks.PreToolUse[0].hooks[1].timeout`.
    pub path: String,
    /// What is wrong there.
    pub problem: HookConfigProblem,
}

/// What is wrong at one place of the `hooks` section.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookConfigProblem {
    /// The value has the wrong JSON type.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What the settings format requires here.
        expected: &'static str,
        /// The JSON type found instead.
        found: &'static str,
    },
    /// An event name that Nerve does not know (names are case-sensitive).
    #[error("unknown hook event {name:?}; known events are: {known}")]
    UnknownEvent {
        /// The name as written.
        name: String,
        /// The accepted names, comma-separated.
        known: String,
    },
    /// A required field is absent.
    #[error("missing required field {field:?}")]
    MissingField {
        /// The field's name.
        field: &'static str,
    },
    /// A field Nerve does not understand; running the hook without it could change its meaning.
    #[error(
        "field {field:?} is not supported by Nerve (supported: {supported}); remove it or move the logic into the command"
    )]
    UnsupportedField {
        /// The field's name.
        field: String,
        /// The fields accepted at this place, comma-separated.
        supported: &'static str,
    },
    /// A hook `type` other than `command`.
    #[error(
        "hook type {kind:?} is not supported by Nerve, only \"command\" hooks run; rewrite it as a command hook or remove it"
    )]
    UnsupportedType {
        /// The type as written.
        kind: String,
    },
    /// The matcher is neither a name list nor a valid regular expression.
    #[error(transparent)]
    InvalidMatcher(#[from] InvalidMatcher),
    /// The timeout is not a positive, representable number of seconds.
    #[error("timeout must be a positive number of seconds, found {found}")]
    InvalidTimeout {
        /// The value as written.
        found: String,
    },
    /// The command is empty or only whitespace.
    #[error("command is empty; give the shell command to run")]
    EmptyCommand,
}

/// All problems found in one settings file's `hooks` section (never empty when returned as an error).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub struct HookConfigErrors(pub Vec<HookConfigError>);

impl fmt::Display for HookConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let count = self.0.len();
        writeln!(
            f,
            "hook configuration rejected ({count} problem{}); no hooks from it will run until it is fixed:",
            if count == 1 { "" } else { "s" }
        )?;
        for error in &self.0 {
            writeln!(f, "  - {error}")?;
        }
        Ok(())
    }
}

/// The JSON type name of a value, for error messages.
pub(crate) fn json_type_name(value: &serde_json::Value) -> &'static str {
    match value {
        serde_json::Value::Null => "null",
        serde_json::Value::Bool(_) => "a boolean",
        serde_json::Value::Number(_) => "a number",
        serde_json::Value::String(_) => "a string",
        serde_json::Value::Array(_) => "an array",
        serde_json::Value::Object(_) => "an object",
    }
}
