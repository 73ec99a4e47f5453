use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionSubject};
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext};
use crate::tools::fs::{absolute_path, display_path, permission_paths};

/// Input of [`WordCountTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WordCountInput {
    /// The file, absolute or relative to the working directory.
    pub file_path: String,
}

/// Counts the words of a file. Named `WordCount`.
#[derive(Debug, Default)]
pub struct WordCountTool;

#[async_trait]
impl Tool for WordCountTool {
    type Input = WordCountInput;

    fn name(&self) -> &str {
        "WordCount"
    }

    fn description(&self) -> String {
        "Counts the words (runs of non-whitespace) in one text file. Use it instead of `wc -w`.".into()
    }

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Read
    }

    fn is_read_only(&self, _input: &WordCountInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &WordCountInput) -> bool {
        true
    }

    // `Read(src/**)` rules, the deny list and the protected paths apply as they do to Read.
    fn permission_subject(&self, input: &WordCountInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Read,
            paths: permission_paths(&absolute_path(ctx, &input.file_path)),
        }
    }

    fn summary(&self, input: &WordCountInput, cwd: &std::path::Path) -> String {
        display_path(std::path::Path::new(&input.file_path), Some(cwd))
    }

    async fn call(
        &self,
        input: WordCountInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let path = absolute_path(ctx, &input.file_path);
        let text = tokio::fs::read_to_string(&path)
            .await
            .map_err(|e| ToolError::Failed(format!("cannot read {}: {e}", path.display())))?;
        Ok(ToolOutput::text(format!("{} words", text.split_whitespace().count())))
    }
}
