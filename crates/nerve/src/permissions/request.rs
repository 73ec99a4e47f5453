//! Asking someone: the request a front-end shows, the answer it sends back, and the traits through
//! which the engine asks (a user through a UI, or the auto-mode classifier).

use std::path::{Path, PathBuf};

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

pub use nerve_protocol::permission::{MatchedRule, PermissionRequest, RuleScope, UserAnswer};
use nerve_protocol::preview::PermissionPreview;

/// Recomputes a waiting request's preview for an input the user edited in the dialog, with the
/// tool's own logic (Edit's forgiving matching, a fresh sed simulation), so what the dialog shows
/// is what would run.
#[async_trait]
pub trait Previewer: Send + Sync {
    /// The preview of `input`; `None` when the tool has none for it (an input that cannot apply).
    async fn preview(&self, input: Value) -> Option<PermissionPreview>;

    /// Whether the waiting call, as it was asked about, would be allowed without asking had
    /// `rules` been allow rules of the session: the same evaluation as the call's own, against
    /// the session's rules plus these (a batch panel shows which calls a rule would cover). The
    /// default: it cannot tell, so not covered.
    async fn covered_by(&self, _rules: &[crate::permissions::RuleValue]) -> bool {
        false
    }
}

/// Asks the user. Implemented by front-ends (through the event stream and `Session::answer`).
#[async_trait]
pub trait PermissionPrompter: Send + Sync {
    /// Asks and waits for the answer. A front-end that goes away answers `Deny`.
    async fn ask(&self, request: PermissionRequest) -> UserAnswer;

    /// Offered just before [`PermissionPrompter::ask`] for the same request: how to preview an
    /// edited input. A front-end that lets the user edit keeps it until the request is answered;
    /// the default ignores it.
    fn offer_previewer(&self, _request_id: &str, _previewer: Arc<dyn Previewer>) {}
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
