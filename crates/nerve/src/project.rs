//! The facade front-ends start from: open a project (settings, rules, hooks), then get a session
//! runtime (tool pool, pipeline, context) to run tool calls through.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::budget::ResultStore;
use crate::engine_env::EngineEnv;
use crate::events::{Event, EventSink};
use crate::executor::{ExecutorOptions, StreamingExecutor};
use crate::hooks::{HookConfig, HookConfigErrors};
use crate::input::SchemaError;
use crate::model::small::SmallModel;
use crate::permissions::{
    AutoClassifier, PermissionContext, PermissionMode, PermissionPrompter, PermissionRule, RuleBehavior,
    RuleParseError, RuleSet, RuleSource, RuleValue, SharedRules,
};
use crate::pipeline::Resolver;
use crate::pipeline::{CallOutcome, Pipeline, ToolCall};
use crate::settings::{LoadOptions, MANAGED_SETTINGS_PATH, SettingsError, SettingsLocations, load_all};
use crate::storage::{project_data_dir, safe_file_stem};
use crate::tool::ToolPool;
use crate::tool::{
    AgentIdentity, ExecutionState, ProgressSink, ReadFileState, SessionConfig, ToolUseContext, UiCallbacks,
};
use crate::transcripts::{DeletedSession, TranscriptError, TranscriptSummary};

/// How to open a project.
#[derive(Debug, Clone)]
pub struct ProjectOptions {
    /// The project folder.
    pub project_dir: PathBuf,
    /// Read no settings file and run no hook (`--bare`).
    pub bare: bool,
    /// Also read Claude Code's `.claude/settings*.json` (lower priority than Nerve's own).
    pub read_claude_settings: bool,
    /// A mode that overrides the settings' `defaultMode`.
    pub mode: Option<PermissionMode>,
    /// The mode when no settings file sets `defaultMode` (a front-end's own default).
    pub fallback_mode: Option<PermissionMode>,
    /// Rules given on the command line.
    pub cli_rules: Vec<(RuleBehavior, String)>,
    /// More working directories besides the project.
    pub additional_dirs: Vec<PathBuf>,
    /// The engine's data directory.
    pub data_dir: PathBuf,
    /// Where settings files are looked for.
    pub locations: SettingsLocations,
    /// The binary that sandboxes Bash commands, when not this program itself (a test harness
    /// cannot: the engine's tests name the `nerve` binary).
    pub sandbox_helper: Option<PathBuf>,
    /// Names the sandbox's network proxy resolves to fixed addresses instead of asking DNS (the
    /// tests serve two host names from loopback; empty otherwise).
    pub sandbox_host_overrides: crate::sandbox::proxy::HostOverrides,
    /// The engine's environment variables (the process's unless a front-end or a test gives
    /// others); the data folder and sandbox helper above already come from it.
    pub env: Arc<EngineEnv>,
}

impl ProjectOptions {
    /// Options with the platform's defaults for `project_dir`, and the process's environment.
    pub fn new(project_dir: impl Into<PathBuf>) -> Self {
        Self::with_env(project_dir, EngineEnv::process())
    }

    /// Options with the platform's defaults for `project_dir`, and the environment `env`.
    pub fn with_env(project_dir: impl Into<PathBuf>, env: Arc<EngineEnv>) -> Self {
        Self {
            project_dir: project_dir.into(),
            bare: false,
            read_claude_settings: true,
            mode: None,
            fallback_mode: None,
            cli_rules: Vec::new(),
            additional_dirs: Vec::new(),
            data_dir: crate::storage::data_dir(&env),
            locations: SettingsLocations::from_environment().unwrap_or_else(|| SettingsLocations {
                managed_file: PathBuf::from(MANAGED_SETTINGS_PATH),
                // Without a home there is no user settings file to read; an empty folder name
                // makes the user source simply absent.
                config_dir: std::env::temp_dir().join("nerve-no-config"),
                home: PathBuf::from("/"),
            }),
            sandbox_helper: env.sandbox_helper.clone(),
            sandbox_host_overrides: Default::default(),
            env,
        }
    }
}

