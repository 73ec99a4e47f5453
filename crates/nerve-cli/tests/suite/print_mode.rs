//! `nerve -p` as scripts use it, against the scripted mock Messages API, including a resume after
//! the process was killed with SIGKILL in the middle of a tool call.

use std::path::Path;

use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::Command;

use crate::support::mock;

/// `nerve ARGS` against `server` (see `support::nerve`), without the keyring, with the test tools.
fn nerve(dir: &Path, server: &MockServer, args: &[&str]) -> Command {
    let mut c = crate::support::nerve(dir, server, args);
    c.env("NERVE_KEYRING", "off").env("NERVE_TEST_TOOLS", "1");
    c
}

/// Resumes `session_id` with the prompt "go on": its JSON result (null when there is none) and
/// its stderr.
async fn go_on(dir: &Path, server: &MockServer, session_id: &str) -> (Value, String) {
    let out = nerve(
        dir,
        server,
        &["-p", "go on", "--resume", session_id, "--output-format", "json"],
    )
    .output()
    .await
    .unwrap();
    (
        serde_json::from_slice(&out.stdout).unwrap_or(Value::Null),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn setup() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("project")).unwrap();
    std::fs::create_dir_all(d.path().join("home/.config")).unwrap();
    d
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_and_json_output() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Hello there."}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Again."}],
                      "usage": {"input_tokens": 1000, "output_tokens": 50}}}
    ]))
    .await;
    let out = nerve(d.path(), &server, &["-p", "hi"]).output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Hello there.");
    let out = nerve(
        d.path(),
        &server,
        &[
            "-p",
            "hi",
            "--output-format",
            "json",
            "--model",
            "claude-sonnet-4-5",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["type"], "result");
    assert_eq!(v["subtype"], "success");
    assert_eq!(v["result"], "Again.");
    assert_eq!(v["usage"]["input_tokens"], 1000);
    assert_eq!(v["permission_denials"], json!([]));
    // 1,000 input and 50 output tokens at $3 / $15 per million.
    assert!(
        (v["turn_cost_usd"].as_f64().unwrap() - 0.00375).abs() < 1e-9,
        "{v}"
    );
    assert_eq!(v["turn_cost_usd"], v["total_cost_usd"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_json_follows_claude_codes_events_and_lists_denials() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "w1", "name": "TestTouch", "input": {"file_path": "x.txt"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Could not write."}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &["-p", "write x", "--output-format", "stream-json", "--verbose"],
    )
    .output()
    .await
    .unwrap();
    let lines: Vec<Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0]["type"], "system");
    assert_eq!(lines[0]["subtype"], "init");
    assert!(
        lines[0]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "TestTouch")
    );
    let kinds: Vec<&str> = lines
        .iter()
        .filter_map(|l| l["type"].as_str())
        .filter(|t| *t != "nerve_event")
        .collect();
    assert_eq!(
        kinds,
        vec!["system", "user", "assistant", "user", "assistant", "result"]
    );
    // The messages are printed as the Messages API has them (the prompt, the call, its result).
    let messages: Vec<&Value> = lines
        .iter()
        .filter(|l| l["type"] == "user" || l["type"] == "assistant")
        .map(|l| &l["message"])
        .collect();
    assert_eq!(
        messages[0],
        &json!({"role": "user", "content": [{"type": "text", "text": "write x"}]})
    );
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "tool_use", "id": "w1", "name": "TestTouch", "input": {"file_path": "x.txt"}})
    );
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "w1");
    assert_eq!(messages[2]["content"][0]["is_error"], true);
    let result = lines.last().unwrap();
    assert_eq!(result["permission_denials"][0]["tool_name"], "TestTouch");
    assert_eq!(result["permission_denials"][0]["tool_use_id"], "w1");
    assert!(!d.path().join("project/x.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_after_kill_9_answers_the_interrupted_call() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "sleeper", "name": "TestSleep", "input": {"ms": 60000}}]}},
        {"expect": {"tool_result": {"tool_use_id": "sleeper", "is_error": true, "contains": "Interrupted"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Picking up where we left off."}]}}
    ]))
    .await;
    let mut child = nerve(
        d.path(),
        &server,
        &["-p", "sleep", "--output-format", "stream-json", "--verbose"],
    )
    .spawn()
    .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut session_id = String::new();
    while let Some(line) = lines.next_line().await.unwrap() {
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "system" {
            session_id = v["session_id"].as_str().unwrap().to_string();
        }
        if v["type"] == "nerve_event" && v["event"]["type"] == "tool_started" {
            break;
        }
    }
    assert!(!session_id.is_empty());
    child.start_kill().unwrap(); // SIGKILL
    child.wait().await.unwrap();

    let (v, stderr) = go_on(d.path(), &server, &session_id).await;
    assert_eq!(v["result"], "Picking up where we left off.", "{v} {stderr}");
    assert_eq!(v["session_id"], session_id.as_str());
}

/// The processes whose command line contains `needle`.
fn processes_running(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        let zombie = std::fs::read_to_string(entry.path().join("stat")).is_ok_and(|s| {
            s.rsplit(')')
                .next()
                .is_some_and(|r| r.trim_start().starts_with('Z'))
        });
        if cmdline.contains(needle) && !zombie {
            found.push(pid);
        }
    }
    found
}

