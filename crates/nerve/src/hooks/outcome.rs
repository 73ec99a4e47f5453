//! Folding the replies of every hook that ran for one event into one outcome for the pipeline.
//!
//! The outcome is event-agnostic data; each field's doc says which events give it meaning. Replies are
//! folded in configuration order (not completion order), so "last wins" rules are deterministic.

use serde_json::{Map, Value};

use crate::hooks::config::CommandHook;
use crate::hooks::event::HookEvent;
use crate::hooks::interpret::{HookFailure, HookReply};
use crate::hooks::output::{HookOutput, HookSpecificOutput, PermissionBehavior, TopLevelDecision, Verdict};

/// Which hook something came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookOrigin {
    /// The hook's command line.
    pub command: String,
    /// The settings file it was configured in.
    pub source: String,
}

impl HookOrigin {
    /// The origin of `hook`.
    pub fn of(hook: &CommandHook) -> HookOrigin {
        HookOrigin {
            command: hook.command.clone(),
            source: hook.source.clone(),
        }
    }
}

/// A value together with the hook that produced it.
#[derive(Debug, Clone, PartialEq)]
pub struct Attributed<T> {
    /// The hook.
    pub origin: HookOrigin,
    /// What it produced.
    pub value: T,
}

/// The combined permission verdict of all hooks that voted.
#[derive(Debug, Clone, PartialEq)]
pub struct PermissionVerdict {
    /// The strictest decision any hook gave: deny beats ask beats allow.
    pub decision: Verdict,
    /// Every hook that gave this decision, in configuration order, with its reason if it gave one.
    pub voters: Vec<Attributed<Option<String>>>,
}

/// A hook blocking the event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookBlock {
    /// Why, in the hook's words.
    pub reason: String,
    /// How the hook said it.
    pub via: BlockVia,
}

/// How a hook blocked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockVia {
    /// Exit code 2, reason on stderr.
    ExitCode2,
    /// `"decision": "block"` in its JSON answer, reason in `reason`.
    DecisionBlock,
}

/// A hook asking Nerve to stop the agent (`"continue": false`, or a PermissionRequest deny with
/// `interrupt`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookStop {
    /// The `stopReason` (or deny message) to show the user, if given.
    pub reason: Option<String>,
}

/// Everything the hooks of one event run decided, for the pipeline to act on.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookOutcome {
    /// PreToolUse and PermissionRequest: the combined verdict, `None` when no hook voted (the normal
    /// permission flow decides). For these events every blocking entry below also counts as a deny
    /// vote, so the pipeline can read this field alone to decide whether the tool may run.
    pub permission: Option<PermissionVerdict>,
    /// PreToolUse (`updatedInput`) and PermissionRequest (`decision.updatedInput`): replacement tool
    /// input. When several hooks give one, the last in configuration order wins. Hooks all saw the
    /// original input, so the pipeline must check the replacement again against its own rules.
    pub updated_input: Option<Attributed<Map<String, Value>>>,
    /// PostToolUse: replacement output for MCP tools (`updatedMCPToolOutput`); last in configuration
    /// order wins.
    pub updated_tool_output: Option<Attributed<Value>>,
    /// Text for the model's context: `additionalContext` from any event, plus plain stdout of
    /// UserPromptSubmit and SessionStart hooks. See [`HookOutcome::joined_additional_context`].
    pub additional_context: Vec<Attributed<String>>,
    /// Exit-2 errors and `"decision": "block"` answers. Meaning per event: PreToolUse, deny the call
    /// (reason to the model); PostToolUse and PostToolUseFailure, reason to the model; UserPromptSubmit,
    /// reject the prompt (reason to the user); Stop and SubagentStop, keep working (reason to the model);
    /// PermissionRequest, deny; other events, show to the user.
    pub blocks: Vec<Attributed<HookBlock>>,
    /// Requests to stop the agent after this event; these take precedence over everything else.
    pub stops: Vec<Attributed<HookStop>>,
    /// `systemMessage` warnings for the user.
    pub system_messages: Vec<Attributed<String>>,
    /// Plain stdout of hooks whose event does not feed it to the model: shown in the transcript only.
    pub transcript_output: Vec<Attributed<String>>,
    /// Hooks that failed without blocking: shown to the user, execution continues.
    pub errors: Vec<Attributed<HookFailure>>,
}

