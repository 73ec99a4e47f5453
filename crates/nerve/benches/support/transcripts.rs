//! What the session benchmarks share: their size, scaled down by `NERVE_BENCH_SCALE` (the test
//! command's short run uses 50), and messages written as the API's JSON. Shared by `session_list`
//! and `session_search`.
#![allow(dead_code)] // each benchmark uses the part it needs

use nerve::model::types::{ContentBlock, Message, Role};

/// `full` divided by `NERVE_BENCH_SCALE`, at least 2.
pub fn scaled(full: usize) -> usize {
    let scale = std::env::var("NERVE_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n: &usize| *n > 0)
        .unwrap_or(1);
    (full / scale).max(2)
}

/// A message of `role` with `blocks` in the API's JSON.
pub fn message(role: Role, blocks: serde_json::Value) -> Message {
    let content: Vec<ContentBlock> = serde_json::from_value(blocks).expect("blocks in the API's shape");
    Message { role, content }
}
