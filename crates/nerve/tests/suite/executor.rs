//! The streaming executor: batching, ordering, caps, cancellation, context modifiers and the
//! one-result-per-call invariant. Concurrency is checked through the order of events, not timings.

use crate::support::{TestProject, call, text_of};
use nerve::errors::ErrorClass;
use nerve::events::Event;
use nerve::executor::ExecutorOptions;
use nerve::permissions::{ModeSwitch, PermissionMode};
use nerve::pipeline::{CallOutcome, ToolCall};
use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;
use tokio_util::sync::CancellationToken;

fn sleep(id: &str, ms: u64, safe: bool) -> ToolCall {
    call(id, "TestSleep", json!({"ms": ms, "safe": safe, "output": id}))
}

fn opts(max: usize) -> ExecutorOptions {
    ExecutorOptions {
        max_concurrency: max,
        ..ExecutorOptions::default()
    }
}

async fn run(
    p: &TestProject,
    calls: Vec<ToolCall>,
    max: usize,
) -> (Vec<CallOutcome>, nerve::tool::ToolUseContext) {
    let s = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
    let exec = s.executor(CancellationToken::new(), opts(max));
    for c in calls {
        exec.add(c);
    }
    exec.finish().await
}

fn ids(outcomes: &[CallOutcome]) -> Vec<String> {
    outcomes.iter().map(|o| o.tool_use_id.clone()).collect()
}

/// Event positions: (started, completed) for an id.
fn span(events: &[Event], id: &str) -> (usize, usize) {
    let started = events
        .iter()
        .position(|e| matches!(e, Event::ToolStarted { tool_use_id } if tool_use_id == id));
    let done = events
        .iter()
        .position(|e| matches!(e, Event::ToolCompleted { tool_use_id, .. } if tool_use_id == id));
    match (started, done) {
        (Some(s), Some(d)) => (s, d),
        other => unreachable!("{id} was not started and completed: {other:?}"),
    }
}

#[tokio::test]
async fn results_come_back_in_request_order() {
    let p = TestProject::new();
    let (out, _) = run(
        &p,
        vec![sleep("a", 150, true), sleep("b", 10, true), sleep("c", 80, true)],
        10,
    )
    .await;
    assert_eq!(ids(&out), vec!["a", "b", "c"]);
    assert_eq!(
        out.iter().map(|o| text_of(&o.content)).collect::<Vec<_>>(),
        vec!["a", "b", "c"]
    );
    // b finished first, yet was handed out second.
    let ev = p.recorder.events();
    assert!(span(&ev, "b").1 < span(&ev, "a").1);
}

#[tokio::test]
async fn safe_calls_run_together() {
    let p = TestProject::new();
    run(
        &p,
        vec![
            sleep("a", 100, true),
            sleep("b", 100, true),
            sleep("c", 100, true),
        ],
        10,
    )
    .await;
    let ev = p.recorder.events();
    let last_start = ["a", "b", "c"].iter().map(|id| span(&ev, id).0).max().unwrap();
    let first_done = ["a", "b", "c"].iter().map(|id| span(&ev, id).1).min().unwrap();
    assert!(last_start < first_done, "all three started before any finished");
    // One batch, marked concurrent.
    let batches: Vec<(u64, bool)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::ToolQueued {
                batch_id, concurrent, ..
            } => Some((*batch_id, *concurrent)),
            _ => None,
        })
        .collect();
    assert_eq!(batches, vec![(1, true), (1, true), (1, true)]);
}

#[tokio::test]
async fn an_unsafe_call_runs_alone_and_keeps_its_place() {
    let p = TestProject::new();
    run(
        &p,
        vec![
            sleep("a", 60, true),
            sleep("w", 60, false),
            sleep("b", 10, true),
            sleep("c", 10, true),
        ],
        10,
    )
    .await;
    let ev = p.recorder.events();
    let (a0, a1) = span(&ev, "a");
    let (w0, w1) = span(&ev, "w");
    let (b0, _) = span(&ev, "b");
    let (c0, _) = span(&ev, "c");
    assert!(a0 < a1 && a1 < w0, "the writer waits for the running read");
    assert!(w1 < b0 && w1 < c0, "nothing after the writer overtakes it");
    let batches: Vec<(String, u64, bool)> = ev
        .iter()
        .filter_map(|e| match e {
            Event::ToolQueued {
                tool_use_id,
                batch_id,
                concurrent,
                ..
            } => Some((tool_use_id.clone(), *batch_id, *concurrent)),
            _ => None,
        })
        .collect();
    assert_eq!(
        batches,
        vec![
            ("a".into(), 1, true),
            ("w".into(), 2, false),
            ("b".into(), 3, true),
            ("c".into(), 3, true)
        ]
    );
}

