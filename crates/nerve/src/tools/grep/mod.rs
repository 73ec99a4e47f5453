//! Grep: searches file contents with ripgrep's own libraries, so results match `rg`.
//! Read-only and concurrency-safe.

mod format;
mod input;
pub mod search;
mod sink;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{PermissionSubject, SearchSubject};
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::fs::{display_path, permission_paths};
use crate::tools::search_progress::{SEARCH_PACING, SearchProgress};
use crate::tools::walk::ReadDenyFilter;

pub use format::{Page, Rendered, render};
pub use input::{DEFAULT_HEAD_LIMIT, GrepInput, OutputMode};
pub use search::{FileHits, SearchError, SearchOptions};

/// Results longer than this are persisted by the pipeline and replaced by a preview. Grep pages its
/// own output (`head_limit`), so this only catches pages of very long lines.
pub const GREP_MAX_RESULT_CHARS: usize = 20_000;

/// The Grep tool.
#[derive(Debug, Default)]
pub struct GrepTool;

impl GrepTool {
    fn root(input: &GrepInput, ctx: &ToolUseContext) -> PathBuf {
        let root = match &input.path {
            Some(p) => ctx.resolve_path(p),
            None => ctx.exec.cwd.clone(),
        };
        normalize_lexically(&root)
    }

    /// What the search can reach, for Read rules: the root (and where its symlinks lead), and the
    /// globs that choose files below it. A glob with no slash matches a name at any depth (`*.rs`
    /// is `**/*.rs`); one with a slash is anchored at the root, a leading `/` too (deny rules also
    /// meet it as the absolute path it looks like). Excluding globs (`!x`) only narrow.
    fn reach(input: &GrepInput, ctx: &ToolUseContext) -> SearchSubject {
        let mut globs = Vec::new();
        let mut absolute_lookalikes = Vec::new();
        for glob in input.globs() {
            if glob.starts_with('!') {
                continue;
            }
            let trimmed = glob.trim_end_matches('/');
            if let Some(anchored) = glob.strip_prefix('/') {
                globs.push(anchored.to_string());
                absolute_lookalikes.push(glob.clone());
            } else if trimmed.contains('/') {
                globs.push(glob.clone());
            } else {
                globs.push(format!("**/{glob}"));
            }
        }
        SearchSubject {
            roots: permission_paths(&Self::root(input, ctx)),
            globs,
            absolute_lookalikes,
        }
    }

    /// The search options for an input (hidden files skipped, as `rg` does by default).
    pub fn options(input: &GrepInput, ctx: &ToolUseContext) -> SearchOptions {
        let (before, after) = input.context_lines();
        let root = Self::root(input, ctx);
        SearchOptions {
            withhold: Arc::new(
                ReadDenyFilter::from_context(ctx)
                    .for_root(&root)
                    .counting_only(&root, &Self::reach(input, ctx).globs),
            ),
            pattern: input.pattern.clone(),
            root,
            mode: input.mode(),
            case_insensitive: input.case_insensitive.unwrap_or(false),
            multiline: input.multiline.unwrap_or(false),
            line_numbers: input.line_numbers.unwrap_or(true),
            before,
            after,
            globs: input.globs(),
            file_type: input.file_type.clone(),
            hidden: false,
        }
    }
}

const DESCRIPTION: &str = r#"Searches file contents with ripgrep (the same engine and the same rules as `rg`).

- Full regex syntax (Rust/ripgrep flavour): "log.*Error", "fn\s+\w+". Escape literal braces, parentheses and dots: `interface\{\}` finds `interface{}`. Look-around and backreferences are not supported.
- `path`: file or folder to search, absolute (relative paths are resolved against the working directory; default: the working directory).
- Filter files with `glob` ("*.js", "*.{ts,tsx}", "!*.min.js") or `type` ("rust", "py", "js", "go"; faster than glob for standard languages).
- `output_mode`: "files_with_matches" (default: paths, newest first), "content" (matching lines as `path:line:text`; supports `-A`/`-B`/`-C` context lines, `-n` line numbers (default on)), "count" (`path:N` matching lines per file).
- `-i` ignores case. `multiline: true` lets a pattern span lines (`.` then also matches newlines), e.g. `struct \{[\s\S]*?field`.
- Results are paged: `head_limit` entries (lines, files or counts; default 250, 0 for all) after skipping `offset` entries. A cut page ends with "[Showing results with pagination = limit: N, offset: M]": ask again with a larger offset for more.
- Files ignored by .gitignore/.ignore, hidden files, binary files, version-control folders (.git, .svn, .hg, .bzr, .jj, .sl) and files denied by `Read(...)` permission rules are not searched. Lines longer than 500 characters are shortened.
- Use this tool for searching file contents, never `grep` or `rg` through Bash."#;

#[async_trait]
impl Tool for GrepTool {
    type Input = GrepInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Search
    }

    fn name(&self) -> &str {
        "Grep"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(GREP_MAX_RESULT_CHARS)
    }

    fn is_concurrency_safe(&self, _input: &GrepInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &GrepInput) -> bool {
        true
    }

    async fn validate_input(&self, input: &GrepInput, ctx: &ToolUseContext) -> Validation {
        search::check_root(&Self::root(input, ctx)).map_err(|e| e.to_string())
    }

    fn backfill_observable_input(&self, input: &mut GrepInput, ctx: &ToolUseContext) {
        if let Some(path) = &input.path {
            input.path = Some(normalize_lexically(&ctx.resolve_path(path)).display().to_string());
        }
    }

    fn permission_subject(&self, input: &GrepInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Search(Self::reach(input, ctx))
    }

    fn summary(&self, input: &GrepInput, cwd: &std::path::Path) -> String {
        match &input.path {
            Some(p) => format!(
                "\"{}\" in {}",
                input.pattern,
                display_path(std::path::Path::new(p), Some(cwd))
            ),
            None => format!("\"{}\"", input.pattern),
        }
    }

    fn classifier_input(&self, input: &GrepInput) -> String {
        format!("grep {} {}", input.pattern, input.path.as_deref().unwrap_or("."))
    }

    async fn call(
        &self,
        input: GrepInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let options = Self::options(&input, ctx);
        search::check_root(&options.root).map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        let cancel = ctx.exec.cancel.clone();
        let withhold = Arc::clone(&options.withhold);
        let mode = options.mode;
        let context = options.before > 0 || options.after > 0;
        let progress = SearchProgress::new(progress.clone(), SEARCH_PACING);
        let hits = tokio::task::spawn_blocking(move || search::search(&options, &cancel, &progress))
            .await
            .map_err(|e| ToolError::Failed(format!("the search task failed: {e}")))?
            .map_err(|e| match e {
                SearchError::Cancelled => ToolError::Cancelled("the search was interrupted".into()),
                other @ (SearchError::InvalidRegex { .. }
                | SearchError::InvalidGlob { .. }
                | SearchError::UnknownType { .. }
                | SearchError::InvalidType(_)) => ToolError::InvalidInput(other.to_string()),
            })?;
        let limit = match input.head_limit {
            Some(0) => None,
            Some(n) => Some(n),
            None => Some(DEFAULT_HEAD_LIMIT),
        };
        let page = Page {
            limit,
            offset: input.offset.unwrap_or(0),
        };
        let mut rendered = render(&hits, mode, context, page);
        if let Some(note) = withhold.note() {
            rendered.text.push_str("\n\n");
            rendered.text.push_str(&note);
        }
        Ok(ToolOutput::text(rendered.text).with_display(rendered.display))
    }
}
