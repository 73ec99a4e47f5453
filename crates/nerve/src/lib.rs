//! Nerve's engine: the tool system of a coding agent, independent of any user interface.
//!
//! A tool call takes one path ([`pipeline`]): lookup, coercion and validation ([`input`]),
//! hooks ([`hooks`]), permissions ([`permissions`]), the call, result budgeting ([`budget`]) and
//! error classification ([`errors`]). The [`executor`] runs a turn's calls in batches while the
//! model is still streaming, and hands results back in request order. Front-ends consume
//! [`events::Event`]s and answer permission requests.

pub mod agent;
pub mod budget;
pub mod checkpoint;
pub mod credentials;
pub mod errors;
pub mod events;
pub mod executor;
pub mod fuzz;
pub mod hooks;
pub mod http;
pub mod input;
pub mod mcp;
pub mod model;
pub mod outputs;
pub mod permissions;
pub mod pipeline;
pub mod project;
pub mod project_files;
pub mod registry;
pub mod sandbox;
pub mod session;
pub mod settings_view;
pub mod slash_commands;
pub mod storage;
pub mod tool;
pub mod tools;
