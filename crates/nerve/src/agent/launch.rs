//! Assembling an interactive agent from an opened project: the tool pool, the model client, the
//! fast model and the auto-mode classifier over it, sub-agents, the transcript. Every front-end (the
//! `nerve -p` CLI, the desktop shell) starts its sessions here, so they behave the same.

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::system_prompt::{
    AgentRole, FrontEnd, PromptContext, SubagentPrompt, SystemPromptInputs, build_system_prompt,
    instructions_block,
};
use crate::agent::{Agent, AgentConfig, ModelSubagentRunner};
use crate::events::EventSink;
use crate::input::SchemaError;
use crate::model::client::{ModelAuth, ModelClient, ModelConfig};
use crate::model::error::ModelError;
use crate::model::small::{ClientSmallModel, SmallModel};
use crate::permissions::classifier::{ModelClassifier, RecentIntent};
use crate::permissions::{AutoClassifier, PermissionPrompter};
use crate::project::{Project, SessionSetup};
use crate::registry::{PoolOptions, assemble_tool_pool};
use crate::tool::ToolRef;
use crate::transcripts::{Transcript, TranscriptError};

/// Output limit of the fast model's side jobs (page summaries, classifier verdicts).
const SMALL_MODEL_MAX_TOKENS: u32 = 1_024;

