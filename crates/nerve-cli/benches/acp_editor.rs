//! What the editor's part costs in `nerve acp`, side by side in one run: two `nerve acp` processes
//! driven by the protocol's own client library, one whose client offers its file system and
//! terminals and one whose client offers neither, taking turns. Each turn reads 500 lines of a
//! source file of 1.4 MB (20,000 lines; with an editor, its whole buffer is fetched and compared
//! with the disk), edits one line of it (through the editor's buffer, which saves it, or straight
//! to disk) and runs a command (in the editor's terminal through the sandbox helper, or by the
//! engine). Each call is timed from its start to its completion as the client sees them
//! (`tool_call_update` in progress → completed); medians over the rounds.
//!
//! `NERVE_BENCH_ROUNDS` sets the rounds (default 20); `NERVE_BENCH_SCALE` divides the file (the
//! test command's short run uses 50).
#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // a benchmark binary: failing loudly is right

#[path = "../tests/support/acp_editor.rs"]
mod acp_editor;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use acp_editor::{Received, TestEditor, connect_editor};
use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{AcpAgent, AcpAgentConfig, Agent};
use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};

const CALLS: [&str; 3] = ["read", "edit", "bash"];

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|n| *n > 0)
        .unwrap_or(default)
}

fn agent(root: &Path, model_url: &str) -> AcpAgent {
    AcpAgent::new(
        AcpAgentConfig::new(env!("CARGO_BIN_EXE_nerve"))
            .arg("acp")
            .env("ANTHROPIC_BASE_URL", model_url)
            .env("ANTHROPIC_API_KEY", "sk-bench")
            .env("NERVE_KEYRING", "off")
            .env("NERVE_ACP_CLIENT_TOOLS", "1")
            .env("NERVE_DATA_DIR", root.join("data").display().to_string())
            .env("HOME", root.join("home").display().to_string())
            .env("XDG_CONFIG_HOME", root.join("home/.config").display().to_string()),
    )
}

