//! The security core of the Bash tool: understanding a shell command before running it.
//!
//! [`analyze`] parses a command line with tree-sitter-bash and reports every simple command it would
//! run (including those inside substitutions, loops, functions and `bash -c`/`eval` scripts), which
//! files its redirections write, and whether each command only reads. The walk accepts an allow-list
//! of syntax; anything else makes the command "not understood", and the permission resolver must
//! then ask (checking deny rules against [`fallback_segments`]).

mod analysis;
mod analyze;
mod arithmetic;
mod awk_program;
mod background;
mod classify;
mod cwd;
mod destructive;
mod editor_terminal;
mod edits;
mod env_names;
mod fallback;
mod file_options;
mod git;
mod image;
mod limits;
mod options;
mod process;
mod prompt;
mod reasons;
mod render;
mod run;
mod runners;
mod sandbox_notes;
mod sed;
mod sed_edit;
mod sed_script;
mod spool;
mod stream;
mod subject;
mod task_report;
pub mod terminal_text;
mod tool;
mod walker;
mod words;
mod wrappers;
mod writes;

#[cfg(test)]
mod property_tests;
#[cfg(test)]
mod sed_tests;
#[cfg(test)]
mod table_tests;
#[cfg(test)]
mod test_util;
#[cfg(test)]
mod tool_tests;

pub use analysis::{CommandAnalysis, CommandClass, LoopValues, RunTimeWords, SimpleCommand};
pub use analyze::{analyze, analyze_shared};
pub use background::{BackgroundTasks, TaskInfo, TaskStatus};
pub use destructive::is_destructive;
pub use fallback::{fallback_segments, fallback_words};
pub use limits::MAX_RESULT_CHARS;
pub use sed_edit::{SimulatedFile, SimulatedSedEdit};
pub use subject::shell_subject;
pub use task_report::task_report;
pub use tool::{BashInput, BashTool};
