//! The app's live sessions: each one an engine agent, its MCP servers, its waiting permission
//! requests, and the channel of the turn in progress. Nothing here decides anything about tools or
//! permissions; it only routes commands to the engine and the engine's events to the window.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use nerve::agent::{Agent, AttachedImage, RewindRequest, SessionFiles, prepare_prompt_images};
use nerve::checkpoint::{ChangeScope, ChangeSet, CodeRewindPlan, CodeRewindReport};
use nerve::events::{Event, EventSink, HistoryMessage};
use nerve::hooks::input::CompactTrigger;
use nerve::mcp::McpManager;
use nerve::model::api_key::ApiKey;
use nerve::model::client::ModelAuth;
use nerve::permissions::{ModeSwitch, PendingPrompts, PermissionMode, UserAnswer};
use nerve::project::{Project, ProjectOptions};
use nerve::project_files::{FileIndex, FileMatch};
use nerve::slash_commands::{CustomCommands, SlashCommand};
use nerve::start::{Asker, ModelServer, SessionOptions, StartedSession, start_session};
use nerve::tool::PermissionPreview;
use tauri::ipc::Channel;
use tokio_util::sync::CancellationToken;

use crate::demo::DEMO_MODEL;
use crate::dto::{AppSettings, CompactOutcome, RewindOutcome, SessionInfo, TurnSummary};
use crate::error::{ShellError, to_shell};

/// Where the events of the turn in progress go (nowhere between turns).
type TurnChannel = Arc<Mutex<Option<Channel<Event>>>>;

/// One open session.
pub struct LiveSession {
    project: Project,
    agent: tokio::sync::Mutex<Agent>,
    prompts: PendingPrompts,
    channel: TurnChannel,
    turn_cancel: Mutex<Option<CancellationToken>>,
    /// Fired when the user sends a new message now instead of queueing it.
    turn_interrupt: Mutex<Option<CancellationToken>>,
    /// Mode changes asked for while a turn runs (the agent is locked then); the turn applies them
    /// before its next tool call or model request.
    mode_switch: ModeSwitch,
    mcp: McpManager,
    /// The transcript and checkpoints, readable while a turn runs (the agent is locked then).
    files: Option<SessionFiles>,
    /// The session's rules (settings, and what was allowed during the session), for the settings
    /// screen; readable while a turn runs.
    rules: nerve::permissions::SharedRules,
    /// The project's files for the `@` picker: one index per project, kept fresh by a watcher,
    /// listed from the moment the session opens.
    project_files: Arc<FileIndex>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // These slots hold plain values; a panic elsewhere cannot leave them half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl LiveSession {
    /// The project folder.
    pub fn project(&self) -> &Project {
        &self.project
    }

    /// The rules in effect in this session, as the settings screen lists them.
    pub fn rules_view(&self) -> nerve::settings_view::RulesView {
        nerve::settings_view::rules_view(
            &self.rules.snapshot(),
            self.project.locations(),
            self.project.dir(),
        )
    }

    /// Allows for the project what the sandbox refused one of this session's commands (the card's
    /// one click): written to the project's local settings, in effect for the next command.
    /// Returns the settings file.
    pub fn allow_sandbox_refusal(
        &self,
        refusal: &nerve_protocol::SandboxRefusal,
    ) -> Result<PathBuf, ShellError> {
        nerve::settings_view::allow_sandbox_refusal(&self.project, &self.rules, refusal).map_err(to_shell)
    }

