//! The asking half of permission resolution: after the static evaluation, an ask goes to the
//! PermissionRequest hooks, then (auto mode) the classifier, then the user.

use std::sync::Arc;

use serde_json::Value;

use crate::events::{Event, EventSink};
use crate::hooks::HookConfig;
use crate::permissions::evaluate::{CallFacts, HookPermission, evaluate};
use crate::permissions::{
    AutoClassifier, ClassifierRequest, ClassifierVerdict, DecidedBy, Evaluation, PermissionMode,
    PermissionPrompter, PermissionRequest, PermissionRule, Previewer, Resolution, RuleBehavior, RuleScope,
    RuleSource, RuleValue, UserAnswer, Verdict,
};
use crate::pipeline::prepare::strip_engine_only;
use crate::tool::{DynTool, PermissionPreview, PreparedInput, ToolRef, ToolUseContext};

/// Resolves calls: evaluation, then hooks, classifier and prompts for what asks.
#[derive(Clone, Default)]
pub struct Resolver {
    /// Who answers asks. `None`: asks are denied (headless).
    prompter: Option<Arc<dyn PermissionPrompter>>,
    /// The auto-mode classifier.
    classifier: Option<Arc<dyn AutoClassifier>>,
    /// PermissionRequest and PermissionDenied hooks.
    hooks: Arc<HookConfig>,
    /// Where permission requests are announced.
    events: Option<EventSink>,
    /// Classify only after the PreToolUse hooks (the speculative start is the default; this is
    /// for measuring it).
    classify_serially: bool,
}

impl std::fmt::Debug for Resolver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Resolver")
            .field("prompter", &self.prompter.is_some())
            .field("classifier", &self.classifier.is_some())
            .finish()
    }
}

/// An auto-mode classification started as soon as the call's input was valid, in parallel with
/// the PreToolUse hooks (the seeds' speculative classifier start). Dropping it (a hook or a rule
/// decided first, or a hook changed the input) stops the classification.
#[derive(Debug)]
pub struct SpeculativeClassification(tokio::task::JoinHandle<ClassifierVerdict>);

/// What auto mode learned about a call before its hooks ran: the static evaluation (judged without
/// hooks) and the classification started on it, if any.
#[derive(Debug)]
pub struct EarlyCheck {
    evaluation: Option<Evaluation>,
    speculative: Option<SpeculativeClassification>,
}

impl EarlyCheck {
    /// Forgets the evaluation (hooks ran since, and may have changed what it saw), keeping the
    /// classification, which is used only if the evaluation made afresh still asks.
    pub fn forget_evaluation(&mut self) {
        self.evaluation = None;
    }
}

impl Drop for SpeculativeClassification {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl Resolver {
    /// A resolver asking `prompter` (`None`: asks are denied), consulting `classifier` in auto
    /// mode, running `hooks`, and announcing requests on `events`. The classifier starts
    /// speculatively, beside the PreToolUse hooks.
    pub fn new(
        prompter: Option<Arc<dyn PermissionPrompter>>,
        classifier: Option<Arc<dyn AutoClassifier>>,
        hooks: Arc<HookConfig>,
        events: Option<EventSink>,
    ) -> Self {
        Self {
            prompter,
            classifier,
            hooks,
            events,
            classify_serially: false,
        }
    }

    /// The same resolver, classifying only after the PreToolUse hooks (for measuring the
    /// speculative start).
    pub fn classifying_serially(mut self, serially: bool) -> Self {
        self.classify_serially = serially;
        self
    }

    /// In auto mode with a classifier, evaluates the call once before its PreToolUse hooks run and
    /// starts the classifier when the call would reach it (an ask it may settle, and a tool that
    /// gives it something to judge). The evaluation is kept for [`Resolver::resolve_with`], which
    /// uses it when no hook decided, so a call is evaluated once. `None` in any other mode.
    pub async fn early_check(
        &self,
        tool: &dyn DynTool,
        input: &PreparedInput,
        ctx: &ToolUseContext,
    ) -> Option<EarlyCheck> {
        if ctx.permissions.mode != PermissionMode::Auto || self.classify_serially {
            return None;
        }
        let classifier = Arc::clone(self.classifier.as_ref()?);
        let evaluation = self.evaluate(tool, input, ctx, None).await;
        if evaluation.decision != Verdict::Ask || !evaluation.classifier_approvable {
            return Some(EarlyCheck {
                evaluation: Some(evaluation),
                speculative: None,
            });
        }
        let text = tool.classifier_input(input);
        if text.is_empty() {
            return Some(EarlyCheck {
                evaluation: Some(evaluation),
                speculative: None,
            });
        }
        let tool_name = tool.name().to_string();
        let cwd = ctx.exec.cwd.clone();
        let working_dirs = ctx.permissions.working_dirs.clone();
        let speculative = Some(SpeculativeClassification(tokio::spawn(async move {
            let request = ClassifierRequest {
                tool_name: &tool_name,
                classifier_input: &text,
                cwd: &cwd,
                working_dirs: &working_dirs,
            };
            classifier.classify(&request).await
        })));
        Some(EarlyCheck {
            evaluation: Some(evaluation),
            speculative,
        })
    }

