//! Memory: short facts the user asked the agent to remember about this project, kept between
//! sessions in the project's memory folder (see [`store`]). The system prompt lists the entries by
//! name and description; this tool reads one, saves one, or deletes one.
//!
//! A dedicated tool rather than Write/Edit on the folder: the folder lies outside the project, so
//! Write would ask about an unfamiliar path, and only a tool of its own can refuse, in one place,
//! what must never be stored (text that looks like a secret) and keep each entry in the shape the
//! prompt and `nerve memory` read. Reading is free (it only reads the user's own notes); saving and
//! deleting are edits of a file outside the working folders, so they ask in the default and
//! acceptEdits modes and are refused in plan mode, like any such edit.

pub mod secrets;
pub mod store;

use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionSubject, ToolPermission};
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};

pub use store::{MemoryEntry, MemoryError, MemoryStore, memory_dir};

/// The tool's name.
pub const NAME: &str = "Memory";

/// What to do with an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MemoryAction {
    /// Return the entry's text.
    Read,
    /// Create or replace the entry.
    Save,
    /// Delete the entry.
    Delete,
}

/// Input of [`MemoryTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemoryInput {
    /// `read`, `save` or `delete`.
    pub action: MemoryAction,
    /// The entry's name: lower-case words joined by hyphens, e.g. "test-command".
    pub name: String,
    /// For `save`: one line saying what the entry is about (listed in your instructions).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// For `save`: the fact itself, short Markdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// The Memory tool over one project's memory folder.
#[derive(Debug, Clone)]
pub struct MemoryTool {
    store: MemoryStore,
}

impl MemoryTool {
    /// The tool over `dir` (see [`memory_dir`]).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            store: MemoryStore::new(dir),
        }
    }
}

const DESCRIPTION: &str = r#"Reads, saves or deletes an entry of this project's memory: short facts kept between sessions (how to run the tests, a preference the user stated, where something lives). Your instructions list every entry by name and description.

- `{"action": "read", "name": "test-command"}` returns an entry's text. Read an entry when its description says it matters for the task.
- `{"action": "save", "name": "test-command", "description": "How to run the tests", "content": "Run `make check`; it also lints."}` creates or replaces an entry. Save only when the user asks you to remember something, or agrees when you offer. One fact per entry, in a few lines; update an existing entry rather than adding a near-duplicate.
- `{"action": "delete", "name": "..."}` removes an entry (when the user asks you to forget it, or it is wrong).
- Never store secrets (keys, tokens, passwords, private URLs with credentials): such a save is refused. The user can list and delete every entry (`nerve memory list`, `nerve memory rm NAME`)."#;

#[async_trait]
impl Tool for MemoryTool {
    type Input = MemoryInput;

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn is_read_only(&self, input: &MemoryInput) -> bool {
        input.action == MemoryAction::Read
    }

    fn is_concurrency_safe(&self, input: &MemoryInput) -> bool {
        input.action == MemoryAction::Read
    }

    fn is_destructive(&self, input: &MemoryInput, _cwd: &std::path::Path) -> bool {
        input.action == MemoryAction::Delete
            || (input.action == MemoryAction::Save
                && self.store.path_of(&input.name).is_ok_and(|p| p.exists()))
    }

    async fn validate_input(&self, input: &MemoryInput, _ctx: &ToolUseContext) -> Validation {
        store::check_name(&input.name).map_err(|e| e.to_string())?;
        match input.action {
            MemoryAction::Save => {
                let (Some(description), Some(content)) = (&input.description, &input.content) else {
                    return Err("`save` needs both `description` and `content`.".into());
                };
                for text in [description, content] {
                    if let Some(kind) = secrets::looks_like_secret(text) {
                        return Err(MemoryError::Secret(kind).to_string());
                    }
                }
                Ok(())
            }
            MemoryAction::Read | MemoryAction::Delete => {
                if input.description.is_some() || input.content.is_some() {
                    return Err("`description` and `content` go only with `save`.".into());
                }
                Ok(())
            }
        }
    }

    fn permission_subject(&self, input: &MemoryInput, _ctx: &ToolUseContext) -> PermissionSubject {
        match (input.action, self.store.path_of(&input.name)) {
            (MemoryAction::Read, _) => PermissionSubject::Opaque,
            (_, Ok(path)) => PermissionSubject::Paths {
                access: Access::Edit,
                paths: vec![path],
            },
            // An invalid name never gets this far (validation refuses it); ask if it does.
            (_, Err(_)) => PermissionSubject::Opaque,
        }
    }

    async fn check_permissions(&self, input: &MemoryInput, _ctx: &ToolUseContext) -> ToolPermission {
        match input.action {
            MemoryAction::Read => ToolPermission::Allow {
                reason: "reading the project's memory".into(),
            },
            MemoryAction::Save | MemoryAction::Delete => ToolPermission::Passthrough,
        }
    }

    fn file_effect(&self, _input: &MemoryInput, _ctx: &ToolUseContext) -> crate::tool::FileEffect {
        // The memory folder is the user's, outside the project: checkpoints do not track it.
        crate::tool::FileEffect::None
    }

    fn summary(&self, input: &MemoryInput, _cwd: &std::path::Path) -> String {
        let verb = match input.action {
            MemoryAction::Read => "Read memory",
            MemoryAction::Save => "Remember",
            MemoryAction::Delete => "Forget",
        };
        format!("{verb} {}", input.name)
    }

    async fn call(
        &self,
        input: MemoryInput,
        _ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || -> Result<String, MemoryError> {
            match input.action {
                MemoryAction::Read => {
                    let entry = store.get(&input.name)?;
                    Ok(format!(
                        "Memory {} ({}):\n\n{}",
                        entry.name, entry.description, entry.content
                    ))
                }
                MemoryAction::Save => {
                    let entry = store.save(
                        &input.name,
                        input.description.as_deref().unwrap_or_default(),
                        input.content.as_deref().unwrap_or_default(),
                    )?;
                    Ok(format!(
                        "Saved memory {}. It will be listed in the instructions of this project's next sessions.",
                        entry.name
                    ))
                }
                MemoryAction::Delete => {
                    store.remove(&input.name)?;
                    Ok(format!("Deleted memory {}.", input.name))
                }
            }
        })
        .await
        .map_err(|e| ToolError::InvalidInput(format!("the memory task failed: {e}")))?
        .map(ToolOutput::text)
        .map_err(|e| ToolError::InvalidInput(e.to_string()))
    }
}
