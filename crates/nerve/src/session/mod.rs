//! The front door: a live session. A front-end opens a [`Project`], starts a [`Session`] on it, and
//! from then on holds this one object: prompts in ([`Session::send`]), events out (the sink given
//! with each prompt), permission answers back ([`Session::answer`]). What a session is made of
//! (the agent, its MCP servers, the waiting permission requests, the turn's cancel and interrupt
//! tokens, the mode switch, checkpoints, the file index) lives behind it, so the desktop shell,
//! `nerve -p` and any later front-end do not assemble one again.

pub mod attachments;
mod start;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use nerve_protocol::SandboxRefusal;
pub use nerve_protocol::prompt::{Effort, ModelChoice};
pub use nerve_protocol::session::{CompactOutcome, RewindOutcome, RewindUndoOutcome, SessionState};
use tokio_util::sync::CancellationToken;

pub use start::{Asker, ModelServer, SessionOptions, StartError, list_models};

// What front-ends name to start a session and read its turns, so they need no module below.
pub use crate::agent::models::{fast_model as default_fast_model, main_model as default_model};
pub use crate::events::EventSink;
pub use crate::model::client::{
    ModelAuth, ModelProvider, configured_base_url, is_local_server, parse_custom_headers,
};
pub use crate::model::types::{Message, Role};
/// The seam an editor front-end (`nerve acp`) gives a session: its file system and terminals.
pub use crate::tool::editor;

use crate::agent::{
    Agent, AttachedImage, CompactError, Denial, MessageObserver, PromptImageError, RewindError,
    RewindRequest, SessionFiles, prepare_prompt_images,
};
use crate::checkpoint::{ChangeScope, ChangeSet, CodeRewindPlan, CodeRewindReport};
use crate::events::{HistoryMessage, TurnEnd};
use crate::hooks::input::CompactTrigger;
use crate::mcp::McpManager;
use crate::model::types::Usage;
use crate::permissions::{ModeSwitch, NotWaiting, PendingPrompts, PermissionMode, SharedRules, UserAnswer};
use crate::project::{Project, ProjectError};
use crate::project_files::{FileIndex, FileMatch};
use crate::settings_view::{AllowRefusalError, RulesView};
use crate::slash_commands::{CustomCommands, SlashCommand};
use crate::tool::tasks::{TaskBoard, TaskView, merge_tasks, recorded_tasks};
use crate::tool::{PermissionPreview, ToolError};
use crate::tools::bash::BackgroundTasks;
use crate::transcripts::TranscriptError;
use nerve_protocol::transcripts::SubagentTranscript;

