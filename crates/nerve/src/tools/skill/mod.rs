//! Skill: loads a skill's instructions when the model decides it needs them. The model is offered
//! each skill's name and description (in this tool's description); the body, read from its
//! `SKILL.md` at the moment of the call, comes back as the result, with the skill's folder so the
//! model can read the files it mentions (the session reads skill folders without asking).
//!
//! Loading a skill only reads: it is allowed in every mode, and a deny rule (`Skill`, or
//! `Skill(skill:NAME)`) keeps it out.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::definitions::Skill;
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};

/// The tool's name.
pub const NAME: &str = "Skill";

/// Input of the Skill tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SkillInput {
    /// The skill's name, exactly as listed.
    pub skill: String,
    /// What the user asked that the skill should work on, if anything.
    #[serde(default)]
    pub args: Option<String>,
}

/// The Skill tool, offering the skills found for the session.
#[derive(Debug, Default)]
pub struct SkillTool {
    skills: Vec<Arc<Skill>>,
}

impl SkillTool {
    /// A Skill tool offering `skills` (those the model may load; the others are the user's only).
    pub fn new(skills: Vec<Arc<Skill>>) -> Self {
        Self {
            skills: skills.into_iter().filter(|s| s.offered_to_model).collect(),
        }
    }

    /// Whether there is any skill to offer (with none, the tool is left out of the session).
    pub fn offers_any(&self) -> bool {
        !self.skills.is_empty()
    }

    fn find(&self, name: &str) -> Option<&Arc<Skill>> {
        self.skills.iter().find(|s| s.name == name)
    }
}

#[async_trait]
impl Tool for SkillTool {
    type Input = SkillInput;

    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Read
    }

    fn description(&self) -> String {
        let mut text = String::from(
            "Load a skill: instructions the user or the project keeps for a kind of task (how to write \
             release notes here, how to fill a form, a team's review checklist). When a task matches a \
             skill's description below, load it before starting the task and follow what it says; its \
             result names the skill's folder, whose other files (templates, scripts, references) you \
             read with Read when the instructions point to them. Load a skill once per task; do not \
             load one whose description does not fit.\n\nAvailable skills:",
        );
        for skill in &self.skills {
            text.push_str(&format!("\n- {}: {}", skill.name, flat(&skill.description)));
        }
        text
    }

    fn is_read_only(&self, _input: &SkillInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &SkillInput) -> bool {
        true
    }

    fn summary(&self, input: &SkillInput, _cwd: &std::path::Path) -> String {
        input.skill.clone()
    }

    fn classifier_input(&self, input: &SkillInput) -> String {
        format!("load the instructions of the skill {}", input.skill)
    }

    async fn validate_input(&self, input: &SkillInput, _ctx: &ToolUseContext) -> Validation {
        if self.find(input.skill.trim()).is_some() {
            return Ok(());
        }
        let names: Vec<&str> = self.skills.iter().map(|s| s.name.as_str()).collect();
        Err(format!(
            "There is no skill `{}`; the skills are: {}.",
            input.skill,
            names.join(", ")
        ))
    }

    async fn call(
        &self,
        input: SkillInput,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let skill = self
            .find(input.skill.trim())
            .ok_or_else(|| ToolError::Failed(format!("There is no skill `{}`.", input.skill)))?;
        let body = skill.load_body().map_err(|e| {
            ToolError::Failed(format!(
                "The skill `{}` could not be loaded from {}: {e}",
                skill.name,
                skill.path.display()
            ))
        })?;
        let mut text = format!(
            "Skill `{}` loaded. Its folder is {}: paths in these instructions are relative to it.\n\n{body}",
            skill.name,
            skill.dir.display()
        );
        if let Some(args) = input.args.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            text.push_str(&format!("\n\nApply it to: {args}"));
        }
        Ok(ToolOutput::text(text).with_display(json!({
            "skill": skill.name,
            "path": skill.path,
        })))
    }
}

fn flat(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests;
