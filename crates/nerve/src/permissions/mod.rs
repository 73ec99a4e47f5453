//! The permission system: modes, rules in Claude Code's syntax, settings sources, protected paths,
//! and the resolver that turns a call into allow, ask or deny.
//!
//! - [`mode`]: the permission modes and their names;
//! - [`rule`]: rule sources, behaviours, values (parse/display) and anchored rules;
//! - [`matching`]: one matcher per kind of rule content (shell, path, domain, MCP name, parameter);
//! - [`rule_set`]: all rules from all sources, with priority-ordered lookup;
//! - [`settings`]: loading and writing settings files;
//! - [`protected`]: paths never pre-approved for writing, and the working-directory check;
//! - [`lint`]: warnings about deny and ask rules that are easy to dodge;
//! - [`suggest`]: "Always allow" suggestions that never copy a whole command;
//! - [`subject`]: what a tool call offers rules to match against;
//! - [`evaluate`]: the static decision (hook decision → rules → tool check → mode);
//! - [`resolver`]: asking (PermissionRequest hooks → auto-mode classifier → the user);
//! - [`classifier`]: the auto-mode classifier over a fast model;
//! - [`request`], [`verdict`]: what front-ends see and answer.

pub mod classifier;
mod context;
pub mod evaluate;
pub mod lint;
pub mod matching;
mod mode_switch;
pub mod paths;
mod pending;
pub mod protected;
mod request;
pub mod rule;
pub mod rule_set;
mod subject;
pub mod suggest;
mod tool_opinion;
mod verdict;

pub use context::{PermissionContext, SharedRules};
pub use evaluate::{CallFacts, HookPermission, evaluate};
pub use mode_switch::{ModeRefused, ModeSwitch, switch_mode};
pub use nerve_protocol::permission::{PermissionMode, UnknownModeError};
pub use pending::{NotWaiting, PendingPrompts};
pub use request::{
    AutoClassifier, ClassifierRequest, ClassifierVerdict, MatchedRule, PermissionPrompter, PermissionRequest,
    Previewer, RuleScope, UserAnswer,
};
pub use rule::{PermissionRule, RuleBehavior, RuleParseError, RuleSource, RuleValue};
pub use rule_set::{Access, RuleSet, SearchMeets};
pub use subject::{PermissionSubject, ReadScope, SearchSubject, ShellPart, ShellSubject};
pub use tool_opinion::ToolPermission;
pub use verdict::{DecidedBy, Evaluation, PartDecision, PartVerdict, Resolution, Verdict, allowed_by_words};