/// What a front-end decides about a session.
pub struct LaunchOptions {
    /// The session's id (new or to resume).
    pub session_id: String,
    /// Continue the session's transcript instead of starting a new one.
    pub resume: bool,
    /// The main model.
    pub model: String,
    /// The fast model for side jobs.
    pub fast_model: String,
    /// The credentials (an API key, a bearer token, or none for a local server).
    pub auth: ModelAuth,
    /// Extra request headers (`ANTHROPIC_CUSTOM_HEADERS`).
    pub extra_headers: Vec<(String, String)>,
    /// A base URL replacing the default (a proxy, a test server).
    pub base_url: Option<String>,
    /// The API the server speaks.
    pub provider: crate::model::client::ModelProvider,
    /// Most model calls per turn (`None`: the default).
    pub max_turns: Option<u32>,
    /// How hard the model thinks (a resumed session goes on with the effort last chosen in it).
    pub effort: nerve_protocol::prompt::Effort,
    /// Most tool calls running at once (`None`: `NERVE_MAX_TOOL_USE_CONCURRENCY` or the default).
    pub max_concurrency: Option<usize>,
    /// Who answers permission requests; `None` means nobody can be asked (headless).
    pub prompter: Option<Arc<dyn PermissionPrompter>>,
    /// Where the session's events go.
    pub events: EventSink,
    /// Tools from outside the engine (MCP servers).
    pub external_tools: Vec<ToolRef>,
    /// The date the system prompt gives the model (`YYYY-MM-DD`).
    pub date: String,
    /// Where the session's text is shown (the system prompt says how to write for it).
    pub front_end: FrontEnd,
    /// The editor the session runs inside, if any (see [`crate::tool::editor`]).
    pub editor: Option<Arc<dyn crate::tool::Editor>>,
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    /// A tool's schema is invalid.
    #[error(transparent)]
    Schema(#[from] SchemaError),
    /// The model client could not be built.
    #[error(transparent)]
    Model(#[from] ModelError),
    /// The transcript could not be opened or read.
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    /// The session to resume does not exist.
    #[error("no session {session_id} in this project: nothing was saved under that id")]
    NoSuchSession {
        /// The id asked for.
        session_id: String,
        /// Where its transcript would be.
        path: PathBuf,
    },
}

/// A started agent and what the front-end may want to show about it.
pub struct Launched {
    /// The agent, ready for [`Agent::send`].
    pub agent: Agent,
    /// The names of the tools the model gets.
    pub tool_names: Vec<String>,
    /// Problems met while reading a resumed transcript (damaged lines skipped).
    pub warnings: Vec<String>,
}

impl std::fmt::Debug for Launched {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launched")
            .field("tool_names", &self.tool_names)
            .finish_non_exhaustive()
    }
}

/// Starts (or resumes) a session of `project`.
pub fn launch(project: &Project, options: LaunchOptions) -> Result<Launched, LaunchError> {
    let LaunchOptions {
        session_id,
        resume,
        model,
        fast_model,
        auth,
        extra_headers,
        base_url,
        provider,
        max_turns,
        effort,
        max_concurrency,
        prompter,
        events,
        external_tools,
        date,
        front_end,
        editor,
    } = options;
    let transcript_path = Transcript::path_for(&project.data_dir(), &session_id);
    if resume && !(transcript_path.exists() && crate::transcripts::is_transcript(&transcript_path)) {
        return Err(LaunchError::NoSuchSession {
            session_id,
            path: transcript_path,
        });
    }
    // Without anyone to ask, what would ask is denied.
    let headless = prompter.is_none();
    let permissions = project.permission_context(headless);
    // The project's memory, read and written through the Memory tool (see its module for why
    // a tool of its own rather than Write on the folder).
    let memory_dir = crate::tools::memory::memory_dir(&project.data_dir());
    let user_instructions =
        crate::agent::system_prompt::user_instructions_path(&project.locations().config_dir);
    // Sub-agent types and skills from files: the Agent tool offers the types, the Skill tool
    // (only when there is a skill to offer) the skills. A file that cannot be used is a warning.
    let definitions = project.definitions();
    let mut builtins: Vec<ToolRef> = crate::registry::builtin_tools(project.env())
        .into_iter()
        .map(|tool| -> ToolRef {
            if tool.starts_subagents() {
                Arc::new(crate::tools::agent::AgentTool::with_definitions(
                    definitions.agents(),
                ))
            } else {
                tool
            }
        })
        .collect();
    let skill_tool = crate::tools::skill::SkillTool::new(definitions.skills());
    if skill_tool.offers_any() {
        builtins.push(Arc::new(skill_tool));
    }
    builtins.push(Arc::new(crate::tools::memory::MemoryTool::new(
        memory_dir.clone(),
    )));
    let mut model_config = ModelConfig::with_auth(auth);
    if let Some(url) = base_url.map(|u| u.trim().to_owned()).filter(|u| !u.is_empty()) {
        model_config.base_url = url;
    }
    model_config.extra_headers = extra_headers;
    model_config.provider = provider;
    // Web search is the model server's own tool: not offered where the server has none.
    if !crate::tools::web_search::offered(project.env(), &model_config.base_url) {
        builtins.retain(|t| t.name() != crate::tools::web_search::NAME);
    }
    let builtin_names = builtins.iter().map(|t| t.name().to_string()).collect();
    let pool = assemble_tool_pool(builtins, external_tools, &permissions, &PoolOptions::default())?;
    let tool_names: Vec<String> = pool.tools().iter().map(|t| t.name().to_string()).collect();
    let client = ModelClient::new(model_config.clone())?;
    let small_model: Arc<dyn SmallModel> = Arc::new(ClientSmallModel::new(
        client.clone(),
        &fast_model,
        SMALL_MODEL_MAX_TOKENS,
    ));
    // Attached in every mode: the resolver consults it only in auto mode, which a session can
    // also enter later (leaving plan mode restores the mode it was entered from).
    let intent = RecentIntent::new();
    let classifier: Arc<dyn AutoClassifier> = Arc::new(ModelClassifier::over_config(
        model_config,
        &fast_model,
        intent.clone(),
    )?);
    let mut config = AgentConfig::new(&model);
    config.effort = effort;
    if let Some(n) = max_turns {
        config.max_turns = n;
    }
    config.builtin_names = builtin_names;
    if let Some(n) = max_concurrency
        .filter(|n| *n > 0)
        .or(project.env().max_tool_concurrency)
    {
        config.executor.max_concurrency = n;
    }
    let sandbox = project.sandbox_config().enabled;
    let system = build_system_prompt(
        &SystemPromptInputs {
            project_dir: project.dir(),
            cwd: project.dir(),
            date,
            model: &model,
            memory_dir: Some(&memory_dir),
            user_instructions: Some(&user_instructions),
        },
        &PromptContext::new(&tool_names, front_end, AgentRole::Main, sandbox),
    );
    // Sub-agents use the same client and tools, minus the Agent tool itself (children do not
    // start children) and Memory (the user talks to the main agent); their prompt shares the
    // project's instructions and the environment, with guidance written for their own tools.
    let subagents = ModelSubagentRunner {
        client: client.clone(),
        config: config.clone(),
        prompt: SubagentPrompt {
            instructions: instructions_block(project.dir()),
            environment: system.last().cloned().unwrap_or_default(),
            front_end,
            sandbox,
        },
        tools: pool
            .tools()
            .iter()
            .filter(|t| !t.starts_subagents() && t.name() != crate::tools::memory::NAME)
            .cloned()
            .collect(),
        hooks: project.hooks(),
        prompter: prompter.clone(),
        classifier: Some(Arc::clone(&classifier)),
        events: events.clone(),
    };
    let mut runtime = project.session(
        pool,
        SessionSetup {
            session_id: Some(session_id),
            model,
            events,
            headless,
            prompter,
            small_model: Some(small_model),
            classifier: Some(classifier),
            subagents: Some(Arc::new(subagents)),
            speculative_classifier: true,
            skill_dirs: definitions.skill_dirs(),
        },
    );
    if editor.is_some() {
        Arc::make_mut(&mut runtime.context.config).editor = editor;
    }
    let (agent, mut warnings) = if resume {
        Agent::resume(client, runtime, config, system, &transcript_path)?
    } else {
        let transcript = Transcript::open(&transcript_path)?;
        let agent = Agent::new(client, runtime, config, system, Some(transcript));
        (agent, Vec::new())
    };
    // Deny and ask rules that are easy to dodge are reported where the rules are loaded.
    let rules = agent.runtime().context.permissions.rules.snapshot();
    warnings.extend(
        crate::permissions::lint::rule_warnings(&rules)
            .into_iter()
            .map(|w| {
                format!(
                    "{} ({}): {}; consider {}",
                    w.rule, w.source, w.warning, w.suggestion
                )
            }),
    );
    // Definition files that could not be used: named with their line, the session goes on.
    warnings.extend(definitions.problem_lines());
    Ok(Launched {
        agent: agent.with_intent(intent),
        tool_names,
        warnings,
    })
}

/// Today's date as `YYYY-MM-DD` where the user is (the machine's local time zone), for the system
/// prompt: the user's "today" and "yesterday" are local.
pub fn today() -> String {
    let now = chrono::Local::now();
    local_date(now.to_utc(), *now.offset())
}

/// The date at `now` in the zone `offset` from UTC.
fn local_date(now: chrono::DateTime<chrono::Utc>, offset: chrono::FixedOffset) -> String {
    now.with_timezone(&offset).format("%Y-%m-%d").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{FixedOffset, TimeZone, Utc};

    #[test]
    fn the_date_is_the_users_not_utcs() {
        let late_evening_utc = Utc.with_ymd_and_hms(2026, 12, 6, 23, 30, 0).unwrap();
        let tokyo = FixedOffset::east_opt(9 * 3600).unwrap();
        assert_eq!(local_date(late_evening_utc, tokyo), "2026-12-07");
        let early_morning_utc = Utc.with_ymd_and_hms(2026, 12, 7, 2, 0, 0).unwrap();
        let new_york = FixedOffset::west_opt(5 * 3600).unwrap();
        assert_eq!(local_date(early_morning_utc, new_york), "2026-12-06");
        assert_eq!(
            local_date(early_morning_utc, FixedOffset::east_opt(0).unwrap()),
            "2026-12-07"
        );
    }
}
