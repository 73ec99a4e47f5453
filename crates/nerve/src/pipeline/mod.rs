//! The execution pipeline: the one path every tool call takes, built-in or external.
//!
//! lookup → abort check → strip engine-only fields → coercion → schema validation → semantic
//! validation → observable-input backfill → PreToolUse hooks → permission resolution (an approval of
//! the unchanged input may add the resolver's own engine-only fields, such as a previewed sed edit)
//! → (denial: PermissionDenied hooks, error result) → checkpoint (files the call may change are saved
//! first) → call → result budgeting → PostToolUse hooks → new
//! messages → error classification.
//!
//! Whatever happens, a call produces exactly one [`CallOutcome`]: the loop turns it into the one
//! `tool_result` the API requires for every `tool_use`.

mod call;
mod check;
pub(crate) mod hook_steps;
pub mod network_gate;
mod outcome;
mod prepare;
mod resolver;

pub use call::ToolCall;
pub use check::{CheckError, CheckReport, ValidationReport};
pub use hook_steps::permission_request_hooks;
pub use outcome::{CallOutcome, MAX_TOOL_INPUT_BYTES};
pub use prepare::{InputError, prepare_input};
pub use resolver::Resolver;

use std::sync::Arc;
use std::time::Instant;

use serde_json::Value;
use tracing::Instrument;

use crate::budget::{ResultStore, fit_result, list_saved_output};
use crate::errors::{ErrorClass, sanitize_for_model};
use crate::events::EventSink;
use crate::hooks::HookConfig;
use crate::permissions::Resolution;
use crate::tool::{
    DynTool, NewMessage, PreparedInput, ProgressSink, ResultBlock, ToolError, ToolOutput, ToolUseContext,
};
use crate::tool::{ToolPool, ToolRef};

use hook_steps::{PostHookEffect, PreHookEffect};

/// Everything the pipeline needs besides the call and its context.
pub struct Pipeline {
    pool: Arc<ToolPool>,
    hooks: Arc<HookConfig>,
    store: ResultStore,
    resolver: Resolver,
    events: EventSink,
    batch_ids: BatchIds,
}

/// A session's source of batch ids (1, 2, 3...). Cloning shares the counter.
#[derive(Debug, Clone, Default)]
struct BatchIds(Arc<std::sync::atomic::AtomicU64>);

impl BatchIds {
    /// The next unused id.
    fn next_id(&self) -> u64 {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }
}

impl std::fmt::Debug for Pipeline {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pipeline").field("pool", &self.pool).finish()
    }
}

impl Pipeline {
    /// A session's pipeline: its tools, hooks from settings, the store large results go to,
    /// permission resolution, and where events go. Batch ids start at 1.
    pub fn new(
        pool: Arc<ToolPool>,
        hooks: Arc<HookConfig>,
        store: ResultStore,
        resolver: Resolver,
        events: EventSink,
    ) -> Self {
        Self {
            pool,
            hooks,
            store,
            resolver,
            events,
            batch_ids: BatchIds::default(),
        }
    }

    /// The same pipeline over another pool (MCP servers changed their tools); batch ids continue.
    pub fn with_pool(&self, pool: Arc<ToolPool>) -> Self {
        Self {
            pool,
            hooks: Arc::clone(&self.hooks),
            store: self.store.clone(),
            resolver: self.resolver.clone(),
            events: self.events.clone(),
            batch_ids: self.batch_ids.clone(),
        }
    }

    /// The session's tools.
    pub fn pool(&self) -> &Arc<ToolPool> {
        &self.pool
    }

    /// Hooks from settings.
    pub fn hooks(&self) -> &Arc<HookConfig> {
        &self.hooks
    }

    /// Where large results go.
    pub fn store(&self) -> &ResultStore {
        &self.store
    }

    /// Events for the front-end.
    pub fn events(&self) -> &EventSink {
        &self.events
    }

    /// The next batch id, unique within the session so a front-end can group calls across
    /// responses.
    pub fn next_batch_id(&self) -> u64 {
        self.batch_ids.next_id()
    }

