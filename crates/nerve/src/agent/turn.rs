//! One agent and its turns.

use futures::StreamExt;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::agent::conversation::{AnsweredCalls, answer_missing_tool_uses, outcomes_to_user_message};
use crate::agent::history::History;
use crate::agent::request::build_request;
use crate::agent::session_hooks;
use crate::agent::streaming_input::StreamingInputs;
use crate::budget::{
    ContentReplacementState, MESSAGE_BUDGET_CHARS, PersistedOutput, Replacement, ReplacementRecord,
};
use crate::events::{Event, TurnEnd};
use crate::executor::ExecutorOptions;
use crate::hooks::input::CompactTrigger;
use crate::model::client::{ModelClient, ModelEvent};
use crate::model::error::{ModelError, StreamError};
use crate::model::sse::{BlockDelta, StreamEvent};
use crate::model::types::{ContentBlock, Message, Role, StopReason, ThinkingConfig, ToolUseBlock, Usage};
use crate::model::usage::UsageTotals;
use crate::permissions::classifier::RecentIntent;
use crate::pipeline::{CallOutcome, MAX_TOOL_INPUT_BYTES, ToolCall};
use crate::project::SessionRuntime;
use crate::transcripts::{Replayed, Transcript, TranscriptEntry, read_transcript, replay};
use nerve_protocol::prompt::Effort;

/// The size of `input` as JSON.
fn input_size(input: &serde_json::Value) -> usize {
    serde_json::to_string(input).map_or(usize::MAX, |s| s.len())
}

/// Settings of the loop.
#[derive(Debug, Clone)]
pub struct AgentConfig {
    /// The main model.
    pub model: String,
    /// Output token limit per response.
    pub max_tokens: u32,
    /// Most model calls in one turn.
    pub max_turns: u32,
    /// Extended thinking when the effort is off (a caller's own configuration; none by default).
    pub thinking: Option<ThinkingConfig>,
    /// How hard the model thinks: when not off, the requests carry its thinking budget (and at
    /// least its `max_tokens`), replacing `thinking`.
    pub effort: Effort,
    /// Executor settings.
    pub executor: ExecutorOptions,
    /// How often a stream that died before any tool started is re-requested.
    pub stream_retries: u32,
    /// The model's context window in tokens.
    pub context_window: u64,
    /// Compact automatically when a request's input reaches this share of the window.
    pub auto_compact_at: f64,
    /// The session's own tools, kept when the MCP tools are replaced (the memory tool and test
    /// tools included).
    pub builtin_names: std::collections::HashSet<String>,
}

impl AgentConfig {
    /// Defaults for `model`.
    pub fn new(model: impl Into<String>) -> Self {
        Self {
            model: model.into(),
            max_tokens: 16_000,
            max_turns: 100,
            thinking: None,
            effort: Effort::Off,
            executor: ExecutorOptions::default(),
            stream_retries: 2,
            context_window: 200_000,
            auto_compact_at: 0.8,
            builtin_names: crate::registry::all_builtin_tools()
                .iter()
                .map(|t| t.name().to_string())
                .collect(),
        }
    }
}

/// A call that was denied (reported by `-p` in `permission_denials`).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Denial {
    /// The tool.
    pub tool_name: String,
    /// The call.
    pub tool_use_id: String,
    /// Its input.
    pub tool_input: serde_json::Value,
}

/// How a turn went.
#[derive(Debug, Clone, PartialEq)]
pub struct TurnOutcome {
    /// Why it ended.
    pub end: TurnEnd,
    /// The last assistant text.
    pub final_text: String,
    /// Model calls made.
    pub model_calls: u32,
    /// Usage of this turn.
    pub usage: Usage,
    /// The error, when it ended with one.
    pub error: Option<String>,
}

/// The agent: conversation, tools and model.
pub struct Agent {
    pub(crate) client: ModelClient,
    pub(crate) runtime: SessionRuntime,
    pub(crate) config: AgentConfig,
    pub(crate) system: Vec<String>,
    pub(crate) messages: History,
    pub(crate) replacements: ContentReplacementState,
    totals: UsageTotals,
    transcript: Option<Transcript>,
    denials: Vec<Denial>,
    /// Whether SessionStart hooks have run (they run before the first prompt).
    started: bool,
    /// Tokens of context the last response saw (input, cache and output).
    pub(crate) context_tokens: u64,
    /// Whether this conversation was resumed from a transcript.
    resumed: bool,
    /// Hook context waiting to go to the model with the next prompt.
    pub(crate) pending_context: Vec<String>,
    /// A command to run before the next prompt (a new worktree's setup command).
    pub(crate) pending_setup: Option<crate::agent::setup_command::SetupCommand>,
    /// Where the user's prompts are shared with the auto-mode classifier.
    intent: Option<RecentIntent>,
    /// The number the next prompt gets (see [`TranscriptEntry::TurnStart`]).
    pub(crate) next_turn: u32,
    /// The prompts found while resuming, until the transcript grows: a front-end asks for them
    /// right after, and reading the transcript a second time doubled the resume.
    pub(crate) resumed_prompts: Option<Vec<crate::transcripts::PromptInfo>>,
    /// Who sees each message as the API does (see [`Agent::observe_messages`]).
    message_observer: Option<MessageObserver>,
    /// The permission mode the model was last told (`None`: unknown, a resumed conversation). The
    /// mode is told in the conversation, never in the system prompt, so switching it keeps the
    /// cached prefix (see [`crate::agent::system_prompt::mode`]).
    told_mode: Option<crate::permissions::PermissionMode>,
    /// Instruction files of the project's subfolders, given to the model when it works there.
    nested: crate::agent::system_prompt::NestedInstructions,
}

