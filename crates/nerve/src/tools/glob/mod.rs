//! Glob: finds files by name pattern, newest first. Read-only and concurrency-safe.

mod modified;
pub mod search;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{PermissionSubject, SearchSubject};
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};
use crate::tools::fs::{display_path, permission_paths};
use crate::tools::search_progress::{SEARCH_PACING, SearchProgress};
use crate::tools::walk::ReadDenyFilter;

pub use search::{GlobError, GlobResult, MAX_GLOB_RESULTS};

/// Glob's persistence threshold: Claude Code's value. A result is at most 100 paths, so it is
/// only reached by pathological path lengths; the pipeline persists it then.
pub const GLOB_MAX_RESULT_CHARS: usize = 100_000;

/// Input of the Glob tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GlobInput {
    /// The glob to match file paths against, relative to `path`: `**/*.rs`, `src/**/*.{ts,tsx}`,
    /// `*.md` (top level only: `*` does not cross folders, `**` does). An absolute pattern
    /// (`/home/me/proj/**/*.rs`) is matched from its folder before the first wildcard.
    pub pattern: String,
    /// The folder to search in, absolute (`/home/me/proj`). A relative path is resolved against
    /// the working directory. Omit it to search the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
}

/// The Glob tool.
#[derive(Debug, Default)]
pub struct GlobTool;

impl GlobTool {
    /// The folder searched and the pattern relative to it. A relative pattern that climbs
    /// (`../shared/**/*.rs`) is matched from where its literal folders lead, as an absolute one is.
    fn root_and_pattern(input: &GlobInput, ctx: &ToolUseContext) -> (PathBuf, String) {
        if let Some((base, rest)) = search::split_absolute(&input.pattern) {
            return (normalize_lexically(&base), rest);
        }
        let root = match &input.path {
            Some(p) => ctx.resolve_path(p),
            None => ctx.exec.cwd.clone(),
        };
        let climbs = Path::new(&input.pattern)
            .components()
            .any(|c| c == std::path::Component::ParentDir);
        if climbs
            && let Some((base, rest)) =
                search::split_absolute(&normalize_lexically(&root.join(&input.pattern)).to_string_lossy())
        {
            return (normalize_lexically(&base), rest);
        }
        (normalize_lexically(&root), input.pattern.clone())
    }
}

const DESCRIPTION: &str = r#"Finds files by name pattern, fast in any size of project.

- `pattern`: a glob matched against paths relative to `path`: "**/*.rs" (any depth), "src/**/*.{ts,tsx}", "*.md" (top level only: `*` stays within one folder, `**` crosses folders).
- `path`: the folder to search, absolute (relative paths are resolved against the working directory; default: the working directory).
- Returns absolute paths of matching files, newest first (by modification time), at most 100; a note says when more matched.
- Files ignored by .gitignore/.ignore, hidden files, version-control folders and files denied by `Read(...)` permission rules are skipped.
- Use it to find files by name; use Grep to search their contents."#;

