//! The JSON a hook reads on stdin, field for field as Claude Code writes it (snake_case).
//!
//! Modelled as a common struct plus a flattened enum tagged by `hook_event_name`, one payload struct
//! per event. An enum (rather than a free-form map) makes it impossible to send a PreToolUse payload
//! without a `tool_name`, and gives the event and the match target from the input itself, so they can
//! never disagree with what the hook reads.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::hooks::event::HookEvent;

/// Everything a hook receives on stdin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HookInput {
    /// The session's identifier.
    pub session_id: String,
    /// Where the session transcript is stored.
    pub transcript_path: PathBuf,
    /// The session's working directory.
    pub cwd: PathBuf,
    /// The permission mode in Claude Code's spelling (`default`, `plan`, `acceptEdits`,
    /// `bypassPermissions`...), so existing scripts that branch on it keep working.
    pub permission_mode: String,
    /// The event and its own fields; serialized as `hook_event_name` plus those fields at top level.
    #[serde(flatten)]
    pub event: HookEventInput,
}

impl HookInput {
    /// The event this input belongs to.
    pub fn hook_event(&self) -> HookEvent {
        self.event.hook_event()
    }

    /// What this event's matchers are compared against, if anything.
    pub fn match_target(&self) -> Option<&str> {
        self.event.match_target()
    }
}

/// The event-specific part of [`HookInput`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "hook_event_name")]
pub enum HookEventInput {
    /// See [`HookEvent::PreToolUse`].
    PreToolUse(PreToolUseInput),
    /// See [`HookEvent::PostToolUse`].
    PostToolUse(PostToolUseInput),
    /// See [`HookEvent::PostToolUseFailure`].
    PostToolUseFailure(PostToolUseFailureInput),
    /// See [`HookEvent::PermissionRequest`].
    PermissionRequest(PermissionRequestInput),
    /// See [`HookEvent::PermissionDenied`].
    PermissionDenied(PermissionDeniedInput),
    /// See [`HookEvent::UserPromptSubmit`].
    UserPromptSubmit(UserPromptSubmitInput),
    /// See [`HookEvent::Stop`].
    Stop(StopInput),
    /// See [`HookEvent::SubagentStop`].
    SubagentStop(SubagentStopInput),
    /// See [`HookEvent::SessionStart`].
    SessionStart(SessionStartInput),
    /// See [`HookEvent::SessionEnd`].
    SessionEnd(SessionEndInput),
    /// See [`HookEvent::Notification`].
    Notification(NotificationInput),
    /// See [`HookEvent::PreCompact`].
    PreCompact(PreCompactInput),
}

impl HookEventInput {
    /// The event this payload belongs to.
    pub fn hook_event(&self) -> HookEvent {
        match self {
            HookEventInput::PreToolUse(_) => HookEvent::PreToolUse,
            HookEventInput::PostToolUse(_) => HookEvent::PostToolUse,
            HookEventInput::PostToolUseFailure(_) => HookEvent::PostToolUseFailure,
            HookEventInput::PermissionRequest(_) => HookEvent::PermissionRequest,
            HookEventInput::PermissionDenied(_) => HookEvent::PermissionDenied,
            HookEventInput::UserPromptSubmit(_) => HookEvent::UserPromptSubmit,
            HookEventInput::Stop(_) => HookEvent::Stop,
            HookEventInput::SubagentStop(_) => HookEvent::SubagentStop,
            HookEventInput::SessionStart(_) => HookEvent::SessionStart,
            HookEventInput::SessionEnd(_) => HookEvent::SessionEnd,
            HookEventInput::Notification(_) => HookEvent::Notification,
            HookEventInput::PreCompact(_) => HookEvent::PreCompact,
        }
    }

    /// The string matchers are compared against (see [`HookEvent::match_target_kind`]).
    pub fn match_target(&self) -> Option<&str> {
        match self {
            HookEventInput::PreToolUse(input) => Some(&input.tool_name),
            HookEventInput::PostToolUse(input) => Some(&input.tool_name),
            HookEventInput::PostToolUseFailure(input) => Some(&input.tool_name),
            HookEventInput::PermissionRequest(input) => Some(&input.tool_name),
            HookEventInput::PermissionDenied(input) => Some(&input.tool_name),
            HookEventInput::SessionStart(input) => Some(input.source.as_str()),
            HookEventInput::SessionEnd(input) => Some(input.reason.as_str()),
            HookEventInput::Notification(input) => Some(&input.notification_type),
            HookEventInput::PreCompact(input) => Some(input.trigger.as_str()),
            HookEventInput::UserPromptSubmit(_)
            | HookEventInput::Stop(_)
            | HookEventInput::SubagentStop(_) => None,
        }
    }
}

