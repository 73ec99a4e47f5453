//! Benchmarks of the tool system's own cost, printed as figures and ratios measured side by side in
//! one run (absolute times on a shared machine are noise; ratios are not):
//! - the pipeline's overhead per call (coercion, validation, permissions, budgeting; the tool does
//!   nothing), against calling the tool directly; and in auto mode with a classifier, a call the
//!   rules settle and one the classifier judges, against the same calls in default mode (auto mode
//!   evaluates a call before its PreToolUse hooks, to start the classifier beside them);
//! - a batch of 10 concurrency-safe 200 ms calls through the executor, against one call and against
//!   the same 10 calls run one after another;
//! - a 2 KB compound Bash command (denied by a rule at its last part, so it never runs) through the
//!   executor and the pipeline, against one tree-sitter analysis of it: the ratio says how many
//!   times the command is analysed per call.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

#[path = "support/bash_calls.rs"]
mod bash_calls;

use std::time::{Duration, Instant};

use criterion::Criterion;
use nerve::executor::ExecutorOptions;
use nerve::permissions::RuleBehavior;
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionRuntime, SessionSetup};
use nerve::registry::ToolPool;
use nerve::tool::ProgressSink;
use nerve::tools::testing::all_test_tools;
use serde_json::json;
use tokio_util::sync::CancellationToken;

/// A classifier that allows at once (the bench measures the engine, not a model).
struct AllowingClassifier;

#[async_trait::async_trait]
impl nerve::permissions::AutoClassifier for AllowingClassifier {
    async fn classify(
        &self,
        _request: &nerve::permissions::ClassifierRequest<'_>,
    ) -> nerve::permissions::ClassifierVerdict {
        nerve::permissions::ClassifierVerdict::Allow {
            reason: "bench".into(),
        }
    }
}

fn runtime(dir: &std::path::Path) -> SessionRuntime {
    runtime_in(dir, None)
}