#[async_trait]
impl Tool for GlobTool {
    type Input = GlobInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Search
    }

    fn name(&self) -> &str {
        "Glob"
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(GLOB_MAX_RESULT_CHARS)
    }

    fn is_concurrency_safe(&self, _input: &GlobInput) -> bool {
        true
    }

    fn is_read_only(&self, _input: &GlobInput) -> bool {
        true
    }

    async fn validate_input(&self, input: &GlobInput, ctx: &ToolUseContext) -> Validation {
        let (root, pattern) = Self::root_and_pattern(input, ctx);
        if !root.is_dir() {
            return Err(format!(
                "Directory does not exist: {}. Give an existing folder, absolute or relative to the working directory.",
                root.display()
            ));
        }
        search::compile(&pattern).map(|_| ()).map_err(|e| e.to_string())
    }

    fn backfill_observable_input(&self, input: &mut GlobInput, ctx: &ToolUseContext) {
        if let Some(path) = &input.path {
            input.path = Some(normalize_lexically(&ctx.resolve_path(path)).display().to_string());
        }
    }

    fn permission_subject(&self, input: &GlobInput, ctx: &ToolUseContext) -> PermissionSubject {
        let (root, pattern) = Self::root_and_pattern(input, ctx);
        PermissionSubject::Search(SearchSubject {
            roots: permission_paths(&root),
            globs: vec![pattern],
            absolute_lookalikes: Vec::new(),
        })
    }

    fn summary(&self, input: &GlobInput, cwd: &std::path::Path) -> String {
        match &input.path {
            Some(p) => format!("{} in {}", input.pattern, display_path(Path::new(p), Some(cwd))),
            None => input.pattern.clone(),
        }
    }

    fn classifier_input(&self, input: &GlobInput) -> String {
        input.pattern.clone()
    }

    async fn call(
        &self,
        input: GlobInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let (root, pattern) = Self::root_and_pattern(&input, ctx);
        if !root.is_dir() {
            return Err(ToolError::InvalidInput(format!(
                "Directory does not exist: {}",
                root.display()
            )));
        }
        let cancel = ctx.exec.cancel.clone();
        let withhold = Arc::new(
            ReadDenyFilter::from_context(ctx)
                .for_root(&root)
                .counting_only(&root, std::slice::from_ref(&pattern)),
        );
        let progress = SearchProgress::new(progress.clone(), SEARCH_PACING);
        let walk_withhold = Arc::clone(&withhold);
        let result = tokio::task::spawn_blocking(move || {
            search::find(&root, &pattern, &walk_withhold, &cancel, &progress)
        })
        .await
        .map_err(|e| ToolError::Failed(format!("the file search task failed: {e}")))?
        .map_err(|e| match e {
            GlobError::Cancelled => ToolError::Cancelled("the file search was interrupted".into()),
            other @ GlobError::InvalidPattern { .. } => ToolError::InvalidInput(other.to_string()),
        })?;
        let display = serde_json::json!({
            "num_files": result.total,
            "truncated": result.total > result.paths.len(),
        });
        let mut text = search::render(&result);
        if let Some(note) = withhold.note() {
            text.push('\n');
            text.push_str(&note);
        }
        Ok(ToolOutput::text(text).with_display(display))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::test_support::{context_in, no_progress, text};

    #[test]
    fn the_summary_shows_paths_relative_to_the_working_directory() {
        let input = GlobInput {
            pattern: "*.rs".into(),
            path: Some("/p/src".into()),
        };
        assert_eq!(GlobTool.summary(&input, Path::new("/p")), "*.rs in src");
        assert_eq!(GlobTool.summary(&input, Path::new("/q")), "*.rs in /p/src");
    }

    #[tokio::test]
    async fn relative_paths_resolve_against_the_working_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.rs"), "").unwrap();
        let ctx = context_in(dir.path());
        let input = GlobInput {
            pattern: "*.rs".into(),
            path: Some("sub".into()),
        };
        let mut observed = input.clone();
        GlobTool.backfill_observable_input(&mut observed, &ctx);
        assert_eq!(observed.path, Some(dir.path().join("sub").display().to_string()));
        assert_eq!(
            GlobTool.permission_subject(&input, &ctx),
            PermissionSubject::Search(SearchSubject {
                roots: vec![dir.path().join("sub")],
                globs: vec!["*.rs".into()],
                absolute_lookalikes: Vec::new(),
            })
        );
        let out = GlobTool.call(input, &ctx, &no_progress()).await.unwrap();
        assert_eq!(text(&out), dir.path().join("sub/a.rs").display().to_string());
    }

    #[tokio::test]
    async fn a_missing_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ctx = context_in(dir.path());
        let input = GlobInput {
            pattern: "*".into(),
            path: Some("nope".into()),
        };
        let err = GlobTool.validate_input(&input, &ctx).await.unwrap_err();
        assert!(err.contains("Directory does not exist"), "{err}");
    }
}
