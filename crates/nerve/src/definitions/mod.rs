//! Definitions users keep as files, in Claude Code's format: sub-agent types (`agents/*.md`: front
//! matter `name`, `description`, `tools`, `model`; the body is the agent's system prompt) and
//! skills (`skills/<name>/SKILL.md`: front matter `name`, `description`; the body is loaded when
//! the model asks for the skill, and the folder's other files are read as it says).
//!
//! Four folders each, read in this order, a later one replacing an earlier definition of the same
//! name: `~/.claude/`, `<config dir>/nerve/`, the project's `.claude/`, the project's `.nerve/`.
//! A file that cannot be used is a [`DefinitionProblem`] naming the file and line; it never stops
//! the others from loading, nor a session from starting.
//!
//! Everything here comes from files the user (or a cloned repository) wrote: untrusted. A
//! definition only narrows what a sub-agent may do (its tool list), and a skill is text the model
//! reads; neither widens permissions (Claude Code's `allowed-tools` is not honoured).

mod agents;
pub mod front_matter;
mod skills;

pub use agents::{AgentDefinition, BUILT_IN_AGENT_TYPES};
pub use nerve_protocol::definitions::{
    AgentDefinitionView, DefinitionProblem, DefinitionSource, DefinitionsView, SkillView,
};
pub use skills::{Skill, SkillLoadError};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Largest definition file read: a prompt, not a document.
pub const MAX_DEFINITION_BYTES: u64 = 256 * 1024;

/// The definitions found for a project.
#[derive(Debug, Clone, Default)]
pub struct Definitions {
    agents: BTreeMap<String, Found<AgentDefinition>>,
    skills: BTreeMap<String, Found<Skill>>,
    /// Files that could not be used.
    pub problems: Vec<DefinitionProblem>,
}

/// A definition with the files of the same name it replaced.
#[derive(Debug, Clone)]
struct Found<T> {
    item: Arc<T>,
    overrides: Vec<PathBuf>,
}

/// The four folders of one kind (`agents` or `skills`), in the order they are read.
fn folders(
    project_dir: &Path,
    home: &Path,
    config_dir: &Path,
    kind: &str,
) -> [(PathBuf, DefinitionSource); 4] {
    [
        (home.join(".claude").join(kind), DefinitionSource::UserClaude),
        (config_dir.join("nerve").join(kind), DefinitionSource::UserNerve),
        (
            project_dir.join(".claude").join(kind),
            DefinitionSource::ProjectClaude,
        ),
        (
            project_dir.join(".nerve").join(kind),
            DefinitionSource::ProjectNerve,
        ),
    ]
}

impl Definitions {
    /// Reads the agent and skill folders of the user (`home`, `config_dir`) and of the project.
    pub fn load(project_dir: &Path, home: &Path, config_dir: &Path) -> Self {
        let mut found = Definitions::default();
        for (dir, source) in folders(project_dir, home, config_dir, "agents") {
            for result in agents::read_folder(&dir, source) {
                match result {
                    Ok(agent) => found.add_agent(agent),
                    Err(problem) => found.problems.push(problem),
                }
            }
        }
        for (dir, source) in folders(project_dir, home, config_dir, "skills") {
            for result in skills::read_folder(&dir, source) {
                match result {
                    Ok(skill) => found.add_skill(skill),
                    Err(problem) => found.problems.push(problem),
                }
            }
        }
        found
    }

    fn add_agent(&mut self, agent: AgentDefinition) {
        if let Some(problem) = same_source_clash(
            self.agents.get(&agent.name),
            &agent.name,
            agent.source,
            &agent.path,
            |a| (a.source, &a.path),
        ) {
            self.problems.push(problem);
            return;
        }
        let overrides = replaced(self.agents.remove(&agent.name), |a| a.path.clone());
        self.agents.insert(
            agent.name.clone(),
            Found {
                item: Arc::new(agent),
                overrides,
            },
        );
    }