#[tokio::test]
async fn the_concurrency_cap_holds() {
    let p = TestProject::new();
    let calls: Vec<ToolCall> = (0..6).map(|i| sleep(&format!("s{i}"), 40, true)).collect();
    run(&p, calls, 2).await;
    let mut running = 0i32;
    let mut peak = 0;
    for e in p.recorder.events() {
        match e {
            Event::ToolStarted { .. } => {
                running += 1;
                peak = peak.max(running);
            }
            Event::ToolCompleted { .. } => running -= 1,
            _ => {}
        }
    }
    assert_eq!(peak, 2);
}

#[tokio::test]
async fn a_panicking_or_invalid_safety_check_means_unsafe() {
    let p = TestProject::new();
    let (out, _) = run(
        &p,
        vec![
            sleep("a", 5, true),
            call("p", "TestPanicky", json!({"text": "boom"})),
            call("bad", "TestSleep", json!({"ms": "never"})),
            call("unknown", "Nope", json!({})),
        ],
        10,
    )
    .await;
    assert_eq!(ids(&out), vec!["a", "p", "bad", "unknown"]);
    assert!(
        !out[1].is_error,
        "the tool still runs, serially: {:?}",
        out[1].content
    );
    assert!(out[2].is_error && out[3].is_error);
    let concurrent: Vec<bool> = p
        .recorder
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::ToolQueued { concurrent, .. } => Some(*concurrent),
            _ => None,
        })
        .collect();
    assert_eq!(concurrent, vec![true, false, false, false]);
}

#[tokio::test]
async fn a_failing_command_cancels_its_running_siblings_but_not_the_turn() {
    let p = TestProject::new();
    let s = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
    let turn = CancellationToken::new();
    let exec = s.executor(turn.clone(), opts(10));
    exec.add(sleep("long1", 30_000, true));
    exec.add(call("fail", "TestSleep", json!({"ms": 20, "fail": true})));
    exec.add(sleep("long2", 30_000, true));
    exec.add(sleep("after", 5, false));
    let (out, _) = exec.finish().await;
    assert_eq!(ids(&out), vec!["long1", "fail", "long2", "after"]);
    assert!(text_of(&out[1].content).contains("failed after 20 ms"));
    for o in [&out[0], &out[2]] {
        assert!(o.is_error);
        assert!(
            text_of(&o.content).contains("parallel tool call"),
            "{}",
            text_of(&o.content)
        );
    }
    assert!(!out[3].is_error, "the next batch runs normally");
    assert!(!turn.is_cancelled());
}

#[tokio::test]
async fn abort_answers_every_call() {
    let p = TestProject::new();
    let s = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
    let turn = CancellationToken::new();
    let mut exec = s.executor(turn.clone(), opts(10));
    exec.add(sleep("r1", 30_000, true));
    exec.add(sleep("r2", 30_000, true));
    exec.add(sleep("w", 30_000, false));
    // Wait until the first two are running, then abort.
    loop {
        let started = p
            .recorder
            .events()
            .iter()
            .filter(|e| matches!(e, Event::ToolStarted { .. }))
            .count();
        if started == 2 {
            break;
        }
        tokio::task::yield_now().await;
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    turn.cancel();
    exec.add(sleep("late", 1, true));
    exec.close();
    let mut out = Vec::new();
    while let Some(o) = exec.next_result().await {
        out.push(o);
    }
    assert_eq!(ids(&out), vec!["r1", "r2", "w", "late"]);
    for o in &out {
        assert!(o.is_error);
        assert_eq!(o.error_class, Some(ErrorClass::Cancelled));
    }
    let started: Vec<String> = p
        .recorder
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::ToolStarted { tool_use_id } => Some(tool_use_id.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(
        started,
        vec!["r1", "r2"],
        "queued calls never start after an abort"
    );
    let cancelled: Vec<(String, bool)> = p
        .recorder
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::ToolCompleted {
                tool_use_id,
                cancelled,
                ..
            } => Some((tool_use_id, cancelled)),
            _ => None,
        })
        .collect();
    assert_eq!(cancelled.len(), 4);
    assert!(
        cancelled.iter().all(|(_, c)| *c),
        "front-ends are told each call was cancelled: {cancelled:?}"
    );
}

