//! Running a turn's tool calls: partitioning into batches (consecutive concurrency-safe calls run
//! together, anything else alone) and the streaming executor that starts each call as soon as its
//! `tool_use` block is complete, while the model is still writing.

mod partition;
mod streaming;

pub use partition::{Batch, call_is_concurrency_safe, input_is_concurrency_safe, partition};
pub use streaming::{DEFAULT_MAX_CONCURRENCY, ExecutorOptions, StreamingExecutor};