    fn add_skill(&mut self, skill: Skill) {
        if let Some(problem) = same_source_clash(
            self.skills.get(&skill.name),
            &skill.name,
            skill.source,
            &skill.path,
            |s| (s.source, &s.path),
        ) {
            self.problems.push(problem);
            return;
        }
        let overrides = replaced(self.skills.remove(&skill.name), |s| s.path.clone());
        self.skills.insert(
            skill.name.clone(),
            Found {
                item: Arc::new(skill),
                overrides,
            },
        );
    }

    /// The sub-agent types, by name.
    pub fn agents(&self) -> Vec<Arc<AgentDefinition>> {
        self.agents.values().map(|f| Arc::clone(&f.item)).collect()
    }

    /// The skills, by name.
    pub fn skills(&self) -> Vec<Arc<Skill>> {
        self.skills.values().map(|f| Arc::clone(&f.item)).collect()
    }

    /// The folders of every skill found: their files are the skills' own, read freely.
    pub fn skill_dirs(&self) -> Vec<PathBuf> {
        self.skills.values().map(|f| f.item.dir.clone()).collect()
    }

    /// What front-ends list.
    pub fn view(&self) -> DefinitionsView {
        let paths = |list: &[PathBuf]| list.iter().map(|p| p.display().to_string()).collect();
        DefinitionsView {
            agents: self
                .agents
                .values()
                .map(|f| f.item.view(paths(&f.overrides)))
                .collect(),
            skills: self
                .skills
                .values()
                .map(|f| f.item.view(paths(&f.overrides)))
                .collect(),
            problems: self.problems.clone(),
        }
    }

    /// The problems as one line each (`path:line: message`), for warnings at the start of a session.
    pub fn problem_lines(&self) -> Vec<String> {
        self.problems.iter().map(problem_line).collect()
    }
}

/// `path:line: message`, as compilers say it.
pub fn problem_line(problem: &DefinitionProblem) -> String {
    problem.located_text()
}

/// Two files of one folder giving the same name: the second is the problem (the first, in path
/// order, is kept), since neither can be said to replace the other.
fn same_source_clash<T>(
    existing: Option<&Found<T>>,
    name: &str,
    source: DefinitionSource,
    path: &Path,
    key: impl Fn(&T) -> (DefinitionSource, &PathBuf),
) -> Option<DefinitionProblem> {
    let existing = existing?;
    let (existing_source, existing_path) = key(&existing.item);
    (existing_source == source).then(|| DefinitionProblem {
        path: path.display().to_string(),
        line: None,
        message: format!(
            "`{name}` is already defined by {} in the same folder",
            existing_path.display()
        ),
    })
}

/// The replaced definition's own overrides and its path.
fn replaced<T>(previous: Option<Found<T>>, path: impl Fn(&T) -> PathBuf) -> Vec<PathBuf> {
    match previous {
        Some(found) => {
            let mut list = found.overrides;
            list.push(path(&found.item));
            list
        }
        None => Vec::new(),
    }
}

/// A name the model can type and a listing can show: letters, digits, `-`, `_`, `.`, `:`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
}

/// Reads a definition file with the size limit, or the problem.
fn read_limited(path: &Path) -> Result<String, nerve_protocol::definitions::DefinitionProblem> {
    let problem = |message: String| DefinitionProblem {
        path: path.display().to_string(),
        line: None,
        message,
    };
    let meta = std::fs::metadata(path).map_err(|e| problem(format!("cannot be read: {e}")))?;
    if meta.len() > MAX_DEFINITION_BYTES {
        return Err(problem(format!(
            "larger than {} KB: a definition is a prompt, not a document",
            MAX_DEFINITION_BYTES / 1024
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| problem(format!("cannot be read: {e}")))?;
    String::from_utf8(bytes).map_err(|_| problem("is not UTF-8 text".to_string()))
}

/// A [`front_matter::Problem`] of `path` as the listing shows it.
fn located(path: &Path, problem: front_matter::Problem) -> DefinitionProblem {
    DefinitionProblem {
        path: path.display().to_string(),
        line: problem.line,
        message: problem.message,
    }
}

#[cfg(test)]
mod tests;
