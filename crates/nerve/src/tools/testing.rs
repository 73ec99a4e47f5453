//! Test tools that exercise the pipeline and executor: slow, failing, context-modifying,
//! progress-emitting, large-output, file-writing and a broken safety predicate. They stand in for
//! the real built-in tools in the engine's own tests and benchmarks, and are offered to the model
//! only when `NERVE_TEST_TOOLS=1`.

use std::path::PathBuf;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::{Access, PermissionMode, PermissionSubject, switch_mode};
use crate::tool::{
    ContextModifier, ProgressSink, Tool, ToolError, ToolOutput, ToolRef, ToolUseContext, Validation,
};

/// Every test tool.
pub fn all_test_tools() -> Vec<ToolRef> {
    vec![
        std::sync::Arc::new(SleepTool),
        std::sync::Arc::new(EchoTool),
        std::sync::Arc::new(SetModeTool),
        std::sync::Arc::new(SetCwdTool),
        std::sync::Arc::new(ProgressTool),
        std::sync::Arc::new(BigOutputTool),
        std::sync::Arc::new(TouchTool),
        std::sync::Arc::new(PanickySafetyTool),
        std::sync::Arc::new(NoopTool),
    ]
}

/// Input of [`SleepTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SleepInput {
    /// How long to sleep, in milliseconds.
    pub ms: u64,
    /// Whether the call may run in parallel (and counts as read-only).
    #[serde(default = "yes")]
    pub safe: bool,
    /// Fail after sleeping.
    #[serde(default)]
    pub fail: bool,
    /// Text to return.
    #[serde(default)]
    pub output: Option<String>,
}

fn yes() -> bool {
    true
}

/// Sleeps, honouring cancellation; optionally fails. Named `TestSleep`.
#[derive(Debug)]
pub struct SleepTool;

#[async_trait]
impl Tool for SleepTool {
    type Input = SleepInput;
    fn name(&self) -> &str {
        "TestSleep"
    }
    fn aliases(&self) -> &[&str] {
        &["TestNap"]
    }
    fn description(&self) -> String {
        "Sleeps for `ms` milliseconds and returns `output` (or \"slept N ms\"). Test tool.".into()
    }
    /// It stands in for Bash in the executor's tests.
    fn cancels_siblings_on_failure(&self) -> bool {
        true
    }

    fn is_concurrency_safe(&self, input: &SleepInput) -> bool {
        input.safe
    }
    fn is_read_only(&self, input: &SleepInput) -> bool {
        input.safe
    }
    fn summary(&self, input: &SleepInput, _cwd: &std::path::Path) -> String {
        format!("{} ms", input.ms)
    }
    async fn call(
        &self,
        input: SleepInput,
        ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(input.ms)) => {}
            () = ctx.exec.cancel.cancelled() => return Err(ToolError::Cancelled("sleep interrupted".into())),
        }
        if input.fail {
            return Err(ToolError::Failed(format!(
                "failed after {} ms as asked",
                input.ms
            )));
        }
        Ok(ToolOutput::text(
            input.output.unwrap_or_else(|| format!("slept {} ms", input.ms)),
        ))
    }
}

/// Input of [`EchoTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct EchoInput {
    /// Text to return.
    pub text: String,
    /// How many times.
    #[serde(default)]
    pub times: Option<u32>,
}

/// Returns its input; read-only and concurrency-safe. Named `TestEcho`.
#[derive(Debug)]
pub struct EchoTool;

#[async_trait]
impl Tool for EchoTool {
    type Input = EchoInput;
    fn name(&self) -> &str {
        "TestEcho"
    }
    fn description(&self) -> String {
        "Returns `text` repeated `times` times. Test tool.".into()
    }
    fn is_concurrency_safe(&self, _: &EchoInput) -> bool {
        true
    }
    fn is_read_only(&self, _: &EchoInput) -> bool {
        true
    }
    fn summary(&self, input: &EchoInput, _cwd: &std::path::Path) -> String {
        input.text.chars().take(40).collect()
    }
    fn classifier_input(&self, input: &EchoInput) -> String {
        format!("echo {}", input.text)
    }
    async fn validate_input(&self, input: &EchoInput, _ctx: &ToolUseContext) -> Validation {
        if input.times == Some(0) {
            return Err("`times` must be at least 1: echoing zero times would return nothing.".into());
        }
        Ok(())
    }
    async fn call(
        &self,
        input: EchoInput,
        _ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(
            input.text.repeat(input.times.unwrap_or(1) as usize),
        ))
    }
}