/// A tool call about to run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreToolUseInput {
    /// The tool's name (`Bash`, `mcp__server__tool`).
    pub tool_name: String,
    /// The arguments the model gave, after Nerve's own backfilling (absolute paths).
    pub tool_input: Value,
    /// The tool-use block's id.
    pub tool_use_id: String,
}

/// A tool call that succeeded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostToolUseInput {
    /// The tool's name.
    pub tool_name: String,
    /// The arguments the tool ran with.
    pub tool_input: Value,
    /// What the tool returned.
    pub tool_response: Value,
    /// The tool-use block's id.
    pub tool_use_id: String,
}

/// A tool call that failed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PostToolUseFailureInput {
    /// The tool's name.
    pub tool_name: String,
    /// The arguments the tool ran with.
    pub tool_input: Value,
    /// The tool-use block's id.
    pub tool_use_id: String,
    /// The error message.
    pub error: String,
    /// Whether the failure was the user interrupting the call.
    #[serde(default)]
    pub is_interrupt: bool,
}

/// A permission dialog about to be shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionRequestInput {
    /// The tool's name.
    pub tool_name: String,
    /// The arguments the permission is asked for.
    pub tool_input: Value,
    /// Rules the dialog would offer to remember ("always allow ..."), in Claude Code's shape.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permission_suggestions: Vec<Value>,
}

/// A tool call that was denied permission.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PermissionDeniedInput {
    /// The tool's name.
    pub tool_name: String,
    /// The arguments that were denied.
    pub tool_input: Value,
    /// The tool-use block's id.
    pub tool_use_id: String,
    /// Why permission was denied.
    pub reason: String,
}

/// A prompt the user submitted.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserPromptSubmitInput {
    /// The prompt text.
    pub prompt: String,
}

/// The main agent is about to stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StopInput {
    /// True when the agent is already continuing because a Stop hook blocked; scripts check it to
    /// avoid blocking forever.
    pub stop_hook_active: bool,
}

/// A sub-agent is about to stop.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SubagentStopInput {
    /// As in [`StopInput::stop_hook_active`].
    pub stop_hook_active: bool,
    /// The sub-agent's identifier, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    /// The sub-agent's own transcript, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_transcript_path: Option<PathBuf>,
}

/// A session starting.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionStartInput {
    /// How it started; SessionStart matchers match on this.
    pub source: SessionStartSource,
    /// The model in use, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

/// How a session started.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionStartSource {
    /// A fresh session.
    Startup,
    /// A resumed session.
    Resume,
    /// After the conversation was cleared.
    Clear,
    /// After the conversation was compacted.
    Compact,
}

impl SessionStartSource {
    /// The wire name, also the match target.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionStartSource::Startup => "startup",
            SessionStartSource::Resume => "resume",
            SessionStartSource::Clear => "clear",
            SessionStartSource::Compact => "compact",
        }
    }
}

/// A session ending.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SessionEndInput {
    /// Why it ended; SessionEnd matchers match on this.
    pub reason: SessionEndReason,
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SessionEndReason {
    /// The conversation was cleared.
    Clear,
    /// The user logged out.
    Logout,
    /// The user left the prompt.
    PromptInputExit,
    /// Anything else.
    Other,
}

impl SessionEndReason {
    /// The wire name, also the match target.
    pub fn as_str(self) -> &'static str {
        match self {
            SessionEndReason::Clear => "clear",
            SessionEndReason::Logout => "logout",
            SessionEndReason::PromptInputExit => "prompt_input_exit",
            SessionEndReason::Other => "other",
        }
    }
}

/// A notification for the user.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NotificationInput {
    /// The notification text.
    pub message: String,
    /// Its title, when it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Its kind (`permission_prompt`, `idle_prompt`...); Notification matchers match on this.
    pub notification_type: String,
}