impl HookOutcome {
    /// Folds `replies`, given in configuration order, for `event`.
    pub fn aggregate<'a>(
        event: HookEvent,
        replies: impl IntoIterator<Item = (&'a CommandHook, HookReply)>,
    ) -> HookOutcome {
        let mut fold = Fold {
            event,
            outcome: HookOutcome::default(),
            votes: Vec::new(),
        };
        for (hook, reply) in replies {
            fold.add(HookOrigin::of(hook), reply);
        }
        fold.finish()
    }

    /// All additional context, joined with blank lines, or `None` when there is none.
    pub fn joined_additional_context(&self) -> Option<String> {
        if self.additional_context.is_empty() {
            return None;
        }
        Some(
            self.additional_context
                .iter()
                .map(|context| context.value.as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
        )
    }

    /// Whether any hook blocked.
    pub fn is_blocked(&self) -> bool {
        !self.blocks.is_empty()
    }

    /// Whether any hook asked to stop the agent.
    pub fn stop_requested(&self) -> bool {
        !self.stops.is_empty()
    }
}

struct Fold {
    event: HookEvent,
    outcome: HookOutcome,
    votes: Vec<(Verdict, Attributed<Option<String>>)>,
}

impl Fold {
    fn add(&mut self, origin: HookOrigin, reply: HookReply) {
        match reply {
            HookReply::Silent => {}
            HookReply::Text(text) => self.add_text(origin, text),
            HookReply::Structured(output) => self.add_output(origin, *output),
            HookReply::Blocking(reason) => self.add_block(origin, reason, BlockVia::ExitCode2),
            HookReply::Failed(failure) => self.outcome.errors.push(Attributed {
                origin,
                value: failure,
            }),
        }
    }

    fn add_text(&mut self, origin: HookOrigin, text: String) {
        let feeds_model = match self.event {
            HookEvent::UserPromptSubmit | HookEvent::SessionStart => true,
            HookEvent::PreToolUse
            | HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::PermissionRequest
            | HookEvent::PermissionDenied
            | HookEvent::Stop
            | HookEvent::SubagentStop
            | HookEvent::SessionEnd
            | HookEvent::Notification
            | HookEvent::PreCompact => false,
        };
        let entry = Attributed { origin, value: text };
        if feeds_model {
            self.outcome.additional_context.push(entry);
        } else {
            self.outcome.transcript_output.push(entry);
        }
    }

    fn add_block(&mut self, origin: HookOrigin, reason: String, via: BlockVia) {
        if self.decides_permission() {
            self.vote(Verdict::Deny, origin.clone(), Some(reason.clone()));
        }
        self.outcome.blocks.push(Attributed {
            origin,
            value: HookBlock { reason, via },
        });
    }

    fn decides_permission(&self) -> bool {
        match self.event {
            HookEvent::PreToolUse | HookEvent::PermissionRequest => true,
            HookEvent::PostToolUse
            | HookEvent::PostToolUseFailure
            | HookEvent::PermissionDenied
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop
            | HookEvent::SessionStart
            | HookEvent::SessionEnd
            | HookEvent::Notification
            | HookEvent::PreCompact => false,
        }
    }

    fn vote(&mut self, decision: Verdict, origin: HookOrigin, reason: Option<String>) {
        self.votes.push((
            decision,
            Attributed {
                origin,
                value: reason,
            },
        ));
    }

    fn add_output(&mut self, origin: HookOrigin, output: HookOutput) {
        let HookOutput {
            should_continue,
            stop_reason,
            // Structured answers are never echoed to the transcript, so there is nothing to hide.
            suppress_output: _,
            system_message,
            decision,
            reason,
            hook_specific_output,
        } = output;

        if !should_continue {
            self.outcome.stops.push(Attributed {
                origin: origin.clone(),
                value: HookStop { reason: stop_reason },
            });
        }
        if let Some(message) = system_message {
            self.outcome.system_messages.push(Attributed {
                origin: origin.clone(),
                value: message,
            });
        }
        match decision {
            None => {}
            Some(TopLevelDecision::Block) => {
                let reason = reason
                    .unwrap_or_else(|| format!("hook `{}` blocked without giving a reason", origin.command));
                self.add_block(origin.clone(), reason, BlockVia::DecisionBlock);
            }
            // Legacy PreToolUse spelling of "allow"; other events never had a meaning for it.
            Some(TopLevelDecision::Approve) if self.event == HookEvent::PreToolUse => {
                self.vote(Verdict::Allow, origin.clone(), reason);
            }
            Some(TopLevelDecision::Approve) => {}
        }
        if let Some(specific) = hook_specific_output {
            self.add_specific(origin, specific);
        }
    }

