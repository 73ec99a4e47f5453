//! The context every tool call receives, grouped by concern. Tools read it; they change it only by
//! returning a [`crate::tool::ContextModifier`], which the executor applies at a safe moment.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::model::small::SmallModel;
use crate::permissions::PermissionContext;
use crate::tool::ToolPool;
use crate::tool::{ReadFileState, SessionExtensions, TodoItem};

/// Configuration set once when a session starts; mostly immutable.
#[derive(Debug, Clone)]
pub struct SessionConfig {
    /// The session's id (also the transcript's file name).
    pub session_id: String,
    /// The project folder the session was opened on.
    pub project_dir: PathBuf,
    /// Where this session's persisted tool outputs go.
    pub tool_results_dir: PathBuf,
    /// The transcript path given to hooks.
    pub transcript_path: PathBuf,
    /// The model the session talks to (for tools that call it, and for hooks).
    pub model: String,
    /// The session's tool pool, for tools that work on other tools (ToolSearch lists deferred
    /// tools and marks them loaded). The same `Arc` the pipeline runs calls against; `None` where
    /// no pool exists (a context built for a lone tool).
    pub tool_pool: Option<Arc<ToolPool>>,
    /// A small, fast model for tools' side jobs (WebFetch summarises pages with it). `None`: no
    /// model configured; such tools degrade (WebFetch returns the page itself).
    pub small_model: Option<Arc<dyn SmallModel>>,
    /// Runs sub-agents for the Agent tool (`None` where no model is configured).
    pub subagents: Option<Arc<dyn crate::tool::SubagentRunner>>,
    /// Where files are saved before a turn changes them (`None`: no checkpoints, as for a lone
    /// tool run). Sub-agents share their parent's, so their changes belong to the parent's turn.
    pub checkpoints: Option<crate::checkpoint::Checkpoints>,
    /// How Bash commands are sandboxed (`None`: not at all, as for a lone tool run).
    pub sandbox: Option<Arc<crate::sandbox::SessionSandbox>>,
    /// The editor the session runs inside (an ACP client that offered its file system), told of
    /// every file change; `None` for the app, the CLI and lone tool runs.
    pub editor: Option<Arc<dyn crate::tool::Editor>>,
}

/// State that changes while a turn runs.
#[derive(Debug, Clone)]
pub struct ExecutionState {
    /// Cancelled on user abort (or, for a call in a batch, when a sibling Bash call fails).
    pub cancel: CancellationToken,
    /// What the model has read in this session (for staleness checks before edits).
    pub read_files: ReadFileState,
    /// The working directory, which a `cd` in Bash or a worktree tool may move.
    pub cwd: PathBuf,
    /// The model's task list as TodoWrite last set it (shared, replaced whole on each write).
    pub todos: Arc<Vec<TodoItem>>,
    /// State the tools keep for the session (Bash's background commands), shared by every clone
    /// of the context; the last clone to go drops it (which kills commands still running).
    pub extensions: SessionExtensions,
}

/// Hooks into an interactive front-end. Headless runs leave them empty.
#[derive(Clone, Default)]
pub struct UiCallbacks {
    /// Receives notifications meant for the user (not the model).
    pub notify: Option<Arc<dyn Fn(String) + Send + Sync>>,
}

impl std::fmt::Debug for UiCallbacks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UiCallbacks")
            .field("notify", &self.notify.as_ref().map(|_| "<callback>"))
            .finish()
    }
}

/// Which agent is running the call: the main agent or a sub-agent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentIdentity {
    /// `None` for the main agent.
    pub agent_id: Option<String>,
    /// A label for the UI ("Explore agent"), used to tag bubbled permission prompts.
    pub label: Option<String>,
    /// The Agent call that started this sub-agent (`None` for the main agent).
    pub call_id: Option<String>,
}

/// Everything a tool call can see.
#[derive(Debug, Clone)]
pub struct ToolUseContext {
    /// Session configuration.
    pub config: Arc<SessionConfig>,
    /// The permission mode, rules and working directories in force.
    pub permissions: PermissionContext,
    /// Cancellation, read-file state, working directory.
    pub exec: ExecutionState,
    /// Front-end callbacks.
    pub ui: UiCallbacks,
    /// Which agent runs.
    pub agent: AgentIdentity,
}

impl ToolUseContext {
    /// Resolves a path from the model against the working directory; absolute paths stay as they are.
    pub fn resolve_path(&self, path: &str) -> PathBuf {
        let expanded = expand_home(path);
        if expanded.is_absolute() {
            expanded
        } else {
            self.exec.cwd.join(expanded)
        }
    }

    /// The same context with another cancellation token (the executor gives each call a child token).
    pub fn with_cancel(&self, cancel: CancellationToken) -> Self {
        let mut ctx = self.clone();
        ctx.exec.cancel = cancel;
        ctx
    }

    /// Whether the call has been cancelled.
    pub fn is_cancelled(&self) -> bool {
        self.exec.cancel.is_cancelled()
    }
}

fn expand_home(path: &str) -> PathBuf {
    if path == "~" {
        return dirs::home_dir().unwrap_or_else(|| PathBuf::from(path));
    }
    if let Some(rest) = path.strip_prefix("~/")
        && let Some(home) = dirs::home_dir()
    {
        return home.join(rest);
    }
    Path::new(path).to_path_buf()
}

#[cfg(test)]
impl ToolUseContext {
    /// A context for unit tests: working directory and only working directory `cwd`, no tool pool
    /// and no small model (tests set the fields they need). The one constructor for tests, so a
    /// new context field is added in one place.
    pub(crate) fn for_tests(cwd: PathBuf) -> Self {
        Self {
            config: Arc::new(SessionConfig {
                session_id: "test-session".into(),
                project_dir: cwd.clone(),
                tool_results_dir: cwd.join(".results"),
                transcript_path: cwd.join("transcript.jsonl"),
                model: "test-model".into(),
                tool_pool: None,
                small_model: None,
                subagents: None,
                checkpoints: None,
                sandbox: None,
                editor: None,
            }),
            permissions: PermissionContext {
                working_dirs: vec![cwd.clone()],
                ..PermissionContext::default()
            },
            exec: ExecutionState {
                cancel: CancellationToken::new(),
                read_files: ReadFileState::default(),
                cwd,
                todos: Arc::default(),
                extensions: SessionExtensions::default(),
            },
            ui: UiCallbacks::default(),
            agent: AgentIdentity::default(),
        }
    }
}
