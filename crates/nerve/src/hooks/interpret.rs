//! Turning one hook's exit code and output into what it meant, following Claude Code's conventions:
//!
//! - exit 0: stdout is a JSON answer if it looks like one (starts with `{`), otherwise plain text;
//! - exit 2: a blocking error whose reason is stderr;
//! - any other exit, a signal, a timeout or a failure to start: a non-blocking error.

use std::time::Duration;

use crate::hooks::event::HookEvent;
use crate::hooks::execution::{HookEnding, HookExecution};
use crate::hooks::output::HookOutput;

/// The exit code with which a hook blocks.
pub const BLOCKING_EXIT_CODE: i32 = 2;

/// How much of a hook's stdout or stderr is quoted in an error message.
const EXCERPT_CHARS: usize = 2000;

/// How much of an exit-2 stderr becomes the blocking reason; it is fed to the model, so a hook that
/// dumps a log must not flood the context.
const REASON_CHARS: usize = 10_000;

/// What one hook said.
#[derive(Debug, Clone, PartialEq)]
pub enum HookReply {
    /// Exit 0 with nothing on stdout.
    Silent,
    /// Exit 0 with plain text on stdout.
    Text(String),
    /// Exit 0 with a valid JSON answer on stdout (boxed: it is by far the largest variant).
    Structured(Box<HookOutput>),
    /// Exit 2: the reason (stderr) for blocking.
    Blocking(String),
    /// Anything that went wrong; never blocks.
    Failed(HookFailure),
}

/// A hook that failed without meaning to block.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HookFailure {
    /// Exited with a code other than 0 and 2.
    #[error("exited with code {code}{}", with_detail(stderr))]
    NonZeroExit {
        /// The exit code.
        code: i32,
        /// What it printed on stderr (an excerpt).
        stderr: String,
    },
    /// Was killed by a signal it did not get from Nerve.
    #[error("was killed by signal {signal}{}", with_detail(stderr))]
    KilledBySignal {
        /// The signal number.
        signal: i32,
        /// What it printed on stderr (an excerpt).
        stderr: String,
    },
    /// Ran past its timeout and was killed with its child processes.
    #[error("timed out after {} s and was killed with its child processes; make it faster or raise its \"timeout\"", format_seconds(*after))]
    TimedOut {
        /// The configured timeout.
        after: Duration,
    },
    /// The run was cancelled before the hook finished.
    #[error("was cancelled before it finished")]
    Cancelled,
    /// Never ran.
    #[error("could not be run: {reason}")]
    NotStarted {
        /// Why.
        reason: String,
    },
    /// Ran, but its result is unknown.
    #[error("ran, but its result could not be collected: {reason}")]
    WaitFailed {
        /// Why.
        reason: String,
    },
    /// Printed something that starts like JSON but is not a valid hook answer.
    #[error(
        "printed output that is not a valid hook JSON answer ({error}), so it was ignored; fix the script's output. Output was: {stdout}"
    )]
    InvalidOutput {
        /// Why parsing failed.
        error: String,
        /// What it printed (an excerpt).
        stdout: String,
    },
    /// Its `hookSpecificOutput` names another event than the one running.
    #[error(
        "answered with hookSpecificOutput for {declared} while {running} was running, so that part was ignored"
    )]
    WrongEvent {
        /// The event named in the output.
        declared: HookEvent,
        /// The event that was running.
        running: HookEvent,
    },
}

fn with_detail(stderr: &str) -> String {
    if stderr.trim().is_empty() {
        String::new()
    } else {
        format!(": {}", stderr.trim())
    }
}

fn format_seconds(duration: Duration) -> String {
    let seconds = duration.as_secs_f64();
    if seconds.fract() == 0.0 {
        format!("{}", duration.as_secs())
    } else {
        format!("{seconds}")
    }
}

/// Reads one execution's ending and output as a reply.
pub fn interpret(execution: &HookExecution) -> HookReply {
    let stderr = || excerpt(&execution.stderr.text_with_note(), EXCERPT_CHARS);
    match &execution.ending {
        HookEnding::Exited { code: 0 } => interpret_stdout(execution),
        HookEnding::Exited {
            code: BLOCKING_EXIT_CODE,
        } => {
            let reason = excerpt(&execution.stderr.text_with_note(), REASON_CHARS);
            if reason.is_empty() {
                HookReply::Blocking(format!(
                    "hook `{}` blocked (exit code 2) without giving a reason on stderr",
                    execution.hook.command
                ))
            } else {
                HookReply::Blocking(reason)
            }
        }
        HookEnding::Exited { code } => HookReply::Failed(HookFailure::NonZeroExit {
            code: *code,
            stderr: stderr(),
        }),
        HookEnding::KilledBySignal { signal } => HookReply::Failed(HookFailure::KilledBySignal {
            signal: *signal,
            stderr: stderr(),
        }),
        HookEnding::TimedOut { after } => HookReply::Failed(HookFailure::TimedOut { after: *after }),
        HookEnding::Cancelled => HookReply::Failed(HookFailure::Cancelled),
        HookEnding::NotStarted { reason } => HookReply::Failed(HookFailure::NotStarted {
            reason: reason.clone(),
        }),
        HookEnding::WaitFailed { reason } => HookReply::Failed(HookFailure::WaitFailed {
            reason: reason.clone(),
        }),
    }
}

