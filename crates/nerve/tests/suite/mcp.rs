//! MCP servers end to end, against a real MCP server process (`nerve-test-mcp-server`, a bin of
//! this crate built with the `test-tools` feature, found through `CARGO_BIN_EXE_...`): connecting,
//! the tool list, calls through the full pipeline and its permission rules, error results, a
//! server that crashes or never starts, cancellation, remote servers, the reference "everything"
//! server, and a tool list that changes between turns. (`nerve` with MCP servers is tested in
//! crates/nerve-cli.)

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use crate::support::{ScriptedPrompter, TestProject, call, mock, text_of};
use nerve::events::{Event, EventSink};
use nerve::mcp::{McpConfigSource, McpManager, McpOptions, McpServerConfig, McpTransport};
use nerve::permissions::{PermissionContext, PermissionMode, RuleBehavior, UserAnswer};
use nerve::project::SessionSetup;
use nerve::registry::{PoolOptions, all_builtin_tools, assemble_tool_pool};
use nerve::tool::{ResultBlock, ToolOrigin};
use serde_json::{Value, json};
use tokio::process::Command;

const SERVER: &str = env!("CARGO_BIN_EXE_nerve-test-mcp-server");

fn server(name: &str, env: &[(&str, &str)]) -> McpServerConfig {
    McpServerConfig {
        name: name.into(),
        transport: McpTransport::Stdio {
            command: SERVER.into(),
            args: vec![],
            env: env.iter().map(|(k, v)| ((*k).into(), (*v).into())).collect(),
        },
        source: McpConfigSource::CliFile(PathBuf::from("test.json")),
    }
}