/// Crash safety: a headless session with a Bash command (and its background child) running is
/// killed with SIGKILL at a random point (20 seeds: while the model streams, while the tools run),
/// then resumed. The resumed conversation is valid (the mock refuses any tool_use left unanswered),
/// the prompt that was sent is still there, and no process the session started outlives it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_points_loses_nothing_and_leaves_no_process() {
    for seed in 0..20u64 {
        // xorshift: a fixed, different kill point per seed.
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let kill_after_ms = x % 700;
        let marker = format!("9.{seed:02}7");
        let d = setup();
        std::fs::write(d.path().join("project/notes.md"), "# Notes\n").unwrap();
        if !crate::support::sandbox_available("commands run unsandboxed, still supervised") {
            // Without Landlock every command would ask (and headless, be refused): run them
            // unsandboxed, still supervised, so the test still kills commands that run.
            std::fs::create_dir_all(d.path().join("project/.nerve")).unwrap();
            std::fs::write(
                d.path().join("project/.nerve/settings.local.json"),
                r#"{"sandbox": {"enabled": false}}"#,
            )
            .unwrap();
        }
        let server = mock(json!([
            {"response": {"type": "stream", "delta_delay_ms": 15, "blocks": [
                {"type": "text", "text": ["Looking ", "at ", "the ", "notes ", "and ", "waiting."]},
                {"type": "tool_use", "id": "toolu_read", "name": "Read", "input": {"file_path": "notes.md"}},
                {"type": "tool_use", "id": "toolu_wait", "name": "Bash",
                 "input": {"command": format!("sleep {marker} & sleep {marker}"), "description": "Wait"}}
            ]}},
            {"expect": {"last_user_text_contains": "go on"},
             "response": {"type": "stream", "blocks": [{"type": "text", "text": "Resumed."}]}}
        ]))
        .await;
        let mut child = nerve(
            d.path(),
            &server,
            &[
                "-p",
                &format!("Crash test {seed}"),
                "--output-format",
                "stream-json",
                "--verbose",
                "--permission-mode",
                "bypassPermissions",
            ],
        )
        .spawn()
        .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut session_id = String::new();
        while let Some(line) = lines.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "system" {
                session_id = v["session_id"].as_str().unwrap().to_string();
                break;
            }
        }
        assert!(!session_id.is_empty(), "seed {seed}");
        // Kill once the model was asked (the prompt is acknowledged), at the seed's point after.
        while server.requests().is_empty() {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        tokio::time::sleep(std::time::Duration::from_millis(kill_after_ms)).await;
        child.start_kill().unwrap(); // SIGKILL
        child.wait().await.unwrap();

        let started = std::time::Instant::now();
        while !processes_running(&format!("sleep {marker}")).is_empty() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(5),
                "seed {seed} (killed after {kill_after_ms} ms): commands outlived the session: {:?}",
                processes_running(&format!("sleep {marker}"))
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }

        let (v, stderr) = go_on(d.path(), &server, &session_id).await;
        assert_eq!(
            v["result"], "Resumed.",
            "seed {seed} (killed after {kill_after_ms} ms): {v} {stderr}"
        );
        let resumed = server.requests().last().unwrap().body.clone();
        let first = &resumed["messages"][0]["content"];
        assert!(
            first.to_string().contains(&format!("Crash test {seed}")),
            "seed {seed}: {first}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn disallowed_tools_are_removed_and_max_turns_ends_the_turn() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "e", "name": "TestEcho", "input": {"text": "x"}}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &[
            "-p",
            "go",
            "--output-format",
            "json",
            "--max-turns",
            "1",
            "--disallowedTools",
            "TestTouch,TestNoop",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["subtype"], "error_max_turns");
    let tools: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect();
    assert!(!tools.contains(&"TestTouch".to_string()) && tools.contains(&"TestEcho".to_string()));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_key_is_a_clear_error() {
    let d = setup();
    let server = mock(json!([])).await;
    let out = nerve(d.path(), &server, &["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ANTHROPIC_API_KEY"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_listed_and_a_fork_continues_the_conversation() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "first"}]}},
        {"expect": {"message_count": 3, "last_user_text_contains": "branch off"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "forked"}]}}
    ]))
    .await;
    let out = nerve(d.path(), &server, &["-p", "hello", "--output-format", "json"])
        .output()
        .await
        .unwrap();
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let original = first["session_id"].as_str().unwrap().to_string();
    let list = nerve(d.path(), &server, &["sessions"]).output().await.unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(list[0]["session_id"], original.as_str());
    assert_eq!(list[0]["title"], "hello");
    let fork = nerve(d.path(), &server, &["sessions", "--fork", &original])
        .output()
        .await
        .unwrap();
    let fork_id = String::from_utf8_lossy(&fork.stdout).trim().to_string();
    assert_ne!(fork_id, original);
    let out = nerve(
        d.path(),
        &server,
        &[
            "-p",
            "branch off",
            "--resume",
            &fork_id,
            "--output-format",
            "json",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "forked", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_persisted_output_index_is_no_session() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "toolu_seq", "name": "Bash", "input": {"command": "seq 1 100000"}}
        ]}},
        {"expect": {"tool_result": {"tool_use_id": "toolu_seq", "contains": "persisted-output"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "counted"}]}}
    ]))
    .await;
    let out = nerve(d.path(), &server, &["-p", "count", "--output-format", "json"])
        .output()
        .await
        .unwrap();
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let index = files_below(&d.path().join("data"))
        .into_iter()
        .find(|p| p.ends_with("tool-results-index.jsonl"))
        .expect("the output was indexed");
    let index_before = std::fs::read(&index).unwrap();

    let list = nerve(d.path(), &server, &["sessions"]).output().await.unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let ids: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["session_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, vec![first["session_id"].as_str().unwrap()]);

    for (args, said) in [
        (
            &["-p", "hi", "--resume", "tool-results-index"][..],
            "no session tool-results-index in this project",
        ),
        (
            &["sessions", "--fork", "tool-results-index"][..],
            "is not a session transcript",
        ),
    ] {
        let out = nerve(d.path(), &server, args).output().await.unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(said), "{args:?}: {err}");
    }
    assert_eq!(
        std::fs::read(&index).unwrap(),
        index_before,
        "the index is untouched"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_searched_renamed_and_deleted_with_their_outputs() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "toolu_seq", "name": "Bash", "input": {"command": "seq 1 100000"}}
        ]}},
        {"expect": {"tool_result": {"tool_use_id": "toolu_seq", "contains": "persisted-output"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "counted"}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "kept"}]}}
    ]))
    .await;
    let run = |prompt: &'static str| {
        let (path, server) = (d.path().to_path_buf(), &server);
        async move {
            let out = nerve(&path, server, &["-p", prompt, "--output-format", "json"])
                .output()
                .await
                .unwrap();
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            v["session_id"].as_str().unwrap().to_string()
        }
    };
    let counted = run("Count to a hundred thousand").await;
    let kept = run("Something else").await;
    let cli = |args: Vec<String>| {
        let (path, server) = (d.path().to_path_buf(), &server);
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = nerve(&path, server, &args).output().await.unwrap();
            assert!(
                out.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            String::from_utf8_lossy(&out.stdout).into_owned()
        }
    };
    let ids = |listing: String| -> Vec<String> {
        let v: Value = serde_json::from_str(&listing).unwrap();
        let mut ids: Vec<String> = v
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["session_id"].as_str().unwrap().to_string())
            .collect();
        ids.dedup();
        ids
    };
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    assert_eq!(
        ids(cli(args(&["sessions", "--search", "HUNDRED"])).await),
        vec![counted.clone()]
    );
    // The index holds tool results too: a number the command printed is found in its call.
    let hits: Value = serde_json::from_str(&cli(args(&["sessions", "--search", "321"])).await).unwrap();
    assert_eq!(
        (
            &hits[0]["session_id"],
            &hits[0]["kind"],
            &hits[0]["tool_use_id"],
            &hits[0]["turn"]
        ),
        (
            &json!(counted),
            &json!("tool_result"),
            &json!("toolu_seq"),
            &json!(1)
        )
    );
    assert!(
        hits[0]["snippet"]
            .as_array()
            .unwrap()
            .contains(&json!({"text": "321", "matched": true})),
        "{hits}"
    );
    assert_eq!(
        cli(args(&["sessions", "--rename", &counted, "Big count"]))
            .await
            .trim(),
        "Big count"
    );
    let listing: Value = serde_json::from_str(&cli(args(&["sessions"])).await).unwrap();
    let renamed = listing
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["session_id"] == counted.as_str())
        .unwrap();
    assert_eq!(
        (&renamed["title"], &renamed["named"], &renamed["prompts"]),
        (&json!("Big count"), &json!(true), &json!(1))
    );
    // The prompt is still searchable after the rename.
    assert_eq!(
        ids(cli(args(&["sessions", "--search", "hundred"])).await),
        vec![counted.clone()]
    );

    let outputs_before = files_below(&d.path().join("data"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(&counted))
        .count();
    assert!(outputs_before >= 2, "a transcript and a persisted output");
    let said = cli(args(&["sessions", "--delete", &counted])).await;
    assert!(
        said.starts_with(&format!("deleted session {counted}: 1 persisted output(s), ")),
        "{said}"
    );
    assert!(
        files_below(&d.path().join("data"))
            .into_iter()
            .all(|p| !p.to_string_lossy().contains(&counted)),
        "nothing of the deleted session is left"
    );
    let index = files_below(&d.path().join("data"))
        .into_iter()
        .find(|p| p.ends_with("tool-results-index.jsonl"));
    if let Some(index) = index {
        assert!(!std::fs::read_to_string(index).unwrap().contains(&counted));
    }
    assert_eq!(ids(cli(args(&["sessions"])).await), vec![kept]);
    let out = nerve(d.path(), &server, &["sessions", "--delete", &counted])
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains(&format!("no session {counted} in this project")));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_custom_slash_command_expands_with_its_arguments() {
    let d = setup();
    let commands = d.path().join("project/.nerve/commands");
    std::fs::create_dir_all(&commands).unwrap();
    std::fs::write(
        commands.join("review.md"),
        "---\ndescription: Review files\n---\nReview $ARGUMENTS and list the risks.",
    )
    .unwrap();
    let server = mock(json!([
        {"expect": {"last_user_text_contains": "Review src/a.rs src/b.rs and list the risks."},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "reviewed"}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &["-p", "/review src/a.rs src/b.rs", "--output-format", "json"],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "reviewed", "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_exports_as_markdown() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "text", "text": "Counting."},
            {"type": "tool_use", "id": "toolu_wc", "name": "Bash", "input": {"command": "echo 3 lines"}}
        ]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Three lines."}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &["-p", "Count the lines", "--output-format", "json"],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = v["session_id"].as_str().unwrap();
    let export = nerve(d.path(), &server, &["sessions", "--export", id])
        .output()
        .await
        .unwrap();
    assert!(
        export.status.success(),
        "{}",
        String::from_utf8_lossy(&export.stderr)
    );
    let text = String::from_utf8(export.stdout).unwrap();
    assert_eq!(
        text,
        format!(
            "# Nerve session {id}\n\n## User\n\nCount the lines\n\n## Assistant\n\nCounting.\n\n**Bash** (`toolu_wc`)\n\n```json\n{{\n  \"command\": \"echo 3 lines\"\n}}\n```\n\nResult:\n\n```\n3 lines\n```\n\n## Assistant\n\nThree lines.\n"
        )
    );
    let missing = nerve(d.path(), &server, &["sessions", "--export", "tool-results-index"])
        .output()
        .await
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("no session tool-results-index"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bearer_token_custom_headers_and_a_keyless_local_server_each_reach_the_model() {
    let d = setup();
    let says =
        |text: &str| json!({"response": {"type": "stream", "blocks": [{"type": "text", "text": text}]}});

    // ANTHROPIC_AUTH_TOKEN goes as `Authorization: Bearer`, with the gateway's extra headers.
    let server = mock(json!([says("token ok")])).await;
    let out = nerve(d.path(), &server, &["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .env("ANTHROPIC_AUTH_TOKEN", "gateway-token")
        .env("ANTHROPIC_CUSTOM_HEADERS", "X-Gateway-Team: nerve\nX-Trace: on")
        .output()
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "token ok",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let request = &server.requests()[0];
    let header = |name: &str| request.headers.get(name).map(String::as_str);
    assert_eq!(
        (
            header("authorization"),
            header("x-api-key"),
            header("x-gateway-team"),
            header("x-trace")
        ),
        (Some("<redacted>"), None, Some("nerve"), Some("on"))
    );

    // A server on this machine that wants no key gets none.
    let steps = json!({"auth": "none", "steps": [says("local ok")]});
    let local = MockServer::start(Scenario::from_json(&steps.to_string()).unwrap())
        .await
        .unwrap();
    let out = nerve(d.path(), &local, &["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .await
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        "local ok",
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let request = &local.requests()[0];
    assert!(!request.headers.contains_key("x-api-key") && !request.headers.contains_key("authorization"));

    // A local server that does want credentials says how to give them.
    let wants_key = mock(json!([says("never")])).await;
    let out = nerve(d.path(), &wants_key, &["-p", "hi"])
        .env_remove("ANTHROPIC_API_KEY")
        .output()
        .await
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("No credentials were sent to this local server") && err.contains("ANTHROPIC_AUTH_TOKEN"),
        "{err}"
    );
}

/// Every file below `dir` (recursively).
fn files_below(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_reads_back_its_own_saved_outputs_without_asking() {
    let d = setup();
    // A 349 KB Bash output is saved whole; the model is shown a preview and the saved path.
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "toolu_big", "name": "Bash", "input": {"command": "seq 1 60000"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "toolu_big", "contains": "persisted-output"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Saved."}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &["-p", "print a lot", "--output-format", "json"],
    )
    .output()
    .await
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let first: Value = serde_json::from_slice(&out.stdout).unwrap();
    let session_id = first["session_id"].as_str().unwrap().to_string();
    let saved: Vec<_> = files_below(&d.path().join("data"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("/tool-results/"))
        .collect();
    assert_eq!(saved.len(), 1, "{saved:?}");
    let saved = saved[0].to_string_lossy().to_string();
    assert_eq!(std::fs::metadata(&saved).unwrap().len(), 348_894);

    // The next turn reads a range of it, greps it and tails it, in default and in plan mode: no
    // prompt (a headless run would list it as a denial).
    for mode in ["default", "plan"] {
        let server = mock(json!([
            {"response": {"type": "stream", "blocks": [
                {"type": "tool_use", "id": format!("toolu_read_{mode}"), "name": "Read",
                 "input": {"file_path": saved, "offset": 41000, "limit": 2}},
                {"type": "tool_use", "id": format!("toolu_grep_{mode}"), "name": "Grep",
                 "input": {"pattern": "^5999[0-9]$", "path": saved, "output_mode": "count"}},
                {"type": "tool_use", "id": format!("toolu_tail_{mode}"), "name": "Bash",
                 "input": {"command": format!("tail -n 1 {saved} && wc -l < {saved}")}}]}},
            {"expect": {"tool_result": {"tool_use_id": format!("toolu_read_{mode}"), "contains": "41000", "is_error": false}},
             "response": {"type": "stream", "blocks": [{"type": "text", "text": "Read it."}]}}
        ]))
        .await;
        let out = nerve(
            d.path(),
            &server,
            &[
                "-p",
                "look at it",
                "--resume",
                &session_id,
                "--output-format",
                "json",
                "--permission-mode",
                mode,
            ],
        )
        .output()
        .await
        .unwrap();
        assert!(
            out.status.success(),
            "{mode}: {} {}",
            String::from_utf8_lossy(&out.stderr),
            String::from_utf8_lossy(&out.stdout)
        );
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["permission_denials"], json!([]), "{mode}");
        assert_eq!(v["result"], "Read it.", "{mode}");
        let requests = server.requests();
        let results = requests.last().unwrap().body.to_string();
        assert!(results.contains("60000\\n60000"), "{mode}: {results}");
        assert!(results.contains("10"), "{mode}: the grep count");
    }

    // Another session's saved output is not this session's to read freely: it asks (in a headless
    // run, a denial).
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "toolu_other", "name": "Read", "input": {"file_path": saved}}]}},
        {"expect": {"tool_result": {"tool_use_id": "toolu_other", "is_error": true}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Refused."}]}}
    ]))
    .await;
    let out = nerve(d.path(), &server, &["-p", "peek", "--output-format", "json"])
        .output()
        .await
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["permission_denials"].as_array().unwrap().len(), 1, "{v}");
    assert_eq!(v["permission_denials"][0]["tool_name"], "Read");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deny_rule_whose_options_are_easy_to_dodge_is_reported_at_start() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &[
            "-p",
            "hi",
            "--disallowedTools",
            "Bash(curl -X POST *)",
            "--disallowedTools",
            "Bash(rm -rf *)",
        ],
    )
    .output()
    .await
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let warnings: Vec<&str> = stderr.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(
        warnings,
        [
            "warning: Bash(curl -X POST *) (cliArg): `curl -X POST *` matches the options of `curl` only as written \
             (`curl`'s options are not known, so a reordered, combined or long spelling of them would not match); \
             consider Bash(curl *)"
        ],
        "rm's options are matched in any spelling, so that rule gets no warning"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_lists_a_sessions_diff_and_rewind_takes_code_and_conversation_back() {
    let d = setup();
    let project = std::fs::canonicalize(d.path().join("project")).unwrap();
    let note = project.join("note.txt");
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "tool_use", "id": "w1", "name": "Write",
            "input": {"file_path": note, "content": "hello\n"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "written"}]}},
        {"expect": {"message_count": 1, "no_message_contains": "make a note"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "fresh start"}]}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &[
            "-p",
            "make a note",
            "--permission-mode",
            "acceptEdits",
            "--output-format",
            "json",
        ],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let session = v["session_id"].as_str().unwrap().to_string();

    let out = nerve(d.path(), &server, &["changes", "--session", &session])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!(
            "prompts:\n    1  make a note\n1 files changed, +1 −0\n\n{} (created, +1 −0)\n@@ -0,0 +1,1 @@\n+hello\n",
            note.display()
        )
    );

    // A rewind that must leave a file the user changed since is done in part: exit 3, not the 2
    // of a usage error; the file keeps the user's text.
    std::fs::write(&note, "changed by hand\n").unwrap();
    let code_only = [
        "rewind",
        "--session",
        session.as_str(),
        "--to-prompt",
        "1",
        "--code",
    ];
    let out = nerve(d.path(), &server, &code_only).output().await.unwrap();
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read_to_string(&note).unwrap(), "changed by hand\n");
    std::fs::write(&note, "hello\n").unwrap();

    let out = nerve(
        d.path(),
        &server,
        &["rewind", "--session", &session, "--to-prompt", "1"],
    )
    .output()
    .await
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!note.exists(), "the agent created it after that prompt");

    // The next prompt starts from before the first one.
    let out = nerve(
        d.path(),
        &server,
        &["-p", "again", "--resume", &session, "--output-format", "json"],
    )
    .output()
    .await
    .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"], "fresh start", "{v}");

    // Something was said since the rewind, so the conversation goes on from there; the rewind of
    // the code can still be undone, once.
    let undo = ["rewind", "--session", session.as_str(), "--undo"];
    let out = nerve(d.path(), &server, &undo).output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("brought back: {}\n", note.display())
    );
    assert_eq!(std::fs::read_to_string(&note).unwrap(), "hello\n");
    let out = nerve(d.path(), &server, &undo).output().await.unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr).trim(),
        "error: there is no rewind of the code to undo in this session"
    );
}