    /// Evaluates a call statically (no prompts).
    pub async fn evaluate(
        &self,
        tool: &dyn DynTool,
        input: &PreparedInput,
        ctx: &ToolUseContext,
        hook: Option<&HookPermission>,
    ) -> Evaluation {
        let subject = tool.permission_subject(input, ctx);
        let tool_check = tool.check_permissions(input, ctx).await;
        let facts = CallFacts {
            tool_name: tool.name(),
            input: input.json(),
            subject: &subject,
            read_only: tool.is_read_only(input),
            destructive: tool.is_destructive(input, &ctx.exec.cwd),
            tool_check: &tool_check,
        };
        evaluate(&facts, hook, &ctx.permissions)
    }

    /// Resolves a call completely: asks whoever must be asked.
    pub async fn resolve(
        &self,
        tool: &dyn DynTool,
        tool_use_id: &str,
        input: &PreparedInput,
        ctx: &ToolUseContext,
        hook: Option<HookPermission>,
    ) -> Resolution {
        self.resolve_with(tool, tool_use_id, input, ctx, hook, None).await
    }

    /// [`Resolver::resolve`], using what [`Resolver::early_check`] found for this input: its
    /// evaluation when no hook decided, and its classification when the call reaches the
    /// classifier.
    pub async fn resolve_with(
        &self,
        tool: &dyn DynTool,
        tool_use_id: &str,
        input: &PreparedInput,
        ctx: &ToolUseContext,
        hook: Option<HookPermission>,
        early: Option<EarlyCheck>,
    ) -> Resolution {
        let (first, speculative) = match early {
            Some(EarlyCheck {
                evaluation,
                speculative,
            }) => (evaluation, speculative),
            None => (None, None),
        };
        let eval = match (first, &hook) {
            // Without a hook's decision, the evaluation before the hooks is this one.
            (Some(evaluation), None) => evaluation,
            _ => self.evaluate(tool, input, ctx, hook.as_ref()).await,
        };
        match eval.decision {
            Verdict::Allow => {
                return Resolution::Allow {
                    updated_input: None,
                    user_modified: false,
                    engine_input: None,
                    decided_by: eval.decided_by,
                };
            }
            Verdict::Deny => {
                return Resolution::Deny {
                    message: format!("Permission to use {} was denied: {}.", tool.name(), eval.reason),
                    decided_by: eval.decided_by,
                };
            }
            Verdict::Ask => {}
        }

        // PermissionRequest hooks may answer the dialog for the user.
        if let Some(answer) = crate::pipeline::hook_steps::permission_request_hooks(
            &self.hooks,
            tool.name(),
            tool_use_id,
            input.json(),
            ctx,
        )
        .await
        {
            return answer;
        }

        if ctx.permissions.mode == PermissionMode::Auto
            && eval.classifier_approvable
            && let Some(classifier) = &self.classifier
        {
            let text = tool.classifier_input(input);
            // An empty classifier input means the tool opted out of automatic approval.
            if !text.is_empty() {
                let request = ClassifierRequest {
                    tool_name: tool.name(),
                    classifier_input: &text,
                    cwd: &ctx.exec.cwd,
                    working_dirs: &ctx.permissions.working_dirs,
                };
                // An interrupted turn drops the classification (and its request); the prompt
                // below then sees the cancellation and denies.
                let interrupted = || ClassifierVerdict::Ask {
                    reason: "the call was interrupted".into(),
                };
                let verdict = match speculative {
                    Some(mut started) => tokio::select! {
                        v = &mut started.0 => v.unwrap_or_else(|e| ClassifierVerdict::Ask {
                            reason: format!("the classifier stopped: {e}"),
                        }),
                        () = ctx.exec.cancel.cancelled() => interrupted(),
                    },
                    None => tokio::select! {
                        v = classifier.classify(&request) => v,
                        () = ctx.exec.cancel.cancelled() => interrupted(),
                    },
                };
                match verdict {
                    ClassifierVerdict::Allow { .. } => {
                        return Resolution::Allow {
                            updated_input: None,
                            user_modified: false,
                            engine_input: None,
                            decided_by: DecidedBy::Classifier,
                        };
                    }
                    ClassifierVerdict::Ask { reason } => {
                        tracing::debug!(%reason, "auto-mode classifier left the decision to the user");
                    }
                }
            }
        }

        let Some(prompter) = self.prompter.as_ref().filter(|_| !ctx.permissions.avoid_prompts) else {
            return Resolution::Deny {
                message: format!(
                    "Permission to use {} was denied: {}, and no one is available to approve it in this mode.",
                    tool.name(),
                    eval.reason
                ),
                decided_by: DecidedBy::Default,
            };
        };

        // Computed only now that a person will look at it (a sed simulation runs a process).
        let preview = tool.permission_preview(input, ctx).await;
        let request = PermissionRequest {
            id: uuid::Uuid::new_v4().to_string(),
            tool_use_id: tool_use_id.to_string(),
            tool_name: tool.name().to_string(),
            kind: tool.kind(),
            display_name: tool.user_facing_name(Some(input)),
            editable_field: tool.editable_field(),
            input: input.json().clone(),
            summary: tool.summary(input, &ctx.exec.cwd),
            reason: eval.reason.clone(),
            parts: eval.parts.clone(),
            suggestions: eval.suggestions.clone(),
            suggestion_note: eval.suggestion_note.clone(),
            destructive: tool.is_destructive(input, &ctx.exec.cwd),
            preview: preview.as_ref().map(|p| p.display.clone()),
            agent_label: ctx.agent.label.clone(),
            agent_call_id: ctx.agent.call_id.clone(),
            sandbox: tool.sandbox_state(input, ctx),
            network: None,
        };
        if let Some(events) = &self.events {
            events.emit(Event::PermissionRequested {
                request: Box::new(request.clone()),
            });
        }
        if !self.hooks.is_empty() {
            // Notification hooks (a desktop notifier...) must not delay the dialog.
            let hooks = Arc::clone(&self.hooks);
            let hook_ctx = ctx.clone();
            let message = format!("Nerve needs your permission to use {}", tool.name());
            tokio::spawn(async move {
                crate::pipeline::hook_steps::notification(&hooks, &hook_ctx, "permission_prompt", &message)
                    .await;
            });
        }
        let tool_ref = ctx
            .config
            .tool_pool
            .as_ref()
            .and_then(|pool| pool.find(tool.name()).cloned());
        if let Some(tool) = tool_ref {
            prompter.offer_previewer(
                &request.id,
                Arc::new(ToolPreviewer {
                    tool,
                    ctx: ctx.clone(),
                    input: input.clone(),
                    hook: hook.clone(),
                }),
            );
        }
        let answer = tokio::select! {
            a = prompter.ask(request) => a,
            () = ctx.exec.cancel.cancelled() => UserAnswer::Deny { message: Some("the call was interrupted while waiting for approval".into()) },
        };
        with_engine_input(self.apply_answer(answer, input, ctx), preview)
    }