async fn connect(servers: &[McpServerConfig], events: &EventSink) -> McpManager {
    McpManager::connect(servers, &std::env::temp_dir(), &McpOptions::default(), events).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_are_listed_with_their_names_schemas_and_hints_after_the_builtins() {
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    assert!(mcp.failures().is_empty(), "{:?}", mcp.failures());
    let mut names: Vec<String> = mcp.tools().iter().map(|t| t.name().to_string()).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "ListMcpResourcesTool",
            "ReadMcpResourceTool",
            "mcp__test__add",
            "mcp__test__approve",
            "mcp__test__crash",
            "mcp__test__dotted_name",
            "mcp__test__echo",
            "mcp__test__fail",
            "mcp__test__flood",
            "mcp__test__grow",
            "mcp__test__image",
            "mcp__test__progress",
            "mcp__test__slow"
        ]
    );
    let echo = mcp.find_tool("mcp__test__echo").unwrap();
    let echo: &dyn nerve::tool::DynTool = echo.as_ref();
    assert_eq!(
        echo.input_schema(),
        json!({"type": "object", "properties": {"text": {"type": "string", "description": "What to echo"}},
               "required": ["text"]})
    );
    assert_eq!(echo.description(), "[MCP server test] Echoes the text back.");
    assert_eq!(echo.origin(), ToolOrigin::Mcp);
    assert!(echo.should_defer());
    assert_eq!(echo.max_result_size_chars(), Some(25_000));
    let input = echo.prepare(json!({"text": "x"}));
    assert!(
        echo.is_read_only(&input)
            && echo.is_concurrency_safe(&input)
            && !echo.is_destructive(&input, Path::new("/"))
    );
    let add = mcp.find_tool("mcp__test__add").unwrap();
    let add: &dyn nerve::tool::DynTool = add.as_ref();
    let input = add.prepare(json!({"text": "x"}));
    assert!(
        !add.is_read_only(&input)
            && !add.is_concurrency_safe(&input)
            && !add.is_destructive(&input, Path::new("/"))
    );
    let fail = mcp.find_tool("mcp__test__fail").unwrap();
    let fail: &dyn nerve::tool::DynTool = fail.as_ref();
    let input = fail.prepare(json!({"text": "x"}));
    assert!(
        !fail.is_read_only(&input) && fail.is_destructive(&input, Path::new("/")),
        "no hints: fail closed"
    );

    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &PermissionContext::default(),
        &PoolOptions::default(),
    )
    .unwrap();
    let origins: Vec<ToolOrigin> = pool.tools().iter().map(|t| t.origin()).collect();
    let first_mcp = origins.iter().position(|o| *o == ToolOrigin::Mcp).unwrap();
    assert!(origins[first_mcp..].iter().all(|o| *o == ToolOrigin::Mcp));
    assert_eq!(pool.tools()[first_mcp].name(), "mcp__test__add");
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_wide_deny_rule_removes_its_tools_from_the_pool() {
    let p = TestProject::new();
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    let mut o = p.options();
    o.cli_rules = vec![(RuleBehavior::Deny, "mcp__test".into())];
    let project = nerve::project::Project::open(o).unwrap();
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &project.permission_context(true),
        &PoolOptions::default(),
    )
    .unwrap();
    assert!(pool.tools().iter().all(|t| t.origin() == ToolOrigin::BuiltIn));
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_go_through_the_pipeline_and_its_permission_rules() {
    let p = TestProject::new();
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;

    // No rule: the call asks.
    let prompter = ScriptedPrompter::new(vec![UserAnswer::Deny {
        message: Some("not now".into()),
    }]);
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[],
        SessionSetup {
            prompter: Some(prompter.clone()),
            ..SessionSetup::default()
        },
    );
    let out = s
        .run_one(&call("c1", "mcp__test__echo", json!({"text": "hi"})))
        .await;
    assert!(out.denied, "{:?}", out.content);
    assert_eq!(prompter.asked()[0].tool_name, "mcp__test__echo");

    // Allowed by a rule naming the tool.
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__test__echo")],
        SessionSetup::default(),
    );
    let out = s
        .run_one(&call("c2", "mcp__test__echo", json!({"text": "hello"})))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(out.content, vec![ResultBlock::text("hello")]);

    // Schema validation happens before the server sees anything.
    let out = s
        .run_one(&call("c3", "mcp__test__echo", json!({"txt": "hello"})))
        .await;
    assert!(
        out.is_error && text_of(&out.content).contains("text"),
        "{:?}",
        out.content
    );

    // Denied by a server-wide rule, even with the tool allowed.
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "mcp__test__echo"),
            (RuleBehavior::Deny, "mcp__test"),
        ],
        SessionSetup::default(),
    );
    let out = s
        .run_one(&call("c4", "mcp__test__echo", json!({"text": "hello"})))
        .await;
    assert!(out.denied && out.is_error, "{:?}", out.content);
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn results_map_text_images_resources_and_is_error() {
    let p = TestProject::new();
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__test")],
        SessionSetup::default(),
    );
    let out = s
        .run_one(&call("f", "mcp__test__fail", json!({"text": "boom"})))
        .await;
    assert!(out.is_error && !out.denied);
    assert_eq!(text_of(&out.content), "failed: boom");

    let out = s
        .run_one(&call("a", "mcp__test__add", json!({"a": 2, "b": 3.5})))
        .await;
    assert_eq!(out.content, vec![ResultBlock::text("5.5")]);

    let out = s.run_one(&call("i", "mcp__test__image", json!({}))).await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(out.content[0], ResultBlock::text("an image:"));
    assert!(matches!(&out.content[1], ResultBlock::Image { media_type, .. } if media_type == "image/png"));
    let ResultBlock::Text { text } = &out.content[2] else {
        panic!("{:?}", out.content)
    };
    assert!(
        text.contains("resource text") && text.contains("file:///notes.txt"),
        "{text}"
    );

    let out = s.run_one(&call("d", "mcp__test__dotted_name", json!({}))).await;
    assert_eq!(
        out.content,
        vec![ResultBlock::text("dotted")],
        "the server's own name is called"
    );
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crashed_server_gives_clear_errors_and_the_session_goes_on() {
    let p = TestProject::new();
    let mcp = connect(
        &[server("test", &[]), server("other", &[])],
        &EventSink::discard(),
    )
    .await;
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[
            (RuleBehavior::Allow, "mcp__test"),
            (RuleBehavior::Allow, "mcp__other"),
        ],
        SessionSetup::default(),
    );
    let out = s.run_one(&call("c", "mcp__test__crash", json!({}))).await;
    assert!(out.is_error);
    let text = text_of(&out.content);
    assert!(
        text.contains("MCP server test is not running") && text.contains("exited or crashed"),
        "{text}"
    );
    assert!(text.contains("Nerve restarts it on the next call"), "{text}");
    // The next call starts the server again and goes through.
    let out = s
        .run_one(&call("e", "mcp__test__echo", json!({"text": "back"})))
        .await;
    assert_eq!(out.content, vec![ResultBlock::text("back")], "{:?}", out.content);

    let out = s
        .run_one(&call("o", "mcp__other__echo", json!({"text": "still here"})))
        .await;
    assert_eq!(out.content, vec![ResultBlock::text("still here")]);
    mcp.shutdown().await;
    let out = s
        .run_one(&call("o2", "mcp__other__echo", json!({"text": "x"})))
        .await;
    assert_eq!(
        text_of(&out.content),
        "MCP server other is not running: the connection was shut down"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_keeps_dying_is_restarted_a_bounded_number_of_times() {
    let p = TestProject::new();
    let dir = tempfile::tempdir().unwrap();
    // A wrapper that runs the real server the first time only, then fails to start.
    let marker = dir.path().join("started");
    let wrapper = dir.path().join("server.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\nif [ -e {m} ]; then echo 'gone for good' >&2; exit 7; fi\ntouch {m}\nexec {SERVER}\n",
            m = marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&wrapper, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = McpServerConfig {
        transport: McpTransport::Stdio {
            command: wrapper.display().to_string(),
            args: vec![],
            env: Default::default(),
        },
        ..server("flaky", &[])
    };
    let mcp = connect(&[config], &EventSink::discard()).await;
    assert!(mcp.failures().is_empty(), "{:?}", mcp.failures());
    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__flaky")],
        SessionSetup::default(),
    );
    s.run_one(&call("c", "mcp__flaky__crash", json!({}))).await;
    let mut errors = Vec::new();
    for i in 0..5 {
        let out = s
            .run_one(&call(&format!("e{i}"), "mcp__flaky__echo", json!({"text": "x"})))
            .await;
        assert!(out.is_error);
        errors.push(text_of(&out.content));
    }
    for (i, text) in errors.iter().take(3).enumerate() {
        assert!(
            text.contains(&format!("restarting it failed (attempt {} of 3)", i + 1)),
            "{i}: {text}"
        );
    }
    for text in &errors[3..] {
        assert!(text.contains("could not be restarted (3 attempts)"), "{text}");
    }
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_cannot_start_or_hang_are_reported_and_left_out() {
    let notices = crate::support::Recorder::default();
    let missing = McpServerConfig {
        transport: McpTransport::Stdio {
            command: "/nonexistent/mcp-server".into(),
            args: vec![],
            env: Default::default(),
        },
        ..server("missing", &[])
    };
    let remote = McpServerConfig {
        transport: McpTransport::Unsupported {
            kind: "ws".into(),
            url: Some("wss://example.com/mcp".into()),
        },
        ..server("remote", &[])
    };
    let hung = server("hung", &[("NERVE_TEST_MCP_HANG", "1")]);
    let options = McpOptions {
        connect_timeout: Duration::from_millis(1500),
        ..McpOptions::default()
    };
    let mcp = McpManager::connect(
        &[missing, server("test", &[]), remote, hung],
        &std::env::temp_dir(),
        &options,
        &notices.sink(),
    )
    .await;
    let failures: Vec<(String, String)> = mcp
        .failures()
        .iter()
        .map(|f| (f.server.clone(), f.message.clone()))
        .collect();
    assert_eq!(failures.len(), 3, "{failures:?}");
    assert_eq!(failures[0].0, "missing");
    assert!(
        failures[0]
            .1
            .contains("could not be started (`/nonexistent/mcp-server`)"),
        "{failures:?}"
    );
    assert!(
        failures[1]
            .1
            .contains("`ws` transport, which Nerve does not support"),
        "{failures:?}"
    );
    assert!(
        failures[2]
            .1
            .contains("did not finish starting: no answer within 1.5 s"),
        "{failures:?}"
    );
    assert_eq!(mcp.connected(), vec!["test"]);
    assert!(
        mcp.tools()
            .iter()
            .all(|t| t.name().starts_with("mcp__test__") || t.name().contains("McpResource"))
    );
    let notices: Vec<String> = notices
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::Notice { message } => Some(message),
            _ => None,
        })
        .collect();
    let messages: Vec<String> = failures.into_iter().map(|f| f.1).collect();
    assert_eq!(notices, messages, "each failure is a notice");
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_tells_the_server() {
    let p = TestProject::new();
    let log = p.dir.path().join("server.log");
    let mcp = connect(
        &[server("test", &[("NERVE_TEST_MCP_LOG", log.to_str().unwrap())])],
        &EventSink::discard(),
    )
    .await;
    let s = Arc::new(p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__test")],
        SessionSetup::default(),
    ));
    let cancel = s.context.exec.cancel.clone();
    let runner = Arc::clone(&s);
    let task = tokio::spawn(async move {
        runner
            .run_one(&call("s", "mcp__test__slow", json!({"ms": 60_000})))
            .await
    });
    wait_for_line(&log, "slow started").await;
    cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    assert!(out.is_error, "{:?}", out.content);
    wait_for_line(&log, "slow cancelled").await;
    mcp.shutdown().await;
}

