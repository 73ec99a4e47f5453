//! All permission rules from all sources, with lookups the resolver builds on.
//!
//! Lookups come in two shapes: `find_*` returns the highest-priority rule of one behaviour that
//! matches, `decide_*` consults deny, then ask, then allow, across every source, so a deny from the
//! lowest-priority file still beats an allow from managed policy. Priority only chooses *which*
//! rule of a behaviour is reported (for explanations), never which behaviour wins.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::permissions::matching::RuleContentKind;
use crate::permissions::matching::domain::domain_rule_matches;
use crate::permissions::matching::mcp::rule_tool_matches;
use crate::permissions::matching::options::option_set_matches;
use crate::permissions::matching::parameter::parameter_rule_matches;
use crate::permissions::matching::path::PathPattern;
use crate::permissions::matching::search_glob;
use crate::permissions::matching::shell::shell_rule_matches;
use crate::permissions::rule::{PermissionRule, RuleBehavior};

/// What a file tool does to a path, for [`RuleSet::find_path_rule`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    /// Reading (Read, Glob, Grep, LS...): checked against `Read(...)` rules, and allowed by
    /// `Edit(...)` allow rules too, since permission to change a file includes seeing it.
    Read,
    /// Writing (Edit, Write, MultiEdit, NotebookEdit...): checked against `Edit(...)` rules, and
    /// blocked by `Read(...)` deny and ask rules too, since an edit shows and rewrites the content a
    /// read rule protects.
    Edit,
}

/// The file tools that read, whose path rules name what reads may touch.
pub const READING_TOOLS: [&str; 4] = ["Read", "Glob", "Grep", "LS"];

/// The file tools that change files, whose path rules name what edits may touch.
pub const EDITING_TOOLS: [&str; 4] = ["Edit", "Write", "MultiEdit", "NotebookEdit"];

impl Access {
    /// Whether a rule about `tool_name` with `behavior` takes part in a check of this access.
    ///
    /// Allow rules are taken as Claude Code takes them: `Read(...)` allows reads, `Edit(...)` allows
    /// edits and reads. A deny or ask rule that names any file tool is kept, fail closed: Claude
    /// Code matches only `Read(...)` and `Edit(...)`, so `Write(.env)` in a deny list protected
    /// nothing there (it only warns); here it refuses every edit of `.env`, and `Grep(~/.ssh/**)`
    /// every read and edit below `~/.ssh`, as the person who wrote them meant. (Allow rules that
    /// name other file tools stay unmatched, never broader than written; the settings warn.) A bare
    /// `Write` or `Grep` rule is about the tool itself, not about paths: it does not take part.
    fn consults(self, rule: &PermissionRule, behavior: RuleBehavior) -> bool {
        let tool_name = rule.value.tool_name.as_str();
        let allows = behavior == RuleBehavior::Allow;
        let restricts_paths = !allows && rule.value.content.is_some();
        let reading = READING_TOOLS.contains(&tool_name);
        let editing = EDITING_TOOLS.contains(&tool_name);
        match self {
            Access::Read => {
                tool_name == "Read" || (tool_name == "Edit" && allows) || (restricts_paths && reading)
            }
            Access::Edit => {
                tool_name == "Edit"
                    || (tool_name == "Read" && !allows)
                    || (restricts_paths && (reading || editing))
            }
        }
    }
}

/// A read whose exact files are only known when the command runs.
#[derive(Debug, Clone, PartialEq)]
pub enum ReadScope {
    /// Everything below a folder (absolute, normalised).
    Tree(PathBuf),
    /// What a shell glob expands to (absolute); `recursive` when the reader then descends into the
    /// folders it names.
    Glob {
        /// The glob.
        pattern: PathBuf,
        /// Whether folders it names are read recursively.
        recursive: bool,
    },
    /// An operand known only at run time (`$F`, `$(cmd)`), as written: it may name any path.
    Unknown(String),
}

/// How a search (Grep, Glob) meets a Read deny or ask rule, strongest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SearchMeets {
    /// It names paths the rule matches: its root or a glob's folder lies where everything matches,
    /// or a glob picks matched paths by name (`secrets/*`, `**/secrets/**`, `sec*/**`).
    Names,
    /// The rule cannot be compared with the search (its pattern is invalid, or its anchor or the
    /// home folder is relative): it may match anything the search reads.
    Unsure,
    /// The search may only come across matched paths while it descends (`**/*.rs` around
    /// `./secrets/**`); it leaves them out and says how many.
    Descends,
}

