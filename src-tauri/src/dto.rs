//! The shapes the shell's commands take and return. The engine's own types (`nerve-protocol`:
//! events, permission requests and answers, modes, sessions, outputs, change sets) cross the IPC
//! boundary unchanged; these are the shell's additions.
//! All of them are exported to TypeScript (`ui/src/bindings/`), so the UI never declares them twice.

pub use nerve_protocol::outputs::PersistedChunk;
use nerve_protocol::session::SessionState;
pub use nerve_protocol::session::{CompactOutcome, RewindOutcome};
use nerve_protocol::settings::CredentialStatus;
use nerve_protocol::{PermissionMode, TurnEnd};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The user's app settings (kept in the data folder's `desktop.json`; the API key and the auth
/// token are not here). They apply to sessions started after they are saved.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct AppSettings {
    /// A base URL replacing Anthropic's (a proxy, a gateway, a local model server).
    pub base_url: Option<String>,
    /// The API the model server speaks (the Messages API unless set); its key is kept in the
    /// keyring under its own entry.
    #[serde(default)]
    pub provider: Option<nerve_protocol::settings::ModelProvider>,
    /// The main model; unset means the default.
    pub model: Option<String>,
    /// The fast model for side jobs; unset means the default.
    pub fast_model: Option<String>,
    /// How hard new sessions' model thinks; unset means off.
    pub effort: Option<nerve_protocol::prompt::Effort>,
    /// The mode new sessions start in when the project's settings name none.
    pub default_mode: Option<PermissionMode>,
    /// Most tool calls running at once; unset means the engine's default.
    pub max_concurrency: Option<u32>,
    /// Most model calls one prompt may make before the turn stops and asks to continue; unset
    /// means the engine's default (100).
    pub max_model_calls: Option<u32>,
    /// Extra request headers for a gateway, one `Name: value` per line (as
    /// `ANTHROPIC_CUSTOM_HEADERS`).
    pub custom_headers: Option<String>,
    /// When a new session gets a git worktree of its own (by default: when another session of the
    /// project is live).
    pub new_session_worktree: nerve_protocol::workspace::WorktreeWhen,
    /// Which ended turns get a system notification when the user is not looking at their session
    /// (another session shown, or the window in the background).
    pub turn_end_notices: TurnEndNotices,
    /// The user's keyboard shortcuts: an action's id (`palette.open`, `session.next`…) to the keys
    /// that run it (`Ctrl+K`); an action not named keeps its default.
    pub shortcuts: std::collections::BTreeMap<String, String>,
    /// The sessions sidebar was left hidden (restored at the next start); unset follows the
    /// window's width.
    pub sidebar_collapsed: Option<bool>,
    /// A release feed (JSON: `{"version", "url", "notes"}`) checked at start and on request;
    /// unset means no check.
    pub update_feed_url: Option<String>,
}

/// Which ended turns get a system notification.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TurnEndNotices {
    /// Every turn that ends by itself: done, failed, or stopped at the call limit.
    #[default]
    All,
    /// Only turns that failed or stopped at the call limit.
    Failures,
    /// None.
    Off,
}

impl TurnEndNotices {
    /// Whether a turn that ended with `end` gets a notice. A turn the user stopped gets none: they
    /// were there.
    pub fn wants(self, end: &TurnEnd) -> bool {
        let failed = match end {
            TurnEnd::EndTurn | TurnEnd::StoppedByHook => false,
            TurnEnd::Error | TurnEnd::MaxTurns | TurnEnd::MaxTokens | TurnEnd::Refusal => true,
            TurnEnd::Aborted | TurnEnd::Interrupted => return false,
        };
        match self {
            TurnEndNotices::All => true,
            TurnEndNotices::Failures => failed,
            TurnEndNotices::Off => false,
        }
    }
}

/// What the first screen needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AppState {
    /// The credentials a session would use (never the key itself).
    #[serde(flatten)]
    #[ts(flatten)]
    pub credentials: CredentialStatus,
    /// The settings.
    pub settings: AppSettings,
    /// The model used when the settings name none.
    pub default_model: String,
    /// The fast model used when the settings name none.
    pub default_fast_model: String,
    /// Recently opened project folders, newest first.
    pub recent_projects: Vec<String>,
}

/// An opened project folder.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ProjectInfo {
    /// The canonical folder.
    pub path: String,
    /// The mode sessions start in (from the settings).
    pub mode: PermissionMode,
    /// Earlier sessions, newest first.
    pub sessions: Vec<nerve_protocol::transcripts::TranscriptSummary>,
    /// `.mcp.json` servers that are not started until the settings approve them.
    pub unapproved_mcp_servers: Vec<String>,
}

/// A started (or resumed) session: the engine's state of it, and whether it is the demo.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionInfo {
    /// The session as the engine reports it.
    #[serde(flatten)]
    #[ts(flatten)]
    pub state: SessionState,
    /// Whether this is the demo (a scripted model in a sample project).
    pub demo: bool,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TurnSummary {
    /// Why it ended.
    pub end: TurnEnd,
    /// The error, when it ended with one.
    pub error: Option<String>,
    /// The session's cost so far in USD, when the model's price is known.
    pub session_cost_usd: Option<f64>,
}

/// What the settings screen shows of a project: its rules, hooks and MCP servers.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ProjectSettingsView {
    /// The project folder.
    pub project_path: String,
    /// Every rule in effect (with the open session's own rules when one is given).
    pub rules: nerve::settings_view::RulesView,
    /// The hooks, read-only.
    pub hooks: Vec<nerve::settings_view::HookView>,
    /// The project's `.mcp.json` servers.
    pub mcp_servers: Vec<nerve::settings_view::McpServerView>,
    /// Sub-agent types and skills defined in files (the project's and the user's), with the files
    /// that could not be used.
    pub definitions: nerve_protocol::definitions::DefinitionsView,
}

/// What "Copy diagnostics" copies: what a bug report needs, never a key or a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Diagnostics {
    /// Nerve's version.
    pub version: String,
    /// The operating system (name, version, kernel, architecture).
    pub os: String,
    /// The WebKitGTK library the window runs on.
    pub webkitgtk: String,
    /// Whether the Bash sandbox works here, and why not when it does not.
    pub sandbox: String,
    /// The settings files that exist, with their paths.
    pub settings_sources: Vec<String>,
    /// The folder of the app's log files.
    pub log_dir: String,
    /// All of the above as one text, ready to paste into a bug report.
    pub report: String,
}