async fn wait_for_line(path: &Path, line: &str) {
    for _ in 0..200 {
        if std::fs::read_to_string(path).is_ok_and(|t| t.lines().any(|l| l == line)) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{line:?} never appeared in {}", path.display());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_tools_are_deferred_by_default_unless_pinned_or_too_few_to_matter() {
    // Three servers of 40 tools each: their schemas are held back and ToolSearch is offered.
    let servers: Vec<McpServerConfig> = ["alpha", "beta", "gamma"]
        .iter()
        .map(|name| server(name, &[("NERVE_TEST_MCP_BULK", "40")]))
        .collect();
    let mcp = connect(&servers, &EventSink::discard()).await;
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &PermissionContext::default(),
        &PoolOptions::default(),
    )
    .unwrap();
    let specs = pool.specs();
    let deferred: Vec<&str> = specs
        .iter()
        .filter(|s| s.deferred)
        .map(|s| s.name.as_str())
        .collect();
    assert!(deferred.contains(&"mcp__alpha__bulk_00"), "{deferred:?}");
    assert!(deferred.contains(&"mcp__gamma__echo"), "{deferred:?}");
    assert!(
        !deferred.contains(&"mcp__beta__pinned"),
        "alwaysLoad tools are sent in full"
    );
    assert!(
        !deferred.iter().any(|n| !n.starts_with("mcp__")
            && !["WebFetch", "ListMcpResourcesTool", "ReadMcpResourceTool"].contains(n)),
        "{deferred:?}"
    );
    assert!(specs.iter().any(|s| s.name == "ToolSearch"));
    assert!(
        specs
            .iter()
            .filter(|s| s.deferred)
            .all(|s| s.input_schema.is_none())
    );
    mcp.shutdown().await;

    // One small server: nothing worth deferring, so everything is sent and ToolSearch is left out.
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &PermissionContext::default(),
        &PoolOptions::default(),
    )
    .unwrap();
    let specs = pool.specs();
    assert!(specs.iter().all(|s| !s.deferred));
    assert!(!specs.iter().any(|s| s.name == "ToolSearch"));
    mcp.shutdown().await;
}

