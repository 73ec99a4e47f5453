//! The JSON a hook may print on stdout when it exits with code 0, as Claude Code defines it (camelCase).
//!
//! Everything here is untrusted: unknown fields are ignored (newer scripts may send more), but a known
//! field with a wrong value (`"permissionDecision": "yes"`) makes the whole output invalid, and the
//! runner reports it instead of guessing what the hook meant.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::hooks::event::HookEvent;

/// A hook's structured answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookOutput {
    /// `continue`: false asks Nerve to stop the agent after this event (default true).
    #[serde(rename = "continue", default = "yes")]
    pub should_continue: bool,
    /// Shown to the user when `continue` is false.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    /// Hide this hook's stdout from the transcript.
    #[serde(default)]
    pub suppress_output: bool,
    /// A warning shown to the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_message: Option<String>,
    /// Top-level decision: `block` for most events, legacy `approve` for PreToolUse.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<TopLevelDecision>,
    /// Why, for `decision`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Event-specific fields.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_specific_output: Option<HookSpecificOutput>,
}

impl Default for HookOutput {
    fn default() -> HookOutput {
        HookOutput {
            should_continue: true,
            stop_reason: None,
            suppress_output: false,
            system_message: None,
            decision: None,
            reason: None,
            hook_specific_output: None,
        }
    }
}

fn yes() -> bool {
    true
}

/// The top-level `decision` field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TopLevelDecision {
    /// Block: deny the tool call (PreToolUse), feed `reason` to the model (PostToolUse), reject the
    /// prompt (UserPromptSubmit) or keep the agent working (Stop, SubagentStop).
    Block,
    /// Legacy PreToolUse spelling of `permissionDecision: "allow"`; ignored for other events.
    Approve,
}

/// `hookSpecificOutput`.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HookSpecificOutput {
    /// Which event this output is for; when present it must equal the running event.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hook_event_name: Option<HookEvent>,
    /// PreToolUse: the permission decision.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision: Option<Verdict>,
    /// PreToolUse: why (shown to the model on deny, to the user on allow/ask).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permission_decision_reason: Option<String>,
    /// PreToolUse: replacement tool input (a JSON object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    /// Text added to the model's context (UserPromptSubmit, SessionStart, PreToolUse, PostToolUse...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub additional_context: Option<String>,
    /// PermissionRequest: the answer to the permission dialog.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decision: Option<PermissionRequestDecision>,
    /// PostToolUse: replacement output for MCP tools.
    #[serde(
        rename = "updatedMCPToolOutput",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_mcp_tool_output: Option<Value>,
}

/// A PreToolUse hook's `permissionDecision` (`"allow"`, `"ask"`, `"deny"`) is the engine's one
/// Allow/Ask/Deny type, whose order is the precedence when hooks disagree (`Deny` beats `Ask` beats
/// `Allow`).
pub use nerve_protocol::Verdict;

/// `hookSpecificOutput.decision` for PermissionRequest.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionRequestDecision {
    /// Allow or deny in place of the user.
    pub behavior: PermissionBehavior,
    /// With `allow`: replacement tool input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub updated_input: Option<Map<String, Value>>,
    /// With `deny`: why, told to the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// With `deny`: also stop the agent.
    #[serde(default)]
    pub interrupt: bool,
}

/// What a PermissionRequest hook answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PermissionBehavior {
    /// Grant the permission.
    Allow,
    /// Refuse it.
    Deny,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn empty_object_means_continue_and_nothing_else() {
        let output: HookOutput = serde_json::from_value(json!({})).unwrap();
        assert_eq!(output, HookOutput::default());
        assert!(output.should_continue);
    }

    #[test]
    fn reads_a_full_pre_tool_use_answer() {
        let output: HookOutput = serde_json::from_value(json!({
            "continue": false,
            "stopReason": "budget exhausted",
            "suppressOutput": true,
            "systemMessage": "careful",
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "no rm",
                "updatedInput": {"command": "ls"},
                "additionalContext": "ctx"
            },
            "unknownFutureField": [1, 2]
        }))
        .unwrap();
        let mut updated = Map::new();
        updated.insert("command".to_owned(), json!("ls"));
        assert_eq!(
            output,
            HookOutput {
                should_continue: false,
                stop_reason: Some("budget exhausted".to_owned()),
                suppress_output: true,
                system_message: Some("careful".to_owned()),
                decision: None,
                reason: None,
                hook_specific_output: Some(HookSpecificOutput {
                    hook_event_name: Some(HookEvent::PreToolUse),
                    permission_decision: Some(Verdict::Deny),
                    permission_decision_reason: Some("no rm".to_owned()),
                    updated_input: Some(updated),
                    additional_context: Some("ctx".to_owned()),
                    decision: None,
                    updated_mcp_tool_output: None,
                }),
            }
        );
    }

    #[test]
    fn reads_permission_request_decision() {
        let output: HookOutput = serde_json::from_value(json!({
            "hookSpecificOutput": {
                "hookEventName": "PermissionRequest",
                "decision": {"behavior": "deny", "message": "not on main", "interrupt": true}
            }
        }))
        .unwrap();
        assert_eq!(
            output.hook_specific_output.and_then(|s| s.decision),
            Some(PermissionRequestDecision {
                behavior: PermissionBehavior::Deny,
                updated_input: None,
                message: Some("not on main".to_owned()),
                interrupt: true,
            })
        );
    }

    #[test]
    fn wrong_values_for_known_fields_are_rejected() {
        for bad in [
            json!({"decision": "maybe"}),
            json!({"hookSpecificOutput": {"permissionDecision": "Allow"}}),
            json!({"hookSpecificOutput": {"updatedInput": "ls"}}),
            json!({"hookSpecificOutput": {"hookEventName": "Bogus"}}),
            json!({"continue": "no"}),
        ] {
            assert!(
                serde_json::from_value::<HookOutput>(bad.clone()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn precedence_order_is_deny_over_ask_over_allow() {
        assert!(Verdict::Deny > Verdict::Ask);
        assert!(Verdict::Ask > Verdict::Allow);
    }
}
