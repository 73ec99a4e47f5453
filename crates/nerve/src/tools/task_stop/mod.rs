//! TaskStop: stopping a background command and everything it started.

mod tool;

pub use tool::{TaskStopInput, TaskStopTool};
