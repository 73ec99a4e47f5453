//! What a project offers beyond the built-in tools, written as files in Claude Code's format:
//! sub-agent definitions (`agents/*.md`) and skills (`skills/<name>/SKILL.md`), as front-ends list
//! them, with the files that could not be used.

use serde::{Deserialize, Serialize};

/// Which folder a definition was read from. Later sources win on a name clash, in this order:
/// the user's Claude Code folder, the user's Nerve folder, the project's `.claude/`, the
/// project's `.nerve/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DefinitionSource {
    /// `~/.claude/agents/` or `~/.claude/skills/`.
    UserClaude,
    /// `<config dir>/nerve/agents/` or `…/skills/`.
    UserNerve,
    /// The project's `.claude/agents/` or `.claude/skills/`.
    ProjectClaude,
    /// The project's `.nerve/agents/` or `.nerve/skills/`.
    ProjectNerve,
}

/// A sub-agent type the model can start with the Agent tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AgentDefinitionView {
    /// The `subagent_type` the model names it by.
    pub name: String,
    /// When to use it (what the model reads to choose it).
    pub description: String,
    /// The only tools it gets, as written; `None`: every tool the parent's sub-agents get.
    pub tools: Option<Vec<String>>,
    /// The model it runs on as written (`sonnet`, `opus`, `haiku`, a model id); `None` or
    /// `inherit`: the session's.
    pub model: Option<String>,
    /// Where it was read from.
    pub source: DefinitionSource,
    /// Its file.
    pub path: String,
    /// Files of the same name it replaces (from sources that lose to this one).
    pub overrides: Vec<String>,
}

/// A skill the model can load with the Skill tool.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SkillView {
    /// Its name.
    pub name: String,
    /// What it is for and when to use it.
    pub description: String,
    /// Whether the model is offered it (`disable-model-invocation: true` keeps it to the user).
    pub offered_to_model: bool,
    /// Where it was read from.
    pub source: DefinitionSource,
    /// Its `SKILL.md`.
    pub path: String,
    /// Files of the same name it replaces.
    pub overrides: Vec<String>,
}

/// A definition file that could not be used, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DefinitionProblem {
    /// The file.
    pub path: String,
    /// The line (1-based) the problem is on, when it is on one.
    pub line: Option<u32>,
    /// What is wrong, in words.
    pub message: String,
}

impl DefinitionProblem {
    /// `path:line: message`, as compilers say it (`path: message` without a line).
    pub fn located_text(&self) -> String {
        match self.line {
            Some(line) => format!("{}:{line}: {}", self.path, self.message),
            None => format!("{}: {}", self.path, self.message),
        }
    }
}

/// Everything found: what a Settings screen or `nerve agents` / `nerve skills` lists.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DefinitionsView {
    /// Sub-agent types, by name.
    pub agents: Vec<AgentDefinitionView>,
    /// Skills, by name.
    pub skills: Vec<SkillView>,
    /// Files that could not be used.
    pub problems: Vec<DefinitionProblem>,
}
