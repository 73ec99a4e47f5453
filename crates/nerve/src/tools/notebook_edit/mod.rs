//! NotebookEdit: replaces, inserts or deletes one cell of a Jupyter notebook. A write: never
//! concurrency-safe, and subject to the same read-before-edit staleness rule as file edits.

pub mod cells;
mod file;

use std::path::PathBuf;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{Access, PermissionSubject};
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::fs::display_path;

pub use cells::{CellEdit, CellError, CellType, EditMode};

/// Input of the NotebookEdit tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NotebookEditInput {
    /// The notebook (`.ipynb`), absolute (`/home/me/proj/analysis.ipynb`). A relative path is
    /// resolved against the working directory.
    pub notebook_path: String,
    /// The cell to edit: its id as the Read tool shows it, or `cell-N` (0-based index) for cells
    /// without ids. For insert, the new cell goes after this one (at the start when omitted).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// The cell's new source (ignored for delete).
    #[serde(default)]
    pub new_source: String,
    /// `code` or `markdown`. Required for insert; for replace, changes the cell's type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_type: Option<CellType>,
    /// `replace` (default), `insert` or `delete`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_mode: Option<EditMode>,
}

impl NotebookEditInput {
    fn mode(&self) -> EditMode {
        self.edit_mode.unwrap_or_default()
    }

    fn edit(&self) -> CellEdit<'_> {
        CellEdit {
            cell_id: self.cell_id.as_deref(),
            new_source: &self.new_source,
            cell_type: self.cell_type,
            mode: self.mode(),
        }
    }
}

/// The NotebookEdit tool.
#[derive(Debug, Default)]
pub struct NotebookEditTool;

impl NotebookEditTool {
    fn path(input: &NotebookEditInput, ctx: &ToolUseContext) -> PathBuf {
        normalize_lexically(&ctx.resolve_path(&input.notebook_path))
    }
}

const DESCRIPTION: &str = r#"Replaces, inserts or deletes one cell of a Jupyter notebook (.ipynb).

- `notebook_path`: absolute path (relative paths are resolved against the working directory).
- `cell_id`: the cell's id as the Read tool shows it, or `cell-N` (0-based index).
- `edit_mode`: "replace" (default) sets the cell's source to `new_source` (a code cell's outputs and execution count are cleared); "insert" adds a new cell after `cell_id` (at the start without it) and needs `cell_type` ("code" or "markdown"); "delete" removes the cell.
- Read the notebook first: the edit is refused if it was not read, or changed since it was read.
- The notebook keeps its formatting (indentation, trailing newline) and stays valid nbformat 4."#;

#[async_trait]
impl Tool for NotebookEditTool {
    type Input = NotebookEditInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::FileEdit
    }

    fn name(&self) -> &str {
        "NotebookEdit"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn is_destructive(&self, input: &NotebookEditInput, _cwd: &std::path::Path) -> bool {
        input.mode() == EditMode::Delete
    }

    async fn validate_input(&self, input: &NotebookEditInput, ctx: &ToolUseContext) -> Validation {
        let path = Self::path(input, ctx);
        if path.extension().and_then(|e| e.to_str()) != Some("ipynb") {
            return Err(format!(
                "{} is not a Jupyter notebook (.ipynb file). Use the Edit tool for other files.",
                path.display()
            ));
        }
        match input.mode() {
            EditMode::Insert if input.cell_type.is_none() => Err(CellError::InsertWithoutType.to_string()),
            EditMode::Replace if input.cell_id.is_none() => {
                Err(CellError::MissingCellId("replace").to_string())
            }
            EditMode::Delete if input.cell_id.is_none() => {
                Err(CellError::MissingCellId("delete").to_string())
            }
            EditMode::Insert | EditMode::Replace | EditMode::Delete => Ok(()),
        }
    }

    fn backfill_observable_input(&self, input: &mut NotebookEditInput, ctx: &ToolUseContext) {
        input.notebook_path = Self::path(input, ctx).display().to_string();
    }

    fn file_effect(&self, input: &NotebookEditInput, ctx: &ToolUseContext) -> crate::tool::FileEffect {
        crate::tool::FileEffect::Files(vec![Self::path(input, ctx)])
    }

    fn permission_subject(&self, input: &NotebookEditInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: vec![Self::path(input, ctx)],
        }
    }

    fn summary(&self, input: &NotebookEditInput, cwd: &std::path::Path) -> String {
        let cell = input.cell_id.as_deref().unwrap_or("start");
        let path = display_path(std::path::Path::new(&input.notebook_path), Some(cwd));
        let action = match input.mode() {
            EditMode::Replace => "replace",
            EditMode::Insert => "insert after",
            EditMode::Delete => "delete",
        };
        format!("{path} · {action} {cell}")
    }

    async fn call(
        &self,
        input: NotebookEditInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let path = Self::path(&input, ctx);
        // The shared staleness rule of every file-changing tool: read first, unchanged since.
        let snapshot = crate::tools::fs::check_fresh(ctx, &path)
            .map_err(|e| ToolError::InvalidInput(e.to_string()))?
            .ok_or_else(|| {
                ToolError::InvalidInput(format!("The notebook {} does not exist.", path.display()))
            })?;
        let original = snapshot.bytes.clone();
        let text = String::from_utf8(snapshot.bytes).map_err(|_| {
            ToolError::InvalidInput(format!(
                "{} is not UTF-8 text, so not a valid notebook.",
                path.display()
            ))
        })?;
        let mut nb: Value = serde_json::from_str(&text).map_err(|e| {
            ToolError::InvalidInput(format!(
                "{} is not valid notebook JSON ({e}). Fix the file (or restore it) before editing cells.",
                path.display()
            ))
        })?;
        let applied =
            cells::apply(&mut nb, input.edit()).map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        let layout = file::Layout::of(&text);
        let new_text = layout
            .render(&nb)
            .map_err(|e| ToolError::Failed(format!("could not serialise the notebook: {e}")))?;
        crate::tools::fs::commit_change(ctx, &path, Some(&original), new_text.as_bytes()).await?;

        let message = match input.mode() {
            EditMode::Replace => format!("Updated cell {} with {}", applied.cell_id, input.new_source),
            EditMode::Insert => format!("Inserted cell {} with {}", applied.cell_id, input.new_source),
            EditMode::Delete => format!("Deleted cell {}", applied.cell_id),
        };
        let display = json!({
            "notebook_path": path,
            "edit_mode": input.mode(),
            "cell_id": applied.cell_id,
            "index": applied.index,
            "cell_type": applied.cell_type,
            "old_source": applied.old_source,
            "new_source": applied.new_source,
        });
        Ok(ToolOutput::text(message).with_display(display))
    }
}

#[cfg(test)]
mod tests;
