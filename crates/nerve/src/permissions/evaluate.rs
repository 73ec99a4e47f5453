//! The static half of permission resolution: hook decision → rules → tool check → mode. Pure and
//! synchronous, so `nerve check-permission` and the pipeline share it exactly.
//!
//! Deny beats ask beats allow. A deny rule applies in every mode, bypass included. Asks that come
//! from an explicit ask rule, a hook, the tool itself, a protected path or an unparsed command are
//! never turned into allows by a mode or an allow rule.

use serde_json::Value;

use crate::permissions::ToolPermission;
use crate::permissions::matching::search_glob::{absolute_alternatives, literal_prefix};
use crate::permissions::protected::{is_inside_working_dirs, is_protected_path};
use crate::permissions::suggest;
use crate::permissions::{
    Access, DecidedBy, Evaluation, MatchedRule, PartDecision, PartVerdict, PermissionContext, PermissionMode,
    PermissionRule, PermissionSubject, ReadScope, RuleBehavior, RuleSet, RuleValue, SearchMeets,
    SearchSubject, ShellSubject, Verdict,
};

/// A PreToolUse hook's permission decision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookPermission {
    /// The hook allows (never over a deny or ask rule).
    Allow {
        /// Why.
        reason: String,
    },
    /// The hook wants the user asked.
    Ask {
        /// Why.
        reason: String,
    },
    /// The hook refuses.
    Deny {
        /// Why (sent to the model).
        reason: String,
    },
}

/// What the evaluation needs to know about the call.
#[derive(Debug, Clone)]
pub struct CallFacts<'a> {
    /// The tool's registered name.
    pub tool_name: &'a str,
    /// The observable input.
    pub input: &'a Value,
    /// What rules match against.
    pub subject: &'a PermissionSubject,
    /// Whether the tool says this input only reads.
    pub read_only: bool,
    /// Whether the tool says this input may destroy data (`rm -rf`, a hard reset): "always allow"
    /// then offers no rule broader than the command itself.
    pub destructive: bool,
    /// The tool's own opinion.
    pub tool_check: &'a ToolPermission,
}

fn matched(rule: &PermissionRule) -> MatchedRule {
    MatchedRule {
        rule: rule.value.to_string(),
        behavior: rule.behavior,
        source: rule.source.as_str().to_string(),
    }
}

/// A running tally: the strongest finding wins, the first finding of a strength explains it.
struct Tally {
    deny: Option<(String, DecidedBy, Option<MatchedRule>)>,
    ask: Option<(String, DecidedBy, Option<MatchedRule>)>,
    /// Every ask so far may be settled by the auto-mode classifier (the seeds'
    /// `classifierApprovable`): only asks about protected paths it may judge qualify.
    asks_classifier_approvable: bool,
}

impl Tally {
    fn deny(&mut self, reason: String, by: DecidedBy, rule: Option<MatchedRule>) {
        self.deny.get_or_insert((reason, by, rule));
    }
    fn ask(&mut self, reason: String, by: DecidedBy, rule: Option<MatchedRule>) {
        self.asks_classifier_approvable = false;
        self.ask.get_or_insert((reason, by, rule));
    }
    /// An ask about a protected path that the classifier may settle in auto mode.
    fn ask_classifier_approvable(&mut self, reason: String) {
        self.ask.get_or_insert((reason, DecidedBy::ProtectedPath, None));
    }
}

/// Protected paths ask whatever the mode or rules say; `verb` says what the call does to `path`.
/// The project's own `.claude/` and `.nerve/` folders (commands, agents, notes) may be settled by
/// the auto-mode classifier; their settings files, `.git/`, shell start-up files and user settings
/// may not (they change permissions or run code).
fn ask_if_protected(path: &std::path::Path, verb: &str, ctx: &PermissionContext, tally: &mut Tally) {
    let Some(why) = is_protected_path(path, &ctx.working_dirs, &ctx.home) else {
        return;
    };
    let reason = format!("{} is protected ({why}): {verb} it always ask", path.display());
    if classifier_may_approve(path, ctx) {
        tally.ask_classifier_approvable(reason);
    } else {
        tally.ask(reason, DecidedBy::ProtectedPath, None);
    }
}

fn classifier_may_approve(path: &std::path::Path, ctx: &PermissionContext) -> bool {
    let path = crate::permissions::paths::normalize_lexically(path);
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let is_settings = name.starts_with("settings") && name.ends_with(".json");
    ctx.working_dirs.iter().any(|dir| {
        let dir = crate::permissions::paths::normalize_lexically(dir);
        path.strip_prefix(&dir).ok().is_some_and(|rel| {
            let mut parts = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().to_lowercase());
            matches!(parts.next().as_deref(), Some(".claude" | ".nerve")) && parts.next().is_some()
        })
    }) && !is_settings
}

