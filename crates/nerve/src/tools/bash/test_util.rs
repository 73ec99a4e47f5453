//! Helpers for the Bash tool's unit tests.

#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

/// Whether process `pid` is gone (or a zombie nobody reaped yet) within `within`.
pub(crate) async fn process_gone(pid: u32, within: Duration) -> bool {
    let start = Instant::now();
    loop {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            // The state follows the parenthesised command name: "123 (sleep) Z ...".
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .is_some_and(|s| s.trim_start().starts_with('Z')) =>
            {
                return true;
            }
            Ok(_) => {}
        }
        if start.elapsed() > within {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Waits for a file holding a process id, written by the command under test.
pub(crate) async fn read_pid(path: &std::path::Path) -> u32 {
    let start = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(path)
            && let Ok(pid) = text.trim().parse::<u32>()
        {
            return pid;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no pid in {}",
            path.display()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
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