/// Sees each message added to the conversation, as the Messages API has it.
pub type MessageObserver = Box<dyn Fn(&Message) + Send + Sync>;

impl std::fmt::Debug for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Agent")
            .field("messages", &self.messages.len())
            .finish()
    }
}

impl Agent {
    /// A new conversation. With a transcript, every message and decision is appended to it.
    pub fn new(
        client: ModelClient,
        runtime: SessionRuntime,
        config: AgentConfig,
        system: Vec<String>,
        transcript: Option<Transcript>,
    ) -> Self {
        let runtime_project_dir = runtime.context.config.project_dir.clone();
        let mut agent = Self {
            client,
            runtime,
            config,
            system,
            messages: History::default(),
            replacements: ContentReplacementState::default(),
            totals: UsageTotals::default(),
            transcript,
            denials: Vec::new(),
            started: false,
            context_tokens: 0,
            resumed: false,
            pending_context: Vec::new(),
            pending_setup: None,
            intent: None,
            next_turn: 1,
            resumed_prompts: None,
            message_observer: None,
            told_mode: Some(crate::permissions::PermissionMode::Default),
            nested: crate::agent::system_prompt::NestedInstructions::new(runtime_project_dir),
        };
        let entry = TranscriptEntry::SessionStart {
            session_id: agent.runtime.context.config.session_id.clone(),
            cwd: agent.runtime.context.exec.cwd.clone(),
            model: agent.config.model.clone(),
            time_ms: crate::transcripts::transcript_now_ms(),
            forked_from: None,
        };
        agent.record(&entry);
        agent
    }

    /// Continues a conversation from its transcript: the history is rebuilt exactly (including the
    /// frozen form of every tool result), and tool calls left unanswered by a crash or kill are
    /// answered as interrupted, so the next request is valid. Returns warnings about damaged lines.
    pub fn resume(
        client: ModelClient,
        runtime: SessionRuntime,
        config: AgentConfig,
        system: Vec<String>,
        transcript_path: &std::path::Path,
    ) -> Result<(Self, Vec<String>), crate::transcripts::TranscriptError> {
        let (entries, warnings) = read_transcript(transcript_path)?;
        let mut config = config;
        // The session goes on with the model and effort the user last chose in it.
        if let Some((model, effort)) = entries.iter().rev().find_map(|e| match e {
            TranscriptEntry::ModelChoice { model, effort, .. } => Some((model.clone(), *effort)),
            _ => None,
        }) {
            config.model = model;
            config.effort = effort;
        }
        let next_turn = crate::transcripts::next_turn(&entries);
        let (totals, context_tokens) = usage_of(&entries);
        let live = crate::transcripts::live_entries(entries);
        let mut resumed_prompts = crate::transcripts::prompts(&live);
        let Replayed {
            messages,
            records,
            prompt_messages,
        } = replay(live);
        crate::agent::rewind::place_prompts(&mut resumed_prompts, &prompt_messages);
        let before = messages.len();
        let mut messages = messages;
        answer_missing_tool_uses(&mut messages);
        let transcript = Transcript::open(transcript_path)?;
        let nested =
            crate::agent::system_prompt::NestedInstructions::new(runtime.context.config.project_dir.clone());
        let mut agent = Self {
            client,
            runtime,
            config,
            system,
            messages: History::new(messages),
            replacements: ContentReplacementState::from_records(records),
            totals,
            transcript: Some(transcript),
            denials: Vec::new(),
            started: false,
            context_tokens,
            resumed: true,
            pending_context: Vec::new(),
            pending_setup: None,
            intent: None,
            next_turn,
            resumed_prompts: Some(resumed_prompts),
            message_observer: None,
            told_mode: None,
            nested,
        };
        if agent.messages.len() != before || !warnings.is_empty() {
            // Record the repaired tail so the transcript itself becomes valid again.
            if let Some(last) = agent.messages.last().cloned()
                && last.role == Role::User
            {
                agent.record(&TranscriptEntry::Message { message: last });
            }
        }
        Ok((agent, warnings))
    }

    /// Shares the user's prompts with the auto-mode classifier: the prompts already in the
    /// history (a resumed conversation) now, and each prompt [`Self::send`] accepts from then on.
    pub fn with_intent(mut self, intent: RecentIntent) -> Self {
        intent.record_history(&self.messages);
        self.intent = Some(intent);
        self
    }

    /// Shows every message added from now on to `observer`, as the Messages API has it (the
    /// events carry what a person reads; a front-end that prints the API's messages, such as
    /// `nerve -p --output-format stream-json`, watches here).
    pub fn observe_messages(&mut self, observer: MessageObserver) {
        self.message_observer = Some(observer);
    }