/// The bench's session, in `mode` (the settings' default when `None`) with a classifier.
fn runtime_in(dir: &std::path::Path, mode: Option<nerve::permissions::PermissionMode>) -> SessionRuntime {
    let mut options = ProjectOptions::new(dir);
    options.mode = mode;
    options.bare = true;
    options.data_dir = dir.join("data");
    // A realistic handful of rules, so matching is part of the measured cost.
    for (b, r) in [
        (RuleBehavior::Allow, "Bash(git *)"),
        (RuleBehavior::Allow, "Bash(cargo test *)"),
        (RuleBehavior::Deny, "Bash(rm -rf *)"),
        (RuleBehavior::Deny, "Read(./secrets/**)"),
        (RuleBehavior::Ask, "WebFetch(domain:example.com)"),
        (RuleBehavior::Allow, "Edit(/src/**)"),
    ] {
        options.cli_rules.push((b, r.to_string()));
    }
    let project = Project::open(options).expect("project opens");
    let mut tools = all_test_tools();
    tools.push(std::sync::Arc::new(nerve::tools::bash::BashTool));
    let pool = ToolPool::new(tools, false).expect("schemas compile");
    let setup = SessionSetup {
        classifier: Some(std::sync::Arc::new(AllowingClassifier)),
        ..SessionSetup::default()
    };
    project.session(pool, setup)
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    let dir = tempfile::tempdir().expect("tempdir");
    let session = runtime(dir.path());
    let call = ToolCall {
        id: "toolu_bench".into(),
        name: "TestEcho".into(),
        input: json!({"text": "hi"}),
    };

    // Overhead per call: the full pipeline versus the tool's own call.
    let mut c = Criterion::default()
        .configure_from_args()
        .measurement_time(Duration::from_secs(3))
        .warm_up_time(Duration::from_secs(1));
    c.bench_function("pipeline/echo (full path)", |b| {
        b.to_async(&rt).iter(|| async { session.run_one(&call).await });
    });
    let tool = session
        .pipeline
        .pool()
        .find("TestEcho")
        .expect("echo tool")
        .clone();
    c.bench_function("pipeline/echo (tool.call only)", |b| {
        let progress = ProgressSink::discard("x");
        b.to_async(&rt).iter(|| async {
            tool.call(tool.prepare(json!({"text": "hi"})), &session.context, &progress)
                .await
        });
    });
    c.final_summary();

    // Side-by-side timing of the same two, for a ratio in one run.
    let n = 20_000u32;
    let (full, direct) = rt.block_on(async {
        let t = Instant::now();
        for _ in 0..n {
            session.run_one(&call).await;
        }
        let full = t.elapsed() / n;
        let progress = ProgressSink::discard("x");
        let t = Instant::now();
        for _ in 0..n {
            let _ = tool
                .call(tool.prepare(json!({"text": "hi"})), &session.context, &progress)
                .await;
        }
        (full, t.elapsed() / n)
    });
    println!(
        "pipeline overhead per call: {:.1} µs (full path {:.1} µs, tool alone {:.1} µs)",
        (full.as_secs_f64() - direct.as_secs_f64()) * 1e6,
        full.as_secs_f64() * 1e6,
        direct.as_secs_f64() * 1e6
    );

    // Auto mode against default mode, side by side: a Bash call a deny rule settles (it never runs)
    // and a TestEcho call.
    let auto = runtime_in(dir.path(), Some(nerve::permissions::PermissionMode::Auto));
    let plain = runtime_in(dir.path(), Some(nerve::permissions::PermissionMode::Default));
    let denied = ToolCall {
        id: "toolu_denied".into(),
        name: "Bash".into(),
        input: json!({"command": "rm -rf ./build"}),
    };
    let rounds = if std::env::var_os("NERVE_BENCH_SCALE").is_some() {
        200
    } else {
        5_000
    };
    for (what, call) in [("a call a deny rule settles", &denied), ("TestEcho", &call)] {
        let (in_auto, in_default) = rt.block_on(async {
            let (mut in_auto, mut in_default) = (Duration::ZERO, Duration::ZERO);
            // Alternating blocks, so the machine's moods fall on both alike.
            for _ in 0..10 {
                let t = Instant::now();
                for _ in 0..rounds / 10 {
                    auto.run_one(call).await;
                }
                in_auto += t.elapsed();
                let t = Instant::now();
                for _ in 0..rounds / 10 {
                    plain.run_one(call).await;
                }
                in_default += t.elapsed();
            }
            (in_auto / rounds, in_default / rounds)
        });
        println!(
            "auto mode, {what}: {:.1} µs per call, default mode {:.1} µs -> auto/default = {:.2}x",
            in_auto.as_secs_f64() * 1e6,
            in_default.as_secs_f64() * 1e6,
            in_auto.as_secs_f64() / in_default.as_secs_f64()
        );
    }

    // A safe batch of 10 × 200 ms.
    let sleep_call = |i: usize| ToolCall {
        id: format!("toolu_{i}"),
        name: "TestSleep".into(),
        input: json!({"ms": 200}),
    };
    let (one, batch, serial) = rt.block_on(async {
        let t = Instant::now();
        session.run_one(&sleep_call(0)).await;
        let one = t.elapsed();

        let t = Instant::now();
        let exec = session.executor(CancellationToken::new(), ExecutorOptions::default());
        for i in 0..10 {
            exec.add(sleep_call(i));
        }
        let (results, _) = exec.finish().await;
        assert_eq!(results.len(), 10);
        let batch = t.elapsed();

        let t = Instant::now();
        for i in 0..10 {
            session.run_one(&sleep_call(i)).await;
        }
        (one, batch, t.elapsed())
    });
    println!(
        "batch of 10 × 200 ms: {:.0} ms; one call {:.0} ms; serial {:.0} ms; batch/one = {:.3}×; serial/batch = {:.2}×",
        batch.as_secs_f64() * 1e3,
        one.as_secs_f64() * 1e3,
        serial.as_secs_f64() * 1e3,
        batch.as_secs_f64() / one.as_secs_f64(),
        serial.as_secs_f64() / batch.as_secs_f64()
    );

    // A 2 KB compound command: what an agent writes to build, test and summarise in one call.
    let mut command = String::new();
    let parts = [
        "cd crates/engine",
        "git status --short",
        "cargo test --workspace --no-fail-fast 2>&1 | tail -n 40",
        "grep -rn 'TODO' src/ | wc -l",
        "find . -name '*.rs' -newer Cargo.toml | head -20",
        "for f in $(git diff --name-only HEAD~1); do echo \"$f\"; wc -l \"$f\"; done",
        "cat README.md | sed -n '1,40p' > /tmp/readme-head.txt",
    ];
    let mut i = 0;
    while command.len() < 2048 {
        if !command.is_empty() {
            command.push_str(if i % 3 == 0 { " ; " } else { " && " });
        }
        command.push_str(parts[i % parts.len()]);
        i += 1;
    }
    command.push_str(" && rm -rf build");
    // Each call a distinct command (a comment tells them apart), as in a session: nothing about
    // one call's command is known from an earlier call.
    let n = 300u32;
    let commands: Vec<String> = (0..n).map(|i| format!("{command} # run {i}")).collect();
    let bash_call = |i: usize| ToolCall {
        id: format!("toolu_bash_{i}"),
        name: "Bash".into(),
        input: json!({"command": commands[i], "description": "Build, test and summarise"}),
    };
    let (per_call, per_analysis) = rt.block_on(async {
        let t = Instant::now();
        for i in 0..n as usize {
            let exec = session.executor(CancellationToken::new(), ExecutorOptions::default());
            exec.add(bash_call(i));
            let (results, _) = exec.finish().await;
            assert!(results[0].is_error, "the rule denies it: {:?}", results[0]);
        }
        let per_call = t.elapsed() / n;
        let t = Instant::now();
        for c in &commands {
            std::hint::black_box(nerve::tools::bash::analyze(std::hint::black_box(c)));
        }
        (per_call, t.elapsed() / n)
    });
    println!(
        "bash {} B compound command (denied, never run): {:.0} µs per call through the executor; one analysis {:.0} µs; call/analysis = {:.2}×",
        command.len(),
        per_call.as_secs_f64() * 1e6,
        per_analysis.as_secs_f64() * 1e6,
        per_call.as_secs_f64() / per_analysis.as_secs_f64()
    );

    bash_steps(&rt);
}

