//! The pipeline's hook steps: building each event's input, running the hooks, and reading their
//! combined outcome as data the pipeline acts on.

use serde_json::Value;

use crate::hooks::input::{
    PermissionDeniedInput, PermissionRequestInput, PostToolUseFailureInput, PostToolUseInput, PreToolUseInput,
};
use crate::hooks::{HookConfig, HookEventInput, HookInput, HookOutcome, Verdict, run_hooks};
use crate::permissions::{DecidedBy, HookPermission, Resolution};
use crate::tool::ToolUseContext;

/// What PreToolUse hooks decided.
pub(crate) enum PreHookEffect {
    /// Go on, with the hooks' permission decision if any.
    Continue { decision: Option<HookPermission> },
    /// The call is blocked (exit code 2 or `decision: "block"`); the reason goes to the model.
    Block { reason: String },
    /// The hooks asked to stop the agent.
    Stop { reason: String },
}

/// PreToolUse hooks' full result.
pub(crate) struct PreHookResult {
    pub effect: PreHookEffect,
    pub updated_input: Option<Value>,
    pub context: Vec<String>,
    pub notices: Vec<String>,
}

/// What PostToolUse hooks decided.
pub(crate) enum PostHookEffect {
    None,
    /// Feedback for the model (`decision: "block"` or exit code 2 after the call).
    Feedback {
        reason: String,
    },
    /// Stop the agent after this call.
    Stop {
        reason: String,
    },
}

/// PostToolUse hooks' full result.
pub(crate) struct PostHookResult {
    pub effect: PostHookEffect,
    pub replaced_output: Option<String>,
    pub context: Vec<String>,
    pub notices: Vec<String>,
}

fn hook_input(ctx: &ToolUseContext, event: HookEventInput) -> HookInput {
    HookInput {
        session_id: ctx.config.session_id.clone(),
        transcript_path: ctx.config.transcript_path.clone(),
        cwd: ctx.exec.cwd.clone(),
        permission_mode: ctx.permissions.mode.as_str().to_string(),
        event,
    }
}

/// Notification hooks (a desktop notifier, for example when a permission prompt is shown); what
/// they answer changes nothing.
pub(crate) async fn notification(hooks: &HookConfig, ctx: &ToolUseContext, kind: &str, message: &str) {
    if hooks.is_empty() {
        return;
    }
    let event = HookEventInput::Notification(crate::hooks::input::NotificationInput {
        message: message.to_string(),
        title: Some("Nerve".into()),
        notification_type: kind.to_string(),
    });
    run(hooks, ctx, event).await;
}

pub(crate) async fn run(hooks: &HookConfig, ctx: &ToolUseContext, event: HookEventInput) -> HookOutcome {
    let input = hook_input(ctx, event);
    run_hooks(hooks, &input, &ctx.config.project_dir, ctx.exec.cancel.clone())
        .await
        .outcome
}

fn notices(outcome: &HookOutcome, event: &str) -> Vec<String> {
    let mut out: Vec<String> = outcome.system_messages.iter().map(|m| m.value.clone()).collect();
    out.extend(outcome.transcript_output.iter().map(|m| m.value.clone()));
    out.extend(
        outcome
            .errors
            .iter()
            .map(|e| format!("{event} hook `{}` {}", e.origin.command, e.value)),
    );
    out
}

fn stop_reason(outcome: &HookOutcome) -> Option<String> {
    outcome.stops.first().map(|s| {
        s.value
            .reason
            .clone()
            .unwrap_or_else(|| "a hook stopped the agent".into())
    })
}

fn joined_reasons(reasons: impl Iterator<Item = Option<String>>) -> String {
    let list: Vec<String> = reasons.flatten().filter(|r| !r.trim().is_empty()).collect();
    if list.is_empty() {
        "no reason given".into()
    } else {
        list.join("; ")
    }
}

/// Runs PreToolUse hooks.
pub(crate) async fn pre_tool_use(
    hooks: &HookConfig,
    tool_name: &str,
    tool_use_id: &str,
    observable: &Value,
    ctx: &ToolUseContext,
) -> PreHookResult {
    if hooks.is_empty() {
        return PreHookResult {
            effect: PreHookEffect::Continue { decision: None },
            updated_input: None,
            context: Vec::new(),
            notices: Vec::new(),
        };
    }
    let outcome = run(
        hooks,
        ctx,
        HookEventInput::PreToolUse(PreToolUseInput {
            tool_name: tool_name.into(),
            tool_input: observable.clone(),
            tool_use_id: tool_use_id.into(),
        }),
    )
    .await;
    let notices = notices(&outcome, "PreToolUse");
    let context = outcome
        .additional_context
        .iter()
        .map(|c| c.value.clone())
        .collect();
    let updated_input = outcome
        .updated_input
        .as_ref()
        .map(|u| Value::Object(u.value.clone()));
    let effect = if let Some(reason) = stop_reason(&outcome) {
        PreHookEffect::Stop { reason }
    } else if !outcome.blocks.is_empty() {
        PreHookEffect::Block {
            reason: joined_reasons(outcome.blocks.iter().map(|b| Some(b.value.reason.clone()))),
        }
    } else {
        let decision = outcome.permission.map(|v| {
            let reason = joined_reasons(v.voters.iter().map(|voter| voter.value.clone()));
            match v.decision {
                Verdict::Allow => HookPermission::Allow { reason },
                Verdict::Ask => HookPermission::Ask { reason },
                Verdict::Deny => HookPermission::Deny { reason },
            }
        });
        PreHookEffect::Continue { decision }
    };
    PreHookResult {
        effect,
        updated_input,
        context,
        notices,
    }
}

