//! A dry run of the pipeline up to the permission decision: what would happen to a call, without
//! asking anyone or running the tool. `nerve check-permission` and front-ends' previews use it.

pub use nerve_protocol::settings::{CheckReport, ValidationReport};

use crate::permissions::{CallFacts, PermissionSubject, evaluate};
use crate::pipeline::hook_steps::{self, PreHookEffect};
use crate::pipeline::{Pipeline, ToolCall, prepare_input};
use crate::tool::{ToolPermission, ToolUseContext};

/// Why a call could not be judged.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CheckError {
    /// The input does not fit the tool's schema (or a PreToolUse hook made it not fit): there is
    /// no typed input to judge. The message is what the model would be told.
    #[error(transparent)]
    InvalidInput(#[from] crate::pipeline::InputError),
}

impl Pipeline {
    /// Validates the call and evaluates its permission (PreToolUse hooks included). An unknown tool
    /// is judged as a non-read-only tool with no content to match (`subject_for_unknown` may supply
    /// one, for example a parsed shell command).
    ///
    /// Input that does not fit the tool's schema is an error: there is no typed input to judge.
    /// A refusal by the tool's semantic validation (say, an Edit of a file not read yet) is not: the
    /// decision is still made and the refusal is reported in [`CheckReport::validation`].
    pub async fn check(
        &self,
        call: &ToolCall,
        ctx: &ToolUseContext,
        subject_for_unknown: Option<PermissionSubject>,
    ) -> Result<CheckReport, CheckError> {
        let Some(tool) = self.pool.find(&call.name).cloned() else {
            let subject = subject_for_unknown.unwrap_or(PermissionSubject::Opaque);
            let facts = CallFacts {
                tool_name: &call.name,
                input: &call.input,
                subject: &subject,
                read_only: false,
                destructive: false,
                tool_check: &ToolPermission::Passthrough,
            };
            let pre = hook_steps::pre_tool_use(&self.hooks, &call.name, &call.id, &call.input, ctx).await;
            let hook = match pre.effect {
                PreHookEffect::Continue { decision } => decision,
                PreHookEffect::Block { reason } | PreHookEffect::Stop { reason } => {
                    Some(crate::permissions::HookPermission::Deny { reason })
                }
            };
            let evaluation = evaluate(&facts, hook.as_ref(), &ctx.permissions);
            return Ok(CheckReport {
                tool: call.name.clone(),
                known_tool: false,
                read_only: false,
                destructive: false,
                input: call.input.clone(),
                validation: ValidationReport::NotChecked,
                evaluation,
            });
        };
        let input = prepare_input(&self.pool, tool.as_ref(), call.input.clone())?;
        let validation = match tool.validate_input(&input, ctx).await {
            Ok(()) => ValidationReport::Valid,
            Err(message) => ValidationReport::Invalid { message },
        };
        let observable = tool.backfill_observable_input(&input, ctx);
        let pre = hook_steps::pre_tool_use(&self.hooks, tool.name(), &call.id, observable.json(), ctx).await;
        let hook = match pre.effect {
            PreHookEffect::Continue { decision } => decision,
            PreHookEffect::Block { reason } | PreHookEffect::Stop { reason } => {
                Some(crate::permissions::HookPermission::Deny { reason })
            }
        };
        let observable = match pre.updated_input {
            Some(updated) => {
                let updated = prepare_input(&self.pool, tool.as_ref(), updated)?;
                tool.backfill_observable_input(&updated, ctx)
            }
            None => observable,
        };
        let evaluation = self
            .resolver
            .evaluate(tool.as_ref(), &observable, ctx, hook.as_ref())
            .await;
        Ok(CheckReport {
            tool: tool.name().to_string(),
            known_tool: true,
            read_only: tool.is_read_only(&observable),
            destructive: tool.is_destructive(&observable, &ctx.exec.cwd),
            input: observable.into_json(),
            validation,
            evaluation,
        })
    }
}
