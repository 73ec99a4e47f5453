//! A tool context over a temporary folder, for the file tools' unit tests.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

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

/// Sets `path`'s modification time to `at`.
pub fn set_modified(path: &Path, at: SystemTime) {
    let file = std::fs::File::options().write(true).open(path);
    if let Err(e) = file.and_then(|f| f.set_modified(at)) {
        panic!("setting the time of {}: {e}", path.display());
    }
}
