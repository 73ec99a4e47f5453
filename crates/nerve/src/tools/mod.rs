//! Built-in tools, one module each.

pub mod bash;
pub mod task_output;
pub mod task_stop;

#[cfg(feature = "test-tools")]
pub mod testing;