    /// The conversation so far.
    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Calls denied so far.
    pub fn denials(&self) -> &[Denial] {
        &self.denials
    }

    /// The session's usage totals.
    pub fn totals(&self) -> &UsageTotals {
        &self.totals
    }

    /// The session's tool runtime.
    pub fn runtime(&self) -> &SessionRuntime {
        &self.runtime
    }

    /// The transcript file, when the session keeps one.
    pub fn transcript_path(&self) -> Option<&std::path::Path> {
        self.transcript.as_ref().map(Transcript::path)
    }

    /// How much of the context window the latest response used (its whole input and output).
    pub fn context_tokens(&self) -> u64 {
        self.context_tokens
    }

    /// The model's context window in tokens.
    pub fn context_window(&self) -> u64 {
        self.config.context_window
    }

    /// The main model.
    pub fn model(&self) -> &str {
        &self.config.model
    }

    /// Uses `model` for the session's next requests (a front-end's `/model`). The model's price,
    /// if known, applies to the cost from then on. The choice is recorded in the transcript.
    pub fn set_model(&mut self, model: &str) {
        self.config.model = model.trim().to_string();
        self.record_choice();
    }

    /// How hard the model thinks.
    pub fn effort(&self) -> Effort {
        self.config.effort
    }

    /// Thinks this hard from the next request on (call it between turns: one tool-use loop keeps
    /// one thinking configuration). The choice is recorded in the transcript.
    pub fn set_effort(&mut self, effort: Effort) {
        self.config.effort = effort;
        self.record_choice();
    }

    fn record_choice(&mut self) {
        let entry = TranscriptEntry::ModelChoice {
            model: self.config.model.clone(),
            effort: self.config.effort,
            time_ms: crate::transcripts::transcript_now_ms(),
        };
        self.record(&entry);
    }

    /// The output limit and thinking configuration of the next request: the effort's budget when
    /// one is set (with room for the answer), else the configured ones.
    fn output_budget(&self) -> (u32, Option<ThinkingConfig>) {
        match self.config.effort.budget_tokens() {
            Some(budget_tokens) => (
                self.config.max_tokens.max(self.config.effort.min_max_tokens()),
                Some(ThinkingConfig::Enabled { budget_tokens }),
            ),
            None => (self.config.max_tokens, self.config.thinking),
        }
    }

    /// The permission mode the next call starts in.
    pub fn permission_mode(&self) -> crate::permissions::PermissionMode {
        self.runtime.context.permissions.mode
    }

    /// The session's rules (settings, command line, and what was allowed during the session), shared:
    /// a settings screen reads them while a turn runs.
    pub fn rules(&self) -> crate::permissions::SharedRules {
        self.runtime.context.permissions.rules.clone()
    }

    /// Where a front-end asks for a mode change while a turn runs (the agent is busy then): the
    /// turn applies it before its next tool call or model request, and emits `ModeChanged`.
    pub fn mode_switch(&self) -> crate::permissions::ModeSwitch {
        self.config.executor.mode_switch.clone()
    }

    fn apply_mode_switch(&mut self) {
        if let Some(mode) = self.config.executor.mode_switch.take() {
            self.set_permission_mode(mode);
        }
    }

    /// The note telling the model the mode, when it differs from the last one it was told (and
    /// remembers it as told).
    fn mode_note(&mut self) -> Option<String> {
        let mode = self.runtime.context.permissions.mode;
        if self.told_mode == Some(mode) {
            return None;
        }
        self.told_mode = Some(mode);
        let exit_plan = self
            .runtime
            .pipeline
            .pool()
            .find(crate::tools::exit_plan_mode::NAME)
            .is_some();
        Some(crate::agent::system_prompt::mode::mode_note(mode, exit_plan))
    }

    /// Instruction files of the subfolders the successful calls of `tool_uses` worked in, not
    /// given to the model before.
    fn nested_instructions(&mut self, tool_uses: &[ToolUseBlock], outcomes: &[CallOutcome]) -> Vec<String> {
        let cwd = self.runtime.context.exec.cwd.clone();
        let paths: Vec<std::path::PathBuf> = tool_uses
            .iter()
            .filter(|t| {
                outcomes
                    .iter()
                    .any(|o| o.tool_use_id == t.id && !o.is_error && !o.denied)
            })
            .flat_map(|t| {
                ["file_path", "notebook_path", "path"]
                    .into_iter()
                    .filter_map(|key| t.input.get(key).and_then(serde_json::Value::as_str))
                    .map(|p| cwd.join(p))
                    .collect::<Vec<_>>()
            })
            .collect();
        if paths.is_empty() {
            return Vec::new();
        }
        self.nested.new_for(&paths)
    }

    /// Switches the permission mode between turns (a front-end's mode switcher). Entering plan mode
    /// remembers the mode to return to, as the EnterPlanMode tool does; whether a mode is allowed
    /// at all is the project's call ([`crate::project::Project::check_mode`]); a mode the settings
    /// forbid that gets here anyway is refused with a notice.
    pub fn set_permission_mode(&mut self, mode: crate::permissions::PermissionMode) {
        match crate::permissions::switch_mode(&mut self.runtime.context.permissions, mode) {
            Ok(true) => self.emit(Event::ModeChanged { mode }),
            Ok(false) => {}
            Err(refused) => self.emit(Event::Notice {
                message: refused.to_string(),
            }),
        }
    }

