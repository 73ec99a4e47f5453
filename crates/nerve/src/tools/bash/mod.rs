//! The security core of the Bash tool: understanding a shell command before running it.
//!
//! [`analyze`] parses a command line with tree-sitter-bash and reports every simple command it would
//! run (including those inside substitutions, loops, functions and `bash -c`/`eval` scripts), which
//! files its redirections write, and whether each command only reads. The walk accepts an allow-list
//! of syntax; anything else makes the command "not understood", and the permission resolver must
//! then ask (checking deny rules against [`fallback_segments`]).

mod analysis;
mod analyze;
mod classify;
mod env_names;
mod fallback;
mod git;
mod options;
mod subject;
mod walker;
mod words;
mod wrappers;

#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod table_tests;

pub use analysis::{CommandAnalysis, CommandClass, SimpleCommand};
pub use analyze::analyze;
pub use fallback::{fallback_segments, fallback_words};
pub use subject::shell_subject;
