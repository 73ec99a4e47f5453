//! A context for unit tests of the built-in tools: a session whose working directory is `dir`.

use std::path::Path;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::permissions::PermissionContext;
use crate::tool::{
    AgentIdentity, ExecutionState, ProgressSink, ReadFileState, SessionConfig, ToolUseContext, UiCallbacks,
};

/// A context rooted at `dir` with default permissions and an empty read state.
pub(crate) fn context_in(dir: &Path) -> ToolUseContext {
    ToolUseContext {
        config: Arc::new(SessionConfig {
            session_id: "test".into(),
            project_dir: dir.to_path_buf(),
            tool_results_dir: dir.join(".results"),
            transcript_path: dir.join("transcript.jsonl"),
            model: String::new(),
        }),
        permissions: PermissionContext {
            working_dirs: vec![dir.to_path_buf()],
            ..PermissionContext::default()
        },
        exec: ExecutionState {
            cancel: CancellationToken::new(),
            read_files: ReadFileState::default(),
            cwd: dir.to_path_buf(),
            todos: Arc::default(),
        },
        ui: UiCallbacks::default(),
        agent: AgentIdentity::default(),
    }
}

/// A progress sink that drops everything.
pub(crate) fn no_progress() -> ProgressSink {
    ProgressSink::discard("toolu_test")
}

/// The text of an output's blocks.
pub(crate) fn text(output: &crate::tool::ToolOutput) -> String {
    output
        .content
        .iter()
        .filter_map(|b| match b {
            crate::tool::ResultBlock::Text { text } => Some(text.as_str()),
            crate::tool::ResultBlock::Image { .. } | crate::tool::ResultBlock::Document { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