/// Why a project could not be opened. Each names the file or rule at fault.
#[derive(Debug, thiserror::Error)]
pub enum ProjectError {
    /// The project folder is not usable.
    #[error("cannot open project folder {path}: {source}")]
    ProjectDir {
        /// The folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// A settings file is invalid.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// A hooks section is invalid.
    #[error("invalid hooks configuration:\n{0}")]
    Hooks(#[from] HookConfigErrors),
    /// A rule given on the command line is invalid.
    #[error("invalid rule `{rule}` given on the command line: {source}")]
    CliRule {
        /// The rule text.
        rule: String,
        /// What is wrong.
        #[source]
        source: RuleParseError,
    },
    /// Managed or project settings disable bypassPermissions mode and it was asked for.
    #[error("bypassPermissions mode is disabled by settings (disableBypassPermissionsMode)")]
    BypassDisabled,
    /// A tool's schema is invalid.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// A saved session could not be read or removed.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// Git could not say what changed.
    #[error(transparent)]
    Changes(#[from] crate::checkpoint::CheckpointError),
    /// A session's worktree could not be made, found or removed.
    #[error(transparent)]
    Worktree(#[from] crate::worktree::WorktreeError),
}

/// The folder where Nerve keeps everything of every project (`NERVE_DATA_DIR` as `env` has it,
/// else the platform's data folder).
pub fn data_root(env: &EngineEnv) -> PathBuf {
    crate::storage::data_dir(env)
}

/// The folder where Nerve keeps what the project at `project_dir` leaves (its transcripts,
/// checkpoints, persisted outputs and memory), without reading its settings.
pub fn data_dir_of(env: &EngineEnv, project_dir: &Path) -> Result<PathBuf, ProjectError> {
    let dir = std::fs::canonicalize(project_dir).map_err(|source| ProjectError::ProjectDir {
        path: project_dir.to_path_buf(),
        source,
    })?;
    Ok(project_data_dir(&data_root(env), &dir))
}

/// An opened project: its settings, rules and hooks.
#[derive(Debug)]
pub struct Project {
    options: ProjectOptions,
    rules: SharedRules,
    mode: PermissionMode,
    working_dirs: Vec<PathBuf>,
    hooks: Arc<HookConfig>,
    mcp_approval: crate::mcp::ProjectServerApproval,
    bypass_disabled: bool,
    sandbox: crate::sandbox::settings::SandboxConfig,
    /// What the user allowed the sandbox since the settings were read, for every session of it.
    sandbox_grants: crate::sandbox::grants::SandboxGrants,
    /// Set when this is a session's worktree: the main project folder and its data folder, where
    /// the session's transcript, checkpoints and outputs stay (grouped with the project's).
    main: Option<(PathBuf, PathBuf)>,
    /// For a worktree: the git folders outside it that its commits write (sandbox-writable).
    worktree_git: Option<crate::sandbox::WorktreeGit>,
    /// The settings' `worktree.setupCommand`, with the file it came from.
    worktree_setup: Option<(String, RuleSource)>,
}

impl Project {
    /// Opens a project: reads every settings source (unless bare) and validates rules and hooks.
    /// A bad file is an error, never silently skipped: skipping a deny would allow more.
    pub fn open(options: ProjectOptions) -> Result<Self, ProjectError> {
        let project_dir =
            std::fs::canonicalize(&options.project_dir).map_err(|source| ProjectError::ProjectDir {
                path: options.project_dir.clone(),
                source,
            })?;
        let mut rules = RuleSet::new();
        let mut mode = options.fallback_mode.unwrap_or(PermissionMode::Default);
        let mut working_dirs = vec![project_dir.clone()];
        let mut hook_configs = Vec::new();
        let mut bypass_disabled = false;
        let mut mcp_approval = crate::mcp::ProjectServerApproval::default();
        let mut sandbox = crate::sandbox::settings::SandboxConfig::default();
        let mut worktree_setup = None;
        if !options.bare {
            let load = LoadOptions {
                read_claude_settings: options.read_claude_settings,
            };
            let loaded = load_all(&project_dir, &options.locations, load)?;
            if let Some((m, _source)) = loaded.default_mode() {
                mode = m;
            }
            working_dirs.extend(loaded.additional_directories().iter().map(|d| d.path.clone()));
            bypass_disabled = loaded.bypass_permissions_disabled();
            mcp_approval = loaded.project_mcp_approval();
            sandbox = loaded.sandbox().clone();
            worktree_setup = loaded.worktree_setup_command();
            let mut errors = Vec::new();
            for entry in loaded.hooks() {
                match HookConfig::from_settings(&entry.value, &entry.path.display().to_string()) {
                    Ok(c) => hook_configs.push(c),
                    Err(HookConfigErrors(mut e)) => errors.append(&mut e),
                }
            }
            if !errors.is_empty() {
                return Err(ProjectError::Hooks(HookConfigErrors(errors)));
            }
            rules = loaded.into_rules();
        }
        for (behavior, text) in &options.cli_rules {
            let value: RuleValue = text.parse().map_err(|source| ProjectError::CliRule {
                rule: text.clone(),
                source,
            })?;
            rules.add(PermissionRule::new(
                RuleSource::CliArg,
                *behavior,
                value,
                project_dir.clone(),
            ));
        }
        if let Some(m) = options.mode {
            mode = m;
        }
        if mode == PermissionMode::BypassPermissions && bypass_disabled {
            return Err(ProjectError::BypassDisabled);
        }
        working_dirs.extend(options.additional_dirs.iter().cloned());
        let options = ProjectOptions {
            project_dir,
            ..options
        };
        Ok(Self {
            options,
            rules: SharedRules::new(rules),
            mode,
            working_dirs,
            hooks: Arc::new(HookConfig::merge(hook_configs)),
            mcp_approval,
            bypass_disabled,
            sandbox,
            sandbox_grants: Default::default(),
            main: None,
            worktree_git: None,
            worktree_setup,
        })
    }

    /// The command a new worktree of this project runs before its session's first prompt
    /// (`worktree.setupCommand` in the settings), with the settings file it came from.
    pub fn worktree_setup_command(&self) -> Option<&(String, RuleSource)> {
        self.worktree_setup.as_ref()
    }

    /// The same project opened in a session's worktree: its settings read there, its tools,
    /// sandbox, checkpoints and rules working there, and what the session leaves kept with the main
    /// project's.
    pub fn in_worktree(&self, worktree: &crate::worktree::WorktreeInfo) -> Result<Self, ProjectError> {
        let mut options = self.options.clone();
        options.project_dir = worktree.work_dir.clone();
        let mut opened = Self::open(options)?;
        opened.main = Some((self.main_dir().to_path_buf(), self.data_dir()));
        opened.worktree_git = crate::worktree::git_folders(&worktree.path);
        Ok(opened)
    }

    /// The main project folder: [`Self::dir`], or for a worktree the project it was made from.
    pub fn main_dir(&self) -> &Path {
        self.main
            .as_ref()
            .map_or(&self.options.project_dir, |(dir, _)| dir)
    }

    /// The project's worktrees (of the main project, for a worktree).
    pub fn workspaces(&self) -> crate::worktree::Workspaces {
        crate::worktree::Workspaces::new(self.main_dir(), &self.data_dir())
    }

    /// The project's worktrees with where each stands (orphaned: its session was deleted).
    pub fn worktrees(&self) -> Result<Vec<crate::worktree::WorktreeStatus>, crate::worktree::WorktreeError> {
        let data_dir = self.data_dir();
        self.workspaces()
            .list(|id| crate::transcripts::existing_transcript(&data_dir, id).is_ok())
    }

    /// Lands the work of a session's worktree in the main checkout (see
    /// [`crate::worktree::Workspaces::land`]); a conflict is an outcome, with both sides of each
    /// file, and leaves the main checkout as it was.
    pub fn land(
        &self,
        session_id: &str,
        strategy: crate::worktree::LandStrategy,
        message: Option<&str>,
    ) -> Result<crate::worktree::LandOutcome, ProjectError> {
        use crate::worktree::{LandOutcome, WorktreeError};
        match self.workspaces().land(session_id, strategy, message) {
            Ok(landed) => Ok(LandOutcome::Landed(landed)),
            Err(WorktreeError::Conflict { branch, files }) => Ok(LandOutcome::Conflict { branch, files }),
            Err(e) => Err(e.into()),
        }
    }

    /// What git sees changed (a git scope), in a session's worktree when `session_id` names a
    /// session that has one (its base then answers `GitBase { base: None }`), else in the project.
    pub fn git_changes(
        &self,
        session_id: Option<&str>,
        scope: crate::checkpoint::ChangeScope,
    ) -> Result<crate::checkpoint::ChangeSet, ProjectError> {
        let worktree = match session_id {
            Some(id) => self.workspaces().of_session(id)?,
            None => None,
        };
        let dir = worktree.as_ref().map_or(self.dir(), |w| w.work_dir.as_path());
        let base = worktree.as_ref().map(|w| w.base_commit.as_str());
        Ok(crate::checkpoint::git_scope::git_change_set(dir, scope, base)?)
    }

    /// The review prompt for `comments` on a session's changes (in its worktree when it has one).
    pub fn review_prompt(
        &self,
        session_id: &str,
        comments: &[nerve_protocol::checkpoint::ReviewComment],
    ) -> Result<String, ProjectError> {
        let worktree = self.workspaces().of_session(session_id)?;
        let dir = worktree.as_ref().map_or(self.dir(), |w| w.work_dir.as_path());
        Ok(crate::checkpoint::review::review_prompt(dir, comments))
    }

    /// What discarding a session's worktree would lose.
    pub fn discard_preview(&self, session_id: &str) -> Result<crate::worktree::DiscardPreview, ProjectError> {
        Ok(self.workspaces().discard_preview(session_id)?)
    }

    /// Removes a session's worktree (and its branch unless `keep_branch`): ask first, with
    /// [`Self::discard_preview`].
    pub fn discard_worktree(
        &self,
        session_id: &str,
        keep_branch: bool,
    ) -> Result<crate::worktree::WorktreeInfo, ProjectError> {
        Ok(self.workspaces().discard(session_id, keep_branch)?)
    }

    /// Removes the worktrees whose session or folder is gone (see [`crate::worktree::Workspaces::clean`]).
    pub fn clean_worktrees(&self) -> Result<crate::worktree::CleanReport, crate::worktree::WorktreeError> {
        let data_dir = self.data_dir();
        self.workspaces()
            .clean(|id| crate::transcripts::existing_transcript(&data_dir, id).is_ok())
    }

    /// The sandbox settings in effect.
    pub fn sandbox_config(&self) -> &crate::sandbox::settings::SandboxConfig {
        &self.sandbox
    }

    /// How a session with id `session_id` sandboxes its Bash commands: the settings, the working
    /// folders, its own temp folder, and the paths Read deny rules name.
    pub fn session_sandbox(&self, session_id: &str) -> crate::sandbox::SessionSandbox {
        let home = self.options.locations.home.clone();
        let rules = self.rules.snapshot();
        let read_denied = rules
            .rules(crate::permissions::RuleBehavior::Deny)
            .filter(|r| r.value.tool_name == "Read")
            .filter_map(|r| r.value.content.as_deref().map(|c| (c, &r.anchor)))
            .filter_map(|(pattern, anchor)| literal_prefix(pattern, anchor, &home))
            .collect();
        crate::sandbox::SessionSandbox {
            config: self.sandbox.clone(),
            working_dirs: self.working_dirs.clone(),
            temp_dir: std::env::temp_dir()
                .join(format!("nerve-{}", crate::storage::safe_file_stem(session_id))),
            read_denied,
            home,
            helper: self.options.sandbox_helper.clone(),
            network_gate: None,
            host_overrides: std::sync::Arc::clone(&self.options.sandbox_host_overrides),
            grants: self.sandbox_grants.clone(),
            worktree_git: self.worktree_git.clone(),
        }
    }

    /// What the user allowed the sandbox since the settings were read (shared by its sessions).
    pub fn sandbox_grants(&self) -> &crate::sandbox::grants::SandboxGrants {
        &self.sandbox_grants
    }

    /// The engine's environment variables, as the front-end gave them.
    pub fn env(&self) -> &Arc<EngineEnv> {
        &self.options.env
    }

    /// The canonical project folder.
    pub fn dir(&self) -> &Path {
        &self.options.project_dir
    }

    /// Where its settings files are looked for.
    pub fn locations(&self) -> &SettingsLocations {
        &self.options.locations
    }

    /// Whether Claude Code's settings files are read too.
    pub fn reads_claude_settings(&self) -> bool {
        self.options.read_claude_settings
    }

    /// The rules a new session starts with.
    pub fn rules(&self) -> std::sync::Arc<RuleSet> {
        self.rules.snapshot()
    }

    /// The rules, shared with the project's sessions (a rule added here holds in them at once).
    pub fn rules_handle(&self) -> SharedRules {
        self.rules.clone()
    }

    /// The project's folder under the data dir (the main project's, for a worktree).
    pub fn data_dir(&self) -> PathBuf {
        match &self.main {
            Some((_, data_dir)) => data_dir.clone(),
            None => project_data_dir(&self.options.data_dir, &self.options.project_dir),
        }
    }

    /// The project's saved sessions, newest first; with a `query`, only those whose title or a
    /// prompt contains it (any case).
    pub fn sessions(&self, query: &str) -> Result<Vec<TranscriptSummary>, TranscriptError> {
        crate::transcripts::search_sessions(&self.data_dir(), query)
    }

    /// The best `limit` places in the project's sessions matching `query`: titles, prompts,
    /// replies, tool inputs and tool results, from the project's full-text index (brought up to
    /// date with what the transcripts gained since it was last read).
    pub fn search_sessions(
        &self,
        query: &str,
        limit: usize,
    ) -> Result<
        Vec<nerve_protocol::transcripts::SessionSearchHit>,
        crate::transcripts::search_index::SearchIndexError,
    > {
        crate::transcripts::search_index::SearchIndex::open(&self.data_dir())?.search(query, limit)
    }

    /// Brings the project's search index up to date (after a turn, so the next search only
    /// reads what later turns add).
    pub fn refresh_search_index(&self) -> Result<(), crate::transcripts::search_index::SearchIndexError> {
        crate::transcripts::search_index::SearchIndex::open(&self.data_dir())?.refresh()?;
        Ok(())
    }

    /// Forks a saved session into a new one (its conversation copied); returns the new id.
    pub fn fork(&self, session_id: &str) -> Result<String, TranscriptError> {
        crate::transcripts::fork_session(&self.data_dir(), session_id)
    }

    /// Forks a session with its conversation as it was just before prompt `turn` (to send an
    /// edited prompt from; the original keeps what came after). Returns the new id.
    pub fn fork_before(&self, session_id: &str, turn: u32) -> Result<String, TranscriptError> {
        crate::transcripts::fork_session_before(&self.data_dir(), session_id, Some(turn))
    }

    /// Names a saved session; returns the name as kept.
    pub fn rename(&self, session_id: &str, title: &str) -> Result<String, TranscriptError> {
        crate::transcripts::rename_session(&self.data_dir(), session_id, title)
    }

    /// Deletes a saved session for good: its transcript, checkpoints and persisted outputs.
    /// A session in a worktree takes its worktree with it; its branch stays when it holds work no
    /// other branch has (uncommitted work is committed to it first), so deleting never loses code.
    pub fn delete(&self, session_id: &str) -> Result<DeletedSession, ProjectError> {
        let mut deleted = crate::transcripts::delete_session(&self.data_dir(), session_id)?;
        let workspaces = self.workspaces();
        if workspaces.of_session(session_id)?.is_some() {
            deleted.kept_branch = workspaces.remove_keeping_work(session_id)?;
        }
        Ok(deleted)
    }

    /// A saved session as Markdown, for people.
    pub fn markdown(&self, session_id: &str) -> Result<String, TranscriptError> {
        let path = crate::transcripts::existing_transcript(&self.data_dir(), session_id)?;
        crate::transcripts::session_markdown(&path)
    }

    /// Whether a session of this project may switch to `mode` (settings may disable bypass mode).
    pub fn check_mode(&self, mode: PermissionMode) -> Result<(), ProjectError> {
        if mode == PermissionMode::BypassPermissions && self.bypass_disabled {
            return Err(ProjectError::BypassDisabled);
        }
        Ok(())
    }

    /// The effective mode at session start.
    pub fn mode(&self) -> PermissionMode {
        self.mode
    }

    /// Which of the project's `.mcp.json` servers the settings approve (none when bare).
    pub fn mcp_approval(&self) -> &crate::mcp::ProjectServerApproval {
        &self.mcp_approval
    }

    /// The files its MCP servers are configured in (user and local settings, `.mcp.json`).
    pub fn mcp_config_files(&self) -> crate::mcp::McpConfigFiles {
        let dir = self.dir();
        crate::mcp::McpConfigFiles::new(
            dir,
            self.options
                .locations
                .path_for(crate::permissions::RuleSource::UserSettings, dir),
        )
    }

    /// The servers a session of this project starts (see [`crate::mcp::collect_servers`]), and
    /// the `.mcp.json` servers left out for want of approval.
    pub fn mcp_servers(
        &self,
        cli_files: &[PathBuf],
    ) -> Result<(Vec<crate::mcp::McpServerConfig>, Vec<String>), crate::mcp::McpConfigError> {
        crate::mcp::collect_servers(&self.mcp_config_files(), &self.mcp_approval, cli_files)
    }

    /// The project's hooks.
    pub fn hooks(&self) -> Arc<HookConfig> {
        Arc::clone(&self.hooks)
    }

    /// The sub-agent types and skills defined in files for this project (the user's folders
    /// under this project's settings locations, then the project's own), read now.
    pub fn definitions(&self) -> crate::definitions::Definitions {
        let locations = &self.options.locations;
        crate::definitions::Definitions::load(
            &self.options.project_dir,
            &locations.home,
            &locations.config_dir,
        )
    }

    /// The permission context a session starts with. `avoid_prompts` is for headless runs.
    pub fn permission_context(&self, avoid_prompts: bool) -> PermissionContext {
        PermissionContext {
            mode: self.mode,
            bypass_disabled: self.bypass_disabled,
            rules: self.rules.clone(),
            working_dirs: self.working_dirs.clone(),
            home: self.options.locations.home.clone(),
            avoid_prompts,
            mode_before_plan: None,
            own_outputs: Vec::new(),
            skill_dirs: Vec::new(),
        }
    }

    /// Starts a session runtime over `pool`.
    pub fn session(&self, pool: ToolPool, setup: SessionSetup) -> SessionRuntime {
        let session_id = setup
            .session_id
            .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
        let data = self.data_dir();
        let store = ResultStore::new(&data, &session_id);
        let own_outputs = store.results_dir().to_path_buf();
        let pool = Arc::new(pool);
        let sandbox = self.session_sandbox(&session_id);
        let config = SessionConfig {
            session_id: session_id.clone(),
            project_dir: self.options.project_dir.clone(),
            tool_results_dir: store.results_dir().to_path_buf(),
            transcript_path: data.join(format!("{}.jsonl", safe_file_stem(&session_id))),
            model: setup.model,
            tool_pool: Some(Arc::clone(&pool)),
            small_model: setup.small_model,
            subagents: setup.subagents,
            checkpoints: Some(crate::checkpoint::Checkpoints::open(
                &crate::checkpoint::Checkpoints::session_dir(&data, &session_id),
            )),
            sandbox: Some(Arc::new(crate::sandbox::SessionSandbox {
                network_gate: Some(crate::sandbox::GateRef(Arc::new(
                    crate::pipeline::network_gate::PromptingNetworkGate {
                        domains: sandbox.domain_list(),
                        rules: self.rules.clone(),
                        prompter: setup.prompter.clone(),
                        headless: setup.headless,
                        events: Some(setup.events.clone()),
                        session_id: session_id.clone(),
                        project_dir: self.options.project_dir.clone(),
                    },
                ))),
                ..sandbox
            })),
            editor: None,
        };
        let resolver = Resolver::new(
            setup.prompter,
            setup.classifier,
            Arc::clone(&self.hooks),
            Some(setup.events.clone()),
        )
        .classifying_serially(!setup.speculative_classifier);
        let pipeline = Pipeline::new(pool, Arc::clone(&self.hooks), store, resolver, setup.events);
        let context = ToolUseContext {
            config: Arc::new(config),
            permissions: PermissionContext {
                own_outputs: vec![own_outputs],
                skill_dirs: setup.skill_dirs,
                ..self.permission_context(setup.headless)
            },
            exec: ExecutionState {
                cancel: CancellationToken::new(),
                read_files: ReadFileState::default(),
                cwd: self.options.project_dir.clone(),
                todos: Arc::default(),
                extensions: crate::tool::SessionExtensions::default(),
            },
            ui: UiCallbacks::default(),
            agent: AgentIdentity::default(),
        };
        SessionRuntime {
            pipeline: Arc::new(pipeline),
            context,
        }
    }
}

/// What a session needs from its front-end.
pub struct SessionSetup {
    /// Resume or name a session; a new id otherwise.
    pub session_id: Option<String>,
    /// The model name (for hooks and tools that ask it).
    pub model: String,
    /// Who answers permission requests (`None`: asks are denied).
    pub prompter: Option<Arc<dyn PermissionPrompter>>,
    /// The auto-mode classifier.
    pub classifier: Option<Arc<dyn AutoClassifier>>,
    /// Where events go.
    pub events: EventSink,
    /// Nobody can be asked: what would ask is denied.
    pub headless: bool,
    /// The fast model tools use for side jobs (WebFetch's page summaries); `None` leaves those
    /// tools to degrade gracefully.
    pub small_model: Option<Arc<dyn SmallModel>>,
    /// Runs sub-agents for the Agent tool.
    pub subagents: Option<Arc<dyn crate::tool::SubagentRunner>>,
    /// Start the auto-mode classifier beside the PreToolUse hooks (see
    /// [`crate::permissions::resolver::SpeculativeClassification`]); on by default.
    pub speculative_classifier: bool,
    /// The folders of the skills the session offers (read without asking).
    pub skill_dirs: Vec<PathBuf>,
}

impl SessionSetup {
    /// Whether the classifier for auto mode is started beside the PreToolUse hooks (the default)
    /// or only after them (for comparison).
    pub fn with_speculative_classifier(mut self, on: bool) -> Self {
        self.speculative_classifier = on;
        self
    }
}

impl Default for SessionSetup {
    fn default() -> Self {
        Self {
            session_id: None,
            model: String::new(),
            prompter: None,
            classifier: None,
            events: EventSink::discard(),
            headless: false,
            small_model: None,
            subagents: None,
            speculative_classifier: true,
            skill_dirs: Vec::new(),
        }
    }
}

/// A session's tool machinery.
#[derive(Debug)]
pub struct SessionRuntime {
    /// The pipeline every call goes through.
    pub pipeline: Arc<Pipeline>,
    /// The context calls start from.
    pub context: ToolUseContext,
}

impl SessionRuntime {
    /// Runs one call through the pipeline (progress goes to the session's events).
    pub async fn run_one(&self, call: &ToolCall) -> CallOutcome {
        let events = self.pipeline.events().clone();
        let progress = ProgressSink::new(
            &call.id,
            Arc::new(move |id: &str, p| {
                events.emit(Event::ToolProgress {
                    tool_use_id: id.into(),
                    progress: p,
                })
            }),
        );
        self.pipeline.run(call, &self.context, &progress).await
    }

    /// Starts an executor for one turn, with a fresh turn cancellation token.
    pub fn executor(&self, cancel: CancellationToken, options: ExecutorOptions) -> StreamingExecutor {
        StreamingExecutor::start(
            Arc::clone(&self.pipeline),
            self.context.with_cancel(cancel),
            options,
        )
    }
}

/// The folder or file a Read path pattern names before its first wildcard (`~/secrets/**` →
/// `~/secrets`), resolved as rules resolve patterns; `None` when the pattern starts with a wildcard
/// (`**/.env`: the sandbox cannot name such files ahead of time; the permission check still applies).
fn literal_prefix(pattern: &str, anchor: &Path, home: &Path) -> Option<PathBuf> {
    let (base, rest) = if let Some(rest) = pattern.strip_prefix("//") {
        (PathBuf::from("/"), rest)
    } else if let Some(rest) = pattern.strip_prefix("~/") {
        (home.to_path_buf(), rest)
    } else if let Some(rest) = pattern.strip_prefix("./") {
        (anchor.to_path_buf(), rest)
    } else {
        (anchor.to_path_buf(), pattern.trim_start_matches('/'))
    };
    let mut path = base;
    let mut any = false;
    for part in rest.split('/') {
        if part.is_empty() || part.contains(['*', '?', '[', '{']) {
            break;
        }
        path.push(part);
        any = true;
    }
    any.then_some(path)
}