/// Replaces what changes from run to run (ids, timings, temporary folders) with placeholders.
fn redacted(value: &mut Value, dir: &str) {
    match value {
        Value::Object(map) => {
            for (key, v) in map.iter_mut() {
                if ["session_id", "uuid", "duration_ms", "duration_api_ms"].contains(&key.as_str()) {
                    *v = Value::String(format!("<{key}>"));
                } else {
                    redacted(v, dir);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| redacted(v, dir)),
        Value::String(s) if s.contains(dir) => *s = s.replace(dir, "<dir>"),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stream_json_events_as_a_script_reads_them() {
    let d = setup();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "text", "text": "Echoing."},
            {"type": "tool_use", "id": "e1", "name": "TestEcho", "input": {"text": "hi", "times": 2}}],
         "usage": {"input_tokens": 100, "output_tokens": 20}}},
        {"expect": {"tool_result": {"tool_use_id": "e1", "contains": "hihi"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "It said hihi."}],
                      "usage": {"input_tokens": 150, "output_tokens": 10}}}
    ]))
    .await;
    let out = nerve(
        d.path(),
        &server,
        &["-p", "echo hi twice", "--output-format", "stream-json"],
    )
    .output()
    .await
    .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dir = d.path().to_str().unwrap();
    let lines: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            redacted(&mut v, dir);
            serde_json::to_string(&v).unwrap()
        })
        .collect();
    insta::assert_snapshot!(lines.join("\n"));
}
