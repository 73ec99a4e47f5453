//! End-to-end tests of the runner with real `sh` scripts in a temporary directory.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::hooks::capture::OUTPUT_CAP_BYTES;
use crate::hooks::input::{HookEventInput, PreToolUseInput, UserPromptSubmitInput};
use crate::hooks::interpret::HookFailure;
use crate::hooks::outcome::{Attributed, BlockVia, HookBlock, HookOrigin, PermissionVerdict};
use crate::hooks::output::Verdict;

struct Sandbox {
    dir: TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Writes an executable script and returns the command that runs it.
    fn script(&self, name: &str, body: &str) -> String {
        let path = self.file(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path.display().to_string()
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.file(name)).unwrap()
    }

    fn read_pid(&self, name: &str) -> i32 {
        self.read(name).trim().parse().unwrap()
    }
}

fn config(event: &str, matcher: &str, commands: &[(&str, f64)]) -> HookConfig {
    let hooks: Vec<Value> = commands
        .iter()
        .map(|(command, timeout)| json!({"type": "command", "command": command, "timeout": timeout}))
        .collect();
    HookConfig::from_settings(
        &json!({ event: [{"matcher": matcher, "hooks": hooks}] }),
        "test-settings.json",
    )
    .unwrap()
}

fn input(event: HookEventInput) -> HookInput {
    HookInput {
        session_id: "session-1".to_owned(),
        transcript_path: PathBuf::from("/tmp/transcript.jsonl"),
        cwd: PathBuf::from("/work/project"),
        permission_mode: "default".to_owned(),
        event,
    }
}

fn bash_call(command: &str) -> HookInput {
    input(HookEventInput::PreToolUse(PreToolUseInput {
        tool_name: "Bash".to_owned(),
        tool_input: json!({ "command": command }),
        tool_use_id: "toolu_01".to_owned(),
    }))
}

fn origin(command: &str) -> HookOrigin {
    HookOrigin {
        command: command.to_owned(),
        source: "test-settings.json".to_owned(),
    }
}

async fn run(config: &HookConfig, input: &HookInput, dir: &Path) -> HookRunReport {
    run_hooks(config, input, dir, CancellationToken::new()).await
}

/// Whether `pid` is a live (not zombie) process.
fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => !matches!(process_state(&stat), Some('Z' | 'X')),
    }
}

fn process_state(stat: &str) -> Option<char> {
    let (_, rest) = stat.rsplit_once(')')?;
    rest.trim_start().chars().next()
}

fn own_process_group() -> i32 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let (_, rest) = stat.rsplit_once(')').unwrap();
    rest.split_whitespace().nth(2).unwrap().parse().unwrap()
}

