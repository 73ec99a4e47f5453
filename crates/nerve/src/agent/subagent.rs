//! Sub-agents: a fresh loop with its own conversation and context, started by the Agent tool.
//!
//! What the child shares and what it isolates (each a lesson from Claude Code's sub-agent context):
//! - shared: the permission rules and mode (an "always allow" given to a child holds for the
//!   session), the working directory, background tasks, hooks;
//! - isolated: the conversation, denial tracking, the read-file state (a copy: the child may rely
//!   on what the parent read, but its reads do not make the parent's edits look fresh), the
//!   content-replacement state (the child's results are its own), its transcript file;
//! - bubbled: permission prompts go to the parent's front-end, labelled with the child;
//! - flowing back (through the Agent tool's context modifier): files the child saw differently from
//!   the parent are forgotten by the parent (an edit must read them again), and the child's task
//!   list updates become the parent's.

use std::sync::Arc;

use async_trait::async_trait;

use crate::agent::system_prompt::SubagentPrompt;
use crate::agent::{Agent, AgentConfig};
use crate::budget::ResultStore;
use crate::events::{Event, EventSink};
use crate::hooks::HookConfig;
use crate::hooks::HookEventInput;
use crate::hooks::input::SubagentStopInput;
use crate::model::client::ModelClient;
use crate::permissions::{AutoClassifier, PermissionPrompter};
use crate::pipeline::Pipeline;
use crate::pipeline::Resolver;
use crate::project::SessionRuntime;
use crate::tool::ToolPool;
use crate::tool::tasks::{TaskBoard, TaskKind, TaskStatus, TaskView, now_ms};
use crate::tool::{
    AgentIdentity, Progress, ProgressSink, SubagentError, SubagentKind, SubagentReport, SubagentRunner,
    ToolRef, ToolUseContext,
};
use crate::transcripts::Transcript;

pub use crate::tool::EXPLORE_TOOLS;

/// The engine's sub-agent runner: the same model client, tools (without the Agent tool: children
/// do not spawn children) and hooks as the parent session.
pub struct ModelSubagentRunner {
    /// The API client.
    pub client: ModelClient,
    /// Loop settings for children.
    pub config: AgentConfig,
    /// What children's system prompts are built from (each kind gets guidance for its own tools).
    pub prompt: SubagentPrompt,
    /// Tools children may use.
    pub tools: Vec<ToolRef>,
    /// Hooks from settings.
    pub hooks: Arc<HookConfig>,
    /// The parent's prompter (children's prompts bubble up to it).
    pub prompter: Option<Arc<dyn PermissionPrompter>>,
    /// The auto-mode classifier.
    pub classifier: Option<Arc<dyn AutoClassifier>>,
    /// The parent session's events (permission requests go there directly).
    pub events: EventSink,
}

impl std::fmt::Debug for ModelSubagentRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelSubagentRunner")
            .field("tools", &self.tools.len())
            .finish()
    }
}

