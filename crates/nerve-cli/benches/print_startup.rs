//! `nerve -p` from process start to its first request at the (mock) Messages API, against starting
//! a process that does nothing (`true`) and `nerve --version`, measured side by side, 30 rounds
//! each (`NERVE_BENCH_ROUNDS`), medians and p90. The key comes from the environment, as in CI
//! scripts; the project is a small folder with settings and a `.mcp.json` nobody approved.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;

fn nerve_binary() -> std::path::PathBuf {
    // The binary cargo built with this bench, in the same profile (release under `cargo bench`).
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_nerve"))
}

fn stats(mut v: Vec<f64>) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    (v[v.len() / 2], v[v.len() * 9 / 10])
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rounds: usize = std::env::var("NERVE_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let nerve = nerve_binary();
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("project");
    std::fs::create_dir_all(project.join(".nerve")).unwrap();
    std::fs::write(
        project.join(".nerve/settings.json"),
        json!({"permissions": {"allow": ["Bash(git status)"], "deny": ["Read(./secrets/**)"]}}).to_string(),
    )
    .unwrap();
    std::fs::write(
        project.join(".mcp.json"),
        json!({"mcpServers": {"unapproved": {"command": "/nonexistent"}}}).to_string(),
    )
    .unwrap();
    let steps: Vec<_> = (0..rounds)
        .map(|_| json!({"response": {"type": "stream", "blocks": [{"type": "text", "text": "hi"}]}}))
        .collect();
    let server = rt.block_on(async {
        MockServer::start(Scenario::from_json(&json!({"steps": steps}).to_string()).unwrap())
            .await
            .unwrap()
    });

    let mut to_request = Vec::new();
    let mut total = Vec::new();
    for round in 0..rounds {
        let before = server.requests().len();
        let start = Instant::now();
        let mut child = Command::new(&nerve)
            .args(["-p", "hello", "--cwd"])
            .arg(&project)
            .env("ANTHROPIC_API_KEY", "sk-bench")
            .env("ANTHROPIC_BASE_URL", server.url())
            .env("NERVE_DATA_DIR", dir.path().join("data"))
            .env("HOME", dir.path().join("home"))
            .env("XDG_CONFIG_HOME", dir.path().join("home/.config"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        while server.requests().len() == before {
            std::thread::sleep(Duration::from_micros(100));
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "round {round}: no request"
            );
        }
        to_request.push(start.elapsed().as_secs_f64() * 1e3);
        child.wait().unwrap();
        total.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let time = |program: &std::path::Path, args: &[&str]| {
        let v: Vec<f64> = (0..rounds)
            .map(|_| {
                let start = Instant::now();
                Command::new(program)
                    .args(args)
                    .stdout(Stdio::null())
                    .status()
                    .unwrap();
                start.elapsed().as_secs_f64() * 1e3
            })
            .collect();
        stats(v)
    };
    let (true_med, _) = time(std::path::Path::new("true"), &[]);
    let (version_med, _) = time(&nerve, &["--version"]);
    let (req_med, req_p90) = stats(to_request);
    let (total_med, _) = stats(total);
    println!("nerve -p, {rounds} rounds (medians):");
    println!(
        "  process start to first request: {req_med:.1} ms (p90 {req_p90:.1} ms); whole run {total_med:.1} ms"
    );
    println!(
        "  `true` (a process that does nothing): {true_med:.2} ms; `nerve --version`: {version_med:.1} ms"
    );
    println!(
        "  first request / `nerve --version` = {:.2}x (what -p does before asking beyond starting the binary)",
        req_med / version_med
    );
}