/// Why a session refused or failed a request. Each says what to do.
#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    /// One turn at a time, and rewinds, compactions and model changes only between turns.
    #[error("a turn is running in this session; wait for it to end or stop it")]
    TurnRunning,
    /// An attached image is unusable (its type or size); the prompt stays with the user.
    #[error(transparent)]
    Image(#[from] PromptImageError),
    /// An attachment could not be read (what, and why); the prompt stays with the user.
    #[error("{0}")]
    Attachment(String),
    /// An MCP server's prompt (`/mcp__server__prompt`) could not be fetched.
    #[error("{0}")]
    McpPrompt(ToolError),
    /// The permission request was answered already, or never existed.
    #[error(transparent)]
    NotWaiting(#[from] NotWaiting),
    /// The mode is not available here (bypass disabled by settings).
    #[error(transparent)]
    Mode(#[from] ProjectError),
    /// `/model` with no name.
    #[error("name a model, e.g. /model claude-sonnet-4-5")]
    NoModel,
    /// The session keeps no transcript or checkpoints (started without a data folder).
    #[error("this session keeps no checkpoints")]
    NoCheckpoints,
    /// A rewind, revert or change listing failed.
    #[error(transparent)]
    Rewind(#[from] RewindError),
    /// The compaction failed.
    #[error(transparent)]
    Compact(#[from] CompactError),
    /// The transcript could not be read.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// A sandbox refusal could not be allowed.
    #[error(transparent)]
    AllowRefusal(#[from] AllowRefusalError),
    /// Git could not show or do what a git scope asked.
    #[error(transparent)]
    Git(#[from] crate::worktree::WorktreeError),
    /// Git could not say what changed.
    #[error(transparent)]
    GitChanges(#[from] crate::checkpoint::CheckpointError),
    /// A hunk could not be undone.
    #[error(transparent)]
    Hunk(#[from] crate::checkpoint::hunk::HunkUndoError),
    /// No running task has that id.
    #[error("no running task {0} in this session")]
    NoTask(String),
    /// A rule the user typed cannot be read.
    #[error("{rule} is not a rule: {source}")]
    BadRule {
        /// The rule as typed.
        rule: String,
        /// Why.
        #[source]
        source: crate::permissions::RuleParseError,
    },
    /// The fast model could not suggest a commit message.
    #[error("could not suggest a commit message: {0}")]
    Suggest(#[source] crate::model::error::ModelError),
}

/// How a turn ended, and what it cost.
#[derive(Debug, Clone)]
pub struct TurnSummary {
    /// Why it ended.
    pub end: TurnEnd,
    /// The error, when it ended with one.
    pub error: Option<String>,
    /// The last text the model wrote.
    pub final_text: String,
    /// Model calls the turn made.
    pub model_calls: u32,
    /// The turn's token usage.
    pub usage: Usage,
    /// The turn's cost in USD, when the model's price is known.
    pub turn_cost_usd: Option<f64>,
    /// The session's cost so far in USD, when the model's price is known.
    pub session_cost_usd: Option<f64>,
    /// Calls the permission system denied in this session so far.
    pub denials: Vec<Denial>,
}

/// How an MCP server of the session stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr)]
#[strum(serialize_all = "kebab-case")]
pub enum McpServerState {
    /// Connected; its tools are offered.
    Connected,
    /// A remote server waiting for an OAuth sign-in.
    NeedsAuth,
    /// It never connected.
    Failed,
}

/// Where the session's events go: the sink of the turn in progress, else the session's own.
#[derive(Clone)]
struct EventRoute {
    turn: Arc<Mutex<Option<EventSink>>>,
    between_turns: EventSink,
}

impl EventRoute {
    fn sink(&self) -> EventSink {
        let route = self.clone();
        EventSink::new(move |event| {
            let turn = lock(&route.turn).clone();
            turn.as_ref().unwrap_or(&route.between_turns).emit(event);
        })
    }
}

/// The turn in progress: its sink and tokens, cleared when the turn ends or its future is dropped.
struct TurnSlots<'a> {
    session: &'a Session,
}

impl<'a> TurnSlots<'a> {
    fn fill(session: &'a Session, events: EventSink) -> (Self, CancellationToken, CancellationToken) {
        let cancel = CancellationToken::new();
        let interrupt = CancellationToken::new();
        *lock(&session.turn_cancel) = Some(cancel.clone());
        *lock(&session.turn_interrupt) = Some(interrupt.clone());
        *lock(&session.events.turn) = Some(events);
        (Self { session }, cancel, interrupt)
    }
}

impl Drop for TurnSlots<'_> {
    fn drop(&mut self) {
        *lock(&self.session.events.turn) = None;
        *lock(&self.session.turn_cancel) = None;
        *lock(&self.session.turn_interrupt) = None;
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // These slots hold plain values; a panic elsewhere cannot leave them half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A live session of a project.
pub struct Session {
    id: String,
    project: Project,
    agent: tokio::sync::Mutex<Agent>,
    /// Permission requests waiting for [`Session::answer`] (with [`Asker::Person`]).
    prompts: PendingPrompts,
    events: EventRoute,
    turn_cancel: Mutex<Option<CancellationToken>>,
    /// Fired when the user sends a new message now instead of queueing it.
    turn_interrupt: Mutex<Option<CancellationToken>>,
    /// Mode changes asked for while a turn runs (the agent is locked then); the turn applies them
    /// before its next tool call or model request.
    mode_switch: ModeSwitch,
    mcp: McpManager,
    /// The transcript and checkpoints, readable while a turn runs.
    files: Option<SessionFiles>,
    /// The session's rules (settings, and what was allowed during the session), readable while a
    /// turn runs.
    rules: SharedRules,
    /// The project's files for `@` mentions: one index per project, kept fresh by a watcher.
    file_index: OnceLock<Arc<FileIndex>>,
    /// What the session's state reported when it opened.
    model: String,
    /// The model and effort of the requests, and what was chosen while a turn ran.
    choices: Mutex<Choices>,
    tool_names: Vec<String>,
    warnings: Vec<String>,
    unapproved_mcp_servers: Vec<String>,
    /// The worktree the session works in, if it has one of its own (its branch is renamed after
    /// the first prompt when it was made before the session had a title).
    worktree: Mutex<Option<crate::worktree::WorktreeInfo>>,
    /// The fast model, for side jobs a front-end asks for (a commit message).
    small_model: Option<Arc<dyn crate::model::small::SmallModel>>,
    /// The session's background shells and sub-agents, and the log of them beside the transcript.
    board: TaskBoard,
    shells: BackgroundTasks,
    task_log: Option<PathBuf>,
}

/// The model and effort a session's requests use, and what the user chose while a turn ran.
#[derive(Debug, Default)]
struct Choices {
    model: String,
    effort: Effort,
    next_model: Option<String>,
    next_effort: Option<Effort>,
}

impl Choices {
    fn view(&self) -> ModelChoice {
        ModelChoice {
            model: self.next_model.clone().unwrap_or_else(|| self.model.clone()),
            effort: self.next_effort.unwrap_or(self.effort),
            at_next_prompt: self.next_model.is_some() || self.next_effort.is_some(),
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("project", &self.project.dir())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts (or resumes) a session of `project`: the model server and its credentials, the MCP
    /// servers, who answers permission requests, the agent. On failure nothing is left running.
    pub async fn start(project: Project, mut options: SessionOptions) -> Result<Self, StartError> {
        let start::Entered {
            project,
            worktree,
            notes: worktree_notes,
            setup,
        } = start::enter_worktree(project, &mut options)?;
        let events = EventRoute {
            turn: Arc::default(),
            between_turns: options.events.clone(),
        };
        let prompts = PendingPrompts::default();
        let index_files = options.index_files;
        let started = start::start(&project, options, events.sink(), &prompts).await?;
        let file_index = OnceLock::new();
        if index_files {
            let _ = file_index.set(FileIndex::for_project(project.dir()));
        }
        let mut agent = started.agent;
        let choices = Choices {
            model: agent.model().to_string(),
            effort: agent.effort(),
            ..Choices::default()
        };
        if let Some((command, source)) = setup {
            agent.set_setup_command(command, source);
        }
        let small_model = agent.runtime().context.config.small_model.clone();
        let board = TaskBoard::of(&agent.runtime().context);
        let shells = BackgroundTasks::of(&agent.runtime().context);
        let task_log = agent.session_dir().map(|d| d.join(crate::tool::tasks::TASK_LOG));
        if let Some(log) = &task_log {
            shells.number_after(recorded_tasks(log).iter().map(|t| t.id.as_str()));
        }
        board.connect(events.sink(), task_log.clone());
        let mut warnings = worktree_notes;
        warnings.extend(started.warnings);
        warnings.extend(CustomCommands::for_project(project.dir()).warnings);
        Ok(Self {
            id: started.session_id,
            files: agent.session_files(),
            mode_switch: agent.mode_switch(),
            rules: agent.rules(),
            agent: tokio::sync::Mutex::new(agent),
            project,
            prompts,
            events,
            turn_cancel: Mutex::new(None),
            turn_interrupt: Mutex::new(None),
            mcp: started.mcp,
            file_index,
            model: started.model,
            choices: Mutex::new(choices),
            tool_names: started.tool_names,
            warnings,
            unapproved_mcp_servers: started.unapproved_mcp_servers,
            worktree: Mutex::new(worktree),
            small_model,
            board,
            shells,
            task_log,
        })
    }

    /// The session's id (its transcript's name).
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The project it works on.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// Servers in the project's `.mcp.json` that the settings do not approve, so not started.
    pub fn unapproved_mcp_servers(&self) -> &[String] {
        &self.unapproved_mcp_servers
    }

    /// The session as a front-end shows it when it opens: the conversation so far, the mode, the
    /// model, the tools, the costs, the warnings. Refused while a turn runs.
    pub fn state(&self) -> Result<SessionState, SessionError> {
        let agent = self.idle_agent()?;
        let totals = agent.totals();
        Ok(SessionState {
            session_id: self.id.clone(),
            project_path: self.project.main_dir().display().to_string(),
            worktree: self.worktree(),
            mode: agent.permission_mode(),
            model: agent.model().to_string(),
            effort: agent.effort(),
            tools: self.tool_names.clone(),
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts().unwrap_or_default(),
            context_tokens: agent.context_tokens(),
            context_window: agent.context_window(),
            session_cost_usd: totals.cost_usd,
            session_cache_read_tokens: totals.tokens.cache_read_input_tokens,
            session_cache_saved_usd: totals.cache_saved_usd,
            warnings: self.warnings.clone(),
        })
    }

    /// The worktree the session works in, when it has one of its own.
    pub fn worktree(&self) -> Option<crate::worktree::WorktreeInfo> {
        lock(&self.worktree).clone()
    }

    /// Names an unnamed worktree's branch after the session's first prompt. A failure costs only
    /// the name: the branch keeps its id.
    fn name_worktree(&self, prompt: &str) {
        let unnamed = lock(&self.worktree).as_ref().is_some_and(|w| !w.named);
        if !unnamed || prompt.trim().is_empty() {
            return;
        }
        match self.project.workspaces().name_after(&self.id, prompt) {
            Ok(info) => *lock(&self.worktree) = Some(info),
            Err(e) => tracing::warn!("the worktree's branch keeps its name: {e}"),
        }
    }

    /// The model the session started with (`/model` changes the next requests').
    pub fn started_model(&self) -> &str {
        &self.model
    }

    /// The names of the tools the model gets.
    pub fn tool_names(&self) -> &[String] {
        &self.tool_names
    }

    /// What the user should know from the start (see [`SessionState::warnings`]).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// The current permission mode; `None` while a turn runs.
    pub fn mode(&self) -> Option<PermissionMode> {
        self.agent.try_lock().ok().map(|agent| agent.permission_mode())
    }

    /// The session's MCP servers and how each stands.
    pub fn mcp_servers(&self) -> Vec<(String, McpServerState)> {
        let mut out: Vec<(String, McpServerState)> = self
            .mcp
            .connected()
            .into_iter()
            .map(|name| (name, McpServerState::Connected))
            .collect();
        for failure in self.mcp.failures() {
            // A connected server whose single tool was skipped is still connected.
            if !out.iter().any(|(name, _)| *name == failure.server) {
                let state = match failure.needs_sign_in {
                    true => McpServerState::NeedsAuth,
                    false => McpServerState::Failed,
                };
                out.push((failure.server.clone(), state));
            }
        }
        out
    }

    /// Calls `observer` with every message as it joins the conversation (the API's shape), for a
    /// front-end that prints them. Refused while a turn runs.
    pub fn observe_messages(&self, observer: MessageObserver) -> Result<(), SessionError> {
        self.idle_agent()?.observe_messages(observer);
        Ok(())
    }

    /// Runs one turn, its events going to `events`. One turn at a time. A prompt naming an MCP
    /// server's prompt (`/mcp__server__prompt args`) or a custom command (`/review src/`) sends
    /// what it expands to. Attached images are checked (type, size) before anything is sent; a bad
    /// one fails the call and the prompt stays with the user. A server that said its tool list
    /// changed gets its new tools first.
    pub async fn send(
        &self,
        prompt: &str,
        images: &[AttachedImage],
        events: EventSink,
    ) -> Result<TurnSummary, SessionError> {
        self.send_with_attachments(prompt, images, &[], events).await
    }

    /// [`Session::send`] with attachments beside the words and pictures (a folder's listing, a
    /// web page, another session, the terminal's selection): each is read now and goes to the
    /// model as a block of its own. One that cannot be read (a folder outside the project, a page
    /// a deny rule keeps out, an unknown session) fails the call before anything is sent.
    pub async fn send_with_attachments(
        &self,
        prompt: &str,
        images: &[AttachedImage],
        attachments: &[nerve_protocol::prompt::PromptAttachment],
        events: EventSink,
    ) -> Result<TurnSummary, SessionError> {
        let mut agent = self.agent.try_lock().map_err(|_| SessionError::TurnRunning)?;
        self.apply_waiting_choices(&mut agent);
        let mut images = prepare_prompt_images(images)?;
        let permissions = agent.runtime().context.permissions.clone();
        images.extend(attachments::read_all(&self.project, &permissions, attachments).await?);
        self.name_worktree(prompt);
        let expanded = match self.mcp.expand_prompt(prompt).await {
            Some(result) => Some(result.map_err(SessionError::McpPrompt)?),
            None => crate::slash_commands::expand_builtin(prompt)
                .or_else(|| CustomCommands::for_project(self.project.dir()).expand(prompt)),
        };
        let prompt = expanded.as_deref().unwrap_or(prompt);
        if let Some(tools) = self.mcp.refresh_changed_tools().await
            && let Err(e) = agent.replace_external_tools(tools)
        {
            tracing::warn!("the MCP tools could not be refreshed: {e}");
        }
        let (slots, cancel, interrupt) = TurnSlots::fill(self, events);
        let outcome = agent.send_with_images(prompt, images, cancel, interrupt).await;
        drop(slots);
        if self.files.is_some() {
            // The search index reads what the turn added now, off the async workers, so a search
            // later reads only what later turns add.
            let data_dir = self.project.data_dir();
            tokio::task::spawn_blocking(move || {
                if let Err(e) = crate::transcripts::search_index::SearchIndex::open(&data_dir)
                    .and_then(|mut i| i.refresh())
                {
                    tracing::warn!("the search index could not be brought up to date: {e}");
                }
            });
        }
        Ok(TurnSummary {
            turn_cost_usd: crate::model::usage::cost_usd(agent.model(), &outcome.usage),
            end: outcome.end,
            error: outcome.error,
            final_text: outcome.final_text,
            model_calls: outcome.model_calls,
            usage: outcome.usage,
            session_cost_usd: agent.totals().cost_usd,
            denials: agent.denials().to_vec(),
        })
    }

    /// Stops the turn in progress: running tools are cancelled, waiting requests denied.
    pub fn abort(&self) {
        if let Some(cancel) = lock(&self.turn_cancel).as_ref() {
            cancel.cancel();
        }
        self.prompts.deny_all();
    }

    /// The user sends a new message now: running calls that may be cancelled stop, the others
    /// finish, and the turn ends so the message can start the next one.
    pub fn interrupt(&self) {
        if let Some(interrupt) = lock(&self.turn_interrupt).as_ref() {
            interrupt.cancel();
        }
    }

    /// The session's background shells and sub-agents: those running now, and those recorded
    /// before, oldest first (one that was running when the app running it ended is lost).
    pub fn tasks(&self) -> Vec<TaskView> {
        let mut live = self.shells.views();
        live.extend(self.board.subagents());
        let recorded = self.task_log.as_deref().map(recorded_tasks).unwrap_or_default();
        merge_tasks(live, recorded)
    }

    /// Stops a running task: a background shell's whole process group, or a sub-agent alone (the
    /// turn goes on; the model hears the user stopped it). Returns the task as it is then.
    pub async fn stop_task(&self, id: &str) -> Result<TaskView, SessionError> {
        if let Some(task) = self.board.stop_subagent(id) {
            return Ok(task);
        }
        if self.shells.stop(id).await.is_some()
            && let Some(task) = self.shells.views().into_iter().find(|t| t.id == id)
        {
            return Ok(task);
        }
        Err(SessionError::NoTask(id.to_string()))
    }

    /// A finished sub-agent's conversation, from its transcript. Refused while a turn runs (the
    /// turn's events show its sub-agents live).
    pub fn subagent_transcript(&self, agent_id: &str) -> Result<SubagentTranscript, SessionError> {
        Ok(self.idle_agent()?.subagent_transcript(agent_id)?)
    }

    /// Completes a waiting permission request.
    pub fn answer(&self, request_id: &str, answer: UserAnswer) -> Result<(), SessionError> {
        Ok(self.prompts.answer(request_id, answer)?)
    }

    /// The waiting requests (ids) whose calls these allow rules would let run without asking,
    /// judged as each call was: what a batch panel shows before the user allows a rule.
    pub async fn requests_covered_by(&self, rules: &[String]) -> Result<Vec<String>, SessionError> {
        let mut values = Vec::with_capacity(rules.len());
        for rule in rules {
            let value = rule
                .trim()
                .parse::<crate::permissions::RuleValue>()
                .map_err(|source| SessionError::BadRule {
                    rule: rule.clone(),
                    source,
                })?;
            values.push(value);
        }
        Ok(self.prompts.covered_by(&values).await)
    }

    /// The preview of a waiting request for an input the user is editing, computed by the tool as
    /// the call would run (`None`: the edited input has no preview, for example an Edit whose old
    /// text is no longer in the file).
    pub async fn preview_edit(
        &self,
        request_id: &str,
        input: serde_json::Value,
    ) -> Result<Option<PermissionPreview>, SessionError> {
        Ok(self.prompts.preview(request_id, input).await?)
    }

    /// Switches the permission mode: at once between turns; during a turn, before its next tool
    /// call (calls already running keep the mode they were checked under). Returns the mode now
    /// in effect, or the one queued.
    pub fn set_mode(&self, mode: PermissionMode) -> Result<PermissionMode, SessionError> {
        self.project.check_mode(mode)?;
        match self.agent.try_lock() {
            Ok(mut agent) => {
                agent.set_permission_mode(mode);
                Ok(agent.permission_mode())
            }
            Err(_) => {
                self.mode_switch.request(mode);
                Ok(mode)
            }
        }
    }

    /// Uses `model` for the session's requests: from the next one between turns, from the next
    /// prompt while a turn runs. The choice is recorded in the transcript when it applies.
    pub fn set_model(&self, model: &str) -> Result<ModelChoice, SessionError> {
        let model = model.trim();
        if model.is_empty() {
            return Err(SessionError::NoModel);
        }
        Ok(self.choose(
            |agent| agent.set_model(model),
            |c| c.next_model = Some(model.to_string()),
        ))
    }

    /// Thinks this hard from the next prompt on (at once between turns: one tool-use loop keeps
    /// one thinking configuration, as the API requires). Recorded as [`Self::set_model`].
    pub fn set_effort(&self, effort: Effort) -> ModelChoice {
        self.choose(|agent| agent.set_effort(effort), |c| c.next_effort = Some(effort))
    }

    /// Applies a choice to the idle agent, or keeps it for the next prompt while a turn runs.
    fn choose(&self, now: impl FnOnce(&mut Agent), later: impl FnOnce(&mut Choices)) -> ModelChoice {
        match self.agent.try_lock() {
            Ok(mut agent) => {
                // What waited for the next prompt is replaced by what the user chose since.
                let mut choices = lock(&self.choices);
                let before = (agent.model().to_string(), agent.effort());
                now(&mut agent);
                if agent.model() != before.0 {
                    choices.next_model = None;
                }
                if agent.effort() != before.1 {
                    choices.next_effort = None;
                }
                choices.model = agent.model().to_string();
                choices.effort = agent.effort();
                choices.view()
            }
            Err(_) => {
                let mut choices = lock(&self.choices);
                later(&mut choices);
                choices.view()
            }
        }
    }

    /// Applies what was chosen while the last turn ran (the next prompt is about to start).
    fn apply_waiting_choices(&self, agent: &mut Agent) {
        let mut choices = lock(&self.choices);
        if let Some(model) = choices.next_model.take()
            && model != agent.model()
        {
            agent.set_model(&model);
        }
        if let Some(effort) = choices.next_effort.take()
            && effort != agent.effort()
        {
            agent.set_effort(effort);
        }
        choices.model = agent.model().to_string();
        choices.effort = agent.effort();
    }

    /// The model and effort of the requests, and whether a choice waits for the next prompt.
    pub fn model_choice(&self) -> ModelChoice {
        lock(&self.choices).view()
    }

    /// The slash commands: built-ins, the user's and the project's custom commands, then the MCP
    /// servers' prompts.
    pub fn commands(&self) -> Vec<SlashCommand> {
        let mut commands = CustomCommands::for_project(self.project.dir()).listing();
        commands.extend(self.mcp.prompt_commands());
        commands
    }

    /// The project's files best matching `query` (`@` mentions). The first call lists the project
    /// unless the session was started with [`SessionOptions::index_files`].
    pub fn find_files(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        self.file_index
            .get_or_init(|| FileIndex::for_project(self.project.dir()))
            .find(query, limit)
    }

    /// The rules in effect in this session, as the settings screen lists them.
    pub fn rules_view(&self) -> RulesView {
        crate::settings_view::rules_view(
            &self.rules.snapshot(),
            self.project.locations(),
            self.project.dir(),
        )
    }

    /// Allows for the project what the sandbox refused one of this session's commands: written to
    /// the project's local settings, in effect for the next command. Returns the settings file.
    pub fn allow_sandbox_refusal(&self, refusal: &SandboxRefusal) -> Result<PathBuf, SessionError> {
        Ok(crate::settings_view::allow_sandbox_refusal(
            &self.project,
            &self.rules,
            refusal,
        )?)
    }

    /// Compacts the conversation now; refused while a turn runs. Returns the conversation as it
    /// then stands (the summary and what follows it).
    pub async fn compact(&self, instructions: Option<&str>) -> Result<CompactOutcome, SessionError> {
        let mut agent = self.idle_agent()?;
        agent
            .compact(CompactTrigger::Manual, instructions, &CancellationToken::new())
            .await?;
        Ok(CompactOutcome {
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts().unwrap_or_default(),
        })
    }

    /// The session as Markdown (its transcript as it stands).
    pub fn markdown(&self) -> Result<String, SessionError> {
        Ok(crate::transcripts::session_markdown(&self.files()?.transcript)?)
    }

    fn files(&self) -> Result<&SessionFiles, SessionError> {
        self.files.as_ref().ok_or(SessionError::NoCheckpoints)
    }

    /// The changes of a call, a turn or the whole session.
    pub fn changes(&self, scope: ChangeScope) -> Result<ChangeSet, SessionError> {
        match scope {
            // Git scopes are read from the repository of the session's folder (its worktree).
            ChangeScope::GitUncommitted | ChangeScope::GitStaged | ChangeScope::GitBase { .. } => {
                let base = self.worktree().map(|w| w.base_commit);
                Ok(crate::checkpoint::git_scope::git_change_set(
                    self.project.dir(),
                    scope,
                    base.as_deref(),
                )?)
            }
            ChangeScope::Session | ChangeScope::Turn { .. } | ChangeScope::Call { .. } => {
                Ok(self.files()?.changes(scope)?)
            }
        }
    }

    /// Stages files in the session's folder (its worktree, or the project).
    pub fn git_stage(&self, paths: &[PathBuf]) -> Result<(), SessionError> {
        Ok(crate::worktree::stage::stage(self.project.dir(), paths)?)
    }

    /// Unstages files in the session's folder.
    pub fn git_unstage(&self, paths: &[PathBuf]) -> Result<(), SessionError> {
        Ok(crate::worktree::stage::unstage(self.project.dir(), paths)?)
    }

    /// Stages one hunk of a file's uncommitted change (a hunk the `GitUncommitted` scope showed).
    pub fn git_stage_hunk(&self, path: &Path, hunk: &nerve_protocol::DiffHunk) -> Result<(), SessionError> {
        Ok(crate::worktree::stage::stage_hunk(
            self.project.dir(),
            path,
            hunk,
        )?)
    }

    /// Unstages one hunk of a file's staged change (a hunk the `GitStaged` scope showed).
    pub fn git_unstage_hunk(&self, path: &Path, hunk: &nerve_protocol::DiffHunk) -> Result<(), SessionError> {
        Ok(crate::worktree::stage::unstage_hunk(
            self.project.dir(),
            path,
            hunk,
        )?)
    }

    /// Puts a file back to the last commit in the session's folder (work tree and index; with
    /// `renamed_from`, the file it was renamed from comes back). Refused while a turn runs.
    pub fn git_revert_file(&self, path: &Path, renamed_from: Option<&Path>) -> Result<(), SessionError> {
        let _idle = self.idle_agent()?;
        Ok(crate::worktree::stage::revert_file(
            self.project.dir(),
            path,
            renamed_from,
        )?)
    }

    /// Commits what is staged in the session's folder; the new commit.
    pub fn git_commit(&self, message: &str) -> Result<String, SessionError> {
        Ok(crate::worktree::stage::commit(self.project.dir(), message)?)
    }

    /// Creates a branch at the session's folder's current commit.
    pub fn git_create_branch(&self, name: &str) -> Result<(), SessionError> {
        Ok(crate::worktree::stage::create_branch(self.project.dir(), name)?)
    }

    /// A commit message for what is staged, from the fast model, for the user to edit.
    pub async fn suggest_commit_message(&self) -> Result<String, SessionError> {
        const SYSTEM: &str = "You write git commit messages. Given a staged diff, answer with the commit message only: a subject line of at most 72 characters in the imperative mood, then, if the change needs it, a blank line and a short body saying why. No quotes, no code fences.";
        let diff = crate::worktree::stage::staged_diff(self.project.dir(), 40_000)?;
        if diff.trim().is_empty() {
            return Err(crate::worktree::WorktreeError::NothingStaged.into());
        }
        let Some(model) = self.small_model.clone() else {
            return Err(SessionError::NoModel);
        };
        let text = model
            .complete(SYSTEM, &diff)
            .await
            .map_err(SessionError::Suggest)?;
        Ok(text.trim().trim_matches('`').trim().to_string())
    }

    /// What rewinding the code to just before prompt `to_turn` would do.
    pub fn plan_rewind(&self, to_turn: u32) -> Result<CodeRewindPlan, SessionError> {
        Ok(self.files()?.plan_code_rewind(to_turn)?)
    }

    /// What reverting one file (to before the session, or before turn `from_turn`) would do.
    pub fn plan_file_revert(
        &self,
        path: &Path,
        from_turn: Option<u32>,
    ) -> Result<CodeRewindPlan, SessionError> {
        Ok(self.files()?.plan_file_revert(path, from_turn)?)
    }

    /// Reverts one file; refused while a turn runs.
    pub fn revert_file(
        &self,
        path: &Path,
        from_turn: Option<u32>,
        confirmed: bool,
    ) -> Result<CodeRewindReport, SessionError> {
        let _idle = self.idle_agent()?;
        Ok(self.files()?.revert_file(path, from_turn, confirmed)?)
    }

    /// The prompt that sends `comments` on the agent's changes back to it, as one review (send it
    /// with [`Session::send`]).
    pub fn review_prompt(&self, comments: &[nerve_protocol::checkpoint::ReviewComment]) -> String {
        crate::checkpoint::review::review_prompt(self.project.dir(), comments)
    }

    /// Undoes one hunk of a change (as a change set showed it) in the file as it is now; the rest of
    /// the file, later edits around the hunk included, stays. Refused while a turn runs.
    pub fn undo_hunk(&self, path: &Path, hunk: &nerve_protocol::DiffHunk) -> Result<(), SessionError> {
        let _idle = self.idle_agent()?;
        if !path.starts_with(self.project.dir()) {
            return Err(SessionError::Hunk(
                crate::checkpoint::hunk::HunkUndoError::Outside {
                    path: path.to_path_buf(),
                },
            ));
        }
        Ok(crate::checkpoint::hunk::undo_hunk(path, hunk)?)
    }

    /// Undoes the latest rewind: the conversation it cut off comes back when nothing was said
    /// since (a conversation that went on keeps the new branch), and the files it put back are
    /// brought forward. Refused while a turn runs. Returns the conversation as it then stands.
    pub fn undo_rewind(&self) -> Result<RewindUndoOutcome, SessionError> {
        let mut agent = self.idle_agent()?;
        let report = agent.undo_rewind()?;
        Ok(RewindUndoOutcome {
            report,
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts()?,
        })
    }

    /// Rewinds the code, the conversation or both to just before a prompt; refused while a turn
    /// runs. Returns the conversation as it then stands.
    pub fn rewind(&self, request: &RewindRequest) -> Result<RewindOutcome, SessionError> {
        let mut agent = self.idle_agent()?;
        let report = agent.rewind(request)?;
        Ok(RewindOutcome {
            report,
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts()?,
        })
    }

    fn idle_agent(&self) -> Result<tokio::sync::MutexGuard<'_, Agent>, SessionError> {
        self.agent.try_lock().map_err(|_| SessionError::TurnRunning)
    }

    /// Ends the session cleanly: the turn is cancelled, waiting requests denied, SessionEnd hooks
    /// run, MCP servers shut down. The transcript is written as it goes, so nothing is lost.
    pub async fn close(&self) {
        self.abort();
        let mut agent = self.agent.lock().await;
        agent.end_session().await;
        self.mcp.shutdown().await;
    }
}

/// The conversation as a front-end shows it again.
fn history_of(agent: &Agent) -> Vec<HistoryMessage> {
    crate::model::view::history(agent.messages())
}
