//! The lifecycle points at which hooks run, named exactly as Claude Code names them in settings files.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A lifecycle point at which configured hooks run.
///
/// The serde names are the keys of the `hooks` object in a settings file and the value of
/// `hook_event_name` in a hook's input, so existing Claude Code configurations and scripts keep working.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum HookEvent {
    /// Before a tool call runs; hooks may allow, deny, ask, rewrite the input or block the call.
    PreToolUse,
    /// After a tool call succeeded; hooks may feed feedback to the model.
    PostToolUse,
    /// After a tool call failed.
    PostToolUseFailure,
    /// When a permission dialog is about to be shown; hooks may answer it instead of the user.
    PermissionRequest,
    /// After a tool call was denied permission.
    PermissionDenied,
    /// When the user submits a prompt, before the model sees it.
    UserPromptSubmit,
    /// When the main agent is about to finish its turn.
    Stop,
    /// When a sub-agent is about to finish.
    SubagentStop,
    /// When a session starts or resumes.
    SessionStart,
    /// When a session ends.
    SessionEnd,
    /// When Nerve sends the user a notification.
    Notification,
    /// Before the conversation is compacted.
    PreCompact,
}

/// What a hook's `matcher` is compared against for an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MatchTargetKind {
    /// The tool's name (`Bash`, `mcp__github__create_issue`).
    ToolName,
    /// How the session started: `startup`, `resume`, `clear` or `compact`.
    SessionStartSource,
    /// Why the session ended: `clear`, `logout`, `prompt_input_exit` or `other`.
    SessionEndReason,
    /// What triggered compaction: `manual` or `auto`.
    CompactTrigger,
    /// The notification's type (for example `permission_prompt`, `idle_prompt`).
    NotificationType,
    /// The event has nothing to match: every configured group runs and its matcher is ignored.
    Nothing,
}

impl HookEvent {
    /// Every event, in the order Claude Code documents them.
    pub const ALL: [HookEvent; 12] = [
        HookEvent::PreToolUse,
        HookEvent::PostToolUse,
        HookEvent::PostToolUseFailure,
        HookEvent::PermissionRequest,
        HookEvent::PermissionDenied,
        HookEvent::UserPromptSubmit,
        HookEvent::Stop,
        HookEvent::SubagentStop,
        HookEvent::SessionStart,
        HookEvent::SessionEnd,
        HookEvent::Notification,
        HookEvent::PreCompact,
    ];

    /// The name used in settings files and in `hook_event_name`.
    pub fn as_str(self) -> &'static str {
        match self {
            HookEvent::PreToolUse => "PreToolUse",
            HookEvent::PostToolUse => "PostToolUse",
            HookEvent::PostToolUseFailure => "PostToolUseFailure",
            HookEvent::PermissionRequest => "PermissionRequest",
            HookEvent::PermissionDenied => "PermissionDenied",
            HookEvent::UserPromptSubmit => "UserPromptSubmit",
            HookEvent::Stop => "Stop",
            HookEvent::SubagentStop => "SubagentStop",
            HookEvent::SessionStart => "SessionStart",
            HookEvent::SessionEnd => "SessionEnd",
            HookEvent::Notification => "Notification",
            HookEvent::PreCompact => "PreCompact",
        }
    }

    /// Parses a settings-file event name; names are case-sensitive, as in Claude Code.
    pub fn from_name(name: &str) -> Option<HookEvent> {
        HookEvent::ALL.into_iter().find(|event| event.as_str() == name)
    }

    /// What this event's matchers are compared against.
    pub fn match_target_kind(self) -> MatchTargetKind {
        match self {
            HookEvent::PreToolUse
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::PermissionRequest
            | HookEvent::PermissionDenied => MatchTargetKind::ToolName,
            HookEvent::SessionStart => MatchTargetKind::SessionStartSource,
            HookEvent::SessionEnd => MatchTargetKind::SessionEndReason,
            HookEvent::PreCompact => MatchTargetKind::CompactTrigger,
            HookEvent::Notification => MatchTargetKind::NotificationType,
            HookEvent::UserPromptSubmit | HookEvent::Stop | HookEvent::SubagentStop => {
                MatchTargetKind::Nothing
            }
        }
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_round_trip_through_serde_and_from_name() {
        for event in HookEvent::ALL {
            let json = serde_json::to_value(event).unwrap();
            assert_eq!(json, serde_json::Value::String(event.as_str().to_owned()));
            assert_eq!(serde_json::from_value::<HookEvent>(json).unwrap(), event);
            assert_eq!(HookEvent::from_name(event.as_str()), Some(event));
        }
    }

    #[test]
    fn names_are_case_sensitive() {
        assert_eq!(HookEvent::from_name("pretooluse"), None);
        assert_eq!(HookEvent::from_name("PreToolUse "), None);
    }

    #[test]
    fn tool_events_match_on_tool_name_and_prompt_events_match_nothing() {
        assert_eq!(
            HookEvent::PreToolUse.match_target_kind(),
            MatchTargetKind::ToolName
        );
        assert_eq!(
            HookEvent::UserPromptSubmit.match_target_kind(),
            MatchTargetKind::Nothing
        );
        assert_eq!(
            HookEvent::SessionStart.match_target_kind(),
            MatchTargetKind::SessionStartSource
        );
    }
}
