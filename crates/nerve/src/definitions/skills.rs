//! Skills: `skills/<folder>/SKILL.md`. Only the name and description are read up front (what the
//! model is offered); the body is read again when the model loads the skill, so an edit made
//! during a session is what it gets.

use std::path::{Path, PathBuf};

use super::front_matter::{self, Problem};
use super::{DefinitionProblem, DefinitionSource, SkillView, located, read_limited, valid_name};

/// The file a skill folder must hold.
pub const SKILL_FILE: &str = "SKILL.md";

/// A skill found in a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Its name (the front matter's, else the folder's).
    pub name: String,
    /// What it is for and when to use it.
    pub description: String,
    /// Whether the model is offered it (`disable-model-invocation: true` says no).
    pub offered_to_model: bool,
    /// Where it was read from.
    pub source: DefinitionSource,
    /// Its folder (the skill's other files are there).
    pub dir: PathBuf,
    /// Its `SKILL.md`.
    pub path: PathBuf,
}

/// Why a skill could not be loaded when the model asked for it.
#[derive(Debug, thiserror::Error)]
pub enum SkillLoadError {
    /// The file went away or became unreadable or too large.
    #[error("{}", .0.message)]
    Unreadable(DefinitionProblem),
    /// It was changed into something that does not parse.
    #[error("{}{}: {}", .0.path, .0.line.map(|l| format!(":{l}")).unwrap_or_default(), .0.message)]
    Malformed(DefinitionProblem),
}

impl Skill {
    /// Parses the `SKILL.md` at `path`, in the folder `dir`.
    fn parse(text: &str, dir: &Path, path: &Path, source: DefinitionSource) -> Result<Self, Problem> {
        let doc = front_matter::parse(text)?;
        let folder_name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let name = doc
            .string("name")?
            .filter(|n| !n.is_empty())
            .unwrap_or(folder_name);
        if !valid_name(&name) {
            return Err(Problem::at(
                doc.line_of("name"),
                format!(
                    "`{name}` is not a usable name: use letters, digits, `-`, `_`, `.` or `:` (64 at most)"
                ),
            ));
        }
        let description = doc.required_string("description")?;
        let offered_to_model = !doc.flag("disable-model-invocation")?;
        Ok(Self {
            name,
            description,
            offered_to_model,
            source,
            dir: dir.to_path_buf(),
            path: path.to_path_buf(),
        })
    }

    /// How front-ends list it.
    pub fn view(&self, overrides: Vec<String>) -> SkillView {
        SkillView {
            name: self.name.clone(),
            description: self.description.clone(),
            offered_to_model: self.offered_to_model,
            source: self.source,
            path: self.path.display().to_string(),
            overrides,
        }
    }

    /// The skill's instructions as the file says now.
    pub fn load_body(&self) -> Result<String, SkillLoadError> {
        let text = read_limited(&self.path).map_err(SkillLoadError::Unreadable)?;
        let doc =
            front_matter::parse(&text).map_err(|p| SkillLoadError::Malformed(located(&self.path, p)))?;
        Ok(doc.body)
    }
}

/// Each folder of `dir` holding a `SKILL.md`, parsed, in name order. A folder without one is not
/// a skill (it may hold a skill's shared files) and is passed over in silence.
pub(super) fn read_folder(dir: &Path, source: DefinitionSource) -> Vec<Result<Skill, DefinitionProblem>> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    folders
        .into_iter()
        .filter_map(|folder| {
            let path = folder.join(SKILL_FILE);
            path.is_file().then(|| {
                let text = read_limited(&path)?;
                Skill::parse(&text, &folder, &path, source).map_err(|p| located(&path, p))
            })
        })
        .collect()
}