/// A real Bash call, step by step (see the module's comment), in a small committed git work tree.
fn bash_steps(rt: &tokio::runtime::Runtime) {
    use bash_calls::{Launch, median, ms, plain_spawn, session, side_by_side};
    // Fewer in the short run (`NERVE_BENCH_SCALE` set).
    let short = std::env::var_os("NERVE_BENCH_SCALE").is_some();
    let calls = std::env::var("NERVE_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if short { 10 } else { 60 });
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap().join("project");
    std::fs::create_dir_all(root.join("src")).unwrap();
    for i in 0..50 {
        std::fs::write(root.join(format!("src/file_{i}.rs")), format!("fn f{i}() {{}}\n")).unwrap();
    }
    std::fs::write(root.join(".gitignore"), "stamp\n").unwrap();
    for args in [
        &["init", "-q"][..],
        &["add", "-A"],
        &["commit", "-q", "-m", "start"],
    ] {
        let ok = std::process::Command::new("git")
            .arg("-C")
            .arg(&root)
            .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
            .args(args)
            .status()
            .unwrap()
            .success();
        assert!(ok, "git {args:?}");
    }
    let data = dir.path().join("data");
    let stamp = root.join("stamp");
    let steps = [
        (
            "the engine spawns bash",
            session(&root, &data, Launch::Direct, false),
        ),
        (
            "+ through the sandbox helper",
            session(&root, &data, Launch::Supervised, false),
        ),
        (
            "+ the sandbox policy",
            session(&root, &data, Launch::Sandboxed, false),
        ),
        (
            "+ checkpoints (a git work tree)",
            session(&root, &data, Launch::Sandboxed, true),
        ),
    ];
    let sessions: Vec<_> = steps.iter().map(|(_, s)| s).collect();
    let sides = rt.block_on(side_by_side(&sessions, calls, &stamp));
    let spawn: Vec<Duration> = (0..calls).map(|_| plain_spawn(&root, &stamp)).collect();
    let spawn = median(&spawn);
    println!(
        "bash call, {calls} calls of each kind in turn, medians: from the call to its command's start (and the whole call)"
    );
    println!("  {:<34} {:>7.2} ms", "bash spawned alone", ms(spawn));
    let mut previous = spawn;
    for (k, (name, _)) in steps.iter().enumerate() {
        let to_start = median(&sides.to_start[k]);
        println!(
            "  {name:<34} {:>7.2} ms ({:+.2} ms; whole call {:.2} ms)",
            ms(to_start),
            ms(to_start) - ms(previous),
            ms(median(&sides.total[k]))
        );
        previous = to_start;
    }
}
