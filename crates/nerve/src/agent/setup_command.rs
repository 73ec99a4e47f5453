//! A new worktree's setup command (`worktree.setupCommand` in the settings: installing
//! dependencies, generating code): run once, before the session's first prompt goes to the model,
//! as a Bash call through the same pipeline as the model's own calls. So it is shown (a tool card),
//! asked like any other command (rules, mode, hooks, sandbox), and its checkpoints belong to the
//! first turn. The model reads what it did with that prompt.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::agent::Agent;
use crate::pipeline::ToolCall;

/// The longest a setup command may run (the Bash tool's own maximum).
const SETUP_TIMEOUT_MS: u64 = 600_000;
/// How much of its output the model reads (the tail: where errors are).
const SHOWN_OUTPUT_CHARS: usize = 2_000;

/// A command to run before the next prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupCommand {
    /// The command line.
    pub command: String,
    /// Where it came from, for the call's description (a settings file).
    pub source: String,
}

impl Agent {
    /// Runs `command` before the next prompt (see the module docs).
    pub fn set_setup_command(&mut self, command: String, source: String) {
        self.pending_setup = Some(SetupCommand { command, source });
    }

    /// Runs the waiting setup command, if any, and leaves what it did for the model with the prompt.
    pub(crate) async fn run_setup_command(&mut self, cancel: &CancellationToken) {
        let Some(setup) = self.pending_setup.take() else {
            return;
        };
        let id = uuid::Uuid::new_v4().simple().to_string();
        let call = ToolCall {
            id: format!("toolu_setup_{}", &id[..16]),
            name: "Bash".into(),
            input: json!({
                "command": setup.command,
                "description": format!("Set up the new worktree (worktree.setupCommand in {})", setup.source),
                "timeout": SETUP_TIMEOUT_MS,
            }),
        };
        let executor = self
            .runtime
            .executor(cancel.child_token(), self.config.executor.clone());
        executor.add(call);
        executor.close();
        let (outcomes, ctx) = executor.finish().await;
        self.runtime.context = ctx.with_cancel(CancellationToken::new());
        let Some(outcome) = outcomes.into_iter().next() else {
            return;
        };
        let said = outcome
            .error_message
            .clone()
            .unwrap_or_else(|| crate::tool::text_of(&outcome.content));
        let note = setup_note(&setup.command, outcome.denied, outcome.is_error, &said);
        self.pending_context.push(note);
    }
}

/// What the model reads about the setup command.
fn setup_note(command: &str, denied: bool, failed: bool, said: &str) -> String {
    let what = if denied {
        "was not run (the user or a rule refused it)"
    } else if failed {
        "failed"
    } else {
        "ran"
    };
    let chars = said.chars().count();
    let tail: String = if chars > SHOWN_OUTPUT_CHARS {
        let skip = chars - SHOWN_OUTPUT_CHARS;
        format!(
            "[… {skip} characters left out]\n{}",
            said.chars().skip(skip).collect::<String>()
        )
    } else {
        said.to_string()
    };
    format!(
        "This session works in a new git worktree. Before this prompt, its setup command from the settings {what}: `{command}`\n{}",
        tail.trim_end()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_note_says_what_happened_and_keeps_the_tail_of_long_output() {
        assert_eq!(
            setup_note("npm ci", false, false, "added 3 packages\n"),
            "This session works in a new git worktree. Before this prompt, its setup command from the settings ran: `npm ci`\nadded 3 packages"
        );
        assert!(setup_note("x", true, true, "denied").contains("was not run"));
        let long = format!("{}END", "a".repeat(5_000));
        let note = setup_note("make", false, true, &long);
        assert!(note.contains("failed: `make`"));
        assert!(note.contains("[… 3003 characters left out]"));
        assert!(note.ends_with("END"));
    }
}
