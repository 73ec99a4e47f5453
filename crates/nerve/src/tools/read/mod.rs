//! Read: shows the model a file (text with line numbers, images, PDFs, notebooks) or a folder's
//! entries, and remembers what it saw so Edit and Write can refuse changes to stale files.
//!
//! Its results are never persisted (`max_result_size_chars` is `None`): a persisted Read result
//! would be read back with Read, could again be too large, and so on forever. Read bounds itself
//! instead, with a token estimate, and tells the model to use `offset`/`limit`.

mod directory;
mod image;
mod notebook;
mod pdf;
mod run;
pub use run::{ReadOutcome, ReadRequest, read as read_file};
mod sniff;
mod special;
mod text;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionSubject};
use crate::tool::{
    InterruptBehavior, ProgressSink, ResultBlock, Tool, ToolError, ToolOutput, ToolUseContext, Validation,
};
use crate::tools::fs::{absolute_path, display_path, permission_paths};

pub use image::{MAX_IMAGE_BASE64, PreparedImage, prepare_image};
pub use pdf::{MAX_PAGES_PER_CALL, PageRange};
pub use sniff::{FileKind, ImageKind, sniff};
pub use text::{DEFAULT_LINE_LIMIT, MAX_LINE_CHARS, MAX_TOKENS};

/// Input of [`ReadTool`] (Claude Code's names).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ReadInput {
    /// The absolute path of the file to read, e.g. "/home/me/project/src/main.rs". A relative path
    /// is resolved against the current working directory.
    pub file_path: String,
    /// The line number to start reading from (1-based). Give it only for files too large to read at
    /// once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
    /// How many lines to read (default 2000). Give it only for files too large to read at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<usize>,
    /// PDF only: the pages whose text to extract, as one page ("3") or a range ("1-5", "10-20"); at
    /// most 20 pages per call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<String>,
}

/// The Read tool.
#[derive(Debug, Default)]
pub struct ReadTool;

