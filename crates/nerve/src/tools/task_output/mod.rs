//! TaskOutput: the output of a background command so far, or after waiting for it to finish.

mod tool;

pub use tool::{TaskOutputInput, TaskOutputTool};