/// A project with `big.rs` of `lines` lines, `echo` allowed without asking.
fn project(root: &Path, lines: usize) -> PathBuf {
    let dir = root.join("project");
    std::fs::create_dir_all(dir.join(".nerve")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(
        dir.join(".nerve/settings.json"),
        json!({"permissions": {"allow": ["Bash(echo *)"]}}).to_string(),
    )
    .unwrap();
    let mut text = String::new();
    for i in 0..lines {
        text.push_str(&format!(
            "    let value_{i:05} = compute({i}); // a line of ordinary source code\n"
        ));
    }
    std::fs::write(dir.join("big.rs"), text).unwrap();
    dir
}

/// One turn's model steps for the project at `dir`, round `round`.
fn turn_steps(dir: &Path, round: usize, prefix: &str) -> Vec<Value> {
    let file = dir.join("big.rs").display().to_string();
    let id = |call: &str| format!("{prefix}-{call}-{round}");
    let step = |block: Value| json!({"response": {"type": "stream", "blocks": [block]}});
    vec![
        step(
            json!({"type": "tool_use", "id": id("read"), "name": "Read", "input": {"file_path": file, "limit": 500}}),
        ),
        step(
            json!({"type": "tool_use", "id": id("edit"), "name": "Edit", "input": {
            "file_path": file,
            "old_string": format!("let value_{round:05} = compute({round});"),
            "new_string": format!("let value_{round:05} = compute({round}) + 1;")}}),
        ),
        step(json!({"type": "tool_use", "id": id("bash"), "name": "Bash",
            "input": {"command": format!("echo round {round}")}})),
        json!({"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}),
    ]
}

async fn open(cx: &ConnectionTo<Agent>, cwd: &Path, offer: bool) -> acp::SessionId {
    let caps = if offer {
        acp::ClientCapabilities::new()
            .fs(acp::FileSystemCapabilities::new()
                .read_text_file(true)
                .write_text_file(true))
            .terminal(true)
    } else {
        acp::ClientCapabilities::new()
    };
    cx.send_request(acp::InitializeRequest::new(ProtocolVersion::V1).client_capabilities(caps))
        .block_task()
        .await
        .unwrap();
    let sid = cx
        .send_request(acp::NewSessionRequest::new(cwd.to_path_buf()))
        .block_task()
        .await
        .unwrap()
        .session_id;
    // Edits run without asking, as after "accept edits" in the editor's mode picker.
    cx.send_request(acp::SetSessionModeRequest::new(sid.clone(), "acceptEdits"))
        .block_task()
        .await
        .unwrap();
    sid
}

/// Runs one turn and returns each call's time from in progress to completed, by call.
async fn turn(cx: &ConnectionTo<Agent>, sid: &acp::SessionId, seen: &Received) -> HashMap<String, Duration> {
    let done = cx
        .send_request(acp::PromptRequest::new(
            sid.clone(),
            vec![acp::ContentBlock::from("go")],
        ))
        .block_task()
        .await
        .unwrap();
    assert_eq!(done.stop_reason, acp::StopReason::EndTurn);
    let mut started = HashMap::new();
    let mut took = HashMap::new();
    for (at, update) in seen.take_timed() {
        let acp::SessionUpdate::ToolCallUpdate(u) = update else {
            continue;
        };
        let call = CALLS
            .into_iter()
            .find(|c| u.tool_call_id.0.contains(&format!("-{c}-")))
            .unwrap()
            .to_string();
        match u.fields.status {
            Some(acp::ToolCallStatus::InProgress) => {
                started.insert(call, at);
            }
            Some(acp::ToolCallStatus::Completed) => {
                took.insert(call.clone(), at - started[&call]);
            }
            Some(acp::ToolCallStatus::Failed) => panic!("{call} failed: {:?}", u.fields.content),
            _ => {}
        }
    }
    assert_eq!(took.len(), CALLS.len(), "{took:?}");
    took
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rounds = env_number("NERVE_BENCH_ROUNDS", 20);
    let lines = (20_000 / env_number("NERVE_BENCH_SCALE", 1)).max(rounds + 1);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (with_root, without_root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (with_dir, without_dir) = (
        project(with_root.path(), lines),
        project(without_root.path(), lines),
    );
    let bytes = std::fs::metadata(with_dir.join("big.rs")).unwrap().len();
    // The turns alternate: the editor's session, then the plain one, round after round.
    let steps: Vec<Value> = (0..rounds)
        .flat_map(|r| {
            let mut both = turn_steps(&with_dir, r, "with");
            both.extend(turn_steps(&without_dir, r, "without"));
            both
        })
        .collect();
    let server = rt.block_on(async {
        MockServer::start(Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap())
            .await
            .unwrap()
    });

    let times = rt.block_on(async {
        let (with_seen, without_seen) = (Received::default(), Received::default());
        let (seen_a, seen_b) = (with_seen.clone(), without_seen.clone());
        let url = server.url();
        let (without_agent, without_cwd) = (agent(without_root.path(), &url), without_dir.clone());
        let mut times: Vec<(HashMap<String, Duration>, HashMap<String, Duration>)> = Vec::new();
        let out = &mut times;
        connect_editor(
            agent(with_root.path(), &url),
            with_seen,
            TestEditor::default(),
            async move |with_cx, _| {
                let with_sid = open(&with_cx, &with_dir, true).await;
                connect_editor(
                    without_agent,
                    without_seen,
                    TestEditor::default(),
                    async move |without_cx, _| {
                        let without_sid = open(&without_cx, &without_cwd, false).await;
                        for _ in 0..rounds {
                            let with = turn(&with_cx, &with_sid, &seen_a).await;
                            let without = turn(&without_cx, &without_sid, &seen_b).await;
                            out.push((with, without));
                        }
                        Ok(())
                    },
                )
                .await
            },
        )
        .await
        .unwrap();
        times
    });
    assert_eq!(server.remaining_steps(), 0);

    println!(
        "acp_editor: {rounds} turns each, a file of {lines} lines ({} KB); per call, median, from start to completion as the editor sees it",
        bytes / 1000
    );
    for (call, what) in [
        (
            "read",
            "Read 500 lines (with: the whole buffer fetched and compared)",
        ),
        (
            "edit",
            "Edit one line (with: written through the editor's buffer, which saves)",
        ),
        (
            "bash",
            "Bash `echo` (with: in the editor's terminal, through the sandbox helper)",
        ),
    ] {
        let with = median(times.iter().map(|(w, _)| w[call]).collect());
        let without = median(times.iter().map(|(_, w)| w[call]).collect());
        println!(
            "{what}: with the editor {:.2} ms, without {:.2} ms: {:.2}x",
            ms(with),
            ms(without),
            ms(with) / ms(without)
        );
    }
}
