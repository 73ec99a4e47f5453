//! The Agent tool's view of sub-agents: what it asks a runner for and what it gets back. The agent
//! loop implements the runner; the contract only names it, so tools never depend on the loop.

use std::sync::Arc;

use async_trait::async_trait;
use nerve_protocol::TurnEnd;

use crate::definitions::AgentDefinition;
use crate::tool::{ProgressSink, ReadFileState, TodoItem, ToolUseContext};

/// What a finished sub-agent reports.
#[derive(Debug, Clone)]
pub struct SubagentReport {
    /// The child's id.
    pub agent_id: String,
    /// Its final answer.
    pub final_text: String,
    /// How its turn ended.
    pub end: TurnEnd,
    /// The error that ended it, if one did.
    pub error: Option<String>,
    /// How many model calls it made.
    pub model_calls: u32,
    /// Its whole conversation, as sent to the API.
    pub messages: serde_json::Value,
    /// Where its transcript is.
    pub transcript_path: std::path::PathBuf,
    /// How many of its calls were denied.
    pub denials: usize,
    /// What the child saw of the files it read or wrote (for the parent's staleness check).
    pub read_files: ReadFileState,
    /// The task list, when the child changed it.
    pub todos: Option<Arc<Vec<TodoItem>>>,
    /// Whether the user stopped it (from its card or the tasks panel) while the turn went on.
    pub stopped_by_user: bool,
}

/// Tools an Explore agent gets: none of them changes anything.
pub const EXPLORE_TOOLS: &[&str] = &["Read", "Grep", "Glob", "WebFetch"];

/// The kinds of sub-agent the Agent tool starts.
#[derive(Debug, Clone)]
pub enum SubagentKind {
    /// The parent's tools (but Agent).
    GeneralPurpose,
    /// Only tools that read and search (Read, Grep, Glob, WebFetch): it changes
    /// nothing, so several can run at once.
    Explore,
    /// A type defined in a file (`.claude/agents/*.md`): its own system prompt, model and tools.
    Custom(Arc<AgentDefinition>),
}

impl PartialEq for SubagentKind {
    fn eq(&self, other: &Self) -> bool {
        self.type_name() == other.type_name()
    }
}

impl SubagentKind {
    /// The `subagent_type` the model names it by.
    pub fn type_name(&self) -> &str {
        match self {
            SubagentKind::GeneralPurpose => "general-purpose",
            SubagentKind::Explore => "Explore",
            SubagentKind::Custom(definition) => &definition.name,
        }
    }

    /// Whether the child can only read: Explore, or a defined type whose tool list names only
    /// Explore's tools. Such children run side by side; anything else (a list that names a tool
    /// that writes, or no list at all) runs one at a time.
    pub fn only_reads(&self) -> bool {
        match self {
            SubagentKind::GeneralPurpose => false,
            SubagentKind::Explore => true,
            SubagentKind::Custom(definition) => definition
                .tools
                .as_ref()
                .is_some_and(|tools| tools.iter().all(|t| EXPLORE_TOOLS.contains(&t.as_str()))),
        }
    }
}

/// Runs sub-agents on behalf of the Agent tool.
#[async_trait]
pub trait SubagentRunner: Send + Sync + std::fmt::Debug {
    /// Runs a child with `prompt` until it is done, reporting its steps through `progress`.
    async fn run(
        &self,
        parent: &ToolUseContext,
        kind: SubagentKind,
        description: &str,
        prompt: &str,
        progress: &ProgressSink,
    ) -> Result<SubagentReport, SubagentError>;
}

/// Why a sub-agent could not start. (A child that starts and then fails reports that in its
/// [`SubagentReport`].)
#[derive(Debug, thiserror::Error)]
pub enum SubagentError {
    /// The child's tool list did not compile.
    #[error("the sub-agent's tools could not be assembled: {0}")]
    Tools(#[from] crate::input::SchemaError),
    /// The child's transcript could not be created.
    #[error("the sub-agent could not start: {0}")]
    Start(#[source] Box<dyn std::error::Error + Send + Sync>),
}

impl SubagentReport {
    /// Whether the child's turn ended normally.
    pub fn finished_normally(&self) -> bool {
        self.end == TurnEnd::EndTurn
    }
}
