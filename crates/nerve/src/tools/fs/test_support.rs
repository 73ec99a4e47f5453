//! A tool context over a temporary folder, for the file tools' unit tests.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::permissions::PermissionContext;
use crate::tool::{
    AgentIdentity, ExecutionState, ProgressSink, ReadFileState, SessionConfig, ToolUseContext, UiCallbacks,
};

/// A context whose project and working directory are `dir` (canonicalised).
pub fn context(dir: &Path) -> ToolUseContext {
    let dir: PathBuf = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    ToolUseContext {
        config: Arc::new(SessionConfig {
            session_id: "test".into(),
            project_dir: dir.clone(),
            tool_results_dir: dir.join(".results"),
            transcript_path: dir.join("t.jsonl"),
            model: String::new(),
        }),
        permissions: PermissionContext {
            working_dirs: vec![dir.clone()],
            ..PermissionContext::default()
        },
        exec: ExecutionState {
            cancel: CancellationToken::new(),
            read_files: ReadFileState::default(),
            cwd: dir,
            todos: Default::default(),
        },
        ui: UiCallbacks::default(),
        agent: AgentIdentity::default(),
    }
}

/// A progress sink that drops everything.
pub fn no_progress() -> ProgressSink {
    ProgressSink::discard("test")
}