    /// Runs one call through every step. Never fails: failures become error outcomes.
    pub async fn run(&self, call: &ToolCall, ctx: &ToolUseContext, progress: &ProgressSink) -> CallOutcome {
        self.run_prepared(call, None, ctx, progress).await
    }

    /// [`Pipeline::run`] for a call whose tool the executor already found and whose input it
    /// already prepared ([`prepare_input`] against this pipeline's pool), so neither is done again.
    pub async fn run_prepared(
        &self,
        call: &ToolCall,
        prepared: Option<PreparedCall>,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> CallOutcome {
        // 1. Lookup, with alias fallback (once: the executor's, when it prepared the call).
        let (tool, input) = match prepared {
            Some(PreparedCall { tool, input }) => (Some(tool), Some(input)),
            None => (self.pool.find(&call.name).cloned(), None),
        };
        // Tool names from the model are untrusted: telemetry gets the registered name or "unknown".
        let telemetry_name = tool.as_ref().map_or("unknown", |t| t.name());
        let span =
            tracing::info_span!("tool_call", tool = %telemetry_name, error_class = tracing::field::Empty);
        let start = Instant::now();
        let outcome = self
            .run_steps(call, tool, input, ctx, progress)
            .instrument(span.clone())
            .await;
        if let Some(class) = outcome.error_class {
            span.record("error_class", class.as_telemetry().as_str());
        }
        tracing::debug!(parent: &span, elapsed_us = start.elapsed().as_micros() as u64, is_error = outcome.is_error, "tool call finished");
        outcome
    }

    async fn run_steps(
        &self,
        call: &ToolCall,
        tool: Option<ToolRef>,
        prepared: Option<Result<PreparedInput, InputError>>,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> CallOutcome {
        let Some(tool) = tool else {
            let names: Vec<&str> = self.pool.tools().iter().map(|t| t.name()).collect();
            return CallOutcome::error(
                call,
                format!(
                    "No such tool available: {}. Available tools: {}",
                    call.name,
                    names.join(", ")
                ),
                ErrorClass::UnknownTool,
            );
        };
        let tool_name = tool.name().to_string();

        // 2. Abort check: calls queued before an abort propagated do no work.
        if ctx.is_cancelled() {
            return CallOutcome::interrupted(call, &tool_name);
        }

        // 3. Engine-only fields never come from the model, then 4. coercion and 5. validation.
        let prepared =
            prepared.unwrap_or_else(|| prepare_input(&self.pool, tool.as_ref(), call.input.clone()));
        let input = match prepared {
            Ok(input) => input,
            Err(message) => {
                return CallOutcome::error_for(call, &tool_name, message.to_string(), ErrorClass::Validation);
            }
        };
        if let Err(message) = tool.validate_input(&input, ctx).await {
            return CallOutcome::error_for(call, &tool_name, message, ErrorClass::Validation);
        }

        // 6. Backfill: hooks and permission checks see a clone with derived fields; `call` gets the
        // original, so the transcript's input stays exactly what the model sent.
        let mut observable = tool.backfill_observable_input(&input, ctx);
        let mut input = input;
        let mut new_messages = Vec::new();

        // The auto-mode classifier starts now, beside the hooks; a hook or rule that decides first
        // drops it.
        let mut early = self.resolver.early_check(tool.as_ref(), &observable, ctx).await;

        // 7. PreToolUse hooks.
        let pre = hook_steps::pre_tool_use(&self.hooks, &tool_name, &call.id, observable.json(), ctx).await;
        for notice in &pre.notices {
            self.events.emit(crate::events::Event::Notice {
                message: notice.clone(),
            });
        }
        let hook_decision = match pre.effect {
            PreHookEffect::Block { reason } => {
                let message = format!("Blocked by a PreToolUse hook: {reason}");
                return CallOutcome::error_for(call, &tool_name, message, ErrorClass::Hook).denied();
            }
            PreHookEffect::Stop { reason } => {
                let mut out = CallOutcome::error_for(
                    call,
                    &tool_name,
                    format!("Execution stopped by a PreToolUse hook: {reason}"),
                    ErrorClass::Hook,
                );
                out.stop_reason = Some(reason);
                return out.denied();
            }
            PreHookEffect::Continue { decision } => decision,
        };
        if !self.hooks.is_empty()
            && let Some(early) = early.as_mut()
        {
            // Hooks ran since the first evaluation and may have changed what it saw (a file it
            // checked); the call is evaluated again.
            early.forget_evaluation();
        }
        new_messages.extend(pre.context.into_iter().map(|text| NewMessage::HookContext {
            event: "PreToolUse".into(),
            text,
        }));
        if let Some(updated) = pre.updated_input {
            // The first look judged the input before the hook changed it.
            early = None;
            match prepare_input(&self.pool, tool.as_ref(), updated) {
                Ok(updated) => {
                    observable = tool.backfill_observable_input(&updated, ctx);
                    input = updated;
                }
                Err(message) => {
                    let message =
                        format!("A PreToolUse hook changed the input into an invalid one: {message}");
                    return CallOutcome::error_for(call, &tool_name, message, ErrorClass::Hook);
                }
            }
        }

        // 8. Permission resolution.
        let resolution = self
            .resolver
            .resolve_with(tool.as_ref(), &call.id, &observable, ctx, hook_decision, early)
            .await;
        let allowed_by = match resolution {
            Resolution::Allow {
                updated_input,
                user_modified,
                engine_input,
                decided_by,
            } => {
                if let Some(updated) = updated_input {
                    // The user (or a permission hook) edited the input: it is what runs, checked
                    // like any untrusted input. Engine-only fields never come from outside.
                    match prepare_input(&self.pool, tool.as_ref(), updated) {
                        Ok(updated) => input = updated,
                        Err(message) => {
                            return CallOutcome::error_for(
                                call,
                                &tool_name,
                                message.to_string(),
                                ErrorClass::Validation,
                            );
                        }
                    }
                }
                if let Some(fields) = engine_input {
                    // The resolver's own fields (a previewed edit) for the input the user approved
                    // unchanged: the only way engine-only fields reach `call`.
                    match prepare::merge_engine_input(&self.pool, tool.as_ref(), input, fields) {
                        Ok(merged) => input = merged,
                        Err(message) => {
                            return CallOutcome::error_for(
                                call,
                                &tool_name,
                                message.to_string(),
                                ErrorClass::Validation,
                            );
                        }
                    }
                }
                if user_modified {
                    new_messages.push(NewMessage::SystemReminder {
                        text: format!("The user modified the {tool_name} input before approving it; the edited input is what ran."),
                    });
                }
                decided_by
            }
            Resolution::Deny { message, .. } => {
                // 9. Denial handling.
                hook_steps::permission_denied(
                    &self.hooks,
                    &tool_name,
                    &call.id,
                    observable.json(),
                    &message,
                    ctx,
                )
                .await;
                return CallOutcome::error_for(call, &tool_name, message, ErrorClass::Permission).denied();
            }
        };

        // 10. The call, after its checkpoint: what the call may change is saved first, so a rewind can put it
        // back. A file that cannot be saved is not changed (fail closed).
        let watch = match &ctx.config.checkpoints {
            Some(checkpoints) => {
                let effect = tool.file_effect(&input, ctx);
                let call_ref = crate::checkpoint::CallRef {
                    tool_use_id: call.id.clone(),
                    tool_name: tool_name.clone(),
                };
                match crate::checkpoint::before_call(checkpoints, effect, &ctx.config.project_dir, call_ref)
                    .await
                {
                    Ok(watch) => watch,
                    Err(e) => {
                        let message = format!(
                            "The {tool_name} call did not run: {e}. A file is only changed once its earlier content is saved, so the change can be undone."
                        );
                        return CallOutcome::error_for(
                            call,
                            &tool_name,
                            sanitize_for_model(&message),
                            ErrorClass::Tool,
                        );
                    }
                }
            }
            None => None,
        };

        // The call itself, raced against cancellation.
        let result = tokio::select! {
            biased;
            () = ctx.exec.cancel.cancelled() => Err(ToolError::Cancelled("the call was interrupted".into())),
            r = tool.call(input, ctx, progress) => r,
        };
        let changed_files = match watch {
            Some(watch) => watch.after_call().await,
            None => Vec::new(),
        };

        let (mut outcome, hook_input_response) = match result {
            Ok(output) => self.budget_output(call, tool.as_ref(), output),
            Err(error) => {
                let class = ErrorClass::of(&error);
                let (content, saved_output, display) = match error {
                    ToolError::WithContent(blocks) => (blocks, None, None),
                    ToolError::WithSavedOutput {
                        content,
                        saved_output,
                        display,
                    } => (content, saved_output, display),
                    other => (
                        vec![ResultBlock::text(sanitize_for_model(&other.to_string()))],
                        None,
                        None,
                    ),
                };
                let text = crate::tool::text_of(&content);
                let mut out = CallOutcome::from_blocks(call, &tool_name, content, true);
                out.error_class = Some(class);
                out.display = display;
                out.set_persisted(
                    saved_output
                        .and_then(|path| list_saved_output(&self.store, tool.name(), &call.id, &path)),
                );
                (out, Value::String(text))
            }
        };
        outcome.new_messages.splice(0..0, new_messages);
        outcome.allowed_by = Some(allowed_by);
        outcome.changed_files = changed_files;

        // 12. PostToolUse (or PostToolUseFailure) hooks.
        let post = hook_steps::post_tool_use(
            &self.hooks,
            &tool_name,
            &call.id,
            observable.json(),
            &hook_input_response,
            outcome.is_error,
            ctx,
        )
        .await;
        for notice in &post.notices {
            self.events.emit(crate::events::Event::Notice {
                message: notice.clone(),
            });
        }
        outcome
            .new_messages
            .extend(post.context.into_iter().map(|text| NewMessage::HookContext {
                event: "PostToolUse".into(),
                text,
            }));
        match post.effect {
            PostHookEffect::None => {}
            PostHookEffect::Feedback { reason } => {
                outcome.content.push(ResultBlock::text(format!(
                    "PostToolUse hook feedback: {}",
                    sanitize_for_model(&reason)
                )));
            }
            PostHookEffect::Stop { reason } => outcome.stop_reason = Some(reason),
        }
        if let Some(replacement) = post.replaced_output {
            // Only external tools' output may be replaced (as in Claude Code): a hook must not be able
            // to make a built-in's result claim something the tool did not do.
            if tool.origin() == crate::tool::ToolOrigin::Mcp {
                outcome.content = vec![ResultBlock::text(replacement)];
            }
        }
        outcome
    }

    /// Result budgeting (step 11) for one result ([`crate::budget::fit_result`]).
    fn budget_output(&self, call: &ToolCall, tool: &dyn DynTool, output: ToolOutput) -> (CallOutcome, Value) {
        let ToolOutput {
            content,
            display,
            new_messages,
            context_modifier,
            saved_output,
        } = output;
        let hook_response = display
            .clone()
            .unwrap_or_else(|| Value::String(crate::tool::text_of(&content)));
        let limit = tool.max_result_size_chars();
        let fitted = fit_result(
            &self.store,
            tool.name(),
            &call.id,
            content,
            limit,
            saved_output.as_deref(),
        );
        let mut out = CallOutcome::from_blocks(call, tool.name(), fitted.content, false);
        out.display = display;
        out.new_messages = new_messages;
        out.context_modifier = context_modifier;
        out.set_persisted(fitted.persisted);
        out.persistable = limit.is_some();
        (out, hook_response)
    }
}

/// A call whose tool was found and whose input was prepared when it was queued.
pub struct PreparedCall {
    /// The tool.
    pub tool: ToolRef,
    /// The input as [`prepare_input`] made it, or why it could not.
    pub input: Result<PreparedInput, InputError>,
}