#[async_trait]
impl SubagentRunner for ModelSubagentRunner {
    async fn run(
        &self,
        parent: &ToolUseContext,
        kind: SubagentKind,
        description: &str,
        prompt: &str,
        progress: &ProgressSink,
    ) -> Result<SubagentReport, SubagentError> {
        let agent_id = format!("agent-{}", uuid::Uuid::new_v4().simple());
        let tools: Vec<ToolRef> = match &kind {
            SubagentKind::GeneralPurpose => self.tools.clone(),
            SubagentKind::Explore => self
                .tools
                .iter()
                .filter(|t| EXPLORE_TOOLS.contains(&t.name()))
                .cloned()
                .collect(),
            // Exactly the tools its file lists, of those a sub-agent may have: a listed tool the
            // session does not have (or the Agent tool) is simply not there.
            SubagentKind::Custom(definition) => self
                .tools
                .iter()
                .filter(|t| definition.allows_tool(t.name()))
                .cloned()
                .collect(),
        };
        let pool = ToolPool::new(tools, false)?;
        // The child's own guidance, written for exactly the tools it gets.
        let tool_names = pool.tools().iter().map(|t| t.name());
        let system = match &kind {
            SubagentKind::Custom(definition) => self.prompt.system_for_definition(definition, tool_names),
            _ => self.prompt.system_for(tool_names),
        };
        let mut loop_config = self.config.clone();
        if let SubagentKind::Custom(definition) = &kind
            && let Some(model) = &definition.model
        {
            loop_config.model = crate::agent::models::resolve_alias(model);
        }
        let project_data_dir = parent
            .config
            .transcript_path
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_else(|| parent.config.project_dir.clone());
        let session_dir = project_data_dir.join(crate::storage::safe_file_stem(&parent.config.session_id));
        let transcript_path = session_dir.join("subagents").join(format!("{agent_id}.jsonl"));

        // Permission requests reach the parent's front-end as they are; everything else the child
        // does is progress of the Agent call.
        let parent_events = self.events.clone();
        let child_progress = progress.clone();
        let child_id = agent_id.clone();
        let events = EventSink::new(move |e: Event| match e {
            Event::PermissionRequested { .. } => parent_events.emit(e),
            other => child_progress.emit(Progress::Subagent {
                agent_id: child_id.clone(),
                event: Box::new(other),
            }),
        });
        let pool = Arc::new(pool);
        let mut config = (*parent.config).clone();
        config.session_id = agent_id.clone();
        config.transcript_path = transcript_path.clone();
        config.tool_pool = Some(Arc::clone(&pool));
        // A child does not start children of its own.
        config.subagents = None;
        let store = ResultStore::new(&session_dir, &agent_id);
        config.tool_results_dir = store.results_dir().to_path_buf();

        let mut context = parent.clone();
        context.config = Arc::new(config);
        // The child's saved outputs are its own to read back, as the parent's are.
        context
            .permissions
            .own_outputs
            .push(store.results_dir().to_path_buf());
        context.exec.cancel = parent.exec.cancel.child_token();
        context.exec.read_files = parent.exec.read_files.fork();
        // The child starts from the parent's task list; its updates flow back with its report.
        let todos_at_start = Arc::clone(&parent.exec.todos);
        context.agent = AgentIdentity {
            agent_id: Some(agent_id.clone()),
            label: Some(format!("Sub-agent: {description}")),
            call_id: Some(progress.tool_use_id().to_string()),
        };

        let resolver = Resolver::new(
            self.prompter.clone(),
            self.classifier.clone(),
            Arc::clone(&self.hooks),
            Some(events.clone()),
        );
        let pipeline = Pipeline::new(pool, Arc::clone(&self.hooks), store, resolver, events);
        let runtime = SessionRuntime {
            pipeline: Arc::new(pipeline),
            context,
        };
        let transcript = Transcript::open(&transcript_path).map_err(|e| SubagentError::Start(Box::new(e)))?;
        let cancel = runtime.context.exec.cancel.clone();
        // On the board from here to its end, so the user sees it running and can stop it alone.
        let board = TaskBoard::of(parent);
        board.subagent_started(
            TaskView {
                id: agent_id.clone(),
                tool_use_id: progress.tool_use_id().to_string(),
                kind: TaskKind::Subagent {
                    description: description.to_string(),
                    subagent_type: kind.type_name().to_string(),
                },
                started_at_ms: now_ms(),
                ended_at_ms: None,
                status: TaskStatus::Running,
                exit_code: None,
                output_path: None,
            },
            cancel.clone(),
        );
        let hook_ctx = runtime.context.clone();
        let mut child = Agent::new(
            self.client.clone(),
            runtime,
            loop_config,
            system,
            Some(transcript),
        );
        let outcome = child.send(prompt, cancel).await;
        // Stopped from its card while the parent's turn goes on: the user's doing, not a failure.
        let stopped_by_user = board.subagent_stopped(&agent_id) && !parent.exec.cancel.is_cancelled();
        let status = if stopped_by_user || parent.exec.cancel.is_cancelled() {
            TaskStatus::Killed
        } else if outcome.error.is_some() || outcome.end == crate::events::TurnEnd::Error {
            TaskStatus::Failed
        } else {
            TaskStatus::Completed
        };
        board.subagent_ended(&agent_id, status);
        let child_exec = &child.runtime().context.exec;
        let read_files = child_exec.read_files.clone();
        let todos = (!Arc::ptr_eq(&todos_at_start, &child_exec.todos)
            && *todos_at_start != *child_exec.todos)
            .then(|| Arc::clone(&child_exec.todos));

        if !self.hooks.is_empty() {
            let event = HookEventInput::SubagentStop(SubagentStopInput {
                stop_hook_active: false,
                agent_id: Some(agent_id.clone()),
                agent_transcript_path: Some(transcript_path.clone()),
            });
            let _ = crate::pipeline::hook_steps::run(&self.hooks, &hook_ctx, event).await;
        }
        Ok(SubagentReport {
            agent_id,
            final_text: outcome.final_text.clone(),
            end: outcome.end.clone(),
            error: outcome.error.clone(),
            model_calls: outcome.model_calls,
            messages: serde_json::to_value(child.messages()).unwrap_or_default(),
            transcript_path,
            denials: child.denials().len(),
            read_files,
            todos,
            stopped_by_user,
        })
    }
}
