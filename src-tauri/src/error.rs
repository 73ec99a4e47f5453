//! The error a command returns to the UI: a message for the user (the UI shows it as is).

use serde::Serialize;

/// A command's failure, serialised as its message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShellError(String);

impl ShellError {
    /// An error with this message.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl Serialize for ShellError {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

/// Any engine error becomes its message (engine errors are written for users).
pub fn to_shell(e: impl std::fmt::Display) -> ShellError {
    ShellError(e.to_string())
}