    fn add_specific(&mut self, origin: HookOrigin, specific: HookSpecificOutput) {
        let HookSpecificOutput {
            hook_event_name,
            permission_decision,
            permission_decision_reason,
            updated_input,
            additional_context,
            decision,
            updated_mcp_tool_output,
        } = specific;

        if let Some(declared) = hook_event_name
            && declared != self.event
        {
            self.outcome.errors.push(Attributed {
                origin,
                value: HookFailure::WrongEvent {
                    declared,
                    running: self.event,
                },
            });
            return;
        }
        if let Some(context) = additional_context {
            self.outcome.additional_context.push(Attributed {
                origin: origin.clone(),
                value: context,
            });
        }
        match self.event {
            HookEvent::PreToolUse => {
                if let Some(decision) = permission_decision {
                    self.vote(decision, origin.clone(), permission_decision_reason);
                }
                if let Some(input) = updated_input {
                    self.outcome.updated_input = Some(Attributed { origin, value: input });
                }
            }
            HookEvent::PermissionRequest => {
                if let Some(answer) = decision {
                    let verdict = match answer.behavior {
                        PermissionBehavior::Allow => Verdict::Allow,
                        PermissionBehavior::Deny => Verdict::Deny,
                    };
                    if verdict == Verdict::Deny && answer.interrupt {
                        self.outcome.stops.push(Attributed {
                            origin: origin.clone(),
                            value: HookStop {
                                reason: answer.message.clone(),
                            },
                        });
                    }
                    self.vote(verdict, origin.clone(), answer.message);
                    if let Some(input) = answer.updated_input {
                        self.outcome.updated_input = Some(Attributed { origin, value: input });
                    }
                }
            }
            HookEvent::PostToolUse => {
                if let Some(output) = updated_mcp_tool_output {
                    self.outcome.updated_tool_output = Some(Attributed {
                        origin,
                        value: output,
                    });
                }
            }
            HookEvent::PostToolUseFailure
            | HookEvent::PermissionDenied
            | HookEvent::UserPromptSubmit
            | HookEvent::Stop
            | HookEvent::SubagentStop
            | HookEvent::SessionStart
            | HookEvent::SessionEnd
            | HookEvent::Notification
            | HookEvent::PreCompact => {}
        }
    }

    fn finish(self) -> HookOutcome {
        let Fold { outcome, votes, .. } = self;
        let permission =
            votes
                .iter()
                .map(|(decision, _)| *decision)
                .max()
                .map(|decision| PermissionVerdict {
                    decision,
                    voters: votes
                        .into_iter()
                        .filter(|(vote, _)| *vote == decision)
                        .map(|(_, voter)| voter)
                        .collect(),
                });
        HookOutcome {
            permission,
            ..outcome
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::output::PermissionRequestDecision;
    use pretty_assertions::assert_eq;

    fn structured(output: HookOutput) -> HookReply {
        HookReply::Structured(Box::new(output))
    }
    use serde_json::json;
    use std::time::Duration;

    fn hook(command: &str) -> CommandHook {
        CommandHook {
            command: command.to_owned(),
            timeout: Duration::from_secs(60),
            status_message: None,
            source: "settings.json".to_owned(),
        }
    }

    fn origin(command: &str) -> HookOrigin {
        HookOrigin {
            command: command.to_owned(),
            source: "settings.json".to_owned(),
        }
    }

    fn at<T>(command: &str, value: T) -> Attributed<T> {
        Attributed {
            origin: origin(command),
            value,
        }
    }

    fn pre_tool(decision: Verdict, reason: &str) -> HookReply {
        structured(HookOutput {
            hook_specific_output: Some(HookSpecificOutput {
                hook_event_name: Some(HookEvent::PreToolUse),
                permission_decision: Some(decision),
                permission_decision_reason: Some(reason.to_owned()),
                ..HookSpecificOutput::default()
            }),
            ..HookOutput::default()
        })
    }

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            other => panic!("not an object: {other}"),
        }
    }

