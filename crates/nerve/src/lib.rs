//! Nerve's engine: the tool system of a coding agent, independent of any user interface.
//!
//! A tool call takes one path ([`pipeline`]): lookup, coercion and validation (`input`),
//! hooks ([`hooks`]), permissions ([`permissions`]), the call, result budgeting ([`budget`]) and
//! error classification ([`errors`]). The [`executor`] runs a turn's calls in batches while the
//! model is still streaming, and hands results back in request order. Front-ends consume
//! [`events::Event`]s and answer permission requests; those types live in the `nerve-protocol`
//! crate, below this one.
//!
//! # Layers
//!
//! Each module imports only modules of lower layers (the same layer does not count as lower), so
//! nothing below knows what is built on it: the tool contract names no tool, permissions never call
//! up into the pipeline or the loop. This table is the one statement of the layers; a test
//! (`layers.rs`) reads it and fails on any `crate::` path that points up or sideways, and on a
//! module missing from it.
//!
//! | Layer | Modules | What they are |
//! |---|---|---|
//! | 0 | `engine_env` | what the engine takes from the process environment, read once where a front-end starts |
//! | 1 | `storage` `files` `process_group` `child_env` `protected_paths` | the ground: disk, atomic writes and hashes, process groups, the user's environment for the processes started for them, the paths that make later programs run code |
//! | 2 | `http` `input` `hooks` `sandbox` `slash_commands` `definitions` `project_files` `events` `git_command` | foundations: HTTP, input checking, hook processes, the sandbox, agent and skill definitions, the event sink, git run so that a repository's configuration runs nothing |
//! | 3 | `model` `worktree` `release_feed` | the Messages API client; a session's own git worktree, landed or thrown away; whether a newer Nerve exists |
//! | 4 | `credentials` `permissions` `checkpoint` | the API key; rules, modes and evaluation; file checkpoints |
//! | 5 | `tool` `settings` | the tool contract (and the small traits it needs: sub-agents, the small model); settings files from every source |
//! | 6 | `tools` `budget` `errors` | the built-in tools; result budgets; error classification |
//! | 7 | `registry` `transcripts` | the list of tools and the pool; what sessions leave on disk |
//! | 8 | `pipeline` `outputs` | one path for every call (with the resolver that asks); persisted outputs |
//! | 9 | `executor` `mcp` | batches and streaming; MCP servers as tool providers |
//! | 10 | `project` | the facade front-ends start from |
//! | 11 | `agent` | the agent loop, sub-agents, compaction, rewind |
//! | 12 | `settings_view` `fuzz` | settings screens; fuzz targets |
//! | 13 | `session` | the front door: a live session, the one object a front-end holds |

pub mod agent;
pub mod budget;
pub mod checkpoint;
pub mod child_env;
pub mod credentials;
pub mod definitions;
pub(crate) mod engine_env;
pub mod errors;
pub mod events;
pub mod executor;
pub mod files;
pub mod fuzz;
pub mod git_command;
pub mod hooks;
pub mod http;
pub(crate) mod input;
pub mod mcp;
pub mod model;
pub mod outputs;
pub mod permissions;
pub mod pipeline;
pub(crate) mod process_group;
pub mod project;
pub mod project_files;
pub(crate) mod protected_paths;
pub mod registry;
pub mod release_feed;
pub mod sandbox;
pub mod session;
pub mod settings;
pub mod settings_view;
pub mod slash_commands;
pub(crate) mod storage;
pub mod tool;
pub mod tools;
pub mod transcripts;
pub mod worktree;

pub use engine_env::EngineEnv;
pub use project::Project;
pub use session::Session;

#[cfg(test)]
mod front_door;
#[cfg(test)]
mod layers;
