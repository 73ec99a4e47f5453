//! Asking someone: the request a front-end shows, the answer it sends back, and the traits through
//! which the engine asks (a user through a UI, or the auto-mode classifier).

use std::path::{Path, PathBuf};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::permissions::{PartVerdict, RuleBehavior};

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
    pub preview: Option<Value>,
    /// Which sub-agent asks, if not the main agent.
    pub agent_label: Option<String>,
    /// Whether the call would run in the sandbox (Bash); the dialog says so.
    #[serde(default)]
    pub sandbox: Option<crate::sandbox::SandboxState>,
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

/// Asks the user. Implemented by front-ends (through the event stream and `Session::answer`).
#[async_trait]
pub trait PermissionPrompter: Send + Sync {
    /// Asks and waits for the answer. A front-end that goes away answers `Deny`.
    async fn ask(&self, request: PermissionRequest) -> UserAnswer;
}

/// The auto-mode classifier's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassifierVerdict {
    /// Safe to run without asking.
    Allow {
        /// Why.
        reason: String,
    },
    /// Ask the user.
    Ask {
        /// Why.
        reason: String,
    },
}

/// One call as the auto-mode classifier sees it.
#[derive(Debug, Clone, Copy)]
pub struct ClassifierRequest<'a> {
    /// The tool.
    pub tool_name: &'a str,
    /// The tool's compact description of the call (never empty: an empty one is never sent).
    pub classifier_input: &'a str,
    /// Where relative paths in the input point.
    pub cwd: &'a Path,
    /// The project and the other folders the session may work in.
    pub working_dirs: &'a [PathBuf],
}

/// Judges a call in auto mode before the user would be asked (see
/// [`crate::permissions::classifier::ModelClassifier`]).
#[async_trait]
pub trait AutoClassifier: Send + Sync {
    /// Judges the call. Failures must come back as `Ask`.
    async fn classify(&self, request: &ClassifierRequest<'_>) -> ClassifierVerdict;
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
