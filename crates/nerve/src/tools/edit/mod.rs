//! Edit: replaces exact text in a file the model has read, keeping the file's line endings, BOM,
//! quote style and permissions, writing atomically, and returning a diff for the UI.

mod matching;
mod preview;
mod snippet;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionSubject};
use crate::tool::{ApprovalPreview, ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::fs::{
    ChangeKind, TextFile, absolute_path, commit_change, display_path, editor_has_unsaved, permission_paths,
    unsaved_message,
};

pub use preview::{EditPreview, MAX_EDIT_FILE_BYTES, preview_edit};

/// Input of [`EditTool`] (Claude Code's names).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EditInput {
    /// The absolute path of the file to change, e.g. "/home/me/project/src/lib.rs". A relative path
    /// is resolved against the current working directory.
    pub file_path: String,
    /// The exact text to replace, as it appears in the file (without the line-number prefix Read
    /// shows). Empty only to create a new file.
    pub old_string: String,
    /// The text to put in its place (must differ from old_string).
    pub new_string: String,
    /// Replace every occurrence of old_string (default false: it must occur exactly once).
    #[serde(default)]
    pub replace_all: bool,
}

/// The Edit tool.
#[derive(Debug, Default)]
pub struct EditTool;

#[async_trait]
impl Tool for EditTool {
    type Input = EditInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::FileEdit
    }

    fn editable_field(&self) -> Option<nerve_protocol::EditableField> {
        Some(nerve_protocol::EditableField::NewString)
    }

    fn name(&self) -> &str {
        "Edit"
    }

    fn description(&self) -> String {
        "Performs exact string replacements in a file.

Usage:
- You must Read the file in this session before editing it; an edit of a file you have not read, or that changed on disk since you read it, is refused (read it again, then retry).
- `file_path` should be an absolute path (e.g. \"/home/me/project/src/lib.rs\"); a relative path is resolved against the current working directory.
- old_string must match the file's text exactly, including indentation. When copying from Read output, leave out the line-number prefix (spaces, the number, a tab): everything after that tab is the line.
- The edit fails if old_string is not found, or is found more than once (the error gives the count). Then either include more surrounding lines so it is unique, or set replace_all to true to change every occurrence (useful for renaming a variable).
- old_string and new_string must differ.
- Curly and straight quotes and trailing spaces at line ends are matched loosely; the file's own quote style is kept in the new text.
- The file's line endings (LF or CRLF), a UTF-8 byte-order mark and its permissions are kept. The write is atomic.
- To create a new file, use Write (or Edit with an empty old_string on a path that does not exist).
- Prefer editing existing files over creating new ones. Do not add emojis unless asked."
            .into()
    }

    async fn validate_input(&self, input: &EditInput, ctx: &ToolUseContext) -> Validation {
        if input.file_path.trim().is_empty() {
            return Err("`file_path` is empty: give the absolute path of the file to edit.".into());
        }
        let (owned_input, owned_ctx) = (input.clone(), ctx.clone());
        // The same computation as the call: a stale file, a missing or ambiguous old_string fails
        // here, before the user is asked to approve anything.
        let preview = tokio::task::spawn_blocking(move || {
            preview_edit(&owned_input, &owned_ctx).map_err(|e| e.to_string())
        })
        .await
        .map_err(|e| format!("the edit could not be checked: {e}"))??;
        match &preview.original {
            Some(original) if editor_has_unsaved(ctx, &preview.path, &original.bytes).await => {
                Err(unsaved_message(&preview.path))
            }
            _ => Ok(()),
        }
    }

    fn backfill_observable_input(&self, input: &mut EditInput, ctx: &ToolUseContext) {
        input.file_path = absolute_path(ctx, &input.file_path).display().to_string();
    }

    fn file_effect(&self, input: &EditInput, ctx: &ToolUseContext) -> crate::tool::FileEffect {
        crate::tool::FileEffect::Files(vec![absolute_path(ctx, &input.file_path)])
    }

    fn permission_subject(&self, input: &EditInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: permission_paths(&absolute_path(ctx, &input.file_path)),
        }
    }

    async fn permission_preview(&self, input: &EditInput, ctx: &ToolUseContext) -> Option<ApprovalPreview> {
        // An input that cannot apply has no preview; the call itself reports why.
        let preview = preview_edit(input, ctx).ok()?;
        let old_text = match &preview.original {
            Some(snapshot) => TextFile::decode(&snapshot.bytes).ok()?.text,
            None => String::new(),
        };
        Some(crate::tools::fs::diff_preview(
            &preview.diff,
            &old_text,
            &preview.new_text,
        ))
    }

    async fn call(
        &self,
        input: EditInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let replace_all = input.replace_all;
        let owned_ctx = ctx.clone();
        // Computed again right before writing: the file may have changed while the user looked at
        // the permission dialog, and then the staleness check refuses.
        let preview = tokio::task::spawn_blocking(move || -> Result<EditPreview, ToolError> {
            preview_edit(&input, &owned_ctx).map_err(|e| ToolError::InvalidInput(e.to_string()))
        })
        .await
        .map_err(|e| ToolError::Failed(format!("the edit stopped unexpectedly: {e}")))??;
        let original = preview.original.as_ref().map(|o| o.bytes.as_slice());
        commit_change(ctx, &preview.path, original, &preview.new_bytes).await?;
        let path = preview.path.display();
        let text = match preview.kind {
            ChangeKind::Create => format!("File created successfully at: {path}"),
            ChangeKind::Update if replace_all && preview.replacements > 1 => format!(
                "The file {path} has been updated. All {} occurrences of old_string were replaced with new_string.",
                preview.replacements
            ),
            ChangeKind::Update => format!(
                "The file {path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n{}",
                snippet::snippet(
                    &preview.new_text,
                    preview.first_changed_line,
                    preview.changed_lines
                )
            ),
        };
        Ok(ToolOutput::text(text).with_display(preview.diff.to_value()))
    }

    fn summary(&self, input: &EditInput, cwd: &std::path::Path) -> String {
        display_path(std::path::Path::new(&input.file_path), Some(cwd))
    }

    fn classifier_input(&self, input: &EditInput) -> String {
        let cut = |s: &str| s.chars().take(500).collect::<String>();
        format!(
            "Edit {}: replace {:?} with {:?}",
            input.file_path,
            cut(&input.old_string),
            cut(&input.new_string)
        )
    }
}

#[cfg(test)]
mod tests;
