//! One module per area of behaviour; see each module's own documentation.

mod agent_loop;
mod bash_permissions;
mod bash_tool;
mod batch_approval;
mod classifier;
mod definitions;
mod executor;
mod file_tools;
mod hooks_pipeline;
mod mcp;
mod mcp_settings;
mod model_choice;
mod model_client;
mod pipeline;
mod plan_mode;
mod plan_writes;
mod rewind;
mod sandbox_guards;
mod sandbox_network;
mod search_reach;
mod search_tools;
mod system_prompt;
mod tasks;
mod tool_search;
mod web_fetch;
mod worktrees;
