//! What a tool itself thinks of a call, before the general rules decide.

/// A tool-specific permission opinion, consulted after hooks and rules have had their say.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolPermission {
    /// The tool has no objection of its own; the general system decides.
    Passthrough,
    /// The tool allows this input outright (for example a read-only command).
    Allow {
        /// Why, shown to the user and recorded.
        reason: String,
    },
    /// The tool wants the user asked even where a mode would allow (for example an unparseable command).
    Ask {
        /// Why, shown in the prompt.
        reason: String,
    },
    /// The tool refuses this input.
    Deny {
        /// Why, sent to the model.
        reason: String,
    },
}
