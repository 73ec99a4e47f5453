//! Built-in tools, one module each.

pub mod bash;
pub mod enter_plan_mode;
pub mod exit_plan_mode;
pub mod tool_search;
pub mod web_fetch;

#[cfg(feature = "test-tools")]
pub mod testing;
