//! Telemetry-safe error classes. Raw error text may hold paths, secrets or model-controlled strings,
//! so telemetry fields only ever get one of these stable names.

use crate::tool::ToolError;

/// A stable, telemetry-safe description of why a call failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorClass {
    /// The tool name is unknown.
    UnknownTool,
    /// The input did not match the schema or failed a semantic check.
    Validation,
    /// A hook or the permission system refused the call.
    Permission,
    /// A hook stopped or blocked the call.
    Hook,
    /// The call ran out of time.
    Timeout,
    /// The call was cancelled.
    Cancelled,
    /// An I/O error of this kind, with the OS error number when there is one.
    Io(std::io::ErrorKind, Option<i32>),
    /// The tool ran and reported a failure.
    Tool,
}

impl ErrorClass {
    /// Classifies a tool error.
    pub fn of(error: &ToolError) -> Self {
        match error {
            ToolError::InvalidInput(_) => Self::Validation,
            ToolError::Io { source, .. } => Self::Io(source.kind(), source.raw_os_error()),
            ToolError::Cancelled(_) => Self::Cancelled,
            ToolError::Timeout(_) => Self::Timeout,
            ToolError::Failed(_) | ToolError::WithContent(_) | ToolError::WithSavedOutput { .. } => {
                Self::Tool
            }
        }
    }

    /// The class as a short stable string ("io:NotFound:2", "timeout").
    pub fn as_telemetry(&self) -> String {
        match self {
            Self::UnknownTool => "unknown_tool".into(),
            Self::Validation => "validation".into(),
            Self::Permission => "permission".into(),
            Self::Hook => "hook".into(),
            Self::Timeout => "timeout".into(),
            Self::Cancelled => "cancelled".into(),
            Self::Io(kind, Some(errno)) => format!("io:{kind:?}:{errno}"),
            Self::Io(kind, None) => format!("io:{kind:?}"),
            Self::Tool => "tool".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn io_errors_keep_kind_and_errno_only() {
        let err = ToolError::io("reading /secret/path", std::io::Error::from_raw_os_error(2));
        let class = ErrorClass::of(&err);
        assert_eq!(class.as_telemetry(), "io:NotFound:2");
        assert!(!class.as_telemetry().contains("secret"));
    }

    #[test]
    fn each_variant_has_a_class() {
        assert_eq!(ErrorClass::of(&ToolError::Timeout(5)), ErrorClass::Timeout);
        assert_eq!(
            ErrorClass::of(&ToolError::Cancelled("x".into())),
            ErrorClass::Cancelled
        );
        assert_eq!(
            ErrorClass::of(&ToolError::InvalidInput("x".into())),
            ErrorClass::Validation
        );
        assert_eq!(ErrorClass::of(&ToolError::Failed("x".into())), ErrorClass::Tool);
    }
}
