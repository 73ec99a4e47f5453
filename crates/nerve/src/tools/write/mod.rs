//! Write: creates a file or replaces a file the model has read, atomically, keeping an existing
//! file's line endings, BOM and permissions, and returning a diff for the UI.

mod preview;

use std::path::Path;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionSubject};
use crate::tool::{ApprovalPreview, ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::fs::TextFile;
use crate::tools::fs::text::normalize_newlines;
use crate::tools::fs::{
    ChangeKind, absolute_path, commit_change, display_path, editor_has_unsaved, permission_paths,
    unsaved_message,
};

pub use preview::{WritePreview, preview_write};

/// Input of [`WriteTool`] (Claude Code's names).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WriteInput {
    /// The absolute path of the file to write, e.g. "/home/me/project/notes.md". A relative path is
    /// resolved against the current working directory.
    pub file_path: String,
    /// The complete content of the file.
    pub content: String,
}

/// The Write tool.
#[derive(Debug, Default)]
pub struct WriteTool;

#[async_trait]
impl Tool for WriteTool {
    type Input = WriteInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::FileWrite
    }

    fn editable_field(&self) -> Option<nerve_protocol::EditableField> {
        Some(nerve_protocol::EditableField::Content)
    }

    fn name(&self) -> &str {
        "Write"
    }

    fn description(&self) -> String {
        "Writes a file to the local filesystem: creates it, or replaces its whole content.

Usage:
- `file_path` should be an absolute path (e.g. \"/home/me/project/notes.md\"); a relative path is resolved against the current working directory. Missing parent folders are created.
- Overwriting an existing file requires that you Read it in this session first, and that it has not changed on disk since; otherwise the write is refused (read it again, then retry).
- An existing file keeps its line endings (LF or CRLF), a UTF-8 byte-order mark and its permissions. The write is atomic: the file is never left half-written.
- Prefer Edit for changing part of an existing file: it sends only the change. Use Write for new files or complete rewrites.
- Do not create documentation files (*.md, README) unless asked. Do not add emojis unless asked."
            .into()
    }

    fn is_destructive(&self, input: &WriteInput, cwd: &Path) -> bool {
        cwd.join(&input.file_path).exists()
    }

    async fn validate_input(&self, input: &WriteInput, ctx: &ToolUseContext) -> Validation {
        if input.file_path.trim().is_empty() {
            return Err("`file_path` is empty: give the absolute path of the file to write.".into());
        }
        let (owned_input, owned_ctx) = (input.clone(), ctx.clone());
        let preview = tokio::task::spawn_blocking(move || {
            preview_write(&owned_input, &owned_ctx).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("the write could not be checked: {e}"))??;
        match &preview.original {
            Some(original) if editor_has_unsaved(ctx, &preview.path, &original.bytes).await => {
                Err(unsaved_message(&preview.path))
            }
            _ => Ok(()),
        }
    }

    fn backfill_observable_input(&self, input: &mut WriteInput, ctx: &ToolUseContext) {
        input.file_path = absolute_path(ctx, &input.file_path).display().to_string();
    }

    fn file_effect(&self, input: &WriteInput, ctx: &ToolUseContext) -> crate::tool::FileEffect {
        crate::tool::FileEffect::Files(vec![absolute_path(ctx, &input.file_path)])
    }

    fn permission_subject(&self, input: &WriteInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: permission_paths(&absolute_path(ctx, &input.file_path)),
        }
    }

    async fn permission_preview(&self, input: &WriteInput, ctx: &ToolUseContext) -> Option<ApprovalPreview> {
        let preview = preview_write(input, ctx).ok()?;
        let old_text = match &preview.original {
            Some(snapshot) => TextFile::decode(&snapshot.bytes)
                .map(|f| f.text)
                .unwrap_or_else(|_| String::from_utf8_lossy(&snapshot.bytes).into_owned()),
            None => String::new(),
        };
        Some(crate::tools::fs::diff_preview(
            &preview.diff,
            &old_text,
            &normalize_newlines(&input.content),
        ))
    }

    async fn call(
        &self,
        input: WriteInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let owned_ctx = ctx.clone();
        // Checked again right before writing: the file may have changed during the permission dialog.
        let preview = tokio::task::spawn_blocking(move || -> Result<WritePreview, ToolError> {
            preview_write(&input, &owned_ctx).map_err(|e| ToolError::InvalidInput(e.to_string()))
        })
        .await
        .map_err(|e| ToolError::Failed(format!("the write stopped unexpectedly: {e}")))??;
        let original = preview.original.as_ref().map(|o| o.bytes.as_slice());
        commit_change(ctx, &preview.path, original, &preview.new_bytes).await?;
        let path = preview.path.display();
        let text = match preview.kind {
            ChangeKind::Create => format!("File created successfully at: {path}"),
            ChangeKind::Update => format!("The file {path} has been updated successfully."),
        };
        Ok(ToolOutput::text(text).with_display(preview.diff.to_value()))
    }

    fn summary(&self, input: &WriteInput, cwd: &std::path::Path) -> String {
        display_path(Path::new(&input.file_path), Some(cwd))
    }

    fn classifier_input(&self, input: &WriteInput) -> String {
        let head: String = input.content.chars().take(1_000).collect();
        format!("Write {}:\n{head}", input.file_path)
    }
}

#[cfg(test)]
mod tests;