    /// Runs one turn, sending its events on `channel`. One turn at a time per session. A prompt
    /// naming a custom slash command (`/review src/`) sends the command's text instead. Attached
    /// images are checked (type, size) before anything is sent; a bad one fails the call and the
    /// prompt stays with the user.
    pub async fn send(
        &self,
        prompt: &str,
        images: &[AttachedImage],
        channel: Channel<Event>,
    ) -> Result<TurnSummary, ShellError> {
        let mut agent = self.agent.try_lock().map_err(|_| {
            ShellError::new("a turn is already running in this session; wait for it or abort it")
        })?;
        let images = prepare_prompt_images(images).map_err(to_shell)?;
        // `/mcp__server__prompt args` asks the server for its prompt; other `/name args` are the
        // user's or the project's custom commands.
        let expanded = match self.mcp.expand_prompt(prompt).await {
            Some(result) => Some(result.map_err(|e| ShellError::new(e.to_string()))?),
            None => CustomCommands::for_project(self.project.dir()).expand(prompt),
        };
        let prompt = expanded.as_deref().unwrap_or(prompt);
        // A server that said its tool list changed gets its new tools now, between turns.
        if let Some(tools) = self.mcp.refresh_changed_tools().await
            && let Err(e) = agent.replace_external_tools(tools)
        {
            tracing::warn!("the MCP tools could not be refreshed: {e}");
        }
        let cancel = CancellationToken::new();
        let interrupt = CancellationToken::new();
        *lock(&self.turn_cancel) = Some(cancel.clone());
        *lock(&self.turn_interrupt) = Some(interrupt.clone());
        *lock(&self.channel) = Some(channel);
        let outcome = agent.send_with_images(prompt, images, cancel, interrupt).await;
        *lock(&self.channel) = None;
        *lock(&self.turn_cancel) = None;
        *lock(&self.turn_interrupt) = None;
        Ok(TurnSummary {
            end: outcome.end,
            error: outcome.error,
            session_cost_usd: agent.totals().cost_usd,
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

    /// Completes a waiting permission request.
    pub fn answer(&self, request_id: &str, answer: UserAnswer) -> Result<(), ShellError> {
        self.prompts.answer(request_id, answer).map_err(to_shell)
    }

    /// The preview of a waiting request for an input the user is editing, computed by the tool as
    /// the call would run (`None`: the edited input has no preview, for example an Edit whose old
    /// text is no longer in the file).
    pub async fn preview_edit(
        &self,
        request_id: &str,
        input: serde_json::Value,
    ) -> Result<Option<PermissionPreview>, ShellError> {
        self.prompts.preview(request_id, input).await.map_err(to_shell)
    }

    /// Switches the permission mode: at once between turns; during a turn, before its next tool
    /// call (calls already running keep the mode they were checked under).
    pub fn set_mode(&self, mode: PermissionMode) -> Result<PermissionMode, ShellError> {
        self.project.check_mode(mode).map_err(to_shell)?;
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

    /// The slash commands: built-ins, the user's and the project's custom commands, then the MCP
    /// servers' prompts.
    pub fn commands(&self) -> Vec<SlashCommand> {
        let mut commands = CustomCommands::for_project(self.project.dir()).listing();
        commands.extend(self.mcp.prompt_commands());
        commands
    }

    /// The project's files best matching `query` (the `@` picker).
    pub fn find_files(&self, query: &str, limit: usize) -> Vec<FileMatch> {
        self.project_files.find(query, limit)
    }

    /// Compacts the conversation now; refused while a turn runs. Returns the conversation as it
    /// then stands (the summary and what follows it).
    pub async fn compact(&self, instructions: Option<String>) -> Result<CompactOutcome, ShellError> {
        let mut agent = self.idle_agent()?;
        agent
            .compact(
                CompactTrigger::Manual,
                instructions.as_deref(),
                &CancellationToken::new(),
            )
            .await
            .map_err(|e| ShellError::new(e.to_string()))?;
        Ok(CompactOutcome {
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts().unwrap_or_default(),
        })
    }

    /// The session as Markdown (its transcript as it stands).
    pub fn markdown(&self) -> Result<String, ShellError> {
        nerve::agent::export::session_markdown(&self.files()?.transcript).map_err(to_shell)
    }

    /// Uses `model` for this session's next requests.
    pub fn set_model(&self, model: &str) -> Result<String, ShellError> {
        if model.trim().is_empty() {
            return Err(ShellError::new("name a model, e.g. /model claude-sonnet-4-5"));
        }
        let mut agent = self.idle_agent()?;
        agent.set_model(model);
        Ok(agent.model().to_string())
    }

    fn files(&self) -> Result<&SessionFiles, ShellError> {
        self.files
            .as_ref()
            .ok_or_else(|| ShellError::new("this session keeps no checkpoints"))
    }

    /// The changes of a call, a turn or the whole session.
    pub fn changes(&self, scope: ChangeScope) -> Result<ChangeSet, ShellError> {
        self.files()?.changes(scope).map_err(to_shell)
    }

    /// What rewinding the code to just before prompt `to_turn` would do.
    pub fn plan_rewind(&self, to_turn: u32) -> Result<CodeRewindPlan, ShellError> {
        self.files()?.plan_code_rewind(to_turn).map_err(to_shell)
    }

    /// What reverting one file (to before the session, or before turn `from_turn`) would do.
    pub fn plan_file_revert(
        &self,
        path: &Path,
        from_turn: Option<u32>,
    ) -> Result<CodeRewindPlan, ShellError> {
        self.files()?.plan_file_revert(path, from_turn).map_err(to_shell)
    }

    /// Reverts one file; refused while a turn runs.
    pub fn revert_file(
        &self,
        path: &Path,
        from_turn: Option<u32>,
        confirmed: bool,
    ) -> Result<CodeRewindReport, ShellError> {
        let _idle = self.idle_agent()?;
        self.files()?
            .revert_file(path, from_turn, confirmed)
            .map_err(to_shell)
    }

    /// Rewinds the code, the conversation or both to just before a prompt; refused while a turn
    /// runs. Returns the conversation as it then stands.
    pub fn rewind(&self, request: &RewindRequest) -> Result<RewindOutcome, ShellError> {
        let mut agent = self.idle_agent()?;
        let report = agent.rewind(request).map_err(to_shell)?;
        Ok(RewindOutcome {
            report,
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts().map_err(to_shell)?,
        })
    }

    fn idle_agent(&self) -> Result<tokio::sync::MutexGuard<'_, Agent>, ShellError> {
        self.agent.try_lock().map_err(|_| {
            ShellError::new("a turn is running in this session; wait for it to end or stop it, then rewind")
        })
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

/// The conversation as the UI shows it again.
fn history_of(agent: &Agent) -> Vec<HistoryMessage> {
    nerve::model::view::history(agent.messages())
}

/// Everything a new session needs from the app.
pub struct StartRequest {
    /// The project folder.
    pub project_path: PathBuf,
    /// The session to resume.
    pub resume: Option<String>,
    /// The app settings.
    pub settings: AppSettings,
    /// The demo's scripted model (its URL): no key is looked up and the settings' server, models
    /// and headers are not used.
    pub demo_model: Option<String>,
}

/// The open sessions by id.
#[derive(Default)]
pub struct Sessions {
    live: Mutex<HashMap<String, Arc<LiveSession>>>,
    /// Called for every permission request as it arrives (the window asks for attention).
    on_request: Mutex<Option<RequestAlert>>,
}

/// What the shell does when a permission request arrives, given its one-line summary.
pub type RequestAlert = Arc<dyn Fn(&str) + Send + Sync>;

impl Sessions {
    /// Sets what happens when any session's permission request arrives.
    pub fn alert_on_requests(&self, alert: RequestAlert) {
        *lock(&self.on_request) = Some(alert);
    }

    /// The session `id`.
    pub fn get(&self, id: &str) -> Result<Arc<LiveSession>, ShellError> {
        lock(&self.live)
            .get(id)
            .cloned()
            .ok_or_else(|| ShellError::new(format!("no open session {id}")))
    }

    /// Starts (or resumes) a session.
    pub async fn start(&self, request: StartRequest) -> Result<SessionInfo, ShellError> {
        let mut options = ProjectOptions::new(&request.project_path);
        options.fallback_mode = request.settings.default_mode;
        let project = Project::open(options).map_err(to_shell)?;
        let channel: TurnChannel = Arc::default();
        let alert = lock(&self.on_request).clone();
        let events = {
            let channel = Arc::clone(&channel);
            EventSink::new(move |event| {
                if let (Event::PermissionRequested { request }, Some(alert)) = (&event, &alert) {
                    alert(&request.summary);
                }
                if let Some(c) = lock(&channel).as_ref() {
                    // A closed window drops its events; the engine goes on and the transcript
                    // keeps everything.
                    let _ = c.send(event);
                }
            })
        };
        let prompts = PendingPrompts::default();
        let mut options = SessionOptions::new(events);
        options.resume = request.resume.clone();
        options.max_turns = request.settings.max_model_calls;
        options.max_concurrency = request.settings.max_concurrency.map(|n| n as usize);
        options.asker = Asker::User(Arc::new(prompts.clone()));
        match &request.demo_model {
            // The demo's scripted model: no key is looked up and the settings' server, models and
            // headers are not used.
            Some(url) => {
                options.server = ModelServer::Fixed {
                    base_url: url.clone(),
                    auth: ModelAuth::ApiKey(ApiKey::new(DEMO_MODEL.to_string())),
                    extra_headers: Vec::new(),
                };
                options.model = Some(DEMO_MODEL.to_string());
                options.fast_model = Some(DEMO_MODEL.to_string());
            }
            None => {
                options.server = ModelServer::Configured {
                    base_url: request.settings.base_url.clone(),
                    custom_headers: request.settings.custom_headers.clone(),
                };
                options.model = request.settings.model.clone();
                options.fast_model = request.settings.fast_model.clone();
            }
        }
        let StartedSession {
            session_id,
            model,
            agent,
            mcp,
            tool_names,
            warnings,
            unapproved_mcp_servers: _,
        } = start_session(&project, options).await.map_err(to_shell)?;
        let info = SessionInfo {
            session_id: session_id.clone(),
            project_path: project.dir().display().to_string(),
            mode: agent.permission_mode(),
            model,
            tools: tool_names,
            history: history_of(&agent),
            past_calls: agent.past_calls(),
            prompts: agent.prompts().unwrap_or_default(),
            context_tokens: agent.context_tokens(),
            context_window: agent.context_window(),
            session_cost_usd: agent.totals().cost_usd,
            session_cache_read_tokens: agent.totals().tokens.cache_read_input_tokens,
            session_cache_saved_usd: agent.totals().cache_saved_usd,
            warnings,
            demo: request.demo_model.is_some(),
        };
        let files = agent.session_files();
        let mode_switch = agent.mode_switch();
        let rules = agent.rules();
        let project_files = FileIndex::for_project(project.dir());
        let live = Arc::new(LiveSession {
            project,
            agent: tokio::sync::Mutex::new(agent),
            prompts,
            channel,
            turn_cancel: Mutex::new(None),
            turn_interrupt: Mutex::new(None),
            mode_switch,
            mcp,
            files,
            rules,
            project_files,
        });
        let previous = lock(&self.live).insert(session_id, live);
        if let Some(previous) = previous {
            // The same session opened twice: the older handle ends first.
            previous.close().await;
        }
        Ok(info)
    }

    /// Whether the session `id` is open.
    pub fn is_open(&self, id: &str) -> bool {
        lock(&self.live).contains_key(id)
    }

    /// Ends and forgets the session `id`.
    pub async fn end(&self, id: &str) -> Result<(), ShellError> {
        let session = lock(&self.live).remove(id);
        match session {
            Some(s) => {
                s.close().await;
                Ok(())
            }
            None => Err(ShellError::new(format!("no open session {id}"))),
        }
    }

    /// Ends every session (the app is quitting).
    pub async fn close_all(&self) {
        let all: Vec<_> = lock(&self.live).drain().map(|(_, s)| s).collect();
        futures::future::join_all(all.iter().map(|s| s.close())).await;
    }
}