fn interpret_stdout(execution: &HookExecution) -> HookReply {
    let stdout = execution.stdout.text_with_note();
    let trimmed = stdout.trim();
    if trimmed.is_empty() {
        return HookReply::Silent;
    }
    if !trimmed.starts_with('{') {
        return HookReply::Text(trimmed.to_owned());
    }
    match serde_json::from_str::<HookOutput>(trimmed) {
        Ok(output) => HookReply::Structured(Box::new(output)),
        Err(error) => HookReply::Failed(HookFailure::InvalidOutput {
            error: error.to_string(),
            stdout: excerpt(trimmed, EXCERPT_CHARS),
        }),
    }
}

fn excerpt(text: &str, limit: usize) -> String {
    let text = text.trim();
    match text.char_indices().nth(limit) {
        None => text.to_owned(),
        Some((cut, _)) => format!("{}…", &text[..cut]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::capture::CapturedOutput;
    use crate::hooks::config::CommandHook;
    use crate::hooks::output::{HookSpecificOutput, Verdict};
    use pretty_assertions::assert_eq;

    fn structured(output: HookOutput) -> HookReply {
        HookReply::Structured(Box::new(output))
    }

    fn execution(ending: HookEnding, stdout: &str, stderr: &str) -> HookExecution {
        HookExecution {
            hook: CommandHook {
                command: "./h.sh".to_owned(),
                timeout: Duration::from_secs(60),
                status_message: None,
                source: "test".to_owned(),
            },
            ending,
            stdout: CapturedOutput {
                text: stdout.to_owned(),
                dropped_bytes: 0,
            },
            stderr: CapturedOutput {
                text: stderr.to_owned(),
                dropped_bytes: 0,
            },
            elapsed: Duration::ZERO,
        }
    }

    fn exited(code: i32, stdout: &str, stderr: &str) -> HookReply {
        interpret(&execution(HookEnding::Exited { code }, stdout, stderr))
    }

    #[test]
    fn exit_zero_reads_json_text_or_nothing() {
        assert_eq!(exited(0, "  \n", "noise"), HookReply::Silent);
        assert_eq!(
            exited(0, "remember the style guide\n", ""),
            HookReply::Text("remember the style guide".to_owned())
        );
        assert_eq!(
            exited(
                0,
                r#" {"hookSpecificOutput": {"permissionDecision": "ask"}} "#,
                ""
            ),
            structured(HookOutput {
                hook_specific_output: Some(HookSpecificOutput {
                    permission_decision: Some(Verdict::Ask),
                    ..HookSpecificOutput::default()
                }),
                ..HookOutput::default()
            })
        );
    }

    #[test]
    fn malformed_json_is_a_non_blocking_error_quoting_the_output() {
        let reply = exited(0, "{\"decision\": ", "");
        let HookReply::Failed(failure @ HookFailure::InvalidOutput { .. }) = reply else {
            panic!("expected InvalidOutput, got {reply:?}");
        };
        assert!(
            failure.to_string().contains("Output was: {\"decision\":"),
            "{failure}"
        );
    }

    #[test]
    fn exit_two_blocks_with_stderr_or_a_default_reason() {
        assert_eq!(
            exited(2, "{\"decision\": \"approve\"}", "rm is not allowed here\n"),
            HookReply::Blocking("rm is not allowed here".to_owned())
        );
        assert_eq!(
            exited(2, "", " "),
            HookReply::Blocking(
                "hook `./h.sh` blocked (exit code 2) without giving a reason on stderr".to_owned()
            )
        );
    }

    #[test]
    fn other_endings_are_non_blocking_failures() {
        assert_eq!(
            exited(1, "", "lint failed\n"),
            HookReply::Failed(HookFailure::NonZeroExit {
                code: 1,
                stderr: "lint failed".to_owned()
            })
        );
        let timed_out = interpret(&execution(
            HookEnding::TimedOut {
                after: Duration::from_secs(30),
            },
            "",
            "",
        ));
        assert_eq!(
            timed_out,
            HookReply::Failed(HookFailure::TimedOut {
                after: Duration::from_secs(30)
            })
        );
        let HookReply::Failed(failure) = timed_out else {
            unreachable!()
        };
        assert!(
            failure.to_string().starts_with("timed out after 30 s"),
            "{failure}"
        );
        assert_eq!(
            interpret(&execution(HookEnding::KilledBySignal { signal: 9 }, "", "")),
            HookReply::Failed(HookFailure::KilledBySignal {
                signal: 9,
                stderr: String::new()
            })
        );
    }

    #[test]
    fn messages_read_well() {
        assert_eq!(
            HookFailure::NonZeroExit {
                code: 3,
                stderr: "boom".to_owned()
            }
            .to_string(),
            "exited with code 3: boom"
        );
        assert_eq!(
            HookFailure::NonZeroExit {
                code: 3,
                stderr: String::new()
            }
            .to_string(),
            "exited with code 3"
        );
        assert_eq!(
            HookFailure::TimedOut {
                after: Duration::from_millis(1500)
            }
            .to_string(),
            "timed out after 1.5 s and was killed with its child processes; make it faster or raise its \"timeout\""
        );
    }

    #[test]
    fn long_stderr_is_cut_in_messages() {
        let long = "e".repeat(EXCERPT_CHARS + 50);
        let HookReply::Failed(HookFailure::NonZeroExit { stderr, .. }) = exited(1, "", &long) else {
            panic!("expected NonZeroExit");
        };
        assert_eq!(stderr.chars().count(), EXCERPT_CHARS + 1);
        assert!(stderr.ends_with('…'));
    }
}