    fn apply_answer(&self, answer: UserAnswer, input: &PreparedInput, ctx: &ToolUseContext) -> Resolution {
        match answer {
            UserAnswer::AllowOnce { updated_input } => allow_with(updated_input, input.json()),
            UserAnswer::AlwaysAllow {
                rules,
                scope,
                updated_input,
            } => {
                let mut parsed = Vec::new();
                for text in &rules {
                    match text.parse::<RuleValue>() {
                        Ok(value) => parsed.push(value),
                        Err(e) => {
                            tracing::warn!(error = %e, "ignoring an invalid always-allow rule from the front-end")
                        }
                    }
                }
                let anchor = rule_anchor(ctx);
                for value in &parsed {
                    ctx.permissions.rules.add(PermissionRule::new(
                        RuleSource::Session,
                        RuleBehavior::Allow,
                        value.clone(),
                        anchor.clone(),
                    ));
                }
                if scope == RuleScope::ProjectLocal
                    && let Err(e) =
                        crate::settings::add_rules_to_local_settings(&anchor, RuleBehavior::Allow, &parsed)
                {
                    // The user asked for a lasting rule: say that it did not last (a read-only
                    // settings file, a full disk), on every front-end.
                    let message = format!(
                        "Could not save the rule to .nerve/settings.local.json: {e}. It applies to this session only."
                    );
                    if let Some(events) = &self.events {
                        events.emit(Event::Notice {
                            message: message.clone(),
                        });
                    }
                    if let Some(notify) = &ctx.ui.notify {
                        notify(message);
                    }
                }
                allow_with(updated_input, input.json())
            }
            UserAnswer::Deny { message } => {
                let mut text = "The user doesn't want to proceed with this tool use. The tool use was rejected (nothing was run or changed).".to_string();
                if let Some(m) = message.filter(|m| !m.trim().is_empty()) {
                    text.push_str(&format!(" The user said: {m}"));
                }
                Resolution::Deny {
                    message: text,
                    decided_by: DecidedBy::User,
                }
            }
        }
    }
}

/// Previews an input the user edited while the request waits, as the original was previewed: the
/// engine-only fields a user cannot set are dropped, derived fields backfilled, then the tool
/// previews it.
struct ToolPreviewer {
    tool: ToolRef,
    ctx: ToolUseContext,
    /// The call's input as it was asked about, and what its PreToolUse hook said.
    input: PreparedInput,
    hook: Option<HookPermission>,
}

#[async_trait::async_trait]
impl Previewer for ToolPreviewer {
    async fn preview(&self, input: Value) -> Option<PermissionPreview> {
        let input = strip_engine_only(input, self.tool.engine_only_fields());
        let input = self.tool.prepare(input);
        let observable = self.tool.backfill_observable_input(&input, &self.ctx);
        self.tool
            .permission_preview(&observable, &self.ctx)
            .await
            .map(|p| p.display)
    }