/// Rules from every source, kept in priority order (by [`crate::permissions::rule::RuleSource`],
/// then in the order they were added).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RuleSet {
    rules: Vec<PermissionRule>,
}

impl RuleSet {
    /// An empty rule set.
    pub fn new() -> Self {
        RuleSet::default()
    }

    /// A rule set holding `rules`, sorted by source priority (stable within a source).
    pub fn from_rules(mut rules: Vec<PermissionRule>) -> Self {
        rules.sort_by_key(|rule| rule.source);
        RuleSet { rules }
    }

    /// Adds `rule` after every rule of the same or higher priority.
    pub fn add(&mut self, rule: PermissionRule) {
        let at = self
            .rules
            .partition_point(|existing| existing.source <= rule.source);
        self.rules.insert(at, rule);
    }

    /// Every rule, highest priority first.
    pub fn all(&self) -> &[PermissionRule] {
        &self.rules
    }

    /// The rules with `behavior`, highest priority first.
    pub fn rules(&self, behavior: RuleBehavior) -> impl Iterator<Item = &PermissionRule> {
        self.rules.iter().filter(move |rule| rule.behavior == behavior)
    }

    /// A deny rule that removes `tool_name` entirely: a deny on the bare tool name, or on the
    /// tool's whole MCP server (`mcp__server`, `mcp__server__*`). Used to hide the tool from the
    /// model, not just to refuse its calls.
    pub fn bare_deny_for(&self, tool_name: &str) -> Option<&PermissionRule> {
        self.rules(RuleBehavior::Deny)
            .find(|rule| rule.value.content.is_none() && rule_tool_matches(&rule.value.tool_name, tool_name))
    }

