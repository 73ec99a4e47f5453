//! The tool contract: what every tool, built-in or external, tells the engine about itself.
//!
//! The trait's default methods are the one place where fail-closed defaults live (Claude Code's
//! `buildTool` idea): a tool that says nothing about concurrency is run alone, a tool that says
//! nothing about writing is treated as a writer, and its calls go to the general permission system.

mod context;
mod dyn_tool;
pub mod editor;
mod extensions;
mod pool;
mod prepared;
mod progress;
mod read_state;
mod result;
mod schema;
mod subagent;
pub mod tasks;

pub use crate::checkpoint::FileEffect;
pub use crate::permissions::ToolPermission;
pub use context::{AgentIdentity, ExecutionState, SessionConfig, ToolUseContext, UiCallbacks};
pub use dyn_tool::{DynTool, ToolRef};
pub use editor::{Editor, EditorError};
pub use extensions::SessionExtensions;
pub use nerve_protocol::PermissionPreview;
pub use nerve_protocol::tool::{TodoItem, TodoStatus};
pub use pool::{ToolPool, ToolSpec, is_deferrable};
pub use prepared::{PreparedInput, TypeError};
pub use progress::{Progress, ProgressSink};
pub use read_state::{FileReadRecord, MAX_HASHED_BYTES, ReadFileState, SeenContent};
pub use result::{ContextModifier, NewMessage, ResultBlock, ToolError, ToolOutput, text_of};
pub use schema::schema_of;
pub use subagent::{EXPLORE_TOOLS, SubagentError, SubagentKind, SubagentReport, SubagentRunner};

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::permissions::PermissionSubject;

/// Where a tool comes from. External tools share the pipeline but are sorted after built-ins so the
/// prompt-cache prefix (the built-in tool list) stays stable when external servers change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOrigin {
    /// Shipped with the engine.
    BuiltIn,
    /// Provided by an MCP server (names look like `mcp__server__tool`).
    Mcp,
}

/// What happens to a running call when the user sends a new message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum InterruptBehavior {
    /// The call is cancelled and answered with an "interrupted" result.
    Cancel,
    /// The new message waits until the call finishes.
    Block,
}

/// Outcome of a tool's semantic input check.
pub type Validation = Result<(), String>;

/// What a tool shows in the permission dialog beyond the input, and what the engine adds to the input
/// when the user approves (for example a simulated `sed -i` edit: the user sees the diff, and what
/// runs is exactly the previewed content).
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalPreview {
    /// Shown to the user (goes into [`crate::permissions::PermissionRequest::preview`]).
    pub display: PermissionPreview,
    /// Engine-only input fields (named in [`Tool::engine_only_fields`]) merged into the input that
    /// runs once the user approves the unchanged input.
    pub engine_input: serde_json::Map<String, Value>,
}

