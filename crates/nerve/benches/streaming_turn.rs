//! A turn that streams three slow tool calls with pauses between their blocks, against the scripted
//! mock of the Messages API. Prints, measured side by side in one run, the time until the last tool
//! result against:
//! - the lower bound: each tool starts the moment its block completes (last block + one tool time);
//! - waiting for the whole message first: message end + the three tools run as one parallel batch
//!   (measured right after, on the same machine).
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use nerve::agent::{Agent, AgentConfig};
use nerve::events::{Event, EventSink};
use nerve::executor::ExecutorOptions;
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig};
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::ToolPool;
use nerve::tools::testing::all_test_tools;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;
use tokio_util::sync::CancellationToken;

const TOOL_MS: u64 = 400;
const GAP_MS: u64 = 300;

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        for (label, safe, trailing_ms) in [
            ("three read-only (parallel) tools, the model writes on for 600 ms after the last", true, 600),
            ("three serial (not concurrency-safe) tools", false, 0),
        ] {
            let mut streaming = Vec::new();
            let mut lower = Vec::new();
            let mut wait_all = Vec::new();
            for round in 0..5 {
                let (s, l, w) = one_round(round, safe, trailing_ms).await;
                streaming.push(s);
                lower.push(l);
                wait_all.push(w);
            }
            let med = |v: &mut Vec<f64>| {
                v.sort_by(f64::total_cmp);
                v[v.len() / 2]
            };
            let (s, l, w) = (med(&mut streaming), med(&mut lower), med(&mut wait_all));
            println!("{label}: {TOOL_MS} ms each, {GAP_MS} ms between their blocks (median of 5 rounds)");
            println!("  streaming executor: last result at {s:.0} ms");
            println!("  lower bound (each tool starts when its block completes): {l:.0} ms -> streaming/lower = {:.3}x", s / l);
            println!("  waiting for the whole message first: {w:.0} ms -> wait/streaming = {:.2}x", w / s);
        }
    });
}

async fn one_round(round: usize, safe: bool, trailing_ms: u64) -> (f64, f64, f64) {
    let block = |i: usize, delay: u64| {
        json!({"type": "tool_use", "id": format!("t{round}_{i}"), "name": "TestSleep",
        "input": {"ms": TOOL_MS, "safe": safe}, "delay_ms": delay})
    };
    let mut blocks = vec![block(0, 0), block(1, GAP_MS), block(2, GAP_MS)];
    if trailing_ms > 0 {
        blocks.push(
            json!({"type": "text", "text": "Now I will summarise what I found.", "delay_ms": trailing_ms}),
        );
    }
    let scenario = json!({"steps": [
        {"response": {"type": "stream", "blocks": blocks}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}}
    ]});
    let server = MockServer::start(Scenario::from_json(&scenario.to_string()).unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = ProjectOptions::new(dir.path());
    options.bare = true;
    options.data_dir = dir.path().join("data");
    options.mode = Some(nerve::permissions::PermissionMode::BypassPermissions);
    let project = Project::open(options).unwrap();
    let start = Instant::now();
    let log: Arc<Mutex<Vec<(Duration, Event)>>> = Arc::default();
    let sink_log = Arc::clone(&log);
    let events = EventSink::new(move |e| sink_log.lock().unwrap().push((start.elapsed(), e)));
    let pool = ToolPool::new(all_test_tools(), false).unwrap();
    let runtime = project.session(
        pool,
        SessionSetup {
            events,
            headless: true,
            ..SessionSetup::default()
        },
    );
    let batch_runtime = project.session(
        ToolPool::new(all_test_tools(), false).unwrap(),
        SessionSetup::default(),
    );
    let client = ModelClient::new(ModelConfig::with_base_url_override(
        ApiKey::new("k"),
        Some(server.url()),
    ))
    .unwrap();
    let mut agent = Agent::new(
        client,
        runtime,
        AgentConfig::new("bench"),
        vec!["bench".into()],
        None,
    );
    agent.send("go", CancellationToken::new()).await;

    let log = log.lock().unwrap().clone();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let last_result = log
        .iter()
        .filter(|(_, e)| matches!(e, Event::ToolCompleted { .. }))
        .map(|(t, _)| ms(*t))
        .fold(0.0, f64::max);
    // When each block completed (the executor queues a call the moment its block is complete).
    let queued: Vec<f64> = log
        .iter()
        .filter(|(_, e)| matches!(e, Event::ToolQueued { .. }))
        .map(|(t, _)| ms(*t))
        .collect();
    let tool = TOOL_MS as f64;
    let lower_bound = if safe {
        queued.iter().map(|q| q + tool).fold(0.0, f64::max)
    } else {
        queued
            .iter()
            .fold(0.0, |prev_end: f64, q| prev_end.max(*q) + tool)
    };
    let message_end = log
        .iter()
        .find(|(_, e)| matches!(e, Event::AssistantMessage { .. }))
        .map(|(t, _)| ms(*t))
        .unwrap();
    // The same three calls started only after the message: measured, not assumed.
    let t = Instant::now();
    let exec = batch_runtime.executor(CancellationToken::new(), ExecutorOptions::default());
    for i in 0..3 {
        exec.add(ToolCall {
            id: format!("b{i}"),
            name: "TestSleep".into(),
            input: json!({"ms": TOOL_MS, "safe": safe}),
        });
    }
    let _ = exec.finish().await;
    let batch = ms(t.elapsed());
    (last_result, lower_bound, message_end + batch)
}