/// Compaction about to happen.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PreCompactInput {
    /// What triggered it; PreCompact matchers match on this.
    pub trigger: CompactTrigger,
    /// The user's instructions for a manual compaction (empty for automatic ones).
    pub custom_instructions: String,
}

/// What triggered compaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CompactTrigger {
    /// The user asked for it.
    Manual,
    /// The context window filled up.
    Auto,
}

impl CompactTrigger {
    /// The wire name, also the match target.
    pub fn as_str(self) -> &'static str {
        match self {
            CompactTrigger::Manual => "manual",
            CompactTrigger::Auto => "auto",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn common(event: HookEventInput) -> HookInput {
        HookInput {
            session_id: "s-1".to_owned(),
            transcript_path: PathBuf::from("/tmp/t.jsonl"),
            cwd: PathBuf::from("/work/p"),
            permission_mode: "default".to_owned(),
            event,
        }
    }

    #[test]
    fn pre_tool_use_serializes_flat_like_claude_code() {
        let input = common(HookEventInput::PreToolUse(PreToolUseInput {
            tool_name: "Bash".to_owned(),
            tool_input: json!({"command": "ls"}),
            tool_use_id: "toolu_1".to_owned(),
        }));
        let value = serde_json::to_value(&input).unwrap();
        assert_eq!(
            value,
            json!({
                "session_id": "s-1",
                "transcript_path": "/tmp/t.jsonl",
                "cwd": "/work/p",
                "permission_mode": "default",
                "hook_event_name": "PreToolUse",
                "tool_name": "Bash",
                "tool_input": {"command": "ls"},
                "tool_use_id": "toolu_1"
            })
        );
        assert_eq!(serde_json::from_value::<HookInput>(value).unwrap(), input);
        assert_eq!(input.hook_event(), HookEvent::PreToolUse);
        assert_eq!(input.match_target(), Some("Bash"));
    }

    #[test]
    fn post_tool_use_failure_carries_error() {
        let input = common(HookEventInput::PostToolUseFailure(PostToolUseFailureInput {
            tool_name: "Edit".to_owned(),
            tool_input: json!({}),
            tool_use_id: "t".to_owned(),
            error: "file not found".to_owned(),
            is_interrupt: false,
        }));
        let value = serde_json::to_value(&input).unwrap();
        assert_eq!(value["hook_event_name"], json!("PostToolUseFailure"));
        assert_eq!(value["error"], json!("file not found"));
        assert_eq!(serde_json::from_value::<HookInput>(value).unwrap(), input);
    }

    #[test]
    fn non_tool_events_give_their_match_targets() {
        let start = common(HookEventInput::SessionStart(SessionStartInput {
            source: SessionStartSource::Resume,
            model: None,
        }));
        assert_eq!(start.match_target(), Some("resume"));
        assert_eq!(serde_json::to_value(&start).unwrap()["source"], json!("resume"));

        let compact = common(HookEventInput::PreCompact(PreCompactInput {
            trigger: CompactTrigger::Auto,
            custom_instructions: String::new(),
        }));
        assert_eq!(compact.match_target(), Some("auto"));

        let end = common(HookEventInput::SessionEnd(SessionEndInput {
            reason: SessionEndReason::PromptInputExit,
        }));
        assert_eq!(end.match_target(), Some("prompt_input_exit"));
        assert_eq!(
            serde_json::to_value(&end).unwrap()["reason"],
            json!("prompt_input_exit")
        );

        let prompt = common(HookEventInput::UserPromptSubmit(UserPromptSubmitInput {
            prompt: "hi".to_owned(),
        }));
        assert_eq!(prompt.match_target(), None);
        assert_eq!(prompt.hook_event(), HookEvent::UserPromptSubmit);
    }

    #[test]
    fn reads_claude_code_stop_input_with_extra_fields() {
        let value = json!({
            "session_id": "abc", "transcript_path": "/t", "cwd": "/c",
            "permission_mode": "plan", "hook_event_name": "Stop",
            "stop_hook_active": true, "some_future_field": 1
        });
        assert_eq!(
            serde_json::from_value::<HookInput>(value).unwrap(),
            HookInput {
                session_id: "abc".to_owned(),
                transcript_path: PathBuf::from("/t"),
                cwd: PathBuf::from("/c"),
                permission_mode: "plan".to_owned(),
                event: HookEventInput::Stop(StopInput {
                    stop_hook_active: true
                }),
            }
        );
    }
}