/// Live processes whose process group is `pgid`.
fn live_group_members(pgid: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        let Some((_, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // After the command name: state, ppid, pgrp.
        if fields.get(2).and_then(|f| f.parse::<i32>().ok()) == Some(pgid)
            && !matches!(fields.first(), Some(&"Z" | &"X"))
        {
            members.push(pid);
        }
    }
    members
}

/// Signals are delivered asynchronously; give the kernel a moment to finish the kill.
async fn eventually_gone(pids: &[i32], pgid: i32) {
    let deadline = Instant::now() + Duration::from_secs(3);
    while Instant::now() < deadline {
        if pids.iter().all(|pid| !alive(*pid)) && live_group_members(pgid).is_empty() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!(
        "still alive: pids {:?}, group {pgid} members {:?}",
        pids.iter().filter(|pid| alive(**pid)).collect::<Vec<_>>(),
        live_group_members(pgid)
    );
}

async fn wait_for_file(path: &Path) {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !path.exists() {
        assert!(Instant::now() < deadline, "{} never appeared", path.display());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    // The writer may not have finished the line yet.
    tokio::time::sleep(Duration::from_millis(50)).await;
}

#[tokio::test]
async fn stdin_carries_the_documented_json_and_env_names_the_project() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script(
        "capture.sh",
        &format!(
            "cat > {dir}/stdin.json\nprintf '%s\\n%s\\n%s' \"$CLAUDE_PROJECT_DIR\" \"$NERVE_PROJECT_DIR\" \"$(pwd -P)\" > {dir}/env.txt"
        ),
    );
    let call = bash_call("git status");
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &call,
        sandbox.path(),
    )
    .await;

    assert_eq!(report.executions.len(), 1);
    assert_eq!(report.executions[0].ending, HookEnding::Exited { code: 0 });
    let stdin: Value = serde_json::from_str(&sandbox.read("stdin.json")).unwrap();
    assert_eq!(
        stdin,
        json!({
            "session_id": "session-1",
            "transcript_path": "/tmp/transcript.jsonl",
            "cwd": "/work/project",
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": "git status"},
            "tool_use_id": "toolu_01"
        })
    );
    let real_dir = sandbox.path().canonicalize().unwrap().display().to_string();
    assert_eq!(sandbox.read("env.txt"), format!("{dir}\n{dir}\n{real_dir}"));
    assert_eq!(report.outcome, HookOutcome::default());
}

#[tokio::test]
async fn json_allow_with_updated_input() {
    let sandbox = Sandbox::new();
    let command = sandbox.script(
        "allow.sh",
        r#"cat > /dev/null
echo '{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow", "permissionDecisionReason": "read-only", "updatedInput": {"command": "ls -la"}}}'"#,
    );
    let report = run(
        &config("PreToolUse", "*", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;

    let mut updated = serde_json::Map::new();
    updated.insert("command".to_owned(), json!("ls -la"));
    assert_eq!(
        report.outcome,
        HookOutcome {
            permission: Some(PermissionVerdict {
                decision: Verdict::Allow,
                voters: vec![Attributed {
                    origin: origin(&command),
                    value: Some("read-only".to_owned())
                }],
            }),
            updated_input: Some(Attributed {
                origin: origin(&command),
                value: updated
            }),
            ..HookOutcome::default()
        }
    );
}

#[tokio::test]
async fn json_deny_beats_ask_beats_allow_across_real_hooks() {
    let sandbox = Sandbox::new();
    let answer = |name: &str, decision: &str| {
        sandbox.script(
            name,
            &format!(
                r#"echo '{{"hookSpecificOutput": {{"hookEventName": "PreToolUse", "permissionDecision": "{decision}", "permissionDecisionReason": "{name} says {decision}"}}}}'"#
            ),
        )
    };
    let allow = answer("allow.sh", "allow");
    let ask = answer("ask.sh", "ask");
    let deny = answer("deny.sh", "deny");

    let all = config(
        "PreToolUse",
        "Bash",
        &[(&allow, 10.0), (&ask, 10.0), (&deny, 10.0)],
    );
    let report = run(&all, &bash_call("rm -rf /"), sandbox.path()).await;
    assert_eq!(
        report.outcome.permission,
        Some(PermissionVerdict {
            decision: Verdict::Deny,
            voters: vec![Attributed {
                origin: origin(&deny),
                value: Some("deny.sh says deny".to_owned())
            }],
        })
    );

    let no_deny = config("PreToolUse", "Bash", &[(&allow, 10.0), (&ask, 10.0)]);
    let report = run(&no_deny, &bash_call("rm -rf /"), sandbox.path()).await;
    assert_eq!(
        report.outcome.permission.map(|verdict| verdict.decision),
        Some(Verdict::Ask)
    );
}

#[tokio::test]
async fn exit_two_blocks_with_stderr_as_the_reason() {
    let sandbox = Sandbox::new();
    let command = sandbox.script(
        "block.sh",
        "echo '{\"decision\": \"approve\"}'\necho 'rm is not allowed in this repo' >&2\nexit 2",
    );
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &bash_call("rm x"),
        sandbox.path(),
    )
    .await;

    assert_eq!(report.executions[0].ending, HookEnding::Exited { code: 2 });
    assert_eq!(
        report.outcome,
        HookOutcome {
            permission: Some(PermissionVerdict {
                decision: Verdict::Deny,
                voters: vec![Attributed {
                    origin: origin(&command),
                    value: Some("rm is not allowed in this repo".to_owned())
                }],
            }),
            blocks: vec![Attributed {
                origin: origin(&command),
                value: HookBlock {
                    reason: "rm is not allowed in this repo".to_owned(),
                    via: BlockVia::ExitCode2
                }
            }],
            ..HookOutcome::default()
        }
    );
}

#[tokio::test]
async fn exit_one_is_a_non_blocking_error() {
    let sandbox = Sandbox::new();
    let command = sandbox.script("fail.sh", "echo 'linter crashed' >&2\nexit 1");
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;

    assert_eq!(
        report.outcome,
        HookOutcome {
            errors: vec![Attributed {
                origin: origin(&command),
                value: HookFailure::NonZeroExit {
                    code: 1,
                    stderr: "linter crashed".to_owned()
                }
            }],
            ..HookOutcome::default()
        }
    );
}

#[tokio::test]
async fn malformed_json_stdout_is_reported_not_obeyed() {
    let sandbox = Sandbox::new();
    let command = sandbox.script(
        "broken.sh",
        r#"echo '{"hookSpecificOutput": {"permissionDecision": "deny"'"#,
    );
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;

    assert_eq!(report.outcome.permission, None);
    assert_eq!(report.outcome.errors.len(), 1);
    let HookFailure::InvalidOutput { stdout, .. } = &report.outcome.errors[0].value else {
        panic!("expected InvalidOutput, got {:?}", report.outcome.errors);
    };
    assert_eq!(stdout, r#"{"hookSpecificOutput": {"permissionDecision": "deny""#);
}

#[tokio::test]
async fn plain_stdout_is_context_for_prompts_and_transcript_text_for_tools() {
    let sandbox = Sandbox::new();
    let command = sandbox.script("say.sh", "echo 'Today is release day.'");

    let prompt = input(HookEventInput::UserPromptSubmit(UserPromptSubmitInput {
        prompt: "ship it".to_owned(),
    }));
    let report = run(
        &config("UserPromptSubmit", "", &[(&command, 10.0)]),
        &prompt,
        sandbox.path(),
    )
    .await;
    assert_eq!(
        report.outcome.joined_additional_context(),
        Some("Today is release day.".to_owned())
    );

    let report = run(
        &config("PreToolUse", "", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;
    assert_eq!(
        report.outcome.transcript_output,
        vec![Attributed {
            origin: origin(&command),
            value: "Today is release day.".to_owned()
        }]
    );
    assert_eq!(report.outcome.additional_context, vec![]);
}

#[tokio::test]
async fn timeout_kills_the_whole_process_group() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script(
        "slow.sh",
        // Nothing but the outer shell holds our pipes, so closing them cannot be what stops the
        // children: only killing the process group can.
        &format!("exec >/dev/null 2>&1\nsleep 100 &\necho $! > {dir}/child.pid\necho $$ > {dir}/shell.pid\nawk '{{print $5}}' /proc/$$/stat > {dir}/group.pid\nsleep 100"),
    );
    let started = Instant::now();
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 1.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;

    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(
        report.executions[0].ending,
        HookEnding::TimedOut {
            after: Duration::from_secs(1)
        }
    );
    let shell = sandbox.read_pid("shell.pid");
    let child = sandbox.read_pid("child.pid");
    let group = sandbox.read_pid("group.pid");
    assert_ne!(
        group,
        own_process_group(),
        "the hook must get its own process group"
    );
    eventually_gone(&[shell, child], group).await;
    assert_eq!(
        report.outcome.errors,
        vec![Attributed {
            origin: origin(&command),
            value: HookFailure::TimedOut {
                after: Duration::from_secs(1)
            }
        }]
    );
    assert!(
        report.outcome.errors[0]
            .value
            .to_string()
            .starts_with("timed out after 1 s")
    );
}

#[tokio::test]
async fn a_background_child_holding_stdout_does_not_hang_the_run() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script(
        "leaky.sh",
        &format!("sleep 100 &\necho $! > {dir}/child.pid\nawk '{{print $5}}' /proc/$$/stat > {dir}/group.pid\necho done"),
    );
    let started = Instant::now();
    let report = run(
        &config("Stop", "", &[(&command, 30.0)]),
        &input(HookEventInput::Stop(crate::hooks::input::StopInput {
            stop_hook_active: false,
        })),
        sandbox.path(),
    )
    .await;

    assert!(
        started.elapsed() < Duration::from_secs(5),
        "took {:?}",
        started.elapsed()
    );
    assert_eq!(report.executions[0].ending, HookEnding::Exited { code: 0 });
    assert_eq!(report.executions[0].stdout.text, "done\n");
    let child = sandbox.read_pid("child.pid");
    eventually_gone(&[child], sandbox.read_pid("group.pid")).await;
}

#[tokio::test]
async fn hooks_run_in_parallel() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    // Each hook announces itself, then waits (up to 5 s) for the other: run one after the other,
    // the first would give up and say "alone".
    let rendezvous = |me: &str, other: &str| {
        sandbox.script(
            &format!("{me}.sh"),
            &format!(
                "touch {dir}/{me}.started\ni=0\nwhile [ ! -e {dir}/{other}.started ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done\nif [ -e {dir}/{other}.started ]; then echo met-{other}; else echo alone; fi"
            ),
        )
    };
    let a = rendezvous("a", "b");
    let b = rendezvous("b", "a");
    let report = run(
        &config("PreToolUse", "Bash", &[(&a, 20.0), (&b, 20.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;

    let said: Vec<&str> = report
        .executions
        .iter()
        .map(|execution| execution.stdout.text.trim())
        .collect();
    assert_eq!(said, vec!["met-b", "met-a"]);
}

#[tokio::test]
async fn parallel_run_takes_about_the_longest_hook_not_the_sum() {
    let sandbox = Sandbox::new();
    let one = sandbox.script("one.sh", "sleep 1");
    let two = sandbox.script("two.sh", "sleep 1");
    let both = config("PreToolUse", "Bash", &[(&one, 20.0), (&two, 20.0)]);
    let started = Instant::now();
    let report = run(&both, &bash_call("ls"), sandbox.path()).await;
    let wall = started.elapsed();

    let sum: Duration = report.executions.iter().map(|execution| execution.elapsed).sum();
    assert!(
        wall < sum.mul_f64(0.8),
        "wall time {wall:?} should be well under the sum of hook times {sum:?}"
    );
}

#[tokio::test]
async fn cancellation_kills_running_hooks_promptly() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script(
        "forever.sh",
        &format!("exec >/dev/null 2>&1\nsleep 100 &\necho $! > {dir}/child.pid\necho $$ > {dir}/shell.pid\nawk '{{print $5}}' /proc/$$/stat > {dir}/group.pid\nwait"),
    );
    let hooks = config("PreToolUse", "Bash", &[(&command, 100.0)]);
    let cancel = CancellationToken::new();
    let call = bash_call("ls");
    let project = sandbox.path().to_path_buf();
    let task = {
        let cancel = cancel.clone();
        tokio::spawn(async move { run_hooks(&hooks, &call, &project, cancel).await })
    };
    wait_for_file(&sandbox.file("group.pid")).await;
    let cancelled_at = Instant::now();
    cancel.cancel();
    let report = task.await.unwrap();

    assert!(
        cancelled_at.elapsed() < Duration::from_secs(5),
        "took {:?}",
        cancelled_at.elapsed()
    );
    assert!(report.was_cancelled());
    assert_eq!(report.executions[0].ending, HookEnding::Cancelled);
    let shell = sandbox.read_pid("shell.pid");
    let child = sandbox.read_pid("child.pid");
    let group = sandbox.read_pid("group.pid");
    eventually_gone(&[shell, child], group).await;
}

#[tokio::test]
async fn dropping_the_run_kills_running_hooks() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script(
        "orphan.sh",
        &format!("exec >/dev/null 2>&1\nsleep 100 &\necho $! > {dir}/child.pid\necho $$ > {dir}/shell.pid\nawk '{{print $5}}' /proc/$$/stat > {dir}/group.pid\nwait"),
    );
    let hooks = config("PreToolUse", "Bash", &[(&command, 100.0)]);
    let call = bash_call("ls");
    let project = sandbox.path().to_path_buf();
    let task =
        tokio::spawn(async move { run_hooks(&hooks, &call, &project, CancellationToken::new()).await });
    wait_for_file(&sandbox.file("group.pid")).await;
    task.abort();
    assert!(task.await.unwrap_err().is_cancelled());

    let shell = sandbox.read_pid("shell.pid");
    let child = sandbox.read_pid("child.pid");
    eventually_gone(&[shell, child], sandbox.read_pid("group.pid")).await;
}

#[tokio::test]
async fn already_cancelled_runs_nothing() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script("mark.sh", &format!("touch {dir}/ran"));
    let cancel = CancellationToken::new();
    cancel.cancel();
    let report = run_hooks(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
        cancel,
    )
    .await;
    assert!(report.was_cancelled());
    assert!(!sandbox.file("ran").exists());
}

#[tokio::test]
async fn identical_commands_from_two_sources_run_once() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script("count.sh", &format!("echo run >> {dir}/runs.txt"));
    let hooks = HookConfig::merge([
        config("PreToolUse", "Bash", &[(&command, 10.0)]),
        config("PreToolUse", "*", &[(&command, 10.0)]),
    ]);
    let report = run(&hooks, &bash_call("ls"), sandbox.path()).await;
    assert_eq!(report.executions.len(), 1);
    assert_eq!(sandbox.read("runs.txt"), "run\n");
}

#[tokio::test]
async fn hooks_whose_matcher_does_not_match_do_not_run() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path().display().to_string();
    let command = sandbox.script("mark.sh", &format!("touch {dir}/ran"));
    let report = run(
        &config("PreToolUse", "Edit|Write", &[(&command, 10.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;
    assert_eq!(report.executions, vec![]);
    assert_eq!(report.outcome, HookOutcome::default());
    assert!(!sandbox.file("ran").exists());
}

#[tokio::test]
async fn runaway_output_is_capped() {
    let sandbox = Sandbox::new();
    let command = sandbox.script(
        "flood.sh",
        &format!("head -c {} /dev/zero | tr '\\0' x", OUTPUT_CAP_BYTES * 2),
    );
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 30.0)]),
        &bash_call("ls"),
        sandbox.path(),
    )
    .await;
    let stdout = &report.executions[0].stdout;
    assert_eq!(stdout.text.len(), OUTPUT_CAP_BYTES);
    assert_eq!(stdout.dropped_bytes, OUTPUT_CAP_BYTES as u64);
    assert_eq!(report.executions[0].ending, HookEnding::Exited { code: 0 });
}

#[tokio::test]
async fn missing_project_directory_is_a_non_blocking_start_failure() {
    let sandbox = Sandbox::new();
    let command = sandbox.script("ok.sh", "exit 0");
    let missing = sandbox.file("does-not-exist");
    let report = run(
        &config("PreToolUse", "Bash", &[(&command, 10.0)]),
        &bash_call("ls"),
        &missing,
    )
    .await;
    let HookEnding::NotStarted { reason } = &report.executions[0].ending else {
        panic!("expected NotStarted, got {:?}", report.executions[0].ending);
    };
    assert!(reason.contains("does-not-exist"), "{reason}");
    assert!(matches!(
        report.outcome.errors[0].value,
        HookFailure::NotStarted { .. }
    ));
}

#[tokio::test]
async fn a_hook_that_ignores_large_stdin_still_finishes() {
    let sandbox = Sandbox::new();
    let command = sandbox.script("ignore.sh", "exit 0");
    let big = input(HookEventInput::PreToolUse(PreToolUseInput {
        tool_name: "Write".to_owned(),
        tool_input: json!({ "content": "y".repeat(1024 * 1024) }),
        tool_use_id: "t".to_owned(),
    }));
    let report = run(
        &config("PreToolUse", "Write", &[(&command, 10.0)]),
        &big,
        sandbox.path(),
    )
    .await;
    assert_eq!(report.executions[0].ending, HookEnding::Exited { code: 0 });
    assert_eq!(report.outcome, HookOutcome::default());
}