    async fn covered_by(&self, rules: &[RuleValue]) -> bool {
        // A private copy of the session's rules with these added: nothing changes for anyone.
        let mut ctx = self.ctx.clone();
        let anchor = rule_anchor(&ctx);
        let mut with = crate::permissions::RuleSet::clone(&ctx.permissions.rules.snapshot());
        for value in rules {
            with.add(PermissionRule::new(
                RuleSource::Session,
                RuleBehavior::Allow,
                value.clone(),
                anchor.clone(),
            ));
        }
        ctx.permissions.rules = crate::permissions::SharedRules::new(with);
        let tool: &dyn DynTool = self.tool.as_ref();
        let subject = tool.permission_subject(&self.input, &ctx);
        let tool_check = tool.check_permissions(&self.input, &ctx).await;
        let facts = CallFacts {
            tool_name: tool.name(),
            input: self.input.json(),
            subject: &subject,
            read_only: tool.is_read_only(&self.input),
            destructive: tool.is_destructive(&self.input, &ctx.exec.cwd),
            tool_check: &tool_check,
        };
        evaluate(&facts, self.hook.as_ref(), &ctx.permissions).decision == Verdict::Allow
    }
}

/// Attaches the preview's engine fields to an approval of the unchanged input. An input the user
/// edited is not what was previewed, so it runs without them.
fn with_engine_input(resolution: Resolution, preview: Option<crate::tool::ApprovalPreview>) -> Resolution {
    match resolution {
        Resolution::Allow {
            updated_input,
            user_modified: false,
            engine_input: _,
            decided_by,
        } => Resolution::Allow {
            updated_input,
            user_modified: false,
            engine_input: preview.map(|p| p.engine_input).filter(|m| !m.is_empty()),
            decided_by,
        },
        other @ (Resolution::Allow { .. } | Resolution::Deny { .. }) => other,
    }
}

/// Where a rule the user allows during a session is anchored: the first working directory (the
/// project), else the call's folder.
fn rule_anchor(ctx: &ToolUseContext) -> std::path::PathBuf {
    ctx.permissions
        .working_dirs
        .first()
        .cloned()
        .unwrap_or_else(|| ctx.exec.cwd.clone())
}

fn allow_with(updated_input: Option<Value>, input: &Value) -> Resolution {
    let user_modified = updated_input.as_ref().is_some_and(|u| u != input);
    Resolution::Allow {
        updated_input: updated_input.filter(|_| user_modified),
        user_modified,
        engine_input: None,
        decided_by: DecidedBy::User,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::ApprovalPreview;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn preview() -> ApprovalPreview {
        let mut engine_input = serde_json::Map::new();
        engine_input.insert("_simulatedSedEdit".into(), json!({"files": []}));
        ApprovalPreview {
            display: crate::tool::PermissionPreview::SedEdit { files: Vec::new() },
            engine_input,
        }
    }

    #[test]
    fn an_unchanged_approval_carries_the_preview_fields() {
        let input = json!({"command": "sed -i s/a/b/ f"});
        let allowed = allow_with(None, &input);
        match with_engine_input(allowed, Some(preview())) {
            Resolution::Allow {
                updated_input,
                engine_input,
                ..
            } => {
                assert_eq!(updated_input, None);
                assert_eq!(engine_input, Some(preview().engine_input));
            }
            other @ Resolution::Deny { .. } => panic!("{other:?}"),
        }
    }

    #[test]
    fn an_edited_input_or_a_denial_gets_none() {
        let input = json!({"command": "sed -i s/a/b/ f"});
        let edited = allow_with(Some(json!({"command": "sed -i s/a/c/ f"})), &input);
        assert!(matches!(
            with_engine_input(edited, Some(preview())),
            Resolution::Allow {
                engine_input: None,
                user_modified: true,
                ..
            }
        ));
        let denied = Resolution::Deny {
            message: "no".into(),
            decided_by: DecidedBy::User,
        };
        assert_eq!(with_engine_input(denied.clone(), Some(preview())), denied);
    }
}
