//! A tool context over a temporary folder, for the file tools' unit tests.

use std::path::{Path, PathBuf};

use crate::tool::{ProgressSink, ToolUseContext};

/// A context whose project and working directory are `dir` (canonicalised).
pub fn context(dir: &Path) -> ToolUseContext {
    let dir: PathBuf = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    ToolUseContext::for_tests(dir)
}

/// A progress sink that drops everything.
pub fn no_progress() -> ProgressSink {
    ProgressSink::discard("test")
}