    /// The highest-priority rule with `behavior` about `tool_name` whose content `matcher` accepts.
    ///
    /// Bare rules match any input without consulting `matcher`. Parameter rules
    /// ([`RuleContentKind::Parameter`]) are never offered for [`RuleBehavior::Allow`]: they may
    /// only deny or ask (fail closed). Tool-name aliases are the caller's job. For file paths use
    /// [`RuleSet::find_path_rule`], which resolves each rule's pattern against its own anchor.
    pub fn find<F>(&self, behavior: RuleBehavior, tool_name: &str, mut matcher: F) -> Option<&PermissionRule>
    where
        F: FnMut(&RuleContentKind<'_>) -> bool,
    {
        self.rules(behavior).find(|rule| {
            if !rule_tool_matches(&rule.value.tool_name, tool_name) {
                return false;
            }
            match rule.value.content_kind() {
                None => true,
                Some(kind @ RuleContentKind::Parameter { .. }) => {
                    behavior != RuleBehavior::Allow && matcher(&kind)
                }
                Some(
                    kind @ (RuleContentKind::Shell(_)
                    | RuleContentKind::Path(_)
                    | RuleContentKind::Domain(_)
                    | RuleContentKind::Other(_)),
                ) => matcher(&kind),
            }
        })
    }

    /// The strongest matching rule across all sources: deny beats ask beats allow.
    pub fn decide<F>(&self, tool_name: &str, mut matcher: F) -> Option<(RuleBehavior, &PermissionRule)>
    where
        F: FnMut(&RuleContentKind<'_>) -> bool,
    {
        RuleBehavior::STRONGEST_FIRST.into_iter().find_map(|behavior| {
            self.find(behavior, tool_name, &mut matcher)
                .map(|rule| (behavior, rule))
        })
    }

    /// The highest-priority `Bash` rule with `behavior` matching one simple `command` (the
    /// resolver calls this per subcommand).
    pub fn find_shell_rule(&self, behavior: RuleBehavior, command: &str) -> Option<&PermissionRule> {
        self.find(behavior, "Bash", |kind| match kind {
            RuleContentKind::Shell(pattern) => shell_rule_matches(pattern, command),
            RuleContentKind::Path(_)
            | RuleContentKind::Domain(_)
            | RuleContentKind::Parameter { .. }
            | RuleContentKind::Other(_) => false,
        })
    }

    /// The highest-priority shell rule with `behavior` matching any of `forms` (the texts of one
    /// command: as written, canonical, without git's global options...). Deny and ask rules also
    /// match by option set where the program's options are known (`Bash(rm -rf *)` matches
    /// `rm -r -f x`); allow rules only literally.
    pub fn find_shell_rule_in_forms(
        &self,
        behavior: RuleBehavior,
        forms: &[&str],
    ) -> Option<&PermissionRule> {
        self.find(behavior, "Bash", |kind| match kind {
            RuleContentKind::Shell(pattern) => forms.iter().any(|form| {
                shell_rule_matches(pattern, form)
                    || (behavior != RuleBehavior::Allow && option_set_matches(pattern, form))
            }),
            RuleContentKind::Path(_)
            | RuleContentKind::Domain(_)
            | RuleContentKind::Parameter { .. }
            | RuleContentKind::Other(_) => false,
        })
    }

    /// [`RuleSet::find_shell_rule`] for deny, then ask, then allow.
    pub fn decide_shell(&self, command: &str) -> Option<(RuleBehavior, &PermissionRule)> {
        RuleBehavior::STRONGEST_FIRST.into_iter().find_map(|behavior| {
            self.find_shell_rule(behavior, command)
                .map(|rule| (behavior, rule))
        })
    }

    /// The highest-priority file rule with `behavior` that applies to `access` of `path`.
    ///
    /// Which rules take part is described on [`Access`]: `Read` checks `Read(...)` rules plus
    /// `Edit(...)` allow rules; `Edit` checks `Edit(...)` rules plus `Read(...)` deny and ask rules.
    /// `path` should be absolute (it is normalised lexically here). When a pattern cannot be
    /// applied — `path`, the rule's anchor or `home` is relative, or the pattern is not a valid
    /// glob — a deny or ask rule counts as matching and an allow rule does not (fail closed).
    pub fn find_path_rule(
        &self,
        behavior: RuleBehavior,
        access: Access,
        path: &Path,
        home: &Path,
    ) -> Option<&PermissionRule> {
        let unsure = behavior != RuleBehavior::Allow;
        self.rules(behavior).find(|rule| {
            if !access.consults(rule, behavior) {
                return false;
            }
            let Some(content) = rule.value.content.as_deref() else {
                return true;
            };
            // A relative path, anchor or home cannot be compared with anything: fail closed.
            if !path.is_absolute() || !rule.anchor.is_absolute() || !home.is_absolute() {
                return unsure;
            }
            match PathPattern::compile_shared(content, &rule.anchor, home) {
                Ok(pattern) => pattern.matches(path),
                Err(_) => unsure,
            }
        })
    }

    /// The highest-priority Read deny or ask rule (`behavior`) that may match some path a read of
    /// `scope` reaches (a folder read recursively, a glob, an operand known only at run time), with
    /// whether it surely matches everything read there (`grep -r x secrets` under
    /// `Read(./secrets/**)`). Like [`RuleSet::find_path_rule`], a rule that cannot be applied counts
    /// as matching.
    pub fn find_read_rule_in_scope(
        &self,
        behavior: RuleBehavior,
        scope: &ReadScope,
        home: &Path,
    ) -> Option<(&PermissionRule, bool)> {
        if behavior == RuleBehavior::Allow {
            return None;
        }
        self.rules(behavior).find_map(|rule| {
            if !Access::Read.consults(rule, behavior) {
                return None;
            }
            let Some(content) = rule.value.content.as_deref() else {
                return Some((rule, true));
            };
            if !rule.anchor.is_absolute() || !home.is_absolute() {
                return Some((rule, false));
            }
            let Ok(pattern) = PathPattern::compile_shared(content, &rule.anchor, home) else {
                return Some((rule, false));
            };
            let found = match scope {
                ReadScope::Tree(dir) if pattern.covers_everything_under(dir) => Some(true),
                ReadScope::Tree(dir) => pattern.may_match_under(dir).then_some(false),
                ReadScope::Glob {
                    pattern: glob,
                    recursive,
                } => pattern.may_match_glob(glob, *recursive).then_some(false),
                ReadScope::Unknown(_) => Some(false),
            };
            found.map(|surely| (rule, surely))
        })
    }

    /// The Read deny or ask rule (`behavior`) a search meets most strongly (see [`SearchMeets`];
    /// among equals, the highest-priority one): a search of each of `roots` (absolute, normalised)
    /// reading what `globs` match (relative to the root or absolute, `**` crossing folders; empty:
    /// everything below the root).
    pub fn find_read_rule_met_by_search(
        &self,
        behavior: RuleBehavior,
        roots: &[PathBuf],
        globs: &[String],
        home: &Path,
    ) -> Option<(&PermissionRule, SearchMeets)> {
        if behavior == RuleBehavior::Allow {
            return None;
        }
        let searches: Vec<(&PathBuf, Vec<PathBuf>)> = roots
            .iter()
            .map(|root| (root, search_glob::absolute_alternatives(root, globs)))
            .collect();
        let mut strongest: Option<(&PermissionRule, SearchMeets)> = None;
        for rule in self.rules(behavior) {
            if !Access::Read.consults(rule, behavior) {
                continue;
            }
            let meets = match rule.value.content.as_deref() {
                None => Some(SearchMeets::Names),
                Some(_) if !rule.anchor.is_absolute() || !home.is_absolute() => Some(SearchMeets::Unsure),
                Some(content) => match PathPattern::compile_shared(content, &rule.anchor, home) {
                    Err(_) => Some(SearchMeets::Unsure),
                    Ok(pattern) => searches
                        .iter()
                        .filter_map(|(root, alternatives)| pattern.search_reach(root, alternatives))
                        .map(|names| {
                            if names {
                                SearchMeets::Names
                            } else {
                                SearchMeets::Descends
                            }
                        })
                        .min(),
                },
            };
            if let Some(meets) = meets
                && strongest.is_none_or(|(_, kept)| meets < kept)
            {
                strongest = Some((rule, meets));
            }
        }
        strongest
    }

    /// The rules with `behavior` that take part in a check of `access` and name paths (bare rules
    /// left out): for tools that must leave out what Read deny rules match while they walk.
    pub fn path_rules_consulted(
        &self,
        behavior: RuleBehavior,
        access: Access,
    ) -> impl Iterator<Item = &PermissionRule> {
        self.rules(behavior)
            .filter(move |rule| access.consults(rule, behavior) && rule.value.content.is_some())
    }

    /// [`RuleSet::find_path_rule`] for deny, then ask, then allow.
    pub fn decide_path(
        &self,
        access: Access,
        path: &Path,
        home: &Path,
    ) -> Option<(RuleBehavior, &PermissionRule)> {
        RuleBehavior::STRONGEST_FIRST.into_iter().find_map(|behavior| {
            self.find_path_rule(behavior, access, path, home)
                .map(|rule| (behavior, rule))
        })
    }

    /// The highest-priority `WebFetch` rule with `behavior` matching `url`'s host. A URL whose
    /// host cannot be extracted matches only bare rules; the resolver should ask about it (see
    /// [`crate::permissions::matching::domain::url_host`]).
    pub fn find_domain_rule(&self, behavior: RuleBehavior, url: &str) -> Option<&PermissionRule> {
        self.find(behavior, "WebFetch", |kind| match kind {
            RuleContentKind::Domain(host) => domain_rule_matches(host, url),
            RuleContentKind::Shell(_)
            | RuleContentKind::Path(_)
            | RuleContentKind::Parameter { .. }
            | RuleContentKind::Other(_) => false,
        })
    }

    /// The hosts `WebFetch(domain:…)` deny rules name, as written (`*.example.com` too). A bare
    /// `WebFetch` denial denies the tool, not a site, and is not among them.
    pub fn denied_domains(&self) -> impl Iterator<Item = &str> {
        self.rules(RuleBehavior::Deny)
            .filter(|r| r.value.tool_name == "WebFetch")
            .filter_map(|r| r.value.content.as_deref()?.strip_prefix("domain:"))
    }

    /// Whether a `WebFetch(domain:…)` deny rule covers `url`'s host (what WebSearch's results and
    /// an attached page are held to).
    pub fn denies_domain(&self, url: &str) -> bool {
        self.denied_domains().any(|host| domain_rule_matches(host, url))
    }

    /// The strongest rule about `tool_name` whose parameter pattern matches `input`, or a bare
    /// rule. Allow can only come from a bare rule (parameter rules never allow).
    pub fn decide_parameters(
        &self,
        tool_name: &str,
        input: &Value,
    ) -> Option<(RuleBehavior, &PermissionRule)> {
        self.decide(tool_name, |kind| match kind {
            RuleContentKind::Parameter { key, glob } => parameter_rule_matches(key, glob, input),
            RuleContentKind::Shell(_)
            | RuleContentKind::Path(_)
            | RuleContentKind::Domain(_)
            | RuleContentKind::Other(_) => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::rule::{RuleSource, RuleValue};
    use pretty_assertions::assert_eq;
    use serde_json::json;

    const PROJECT: &str = "/work/project";
    const HOME: &str = "/home/me";

    fn rule(source: RuleSource, behavior: RuleBehavior, value: &str) -> PermissionRule {
        let anchor = match source {
            RuleSource::UserSettings => HOME,
            _ => PROJECT,
        };
        PermissionRule::new(source, behavior, value.parse::<RuleValue>().unwrap(), anchor)
    }

    fn shown(found: Option<(RuleBehavior, &PermissionRule)>) -> Option<String> {
        found.map(|(behavior, rule)| format!("{behavior} {} {}", rule.value, rule.source))
    }

    #[test]
    fn keeps_rules_in_priority_order_stable_within_a_source() {
        let mut set = RuleSet::from_rules(vec![
            rule(RuleSource::UserSettings, RuleBehavior::Allow, "A"),
            rule(RuleSource::Managed, RuleBehavior::Allow, "B"),
            rule(RuleSource::UserSettings, RuleBehavior::Allow, "C"),
        ]);
        set.add(rule(RuleSource::CliArg, RuleBehavior::Allow, "D"));
        set.add(rule(RuleSource::UserSettings, RuleBehavior::Allow, "E"));
        set.add(rule(RuleSource::ClaudeProjectSettings, RuleBehavior::Allow, "F"));
        let order: Vec<String> = set.all().iter().map(|r| r.value.to_string()).collect();
        assert_eq!(order, vec!["B", "D", "A", "C", "E", "F"]);
    }

    #[test]
    fn find_returns_the_highest_priority_match() {
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::UserSettings, RuleBehavior::Allow, "Bash(git *)"),
            rule(RuleSource::LocalSettings, RuleBehavior::Allow, "Bash(git status)"),
        ]);
        let found = set.find_shell_rule(RuleBehavior::Allow, "git status").unwrap();
        assert_eq!(found.source, RuleSource::LocalSettings);
        let found = set.find_shell_rule(RuleBehavior::Allow, "git log").unwrap();
        assert_eq!(found.source, RuleSource::UserSettings);
        assert_eq!(set.find_shell_rule(RuleBehavior::Allow, "gitx"), None);
    }

    #[test]
    fn deny_beats_ask_beats_allow_across_sources() {
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::Managed, RuleBehavior::Allow, "Bash(rm *)"),
            rule(RuleSource::Session, RuleBehavior::Ask, "Bash(rm -rf *)"),
            rule(
                RuleSource::ClaudeProjectSettings,
                RuleBehavior::Deny,
                "Bash(rm -rf /*)",
            ),
        ]);
        assert_eq!(
            shown(set.decide_shell("rm -rf /tmp")),
            Some("deny Bash(rm -rf /*) claudeProjectSettings".into())
        );
        assert_eq!(
            shown(set.decide_shell("rm -rf build")),
            Some("ask Bash(rm -rf *) session".into())
        );
        assert_eq!(
            shown(set.decide_shell("rm file")),
            Some("allow Bash(rm *) policySettings".into())
        );
        assert_eq!(shown(set.decide_shell("ls")), None);
    }

    #[test]
    fn bare_rules_match_any_input() {
        let set = RuleSet::from_rules(vec![rule(RuleSource::ProjectSettings, RuleBehavior::Ask, "Bash")]);
        assert_eq!(
            shown(set.decide_shell("anything at all")),
            Some("ask Bash projectSettings".into())
        );
        assert_eq!(shown(set.decide("Read", |_| true)), None);
    }

    #[test]
    fn bare_deny_covers_tool_and_mcp_server() {
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::UserSettings, RuleBehavior::Deny, "WebSearch"),
            rule(RuleSource::UserSettings, RuleBehavior::Deny, "Bash(rm *)"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "mcp__github"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "mcp__slack__*"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "mcp__db__drop"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Read"),
        ]);
        let denied = |tool: &str| set.bare_deny_for(tool).map(|r| r.value.to_string());
        assert_eq!(denied("WebSearch"), Some("WebSearch".into()));
        assert_eq!(denied("Bash"), None);
        assert_eq!(denied("Read"), None);
        assert_eq!(denied("mcp__github__create_issue"), Some("mcp__github".into()));
        assert_eq!(denied("mcp__slack__post"), Some("mcp__slack__*".into()));
        assert_eq!(denied("mcp__db__drop"), Some("mcp__db__drop".into()));
        assert_eq!(denied("mcp__db__select"), None);
    }

    #[test]
    fn mcp_server_rules_decide_for_each_tool() {
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "mcp__github"),
            rule(
                RuleSource::ProjectSettings,
                RuleBehavior::Ask,
                "mcp__github__delete_repo",
            ),
        ]);
        assert_eq!(
            shown(set.decide("mcp__github__delete_repo", |_| false)),
            Some("ask mcp__github__delete_repo projectSettings".into())
        );
        assert_eq!(
            shown(set.decide("mcp__github__list", |_| false)),
            Some("allow mcp__github projectSettings".into())
        );
    }

    #[test]
    fn parameter_rules_deny_and_ask_but_never_allow() {
        let set = RuleSet::from_rules(vec![
            rule(
                RuleSource::UserSettings,
                RuleBehavior::Allow,
                "mcp__db__query(table:*)",
            ),
            rule(
                RuleSource::UserSettings,
                RuleBehavior::Deny,
                "mcp__db__query(table:users*)",
            ),
            rule(
                RuleSource::UserSettings,
                RuleBehavior::Ask,
                "Agent(subagent_type:Explore)",
            ),
        ]);
        let query = |table: &str| json!({"table": table, "sql": "select 1"});
        assert_eq!(
            shown(set.decide_parameters("mcp__db__query", &query("users_old"))),
            Some("deny mcp__db__query(table:users*) userSettings".into())
        );
        assert_eq!(
            shown(set.decide_parameters("mcp__db__query", &query("orders"))),
            None
        );
        assert_eq!(
            shown(set.decide_parameters("Agent", &json!({"subagent_type": "Explore"}))),
            Some("ask Agent(subagent_type:Explore) userSettings".into())
        );
        assert_eq!(set.find(RuleBehavior::Allow, "mcp__db__query", |_| true), None);
    }

    #[test]
    fn path_rules_for_read_and_edit() {
        let set = RuleSet::from_rules(vec![
            rule(
                RuleSource::ProjectSettings,
                RuleBehavior::Deny,
                "Read(./secrets/**)",
            ),
            rule(RuleSource::ProjectSettings, RuleBehavior::Ask, "Read(*.pem)"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Edit(/src/**)"),
            rule(RuleSource::UserSettings, RuleBehavior::Deny, "Edit(~/.ssh/**)"),
            rule(RuleSource::UserSettings, RuleBehavior::Allow, "Read(/notes/**)"),
        ]);
        let home = Path::new(HOME);
        let decide = |access: Access, path: &str| shown(set.decide_path(access, Path::new(path), home));
        assert_eq!(
            decide(Access::Edit, "/work/project/secrets/a.txt"),
            Some("deny Read(./secrets/**) projectSettings".into())
        );
        assert_eq!(
            decide(Access::Read, "/work/project/secrets/a.txt"),
            Some("deny Read(./secrets/**) projectSettings".into())
        );
        assert_eq!(
            decide(Access::Edit, "/work/project/src/key.pem"),
            Some("ask Read(*.pem) projectSettings".into())
        );
        assert_eq!(
            decide(Access::Edit, "/work/project/src/main.rs"),
            Some("allow Edit(/src/**) projectSettings".into())
        );
        assert_eq!(
            decide(Access::Read, "/work/project/src/main.rs"),
            Some("allow Edit(/src/**) projectSettings".into())
        );
        assert_eq!(decide(Access::Read, "/home/me/.ssh/id_rsa"), None);
        assert_eq!(
            decide(Access::Edit, "/home/me/.ssh/id_rsa"),
            Some("deny Edit(~/.ssh/**) userSettings".into())
        );
        assert_eq!(
            decide(Access::Read, "/home/me/notes/todo.md"),
            Some("allow Read(/notes/**) userSettings".into())
        );
        assert_eq!(decide(Access::Edit, "/home/me/notes/todo.md"), None);
        assert_eq!(decide(Access::Edit, "/work/project/src/../../escape.rs"), None);
    }

    #[test]
    fn deny_and_ask_rules_naming_any_file_tool_hold_and_allow_rules_stay_as_written() {
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "Write(.env)"),
            rule(
                RuleSource::ProjectSettings,
                RuleBehavior::Ask,
                "NotebookEdit(*.ipynb)",
            ),
            rule(RuleSource::UserSettings, RuleBehavior::Deny, "Grep(~/.ssh/**)"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Write(/gen/**)"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Glob(/docs/**)"),
            // Bare: about the tools themselves (hidden from the model), not about paths.
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "MultiEdit"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Deny, "LS"),
        ]);
        let home = Path::new(HOME);
        let decide = |access: Access, path: &str| shown(set.decide_path(access, Path::new(path), home));
        let cases = [
            (
                Access::Edit,
                "/work/project/.env",
                Some("deny Write(.env) projectSettings"),
            ),
            (Access::Read, "/work/project/.env", None),
            (
                Access::Edit,
                "/work/project/a.ipynb",
                Some("ask NotebookEdit(*.ipynb) projectSettings"),
            ),
            (
                Access::Read,
                "/home/me/.ssh/id_rsa",
                Some("deny Grep(~/.ssh/**) userSettings"),
            ),
            (
                Access::Edit,
                "/home/me/.ssh/config",
                Some("deny Grep(~/.ssh/**) userSettings"),
            ),
            (Access::Edit, "/work/project/gen/a.rs", None),
            (Access::Read, "/work/project/docs/a.md", None),
            (Access::Edit, "/work/project/src/main.rs", None),
            (Access::Read, "/work/project/src/main.rs", None),
        ];
        let found: Vec<_> = cases
            .iter()
            .map(|(access, path, _)| decide(*access, path))
            .collect();
        let expected: Vec<_> = cases.iter().map(|(_, _, e)| e.map(String::from)).collect();
        assert_eq!(found, expected);
        assert_eq!(
            crate::permissions::lint::rule_warnings(&set)
                .iter()
                .map(|w| (w.rule.as_str(), w.suggestion.as_str()))
                .collect::<Vec<_>>(),
            [
                ("Write(/gen/**)", "Edit(/gen/**)"),
                ("Glob(/docs/**)", "Read(/docs/**)")
            ]
        );
    }

    #[test]
    fn unusable_path_patterns_fail_closed() {
        // Parsing rejects invalid globs; a rule built in code can still carry one.
        let unparsed = |behavior, content: &str| {
            PermissionRule::new(
                RuleSource::ProjectSettings,
                behavior,
                RuleValue::with_content("Edit", content),
                PROJECT,
            )
        };
        let set = RuleSet::from_rules(vec![
            unparsed(RuleBehavior::Deny, "/gen/[z-a]"),
            unparsed(RuleBehavior::Allow, "/src/[z-a]"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Edit(/docs/**)"),
        ]);
        let home = Path::new(HOME);
        assert_eq!(
            shown(set.decide_path(Access::Edit, Path::new("/work/project/x"), home)),
            Some("deny Edit(/gen/[z-a]) projectSettings".into())
        );
        let relative_anchor = RuleSet::from_rules(vec![PermissionRule::new(
            RuleSource::Session,
            RuleBehavior::Deny,
            RuleValue::with_content("Edit", "/src/**"),
            "project",
        )]);
        assert_eq!(
            shown(relative_anchor.decide_path(Access::Edit, Path::new("/elsewhere/x"), home)),
            Some("deny Edit(/src/**) session".into())
        );
        let allow_only = RuleSet::from_rules(set.all()[1..].to_vec());
        assert_eq!(
            shown(allow_only.decide_path(Access::Edit, Path::new("/work/project/src/x"), home)),
            None
        );
        assert_eq!(
            shown(allow_only.decide_path(Access::Edit, Path::new("docs/a.md"), home)),
            None
        );
    }

    #[test]
    fn domain_rules() {
        let set = RuleSet::from_rules(vec![
            rule(
                RuleSource::UserSettings,
                RuleBehavior::Allow,
                "WebFetch(domain:*.rust-lang.org)",
            ),
            rule(
                RuleSource::UserSettings,
                RuleBehavior::Deny,
                "WebFetch(domain:evil.com)",
            ),
        ]);
        assert!(
            set.find_domain_rule(RuleBehavior::Allow, "https://doc.rust-lang.org/std")
                .is_some()
        );
        assert!(
            set.find_domain_rule(RuleBehavior::Allow, "https://rust-lang.org")
                .is_none()
        );
        assert!(set.find_domain_rule(RuleBehavior::Allow, "garbage").is_none());
        assert!(
            set.find_domain_rule(RuleBehavior::Deny, "http://x.org@EVIL.com/")
                .is_some()
        );
    }
}