    /// Replaces the session's MCP tools between turns (a server said its tool list changed), keeping
    /// the order of the tools the model has seen (see [`crate::registry::ToolPool::with_external_tools`]).
    pub fn replace_external_tools(
        &mut self,
        external: Vec<crate::tool::ToolRef>,
    ) -> Result<(), crate::input::SchemaError> {
        let old = std::sync::Arc::clone(&self.runtime.pipeline);
        let pool = std::sync::Arc::new(old.pool().with_external_tools(
            external,
            &self.config.builtin_names,
            &self.runtime.context.permissions,
        )?);
        self.runtime.pipeline = std::sync::Arc::new(old.with_pool(std::sync::Arc::clone(&pool)));
        let mut config = (*self.runtime.context.config).clone();
        config.tool_pool = Some(pool);
        self.runtime.context.config = std::sync::Arc::new(config);
        Ok(())
    }

    /// Ends the session: runs SessionEnd hooks.
    pub async fn end_session(&mut self) {
        let hooks = std::sync::Arc::clone(self.runtime.pipeline.hooks());
        let r = session_hooks::session_end(&hooks, &self.runtime.context).await;
        self.notify_all(&r.notices);
    }

    /// Tells front-ends which results the per-message budget replaced, so a card shows what the
    /// model got (its `tool_completed` came before the turn's results were put together).
    fn announce_replacements(&self, records: &[ReplacementRecord], persisted: &[(String, PersistedOutput)]) {
        let replaced: Vec<_> = records
            .iter()
            .filter_map(|r| match &r.replacement {
                Replacement::Kept => None,
                Replacement::Persisted { wrapper } => Some((r, wrapper, true)),
                Replacement::Withheld { notice } => Some((r, notice, false)),
            })
            .collect();
        if replaced.is_empty() {
            return;
        }
        for (record, text, was_persisted) in replaced {
            let file = was_persisted
                .then(|| persisted.iter().find(|(id, _)| *id == record.tool_use_id))
                .flatten()
                .map(|(_, file)| file);
            self.emit(Event::ToolResultReplaced {
                tool_use_id: record.tool_use_id.clone(),
                content: vec![crate::tool::ResultBlock::text(text.clone())],
                persisted_path: file.map(|f| f.path.clone()),
                persisted_bytes: file.map(|f| f.size_bytes),
            });
        }
    }

    pub(crate) fn notify_all(&self, notices: &[String]) {
        for message in notices {
            self.emit(Event::Notice {
                message: message.clone(),
            });
        }
    }

    pub(crate) fn emit(&self, event: Event) {
        self.runtime.pipeline.events().emit(event);
    }

    pub(crate) fn record(&mut self, entry: &TranscriptEntry) {
        self.resumed_prompts = None;
        if let Some(t) = &mut self.transcript
            && let Err(e) = t.append(entry)
        {
            // The conversation in memory goes on; the user is told the transcript is behind.
            let message = format!("{e}");
            self.emit(Event::Notice { message });
        }
    }

    pub(crate) fn push_message(&mut self, message: Message) {
        self.emit(match message.role {
            Role::User => Event::UserMessage {
                message: crate::model::view::user_words(&message),
            },
            Role::Assistant => Event::AssistantMessage {
                message: crate::model::view::assistant_words(&message),
            },
        });
        if let Some(observer) = &self.message_observer {
            observer(&message);
        }
        self.record(&TranscriptEntry::Message {
            message: message.clone(),
        });
        self.messages.push_merged(message);
    }

    /// Sends a prompt and runs the loop until the model is done, the turn limit is hit, the user
    /// aborts (`cancel`), a hook stops it, or an error ends it. The history is valid afterwards in
    /// every case.
    pub async fn send(&mut self, prompt: &str, cancel: CancellationToken) -> TurnOutcome {
        self.send_interruptible(prompt, cancel, CancellationToken::new())
            .await
    }

    /// [`Agent::send`], where `interrupt` fires when the user sends a new message while the turn
    /// runs: the model's answer stops, running calls that may be cancelled (their tool's
    /// [`crate::tool::InterruptBehavior`] is `Cancel`) are stopped and answered as interrupted,
    /// `Block` calls finish, and the turn ends with [`TurnEnd::Interrupted`], so the new message can
    /// start the next one.
    pub async fn send_interruptible(
        &mut self,
        prompt: &str,
        cancel: CancellationToken,
        interrupt: CancellationToken,
    ) -> TurnOutcome {
        self.send_with_images(prompt, Vec::new(), cancel, interrupt).await
    }