/// Runs PostToolUse hooks (PostToolUseFailure for error results).
pub(crate) async fn post_tool_use(
    hooks: &HookConfig,
    tool_name: &str,
    tool_use_id: &str,
    observable: &Value,
    response: &Value,
    is_error: bool,
    ctx: &ToolUseContext,
) -> PostHookResult {
    if hooks.is_empty() {
        return PostHookResult {
            effect: PostHookEffect::None,
            replaced_output: None,
            context: Vec::new(),
            notices: Vec::new(),
        };
    }
    let (event, label) = if is_error {
        let error = match response {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        (
            HookEventInput::PostToolUseFailure(PostToolUseFailureInput {
                tool_name: tool_name.into(),
                tool_input: observable.clone(),
                tool_use_id: tool_use_id.into(),
                error,
                is_interrupt: ctx.is_cancelled(),
            }),
            "PostToolUseFailure",
        )
    } else {
        (
            HookEventInput::PostToolUse(PostToolUseInput {
                tool_name: tool_name.into(),
                tool_input: observable.clone(),
                tool_response: response.clone(),
                tool_use_id: tool_use_id.into(),
            }),
            "PostToolUse",
        )
    };
    let outcome = run(hooks, ctx, event).await;
    let notices = notices(&outcome, label);
    let context = outcome
        .additional_context
        .iter()
        .map(|c| c.value.clone())
        .collect();
    let replaced_output = outcome.updated_tool_output.as_ref().map(|o| match &o.value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let effect = if let Some(reason) = stop_reason(&outcome) {
        PostHookEffect::Stop { reason }
    } else if !outcome.blocks.is_empty() {
        PostHookEffect::Feedback {
            reason: joined_reasons(outcome.blocks.iter().map(|b| Some(b.value.reason.clone()))),
        }
    } else {
        PostHookEffect::None
    };
    PostHookResult {
        effect,
        replaced_output,
        context,
        notices,
    }
}

/// Runs PermissionDenied hooks (informational: they cannot undo a denial).
pub(crate) async fn permission_denied(
    hooks: &HookConfig,
    tool_name: &str,
    tool_use_id: &str,
    observable: &Value,
    reason: &str,
    ctx: &ToolUseContext,
) {
    if hooks.is_empty() {
        return;
    }
    let outcome = run(
        hooks,
        ctx,
        HookEventInput::PermissionDenied(PermissionDeniedInput {
            tool_name: tool_name.into(),
            tool_input: observable.clone(),
            tool_use_id: tool_use_id.into(),
            reason: reason.into(),
        }),
    )
    .await;
    for n in notices(&outcome, "PermissionDenied") {
        tracing::info!(notice = %n, "PermissionDenied hook");
    }
}

/// Runs PermissionRequest hooks, which may answer the dialog in place of the user.
pub async fn permission_request_hooks(
    hooks: &HookConfig,
    tool_name: &str,
    _tool_use_id: &str,
    observable: &Value,
    ctx: &ToolUseContext,
) -> Option<Resolution> {
    if hooks.is_empty() {
        return None;
    }
    let outcome = run(
        hooks,
        ctx,
        HookEventInput::PermissionRequest(PermissionRequestInput {
            tool_name: tool_name.into(),
            tool_input: observable.clone(),
            permission_suggestions: Vec::new(),
        }),
    )
    .await;
    let verdict = outcome.permission?;
    let reason = joined_reasons(verdict.voters.iter().map(|v| v.value.clone()));
    match verdict.decision {
        Verdict::Allow => Some(Resolution::Allow {
            updated_input: outcome.updated_input.map(|u| Value::Object(u.value)),
            user_modified: false,
            engine_input: None,
            decided_by: DecidedBy::Hook,
        }),
        Verdict::Deny => Some(Resolution::Deny {
            message: format!(
                "Permission to use {tool_name} was denied by a PermissionRequest hook: {reason}."
            ),
            decided_by: DecidedBy::Hook,
        }),
        Verdict::Ask => None,
    }
}
