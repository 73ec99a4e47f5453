//! Errors from reading and writing settings files.

use std::path::PathBuf;

/// Why settings could not be loaded or written. Every variant names the file.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file exists but could not be read.
    #[error(
        "could not read settings file {path}: {source}; fix its permissions or remove it \
         (Nerve does not run with a settings file it cannot read)"
    )]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid JSON, has a value of the wrong type, an invalid rule or an unknown mode.
    #[error(
        "settings file {path}:{line}:{column} is invalid: {message}. Fix that entry; Nerve refuses \
         to skip part of a settings file, since skipping a deny rule would allow more"
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What was wrong and what was expected.
        message: String,
    },
    /// The file is valid JSON but not shaped so that rules can be added to it.
    #[error("cannot change settings file {path}: {message}; fix the file by hand first")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What was found instead of what was expected.
        message: String,
    },
    /// The file could not be written.
    #[error("could not write settings file {path}: {source}; the file was left unchanged")]
    Write {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A rule to write does not parse.
    #[error("{source}")]
    Rule {
        /// The file it was meant for.
        path: PathBuf,
        /// What is wrong with the rule.
        source: crate::permissions::rule::RuleParseError,
    },
    /// The rule to remove or replace is not in the file (it changed since it was shown).
    #[error(
        "settings file {path} has no {behavior} rule `{rule}` (the file changed since it was read); reload and try again"
    )]
    RuleNotFound {
        /// The file.
        path: PathBuf,
        /// The list looked in.
        behavior: crate::permissions::rule::RuleBehavior,
        /// The rule as given.
        rule: String,
    },
    /// The source's rules do not live in a file the user may edit (managed policy, the command
    /// line, the session).
    #[error("{} rules cannot be edited here: they do not live in a settings file you own", from.as_str())]
    NotEditable {
        /// The rules' source.
        from: crate::permissions::rule::RuleSource,
    },
}

impl SettingsError {
    /// An [`SettingsError::Invalid`] from a serde_json error, without repeating the position that
    /// serde_json appends to its own message.
    pub(crate) fn invalid(path: PathBuf, error: &serde_json::Error) -> Self {
        let full = error.to_string();
        let suffix = format!(" at line {} column {}", error.line(), error.column());
        let message = full.strip_suffix(&suffix).unwrap_or(&full).to_string();
        SettingsError::Invalid {
            path,
            line: error.line(),
            column: error.column(),
            message,
        }
    }
}