    /// [`Agent::send_interruptible`] with images the user attached (image blocks, from
    /// [`crate::agent::prepare_prompt_images`]); they go before the prompt's text, as the API
    /// recommends.
    pub async fn send_with_images(
        &mut self,
        prompt: &str,
        images: Vec<ContentBlock>,
        cancel: CancellationToken,
        interrupt: CancellationToken,
    ) -> TurnOutcome {
        self.config.executor.interrupt = interrupt;
        // Held while the turn runs, so a rewind from elsewhere is refused meanwhile.
        let lock = self.lock_turn();
        let outcome = self.run_turn(prompt, images, cancel).await;
        if self.runtime.context.agent.agent_id.is_none() {
            self.record(&TranscriptEntry::TurnEnd {
                reason: outcome.end.clone(),
                time_ms: crate::transcripts::transcript_now_ms(),
            });
        }
        if let Some(checkpoints) = self.own_checkpoints() {
            checkpoints.end_turn();
        }
        drop(lock);
        self.config.executor.interrupt = CancellationToken::new();
        // A switch asked for after the last safe point still counts, for the next turn.
        self.apply_mode_switch();
        outcome
    }

    async fn run_turn(
        &mut self,
        prompt: &str,
        images: Vec<ContentBlock>,
        cancel: CancellationToken,
    ) -> TurnOutcome {
        let hooks = std::sync::Arc::clone(self.runtime.pipeline.hooks());
        if !self.started {
            self.started = true;
            let r = session_hooks::session_start(&hooks, &self.runtime.context, self.resumed).await;
            self.notify_all(&r.notices);
            self.pending_context.extend(r.context);
        }
        let r = session_hooks::user_prompt_submit(&hooks, &self.runtime.context, prompt).await;
        self.notify_all(&r.notices);
        if let Some(reason) = r.block.or(r.stop) {
            let message = format!("The prompt was blocked by a UserPromptSubmit hook: {reason}");
            self.emit(Event::Error {
                message: message.clone(),
            });
            self.emit(Event::TurnEnded {
                reason: TurnEnd::Error,
            });
            return TurnOutcome {
                end: TurnEnd::Error,
                final_text: String::new(),
                model_calls: 0,
                usage: Usage::default(),
                error: Some(message),
            };
        }
        if let Some(intent) = &self.intent {
            intent.record(prompt);
        }
        // The prompt's number comes first: what runs before the model (a setup command) belongs
        // to this turn's checkpoints.
        self.start_turn();
        self.run_setup_command(&cancel).await;
        let mut user = Message::user_text(prompt);
        user.content.splice(0..0, images);
        for context in std::mem::take(&mut self.pending_context)
            .into_iter()
            .chain(r.context)
        {
            user.content
                .push(crate::model::context::ContextFragment::new(context).block());
        }
        if let Some(note) = self.mode_note() {
            user.content
                .push(crate::model::context::ContextFragment::new(note).block());
        }
        self.push_message(user);
        let mut stop_hook_active = false;
        let mut turn_usage = Usage::default();
        let mut model_calls = 0;
        let mut final_text = String::new();
        let mut stream_failures = 0;
        let end = |end: TurnEnd, error: Option<String>, text: String, calls: u32, usage: Usage| TurnOutcome {
            end,
            final_text: text,
            model_calls: calls,
            usage,
            error,
        };
        loop {
            self.apply_mode_switch();
            if self.config.executor.interrupt.is_cancelled() && !cancel.is_cancelled() {
                self.emit(Event::TurnEnded {
                    reason: TurnEnd::Interrupted,
                });
                return end(TurnEnd::Interrupted, None, final_text, model_calls, turn_usage);
            }
            if cancel.is_cancelled() {
                self.emit(Event::TurnEnded {
                    reason: TurnEnd::Aborted,
                });
                return end(TurnEnd::Aborted, None, final_text, model_calls, turn_usage);
            }
            if model_calls >= self.config.max_turns {
                self.emit(Event::TurnEnded {
                    reason: TurnEnd::MaxTurns,
                });
                return end(TurnEnd::MaxTurns, None, final_text, model_calls, turn_usage);
            }
            if self.needs_compaction()
                && let Err(e) = self.compact(CompactTrigger::Auto, None, &cancel).await
            {
                self.emit(Event::Notice {
                    message: format!("Automatic compaction failed: {e}"),
                });
            }
            model_calls += 1;
            let step = self.model_step(&cancel).await;
            add_usage(&mut turn_usage, &step.usage);
            if let Some(text) = step.text.clone() {
                final_text = text;
            }
            match step.kind {
                StepKind::RetryStream(reason) => {
                    stream_failures += 1;
                    model_calls -= 1;
                    if stream_failures > self.config.stream_retries {
                        let message = format!("the model's response stream kept failing: {reason}");
                        self.emit(Event::Error {
                            message: message.clone(),
                        });
                        self.emit(Event::TurnEnded {
                            reason: TurnEnd::Error,
                        });
                        return end(TurnEnd::Error, Some(message), final_text, model_calls, turn_usage);
                    }
                    self.emit(Event::Retrying {
                        attempt: stream_failures,
                        delay_ms: 0,
                        reason: nerve_protocol::RetryReason::StreamFailed { message: reason },
                    });
                }
                StepKind::Continue => {}
                StepKind::End(TurnEnd::EndTurn) => {
                    // Stop hooks may send the model back to work ("decision": "block").
                    let r = session_hooks::stop(&hooks, &self.runtime.context, stop_hook_active).await;
                    self.notify_all(&r.notices);
                    if let Some(reason) = r.stop {
                        self.emit(Event::Notice {
                            message: format!("A Stop hook ended the turn: {reason}"),
                        });
                    } else if let Some(reason) = r.block {
                        stop_hook_active = true;
                        self.push_message(Message::user_text(format!("Stop hook feedback:\n{reason}")));
                        continue;
                    }
                    self.emit(Event::TurnEnded {
                        reason: TurnEnd::EndTurn,
                    });
                    return end(TurnEnd::EndTurn, None, final_text, model_calls, turn_usage);
                }
                StepKind::End(reason) => {
                    self.emit(Event::TurnEnded {
                        reason: reason.clone(),
                    });
                    return end(reason, None, final_text, model_calls, turn_usage);
                }
                StepKind::Failed(message) => {
                    self.emit(Event::Error {
                        message: message.clone(),
                    });
                    self.emit(Event::TurnEnded {
                        reason: TurnEnd::Error,
                    });
                    return end(TurnEnd::Error, Some(message), final_text, model_calls, turn_usage);
                }
            }
        }
    }

