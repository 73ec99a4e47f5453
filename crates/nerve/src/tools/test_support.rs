//! A context for unit tests of the built-in tools: a session whose working directory is `dir`.

use std::path::Path;

use crate::tool::{ProgressSink, ToolUseContext};

/// A context rooted at `dir` with default permissions and an empty read state.
pub(crate) fn context_in(dir: &Path) -> ToolUseContext {
    ToolUseContext::for_tests(dir.to_path_buf())
}

/// A progress sink that drops everything.
pub(crate) fn no_progress() -> ProgressSink {
    ProgressSink::discard("toolu_test")
}

/// The text of an output's blocks.
pub(crate) fn text(output: &crate::tool::ToolOutput) -> String {
    crate::tool::text_of(&output.content)
}