    fn aggregate(event: HookEvent, replies: Vec<(&str, HookReply)>) -> HookOutcome {
        let hooks: Vec<CommandHook> = replies.iter().map(|(c, _)| hook(c)).collect();
        HookOutcome::aggregate(
            event,
            hooks.iter().zip(replies.into_iter().map(|(_, reply)| reply)),
        )
    }

    #[test]
    fn deny_beats_ask_beats_allow_and_keeps_all_deny_reasons() {
        let outcome = aggregate(
            HookEvent::PreToolUse,
            vec![
                ("a", pre_tool(Verdict::Allow, "fine")),
                ("b", pre_tool(Verdict::Deny, "no rm")),
                ("c", pre_tool(Verdict::Ask, "hmm")),
                ("d", pre_tool(Verdict::Deny, "no sudo")),
            ],
        );
        assert_eq!(
            outcome.permission,
            Some(PermissionVerdict {
                decision: Verdict::Deny,
                voters: vec![
                    at("b", Some("no rm".to_owned())),
                    at("d", Some("no sudo".to_owned()))
                ],
            })
        );
    }

    #[test]
    fn ask_beats_allow() {
        let outcome = aggregate(
            HookEvent::PreToolUse,
            vec![
                ("a", pre_tool(Verdict::Allow, "fine")),
                ("b", pre_tool(Verdict::Ask, "check")),
            ],
        );
        assert_eq!(
            outcome.permission.map(|verdict| verdict.decision),
            Some(Verdict::Ask)
        );
    }

    #[test]
    fn no_votes_means_no_verdict() {
        let outcome = aggregate(
            HookEvent::PreToolUse,
            vec![("a", HookReply::Silent), ("b", HookReply::Text("hi".to_owned()))],
        );
        assert_eq!(
            outcome,
            HookOutcome {
                transcript_output: vec![at("b", "hi".to_owned())],
                ..HookOutcome::default()
            }
        );
    }

    #[test]
    fn exit_two_on_pre_tool_use_blocks_and_denies_over_an_allow() {
        let outcome = aggregate(
            HookEvent::PreToolUse,
            vec![
                ("a", pre_tool(Verdict::Allow, "fine")),
                ("b", HookReply::Blocking("dangerous".to_owned())),
            ],
        );
        assert_eq!(
            outcome,
            HookOutcome {
                permission: Some(PermissionVerdict {
                    decision: Verdict::Deny,
                    voters: vec![at("b", Some("dangerous".to_owned()))],
                }),
                blocks: vec![at(
                    "b",
                    HookBlock {
                        reason: "dangerous".to_owned(),
                        via: BlockVia::ExitCode2
                    }
                )],
                ..HookOutcome::default()
            }
        );
    }

    #[test]
    fn legacy_decisions_on_pre_tool_use() {
        let approve = structured(HookOutput {
            decision: Some(TopLevelDecision::Approve),
            reason: Some("ok".to_owned()),
            ..HookOutput::default()
        });
        let block = structured(HookOutput {
            decision: Some(TopLevelDecision::Block),
            ..HookOutput::default()
        });
        let outcome = aggregate(HookEvent::PreToolUse, vec![("a", approve.clone()), ("b", block)]);
        assert_eq!(
            outcome.permission,
            Some(PermissionVerdict {
                decision: Verdict::Deny,
                voters: vec![at(
                    "b",
                    Some("hook `b` blocked without giving a reason".to_owned())
                )],
            })
        );
        assert_eq!(outcome.blocks[0].value.via, BlockVia::DecisionBlock);

        let elsewhere = aggregate(HookEvent::PostToolUse, vec![("a", approve)]);
        assert_eq!(elsewhere, HookOutcome::default());
    }

    #[test]
    fn block_on_post_tool_use_is_a_block_without_permission() {
        let outcome = aggregate(
            HookEvent::PostToolUse,
            vec![("lint", HookReply::Blocking("3 lint errors".to_owned()))],
        );
        assert_eq!(outcome.permission, None);
        assert!(outcome.is_blocked());
    }

