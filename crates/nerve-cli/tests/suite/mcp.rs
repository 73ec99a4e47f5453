//! `nerve` with MCP servers, against the engine's test MCP server (`nerve-test-mcp-server`, see
//! `crate::support::test_mcp_server`) and the scripted mock Messages API: `-p` with `--mcp-config` and
//! `--permission-prompt-tool`, project servers and their approval, `tools` and `run-tool`, an MCP
//! prompt as a slash command, and `nerve mcp` managing servers in each scope.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::{NERVE, TestProject, mock, nerve, test_mcp_server};
use nerve_mock_model::MockServer;
use serde_json::{Value, json};
use tokio::process::Command;

// ---- nerve -p ----

fn write_config(dir: &Path, file: &str, env: Value) -> PathBuf {
    let path = dir.join(file);
    std::fs::write(
        &path,
        json!({"mcpServers": {"test": {"command": test_mcp_server(), "env": env}}}).to_string(),
    )
    .unwrap();
    path
}

/// The `tool_result` blocks the model was sent, by tool_use id.
fn tool_results(server: &MockServer) -> Vec<(String, Value, bool)> {
    let mut out = Vec::new();
    for r in server.requests() {
        for m in r.body["messages"].as_array().unwrap() {
            for b in m["content"].as_array().into_iter().flatten() {
                if b["type"] == "tool_result" {
                    out.push((
                        b["tool_use_id"].as_str().unwrap().to_string(),
                        b["content"].clone(),
                        b["is_error"].as_bool().unwrap_or(false),
                    ));
                }
            }
        }
    }
    out.dedup_by(|a, b| a.0 == b.0);
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_calls_an_mcp_tool_from_mcp_config() {
    let p = TestProject::new();
    let config = write_config(p.dir.path(), "mcp.json", json!({}));
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "m1", "name": "mcp__test__echo", "input": {"text": "from mcp"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Done."}]}}
    ]))
    .await;
    let out = nerve(
        p.dir.path(),
        &server,
        &[
            "-p",
            "echo",
            "--mcp-config",
            config.to_str().unwrap(),
            "--allowedTools",
            "mcp__test__echo",
            "--output-format",
            "json",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["subtype"], "success", "{v}");
    assert_eq!(v["result"], "Done.");
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(tools.contains(&"mcp__test__echo".to_string()), "{tools:?}");
    let results = tool_results(&server);
    assert_eq!(results.len(), 1);
    assert!(results[0].1.to_string().contains("from mcp"), "{results:?}");
    assert!(!results[0].2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_asks_the_permission_prompt_tool() {
    let p = TestProject::new();
    let log = p.dir.path().join("server.log");
    let config = write_config(
        p.dir.path(),
        "mcp.json",
        json!({"ALLOW": "mcp__test__echo", "NERVE_TEST_MCP_LOG": log}),
    );
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "e1", "name": "mcp__test__echo", "input": {"text": "ok"}},
            {"type": "tool_use", "id": "a1", "name": "mcp__test__add", "input": {"a": 1, "b": 2}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Finished."}]}}
    ]))
    .await;
    let out = nerve(
        p.dir.path(),
        &server,
        &[
            "-p",
            "go",
            "--mcp-config",
            config.to_str().unwrap(),
            "--permission-prompt-tool",
            "mcp__test__approve",
            "--output-format",
            "json",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["result"], "Finished.", "{v}");
    let results = tool_results(&server);
    let echo = results.iter().find(|r| r.0 == "e1").unwrap();
    assert!(!echo.2 && echo.1.to_string().contains("ok"), "{results:?}");
    let add = results.iter().find(|r| r.0 == "a1").unwrap();
    assert!(add.2, "{results:?}");
    assert!(
        add.1
            .to_string()
            .contains("mcp__test__add is not on the approve list"),
        "{results:?}"
    );
    let denials = v["permission_denials"].as_array().unwrap();
    assert_eq!(denials.len(), 1, "{v}");
    // The prompt tool's updatedInput is what ran.
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains(r#""approved_by":"approve""#), "{log}");
    // The server did not outlive the session.
    let pid = log.lines().find_map(|l| l.strip_prefix("pid ")).unwrap();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "server {pid} still running"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_starts_project_servers_only_when_settings_approve_them() {
    let p = TestProject::new();
    write_config(&p.project_dir(), ".mcp.json", json!({}));
    std::fs::create_dir_all(p.home().join(".config")).unwrap();
    let steps = json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "a"}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "b"}]}}
    ]);
    let server = mock(steps).await;
    let out = nerve(p.dir.path(), &server, &["-p", "hi"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("MCP server `test` from .mcp.json is not started"),
        "{stderr}"
    );

    // The shared project settings cannot approve; the local ones can.
    p.write(".nerve/settings.json", r#"{"enableAllProjectMcpServers": true}"#);
    p.write(
        ".nerve/settings.local.json",
        r#"{"enabledMcpjsonServers": ["test"]}"#,
    );
    let out = nerve(p.dir.path(), &server, &["-p", "hi"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names = |i: usize| -> Vec<String> {
        server.requests()[i].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(!names(0).iter().any(|n| n.starts_with("mcp__")));
    assert!(
        names(1).contains(&"mcp__test__echo".to_string()),
        "{:?}",
        names(1)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_reports_a_bad_config_and_a_failing_server() {
    let p = TestProject::new();
    let bad = p.dir.path().join("bad.json");
    std::fs::write(&bad, "{\"mcpServers\": {\"x\": {\"type\": \"pipe\"}}}").unwrap();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "went on"}]}}
    ]))
    .await;
    let out = nerve(
        p.dir.path(),
        &server,
        &["-p", "hi", "--mcp-config", bad.to_str().unwrap()],
    )
    .output()
    .await
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("bad.json:1:") && stderr.contains("unknown server \"type\""),
        "{stderr}"
    );

    let broken = p.dir.path().join("broken.json");
    std::fs::write(
        &broken,
        r#"{"mcpServers": {"gone": {"command": "/nonexistent/srv"}}}"#,
    )
    .unwrap();
    let out = nerve(
        p.dir.path(),
        &server,
        &[
            "-p",
            "hi",
            "--mcp-config",
            broken.to_str().unwrap(),
            "--output-format",
            "stream-json",
        ],
    )
    .output()
    .await
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines[0]["mcp_servers"],
        json!([{"name": "gone", "status": "failed"}])
    );
    assert_eq!(lines.last().unwrap()["result"], "went on");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("warning: MCP server `gone` could not be started"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_and_run_tool_take_mcp_config_too() {
    let p = TestProject::new();
    let config = write_config(p.dir.path(), "mcp.json", json!({}));
    let cli = |args: &[&str]| {
        let mut c = Command::new(NERVE);
        c.args(args)
            .arg("--cwd")
            .arg(p.project_dir())
            .arg("--mcp-config")
            .arg(&config)
            .env("NERVE_DATA_DIR", p.dir.path().join("data"))
            .env("HOME", p.home())
            .env("XDG_CONFIG_HOME", p.home().join(".config"))
            .stdin(Stdio::null())
            .kill_on_drop(true);
        c
    };
    let out = cli(&["tools"]).output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let specs: Value = serde_json::from_slice(&out.stdout).unwrap();
    let add = specs
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "mcp__test__add")
        .unwrap();
    assert_eq!(add["input_schema"]["required"], json!(["a", "b"]));

    let out = cli(&["run-tool", "--yes", "mcp__test__add", r#"{"a": 40, "b": 2}"#])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["content"], json!([{"type": "text", "text": "42"}]));
}

// ---- nerve mcp ----

/// `nerve mcp ARGS` for the project in `dir/project`, with the user's config under `dir/home`.
async fn nerve_mcp(dir: &Path, args: &[&str]) -> (bool, String) {
    // Options before the server's command: after `--`, everything is the command's.
    let out = Command::new(NERVE)
        .arg("mcp")
        .arg(args[0])
        .arg("--cwd")
        .arg(dir.join("project"))
        .args(&args[1..])
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("home/.config"))
        .env("NERVE_DATA_DIR", dir.join("data"))
        .env("SECRET_TOKEN", "s3cret")
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    (
        out.status.success(),
        format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nerve_mcp_adds_lists_shows_and_removes_servers_in_each_scope() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let mcp = |args: Vec<&str>| {
        let dir = dir.path().to_path_buf();
        let args: Vec<String> = args.into_iter().map(str::to_string).collect();
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            nerve_mcp(&dir, &args).await
        }
    };
    let (ok, out) = mcp(vec![
        "add",
        "-s",
        "user",
        "-e",
        "TOKEN=${SECRET_TOKEN}",
        "tools",
        "--",
        test_mcp_server(),
    ])
    .await;
    assert!(ok, "{out}");
    assert!(
        out.contains("Added stdio MCP server tools to user config"),
        "{out}"
    );
    let (ok, out) = mcp(vec![
        "add",
        "-s",
        "project",
        "shared",
        "--",
        test_mcp_server(),
        "--flag",
    ])
    .await;
    assert!(ok, "{out}");
    let (ok, out) = mcp(vec!["add", "-s", "project", "shared", "--", test_mcp_server()]).await;
    assert!(!ok);
    assert!(
        out.contains("an MCP server named \"shared\" already exists in the project scope"),
        "{out}"
    );
    let (ok, out) = mcp(vec![
        "add",
        "-t",
        "http",
        "-H",
        "Authorization: Bearer ${SECRET_TOKEN}",
        "web",
        "http://127.0.0.1:9/mcp",
    ])
    .await;
    assert!(ok, "{out}");
    let (ok, out) = mcp(vec!["add", "-t", "http", "bad", "ftp://x"]).await;
    assert!(!ok);
    assert!(
        out.contains("\"ftp://x\" is not an http:// or https:// URL"),
        "{out}"
    );

    let written: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("home/.config/nerve/settings.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        written,
        json!({"mcpServers": {"tools": {"type": "stdio", "command": test_mcp_server(), "args": [], "env": {"TOKEN": "${SECRET_TOKEN}"}}}})
    );
    let shared: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.path().join("project/.mcp.json")).unwrap())
            .unwrap();
    assert_eq!(
        shared,
        json!({"mcpServers": {"shared": {"type": "stdio", "command": test_mcp_server(), "args": ["--flag"]}}})
    );

    let (ok, out) = mcp(vec!["list"]).await;
    assert!(ok, "{out}");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" - ")).collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert!(
        lines[0].starts_with(&format!("tools: {} - ✓ Connected (", test_mcp_server())),
        "{out}"
    );
    assert!(
        lines[1].starts_with("shared: ") && lines[1].contains("not approved"),
        "{out}"
    );
    assert!(
        lines[2].starts_with(
            "web: http http://127.0.0.1:9/mcp - ✗ Failed: MCP server `web` failed to initialize"
        ),
        "{out}"
    );

    // A tool switched off, then the whole server: `list` and `get` say so, as the app shows it.
    let (ok, out) = mcp(vec!["disable", "tools", "echo"]).await;
    assert!(ok && out.contains("Switched mcp__tools__echo off in "), "{out}");
    let (ok, out) = mcp(vec!["list"]).await;
    assert!(ok && out.contains(", 1 switched off)"), "{out}");
    let (ok, out) = mcp(vec!["get", "tools"]).await;
    assert!(ok && out.contains("    mcp__tools__echo (off)\n"), "{out}");
    let (ok, out) = mcp(vec!["disable", "tools"]).await;
    assert!(ok && out.contains("Switched MCP server tools off in "), "{out}");
    let (ok, out) = mcp(vec!["list"]).await;
    assert!(
        ok && out.contains("tools: ") && out.contains(" - switched off (`nerve mcp enable tools`)"),
        "{out}"
    );
    for args in [
        vec!["enable", "tools"],
        vec!["enable", "tools", "mcp__tools__echo"],
    ] {
        let (ok, out) = mcp(args).await;
        assert!(ok, "{out}");
    }
    let (ok, out) = mcp(vec!["list"]).await;
    assert!(ok && !out.contains("switched off"), "{out}");

    let (ok, out) = mcp(vec!["get", "web"]).await;
    assert!(ok, "{out}");
    assert!(out.contains("Scope: local ("), "{out}");
    assert!(out.contains("Header: Authorization: …"), "{out}");
    assert!(!out.contains("s3cret"), "header values are not printed: {out}");

    let (ok, out) = mcp(vec!["remove", "tools"]).await;
    assert!(ok, "{out}");
    let (ok, out) = mcp(vec!["remove", "tools"]).await;
    assert!(!ok);
    assert!(
        out.contains("no MCP server named \"tools\" is configured"),
        "{out}"
    );
    let (ok, out) = mcp(vec!["login", "shared"]).await;
    assert!(!ok);
    assert!(out.contains("there is nothing to sign in to"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_runs_an_mcp_prompt_as_a_slash_command() {
    let p = TestProject::new();
    let config = write_config(p.dir.path(), "mcp.json", json!({}));
    let server = mock(json!([
        {"expect": {"last_user_text_contains": "Please review src/lib.rs, focusing on the error paths."},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Reviewed."}]}}
    ]))
    .await;
    let out = nerve(
        p.dir.path(),
        &server,
        &[
            "-p",
            "/mcp__test__review src/lib.rs the error paths",
            "--mcp-config",
            config.to_str().unwrap(),
            "--output-format",
            "json",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    assert_eq!(v["result"], "Reviewed.", "{v}");
    assert_eq!(server.remaining_steps(), 0);

    // A prompt missing its required argument is a clear error, before any request.
    let server = mock(json!([])).await;
    let out = nerve(
        p.dir.path(),
        &server,
        &[
            "-p",
            "/mcp__test__review",
            "--mcp-config",
            config.to_str().unwrap(),
        ],
    )
    .output()
    .await
    .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("/mcp__test__review needs the argument `file` (The file to review)"),
        "{stderr}"
    );
    assert!(server.requests().is_empty());
}
