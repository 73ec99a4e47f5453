//! The object-safe face of [`Tool`] the registry, pipeline and executor work with. A call's JSON
//! input is read into the tool's typed input once ([`DynTool::prepare`]); every other method takes
//! that [`PreparedInput`], and an input without the tool's type gets the fail-closed answer (not
//! safe, not read-only, ask).

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::permissions::PermissionSubject;
use crate::tool::{
    ApprovalPreview, FileEffect, InterruptBehavior, PreparedInput, ProgressSink, Tool, ToolError, ToolOrigin,
    ToolOutput, ToolPermission, ToolUseContext, Validation,
};

/// A shared handle to a tool.
pub type ToolRef = Arc<dyn DynTool>;

/// [`Tool`] with JSON inputs, usable as a trait object.
#[async_trait]
pub trait DynTool: Send + Sync {
    /// See [`Tool::name`].
    fn name(&self) -> &str;
    /// See [`Tool::aliases`].
    fn aliases(&self) -> &[&str];
    /// See [`Tool::description`].
    fn description(&self) -> String;
    /// See [`Tool::input_schema`].
    fn input_schema(&self) -> Value;
    /// See [`Tool::max_result_size_chars`].
    fn max_result_size_chars(&self) -> Option<usize>;
    /// See [`Tool::origin`].
    fn origin(&self) -> ToolOrigin;
    /// See [`Tool::is_enabled`].
    fn is_enabled(&self) -> bool;
    /// See [`Tool::should_defer`].
    fn should_defer(&self) -> bool;
    /// See [`Tool::always_load`].
    fn always_load(&self) -> bool;
    /// See [`Tool::interrupt_behavior`].
    fn interrupt_behavior(&self) -> InterruptBehavior;
    /// See [`Tool::cancels_siblings_on_failure`].
    fn cancels_siblings_on_failure(&self) -> bool;
    /// See [`Tool::starts_subagents`].
    fn starts_subagents(&self) -> bool;
    /// See [`Tool::engine_only_fields`].
    fn engine_only_fields(&self) -> &[&str];
    /// Reads `input` into the tool's typed input, once per input; whether it has the tool's type is
    /// [`PreparedInput::type_error`].
    fn prepare(&self, input: Value) -> PreparedInput;
    /// See [`Tool::is_concurrency_safe`]; false when the input does not parse.
    fn is_concurrency_safe(&self, input: &PreparedInput) -> bool;
    /// See [`Tool::is_read_only`]; false when the input does not parse.
    fn is_read_only(&self, input: &PreparedInput) -> bool;
    /// See [`Tool::is_destructive`]; false when the input does not parse (it cannot run then).
    fn is_destructive(&self, input: &PreparedInput, cwd: &std::path::Path) -> bool;
    /// See [`Tool::sandbox_state`]; none when the input does not parse.
    fn sandbox_state(
        &self,
        input: &PreparedInput,
        ctx: &ToolUseContext,
    ) -> Option<crate::sandbox::SandboxState>;
    /// See [`Tool::validate_input`].
    async fn validate_input(&self, input: &PreparedInput, ctx: &ToolUseContext) -> Validation;
    /// See [`Tool::backfill_observable_input`]: returns the observable clone (typed, and serialised
    /// from it, never read back).
    fn backfill_observable_input(&self, input: &PreparedInput, ctx: &ToolUseContext) -> PreparedInput;
    /// See [`Tool::permission_subject`].
    fn permission_subject(&self, input: &PreparedInput, ctx: &ToolUseContext) -> PermissionSubject;
    /// See [`Tool::file_effect`]; an input that does not parse may change anything.
    fn file_effect(&self, input: &PreparedInput, ctx: &ToolUseContext) -> FileEffect;
    /// See [`Tool::check_permissions`]; ask when the input does not parse.
    async fn check_permissions(&self, input: &PreparedInput, ctx: &ToolUseContext) -> ToolPermission;
    /// See [`Tool::permission_preview`]; none when the input does not parse.
    async fn permission_preview(
        &self,
        input: &PreparedInput,
        ctx: &ToolUseContext,
    ) -> Option<ApprovalPreview>;
    /// See [`Tool::call`].
    async fn call(
        &self,
        input: PreparedInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError>;
    /// See [`Tool::user_facing_name`].
    fn user_facing_name(&self, input: Option<&PreparedInput>) -> String;
    /// See [`Tool::kind`].
    fn kind(&self) -> nerve_protocol::ToolKind;
    /// See [`Tool::editable_field`].
    fn editable_field(&self) -> Option<nerve_protocol::EditableField>;
    /// See [`Tool::summary`].
    fn summary(&self, input: &PreparedInput, cwd: &std::path::Path) -> String;
    /// See [`Tool::classifier_input`].
    fn classifier_input(&self, input: &PreparedInput) -> String;
}

fn typed<T: Tool>(input: &PreparedInput) -> Result<&T::Input, crate::tool::TypeError> {
    input.get::<T::Input>()
}

#[async_trait]
impl<T: Tool> DynTool for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }
    fn aliases(&self) -> &[&str] {
        Tool::aliases(self)
    }
    fn description(&self) -> String {
        Tool::description(self)
    }
    fn input_schema(&self) -> Value {
        Tool::input_schema(self)
    }
    fn max_result_size_chars(&self) -> Option<usize> {
        Tool::max_result_size_chars(self)
    }
    fn origin(&self) -> ToolOrigin {
        Tool::origin(self)
    }
    fn is_enabled(&self) -> bool {
        Tool::is_enabled(self)
    }
    fn should_defer(&self) -> bool {
        Tool::should_defer(self)
    }
    fn always_load(&self) -> bool {
        Tool::always_load(self)
    }
    fn interrupt_behavior(&self) -> InterruptBehavior {
        Tool::interrupt_behavior(self)
    }
    fn cancels_siblings_on_failure(&self) -> bool {
        Tool::cancels_siblings_on_failure(self)
    }
    fn starts_subagents(&self) -> bool {
        Tool::starts_subagents(self)
    }
    fn engine_only_fields(&self) -> &[&str] {
        Tool::engine_only_fields(self)
    }
    fn prepare(&self, input: Value) -> PreparedInput {
        PreparedInput::parse::<T::Input>(input)
    }
    fn is_concurrency_safe(&self, input: &PreparedInput) -> bool {
        typed::<T>(input)
            .map(|i| Tool::is_concurrency_safe(self, i))
            .unwrap_or(false)
    }
    fn is_read_only(&self, input: &PreparedInput) -> bool {
        typed::<T>(input)
            .map(|i| Tool::is_read_only(self, i))
            .unwrap_or(false)
    }
    fn is_destructive(&self, input: &PreparedInput, cwd: &std::path::Path) -> bool {
        typed::<T>(input)
            .map(|i| Tool::is_destructive(self, i, cwd))
            .unwrap_or(false)
    }
    fn sandbox_state(
        &self,
        input: &PreparedInput,
        ctx: &ToolUseContext,
    ) -> Option<crate::sandbox::SandboxState> {
        typed::<T>(input)
            .ok()
            .and_then(|i| Tool::sandbox_state(self, i, ctx))
    }
    async fn validate_input(&self, input: &PreparedInput, ctx: &ToolUseContext) -> Validation {
        let typed = typed::<T>(input).map_err(|e| e.to_string())?;
        Tool::validate_input(self, typed, ctx).await
    }
    fn backfill_observable_input(&self, input: &PreparedInput, ctx: &ToolUseContext) -> PreparedInput {
        let Ok(typed) = typed::<T>(input) else {
            return input.clone();
        };
        let mut observable = typed.clone();
        Tool::backfill_observable_input(self, &mut observable, ctx);
        match serde_json::to_value(&observable) {
            Ok(json) => PreparedInput::typed(json, observable),
            Err(_) => input.clone(),
        }
    }
    fn permission_subject(&self, input: &PreparedInput, ctx: &ToolUseContext) -> PermissionSubject {
        match typed::<T>(input) {
            Ok(typed) => Tool::permission_subject(self, typed, ctx),
            Err(_) => PermissionSubject::Opaque,
        }
    }
    fn file_effect(&self, input: &PreparedInput, ctx: &ToolUseContext) -> FileEffect {
        match typed::<T>(input) {
            Ok(typed) => Tool::file_effect(self, typed, ctx),
            Err(_) => FileEffect::Opaque { outlives_call: false },
        }
    }
    async fn check_permissions(&self, input: &PreparedInput, ctx: &ToolUseContext) -> ToolPermission {
        match typed::<T>(input) {
            Ok(typed) => Tool::check_permissions(self, typed, ctx).await,
            Err(e) => ToolPermission::Ask {
                reason: format!("the input could not be understood: {e}"),
            },
        }
    }
    async fn permission_preview(
        &self,
        input: &PreparedInput,
        ctx: &ToolUseContext,
    ) -> Option<ApprovalPreview> {
        let typed = typed::<T>(input).ok()?;
        Tool::permission_preview(self, typed, ctx).await
    }
    async fn call(
        &self,
        input: PreparedInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let typed = input
            .into_typed::<T::Input>()
            .map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        Tool::call(self, typed, ctx, progress).await
    }
    fn user_facing_name(&self, input: Option<&PreparedInput>) -> String {
        let typed = input.and_then(|v| typed::<T>(v).ok());
        Tool::user_facing_name(self, typed)
    }
    fn kind(&self) -> nerve_protocol::ToolKind {
        Tool::kind(self)
    }
    fn editable_field(&self) -> Option<nerve_protocol::EditableField> {
        Tool::editable_field(self)
    }
    fn summary(&self, input: &PreparedInput, cwd: &std::path::Path) -> String {
        typed::<T>(input)
            .map(|i| Tool::summary(self, i, cwd))
            .unwrap_or_default()
    }
    fn classifier_input(&self, input: &PreparedInput) -> String {
        typed::<T>(input)
            .map(|i| Tool::classifier_input(self, i))
            .unwrap_or_default()
    }
}
