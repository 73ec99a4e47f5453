//! The Bash tool: the contract the engine sees.

use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::PermissionSubject;
use crate::sandbox::SandboxState;
use crate::tool::tasks::TaskBoard;
use crate::tool::{
    ApprovalPreview, FileEffect, InterruptBehavior, ProgressSink, Tool, ToolError, ToolOutput,
    ToolPermission, ToolUseContext, Validation,
};
use crate::tools::bash::BackgroundTasks;
use crate::tools::bash::limits::{DEFAULT_TIMEOUT_MS, MAX_RESULT_CHARS, MAX_TIMEOUT_MS};
use crate::tools::bash::run::{output_dir, run_foreground, sandbox_launch, start_dir};
use crate::tools::bash::sed_edit::{SIMULATED_SED_EDIT_FIELD, SimulatedSedEdit, apply_sed_edit, sed_preview};
use crate::tools::bash::{analyze_shared, shell_subject};

/// Longest summary shown for a command.
const SUMMARY_CHARS: usize = 100;

/// Input of [`BashTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct BashInput {
    /// The command to execute.
    pub command: String,
    /// Optional timeout in milliseconds (default 120000, at most 600000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<u64>,
    /// A clear, concise description of what the command does, in 5-10 words, active voice (e.g.
    /// "Run the unit tests", "Show the git status").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Set to true to run the command in the background and return at once with a task id; read its
    /// output with TaskOutput and stop it with TaskStop.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_in_background: Option<bool>,
    /// Set to true to run this command outside the sandbox (it then always asks the user first,
    /// whatever the rules and mode say). Only for a command that failed in the sandbox because it
    /// needs more: the network, or files outside the working folders.
    #[serde(
        rename = "dangerouslyDisableSandbox",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub dangerously_disable_sandbox: Option<bool>,
    /// Set only by the engine after the user approved a previewed `sed -i` edit; never shown to or
    /// accepted from the model.
    #[serde(
        rename = "_simulatedSedEdit",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    #[schemars(skip)]
    pub simulated_sed_edit: Option<SimulatedSedEdit>,
}

/// Runs shell commands.
#[derive(Debug, Default, Clone, Copy)]
pub struct BashTool;