    #[test]
    fn last_updated_input_in_config_order_wins() {
        let update = |command: &str| {
            structured(HookOutput {
                hook_specific_output: Some(HookSpecificOutput {
                    permission_decision: Some(Verdict::Allow),
                    updated_input: Some(object(json!({ "command": command }))),
                    ..HookSpecificOutput::default()
                }),
                ..HookOutput::default()
            })
        };
        let outcome = aggregate(
            HookEvent::PreToolUse,
            vec![("first", update("ls -a")), ("second", update("ls -l"))],
        );
        assert_eq!(
            outcome.updated_input,
            Some(at("second", object(json!({"command": "ls -l"}))))
        );
    }

    #[test]
    fn context_messages_stops_and_errors_are_all_collected() {
        let talkative = structured(HookOutput {
            should_continue: false,
            stop_reason: Some("quota".to_owned()),
            system_message: Some("heads up".to_owned()),
            hook_specific_output: Some(HookSpecificOutput {
                additional_context: Some("from json".to_owned()),
                ..HookSpecificOutput::default()
            }),
            ..HookOutput::default()
        });
        let outcome = aggregate(
            HookEvent::UserPromptSubmit,
            vec![
                ("plain", HookReply::Text("from text".to_owned())),
                ("json", talkative),
                ("broken", HookReply::Failed(HookFailure::Cancelled)),
            ],
        );
        assert_eq!(
            outcome,
            HookOutcome {
                additional_context: vec![
                    at("plain", "from text".to_owned()),
                    at("json", "from json".to_owned())
                ],
                stops: vec![at(
                    "json",
                    HookStop {
                        reason: Some("quota".to_owned())
                    }
                )],
                system_messages: vec![at("json", "heads up".to_owned())],
                errors: vec![at("broken", HookFailure::Cancelled)],
                ..HookOutcome::default()
            }
        );
        assert_eq!(
            outcome.joined_additional_context(),
            Some("from text\n\nfrom json".to_owned())
        );
        assert!(outcome.stop_requested());
    }

    #[test]
    fn output_for_another_event_is_ignored_with_an_error() {
        let outcome = aggregate(HookEvent::PostToolUse, vec![("a", pre_tool(Verdict::Deny, "no"))]);
        assert_eq!(
            outcome,
            HookOutcome {
                errors: vec![at(
                    "a",
                    HookFailure::WrongEvent {
                        declared: HookEvent::PreToolUse,
                        running: HookEvent::PostToolUse
                    }
                )],
                ..HookOutcome::default()
            }
        );
    }

    #[test]
    fn permission_request_deny_with_interrupt_stops() {
        let answer = |behavior, interrupt| {
            structured(HookOutput {
                hook_specific_output: Some(HookSpecificOutput {
                    hook_event_name: Some(HookEvent::PermissionRequest),
                    decision: Some(PermissionRequestDecision {
                        behavior,
                        updated_input: None,
                        message: Some("not on main".to_owned()),
                        interrupt,
                    }),
                    ..HookSpecificOutput::default()
                }),
                ..HookOutput::default()
            })
        };
        let outcome = aggregate(
            HookEvent::PermissionRequest,
            vec![
                ("allow", answer(PermissionBehavior::Allow, false)),
                ("deny", answer(PermissionBehavior::Deny, true)),
            ],
        );
        assert_eq!(
            outcome,
            HookOutcome {
                permission: Some(PermissionVerdict {
                    decision: Verdict::Deny,
                    voters: vec![at("deny", Some("not on main".to_owned()))],
                }),
                stops: vec![at(
                    "deny",
                    HookStop {
                        reason: Some("not on main".to_owned())
                    }
                )],
                ..HookOutcome::default()
            }
        );
    }

    #[test]
    fn mcp_output_replacement_on_post_tool_use() {
        let outcome = aggregate(
            HookEvent::PostToolUse,
            vec![(
                "redact",
                structured(HookOutput {
                    hook_specific_output: Some(HookSpecificOutput {
                        updated_mcp_tool_output: Some(json!({"text": "[redacted]"})),
                        ..HookSpecificOutput::default()
                    }),
                    ..HookOutput::default()
                }),
            )],
        );
        assert_eq!(
            outcome.updated_tool_output,
            Some(at("redact", json!({"text": "[redacted]"})))
        );
    }
}
