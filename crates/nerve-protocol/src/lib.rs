//! The types Nerve's front-ends exchange with its engine: the events of a session, permission
//! prompts and answers, tool progress and results, the task list, sandbox states and file diffs,
//! and what front-ends read on request: the open session, transcripts, persisted outputs, change
//! sets and rewinds.
//!
//! This crate is the bottom of the workspace: it depends on no other Nerve crate, so a front-end
//! (the desktop shell, the CLI, a test) can speak to the engine in these types alone, and the
//! TypeScript bindings the desktop UI uses are generated from them (feature `ts`).

pub mod checkpoint;
pub mod definitions;
pub mod diff;
pub mod event;
pub mod message;
mod mode;
pub mod outputs;
pub mod permission;
pub mod preview;
pub mod prompt;
pub mod release;
pub mod rewind;
pub mod sandbox;
pub mod session;
pub mod settings;
pub mod tasks;
mod todo;
pub mod tool;
pub mod transcripts;
pub mod workspace;

pub use diff::{ChangeKind, DiffHunk, DiffLine, DiffTag, FileDiff, InlineSpan};
pub use event::{Event, RetryReason, TurnEnd};
pub use message::{AssistantWords, HistoryMessage, MessageImage, PastToolResult, PastToolUse, UserWords};
pub use permission::{
    DecidedBy, Evaluation, MatchedRule, PartDecision, PartVerdict, PermissionMode, PermissionRequest,
    RuleBehavior, RuleScope, RuleSource, UnknownModeError, UserAnswer, Verdict,
};
pub use preview::{PermissionPreview, SedFileChange};
pub use sandbox::{SandboxRefusal, SandboxState};
pub use tool::{EditableField, Progress, ResultBlock, TodoItem, TodoStatus, ToolKind};