/// The typed tool contract. Implement this; the engine uses it through [`DynTool`].
///
/// Every method with a body is a default chosen to fail closed where it matters for safety.
#[async_trait]
pub trait Tool: Send + Sync + 'static {
    /// The input type. Its JSON Schema (via schemars) is what the model sees and what the input is
    /// validated against.
    type Input: DeserializeOwned + Serialize + JsonSchema + Clone + Send + Sync + 'static;

    /// The name the model calls the tool by.
    fn name(&self) -> &str;

    /// Older names still accepted (transcripts from before a rename).
    fn aliases(&self) -> &[&str] {
        &[]
    }

    /// What the model reads to decide when and how to use the tool: concrete, with limits and examples.
    fn description(&self) -> String;

    /// The JSON Schema of the input sent to the API. Derived from [`Tool::Input`] unless the tool
    /// brings its own (external tools do).
    fn input_schema(&self) -> Value {
        schema_of::<Self::Input>()
    }

    /// Results longer than this are persisted to disk and replaced by a preview. `None` means never
    /// persist (Read bounds itself instead: persisting it would make the model read the persisted file,
    /// which could again be too large, forever).
    fn max_result_size_chars(&self) -> Option<usize> {
        Some(50_000)
    }

    /// Where the tool comes from.
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::BuiltIn
    }

    /// Whether the tool is available at all right now.
    fn is_enabled(&self) -> bool {
        true
    }

    /// Whether this input may run in parallel with other concurrency-safe calls. Default: no.
    fn is_concurrency_safe(&self, _input: &Self::Input) -> bool {
        false
    }

    /// Whether this input only reads. Default: no, treated as a write.
    fn is_read_only(&self, _input: &Self::Input) -> bool {
        false
    }

    /// Whether this input destroys data (deletes, overwrites). Shown to the user. Relative paths are
    /// judged against `cwd`, and overwrites against the files there now.
    fn is_destructive(&self, _input: &Self::Input, _cwd: &std::path::Path) -> bool {
        false
    }

    /// Whether this input runs in the sandbox (shown on the card and in the permission dialog);
    /// `None` for tools the sandbox does not concern.
    fn sandbox_state(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> Option<crate::sandbox::SandboxState> {
        None
    }

    /// Semantic checks beyond the schema (a no-op edit, a device path...). The error goes to the model.
    async fn validate_input(&self, _input: &Self::Input, _ctx: &ToolUseContext) -> Validation {
        Ok(())
    }

    /// Adds derived fields (absolute paths...) to a clone of the input that hooks and permission
    /// checks observe; the original input still goes to [`Tool::call`].
    fn backfill_observable_input(&self, _input: &mut Self::Input, _ctx: &ToolUseContext) {}

    /// What permission rules match against for this input. Default: nothing but the bare tool name.
    fn permission_subject(&self, _input: &Self::Input, _ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Opaque
    }

    /// Tool-specific permission opinion. Default: no objection, the general system decides.
    async fn check_permissions(&self, _input: &Self::Input, _ctx: &ToolUseContext) -> ToolPermission {
        ToolPermission::Passthrough
    }

    /// A preview for the permission dialog, computed only when the user is about to be asked. Default:
    /// none, the dialog shows the input.
    async fn permission_preview(
        &self,
        _input: &Self::Input,
        _ctx: &ToolUseContext,
    ) -> Option<ApprovalPreview> {
        None
    }

    /// Runs the tool. Progress goes through `progress`; the context is read-only, changes to it are
    /// returned as a [`ContextModifier`] inside the output.
    async fn call(
        &self,
        input: Self::Input,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError>;

    /// Sent to the API with only name and description until the model loads it via tool search.
    fn should_defer(&self) -> bool {
        false
    }

    /// Never deferred, even when deferral is on for its group.
    fn always_load(&self) -> bool {
        false
    }

    /// What kind of work the tool does: front-ends choose its card, icon and dialog by it, never by
    /// its name. Default: other.
    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Other
    }

    /// The input field the user may edit before allowing a call. Default: none.
    fn editable_field(&self) -> Option<nerve_protocol::EditableField> {
        None
    }

    /// The name shown to the user.
    fn user_facing_name(&self, _input: Option<&Self::Input>) -> String {
        self.name().to_string()
    }

    /// One line describing this call for the UI ("Read src/main.rs · lines 1–200").
    fn summary(&self, _input: &Self::Input, _cwd: &std::path::Path) -> String {
        String::new()
    }

    /// What happens when the user interrupts while this tool runs. Default: the message waits.
    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Block
    }

    /// Whether a failure of this tool in a parallel batch cancels the batch's running calls
    /// (shell commands in one batch often depend on each other; reads do not). Default: no.
    fn cancels_siblings_on_failure(&self) -> bool {
        false
    }

    /// Whether this tool starts sub-agents (they get every tool of their parent but these, so a
    /// child never starts children). Default: no.
    fn starts_subagents(&self) -> bool {
        false
    }

    /// Compact text the auto-mode classifier judges. Empty means the classifier skips the call and the
    /// general permission system handles it.
    fn classifier_input(&self, _input: &Self::Input) -> String {
        String::new()
    }

    /// The files this input may change, for checkpoints. Default: none for a read-only input, any
    /// file otherwise (fail closed: an unknown writer is watched as a shell command is).
    fn file_effect(&self, input: &Self::Input, _ctx: &ToolUseContext) -> FileEffect {
        if self.is_read_only(input) {
            FileEffect::None
        } else {
            FileEffect::Opaque { outlives_call: false }
        }
    }

    /// Input fields only the engine may set (for example a precomputed sed edit). They are stripped from
    /// model-provided input before anything else looks at it.
    fn engine_only_fields(&self) -> &[&str] {
        &[]
    }
}
