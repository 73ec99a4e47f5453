//! EnterPlanMode: switches the session to plan mode, where nothing may change until the user
//! approves a plan (ExitPlanMode). The mode in force before is remembered in the permission
//! context so leaving plan mode restores it.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{PermissionMode, switch_mode};
use crate::tool::{ContextModifier, ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};

/// The tool's name.
pub const NAME: &str = "EnterPlanMode";

/// Input of [`EnterPlanModeTool`]: none.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EnterPlanModeInput {}

/// What the model is told once plan mode is on.
pub const ENTERED_TEXT: &str = "Entered plan mode. You should now focus on exploring the codebase and designing an \
implementation approach.\n\nIn plan mode:\n1. Explore: read files, search the code, understand the existing \
patterns and architecture.\n2. Do NOT change anything: no edits, no writes, no commands that modify files or \
state. Such calls are refused until the plan is approved.\n3. Design a concrete, step-by-step plan and note \
the trade-offs you considered.\n4. When the plan is ready, call ExitPlanMode with the plan (Markdown) to ask \
the user to approve it.";

/// Switches to plan mode. Named `EnterPlanMode`.
#[derive(Debug, Default)]
pub struct EnterPlanModeTool;

#[async_trait]
impl Tool for EnterPlanModeTool {
    type Input = EnterPlanModeInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Plan
    }

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> String {
        "Switches to plan mode before a non-trivial change: new features, changes touching several \
         files, or work where the right approach is unclear and the user should agree with it first. \
         In plan mode you explore and design, and every call that would change something is refused; \
         when the plan is ready, call ExitPlanMode with it so the user can approve it. Skip it for \
         small, obvious fixes and for pure questions. Takes no input."
            .into()
    }

    // Only the permission mode changes (through the context modifier): nothing is written.
    fn is_read_only(&self, _input: &EnterPlanModeInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &EnterPlanModeInput) -> bool {
        true
    }

    async fn validate_input(&self, _input: &EnterPlanModeInput, ctx: &ToolUseContext) -> Validation {
        if ctx.permissions.mode == PermissionMode::Plan {
            return Err(
                "Already in plan mode. Keep exploring, then call ExitPlanMode with your plan.".into(),
            );
        }
        Ok(())
    }

    async fn call(
        &self,
        _input: EnterPlanModeInput,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let modifier = ContextModifier::new(|mut c: ToolUseContext| {
            // Applied later than the call ran (after a concurrent batch): read the mode then, and
            // never remember `plan` itself as the mode to go back to.
            // Plan mode is never refused, and an unchanged mode keeps what it remembered.
            let _ = switch_mode(&mut c.permissions, PermissionMode::Plan);
            c
        });
        Ok(ToolOutput::text(ENTERED_TEXT).with_context_modifier(modifier))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ctx(mode: PermissionMode) -> ToolUseContext {
        let mut c = ToolUseContext::for_tests(std::env::temp_dir());
        c.permissions.mode = mode;
        c
    }

    #[tokio::test]
    async fn switches_to_plan_and_remembers_the_previous_mode() {
        for mode in [
            PermissionMode::Default,
            PermissionMode::AcceptEdits,
            PermissionMode::BypassPermissions,
        ] {
            let c = ctx(mode);
            let out = EnterPlanModeTool
                .call(EnterPlanModeInput {}, &c, &ProgressSink::discard("t"))
                .await
                .unwrap();
            let after = out.context_modifier.unwrap().apply(c);
            assert_eq!(after.permissions.mode, PermissionMode::Plan);
            assert_eq!(after.permissions.mode_before_plan, Some(mode));
        }
    }

    #[tokio::test]
    async fn tells_the_model_what_plan_mode_means() {
        let out = EnterPlanModeTool
            .call(
                EnterPlanModeInput {},
                &ctx(PermissionMode::Default),
                &ProgressSink::discard("t"),
            )
            .await
            .unwrap();
        let crate::tool::ResultBlock::Text { text } = &out.content[0] else {
            panic!("text expected")
        };
        assert!(
            text.contains("Do NOT change anything") && text.contains("ExitPlanMode"),
            "{text}"
        );
    }

    #[tokio::test]
    async fn refuses_when_already_in_plan_mode() {
        let err = EnterPlanModeTool
            .validate_input(&EnterPlanModeInput {}, &ctx(PermissionMode::Plan))
            .await
            .unwrap_err();
        assert!(err.contains("Already in plan mode"), "{err}");
        assert_eq!(
            EnterPlanModeTool
                .validate_input(&EnterPlanModeInput {}, &ctx(PermissionMode::Default))
                .await,
            Ok(())
        );
    }

    #[tokio::test]
    async fn a_modifier_applied_in_plan_mode_keeps_the_remembered_mode() {
        let c = ctx(PermissionMode::Default);
        let out = EnterPlanModeTool
            .call(EnterPlanModeInput {}, &c, &ProgressSink::discard("t"))
            .await
            .unwrap();
        let mut already = c;
        already.permissions.mode = PermissionMode::Plan;
        already.permissions.mode_before_plan = Some(PermissionMode::AcceptEdits);
        let after = out.context_modifier.unwrap().apply(already);
        assert_eq!(
            after.permissions.mode_before_plan,
            Some(PermissionMode::AcceptEdits)
        );
    }

    #[test]
    fn input_is_an_empty_object_and_extra_fields_are_rejected() {
        assert!(serde_json::from_value::<EnterPlanModeInput>(serde_json::json!({})).is_ok());
        assert!(serde_json::from_value::<EnterPlanModeInput>(serde_json::json!({"x": 1})).is_err());
    }
}
