//! Helpers for the Bash tool's unit tests.

#![allow(clippy::unwrap_used)]

pub(crate) use nerve_test_support::process::process_gone;

/// Waits (at most 10 s) for a file holding a process id, written by the command under test.
pub(crate) async fn read_pid(path: &std::path::Path) -> u32 {
    nerve_test_support::process::read_pid(path, std::time::Duration::from_secs(10)).await
}

/// A context whose project (and only working directory) is `project`, with results under `data`.
pub(crate) fn context(project: &std::path::Path, data: &std::path::Path) -> crate::tool::ToolUseContext {
    let project = std::fs::canonicalize(project).unwrap();
    let mut ctx = crate::tool::ToolUseContext::for_tests(project);
    let mut config = (*ctx.config).clone();
    config.tool_results_dir = data.join("tool-results");
    config.transcript_path = data.join("t.jsonl");
    ctx.config = std::sync::Arc::new(config);
    ctx
}

/// All text of a result.
pub(crate) fn text(blocks: &[crate::tool::ResultBlock]) -> String {
    blocks
        .iter()
        .filter_map(|b| match b {
            crate::tool::ResultBlock::Text { text } => Some(text.as_str()),
            crate::tool::ResultBlock::Image { .. } | crate::tool::ResultBlock::Document { .. } => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}
