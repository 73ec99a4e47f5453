//! The Agent tool (alias Task): hands a self-contained task to a sub-agent with its own
//! conversation and context, and returns its final report.

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use std::sync::Arc;

use crate::definitions::AgentDefinition;
use crate::tool::{
    ContextModifier, NewMessage, ProgressSink, SubagentKind, Tool, ToolError, ToolOutput, ToolUseContext,
    Validation,
};

/// Input of the Agent tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct AgentInput {
    /// A short (3–5 word) description of the task, shown to the user.
    pub description: String,
    /// The task for the sub-agent: everything it needs to know, since it cannot see this
    /// conversation, and what it should report back.
    pub prompt: String,
    /// The kind of agent: "general-purpose" (the default: the same tools as you, but Agent) or
    /// "Explore" (only Read, Grep, Glob and WebFetch: it changes nothing, so several
    /// Explore agents in one response run at the same time).
    #[serde(default)]
    pub subagent_type: Option<String>,
}

impl AgentInput {
    /// The kind asked for among the built-in ones and `defined`, or `None` for an unknown name.
    fn kind(&self, defined: &[Arc<AgentDefinition>]) -> Option<SubagentKind> {
        match self.subagent_type.as_deref() {
            None | Some("general-purpose") => Some(SubagentKind::GeneralPurpose),
            Some("Explore") => Some(SubagentKind::Explore),
            Some(name) => defined
                .iter()
                .find(|d| d.name == name)
                .map(|d| SubagentKind::Custom(Arc::clone(d))),
        }
    }
}

/// Starts sub-agents. A general-purpose agent is not concurrency-safe (the default): several in
/// one response run one after another, each seeing the context the previous one left. Explore
/// agents, and defined types whose tools only read, run side by side.
#[derive(Debug, Default)]
pub struct AgentTool {
    /// The sub-agent types defined in files (`.claude/agents/*.md` and the like), offered beside
    /// the built-in ones.
    defined: Vec<Arc<AgentDefinition>>,
}

impl AgentTool {
    /// The Agent tool offering `defined` types beside the built-in ones.
    pub fn with_definitions(defined: Vec<Arc<AgentDefinition>>) -> Self {
        Self { defined }
    }
}