#[tokio::test]
async fn a_serial_modifier_applies_before_the_next_call() {
    let p = TestProject::new();
    let (out, ctx) = run(
        &p,
        vec![
            call("m", "TestSetCwd", json!({"path": "/tmp/first"})),
            call("n", "TestSetCwd", json!({"path": "/tmp/second"})),
        ],
        10,
    )
    .await;
    assert_eq!(
        text_of(&out[1].content),
        "/tmp/first",
        "the second call saw the first's change"
    );
    assert_eq!(ctx.exec.cwd, std::path::PathBuf::from("/tmp/second"));
}

#[tokio::test]
async fn concurrent_modifiers_apply_after_the_batch_in_call_order() {
    let p = TestProject::new();
    let start = p.project_dir().display().to_string();
    let (out, ctx) = run(
        &p,
        vec![
            call(
                "slow",
                "TestSetCwd",
                json!({"path": "/tmp/slow", "safe": true, "delay_ms": 80}),
            ),
            call(
                "fast",
                "TestSetCwd",
                json!({"path": "/tmp/fast", "safe": true, "delay_ms": 1}),
            ),
        ],
        10,
    )
    .await;
    // Both saw the context from before the batch.
    assert_eq!(text_of(&out[0].content), start);
    assert_eq!(text_of(&out[1].content), start);
    // Applied in call order, so the later call's change wins, although it finished first.
    assert_eq!(ctx.exec.cwd, std::path::PathBuf::from("/tmp/fast"));
}

#[tokio::test]
async fn mode_change_is_seen_by_later_permission_checks() {
    let p = TestProject::new();
    let (out, ctx) = run(
        &p,
        vec![
            call("plan", "TestSetMode", json!({"mode": "plan"})),
            call("t", "TestTouch", json!({"file_path": "f.txt"})),
        ],
        10,
    )
    .await;
    assert_eq!(ctx.permissions.mode, PermissionMode::Plan);
    assert!(
        out[1].denied,
        "plan mode refuses the write: {}",
        text_of(&out[1].content)
    );
    assert!(!p.project_dir().join("f.txt").exists());
}

#[tokio::test]
async fn a_mode_switch_asked_for_mid_turn_applies_before_the_next_call() {
    let p = TestProject::new();
    // Headless: what would ask is denied, so a denial shows the call was not pre-approved.
    let s = p.session_with(PermissionMode::Default, &[], None, true);
    let switch = ModeSwitch::default();
    let mut exec = s.executor(
        CancellationToken::new(),
        ExecutorOptions {
            mode_switch: switch.clone(),
            ..opts(10)
        },
    );
    exec.add(call("before", "TestTouch", json!({"file_path": "before.txt"})));
    let first = exec.next_result().await.unwrap();
    assert!(
        first.denied,
        "default mode asks for an edit: {}",
        text_of(&first.content)
    );

    // The user switches to acceptEdits while the turn is still going.
    switch.request(PermissionMode::AcceptEdits);
    exec.add(call("after", "TestTouch", json!({"file_path": "after.txt"})));
    let (rest, ctx) = exec.finish().await;
    assert!(
        !rest[0].is_error,
        "acceptEdits lets the edit run: {}",
        text_of(&rest[0].content)
    );
    assert!(p.project_dir().join("after.txt").exists());
    assert!(!p.project_dir().join("before.txt").exists());
    assert_eq!(ctx.permissions.mode, PermissionMode::AcceptEdits);
    assert_eq!(switch.take(), None, "the request was used up");

    let ev = p.recorder.events();
    let changed = ev
        .iter()
        .position(|e| {
            matches!(
                e,
                Event::ModeChanged {
                    mode: PermissionMode::AcceptEdits
                }
            )
        })
        .expect("the front-end is told");
    assert!(
        changed < span(&ev, "after").0,
        "the switch came before the call started"
    );
    assert!(
        ev.iter()
            .all(|e| !matches!(e, Event::ToolCompleted { cancelled: true, .. })),
        "a denial or a success is not a cancellation"
    );
}

