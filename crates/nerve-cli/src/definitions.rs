//! `nerve agents` and `nerve skills`: the sub-agent types and skills a session in a project is
//! offered, from Claude Code's folders and Nerve's, with the files that could not be used (named
//! with their line, on stderr, and the exit code says so, so a CI job can check them).

use std::path::PathBuf;

use anyhow::Result;
use nerve_protocol::definitions::{DefinitionSource, DefinitionsView};

use crate::exit::Exit;

/// Which list to print.
#[derive(Debug, Clone, Copy)]
pub enum Listing {
    /// Sub-agent types.
    Agents,
    /// Skills.
    Skills,
}

/// Prints the list for the project at `cwd` (JSON: the whole [`DefinitionsView`] of that kind).
pub fn run(cwd: PathBuf, json: bool, listing: Listing) -> Result<Exit> {
    let mut options = nerve::project::ProjectOptions::new(cwd);
    // Definitions do not depend on settings: a project whose settings are broken still lists them.
    options.bare = true;
    let project = nerve::Project::open(options)?;
    let mut view = project.definitions().view();
    // Each listing reports the problems of its own kind of file.
    let own_kind = match listing {
        Listing::Agents => "agents",
        Listing::Skills => "skills",
    };
    view.problems.retain(|p| {
        PathBuf::from(&p.path)
            .components()
            .any(|c| c.as_os_str() == own_kind)
    });
    if json {
        let value = match listing {
            Listing::Agents => serde_json::json!({"agents": view.agents, "problems": view.problems}),
            Listing::Skills => serde_json::json!({"skills": view.skills, "problems": view.problems}),
        };
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        print!("{}", text(&view, listing));
        for problem in &view.problems {
            eprintln!("{}", problem.located_text());
        }
    }
    Ok(Exit::failed_if(!view.problems.is_empty()))
}

/// Where a definition came from, in a few words.
fn source_words(source: DefinitionSource) -> &'static str {
    match source {
        DefinitionSource::UserClaude => "user, Claude Code",
        DefinitionSource::UserNerve => "user, Nerve",
        DefinitionSource::ProjectClaude => "project, Claude Code",
        DefinitionSource::ProjectNerve => "project, Nerve",
    }
}

/// The human listing: a name and description line, then what it gets and where it is from.
fn text(view: &DefinitionsView, listing: Listing) -> String {
    let mut out = String::new();
    match listing {
        Listing::Agents => {
            if view.agents.is_empty() {
                out.push_str("No sub-agent types are defined (.claude/agents/*.md, .nerve/agents/*.md, ~/.claude/agents/).\n");
            }
            for a in &view.agents {
                out.push_str(&format!("{}: {}\n", a.name, a.description));
                let tools = a.tools.as_ref().map_or("all".to_string(), |t| t.join(", "));
                let model = a.model.as_deref().unwrap_or("the session's");
                out.push_str(&format!(
                    "  tools: {tools}; model: {model}; {} ({})\n",
                    a.path,
                    source_words(a.source)
                ));
                for replaced in &a.overrides {
                    out.push_str(&format!("  replaces {replaced}\n"));
                }
            }
        }
        Listing::Skills => {
            if view.skills.is_empty() {
                out.push_str("No skills are defined (.claude/skills/<name>/SKILL.md, .nerve/skills/, ~/.claude/skills/).\n");
            }
            for s in &view.skills {
                out.push_str(&format!("{}: {}\n", s.name, s.description));
                let offered = if s.offered_to_model {
                    ""
                } else {
                    "not offered to the model; "
                };
                out.push_str(&format!("  {offered}{} ({})\n", s.path, source_words(s.source)));
                for replaced in &s.overrides {
                    out.push_str(&format!("  replaces {replaced}\n"));
                }
            }
        }
    }
    out
}
