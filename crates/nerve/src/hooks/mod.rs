//! Command hooks: user scripts that run at lifecycle points (before a tool call, after it, when a
//! prompt is submitted...) and can allow, deny, rewrite, block or add context.
//!
//! Compatible with Claude Code's hooks, so existing settings and scripts work unchanged: the same
//! settings shape, the same event names, the same stdin JSON, the same exit-code and stdout conventions.
//!
//! Layers, each in its own file:
//! - [`config`] parses and merges the `hooks` sections of settings files ([`matcher`] for `matcher`);
//! - [`input`] and [`output`] are the wire types a hook reads and writes;
//! - [`runner`] runs the matching hooks in parallel (`command_run` runs one, in its own process group);
//! - [`interpret`] reads one hook's exit code and output, [`outcome`] folds all of them into one answer.

pub mod capture;
mod command_run;
pub mod config;
pub mod config_error;
pub mod event;
pub mod execution;
pub mod input;
pub mod interpret;
pub mod matcher;
pub mod outcome;
pub mod output;
pub mod runner;

pub use config::{CommandHook, DEFAULT_HOOK_TIMEOUT, HookConfig, HookGroup};
pub use config_error::{HookConfigError, HookConfigErrors, HookConfigProblem};
pub use event::{HookEvent, MatchTargetKind};
pub use execution::{HookEnding, HookExecution};
pub use input::{HookEventInput, HookInput};
pub use interpret::{HookFailure, HookReply};
pub use matcher::{HookMatcher, InvalidMatcher};
pub use outcome::{Attributed, BlockVia, HookBlock, HookOrigin, HookOutcome, HookStop, PermissionVerdict};
pub use output::{HookOutput, Verdict};
pub use runner::{HookRunReport, run_hooks};
