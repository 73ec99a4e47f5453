//! The system prompt, assembled from sections that each have one job (see `docs/system-prompt.md`
//! for what each covers and why).
//!
//! The prompt is three blocks, ordered from the most to the least stable, because the API caches
//! a request's prefix (tools, then system, then messages) and a byte changed early invalidates
//! everything after it:
//! 1. **Guidance**: who the agent is and how to work. It depends only on the offered tools, the
//!    front-end, the role (main agent or sub-agent) and whether the sandbox is on, so it is the
//!    same for every session with that setup, in any project. A cache breakpoint follows it.
//! 2. **Project**: the project's instruction files (`NERVE.md`, `CLAUDE.md`, `AGENTS.md` and their
//!    `@` imports) and the memory index. Read once when the session starts.
//! 3. **Environment**: working directory, platform, date, model, git status at session start.
//!
//! The permission mode is not in the prompt: it is told in a `<system-reminder>` of the next user
//! message when it changes (see [`mode`]), so a mode switch leaves the cached prefix untouched.

mod environment;
mod guidance;
pub mod mode;
mod nested;
mod project;

use std::collections::BTreeSet;
use std::path::Path;

pub use environment::environment_block;
pub use guidance::{Section, guidance_sections};
pub use nested::{NestedInstructions, nested_note};
pub use project::{
    INSTRUCTION_FILES, imports_of, instructions_block, memory_block, user_instructions_block,
    user_instructions_path,
};

/// Where the agent's words are shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FrontEnd {
    /// Nerve's desktop app: rendered Markdown, a person who can answer.
    Desktop,
    /// `nerve -p`: a terminal or a pipe, nobody to answer.
    Print,
}

/// Whose prompt it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AgentRole {
    /// The agent the user talks to.
    Main,
    /// A sub-agent started by the Agent tool, reporting to the main agent.
    SubAgent,
}

/// What the guidance depends on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptContext {
    /// The names of the tools offered with the request.
    pub tools: BTreeSet<String>,
    /// Where the text is shown.
    pub front_end: FrontEnd,
    /// Main agent or sub-agent.
    pub role: AgentRole,
    /// Whether shell commands run in the sandbox.
    pub sandbox: bool,
}

impl PromptContext {
    /// A context offering `tools`.
    pub fn new<S: AsRef<str>>(
        tools: impl IntoIterator<Item = S>,
        front_end: FrontEnd,
        role: AgentRole,
        sandbox: bool,
    ) -> Self {
        Self {
            tools: tools.into_iter().map(|t| t.as_ref().to_string()).collect(),
            front_end,
            role,
            sandbox,
        }
    }

    /// Whether the tool named `name` is offered.
    pub fn has(&self, name: &str) -> bool {
        self.tools.contains(name)
    }

    /// Whether every tool named is offered.
    pub fn has_all(&self, names: &[&str]) -> bool {
        names.iter().all(|n| self.has(n))
    }

    fn is_main(&self) -> bool {
        self.role == AgentRole::Main
    }
}

/// What the project and environment blocks are built from.
#[derive(Debug, Clone)]
pub struct SystemPromptInputs<'a> {
    /// The project folder.
    pub project_dir: &'a Path,
    /// The working directory.
    pub cwd: &'a Path,
    /// Today's date (`YYYY-MM-DD`).
    pub date: String,
    /// The model id, for the model's own reference.
    pub model: &'a str,
    /// The project's memory folder (listed when the Memory tool is offered).
    pub memory_dir: Option<&'a Path>,
    /// The user's own instruction file for every project (`~/.config/nerve/NERVE.md`), read when
    /// it exists.
    pub user_instructions: Option<&'a Path>,
}

/// The guidance sections joined: the first, stable block.
pub fn guidance_text(ctx: &PromptContext) -> String {
    guidance_sections(ctx)
        .into_iter()
        .map(|s| s.text)
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Builds the system prompt blocks: guidance, project, environment (empty blocks left out).
pub fn build_system_prompt(inputs: &SystemPromptInputs<'_>, ctx: &PromptContext) -> Vec<String> {
    let mut project = inputs
        .user_instructions
        .map(project::user_instructions_block)
        .unwrap_or_default();
    let own = instructions_block(inputs.project_dir);
    if !project.is_empty() && !own.is_empty() {
        project.push_str("\n\n");
    }
    project.push_str(&own);
    if ctx.has(crate::tools::memory::NAME)
        && let Some(dir) = inputs.memory_dir
    {
        if !project.is_empty() {
            project.push_str("\n\n");
        }
        project.push_str(&memory_block(dir));
    }
    [guidance_text(ctx), project, environment_block(inputs)]
        .into_iter()
        .filter(|b| !b.trim().is_empty())
        .collect()
}

/// What a sub-agent's prompt is built from: the parent's project instructions and environment
/// (shared), and the setting its guidance depends on; the guidance itself is written for the
/// tools each kind of sub-agent gets.
#[derive(Debug, Clone)]
pub struct SubagentPrompt {
    /// The project's instruction files, as the parent has them (may be empty).
    pub instructions: String,
    /// The parent's environment block.
    pub environment: String,
    /// Where the parent's text is shown (a sub-agent's words go to the parent, but what it may
    /// assume about approvals follows the front-end).
    pub front_end: FrontEnd,
    /// Whether shell commands run in the sandbox.
    pub sandbox: bool,
}

impl SubagentPrompt {
    /// The system prompt of a sub-agent offered `tools`.
    pub fn system_for<S: AsRef<str>>(&self, tools: impl IntoIterator<Item = S>) -> Vec<String> {
        let ctx = PromptContext::new(tools, self.front_end, AgentRole::SubAgent, self.sandbox);
        [
            guidance_text(&ctx),
            self.instructions.clone(),
            self.environment.clone(),
        ]
        .into_iter()
        .filter(|b| !b.trim().is_empty())
        .collect()
    }

    /// The system prompt of a sub-agent of a type defined in a file: the general guidance for its
    /// tools, then its file's instructions, the project's and the environment.
    pub fn system_for_definition<S: AsRef<str>>(
        &self,
        definition: &crate::definitions::AgentDefinition,
        tools: impl IntoIterator<Item = S>,
    ) -> Vec<String> {
        let mut blocks = self.system_for(tools);
        let role = format!(
            "# Your role: {}\n\nYou were started as the `{}` sub-agent type, which the user defined in {}. Its instructions:\n\n{}",
            definition.name,
            definition.name,
            definition.path.display(),
            definition.system_prompt
        );
        blocks.insert(1.min(blocks.len()), role);
        blocks
    }
}

#[cfg(test)]
mod tests;
