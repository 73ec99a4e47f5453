//! One module per area of behaviour; see each module's own documentation.

mod acp;
mod auto_mode;
mod cli;
mod definitions;
mod first_errors;
mod keyring;
mod mcp;
mod memory;
mod print_mode;
mod providers;
mod worktree;
