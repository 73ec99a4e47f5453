//! Permission prompts and their explanations: what the user is asked, what decided, what they answer.

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use crate::mode::{PermissionMode, UnknownModeError};
use crate::preview::PermissionPreview;
use crate::sandbox::SandboxState;
use crate::tool::{EditableField, ToolKind};

/// A question to the user about one call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PermissionRequest {
    /// Answer with this id.
    pub id: String,
    /// The call.
    pub tool_use_id: String,
    /// The tool.
    pub tool_name: String,
    /// What kind of work the tool does (the dialog is chosen by it).
    pub kind: ToolKind,
    /// The tool's name as users read it.
    pub display_name: String,
    /// The input field the user may edit before allowing, if any.
    pub editable_field: Option<EditableField>,
    /// What will run, as hooks and rules saw it (absolute paths...).
    pub input: Value,
    /// One line for the dialog's title.
    pub summary: String,
    /// Why the user is asked.
    pub reason: String,
    /// For shell commands: each part with its verdict and the deciding rule.
    pub parts: Vec<PartVerdict>,
    /// Suggested "always allow" rules (at most five; a literal whole command only for a call that
    /// may destroy data, which never gets a broader one).
    pub suggestions: Vec<String>,
    /// Why the suggestions are narrower than usual, or absent.
    pub suggestion_note: Option<String>,
    /// Whether the call may destroy data (`rm -rf`, a hard reset, a forced push): the dialog says so.
    pub destructive: bool,
    /// Tool-specific preview (a diff, a sed simulation) for the dialog.
    pub preview: Option<PermissionPreview>,
    /// Which sub-agent asks, if not the main agent.
    pub agent_label: Option<String>,
    /// The Agent call whose sub-agent asks (its card shows the sub-agent), if not the main agent.
    #[serde(default)]
    pub agent_call_id: Option<String>,
    /// Whether the call would run in the sandbox (Bash); the dialog says so.
    #[serde(default)]
    pub sandbox: Option<SandboxState>,
    /// Set when a sandboxed command asks to reach a host through the sandbox's proxy (the command
    /// waits): the dialog shows the host, the port and the command, and offers allow once, always
    /// for this host (the suggested `WebFetch(domain:…)` rule) and deny.
    #[serde(default)]
    pub network: Option<NetworkAccessRequest>,
}

/// A sandboxed command's request to reach a host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NetworkAccessRequest {
    /// The host as the command named it.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The command that wants it.
    pub command: String,
    /// The session the command runs in.
    pub session_id: String,
}

/// Where an "always allow" rule is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RuleScope {
    /// Until the session ends.
    Session,
    /// In the project's `.nerve/settings.local.json`.
    ProjectLocal,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "answer", rename_all = "snake_case")]
pub enum UserAnswer {
    /// Run it this once. `updated_input` is the input as the user edited it, if they did.
    AllowOnce {
        /// Edited input.
        updated_input: Option<Value>,
    },
    /// Run it and add these rules.
    AlwaysAllow {
        /// The rules (as edited by the user).
        rules: Vec<String>,
        /// Where to keep them.
        scope: RuleScope,
        /// Edited input.
        updated_input: Option<Value>,
    },
    /// Do not run it; `message` goes to the model.
    Deny {
        /// Optional message for the model.
        message: Option<String>,
    },
}

/// A rule that matched, for explanations.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MatchedRule {
    /// The rule as written (`Bash(git *)`).
    pub rule: String,
    /// Its behaviour.
    pub behavior: RuleBehavior,
    /// Where it came from (`projectSettings`...).
    pub source: String,
}

/// Allow, ask or deny: what the permission system decides about a call, what a PreToolUse hook
/// answers, and what a rule does are one type ([`RuleBehavior`]).
pub type Verdict = RuleBehavior;

/// What decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DecidedBy {
    /// A permission rule.
    Rule,
    /// A PreToolUse or PermissionRequest hook.
    Hook,
    /// The tool's own check.
    Tool,
    /// The permission mode.
    Mode,
    /// The call only reads inside the working directories.
    ReadOnly,
    /// A protected path (never pre-approved).
    ProtectedPath,
    /// A command the parser could not understand.
    Unparsed,
    /// The auto-mode classifier.
    Classifier,
    /// The user.
    User,
    /// Nothing pre-approves it.
    Default,
}

