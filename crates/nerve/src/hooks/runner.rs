//! Running every hook that matches an event, in parallel, and folding their answers into one outcome.

use std::path::Path;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::hooks::capture::CapturedOutput;
use crate::hooks::command_run::run_command_hook;
use crate::hooks::config::{CommandHook, HookConfig};
use crate::hooks::event::HookEvent;
use crate::hooks::execution::{HookEnding, HookExecution};
use crate::hooks::input::HookInput;
use crate::hooks::interpret::interpret;
use crate::hooks::outcome::HookOutcome;

/// The result of running one event's hooks.
#[derive(Debug, Clone, PartialEq)]
pub struct HookRunReport {
    /// The event the hooks ran for.
    pub event: HookEvent,
    /// Each hook's run, in configuration order (not completion order).
    pub executions: Vec<HookExecution>,
    /// What they decided together.
    pub outcome: HookOutcome,
}

impl HookRunReport {
    /// Whether any hook was stopped by cancellation.
    pub fn was_cancelled(&self) -> bool {
        self.executions
            .iter()
            .any(|execution| execution.ending == HookEnding::Cancelled)
    }
}

/// Runs every hook in `config` that matches `input`'s event and match target, all at once.
///
/// The event and the match target (tool name, session source...) are taken from `input` itself, so the
/// hooks selected and the JSON they read can never disagree. Each hook runs as `sh -c COMMAND` in
/// `project_dir`, with `CLAUDE_PROJECT_DIR` and `NERVE_PROJECT_DIR` set to it and `input` as JSON on
/// stdin. Cancelling `cancel` terminates every running hook's process group and returns promptly.
pub async fn run_hooks(
    config: &HookConfig,
    input: &HookInput,
    project_dir: &Path,
    cancel: CancellationToken,
) -> HookRunReport {
    let event = input.hook_event();
    let hooks = config.hooks_for(event, input.match_target());

    let executions: Vec<HookExecution> = if hooks.is_empty() {
        Vec::new()
    } else if cancel.is_cancelled() {
        not_run(&hooks, HookEnding::Cancelled)
    } else {
        match serde_json::to_vec(input) {
            Ok(stdin_json) => {
                futures::future::join_all(
                    hooks
                        .iter()
                        .map(|hook| run_command_hook(hook, &stdin_json, project_dir, &cancel)),
                )
                .await
            }
            Err(error) => not_run(
                &hooks,
                HookEnding::NotStarted {
                    reason: format!("the hook input could not be encoded as JSON: {error}"),
                },
            ),
        }
    };

    let outcome = HookOutcome::aggregate(
        event,
        executions
            .iter()
            .map(|execution| (&execution.hook, interpret(execution))),
    );
    HookRunReport {
        event,
        executions,
        outcome,
    }
}

fn not_run(hooks: &[&CommandHook], ending: HookEnding) -> Vec<HookExecution> {
    hooks
        .iter()
        .map(|hook| HookExecution {
            hook: (*hook).clone(),
            ending: ending.clone(),
            stdout: CapturedOutput::default(),
            stderr: CapturedOutput::default(),
            elapsed: Duration::ZERO,
        })
        .collect()
}

#[cfg(test)]
mod tests;