/// Evaluates a call without asking anyone.
pub fn evaluate(facts: &CallFacts<'_>, hook: Option<&HookPermission>, ctx: &PermissionContext) -> Evaluation {
    let rules = ctx.rules.snapshot();
    let mut tally = Tally {
        deny: None,
        ask: None,
        asks_classifier_approvable: true,
    };
    let mut parts = Vec::new();
    let tool = facts.tool_name;

    // Rules on the tool as a whole, and parameter rules on its input.
    let mut tool_wide_allow = None;
    match rules.decide_parameters(tool, facts.input) {
        Some((RuleBehavior::Deny, r)) => tally.deny(
            format!("denied by rule {}", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        ),
        Some((RuleBehavior::Ask, r)) => tally.ask(
            format!("rule {} asks", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        ),
        Some((RuleBehavior::Allow, r)) => tool_wide_allow = Some(matched(r)),
        None => {}
    }

    // Rules on the subject.
    let mut needs_approval = None;
    let subject_allow = match facts.subject {
        PermissionSubject::Opaque => None,
        PermissionSubject::Paths { access, paths } => judge_paths(&rules, *access, paths, ctx, &mut tally),
        PermissionSubject::Shell(shell) => {
            judge_shell(&rules, shell, ctx, &mut tally, &mut parts, &mut needs_approval)
        }
        PermissionSubject::Url { url } => judge_url(&rules, url, &mut tally),
        PermissionSubject::Search(search) => judge_search(&rules, search, ctx, &mut tally),
    };

    match hook {
        Some(HookPermission::Deny { reason }) => {
            tally.deny(format!("denied by a hook: {reason}"), DecidedBy::Hook, None)
        }
        Some(HookPermission::Ask { reason }) => {
            tally.ask(format!("a hook asks: {reason}"), DecidedBy::Hook, None)
        }
        Some(HookPermission::Allow { .. }) | None => {}
    }
    match facts.tool_check {
        ToolPermission::Deny { reason } => tally.deny(reason.clone(), DecidedBy::Tool, None),
        ToolPermission::Ask { reason } => tally.ask(reason.clone(), DecidedBy::Tool, None),
        ToolPermission::Allow { .. } | ToolPermission::Passthrough => {}
    }

    let (suggestions, suggestion_note) = if facts.destructive {
        destructive_suggestions(facts)
    } else {
        (suggestions_for(facts, ctx), None)
    };
    let sticky_ask_approvable = tally.ask.is_some() && tally.asks_classifier_approvable;
    let finish = |decision,
                  (reason, decided_by, rule): (String, DecidedBy, Option<MatchedRule>),
                  parts,
                  suggestions| Evaluation {
        classifier_approvable: decision == Verdict::Ask
            && (decided_by == DecidedBy::Default || sticky_ask_approvable),
        suggestion_note: (decision == Verdict::Ask)
            .then(|| suggestion_note.clone())
            .flatten(),
        decision,
        decided_by,
        reason,
        rule,
        parts,
        suggestions,
    };

    if let Some(deny) = tally.deny {
        return finish(Verdict::Deny, deny, parts, Vec::new());
    }
    if let Some(ask) = tally.ask {
        // A sticky ask: no mode and no allow rule turns it into an allow.
        return match ctx.mode {
            PermissionMode::DontAsk => finish(
                Verdict::Deny,
                (
                    format!("{} (dontAsk mode denies what would ask)", ask.0),
                    DecidedBy::Mode,
                    ask.2,
                ),
                parts,
                Vec::new(),
            ),
            PermissionMode::Default
            | PermissionMode::AcceptEdits
            | PermissionMode::Plan
            | PermissionMode::BypassPermissions
            | PermissionMode::Auto
            | PermissionMode::Bubble => finish(Verdict::Ask, ask, parts, suggestions),
        };
    }

    // Plan mode changes nothing until the user approves the plan: no allow rule, hook, tool opinion
    // or mode default lets a call that may change something run (a sticky ask above still reaches
    // the user; ExitPlanMode, which asks, is how the plan is approved).
    if ctx.mode == PermissionMode::Plan && !facts.read_only {
        let allowed_by = tool_wide_allow
            .as_ref()
            .or_else(|| subject_allow.as_ref().and_then(|(.., rule)| rule.as_ref()))
            .map(|r| format!("rule {}", r.rule))
            .or_else(|| subject_allow.as_ref().map(|(reason, ..)| reason.clone()))
            .or_else(|| matches!(hook, Some(HookPermission::Allow { .. })).then(|| "a hook".to_string()))
            .or_else(|| match facts.tool_check {
                ToolPermission::Allow { reason } => Some(format!("the tool's own check ({reason})")),
                ToolPermission::Deny { .. } | ToolPermission::Ask { .. } | ToolPermission::Passthrough => {
                    None
                }
            });
        let why = match allowed_by {
            Some(by) => format!("{by} would allow it outside plan mode"),
            None => needs_approval
                .clone()
                .unwrap_or_else(|| "no rule allows this".to_string()),
        };
        return finish(
            Verdict::Deny,
            (plan_refusal(tool, &why), DecidedBy::Mode, None),
            parts,
            Vec::new(),
        );
    }

    // Allows.
    if let Some(rule) = tool_wide_allow {
        let reason = format!("allowed by rule {}", rule.rule);
        return finish(
            Verdict::Allow,
            (reason, DecidedBy::Rule, Some(rule)),
            parts,
            Vec::new(),
        );
    }
    if let Some((reason, by, rule)) = subject_allow {
        return finish(Verdict::Allow, (reason, by, rule), parts, Vec::new());
    }
    if let Some(HookPermission::Allow { reason }) = hook {
        return finish(
            Verdict::Allow,
            (format!("allowed by a hook: {reason}"), DecidedBy::Hook, None),
            parts,
            Vec::new(),
        );
    }
    if let ToolPermission::Allow { reason } = facts.tool_check {
        return finish(
            Verdict::Allow,
            (reason.clone(), DecidedBy::Tool, None),
            parts,
            Vec::new(),
        );
    }

    // Mode defaults.
    // An MCP tool's read-only claim is a hint from the server, and what it reads is out of the
    // engine's sight: it decides concurrency, never an allow (as in Claude Code, MCP tools ask
    // unless a rule or mode allows them).
    let is_mcp = crate::permissions::matching::mcp::McpName::parse(facts.tool_name).is_some();
    let reads_inside = facts.read_only && !is_mcp && reads_inside_working_dirs(facts.subject, ctx);
    // Why this call is not pre-approved, for the ask and for the refusals of plan and dontAsk.
    let why = if let PermissionSubject::Url { url } = facts.subject {
        format!("no rule allows fetching {url}")
    } else if is_mcp && facts.read_only {
        "MCP tools ask unless a rule allows them".to_string()
    } else if facts.read_only {
        why_reads_need_approval(facts.subject, ctx)
    } else if let Some(why) = &needs_approval {
        why.clone()
    } else {
        "no rule allows this".to_string()
    };
    let (decision, reason, by) = match ctx.mode {
        PermissionMode::BypassPermissions => (
            Verdict::Allow,
            "bypassPermissions mode allows it".to_string(),
            DecidedBy::Mode,
        ),
        _ if reads_inside => (
            Verdict::Allow,
            "it only reads inside the working directories".to_string(),
            DecidedBy::ReadOnly,
        ),
        // Plan mode refused every call that may change something above; one that changes nothing
        // follows the default mode's rules: it asks.
        PermissionMode::AcceptEdits if edits_inside_working_dirs(facts.subject, ctx) => (
            Verdict::Allow,
            "acceptEdits mode allows edits inside the working directories".to_string(),
            DecidedBy::Mode,
        ),
        PermissionMode::DontAsk => (
            Verdict::Deny,
            format!("dontAsk mode denies what is not pre-approved ({tool}: {why})"),
            DecidedBy::Mode,
        ),
        PermissionMode::Default
        | PermissionMode::AcceptEdits
        | PermissionMode::Plan
        | PermissionMode::Auto
        | PermissionMode::Bubble => (
            Verdict::Ask,
            format!("{tool} needs approval: {why}"),
            DecidedBy::Default,
        ),
    };
    let suggestions = if decision == Verdict::Ask {
        suggestions
    } else {
        Vec::new()
    };
    finish(decision, (reason, by, None), parts, suggestions)
}

/// Why plan mode refuses a call that may change something.
fn plan_refusal(tool: &str, why: &str) -> String {
    format!(
        "plan mode refuses {tool} here because it may change something ({why}); nothing may change until the user \
         approves the plan (use ExitPlanMode)"
    )
}

fn judge_paths(
    rules: &RuleSet,
    access: Access,
    paths: &[std::path::PathBuf],
    ctx: &PermissionContext,
    tally: &mut Tally,
) -> Option<(String, DecidedBy, Option<MatchedRule>)> {
    let mut all_allowed = !paths.is_empty();
    let mut first_allow = None;
    for path in paths {
        if access == Access::Edit {
            deny_own_output_write(path, ctx, tally);
        }
        if access == Access::Edit {
            ask_if_protected(path, "writes to", ctx, tally);
        }
        match rules.decide_path(access, path, &ctx.home) {
            Some((RuleBehavior::Deny, r)) => {
                tally.deny(
                    format!("{} is denied by rule {}", path.display(), r.value),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
            }
            Some((RuleBehavior::Ask, r)) => {
                tally.ask(
                    format!("rule {} asks about {}", r.value, path.display()),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
            }
            Some((RuleBehavior::Allow, r)) => {
                first_allow.get_or_insert_with(|| matched(r));
            }
            None => all_allowed = false,
        }
    }
    match (all_allowed, first_allow) {
        (true, Some(rule)) => Some((
            format!("allowed by rule {}", rule.rule),
            DecidedBy::Rule,
            Some(rule),
        )),
        _ => None,
    }
}

fn judge_url(
    rules: &RuleSet,
    url: &str,
    tally: &mut Tally,
) -> Option<(String, DecidedBy, Option<MatchedRule>)> {
    if let Some(r) = rules.find_domain_rule(RuleBehavior::Deny, url) {
        tally.deny(
            format!("{url} is denied by rule {}", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        );
        return None;
    }
    if let Some(r) = rules.find_domain_rule(RuleBehavior::Ask, url) {
        tally.ask(
            format!("rule {} asks about {url}", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        );
        return None;
    }
    rules.find_domain_rule(RuleBehavior::Allow, url).map(|r| {
        let m = matched(r);
        (format!("allowed by rule {}", m.rule), DecidedBy::Rule, Some(m))
    })
}

fn judge_shell(
    rules: &RuleSet,
    shell: &ShellSubject,
    ctx: &PermissionContext,
    tally: &mut Tally,
    parts: &mut Vec<PartVerdict>,
    needs_approval: &mut Option<String>,
) -> Option<(String, DecidedBy, Option<MatchedRule>)> {
    let mut every_part_cleared = true;
    let mut any_rule_allow = None;
    let mut uncleared = |why: String, every_part_cleared: &mut bool| {
        *every_part_cleared = false;
        needs_approval.get_or_insert(why);
    };
    for part in &shell.parts {
        // Deny and ask rules look at every form, so `/bin/rm`, `\rm`, `git -C . push` or `rm -fr`
        // cannot dodge `Bash(rm *)`, `Bash(git push *)` or `Bash(rm -rf *)`; allow rules only at the
        // command as written (with what changes how it runs), so `/tmp/evil/git` is not `git` and
        // `LD_PRELOAD=x git status` is not `git status`.
        let mut forms: Vec<&str> = vec![part.canonical.as_str(), part.as_written.as_str()];
        forms.extend(part.deny_forms.iter().map(String::as_str));
        let deny = rules.find_shell_rule_in_forms(RuleBehavior::Deny, &forms);
        let ask = rules.find_shell_rule_in_forms(RuleBehavior::Ask, &forms);
        let (decision, rule) = if let Some(r) = deny {
            tally.deny(
                format!("`{}` is denied by rule {}", part.as_written, r.value),
                DecidedBy::Rule,
                Some(matched(r)),
            );
            (PartDecision::Denied, Some(matched(r)))
        } else if let Some(r) = ask {
            tally.ask(
                format!("rule {} asks about `{}`", r.value, part.as_written),
                DecidedBy::Rule,
                Some(matched(r)),
            );
            (PartDecision::AskRule, Some(matched(r)))
        } else if let Some(r) = rules.find_shell_rule(RuleBehavior::Allow, &part.as_written) {
            any_rule_allow.get_or_insert_with(|| matched(r));
            (PartDecision::AllowedByRule, Some(matched(r)))
        } else if part.neutral {
            (PartDecision::Neutral, None)
        } else if part.read_only && shell.understood {
            (PartDecision::ReadOnly, None)
        } else {
            let why = match &part.why_not_read_only {
                // A file edit that got here changes something outside the working directories (or
                // the mode is not acceptEdits): say that, not that it is "not read-only".
                Some(_) if part.file_edit => format!(
                    "no rule allows `{}` (it changes files; acceptEdits mode allows that only inside the working \
                     directories)",
                    part.as_written
                ),
                Some(why) => format!("no rule allows `{}` ({why})", part.as_written),
                None => format!("no rule allows `{}`", part.as_written),
            };
            uncleared(why, &mut every_part_cleared);
            (PartDecision::NeedsApproval, None)
        };
        parts.push(PartVerdict {
            part: part.as_written.clone(),
            decision,
            rule,
        });
    }
    // Read rules cover what reading commands read: `cat secrets/key` must not dodge
    // `Read(./secrets/**)`.
    for target in &shell.read_targets {
        match rules.decide_path(Access::Read, target, &ctx.home) {
            Some((RuleBehavior::Deny, r)) => tally.deny(
                format!("reading {} is denied by rule {}", target.display(), r.value),
                DecidedBy::Rule,
                Some(matched(r)),
            ),
            Some((RuleBehavior::Ask, r)) => tally.ask(
                format!("rule {} asks about reading {}", r.value, target.display()),
                DecidedBy::Rule,
                Some(matched(r)),
            ),
            Some((RuleBehavior::Allow, _)) | None => {}
        }
    }
    // Reads whose files are only known at run time: a folder read recursively, a glob, `$F`. A
    // rule that may match something in them makes the command ask (or deny, when everything read
    // there is denied).
    for scope in &shell.read_scopes {
        judge_read_scope(rules, scope, ctx, tally);
    }
    // Input redirections are reads like operands: Read rules and the working directories apply.
    for target in &shell.input_targets {
        let part = format!("< {}", target.display());
        let (decision, rule) = match rules.decide_path(Access::Read, target, &ctx.home) {
            Some((RuleBehavior::Deny, r)) => {
                tally.deny(
                    format!("reading {} is denied by rule {}", target.display(), r.value),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
                (PartDecision::Denied, Some(matched(r)))
            }
            Some((RuleBehavior::Ask, r)) => {
                tally.ask(
                    format!("rule {} asks about reading {}", r.value, target.display()),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
                (PartDecision::AskRule, Some(matched(r)))
            }
            Some((RuleBehavior::Allow, r)) => (PartDecision::AllowedByRule, Some(matched(r))),
            None if ctx.may_read_freely(target) => (PartDecision::ReadOnly, None),
            None => {
                uncleared(
                    format!("`{part}` reads outside the working directories"),
                    &mut every_part_cleared,
                );
                (PartDecision::NeedsApproval, None)
            }
        };
        parts.push(PartVerdict { part, decision, rule });
    }
    // `/dev/tcp/...` and `/dev/udp/...` are network connections, never reads or writes of a file.
    for target in &shell.network_targets {
        let part = format!("<> {target}");
        uncleared(
            format!("`{target}` opens a network connection"),
            &mut every_part_cleared,
        );
        parts.push(PartVerdict {
            part,
            decision: PartDecision::NeedsApproval,
            rule: None,
        });
    }
    for target in &shell.write_targets {
        deny_own_output_write(target, ctx, tally);
        let part = format!("> {}", target.display());
        ask_if_protected(target, "writes to", ctx, tally);
        let (decision, rule) = match rules.decide_path(Access::Edit, target, &ctx.home) {
            Some((RuleBehavior::Deny, r)) => {
                tally.deny(
                    format!("writing {} is denied by rule {}", target.display(), r.value),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
                (PartDecision::Denied, Some(matched(r)))
            }
            Some((RuleBehavior::Ask, r)) => {
                tally.ask(
                    format!("rule {} asks about writing {}", r.value, target.display()),
                    DecidedBy::Rule,
                    Some(matched(r)),
                );
                (PartDecision::AskRule, Some(matched(r)))
            }
            Some((RuleBehavior::Allow, r)) => (PartDecision::AllowedByRule, Some(matched(r))),
            None => {
                uncleared(
                    format!("no rule allows writing {}", target.display()),
                    &mut every_part_cleared,
                );
                (PartDecision::NeedsApproval, None)
            }
        };
        parts.push(PartVerdict { part, decision, rule });
    }
    // Files that `touch`, `mkdir`, `mv`, `cp` change: Edit deny and ask rules and protected paths
    // apply, as for the Edit tool (an allow rule on the command still covers them).
    for target in &shell.edit_targets {
        deny_own_output_write(target, ctx, tally);
        ask_if_protected(target, "changes to", ctx, tally);
        match rules.decide_path(Access::Edit, target, &ctx.home) {
            Some((RuleBehavior::Deny, r)) => tally.deny(
                format!("changing {} is denied by rule {}", target.display(), r.value),
                DecidedBy::Rule,
                Some(matched(r)),
            ),
            Some((RuleBehavior::Ask, r)) => tally.ask(
                format!("rule {} asks about changing {}", r.value, target.display()),
                DecidedBy::Rule,
                Some(matched(r)),
            ),
            Some((RuleBehavior::Allow, _)) | None => {}
        }
    }
    // A destination known only at run time may be a protected path: it asks like `echo > "$F"`.
    for target in &shell.unknown_write_targets {
        tally.ask(
            format!("the command writes to {target}, known only when it runs, which may be a protected path"),
            DecidedBy::ProtectedPath,
            None,
        );
    }
    // Deny rules also look at crude pieces of the text: an unparsed command, or a program that runs
    // another (`sudo rm x`), must not dodge them.
    for segment in &shell.fallback_segments {
        if let Some(r) = rules.find_shell_rule_in_forms(RuleBehavior::Deny, &[segment.as_str()]) {
            tally.deny(
                format!("`{segment}` is denied by rule {}", r.value),
                DecidedBy::Rule,
                Some(matched(r)),
            );
        }
    }
    if !shell.understood {
        // Fail closed: not understood means never pre-approved.
        let why = shell
            .not_understood_reason
            .clone()
            .unwrap_or_else(|| "unsupported syntax".into());
        tally.ask(
            format!("the command could not be fully understood ({why}), so it is not pre-approved"),
            DecidedBy::Unparsed,
            None,
        );
        return None;
    }
    if every_part_cleared
        && !shell.parts.is_empty()
        && let Some(rule) = any_rule_allow
    {
        return Some((
            format!(
                "every part is allowed by a rule or read-only (e.g. {})",
                rule.rule
            ),
            DecidedBy::Rule,
            Some(rule),
        ));
    }
    None
}

/// The session's saved tool outputs are evidence of what tools returned: readable, never written.
fn deny_own_output_write(path: &std::path::Path, ctx: &PermissionContext, tally: &mut Tally) {
    if ctx.is_own_output(path) {
        tally.deny(
            format!(
                "{} is one of this session's saved tool outputs, which may be read but never changed",
                path.display()
            ),
            DecidedBy::ProtectedPath,
            None,
        );
    }
}

/// Read rules against a search: its root as a path (a denied file, ask rules), then everything it
/// can reach. A search that names denied paths is refused; one that only walks past them leaves
/// them out (the tool withholds what Read deny rules match and says so). An ask rule it may reach
/// asks: the tool cannot leave those out.
fn judge_search(
    rules: &RuleSet,
    search: &SearchSubject,
    ctx: &PermissionContext,
    tally: &mut Tally,
) -> Option<(String, DecidedBy, Option<MatchedRule>)> {
    let root_allow = judge_paths(rules, Access::Read, &search.roots, ctx, tally);
    let what = match (search.roots.first(), search.globs.as_slice()) {
        (Some(root), []) => format!("searching {}", root.display()),
        (Some(root), globs) => format!("searching {} for {}", root.display(), globs.join(" ")),
        (None, _) => "the search".to_string(),
    };
    let deny_globs: Vec<String> = search
        .globs
        .iter()
        .chain(&search.absolute_lookalikes)
        .cloned()
        .collect();
    match rules.find_read_rule_met_by_search(RuleBehavior::Deny, &search.roots, &deny_globs, &ctx.home) {
        Some((r, SearchMeets::Names)) => tally.deny(
            format!("{what} reaches paths denied by rule {}", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        ),
        Some((r, SearchMeets::Unsure)) => tally.ask(
            format!(
                "{what} may read paths denied by rule {}, which cannot be applied to it, so it is not pre-approved",
                r.value
            ),
            DecidedBy::Rule,
            Some(matched(r)),
        ),
        Some((_, SearchMeets::Descends)) | None => {}
    }
    if let Some((r, _)) =
        rules.find_read_rule_met_by_search(RuleBehavior::Ask, &search.roots, &deny_globs, &ctx.home)
    {
        tally.ask(
            format!("{what} may read paths rule {} asks about", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        );
    }
    // An allow rule on the root covers the search when it also covers where each glob starts.
    let globs_allowed = search.roots.iter().all(|root| {
        absolute_alternatives(root, &search.globs).iter().all(|glob| {
            matches!(
                rules.decide_path(Access::Read, &literal_prefix(glob), &ctx.home),
                Some((RuleBehavior::Allow, _))
            )
        })
    });
    root_allow.filter(|_| globs_allowed)
}

/// Read rules against a read whose files are only known at run time.
fn judge_read_scope(rules: &RuleSet, scope: &ReadScope, ctx: &PermissionContext, tally: &mut Tally) {
    let what = match scope {
        ReadScope::Tree(dir) => format!("reading {} recursively", dir.display()),
        ReadScope::Glob { pattern, .. } => format!("the glob {}", pattern.display()),
        ReadScope::Unknown(text) => format!("`{text}`, known only when the command runs,"),
    };
    if let Some((r, surely)) = rules.find_read_rule_in_scope(RuleBehavior::Deny, scope, &ctx.home) {
        if surely {
            tally.deny(
                format!("{what} is denied by rule {}", r.value),
                DecidedBy::Rule,
                Some(matched(r)),
            );
        } else {
            tally.ask(
                format!(
                    "{what} may read paths denied by rule {}, so it is not pre-approved",
                    r.value
                ),
                DecidedBy::Rule,
                Some(matched(r)),
            );
        }
        return;
    }
    if let Some((r, _)) = rules.find_read_rule_in_scope(RuleBehavior::Ask, scope, &ctx.home) {
        tally.ask(
            format!("{what} may read paths rule {} asks about", r.value),
            DecidedBy::Rule,
            Some(matched(r)),
        );
    }
}

fn reads_inside_working_dirs(subject: &PermissionSubject, ctx: &PermissionContext) -> bool {
    match subject {
        PermissionSubject::Paths {
            access: Access::Read,
            paths,
        } => paths.iter().all(|p| ctx.may_read_freely(p)),
        PermissionSubject::Paths {
            access: Access::Edit, ..
        } => false,
        PermissionSubject::Shell(shell) => {
            shell.understood
                && shell.write_targets.is_empty()
                && shell.network_targets.is_empty()
                && shell
                    .read_targets
                    .iter()
                    .chain(&shell.input_targets)
                    .all(|p| ctx.may_read_freely(p))
        }
        PermissionSubject::Search(search) => search.roots.iter().all(|root| {
            ctx.may_read_freely(root)
                && absolute_alternatives(root, &search.globs)
                    .iter()
                    .all(|glob| ctx.may_read_freely(&literal_prefix(glob)))
        }),
        PermissionSubject::Opaque => true,
        // Fetching reads, but from the network: it asks unless a rule allows the domain.
        PermissionSubject::Url { .. } => false,
    }
}

/// Names what a read-only shell command reads that is not pre-approved: a path outside the working
/// directories, or a read whose files are only known when the command runs.
fn why_reads_need_approval(subject: &PermissionSubject, ctx: &PermissionContext) -> String {
    let outside = match subject {
        PermissionSubject::Shell(shell) => {
            let first = shell
                .read_targets
                .iter()
                .chain(&shell.input_targets)
                .find(|p| !ctx.may_read_freely(p));
            let unknown = shell.read_scopes.iter().find_map(|s| match s {
                ReadScope::Unknown(text) => Some(text),
                ReadScope::Tree(_) | ReadScope::Glob { .. } => None,
            });
            match (first, unknown) {
                (Some(path), Some(text)) if path.as_os_str() == "/" => {
                    let text = if text.contains(' ') {
                        text.clone()
                    } else {
                        format!("`{text}`")
                    };
                    return format!("what it reads depends on {text}, known only when the command runs");
                }
                (first, _) => first,
            }
        }
        PermissionSubject::Search(search) => search.roots.iter().find(|root| !ctx.may_read_freely(root)),
        PermissionSubject::Paths { .. } | PermissionSubject::Opaque | PermissionSubject::Url { .. } => None,
    };
    match outside {
        Some(path) => format!("it reads {}, outside the working directories", path.display()),
        None => "it reads outside the working directories".to_string(),
    }
}

fn edits_inside_working_dirs(subject: &PermissionSubject, ctx: &PermissionContext) -> bool {
    match subject {
        PermissionSubject::Paths {
            access: Access::Edit,
            paths,
        } => !paths.is_empty() && paths.iter().all(|p| is_inside_working_dirs(p, &ctx.working_dirs)),
        // `touch`, `mkdir`, `mv`, `cp` and redirections that write are file edits: every part
        // reads, prints or edits files, and everything it touches is inside.
        PermissionSubject::Shell(shell) => {
            let inside = |p: &std::path::PathBuf| is_inside_working_dirs(p, &ctx.working_dirs);
            shell.understood
                && shell.network_targets.is_empty()
                && shell
                    .parts
                    .iter()
                    .all(|p| p.read_only || p.neutral || p.file_edit)
                && (shell.parts.iter().any(|p| p.file_edit) || !shell.write_targets.is_empty())
                && shell
                    .edit_targets
                    .iter()
                    .chain(&shell.write_targets)
                    .chain(&shell.read_targets)
                    .chain(&shell.input_targets)
                    .all(inside)
        }
        PermissionSubject::Paths {
            access: Access::Read, ..
        }
        | PermissionSubject::Search(_)
        | PermissionSubject::Opaque
        | PermissionSubject::Url { .. } => false,
    }
}

/// "Always allow" for a call that may destroy data: only the exact command, never a prefix that would
/// allow every variant one key press away (`rm -rf build` must not offer `Bash(rm *)`). Commands
/// whose exact text cannot be a rule (quotes, expansions, several parts) get none, with the reason.
fn destructive_suggestions(facts: &CallFacts<'_>) -> (Vec<String>, Option<String>) {
    let PermissionSubject::Shell(shell) = facts.subject else {
        return (
            Vec::new(),
            Some("no rule is offered for a call that may destroy data; allow it once if you mean it".into()),
        );
    };
    let plain = |text: &str| {
        !text.is_empty()
            && text
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || " _-./=:@+,~^".contains(c))
    };
    let parts: Vec<&str> = shell
        .parts
        .iter()
        .filter(|p| !p.read_only && !p.neutral)
        .map(|p| p.as_written.as_str())
        .collect();
    if shell.understood && !parts.is_empty() && parts.iter().all(|p| plain(p)) {
        let rules = parts.iter().map(|p| format!("Bash({p})")).collect();
        return (
            rules,
            Some("this command may destroy data, so only the exact command is offered".into()),
        );
    }
    (
        Vec::new(),
        Some(
            "this command may destroy data and its exact text cannot be a rule, so no rule is offered; allow it \
             once if you mean it"
                .into(),
        ),
    )
}

fn suggestions_for(facts: &CallFacts<'_>, ctx: &PermissionContext) -> Vec<String> {
    let project = ctx.working_dirs.first().cloned().unwrap_or_default();
    let values = match facts.subject {
        PermissionSubject::Shell(shell) => {
            let argvs: Vec<Vec<String>> = shell
                .parts
                .iter()
                .filter(|p| !p.read_only && !p.neutral)
                // A command run with a code-steering assignment or by `sudo` gets no suggestion: a
                // rule on the bare command would not cover it, and one naming the assignment or the
                // runner should be written on purpose.
                .filter(|p| p.as_written == p.argv.join(" "))
                .map(|p| p.argv.clone())
                .collect();
            let mut out = suggest::suggest_bash_rules(&argvs);
            out.extend(
                shell
                    .write_targets
                    .iter()
                    .filter_map(|t| suggest::suggest_path_rule(Access::Edit, t, &project, &ctx.home)),
            );
            out.dedup();
            out.truncate(5);
            out
        }
        PermissionSubject::Paths { access, paths } => {
            let mut out: Vec<_> = paths
                .iter()
                .filter_map(|p| suggest::suggest_path_rule(*access, p, &project, &ctx.home))
                .collect();
            out.dedup();
            out.truncate(5);
            out
        }
        PermissionSubject::Search(search) => {
            let mut out: Vec<_> = search
                .roots
                .iter()
                .filter_map(|p| suggest::suggest_path_rule(Access::Read, p, &project, &ctx.home))
                .collect();
            out.dedup();
            out.truncate(5);
            out
        }
        PermissionSubject::Url { url } => suggest::suggest_domain_rule(url).into_iter().collect(),
        PermissionSubject::Opaque => suggest::suggest_mcp_rule(facts.tool_name)
            .into_iter()
            .chain(std::iter::once(RuleValue::bare(facts.tool_name)))
            .take(1)
            .collect(),
    };
    values.iter().map(ToString::to_string).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decide(tool_name: &str, read_only: bool) -> Verdict {
        let input = json!({});
        let facts = CallFacts {
            tool_name,
            input: &input,
            subject: &PermissionSubject::Opaque,
            read_only,
            destructive: false,
            tool_check: &ToolPermission::Passthrough,
        };
        evaluate(&facts, None, &PermissionContext::default()).decision
    }

    #[test]
    fn an_mcp_tools_read_only_hint_never_allows_by_itself() {
        assert_eq!(decide("TestRead", true), Verdict::Allow);
        assert_eq!(decide("mcp__server__lookup", true), Verdict::Ask);
        assert_eq!(decide("mcp__server__lookup", false), Verdict::Ask);
    }
}
