//! Instruction files in the project's subfolders (`src/NERVE.md`, `web/AGENTS.md`...): not in the
//! system prompt (which would then depend on where the model went), but added to the conversation
//! the first time the model works with a file under such a folder.

use std::collections::HashSet;
use std::path::PathBuf;

use crate::agent::system_prompt::project::{INSTRUCTION_FILES, instruction_file};

/// The subfolder instruction files of one session, each given to the model once.
#[derive(Debug, Clone)]
pub struct NestedInstructions {
    project_dir: PathBuf,
    given: HashSet<PathBuf>,
}

impl NestedInstructions {
    /// None given yet, for the project at `project_dir`.
    pub fn new(project_dir: impl Into<PathBuf>) -> Self {
        Self {
            project_dir: project_dir.into(),
            given: HashSet::new(),
        }
    }

    /// The instruction files not given yet that apply to `paths` (absolute paths the model
    /// worked with): those in each folder from below the project root down to the path's own
    /// folder, outermost first. Each text is headed by its file's path.
    pub fn new_for(&mut self, paths: &[PathBuf]) -> Vec<String> {
        let mut found = Vec::new();
        for path in paths {
            let Ok(relative) = path.strip_prefix(&self.project_dir) else {
                continue;
            };
            let mut folder = self.project_dir.clone();
            let components: Vec<_> = relative.components().collect();
            // Every folder on the way, not a file itself (and not the root: its files are in the
            // system prompt already).
            let folders = if path.is_dir() {
                components.len()
            } else {
                components.len().saturating_sub(1)
            };
            for component in components.iter().take(folders) {
                folder.push(component);
                if !folder.is_dir() {
                    break;
                }
                for name in INSTRUCTION_FILES {
                    let file = folder.join(name);
                    if !self.given.contains(&file)
                        && file.is_file()
                        && let Some(text) = instruction_file(&self.project_dir, &file)
                    {
                        self.given.insert(file.clone());
                        found.push(text);
                    }
                }
            }
        }
        found
    }
}

/// The note for the files found, as the model reads it.
pub fn nested_note(texts: &[String]) -> String {
    format!(
        "Instructions for the folder you are working in, from the project's own files (follow them there, as the project instructions above):\n\n{}",
        texts.join("\n\n")
    )
}