/// Input of [`SetModeTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SetModeInput {
    /// The permission mode to switch to (`default`, `acceptEdits`, `plan`...).
    pub mode: String,
    /// Whether the call is concurrency-safe (to test queued modifiers).
    #[serde(default)]
    pub safe: bool,
    /// Sleep before returning, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
}

/// Switches the permission mode through a context modifier. Named `TestSetMode`.
#[derive(Debug)]
pub struct SetModeTool;

#[async_trait]
impl Tool for SetModeTool {
    type Input = SetModeInput;
    fn name(&self) -> &str {
        "TestSetMode"
    }
    fn description(&self) -> String {
        "Switches the session's permission mode. Test tool.".into()
    }
    fn is_concurrency_safe(&self, input: &SetModeInput) -> bool {
        input.safe
    }
    fn is_read_only(&self, _: &SetModeInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: SetModeInput,
        ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(input.delay_ms)).await;
        let seen = ctx.permissions.mode;
        let mode: PermissionMode = input
            .mode
            .parse()
            .map_err(|e| ToolError::InvalidInput(format!("{e}")))?;
        // The checked switch, as any other mode change: settings that disable bypassPermissions
        // hold for test tools too. Checked now for the model's answer, and again when applied.
        let mut probe = ctx.permissions.clone();
        switch_mode(&mut probe, mode).map_err(|refused| ToolError::InvalidInput(refused.to_string()))?;
        Ok(
            ToolOutput::text(format!("mode was {seen}, now {mode}")).with_context_modifier(
                ContextModifier::new(move |mut c: ToolUseContext| {
                    if let Err(refused) = switch_mode(&mut c.permissions, mode) {
                        tracing::warn!(%refused, "TestSetMode's switch was refused when applied");
                    }
                    c
                }),
            ),
        )
    }
}

/// Input of [`SetCwdTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct SetCwdInput {
    /// The new working directory.
    pub path: String,
    /// Whether the call is concurrency-safe.
    #[serde(default)]
    pub safe: bool,
    /// Sleep before returning, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
}

/// Changes the working directory through a context modifier and reports the one it saw. Named
/// `TestSetCwd`.
#[derive(Debug)]
pub struct SetCwdTool;

#[async_trait]
impl Tool for SetCwdTool {
    type Input = SetCwdInput;
    fn name(&self) -> &str {
        "TestSetCwd"
    }
    fn description(&self) -> String {
        "Changes the working directory. Test tool.".into()
    }
    fn is_concurrency_safe(&self, input: &SetCwdInput) -> bool {
        input.safe
    }
    fn is_read_only(&self, _: &SetCwdInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: SetCwdInput,
        ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        tokio::time::sleep(Duration::from_millis(input.delay_ms)).await;
        let seen = ctx.exec.cwd.display().to_string();
        let path = PathBuf::from(&input.path);
        Ok(ToolOutput::text(seen).with_context_modifier(ContextModifier::new(
            move |mut c: ToolUseContext| {
                c.exec.cwd = path;
                c
            },
        )))
    }
}

/// Input of [`ProgressTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ProgressInput {
    /// How many reports.
    pub steps: u32,
    /// Pause between reports, in milliseconds.
    #[serde(default)]
    pub delay_ms: u64,
}

/// Emits progress reports. Named `TestProgress`.
#[derive(Debug)]
pub struct ProgressTool;

#[async_trait]
impl Tool for ProgressTool {
    type Input = ProgressInput;
    fn name(&self) -> &str {
        "TestProgress"
    }
    fn description(&self) -> String {
        "Reports `steps` progress lines. Test tool.".into()
    }
    fn is_concurrency_safe(&self, _: &ProgressInput) -> bool {
        true
    }
    fn is_read_only(&self, _: &ProgressInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: ProgressInput,
        _ctx: &ToolUseContext,
        p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        for i in 1..=input.steps {
            p.status(format!("step {i} of {}", input.steps));
            tokio::time::sleep(Duration::from_millis(input.delay_ms)).await;
        }
        Ok(ToolOutput::text(format!("{} steps", input.steps)))
    }
}