/// The verdict on one part of a shell command (or a redirection target).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum PartDecision {
    /// A deny rule matched.
    Denied,
    /// An ask rule matched.
    AskRule,
    /// An allow rule matched.
    AllowedByRule,
    /// Known to only read.
    ReadOnly,
    /// Neither reads nor writes.
    Neutral,
    /// Nothing pre-approves it.
    NeedsApproval,
}

/// One part of a command with its verdict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PartVerdict {
    /// The simple command, or `> path` for a redirection target.
    pub part: String,
    /// Its verdict.
    pub decision: PartDecision,
    /// The rule that decided, if any.
    pub rule: Option<MatchedRule>,
}

/// Allow, ask or deny: what a matching rule does to a tool call, what the permission system
/// decides ([`Verdict`]) and what a hook answers. The order is the precedence when several
/// disagree: `Deny` beats `Ask` beats `Allow`.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::Display,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum RuleBehavior {
    /// Run without asking.
    Allow,
    /// Ask the user, even if an allow rule or the mode would approve.
    Ask,
    /// Refuse.
    Deny,
}

impl RuleBehavior {
    /// All behaviours in the order the resolver consults them: deny beats ask beats allow.
    pub const STRONGEST_FIRST: [RuleBehavior; 3] =
        [RuleBehavior::Deny, RuleBehavior::Ask, RuleBehavior::Allow];

    /// The key of this behaviour's list in a settings file's `permissions` object.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The static evaluation of a call (everything before anyone is asked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Evaluation {
    /// The verdict.
    pub decision: Verdict,
    /// What decided.
    pub decided_by: DecidedBy,
    /// Why, in a sentence for the user and the model.
    pub reason: String,
    /// The deciding rule, if a rule decided.
    pub rule: Option<MatchedRule>,
    /// For shell commands, every part with its verdict.
    pub parts: Vec<PartVerdict>,
    /// "Always allow" suggestions (for asks).
    pub suggestions: Vec<String>,
    /// Why the suggestions are narrower than usual, or absent (a call that may destroy data).
    #[serde(default)]
    pub suggestion_note: Option<String>,
    /// For an ask: whether the auto-mode classifier may settle it (a default ask, or asks about
    /// protected paths it may judge); asks from rules, hooks, the tool or an unparsed command go to
    /// the user.
    #[serde(default)]
    pub classifier_approvable: bool,
}

/// Where a rule was declared. Declaration order is priority order, highest first: `a < b` means a
/// rule from `a` is consulted before one from `b` with the same behaviour.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::Display,
    strum::VariantArray,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum RuleSource {
    /// Managed policy (`/etc/nerve/managed-settings.json`), set by an administrator.
    #[serde(rename = "policySettings")]
    #[strum(serialize = "policySettings")]
    Managed,
    /// `--allow`/`--deny`-style command-line arguments.
    #[serde(rename = "cliArg")]
    #[strum(serialize = "cliArg")]
    CliArg,
    /// Granted during this session only ("allow for this session").
    #[serde(rename = "session")]
    #[strum(serialize = "session")]
    Session,
    /// `<project>/.nerve/settings.local.json`, personal and not committed.
    #[serde(rename = "localSettings")]
    #[strum(serialize = "localSettings")]
    LocalSettings,
    /// `<project>/.nerve/settings.json`, shared with the team.
    #[serde(rename = "projectSettings")]
    #[strum(serialize = "projectSettings")]
    ProjectSettings,
    /// `~/.config/nerve/settings.json`, the user's own defaults.
    #[serde(rename = "userSettings")]
    #[strum(serialize = "userSettings")]
    UserSettings,
    /// Claude Code's `<project>/.claude/settings.local.json`, reused at lower priority.
    #[serde(rename = "claudeLocalSettings")]
    #[strum(serialize = "claudeLocalSettings")]
    ClaudeLocalSettings,
    /// Claude Code's `<project>/.claude/settings.json`, reused at lower priority.
    #[serde(rename = "claudeProjectSettings")]
    #[strum(serialize = "claudeProjectSettings")]
    ClaudeProjectSettings,
}

impl RuleSource {
    /// Every source, highest priority first (declaration order).
    pub const ALL: &'static [RuleSource] = <RuleSource as strum::VariantArray>::VARIANTS;

    /// The name used in explanations and serialised rules (Claude Code's names where they exist).
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}
