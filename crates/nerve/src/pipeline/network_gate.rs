//! Which hosts a sandboxed command reaches through the sandbox's proxy: the sandbox's domain lists
//! and the `WebFetch(domain:…)` rules decide, else the user is asked (the command waits).
//!
//! Order: `deniedDomains`, then `WebFetch(domain:…)` deny rules (deny wins), then
//! `allowedDomains`, then `WebFetch(domain:…)` allow rules, then the user. Allow rules a project's
//! committed settings bring (`.nerve/settings.json`, `.claude/settings.json`) do not open the
//! sandbox: a repository may narrow it, never widen it. A bare `WebFetch` rule (every URL for the
//! WebFetch tool) does not count either: it says nothing about which hosts a command may reach.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::events::{Event, EventSink};
use crate::permissions::matching::domain::domain_rule_matches;
use crate::permissions::{
    PermissionPrompter, PermissionRequest, PermissionRule, RuleBehavior, RuleScope, RuleSource, RuleValue,
    SharedRules, UserAnswer,
};
use crate::sandbox::domains::DomainList;
use crate::sandbox::proxy::{NetworkAccess, NetworkDecision, NetworkGate};
use crate::sandbox::{network_verdict, unlisted_reason};
use nerve_protocol::permission::NetworkAccessRequest;

/// The gate a session's sandboxed commands go through.
pub struct PromptingNetworkGate {
    /// The sandbox's `allowedDomains` and `deniedDomains`.
    pub domains: DomainList,
    /// The session's permission rules (shared: a rule added by "always" holds at once).
    pub rules: SharedRules,
    /// Who answers (`None`, or `headless`: nobody, unlisted hosts are refused).
    pub prompter: Option<Arc<dyn PermissionPrompter>>,
    /// Nobody may be asked.
    pub headless: bool,
    /// Where requests are announced.
    pub events: Option<EventSink>,
    /// The session.
    pub session_id: String,
    /// The project folder (where "always" rules are saved, `.nerve/settings.local.json`).
    pub project_dir: PathBuf,
}

/// The `WebFetch(domain:…)` rule with `behavior` that names `host`, if any; allow rules only from
/// the user's own sources.
fn domain_rule(rules: &SharedRules, behavior: RuleBehavior, host: &str) -> Option<PermissionRule> {
    let url = format!("http://{host}/");
    let snapshot = rules.snapshot();
    snapshot
        .rules(behavior)
        .filter(|r| r.value.tool_name == "WebFetch")
        .filter(|r| {
            behavior != RuleBehavior::Allow
                || !matches!(
                    r.source,
                    RuleSource::ProjectSettings | RuleSource::ClaudeProjectSettings
                )
        })
        .find(|r| {
            r.value
                .content
                .as_deref()
                .and_then(|c| c.strip_prefix("domain:"))
                .is_some_and(|pattern| domain_rule_matches(pattern, &url))
        })
        .cloned()
}

impl PromptingNetworkGate {
    /// What the settings and rules decide, without asking.
    fn by_rules(&self, host: &str, port: u16) -> Option<NetworkDecision> {
        if let Some(decision @ NetworkDecision::Refused { .. }) = network_verdict(&self.domains, host, port) {
            return Some(decision);
        }
        if let Some(rule) = domain_rule(&self.rules, RuleBehavior::Deny, host) {
            return Some(NetworkDecision::Refused {
                reason: format!(
                    "the sandbox refused {host}:{port}: the deny rule {} ({}) names it",
                    rule.value,
                    rule.source.as_str()
                ),
                allowable: false,
            });
        }
        if let Some(decision) = network_verdict(&self.domains, host, port) {
            return Some(decision);
        }
        // An ask rule sends it to the user even if an allow rule matches too.
        if domain_rule(&self.rules, RuleBehavior::Ask, host).is_some() {
            return None;
        }
        domain_rule(&self.rules, RuleBehavior::Allow, host).map(|rule| NetworkDecision::Allowed {
            by: format!("the rule {} ({})", rule.value, rule.source.as_str()),
        })
    }

