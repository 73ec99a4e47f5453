//! Session-level hooks (UserPromptSubmit, Stop, SessionStart, SessionEnd): events of the agent loop,
//! from the same settings and with the same JSON protocol as the tool hooks. (Notification belongs
//! to the pipeline, which shows the permission prompt it announces: `pipeline::hook_steps`.)

use crate::hooks::HookEventInput;
use crate::hooks::input::{
    SessionEndInput, SessionEndReason, SessionStartInput, SessionStartSource, StopInput,
    UserPromptSubmitInput,
};
use crate::hooks::{HookConfig, HookOutcome};
use crate::pipeline::hook_steps::run;
use crate::tool::ToolUseContext;

/// What the hooks of one session event decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionHookResult {
    /// Text for the model's context.
    pub context: Vec<String>,
    /// A block (exit 2 or `decision: "block"`) with its reason.
    pub block: Option<String>,
    /// A request to stop (`continue: false`).
    pub stop: Option<String>,
    /// Messages for the user.
    pub notices: Vec<String>,
}

fn read(outcome: HookOutcome, event: &str) -> SessionHookResult {
    let block = (!outcome.blocks.is_empty()).then(|| {
        outcome
            .blocks
            .iter()
            .map(|b| b.value.reason.clone())
            .collect::<Vec<_>>()
            .join("; ")
    });
    let stop = outcome.stops.first().map(|s| {
        s.value
            .reason
            .clone()
            .unwrap_or_else(|| "a hook stopped the agent".into())
    });
    let mut notices: Vec<String> = outcome.system_messages.iter().map(|m| m.value.clone()).collect();
    notices.extend(
        outcome
            .errors
            .iter()
            .map(|e| format!("{event} hook `{}` {}", e.origin.command, e.value)),
    );
    SessionHookResult {
        context: outcome.additional_context.into_iter().map(|c| c.value).collect(),
        block,
        stop,
        notices,
    }
}

async fn run_if_any(
    hooks: &HookConfig,
    ctx: &ToolUseContext,
    event: HookEventInput,
    name: &str,
) -> SessionHookResult {
    if hooks.is_empty() {
        return SessionHookResult::default();
    }
    read(run(hooks, ctx, event).await, name)
}

/// SessionStart: its context goes to the model with the first prompt.
pub async fn session_start(hooks: &HookConfig, ctx: &ToolUseContext, resumed: bool) -> SessionHookResult {
    let source = if resumed {
        SessionStartSource::Resume
    } else {
        SessionStartSource::Startup
    };
    let event = HookEventInput::SessionStart(SessionStartInput {
        source,
        model: Some(ctx.config.model.clone()),
    });
    run_if_any(hooks, ctx, event, "SessionStart").await
}

/// UserPromptSubmit: may block the prompt or add context to it.
pub async fn user_prompt_submit(hooks: &HookConfig, ctx: &ToolUseContext, prompt: &str) -> SessionHookResult {
    let event = HookEventInput::UserPromptSubmit(UserPromptSubmitInput {
        prompt: prompt.to_string(),
    });
    run_if_any(hooks, ctx, event, "UserPromptSubmit").await
}

/// Stop: a block means "keep working", with the reason for the model.
pub async fn stop(hooks: &HookConfig, ctx: &ToolUseContext, stop_hook_active: bool) -> SessionHookResult {
    let event = HookEventInput::Stop(StopInput { stop_hook_active });
    run_if_any(hooks, ctx, event, "Stop").await
}

/// SessionEnd: informational.
pub async fn session_end(hooks: &HookConfig, ctx: &ToolUseContext) -> SessionHookResult {
    let event = HookEventInput::SessionEnd(SessionEndInput {
        reason: SessionEndReason::Other,
    });
    run_if_any(hooks, ctx, event, "SessionEnd").await
}