fn arb_call() -> impl Strategy<Value = (u8, u64, bool, bool)> {
    (0u8..4, 0u64..25, any::<bool>(), any::<bool>())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Whatever the mix of safe, unsafe, failing and invalid calls, and whether the turn is aborted,
    /// every call gets exactly one result, in request order.
    #[test]
    fn every_call_gets_exactly_one_result(specs in proptest::collection::vec(arb_call(), 0..12), abort_after in proptest::option::of(0u64..30)) {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
        rt.block_on(async {
            let p = TestProject::new();
            let s = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
            let turn = CancellationToken::new();
            let exec = s.executor(turn.clone(), opts(3));
            let mut expected = Vec::new();
            for (i, (kind, ms, safe, fail)) in specs.iter().enumerate() {
                let id = format!("t{i}");
                let c = match kind {
                    0 => call(&id, "TestSleep", json!({"ms": ms, "safe": safe, "fail": fail})),
                    1 => call(&id, "TestEcho", json!({"text": "e"})),
                    2 => call(&id, "TestSleep", json!({"ms": "bad"})),
                    _ => call(&id, "TestSetCwd", json!({"path": "/tmp", "safe": safe})),
                };
                expected.push(id);
                exec.add(c);
            }
            if let Some(ms) = abort_after {
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                turn.cancel();
            }
            let (out, _) = exec.finish().await;
            assert_eq!(ids(&out), expected);
        });
    }
}

#[tokio::test]
async fn batch_ids_stay_unique_across_the_responses_of_a_session() {
    let p = TestProject::new();
    let s = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
    for round in 0..2 {
        let exec = s.executor(CancellationToken::new(), opts(10));
        exec.add(sleep(&format!("r{round}a"), 1, true));
        exec.add(sleep(&format!("r{round}b"), 1, false));
        exec.finish().await;
    }
    let ids: Vec<u64> = p
        .recorder
        .events()
        .iter()
        .filter_map(|e| match e {
            Event::ToolQueued { batch_id, .. } => Some(*batch_id),
            _ => None,
        })
        .collect();
    assert_eq!(ids, vec![1, 2, 3, 4]);
}

#[tokio::test]
async fn a_tool_cannot_enter_bypass_mode_when_settings_disable_it() {
    let p = TestProject::new();
    p.write(
        ".nerve/settings.json",
        r#"{"permissions": {"disableBypassPermissionsMode": "disable"}}"#,
    );
    let s = p.session_with(PermissionMode::AcceptEdits, &[], None, true);
    let exec = s.executor(CancellationToken::new(), opts(10));
    exec.add(call(
        "bypass",
        "TestSetMode",
        json!({"mode": "bypassPermissions"}),
    ));
    let (out, ctx) = exec.finish().await;
    assert_eq!(
        (out[0].is_error, text_of(&out[0].content)),
        (
            true,
            "bypassPermissions mode is disabled by settings (disableBypassPermissionsMode); the mode stays acceptEdits".to_string()
        )
    );
    assert_eq!(ctx.permissions.mode, PermissionMode::AcceptEdits);
}

/// A turn whose future is dropped in the middle of a batch (a closed window, a front-end that went
/// away) leaves nothing running: the executor owns its scheduler and every call it started, and
/// dropping it aborts them, a Bash call's processes with them. Neither the running command nor
/// the queued one ever finishes its work.
#[tokio::test]
async fn dropping_a_turn_mid_batch_leaves_no_call_running() {
    let p = TestProject::new();
    let s = p.builtin_session(PermissionMode::BypassPermissions, &[]);
    let exec = s.executor(CancellationToken::new(), opts(10));
    let dir = p.project_dir();
    let bash = |id: &str, command: String| ToolCall {
        id: id.into(),
        name: "Bash".into(),
        input: json!({ "command": command }),
    };
    exec.add(bash(
        "a",
        format!("sleep 2 && touch {}", dir.join("a.done").display()),
    ));
    exec.add(bash("b", format!("touch {}", dir.join("b.done").display())));
    // Wait until the first command runs (the second waits behind it: both write).
    let started = tokio::time::Instant::now();
    while !p
        .recorder
        .events()
        .iter()
        .any(|e| matches!(e, Event::ToolStarted { tool_use_id } if tool_use_id == "a"))
    {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(10),
            "a never started"
        );
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    drop(exec);
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    assert_eq!(
        (dir.join("a.done").exists(), dir.join("b.done").exists()),
        (false, false),
        "a call ran on after its turn was dropped"
    );
    assert!(
        !p.recorder
            .events()
            .iter()
            .any(|e| matches!(e, Event::ToolStarted { tool_use_id } if tool_use_id == "b")),
        "the queued call never started"
    );
}