    fn request(&self, access: &NetworkAccess) -> PermissionRequest {
        let NetworkAccess { host, port, command } = access;
        PermissionRequest {
            id: uuid::Uuid::new_v4().to_string(),
            tool_use_id: String::new(),
            tool_name: "Network".into(),
            kind: nerve_protocol::ToolKind::Fetch,
            display_name: "Network request".into(),
            editable_field: None,
            input: serde_json::json!({"host": host, "port": port, "command": command}),
            summary: format!("Network request outside of sandbox: {host}:{port}"),
            reason: format!(
                "a sandboxed command wants to reach {host}:{port}, which no rule allows (sandbox.network.allowedDomains, WebFetch(domain:…))"
            ),
            parts: Vec::new(),
            suggestions: vec![format!("WebFetch(domain:{host})")],
            suggestion_note: None,
            destructive: false,
            preview: None,
            agent_label: None,
            agent_call_id: None,
            sandbox: None,
            network: Some(NetworkAccessRequest {
                host: host.clone(),
                port: *port,
                command: command.clone(),
                session_id: self.session_id.clone(),
            }),
        }
    }

    /// Keeps the rules of an "always" answer: for the session, and in the project's local
    /// settings when asked to.
    fn keep_rules(&self, rules: &[String], scope: RuleScope) {
        let parsed: Vec<RuleValue> = rules
            .iter()
            .filter_map(|text| match text.parse::<RuleValue>() {
                Ok(value) => Some(value),
                Err(e) => {
                    tracing::warn!(error = %e, "ignoring an invalid always-allow rule from the front-end");
                    None
                }
            })
            .collect();
        for value in &parsed {
            self.rules.add(PermissionRule::new(
                RuleSource::Session,
                RuleBehavior::Allow,
                value.clone(),
                self.project_dir.clone(),
            ));
        }
        if scope == RuleScope::ProjectLocal
            && let Err(e) =
                crate::settings::add_rules_to_local_settings(&self.project_dir, RuleBehavior::Allow, &parsed)
            && let Some(events) = &self.events
        {
            events.emit(Event::Notice {
                message: format!(
                    "Could not save the rule to .nerve/settings.local.json: {e}. It applies to this session only."
                ),
            });
        }
    }
}

#[async_trait]
impl NetworkGate for PromptingNetworkGate {
    async fn decide(&self, access: &NetworkAccess) -> NetworkDecision {
        let (host, port) = (access.host.as_str(), access.port);
        if let Some(decision) = self.by_rules(host, port) {
            return decision;
        }
        let Some(prompter) = self.prompter.as_ref().filter(|_| !self.headless) else {
            return NetworkDecision::Refused {
                reason: unlisted_reason(
                    host,
                    port,
                    "no rule allows it and nobody can be asked in this mode",
                ),
                allowable: true,
            };
        };
        let request = self.request(access);
        if let Some(events) = &self.events {
            events.emit(Event::PermissionRequested {
                request: Box::new(request.clone()),
            });
        }
        match prompter.ask(request).await {
            UserAnswer::AllowOnce { .. } => NetworkDecision::Allowed {
                by: "the user, for this command".into(),
            },
            UserAnswer::AlwaysAllow { rules, scope, .. } => {
                self.keep_rules(&rules, scope);
                NetworkDecision::Allowed {
                    by: format!("the user, always ({})", rules.join(", ")),
                }
            }
            UserAnswer::Deny { message } => NetworkDecision::Refused {
                reason: match message.filter(|m| !m.trim().is_empty()) {
                    Some(m) => format!("the user refused network access to {host}:{port}; they said: {m}"),
                    None => format!("the user refused network access to {host}:{port}"),
                },
                allowable: true,
            },
        }
    }
}