#[async_trait]
impl Tool for ReadTool {
    type Input = ReadInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Read
    }

    fn name(&self) -> &str {
        "Read"
    }

    fn description(&self) -> String {
        format!(
            "Reads a file from the local filesystem. You can read any file directly with this tool; if the user gives a path, assume it is valid. Reading a file that does not exist returns an error that suggests similar names.

Usage:
- `file_path` should be an absolute path (e.g. \"/home/me/project/src/lib.rs\"); a relative path is resolved against the current working directory.
- By default it reads up to {DEFAULT_LINE_LIMIT} lines from the start of the file. For long files give `offset` (1-based line number) and `limit` (number of lines), e.g. offset=2001, limit=2000; otherwise read the whole file.
- Results are in `cat -n` format: the line number, a tab, then the line. Lines longer than {MAX_LINE_CHARS} characters are cut with a marker.
- One read returns at most about {MAX_TOKENS} tokens; a larger request fails with the file's line count, and you should read it in parts with `offset`/`limit` (or search it with Grep).
- Images (PNG, JPEG, GIF, WebP, recognised by content) are shown to you visually; large ones are downscaled. Screenshots given by path can be read this way.
- PDFs up to 100 pages and 32 MB are sent whole. For larger ones give `pages` (e.g. \"1-5\", \"3\", \"10-20\"; at most {MAX_PAGES_PER_CALL} pages per call) to get the text of those pages.
- Jupyter notebooks (.ipynb) are shown as cells with their ids, types, sources and outputs.
- A directory path returns a listing of its entries; use Glob to find files by pattern.
- Devices and special files (/dev/zero, /dev/stdin, FIFOs, sockets) and binary files are refused.
- Reading a file is required before editing or overwriting it with Edit or Write.
- You can call several Reads in parallel; reading files that might be useful together is a good idea."
        )
    }

    /// Read bounds itself; see the module documentation.
    fn max_result_size_chars(&self) -> Option<usize> {
        None
    }

    fn is_concurrency_safe(&self, _input: &ReadInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &ReadInput) -> bool {
        true
    }

    async fn validate_input(&self, input: &ReadInput, ctx: &ToolUseContext) -> Validation {
        if input.file_path.trim().is_empty() {
            return Err("`file_path` is empty: give the absolute path of the file to read.".into());
        }
        if input.limit == Some(0) {
            return Err("`limit` must be at least 1 (it is the number of lines to read).".into());
        }
        if let Some(pages) = &input.pages {
            PageRange::parse(pages).map_err(|e| e.to_string())?;
        }
        if let Some(why) = special::blocked_by_name(&absolute_path(ctx, &input.file_path)) {
            return Err(why);
        }
        Ok(())
    }

    fn backfill_observable_input(&self, input: &mut ReadInput, ctx: &ToolUseContext) {
        input.file_path = absolute_path(ctx, &input.file_path).display().to_string();
    }

    fn permission_subject(&self, input: &ReadInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Read,
            paths: permission_paths(&absolute_path(ctx, &input.file_path)),
        }
    }

    async fn call(
        &self,
        input: ReadInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let pages = input
            .pages
            .as_deref()
            .map(PageRange::parse)
            .transpose()
            .map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        let request = run::ReadRequest {
            path: absolute_path(ctx, &input.file_path),
            offset: input.offset,
            limit: input.limit,
            pages,
            cwd: ctx.exec.cwd.clone(),
        };
        let cancel = ctx.exec.cancel.clone();
        // File reads block; a huge file must not stall the runtime's worker threads.
        let outcome = tokio::task::spawn_blocking(move || run::read(&request, &cancel))
            .await
            .map_err(|e| ToolError::Failed(format!("the read stopped unexpectedly: {e}")))??;
        let mut content = outcome.blocks;
        if let Some(record) = outcome.record {
            if matches!(record.content, crate::tool::SeenContent::Hash(_))
                && let Some(note) = unsaved_note(ctx, &outcome.path).await
            {
                content.push(ResultBlock::text(note));
            }
            ctx.exec.read_files.record(&outcome.path, record);
        }
        Ok(ToolOutput {
            content,
            ..ToolOutput::default()
        })
    }

    fn user_facing_name(&self, _input: Option<&ReadInput>) -> String {
        "Read".into()
    }

    fn summary(&self, input: &ReadInput, cwd: &std::path::Path) -> String {
        summary_of(input, Some(cwd))
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn classifier_input(&self, input: &ReadInput) -> String {
        format!("Read {}", input.file_path)
    }
}

/// "src/main.rs · lines 1–200": the path (relative to `base` when inside it) and what part.
fn summary_of(input: &ReadInput, base: Option<&std::path::Path>) -> String {
    let path = display_path(std::path::Path::new(&input.file_path), base);
    if let Some(pages) = &input.pages {
        return format!("{path} · pages {pages}");
    }
    match (input.offset, input.limit) {
        (None, None) => path,
        (offset, limit) => {
            let first = offset.unwrap_or(1).max(1);
            let last = first + limit.unwrap_or(DEFAULT_LINE_LIMIT) - 1;
            format!("{path} · lines {first}–{last}")
        }
    }
}

/// A note for the model when the session's editor holds unsaved changes to the text file it just
/// read from disk: what it read is the saved file, and changes to it wait for the user.
async fn unsaved_note(ctx: &ToolUseContext, path: &std::path::Path) -> Option<String> {
    ctx.config.editor.as_ref().filter(|e| e.can_read())?;
    let disk = tokio::fs::read(path).await.ok()?;
    crate::tools::fs::editor_has_unsaved(ctx, path, &disk).await.then(|| {
        format!(
            "Note: the editor has unsaved changes to {}. This is the file as saved on disk; the user's unsaved text is not shown, and Edit and Write refuse to change the file until the user saves or reverts it.",
            path.display()
        )
    })
}

#[cfg(test)]
mod tests;