#[async_trait]
impl Tool for BashTool {
    type Input = BashInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Shell
    }

    fn editable_field(&self) -> Option<nerve_protocol::EditableField> {
        Some(nerve_protocol::EditableField::Command)
    }

    fn name(&self) -> &str {
        "Bash"
    }

    fn description(&self) -> String {
        crate::tools::bash::prompt::description()
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        Some(MAX_RESULT_CHARS)
    }

    fn is_concurrency_safe(&self, input: &BashInput) -> bool {
        self.is_read_only(input)
    }

    fn is_destructive(&self, input: &BashInput, cwd: &std::path::Path) -> bool {
        crate::tools::bash::destructive::is_destructive(&input.command, cwd)
    }

    fn is_read_only(&self, input: &BashInput) -> bool {
        input.simulated_sed_edit.is_none() && analyze_shared(&input.command).is_read_only()
    }

    fn file_effect(&self, input: &BashInput, _ctx: &ToolUseContext) -> FileEffect {
        if let Some(edit) = &input.simulated_sed_edit {
            // An approved `sed -i` writes exactly the previewed files (and their backups), nothing
            // else: the shell does not run.
            let mut files = Vec::new();
            for file in &edit.files {
                files.push(file.path.clone());
                if let Some(suffix) = &edit.backup_suffix {
                    let mut backup = file.path.clone().into_os_string();
                    backup.push(suffix);
                    files.push(backup.into());
                }
            }
            return FileEffect::Files(files);
        }
        if self.is_read_only(input) {
            return FileEffect::None;
        }
        FileEffect::Opaque {
            outlives_call: input.run_in_background == Some(true),
        }
    }

    async fn validate_input(&self, input: &BashInput, _ctx: &ToolUseContext) -> Validation {
        if input.command.trim().is_empty() {
            return Err("The command is empty. Pass the shell command to run in `command`.".into());
        }
        match input.timeout {
            Some(0) => Err(format!(
                "timeout must be at least 1 ms (it is in milliseconds; the default is {DEFAULT_TIMEOUT_MS})."
            )),
            Some(t) if t > MAX_TIMEOUT_MS => Err(format!(
                "timeout {t} ms is over the maximum of {MAX_TIMEOUT_MS} ms (10 minutes). Use a shorter timeout, or run_in_background: true for longer commands."
            )),
            Some(_) | None => Ok(()),
        }
    }

    async fn check_permissions(&self, input: &BashInput, ctx: &ToolUseContext) -> ToolPermission {
        if input.simulated_sed_edit.is_some() {
            return ToolPermission::Passthrough; // the engine writes the previewed files; no shell runs
        }
        match self.sandbox_state(input, ctx) {
            Some(SandboxState::Unsandboxed {
                reason,
                needs_approval: true,
            }) => ToolPermission::Ask {
                reason: format!("runs without the sandbox: {reason}"),
            },
            Some(SandboxState::Sandboxed { network: false })
                if ctx.config.sandbox.as_ref().is_some_and(|s| s.config.auto_allow) =>
            {
                ToolPermission::Allow {
                    reason: "runs in the sandbox without network (sandbox.autoAllowBashIfSandboxed)".into(),
                }
            }
            _ => ToolPermission::Passthrough,
        }
    }

    fn sandbox_state(&self, input: &BashInput, ctx: &ToolUseContext) -> Option<SandboxState> {
        if input.simulated_sed_edit.is_some() {
            return None;
        }
        let sandbox = ctx.config.sandbox.as_ref()?;
        Some(sandbox.state(input.dangerously_disable_sandbox == Some(true)))
    }

    fn permission_subject(&self, input: &BashInput, ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Shell(Box::new(shell_subject(&input.command, &ctx.exec.cwd)))
    }

    async fn permission_preview(&self, input: &BashInput, ctx: &ToolUseContext) -> Option<ApprovalPreview> {
        if input.run_in_background == Some(true) {
            return None;
        }
        sed_preview(&input.command, ctx).await
    }

    async fn call(
        &self,
        input: BashInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        if let Some(edit) = &input.simulated_sed_edit {
            // The user approved exactly this content: write it, do not run the shell.
            return apply_sed_edit(edit, &input.command, ctx);
        }
        let sandboxed = input.dangerously_disable_sandbox != Some(true);
        if input.run_in_background == Some(true) {
            let (cwd, note) = start_dir(ctx);
            let launch = sandbox_launch(ctx, &input.command, sandboxed, &[]);
            let info = BackgroundTasks::of(ctx)
                .start(
                    &input.command,
                    &cwd,
                    &output_dir(ctx),
                    launch.as_ref(),
                    progress.tool_use_id(),
                    TaskBoard::of(ctx),
                )
                .map_err(|e| ToolError::io("could not start the background command", e))?;
            let mut text = format!(
                "Command running in background with ID: {id}. Its output is being written to: {path}\nUse TaskOutput with task_id \"{id}\" to read it (block: false returns what it printed so far) and TaskStop to stop it.",
                id = info.id,
                path = info.output_path.display()
            );
            if let Some(note) = note {
                text.push('\n');
                text.push_str(&note);
            }
            return Ok(ToolOutput::text(text));
        }
        let timeout = Duration::from_millis(input.timeout.unwrap_or(DEFAULT_TIMEOUT_MS).min(MAX_TIMEOUT_MS));
        run_foreground(&input.command, timeout, ctx, progress, sandboxed).await
    }

    fn summary(&self, input: &BashInput, _cwd: &std::path::Path) -> String {
        let mut lines = input.command.trim().lines();
        let first = lines.next().unwrap_or_default();
        if first.is_empty() {
            return input.description.clone().unwrap_or_default();
        }
        let mut summary: String = first.chars().take(SUMMARY_CHARS).collect();
        if first.chars().count() > SUMMARY_CHARS || lines.next().is_some() {
            summary.push('…');
        }
        summary
    }

    fn cancels_siblings_on_failure(&self) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn classifier_input(&self, input: &BashInput) -> String {
        input.command.clone()
    }

    fn engine_only_fields(&self) -> &[&str] {
        &[SIMULATED_SED_EDIT_FIELD]
    }
}