    /// One model call and the tools it asked for.
    async fn model_step(&mut self, cancel: &CancellationToken) -> Step {
        let specs = self.runtime.pipeline.pool().specs();
        let (max_tokens, thinking) = self.output_budget();
        let head = build_request(
            &self.config.model,
            max_tokens,
            &self.system,
            &specs,
            &[],
            thinking,
        );
        let body = self.messages.body(&head);
        let exec_cancel = cancel.child_token();
        let executor = self
            .runtime
            .executor(exec_cancel.clone(), self.config.executor.clone());
        let interrupt = self.config.executor.interrupt.clone();
        let mut stream = self.client.stream_body(body, cancel.clone());
        let mut tool_uses: Vec<ToolUseBlock> = Vec::new();
        let mut completed: Vec<ContentBlock> = Vec::new();
        // Tool calls refused for their input's size: (id, name, bytes).
        let mut oversized: Vec<(String, String, usize)> = Vec::new();
        let mut message = None;
        let mut failure: Option<ModelError> = None;
        let mut streaming = StreamingInputs::default();
        loop {
            // A new message from the user ends the answer here: what was complete is kept.
            let item = tokio::select! {
                item = stream.next() => item,
                () = interrupt.cancelled() => None,
            };
            let Some(item) = item else {
                break;
            };
            match item {
                Ok(ModelEvent::Retrying(notice)) => self.emit(Event::Retrying {
                    attempt: notice.attempt,
                    delay_ms: notice.delay.as_millis() as u64,
                    reason: notice.reason,
                }),
                Ok(ModelEvent::Event(StreamEvent::ContentBlockStart {
                    index,
                    content_block: ContentBlock::ToolUse(t),
                })) => {
                    let event = streaming.start(index, &t, self.runtime.pipeline.pool());
                    self.emit(event);
                }
                Ok(ModelEvent::Event(StreamEvent::ContentBlockDelta { delta, index })) => match delta {
                    BlockDelta::TextDelta { text } => self.emit(Event::TextDelta { text }),
                    BlockDelta::ThinkingDelta { thinking } => {
                        self.emit(Event::ThinkingDelta { text: thinking })
                    }
                    BlockDelta::InputJsonDelta { partial_json } => {
                        if let Some(event) =
                            streaming.fragment(index, &partial_json, std::time::Instant::now())
                        {
                            self.emit(event);
                        }
                    }
                    BlockDelta::SignatureDelta { .. } => {}
                },
                Ok(ModelEvent::Event(_)) => {}
                Ok(ModelEvent::BlockComplete { block, index }) => {
                    if let Some(event) = streaming.complete(index) {
                        self.emit(event);
                    }
                    // The tool starts now, while the model may still be writing the next block.
                    let block = match block {
                        // An input no model could write within its output limit (a hostile
                        // stream): refused, and not kept, so it cannot fill every later request.
                        ContentBlock::ToolUse(mut t) if input_size(&t.input) > MAX_TOOL_INPUT_BYTES => {
                            oversized.push((t.id.clone(), t.name.clone(), input_size(&t.input)));
                            t.input = serde_json::json!({});
                            ContentBlock::ToolUse(t)
                        }
                        other => other,
                    };
                    // Recorded before the tool starts: a kill from here on leaves a transcript
                    // whose call a resume answers.
                    self.record(&TranscriptEntry::AssistantBlock { block: block.clone() });
                    if let ContentBlock::ToolUse(t) = &block {
                        let call = ToolCall {
                            id: t.id.clone(),
                            name: t.name.clone(),
                            input: t.input.clone(),
                        };
                        match oversized.iter().find(|(id, _, _)| id == &t.id) {
                            // Refused in its place: results go back in the order of the calls.
                            Some((_, name, size)) => {
                                let outcome = CallOutcome::oversized(&call, name, *size);
                                executor.refuse(call, outcome);
                            }
                            None => executor.add(call),
                        }
                        tool_uses.push(t.clone());
                    }
                    completed.push(block);
                }
                Ok(ModelEvent::MessageComplete(m)) => message = Some(m),
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
        }
        drop(stream);

        // A tool call whose input arrived broken (cut off at max_tokens, or not JSON) is answered
        // with an error the model can act on, instead of failing the whole turn.
        let mut broken: Option<(ToolUseBlock, String)> = None;
        if let Some(ModelError::Stream(StreamError::InvalidToolInput {
            tool_use_id,
            name,
            reason,
            ..
        })) = &failure
        {
            let block = ToolUseBlock {
                id: tool_use_id.clone(),
                name: name.clone(),
                input: serde_json::json!({}),
                cache_control: None,
            };
            completed.push(ContentBlock::ToolUse(block.clone()));
            let call = ToolCall {
                id: block.id.clone(),
                name: block.name.clone(),
                input: serde_json::json!({}),
            };
            executor.refuse(call.clone(), CallOutcome::broken_input(&call, reason));
            broken = Some((block, reason.clone()));
        }
        // Calls whose input never completed did not happen (the broken one is answered above).
        for event in streaming.abandoned(broken.as_ref().map(|(b, _)| b.id.as_str())) {
            self.emit(event);
        }

        let (assistant, stop_reason, usage) = match message {
            Some(m) => {
                let usage = m.usage;
                self.record_usage(&usage);
                (Some(m.to_message()), Some(m.stop_reason), usage)
            }
            None => {
                let aborted = cancel.is_cancelled() || interrupt.is_cancelled();
                if tool_uses.is_empty() && broken.is_none() && !aborted {
                    executor.close();
                    let _ = executor.finish().await;
                    return match failure {
                        Some(e @ ModelError::StreamInterrupted { .. }) => Step {
                            kind: StepKind::RetryStream(e.to_string()),
                            usage: Usage::default(),
                            text: None,
                        },
                        Some(e) => Step {
                            kind: StepKind::Failed(e.to_string()),
                            usage: Usage::default(),
                            text: None,
                        },
                        None => Step {
                            kind: StepKind::Failed("the model's response ended without a message".into()),
                            usage: Usage::default(),
                            text: None,
                        },
                    };
                }
                // Keep what was complete: blocks already acted on must stay in the history, each
                // tool call with its result.
                let content: Vec<ContentBlock> = completed.clone();
                let assistant = (!content.is_empty()).then_some(Message {
                    role: Role::Assistant,
                    content,
                });
                (assistant, None, Usage::default())
            }
        };
        let text = assistant.as_ref().and_then(last_text);
        if let Some(mut a) = assistant {
            for block in &mut a.content {
                if let ContentBlock::ToolUse(t) = block
                    && oversized.iter().any(|(id, _, _)| id == &t.id)
                {
                    t.input = serde_json::json!({});
                }
            }
            self.push_message(a);
        }

        if cancel.is_cancelled() {
            exec_cancel.cancel();
        }
        let mode_before_tools = self.runtime.context.permissions.mode;
        let (outcomes, ctx) = executor.finish().await;
        // The next turn starts from the context the tools left (plan mode, cwd...), with a fresh
        // cancellation token.
        self.runtime.context = ctx.with_cancel(tokio_util::sync::CancellationToken::new());
        if self.runtime.context.permissions.mode != mode_before_tools {
            // A tool switched the mode (EnterPlanMode, ExitPlanMode): its result told the model.
            self.told_mode = Some(self.runtime.context.permissions.mode);
        }
        if !outcomes.is_empty() {
            let stop = outcomes.iter().find_map(|o| o.stop_reason.clone());
            self.note_denials(&tool_uses, &outcomes);
            let store = &self.runtime.pipeline.store();
            let AnsweredCalls {
                message: mut user,
                records,
                persisted,
            } = outcomes_to_user_message(&outcomes, &mut self.replacements, store, MESSAGE_BUDGET_CHARS);
            let nested = self.nested_instructions(&tool_uses, &outcomes);
            if !nested.is_empty() {
                user.content.push(
                    crate::model::context::ContextFragment::new(crate::agent::system_prompt::nested_note(
                        &nested,
                    ))
                    .block(),
                );
            }
            self.announce_replacements(&records, &persisted);
            for record in records {
                self.record(&TranscriptEntry::Replacement { record });
            }
            self.push_message(user);
            self.repair_history();
            if let Some(reason) = stop {
                self.emit(Event::Notice {
                    message: format!("A hook stopped the agent: {reason}"),
                });
                return Step {
                    kind: StepKind::End(TurnEnd::StoppedByHook),
                    usage,
                    text,
                };
            }
            if cancel.is_cancelled() {
                return Step {
                    kind: StepKind::End(TurnEnd::Aborted),
                    usage,
                    text,
                };
            }
            if interrupt.is_cancelled() {
                return Step {
                    kind: StepKind::End(TurnEnd::Interrupted),
                    usage,
                    text,
                };
            }
            match failure.filter(|_| broken.is_none()) {
                // The stream died after some calls were complete: they ran and were answered, so the
                // model continues from there in the next request.
                Some(ModelError::StreamInterrupted { .. }) | None => {}
                Some(e) => {
                    return Step {
                        kind: StepKind::Failed(e.to_string()),
                        usage,
                        text,
                    };
                }
            }
            return Step {
                kind: StepKind::Continue,
                usage,
                text,
            };
        }
        if cancel.is_cancelled() {
            return Step {
                kind: StepKind::End(TurnEnd::Aborted),
                usage,
                text,
            };
        }
        let kind = match stop_reason {
            Some(StopReason::PauseTurn) => StepKind::Continue,
            Some(StopReason::MaxTokens) => StepKind::End(TurnEnd::MaxTokens),
            Some(StopReason::Refusal) => StepKind::End(TurnEnd::Refusal),
            Some(
                StopReason::EndTurn | StopReason::StopSequence | StopReason::ToolUse | StopReason::Other(_),
            ) => StepKind::End(TurnEnd::EndTurn),
            None => match failure {
                Some(e) => StepKind::Failed(e.to_string()),
                None => StepKind::End(TurnEnd::EndTurn),
            },
        };
        Step { kind, usage, text }
    }

    /// Adds a response's usage to the session's totals and the transcript (also for requests that
    /// are not part of the conversation, such as a compaction's summary: they are paid for too).
    pub(crate) fn count_usage(&mut self, usage: &Usage) {
        self.totals.add(&self.config.model, usage);
        self.record(&TranscriptEntry::Usage {
            model: self.config.model.clone(),
            usage: *usage,
        });
    }

    fn record_usage(&mut self, usage: &Usage) {
        self.count_usage(usage);
        self.context_tokens = context_of(usage);
        self.emit(Event::Usage {
            input_tokens: usage.input_tokens,
            output_tokens: usage.output_tokens,
            cache_read_input_tokens: usage.cache_read_input_tokens,
            cache_creation_input_tokens: usage.cache_creation_input_tokens,
            session_cost_usd: self.totals.cost_usd,
            session_cache_read_tokens: self.totals.tokens.cache_read_input_tokens,
            session_cache_saved_usd: self.totals.cache_saved_usd,
            context_tokens: self.context_tokens,
            context_window: self.config.context_window,
        });
    }

    /// Lists denied calls (for `-p`'s `permission_denials`) and records every permission decision
    /// in the transcript.
    fn note_denials(&mut self, tool_uses: &[ToolUseBlock], outcomes: &[CallOutcome]) {
        for o in outcomes {
            if let Some(by) = o.allowed_by {
                self.record(&TranscriptEntry::Permission {
                    tool_use_id: o.tool_use_id.clone(),
                    tool_name: o.tool_name.clone(),
                    allowed: true,
                    decided_by: Some(by),
                    reason: crate::permissions::allowed_by_words(by).to_string(),
                });
                continue;
            }
            if !o.denied {
                continue;
            }
            let input = tool_uses
                .iter()
                .find(|t| t.id == o.tool_use_id)
                .map(|t| t.input.clone())
                .unwrap_or_default();
            self.denials.push(Denial {
                tool_name: o.tool_name.clone(),
                tool_use_id: o.tool_use_id.clone(),
                tool_input: input,
            });
            self.record(&TranscriptEntry::Permission {
                tool_use_id: o.tool_use_id.clone(),
                tool_name: o.tool_name.clone(),
                allowed: false,
                decided_by: None,
                reason: crate::tool::text_of(&o.content),
            });
        }
    }

    /// Defence in depth: whatever happened above, the history must pair every tool_use.
    fn repair_history(&mut self) {
        // Checked without copying: the history grows all session, and this runs every step.
        if self.messages.tool_uses_are_answered() {
            return;
        }
        answer_missing_tool_uses(self.messages.edit());
        tracing::error!("the conversation had an unanswered tool call; it was answered as interrupted");
    }
}

/// The usage totals of every response a transcript records, and the context the last one used.
fn usage_of(entries: &[TranscriptEntry]) -> (UsageTotals, u64) {
    let mut totals = UsageTotals::default();
    let mut context_tokens = 0;
    for entry in entries {
        match entry {
            TranscriptEntry::Usage { model, usage } => {
                totals.add(model, usage);
                context_tokens = context_of(usage);
            }
            // What the conversation held before a compaction no longer fills the window.
            TranscriptEntry::CompactBoundary { .. } => context_tokens = 0,
            _ => {}
        }
    }
    (totals, context_tokens)
}

/// The context window a response used: its whole input (cached or not) and its output.
fn context_of(usage: &Usage) -> u64 {
    usage.input_tokens
        + usage.cache_read_input_tokens
        + usage.cache_creation_input_tokens
        + usage.output_tokens
}

struct Step {
    kind: StepKind,
    usage: Usage,
    text: Option<String>,
}

enum StepKind {
    Continue,
    RetryStream(String),
    End(TurnEnd),
    Failed(String),
}

fn add_usage(total: &mut Usage, u: &Usage) {
    total.input_tokens += u.input_tokens;
    total.output_tokens += u.output_tokens;
    total.cache_creation_input_tokens += u.cache_creation_input_tokens;
    total.cache_read_input_tokens += u.cache_read_input_tokens;
}

/// The text blocks of a message, joined; `None` when it has no text.
pub(crate) fn last_text(message: &Message) -> Option<String> {
    let text: Vec<&str> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect();
    (!text.is_empty()).then(|| text.join(""))
}
