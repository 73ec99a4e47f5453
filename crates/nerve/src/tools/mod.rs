//! Built-in tools, one module each.

pub mod agent;
pub mod bash;
pub mod edit;
pub mod enter_plan_mode;
pub mod exit_plan_mode;
pub mod fs;
pub mod glob;
pub mod grep;
pub mod memory;
pub mod notebook_edit;
pub mod read;
pub mod search_progress;
pub mod skill;
pub mod task_output;
pub mod task_stop;
pub mod todo_write;
pub mod tool_search;
pub mod walk;
pub mod web_fetch;
pub mod web_search;
pub mod write;

#[cfg(test)]
mod adding_a_tool_example;
#[cfg(test)]
pub(crate) mod test_support;
#[cfg(feature = "test-tools")]
pub mod testing;
