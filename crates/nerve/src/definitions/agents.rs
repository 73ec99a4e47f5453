//! Sub-agent definitions: `agents/*.md` (and one level of sub-folders, as teams group them).

use std::path::{Path, PathBuf};

use super::front_matter::{self, Problem};
use super::{AgentDefinitionView, DefinitionProblem, DefinitionSource, located, read_limited, valid_name};

/// The sub-agent types built into the Agent tool; a definition cannot take their names.
pub const BUILT_IN_AGENT_TYPES: &[&str] = &["general-purpose", "Explore"];

/// A sub-agent type defined in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// The `subagent_type` the model names it by.
    pub name: String,
    /// When to use it.
    pub description: String,
    /// The only tools it gets (names as written); `None`: all a sub-agent may have.
    pub tools: Option<Vec<String>>,
    /// The model as written; `None` for the session's (`inherit` is read as `None`).
    pub model: Option<String>,
    /// Its system prompt (the file's body).
    pub system_prompt: String,
    /// Where it was read from.
    pub source: DefinitionSource,
    /// Its file.
    pub path: PathBuf,
}

impl AgentDefinition {
    /// Parses `text`, the file at `path`.
    pub fn parse(text: &str, path: &Path, source: DefinitionSource) -> Result<Self, Problem> {
        let doc = front_matter::parse(text)?;
        let name = doc.required_string("name")?;
        if !valid_name(&name) {
            return Err(Problem::at(
                doc.line_of("name"),
                format!(
                    "`{name}` is not a usable name: use letters, digits, `-`, `_`, `.` or `:` (64 at most)"
                ),
            ));
        }
        if BUILT_IN_AGENT_TYPES.contains(&name.as_str()) {
            return Err(Problem::at(
                doc.line_of("name"),
                format!("`{name}` is a built-in sub-agent type; give this one another name"),
            ));
        }
        let description = doc.required_string("description")?;
        let tools = match doc.list("tools")? {
            // `*` is Claude Code's "every tool", the same as leaving the key out.
            Some(list) if list.iter().any(|t| t == "*") => None,
            other => other,
        };
        let model = doc.string("model")?.filter(|m| !m.is_empty() && m != "inherit");
        if doc.body.is_empty() {
            return Err(Problem::at(
                1,
                "the body is empty: it is the sub-agent's system prompt, write its instructions after the front matter",
            ));
        }
        Ok(Self {
            name,
            description,
            tools,
            model,
            system_prompt: doc.body,
            source,
            path: path.to_path_buf(),
        })
    }

    /// How front-ends list it.
    pub fn view(&self, overrides: Vec<String>) -> AgentDefinitionView {
        AgentDefinitionView {
            name: self.name.clone(),
            description: self.description.clone(),
            tools: self.tools.clone(),
            model: self.model.clone(),
            source: self.source,
            path: self.path.display().to_string(),
            overrides,
        }
    }

    /// Whether the agent may use the tool `name`: listed, or no list at all. A listed MCP server
    /// (`mcp__server`) admits all of its tools, as in Claude Code.
    pub fn allows_tool(&self, name: &str) -> bool {
        match &self.tools {
            None => true,
            Some(list) => list.iter().any(|t| {
                t == name
                    || name
                        .strip_prefix(t.as_str())
                        .is_some_and(|rest| t.starts_with("mcp__") && rest.starts_with("__"))
            }),
        }
    }
}

/// The `.md` files of `dir` and of its sub-folders (one level), each parsed.
pub(super) fn read_folder(
    dir: &Path,
    source: DefinitionSource,
) -> Vec<Result<AgentDefinition, DefinitionProblem>> {
    let mut files = markdown_files(dir);
    if let Ok(entries) = std::fs::read_dir(dir) {
        let mut subdirs: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| e.path())
            .collect();
        subdirs.sort();
        for sub in subdirs {
            files.extend(markdown_files(&sub));
        }
    }
    files
        .into_iter()
        .map(|path| {
            let text = read_limited(&path)?;
            AgentDefinition::parse(&text, &path, source).map_err(|p| located(&path, p))
        })
        .collect()
}

/// The regular `.md` files directly in `dir`, sorted (a symlink to a file counts; to a folder not).
fn markdown_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "md") && p.is_file())
        .collect();
    files.sort();
    files
}