// ---- remote servers ----

/// A server process that prints its URL on its first stdout line; killed when dropped.
struct HttpServer {
    url: String,
    _child: tokio::process::Child,
}

async fn http_server(args: &[&str], env: &[(&str, &str)]) -> HttpServer {
    let mut child = Command::new(SERVER)
        .args(["--http", "127.0.0.1:0"])
        .args(args)
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::AsyncBufReadExt::lines(tokio::io::BufReader::new(stdout));
    let url = tokio::time::timeout(Duration::from_secs(20), lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    HttpServer { url, _child: child }
}

fn remote(name: &str, transport: McpTransport) -> McpServerConfig {
    McpServerConfig {
        name: name.into(),
        transport,
        source: McpConfigSource::CliFile(PathBuf::from("test.json")),
    }
}

/// The progress statuses a call of `tool` reported.
async fn progress_of(mcp: &McpManager, tool: &str, input: Value) -> (Vec<String>, String) {
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink_seen = Arc::clone(&seen);
    let sink = nerve::tool::ProgressSink::new(
        "p",
        Arc::new(move |_: &str, progress| {
            if let nerve::tool::Progress::Status { message } = progress {
                sink_seen.lock().unwrap().push(message);
            }
        }),
    );
    let tool = mcp.find_tool(tool).unwrap();
    let blocks = tool
        .call_with_progress(
            input.as_object().unwrap().clone(),
            &tokio_util::sync::CancellationToken::new(),
            Some(&sink),
        )
        .await
        .unwrap();
    let statuses = seen.lock().unwrap().clone();
    (statuses, text_of(&blocks))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_gives_tools_resources_prompts_progress_and_cancellation() {
    let p = TestProject::new();
    let log = p.dir.path().join("server.log");
    let web = http_server(&[], &[("NERVE_TEST_MCP_LOG", log.to_str().unwrap())]).await;
    let config = remote(
        "web",
        McpTransport::Http {
            url: web.url.clone(),
            headers: [("X-Team".to_string(), "nerve".to_string())].into(),
        },
    );
    let mcp = connect(&[config], &EventSink::discard()).await;
    assert!(mcp.failures().is_empty(), "{:?}", mcp.failures());
    let s = Arc::new(p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__web")],
        SessionSetup::default(),
    ));
    let out = s
        .run_one(&call("e", "mcp__web__echo", json!({"text": "over http"})))
        .await;
    assert_eq!(out.content, vec![ResultBlock::text("over http")]);

    // Resources: listed across servers and read by URI, without asking (read-only).
    let out = s.run_one(&call("l", "ListMcpResourcesTool", json!({}))).await;
    assert!(!out.is_error, "{:?}", out.content);
    let listed: Value = serde_json::from_str(&text_of(&out.content)).unwrap();
    assert_eq!(
        listed,
        json!([
            {"server": "web", "uri": "note://readme", "name": "readme", "mimeType": "text/plain",
             "description": "What this server is"},
            {"server": "web", "uri": "note://logo", "name": "logo", "mimeType": "image/png"}
        ])
    );
    let out = s
        .run_one(&call(
            "r",
            "ReadMcpResourceTool",
            json!({"server": "web", "uri": "note://readme"}),
        ))
        .await;
    assert_eq!(
        out.content,
        vec![ResultBlock::text("note://readme:\nThe test server's readme.")]
    );
    let out = s
        .run_one(&call(
            "r2",
            "ReadMcpResourceTool",
            json!({"server": "nope", "uri": "note://readme"}),
        ))
        .await;
    assert!(
        text_of(&out.content)
            .contains("no connected MCP server is named \"nope\"; the connected servers are: web"),
        "{:?}",
        out.content
    );

    // Prompts: slash commands whose words fill the declared arguments.
    let commands = mcp.prompt_commands();
    assert_eq!(
        commands,
        vec![nerve::slash_commands::SlashCommand {
            name: "mcp__web__review".into(),
            description: "Review a file".into(),
            argument_hint: Some("<file> [focus]".into()),
            source: nerve::slash_commands::CommandSource::Mcp,
        }]
    );
    let expanded = mcp
        .expand_prompt("/mcp__web__review src/main.rs error handling")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(expanded, "Please review src/main.rs, focusing on error handling.");
    let missing = mcp.expand_prompt("/mcp__web__review").await.unwrap().unwrap_err();
    assert_eq!(
        missing.to_string(),
        "/mcp__web__review needs the argument `file` (The file to review)"
    );
    assert!(mcp.expand_prompt("/review x").await.is_none());

    // Progress notifications reach the call's progress sink.
    let (statuses, text) = progress_of(&mcp, "mcp__web__progress", json!({"steps": 3})).await;
    assert_eq!(statuses, ["step 1 (1/3)", "step 2 (2/3)", "step 3 (3/3)"]);
    assert_eq!(text, "3 steps done");

    // A result over the limit is persisted like any large output.
    let out = s
        .run_one(&call("f", "mcp__web__flood", json!({"chars": 100_000})))
        .await;
    let text = text_of(&out.content);
    assert!(
        text.starts_with("<persisted-output>\nOutput too large"),
        "{}",
        &text[..200.min(text.len())]
    );

    // Cancelling a call over HTTP tells the server.
    let cancel = s.context.exec.cancel.clone();
    let runner = Arc::clone(&s);
    let task = tokio::spawn(async move {
        runner
            .run_one(&call("s", "mcp__web__slow", json!({"ms": 60_000})))
            .await
    });
    wait_for_line(&log, "slow started").await;
    cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    assert!(out.is_error, "{:?}", out.content);
    wait_for_line(&log, "slow cancelled").await;
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_remote_server_that_wants_oauth_needs_a_sign_in_and_one_that_is_down_fails_clearly() {
    let protected = http_server(&["--oauth"], &[]).await;
    let options = McpOptions {
        // A keyring service no test stores into: nothing is signed in.
        keyring_service: format!("nerve-test-none-{}", std::process::id()),
        connect_timeout: Duration::from_secs(10),
        ..McpOptions::default()
    };
    let down = remote(
        "down",
        McpTransport::Http {
            url: "http://127.0.0.1:9/mcp".into(),
            headers: Default::default(),
        },
    );
    let config = remote(
        "locked",
        McpTransport::Http {
            url: protected.url.clone(),
            headers: Default::default(),
        },
    );
    let mcp = McpManager::connect(
        &[config, down],
        &std::env::temp_dir(),
        &options,
        &EventSink::discard(),
    )
    .await;
    let failures: Vec<_> = mcp
        .failures()
        .iter()
        .map(|f| (f.server.as_str(), f.needs_sign_in, f.message.as_str()))
        .collect();
    assert_eq!(failures.len(), 2, "{failures:?}");
    assert_eq!(failures[0].0, "locked");
    assert!(failures[0].1, "{failures:?}");
    assert!(failures[0].2.contains("needs you to sign in"), "{failures:?}");
    assert!(failures[0].2.contains("`nerve mcp login locked`"), "{failures:?}");
    assert_eq!(failures[1].0, "down");
    assert!(!failures[1].1);
    assert!(
        failures[1]
            .2
            .starts_with("MCP server `down` failed to initialize"),
        "{failures:?}"
    );
}

// ---- the reference "everything" server (npm, installed by scripts/test.sh) ----

fn everything_server() -> PathBuf {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/mcp-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    assert!(
        path.exists(),
        "{} is missing: run `npm ci --prefix tests/mcp-servers` (scripts/test.sh does)",
        path.display()
    );
    path
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// `node index.js MODE` on a free port, once it listens.
async fn everything_over(mode: &str) -> (tokio::process::Child, u16) {
    let port = free_port();
    let mut child = Command::new("node")
        .arg(everything_server())
        .arg(mode)
        .env("PORT", port.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..200 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok() {
            return (child, port);
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("the everything server ({mode}) exited: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the everything server ({mode}) did not listen on {port}");
}

/// What the tests ask of the everything server over any transport: its tools, a call, a resource
/// read, a prompt, a long-running tool's progress, and a cancelled call.
async fn exercise_everything(name: &str, transport: McpTransport) {
    let p = TestProject::new();
    let mcp = connect(&[remote(name, transport)], &EventSink::discard()).await;
    assert!(mcp.failures().is_empty(), "{:?}", mcp.failures());
    let names: Vec<String> = mcp.tools().iter().map(|t| t.name().to_string()).collect();
    for expected in [
        format!("mcp__{name}__echo"),
        format!("mcp__{name}__get-sum"),
        format!("mcp__{name}__trigger-long-running-operation"),
        "ListMcpResourcesTool".to_string(),
        "ReadMcpResourceTool".to_string(),
    ] {
        assert!(names.contains(&expected), "{expected} missing from {names:?}");
    }
    let s = Arc::new(p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, &format!("mcp__{name}"))],
        SessionSetup::default(),
    ));
    let out = s
        .run_one(&call(
            "e",
            &format!("mcp__{name}__echo"),
            json!({"message": "hi"}),
        ))
        .await;
    assert_eq!(text_of(&out.content), "Echo: hi", "{:?}", out.content);
    let out = s
        .run_one(&call(
            "a",
            &format!("mcp__{name}__get-sum"),
            json!({"a": 2, "b": 40}),
        ))
        .await;
    assert!(text_of(&out.content).contains("42"), "{:?}", out.content);

    let out = s
        .run_one(&call("l", "ListMcpResourcesTool", json!({"server": name})))
        .await;
    let listed: Value = serde_json::from_str(&text_of(&out.content)).unwrap();
    let first = listed[0]["uri"].as_str().unwrap().to_string();
    let out = s
        .run_one(&call(
            "r",
            "ReadMcpResourceTool",
            json!({"server": name, "uri": first}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert!(
        text_of(&out.content).starts_with(first.as_str()),
        "{:?}",
        out.content
    );

    let prompt = mcp
        .expand_prompt(&format!("/mcp__{name}__simple-prompt"))
        .await
        .unwrap()
        .unwrap();
    assert!(!prompt.trim().is_empty());

    let (statuses, _) = progress_of(
        &mcp,
        &format!("mcp__{name}__trigger-long-running-operation"),
        json!({"duration": 0.3, "steps": 3}),
    )
    .await;
    // The last report may race the result (the server sends both at once): the ones that arrive
    // before it are the first steps, in order.
    assert!(statuses.len() >= 2, "{statuses:?}");
    assert_eq!(statuses[..], ["1/3", "2/3", "3/3"][..statuses.len()]);

    let cancel = s.context.exec.cancel.clone();
    let runner = Arc::clone(&s);
    let tool = format!("mcp__{name}__trigger-long-running-operation");
    let task = tokio::spawn(async move {
        runner
            .run_one(&call("long", &tool, json!({"duration": 60, "steps": 2})))
            .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    cancel.cancel();
    let out = tokio::time::timeout(Duration::from_secs(10), task)
        .await
        .unwrap()
        .unwrap();
    assert!(out.is_error, "{:?}", out.content);
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_stdio() {
    exercise_everything(
        "everything",
        McpTransport::Stdio {
            command: "node".into(),
            args: vec![everything_server().display().to_string(), "stdio".into()],
            env: Default::default(),
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_streamable_http() {
    let (_server, port) = everything_over("streamableHttp").await;
    exercise_everything(
        "everything",
        McpTransport::Http {
            url: format!("http://127.0.0.1:{port}/mcp"),
            headers: Default::default(),
        },
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_everything_server_over_sse() {
    let (_server, port) = everything_over("sse").await;
    exercise_everything(
        "everything",
        McpTransport::Sse {
            url: format!("http://127.0.0.1:{port}/sse"),
            headers: Default::default(),
        },
    )
    .await;
}

/// The new tool list once the server's `list_changed` notification has arrived.
async fn changed_tools(mcp: &McpManager) -> Vec<nerve::tool::ToolRef> {
    for _ in 0..100 {
        if let Some(tools) = mcp.refresh_changed_tools().await {
            return tools;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the server's list_changed never arrived");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_tool_list_is_taken_between_turns_keeping_the_order() {
    let p = TestProject::new();
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    assert!(mcp.refresh_changed_tools().await.is_none(), "nothing changed yet");
    let permissions = PermissionContext::default();
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &permissions,
        &PoolOptions::default(),
    )
    .unwrap();
    let before: Vec<String> = pool.tools().iter().map(|t| t.name().to_string()).collect();
    pool.mark_loaded(["mcp__test__echo"]);

    let s = p.session_with_setup(
        mcp.tools(),
        false,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__test")],
        SessionSetup::default(),
    );
    let out = s.run_one(&call("g", "mcp__test__grow", json!({}))).await;
    assert_eq!(out.content, vec![ResultBlock::text("grown")]);
    let external = changed_tools(&mcp).await;
    assert!(mcp.find_tool("mcp__test__extra").is_some());
    assert!(mcp.find_tool("mcp__test__dotted_name").is_none());

    let builtin_names = all_builtin_tools().iter().map(|t| t.name().to_string()).collect();
    let next = pool
        .with_external_tools(external, &builtin_names, &permissions)
        .unwrap();
    let after: Vec<String> = next.tools().iter().map(|t| t.name().to_string()).collect();
    let mut expected: Vec<String> = before
        .iter()
        .filter(|n| *n != "mcp__test__dotted_name")
        .cloned()
        .collect();
    expected.push("mcp__test__extra".into());
    assert_eq!(
        after, expected,
        "the earlier tools keep their order; the new one comes last"
    );
    assert!(
        !next.is_unloaded_deferred("mcp__test__echo"),
        "what tool search loaded stays loaded"
    );
    mcp.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_next_request_after_a_list_change_carries_the_new_tools_after_the_old_ones() {
    let p = TestProject::new();
    let mcp = connect(&[server("test", &[])], &EventSink::discard()).await;
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        mcp.tools(),
        &PermissionContext::default(),
        &PoolOptions::default(),
    )
    .unwrap();
    let runtime = p.session_with_setup(
        pool.tools().to_vec(),
        false,
        PermissionMode::Default,
        &[],
        SessionSetup::default(),
    );
    let model = mock(json!([
        {"expect": {"tools_include": ["mcp__test__dotted_name"], "tools_exclude": ["mcp__test__extra"]},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "one"}]}},
        {"expect": {"tools_include": ["mcp__test__extra"], "tools_exclude": ["mcp__test__dotted_name"]},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "two"}]}}
    ]))
    .await;
    let mut agent = nerve::agent::Agent::new(
        crate::support::client(&model),
        runtime,
        nerve::agent::AgentConfig::new("claude-test"),
        vec!["You are Nerve.".into()],
        None,
    );
    agent
        .send("first", tokio_util::sync::CancellationToken::new())
        .await;
    let grow = mcp.find_tool("mcp__test__grow").unwrap();
    grow.call_direct(
        serde_json::Map::new(),
        &tokio_util::sync::CancellationToken::new(),
    )
    .await
    .unwrap();
    agent.replace_external_tools(changed_tools(&mcp).await).unwrap();
    agent
        .send("second", tokio_util::sync::CancellationToken::new())
        .await;
    assert_eq!(model.remaining_steps(), 0);
    let names = |i: usize| -> Vec<String> {
        model.requests()[i].body["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap().to_string())
            .collect()
    };
    let mut expected: Vec<String> = names(0)
        .into_iter()
        .filter(|n| n != "mcp__test__dotted_name")
        .collect();
    expected.push("mcp__test__extra".into());
    assert_eq!(names(1), expected, "the cached prefix of tools is unchanged");
    mcp.shutdown().await;
}

/// Through the front door: a session whose MCP server changes its tool list mid-session offers the
/// new tool at the next prompt and keeps every tool of its own (the memory tool too, which the
/// session adds to the built-ins).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_takes_a_changed_tool_list_at_its_next_prompt_and_keeps_its_own_tools() {
    let p = TestProject::new();
    let config = p.write(
        "mcp.json",
        &json!({"mcpServers": {"test": {"command": SERVER}}}).to_string(),
    );
    let mut options = p.options();
    options.cli_rules = vec![(RuleBehavior::Allow, "mcp__test__grow".into())];
    let project = nerve::Project::open(options).unwrap();
    let model = mock(json!([
        {"expect": {"tools_include": ["Memory", "mcp__test__grow"], "tools_exclude": ["mcp__test__extra"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "g1", "name": "mcp__test__grow", "input": {}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "grown"}]}},
        {"expect": {"tools_include": ["Memory", "Bash", "mcp__test__grow", "mcp__test__extra"]},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "seen"}]}}
    ]))
    .await;
    let mut session_options = crate::support::mock_session_options(&model);
    session_options.mcp_config_files = vec![config];
    let session = nerve::Session::start(project, session_options).await.unwrap();
    let first = session
        .send("grow the tools", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(
        (first.end, first.final_text.as_str()),
        (nerve::events::TurnEnd::EndTurn, "grown")
    );
    // The server sent its list-changed notice before the call's result, on the same stream; the
    // next prompt picks the new list up.
    let second = session.send("again", &[], EventSink::discard()).await.unwrap();
    assert_eq!(second.final_text, "seen", "{:?}", second.error);
    assert_eq!(model.remaining_steps(), 0);
    session.close().await;
}

/// Whether process `pid` still exists (a zombie counts as gone: it has exited).
fn process_alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_started_through_a_shell_leaves_no_process_behind() {
    // As `npx`/`uvx`/`sh -c` start servers: a shell that starts a helper of its own, then the server.
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("helper.pid");
    let script = format!("sleep 300 & echo $! > '{}'; exec '{SERVER}'", pid_file.display());
    let config = McpServerConfig {
        name: "wrapped".into(),
        transport: McpTransport::Stdio {
            command: "sh".into(),
            args: vec!["-c".into(), script],
            env: Default::default(),
        },
        source: McpConfigSource::CliFile(PathBuf::from("test.json")),
    };
    let mcp = connect(&[config], &EventSink::discard()).await;
    assert!(mcp.failures().is_empty(), "{:?}", mcp.failures());
    assert!(
        mcp.tools().iter().any(|t| t.name().starts_with("mcp__wrapped__")),
        "the server behind the shell connected"
    );
    let helper: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_alive(helper));
    mcp.shutdown().await;
    let gone = async {
        while process_alive(helper) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(10), gone)
        .await
        .expect("the server's helper process outlived the session");
}
