//! ExitPlanMode: presents the plan to the user and, once they approve it, leaves plan mode for
//! the mode that was in force before EnterPlanMode (or `default`).
//!
//! The approval is the permission prompt itself: [`Tool::check_permissions`] always asks, and an
//! ask from the tool is sticky (no mode or allow rule turns it into an allow), so no plan is ever
//! approved without the user. Headless runs, where nobody can be asked, deny it.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{PermissionMode, switch_mode};
use crate::tool::{
    ContextModifier, ProgressSink, Tool, ToolError, ToolOutput, ToolPermission, ToolUseContext, Validation,
};

/// The tool's name.
pub const NAME: &str = "ExitPlanMode";

/// The reason shown in the approval prompt (and in the denial when nobody can approve).
pub const APPROVAL_REASON: &str = "Approve the plan? Leaving plan mode needs the user's approval";

/// Input of [`ExitPlanModeTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ExitPlanModeInput {
    /// The plan to present to the user, in Markdown: concise, concrete steps (which files change
    /// and how), in the order you will carry them out.
    pub plan: String,
}

/// Asks the user to approve the plan and leaves plan mode. Named `ExitPlanMode`.
#[derive(Debug, Default)]
pub struct ExitPlanModeTool;

#[async_trait]
impl Tool for ExitPlanModeTool {
    type Input = ExitPlanModeInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Plan
    }

    fn file_effect(&self, _input: &ExitPlanModeInput, _ctx: &ToolUseContext) -> crate::tool::FileEffect {
        crate::tool::FileEffect::None
    }

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> String {
        "Use in plan mode once your plan is ready: presents `plan` (Markdown) to the user for \
         approval. If the user approves, plan mode ends and you can start making the changes; if \
         not, stay in plan mode and revise the plan using their feedback. Only for planning the \
         implementation of a task that changes code, not for research or questions. Do not ask \
         \"is this plan OK?\" in text: this tool is how the user approves."
            .into()
    }

    fn summary(&self, input: &ExitPlanModeInput, _cwd: &std::path::Path) -> String {
        let lines = input.plan.lines().count();
        format!("plan of {lines} line{}", if lines == 1 { "" } else { "s" })
    }

    async fn validate_input(&self, input: &ExitPlanModeInput, ctx: &ToolUseContext) -> Validation {
        if ctx.permissions.mode != PermissionMode::Plan {
            return Err(format!(
                "Not in plan mode (the mode is {}): there is nothing to exit. Continue with the task.",
                ctx.permissions.mode
            ));
        }
        if input.plan.trim().is_empty() {
            return Err("`plan` is empty: write the plan (Markdown) the user should approve.".into());
        }
        Ok(())
    }

    async fn check_permissions(&self, _input: &ExitPlanModeInput, _ctx: &ToolUseContext) -> ToolPermission {
        ToolPermission::Ask {
            reason: APPROVAL_REASON.into(),
        }
    }

    async fn call(
        &self,
        input: ExitPlanModeInput,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let modifier = ContextModifier::new(|mut c: ToolUseContext| {
            let previous = c
                .permissions
                .mode_before_plan
                .filter(|m| *m != PermissionMode::Plan)
                .unwrap_or(PermissionMode::Default);
            // A mode the settings now forbid is not restored: leaving plan mode goes to default.
            if switch_mode(&mut c.permissions, previous).is_err() {
                let _ = switch_mode(&mut c.permissions, PermissionMode::Default);
            }
            c.permissions.mode_before_plan = None;
            c
        });
        let text = format!(
            "User has approved your plan. You can now start coding.\n\n## Approved plan:\n{}",
            input.plan.trim_end()
        );
        Ok(ToolOutput::text(text).with_context_modifier(modifier))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn ctx(mode: PermissionMode, before: Option<PermissionMode>) -> ToolUseContext {
        let mut c = ToolUseContext::for_tests(std::env::temp_dir());
        c.permissions.mode = mode;
        c.permissions.mode_before_plan = before;
        c
    }

    fn plan(text: &str) -> ExitPlanModeInput {
        ExitPlanModeInput { plan: text.into() }
    }

    async fn mode_after(before: Option<PermissionMode>) -> (PermissionMode, Option<PermissionMode>) {
        let c = ctx(PermissionMode::Plan, before);
        let out = ExitPlanModeTool
            .call(plan("1. edit"), &c, &ProgressSink::discard("t"))
            .await
            .unwrap();
        let after = out.context_modifier.unwrap().apply(c);
        (after.permissions.mode, after.permissions.mode_before_plan)
    }

    #[tokio::test]
    async fn approval_restores_the_previous_mode_or_default() {
        assert_eq!(
            mode_after(Some(PermissionMode::AcceptEdits)).await,
            (PermissionMode::AcceptEdits, None)
        );
        assert_eq!(mode_after(None).await, (PermissionMode::Default, None));
        assert_eq!(
            mode_after(Some(PermissionMode::Plan)).await,
            (PermissionMode::Default, None),
            "plan is never restored as the mode after plan"
        );
    }

    #[tokio::test]
    async fn result_says_approved_and_repeats_the_plan() {
        let out = ExitPlanModeTool
            .call(
                plan("1. add x\n"),
                &ctx(PermissionMode::Plan, None),
                &ProgressSink::discard("t"),
            )
            .await
            .unwrap();
        let crate::tool::ResultBlock::Text { text } = &out.content[0] else {
            panic!("text expected")
        };
        assert_eq!(
            text,
            "User has approved your plan. You can now start coding.\n\n## Approved plan:\n1. add x"
        );
    }

    #[tokio::test]
    async fn always_asks_and_is_neither_read_only_nor_concurrent() {
        let input = plan("p");
        for &mode in PermissionMode::ALL {
            assert_eq!(
                ExitPlanModeTool.check_permissions(&input, &ctx(mode, None)).await,
                ToolPermission::Ask {
                    reason: APPROVAL_REASON.into()
                }
            );
        }
        assert!(!ExitPlanModeTool.is_read_only(&input));
        assert!(!ExitPlanModeTool.is_concurrency_safe(&input));
    }

    #[tokio::test]
    async fn validation_requires_plan_mode_and_a_plan() {
        let err = ExitPlanModeTool
            .validate_input(&plan("p"), &ctx(PermissionMode::Default, None))
            .await
            .unwrap_err();
        assert!(err.contains("Not in plan mode (the mode is default)"), "{err}");
        let err = ExitPlanModeTool
            .validate_input(&plan(" \n"), &ctx(PermissionMode::Plan, None))
            .await
            .unwrap_err();
        assert!(err.contains("`plan` is empty"), "{err}");
        assert_eq!(
            ExitPlanModeTool
                .validate_input(&plan("p"), &ctx(PermissionMode::Plan, None))
                .await,
            Ok(())
        );
    }

    #[test]
    fn summary_counts_lines() {
        assert_eq!(
            ExitPlanModeTool.summary(&plan("a\nb"), std::path::Path::new("/")),
            "plan of 2 lines"
        );
        assert_eq!(
            ExitPlanModeTool.summary(&plan("a"), std::path::Path::new("/")),
            "plan of 1 line"
        );
    }
}