/// Input of [`BigOutputTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BigOutputInput {
    /// How many characters to return.
    pub chars: usize,
}

/// Returns a large output (lines of `x`). Named `TestBigOutput`; its limit is 1,000 characters so
/// persistence is easy to trigger.
#[derive(Debug)]
pub struct BigOutputTool;

#[async_trait]
impl Tool for BigOutputTool {
    type Input = BigOutputInput;
    fn name(&self) -> &str {
        "TestBigOutput"
    }
    fn description(&self) -> String {
        "Returns `chars` characters of output. Test tool.".into()
    }
    fn max_result_size_chars(&self) -> Option<usize> {
        Some(1_000)
    }
    fn is_concurrency_safe(&self, _: &BigOutputInput) -> bool {
        true
    }
    fn is_read_only(&self, _: &BigOutputInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: BigOutputInput,
        _ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let line = "x".repeat(79);
        let mut s = String::with_capacity(input.chars);
        while s.len() < input.chars {
            s.push_str(&line);
            s.push('\n');
        }
        s.truncate(input.chars);
        Ok(ToolOutput::text(s))
    }
}

/// Input of [`TouchTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct TouchInput {
    /// The file to write (relative paths are resolved against the working directory).
    pub file_path: String,
    /// What to write.
    #[serde(default)]
    pub content: String,
}

/// Writes a file: an edit for permission purposes. Named `TestTouch`.
#[derive(Debug)]
pub struct TouchTool;

#[async_trait]
impl Tool for TouchTool {
    type Input = TouchInput;
    fn name(&self) -> &str {
        "TestTouch"
    }
    fn description(&self) -> String {
        "Writes `content` to `file_path`. Test tool.".into()
    }
    fn is_destructive(&self, _: &TouchInput, _: &std::path::Path) -> bool {
        true
    }
    fn backfill_observable_input(&self, input: &mut TouchInput, ctx: &ToolUseContext) {
        input.file_path = ctx.resolve_path(&input.file_path).display().to_string();
    }
    fn permission_subject(&self, input: &TouchInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: vec![ctx.resolve_path(&input.file_path)],
        }
    }
    fn summary(&self, input: &TouchInput, _cwd: &std::path::Path) -> String {
        input.file_path.clone()
    }
    async fn call(
        &self,
        input: TouchInput,
        ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let path = ctx.resolve_path(&input.file_path);
        tokio::fs::write(&path, input.content.as_bytes())
            .await
            .map_err(|e| ToolError::io(format!("writing {}", path.display()), e))?;
        Ok(ToolOutput::text(format!("wrote {}", path.display())))
    }
}

/// Input of [`PanickySafetyTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct PanickyInput {
    /// Anything.
    pub text: String,
}

/// Its concurrency predicate panics: the partitioner must treat it as unsafe. Named `TestPanicky`.
#[derive(Debug)]
pub struct PanickySafetyTool;

#[async_trait]
impl Tool for PanickySafetyTool {
    type Input = PanickyInput;
    fn name(&self) -> &str {
        "TestPanicky"
    }
    fn description(&self) -> String {
        "A tool whose safety predicate fails. Test tool.".into()
    }
    #[allow(clippy::panic)]
    fn is_concurrency_safe(&self, input: &PanickyInput) -> bool {
        panic!("predicate failed on {:?}", input.text)
    }
    fn is_read_only(&self, _: &PanickyInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: PanickyInput,
        _ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(input.text))
    }
}

/// Input of [`NoopTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct NoopInput {
    /// Ignored.
    #[serde(default)]
    pub note: Option<String>,
}

/// Does nothing and says nothing about itself: every fail-closed default applies (not safe, not
/// read-only, asks). Named `TestNoop`.
#[derive(Debug)]
pub struct NoopTool;

#[async_trait]
impl Tool for NoopTool {
    type Input = NoopInput;
    fn name(&self) -> &str {
        "TestNoop"
    }
    fn description(&self) -> String {
        "Does nothing. Test tool.".into()
    }
    async fn call(
        &self,
        _input: NoopInput,
        _ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::default())
    }
}