#[async_trait]
impl Tool for AgentTool {
    type Input = AgentInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Agent
    }

    fn name(&self) -> &str {
        "Agent"
    }

    fn aliases(&self) -> &[&str] {
        &["Task"]
    }

    fn description(&self) -> String {
        let mut text = "Launch a sub-agent to handle a complex, multi-step task on its own: broad searches across the codebase, \
         investigations that would fill this conversation with output, or independent pieces of work. The \
         sub-agent has the same tools (except Agent) and permissions, but starts with an empty conversation: \
         write `prompt` as a complete brief (goal, relevant paths, constraints, what to report back). Only its \
         final message comes back to you. Do not use it for a single file read or a simple search — use Read, \
         Glob or Grep directly."
            .to_string();
        if !self.defined.is_empty() {
            text.push_str(
                "\n\nBesides \"general-purpose\" and \"Explore\", these sub-agent types were defined for this \
                 project or by the user; name one in `subagent_type` when its description fits the task:",
            );
            for d in &self.defined {
                let tools = match &d.tools {
                    Some(list) => format!(" (tools: {})", list.join(", ")),
                    None => String::new(),
                };
                text.push_str(&format!("\n- {}: {}{tools}", d.name, one_line(&d.description)));
            }
        }
        text
    }

    fn is_concurrency_safe(&self, input: &AgentInput) -> bool {
        input.kind(&self.defined).is_some_and(|k| k.only_reads())
    }

    fn is_read_only(&self, _input: &AgentInput) -> bool {
        // The child's own calls go through the permission system one by one; starting it changes
        // nothing by itself.
        true
    }

    fn user_facing_name(&self, _input: Option<&AgentInput>) -> String {
        "Agent".into()
    }

    fn summary(&self, input: &AgentInput, _cwd: &std::path::Path) -> String {
        input.description.clone()
    }

    fn classifier_input(&self, input: &AgentInput) -> String {
        format!("start a sub-agent: {}", input.description)
    }

    async fn validate_input(&self, input: &AgentInput, ctx: &ToolUseContext) -> Validation {
        if input.prompt.trim().is_empty() {
            return Err("`prompt` is empty: give the sub-agent a complete description of its task.".into());
        }
        if input.kind(&self.defined).is_none() {
            let mut types = vec!["\"general-purpose\"".to_string(), "\"Explore\"".to_string()];
            types.extend(self.defined.iter().map(|d| format!("\"{}\"", d.name)));
            return Err(format!(
                "Unknown subagent_type `{}`; the types are {}.",
                input.subagent_type.as_deref().unwrap_or_default(),
                types.join(", ")
            ));
        }
        if ctx.config.subagents.is_none() {
            return Err(
                "Sub-agents are not available in this session (no model is configured for them).".into(),
            );
        }
        Ok(())
    }

    fn starts_subagents(&self) -> bool {
        true
    }

    async fn call(
        &self,
        input: AgentInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let runner = ctx
            .config
            .subagents
            .clone()
            .ok_or_else(|| ToolError::Failed("Sub-agents are not available in this session.".into()))?;
        let kind = input.kind(&self.defined).unwrap_or(SubagentKind::GeneralPurpose);
        let report = runner
            .run(ctx, kind, &input.description, &input.prompt, progress)
            .await
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        let mut text = if report.final_text.trim().is_empty() {
            "(The sub-agent finished without a final message.)".to_string()
        } else {
            report.final_text.clone()
        };
        if report.stopped_by_user {
            text.push_str(
                "\n\n(The user stopped this sub-agent before it finished; its work so far is above. Do not start it again unless the user asks.)",
            );
        } else if !report.finished_normally() {
            text.push_str(&format!(
                "\n\n(The sub-agent stopped early: {}{}.)",
                stopped_early_words(&report.end),
                report
                    .error
                    .as_deref()
                    .map(|e| format!(": {e}"))
                    .unwrap_or_default()
            ));
        }
        if report.denials > 0 {
            text.push_str(&format!(
                "\n\n({} of the sub-agent's tool calls were denied.)",
                report.denials
            ));
        }
        let display = json!({
            "agent_id": report.agent_id,
            "transcript_path": report.transcript_path,
            "model_calls": report.model_calls,
            "end": report.end,
        });
        let failed = !report.finished_normally() && report.error.is_some() && !report.stopped_by_user;
        let mut out = ToolOutput::text(text).with_display(display);
        // What the child changed that the parent must know, applied when the executor says (after
        // the batch, for Explore agents running side by side).
        let (child_files, child_todos) = (report.read_files.clone(), report.todos.clone());
        out.context_modifier = Some(ContextModifier::new(move |mut parent| {
            parent.exec.read_files.forget_changed_in(&child_files);
            if let Some(todos) = &child_todos {
                parent.exec.todos = Arc::clone(todos);
            }
            parent
        }));
        out.new_messages.push(NewMessage::SubagentTranscript {
            agent_id: report.agent_id,
            messages: report.messages,
        });
        if failed {
            return Err(ToolError::WithContent(out.content));
        }
        Ok(out)
    }
}

/// A description on one line, cut at 300 characters (Claude Code's descriptions carry whole
/// examples; the model needs the gist in the list).
fn one_line(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &flat[..at]),
        None => flat,
    }
}

/// Why a sub-agent's turn ended before its work was done, for the model that started it.
fn stopped_early_words(end: &nerve_protocol::TurnEnd) -> &'static str {
    use nerve_protocol::TurnEnd;
    match end {
        TurnEnd::EndTurn => "it ended its turn",
        TurnEnd::MaxTokens => "it reached its output limit",
        TurnEnd::MaxTurns => "it reached its limit of model calls",
        TurnEnd::Aborted => "it was aborted",
        TurnEnd::Interrupted => "it was interrupted by a new message",
        TurnEnd::StoppedByHook => "a hook stopped it",
        TurnEnd::Refusal => "the model refused",
        TurnEnd::Error => "an error ended it",
    }
}
