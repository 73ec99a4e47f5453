//! The real desktop app, end to end: the built app (UI embedded) runs under Xvfb, driven through
//! tauri-driver and WebKitWebDriver, against the scripted mock of the Messages API. It needs a
//! display, `tauri-driver` on PATH, `WebKitWebDriver` and a Secret Service, so it is ignored by a
//! plain `cargo test`; `scripts/test.sh` sets all of that up and runs it with `--ignored`.
//!
//! The session: the key is typed into the first-run screen (stored in the real keyring), a project
//! is opened, three files are read in one parallel batch, an Edit is allowed from its diff, a
//! `sed -i` is allowed from its preview, an `rm -rf` is denied, and a large output comes back
//! persisted. Each step saves a screenshot. A second test reviews and rewinds changes. The tests run
//! one at a time (`--test-threads=1`): the first one quits its app with `pkill`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};
use support::{Driver, app_binary, environment_value, free_port, stream, tool_use, web_processes};

const API_KEY: &str = "sk-ant-e2e-test-key-0123456789";
const WAIT: Duration = Duration::from_secs(60);
/// A command that outlives the test unless closing the app stops it (a distinctive duration, so
/// `pgrep` finds only this one).
const SLEEP_COMMAND: &str = "sleep 297.31";

fn screenshots_dir() -> PathBuf {
    let dir = std::env::var_os("NERVE_E2E_SCREENSHOTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_TARGET_TMPDIR")).join("e2e-screenshots"));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

async fn screenshot(client: &Client, name: &str) {
    let png = client.screenshot().await.unwrap();
    let path = screenshots_dir().join(format!("{name}.png"));
    std::fs::write(&path, png).unwrap();
    eprintln!("screenshot: {}", path.display());
}

/// Polls `check` until it gives a value or the wait runs out. A timeout saves a screenshot and the
/// page's text (`failure.png`, `failure.txt`) and names what was awaited.
async fn wait_for<T, F, Fut>(client: Option<&Client>, what: &str, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() > WAIT {
            if let Some(c) = client {
                screenshot(c, "failure").await;
                if let Ok(body) = c.find(Locator::Css("body")).await
                    && let Ok(text) = body.text().await
                {
                    std::fs::write(screenshots_dir().join("failure.txt"), text).unwrap();
                }
            }
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

async fn element(client: &Client, css: &str) -> fantoccini::elements::Element {
    let c = client.clone();
    let css = css.to_string();
    wait_for(Some(client), &format!("element `{css}`"), || {
        let c = c.clone();
        let css = css.clone();
        async move { c.find(Locator::Css(&css)).await.ok() }
    })
    .await
}

async fn click(client: &Client, css: &str) {
    element(client, css).await.click().await.unwrap();
}

async fn type_into(client: &Client, css: &str, text: &str) {
    element(client, css).await.send_keys(text).await.unwrap();
}

/// Waits until one of the elements matching `css` shows text containing `needle` (its rendered
/// text, `innerText`: also where a scrolled panel has moved it out of view, never where it is
/// hidden).
async fn wait_for_text(client: &Client, css: &str, needle: &str) {
    wait_for(Some(client), &format!("{css} to show {needle:?}"), || {
        let c = client.clone();
        async move {
            for e in c.find_all(Locator::Css(css)).await.ok()? {
                if e.prop("innerText").await.ok()??.contains(needle) {
                    return Some(());
                }
            }
            None
        }
    })
    .await;
}

/// Waits until the page has painted its latest changes (two animation frames), so a screenshot
/// taken right after an update that arrived on its own (an IPC answer) shows it.
async fn painted(client: &Client) {
    client
        .execute_async(
            "const done = arguments[arguments.length - 1]; requestAnimationFrame(() => requestAnimationFrame(() => done(null)));",
            vec![],
        )
        .await
        .unwrap();
}

/// Waits until the file at `path` satisfies `check`.
async fn wait_file(what: &str, path: &Path, check: impl Fn(Option<String>) -> bool) {
    wait_for(None, what, || {
        let ok = check(std::fs::read_to_string(path).ok());
        async move { ok.then_some(()) }
    })
    .await;
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("notes.md"), "# Notes\n\nShip the desktop app.\n").unwrap();
    std::fs::write(p.join("config.toml"), "[app]\nname = \"demo\"\ndebug = true\n").unwrap();
    std::fs::write(p.join("greeting.txt"), "hello world\nsecond line\n").unwrap();
    std::fs::create_dir_all(p.join("build/cache")).unwrap();
    std::fs::write(p.join("build/cache/artifact.bin"), "keep me").unwrap();
    // A SessionEnd hook shows that closing the session ends it cleanly.
    std::fs::create_dir_all(p.join(".nerve")).unwrap();
    let hooks = json!({"hooks": {"SessionEnd": [{"hooks": [
        // What the hook sees of the tunables the app sets for its web view: the user's values.
        {"type": "command", "command": format!("echo ended {HOOK_SEES} >> \"$CLAUDE_PROJECT_DIR/session-ended.txt\"")}
    ]}]}});
    std::fs::write(p.join(".nerve/settings.json"), hooks.to_string()).unwrap();
    dir
}

/// The SessionEnd hook's report of the variables the app sets for its web view's processes.
const HOOK_SEES: &str = "${JSC_useGenerationalGC-unset} ${JSC_aggressiveHeapThresholdInMB-unset} \
                         ${WEBKIT_SKIA_ENABLE_CPU_RENDERING-unset}";

/// A line of the SessionEnd hook: the user's values (this test's), not the web view's.
fn hook_line() -> String {
    let value = |name: &str| std::env::var(name).unwrap_or_else(|_| "unset".into());
    format!(
        "ended {} {} {}\n",
        value("JSC_useGenerationalGC"),
        value("JSC_aggressiveHeapThresholdInMB"),
        value("WEBKIT_SKIA_ENABLE_CPU_RENDERING")
    )
}

/// Whether a GPU render node can be opened here (the app then leaves WebKit's painting alone).
fn usable_render_node() -> bool {
    std::fs::read_dir("/dev/dri")
        .into_iter()
        .flatten()
        .flatten()
        .any(|e| {
            e.file_name().to_string_lossy().starts_with("renderD")
                && std::fs::OpenOptions::new()
                    .read(true)
                    .write(true)
                    .open(e.path())
                    .is_ok()
        })
}

fn scenario(dir: &Path) -> Scenario {
    let file = |name: &str| dir.join(name).display().to_string();
    let steps = json!([
        {
            "expect": {"last_user_text_contains": "Tidy up", "model": "claude-e2e"},
            "response": stream(vec![
                json!({"type": "text", "text": ["I'll read ", "the three files first."]}),
                tool_use("toolu_read_1", "Read", json!({"file_path": file("notes.md")})),
                tool_use("toolu_read_2", "Read", json!({"file_path": file("config.toml")})),
                tool_use("toolu_read_3", "Read", json!({"file_path": file("greeting.txt")})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_read_3", "contains": "hello world"}},
            "response": stream(vec![
                tool_use("toolu_edit", "Edit", json!({
                    "file_path": file("greeting.txt"), "old_string": "hello world", "new_string": "hello nerve"
                })),
            ], "tool_use"),
        },
        {
            "expect": {
                "tool_result": {"tool_use_id": "toolu_edit", "contains": "has been updated", "is_error": false},
                "last_user_text_contains": "The user modified the Edit input"
            },
            "response": stream(vec![
                tool_use("toolu_sed", "Bash", json!({
                    "command": "sed -i 's/debug = true/debug = false/' config.toml",
                    "description": "Turn debug off"
                })),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_sed", "is_error": false}},
            "response": stream(vec![
                tool_use("toolu_rm", "Bash", json!({"command": "rm -rf build", "description": "Remove the build folder"})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_rm", "is_error": true, "contains": "doesn't want to proceed"}},
            "response": stream(vec![
                tool_use("toolu_big", "Bash", json!({"command": "seq 1 100000", "description": "Count"})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_big", "contains": "persisted-output"}},
            "response": stream(vec![
                json!({"type": "text", "text": ["All done: the greeting is updated, ", "debug is off, and the build folder is kept."]}),
            ], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Start the build"},
            "response": stream(vec![
                tool_use("toolu_abort", "Bash", json!({"command": SLEEP_COMMAND, "description": "Build"})),
            ], "tool_use"),
        },
        {
            "expect": {"last_user_text_contains": "Explain the config"},
            "response": {"type": "error", "status": 400, "message": "e2e: the request was refused"},
        },
        {
            "expect": {"last_user_text_contains": "Now wait"},
            "response": stream(vec![
                tool_use("toolu_sleep", "Bash", json!({"command": SLEEP_COMMAND, "description": "Wait"})),
            ], "tool_use"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// Starts tauri-driver; `keyring` names this test's keyring entry, so each test meets a first run.
fn start_driver(port: u16, data_dir: &Path, keyring: &str) -> Driver {
    start_driver_with(port, data_dir, keyring, &[])
}

/// [`start_driver`] with more environment for the app.
fn start_driver_with(port: u16, data_dir: &Path, keyring: &str, env: &[(&str, &Path)]) -> Driver {
    let service = format!("nerve-e2e-{keyring}-{}", std::process::id());
    support::start_driver(port, data_dir, &service, env.iter().copied())
}

async fn connect(port: u16) -> Client {
    connect_with(port, &[]).await
}

/// [`connect`], the app started with `args` (`nerve-desktop PATH`).
async fn connect_with(port: u16, args: &[&str]) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "tauri:options".into(),
        json!({"application": app_binary(), "args": args}),
    );
    caps.insert("browserName".into(), json!("wry"));
    let url = format!("http://127.0.0.1:{port}");
    wait_for(None, "tauri-driver to accept a session", || {
        let caps = caps.clone();
        let url = url.clone();
        async move {
            // Plain HTTP: tauri-driver listens on loopback only.
            ClientBuilder::new(HttpConnector::new())
                .capabilities(caps)
                .connect(&url)
                .await
                .ok()
        }
    })
    .await
}

/// Waits for the permission dialog of `tool` and returns once it shows.
async fn dialog_for(client: &Client, tool: &str) {
    element(
        client,
        &format!("[data-testid='permission-dialog'][data-tool-name='{tool}']"),
    )
    .await;
}

#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn a_session_in_the_desktop_app() {
    for stale in ["failure.png", "failure.txt"] {
        let _ = std::fs::remove_file(screenshots_dir().join(stale));
    }
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(scenario(&root)).await.unwrap();
    let port = free_port();
    let driver = start_driver(port, data.path(), "session");
    let client = connect(port).await;

    // The web view's process got the tunables the app sets for it (src-tauri/src/webview_env.rs);
    // a variable this test set would have been left as it is.
    let web = wait_for(None, "the web view's process under tauri-driver", || async {
        Some(web_processes(driver.0.id())).filter(|w| !w.is_empty())
    })
    .await;
    let mine = |name: &str| std::env::var(name).ok();
    assert_eq!(
        (
            environment_value(web[0], "JSC_useGenerationalGC"),
            environment_value(web[0], "JSC_aggressiveHeapThresholdInMB"),
            environment_value(web[0], "WEBKIT_SKIA_ENABLE_CPU_RENDERING"),
        ),
        (
            mine("JSC_useGenerationalGC").or(Some("false".into())),
            mine("JSC_aggressiveHeapThresholdInMB").or(Some("4294967295".into())),
            mine("WEBKIT_SKIA_ENABLE_CPU_RENDERING").or((!usable_render_node()
                && mine("WEBKIT_DISABLE_COMPOSITING_MODE").is_none())
            .then(|| "1".into())),
        ),
        "the web view's tunables"
    );

    // First run: no key anywhere, so the app asks for one and keeps it in the OS keyring.
    element(&client, "[data-testid='first-run']").await;
    screenshot(&client, "01-first-run").await;
    // The page runs under the app's CSP: no eval, no network beyond IPC.
    let eval = client
        .execute(
            "try { return 'ran: ' + eval('1 + 1'); } catch (e) { return 'blocked: ' + e.name; }",
            vec![],
        )
        .await
        .unwrap();
    assert_eq!(eval, json!("blocked: EvalError"), "eval is refused by the CSP");
    type_into(&client, "[data-testid='api-key-input']", API_KEY).await;
    click(&client, "[data-testid='api-key-save']").await;
    element(&client, "[data-testid='project-path-input']").await;
    let source = client.source().await.unwrap();
    assert!(!source.contains(API_KEY), "the key is never shown back");

    // Settings: the endpoint (here the mock) and the model; the key is there, from the keyring.
    click(&client, "[data-testid='open-settings']").await;
    type_into(&client, "[data-testid='settings-base-url']", &server.url()).await;
    type_into(&client, "[data-testid='settings-model']", "claude-e2e").await;
    click(&client, "[data-testid='settings-save']").await;
    wait_for_text(&client, "[data-testid='settings-panel']", "Settings saved.").await;
    let key_status = element(&client, "[data-testid='settings-key-status']")
        .await
        .text()
        .await
        .unwrap();
    assert!(key_status.contains("from keyring"), "{key_status}");
    assert!(!client.source().await.unwrap().contains(API_KEY));
    click(&client, "[data-testid='settings-close']").await;

    // A folder that does not exist: a clear error, and the picker stays usable.
    let missing = root.join("no-such-folder");
    type_into(
        &client,
        "[data-testid='project-path-input']",
        &missing.display().to_string(),
    )
    .await;
    click(&client, "[data-testid='project-path-open']").await;
    wait_for_text(&client, "[role='alert']", "no-such-folder").await;
    element(&client, "[data-testid='project-path-input']")
        .await
        .clear()
        .await
        .unwrap();
    type_into(
        &client,
        "[data-testid='project-path-input']",
        &root.display().to_string(),
    )
    .await;
    click(&client, "[data-testid='project-path-open']").await;
    // A project without sessions starts a new one at once.
    element(&client, "[data-testid='prompt-input']").await;
    type_into(
        &client,
        "[data-testid='prompt-input']",
        "Tidy up the project, please.",
    )
    .await;
    click(&client, "[data-testid='send-button']").await;

    // Three reads, one parallel batch, all done.
    let batch = "[data-testid='batch'][data-concurrent='true'][data-size='3']";
    element(&client, batch).await;
    wait_for(Some(&client), "the three reads to complete", || {
        let c = client.clone();
        async move {
            let cards = c
                .find_all(Locator::Css(&format!(
                    "{batch} [data-testid='tool-card'][data-status='completed']"
                )))
                .await
                .ok()?;
            (cards.len() == 3).then_some(())
        }
    })
    .await;
    let batch_text = element(&client, batch).await.text().await.unwrap();
    assert!(batch_text.contains("3 of 3"), "{batch_text}");
    // (Read from the DOM: the permission dialog that opens next may already cover the card.)
    let summary = element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_read_1'] [data-testid='tool-summary']",
    )
    .await
    .prop("textContent")
    .await
    .unwrap();
    assert_eq!(
        summary.as_deref(),
        Some("notes.md"),
        "paths are shown relative to the project"
    );

    // Edit: the diff is shown; the user changes the proposed text, the diff follows, Allow; the
    // file has the user's text and the model is told (the mock checks the next request).
    dialog_for(&client, "Edit").await;
    let diff = element(&client, "[data-testid='permission-diff']")
        .await
        .text()
        .await
        .unwrap();
    assert!(diff.contains("hello nerve"), "{diff}");
    screenshot(&client, "02-parallel-reads-and-edit-diff").await;
    click(&client, "[data-testid='edit-input']").await;
    let edited = element(&client, "[data-testid='edited-text']").await;
    edited.clear().await.unwrap();
    edited.send_keys("hello, nerve").await.unwrap();
    // The engine previews the edited input once typing pauses: its answer about this text shows.
    wait_for_text(
        &client,
        "[data-testid='permission-diff'] [data-testid='permission-preview'][data-stale='false']",
        "hello, nerve",
    )
    .await;
    painted(&client).await;
    screenshot(&client, "02b-edit-changed-before-allowing").await;
    click(&client, "[data-testid='allow-once']").await;
    wait_file("greeting.txt to be edited", &root.join("greeting.txt"), |t| {
        t.as_deref() == Some("hello, nerve\nsecond line\n")
    })
    .await;

    // sed -i: the preview is shown; Allow; the file equals the preview.
    dialog_for(&client, "Bash").await;
    let preview = element(&client, "[data-testid='sed-preview']")
        .await
        .text()
        .await
        .unwrap();
    assert!(preview.contains("+debug = false"), "{preview}");
    assert!(preview.contains("-debug = true"), "{preview}");
    screenshot(&client, "03-sed-preview").await;
    click(&client, "[data-testid='allow-once']").await;
    wait_file(
        "config.toml to be changed by sed",
        &root.join("config.toml"),
        |t| t.as_deref() == Some("[app]\nname = \"demo\"\ndebug = false\n"),
    )
    .await;

    // rm -rf: Deny; nothing is removed; the model is told (the mock checks the tool_result).
    wait_for_text(
        &client,
        "[data-testid='permission-dialog'][data-tool-name='Bash']",
        "rm -rf build",
    )
    .await;
    let parts = element(&client, "[data-testid='bash-parts']")
        .await
        .text()
        .await
        .unwrap();
    assert!(parts.contains("rm -rf build"), "{parts}");
    let chip = element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_rm'] [data-testid='tool-status']",
    )
    .await
    .text()
    .await
    .unwrap();
    assert_eq!(chip, "needs approval", "the card says what it waits for");
    screenshot(&client, "04-rm-rf-request").await;
    type_into(&client, "[data-testid='deny-message']", "Keep the build folder.").await;
    click(&client, "[data-testid='deny']").await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_rm'][data-status='denied']",
    )
    .await;
    assert!(
        root.join("build/cache/artifact.bin").exists(),
        "a denied rm removes nothing"
    );

    // The large output comes back persisted, and the turn ends with the model's text.
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_big'] [data-testid='persisted-badge']",
    )
    .await;
    wait_for_text(&client, "[data-testid='assistant-text']", "All done").await;
    screenshot(&client, "05-persisted-output-and-answer").await;
    // The saved output loads in chunks from the file (575 KB: more than one chunk).
    let card_big = "[data-testid='tool-card'][data-tool-use-id='toolu_big']";
    click(&client, &format!("{card_big} [data-testid='persisted-load']")).await;
    let row = element(
        &client,
        &format!("{card_big} [data-testid='persisted-text'] [data-index='3']"),
    )
    .await
    .prop("textContent")
    .await
    .unwrap();
    assert_eq!(row.as_deref(), Some("4"), "line 4 of `seq` is the fourth row");
    let width = client
        .execute(
            "return document.querySelector(arguments[0]).getBoundingClientRect().width;",
            vec![json!(format!("{card_big} [data-testid='persisted-text']"))],
        )
        .await
        .unwrap();
    assert!(
        width.as_f64().unwrap_or(0.0) > 300.0,
        "the output is laid out full width: {width}"
    );
    screenshot(&client, "05b-persisted-output-loaded").await;
    let more = element(&client, &format!("{card_big} [data-testid='persisted-load']"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(more.trim(), "Load more");
    let mut intro = 0;
    for t in client
        .find_all(Locator::Css("[data-testid='assistant-text']"))
        .await
        .unwrap()
    {
        if t.text().await.unwrap().contains("the three files first") {
            intro += 1;
        }
    }
    assert_eq!(intro, 1, "text streamed before the tool calls is shown once");

    for r in server.requests() {
        assert_eq!(r.status, 200, "the mock rejected a request: {r:?}");
        assert_eq!(r.headers.get("x-api-key").map(String::as_str), Some("<redacted>"));
    }

    // Closing the session ends it (SessionEnd hooks run); the transcript has the whole conversation.
    click(&client, "[data-testid='close-session']").await;
    let line = hook_line();
    wait_file("the SessionEnd hook", &root.join("session-ended.txt"), |t| {
        t.as_deref() == Some(line.as_str())
    })
    .await;
    let transcripts: Vec<_> = walk(data.path())
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .filter(|p| !p.ends_with("tool-results-index.jsonl"))
        // The session's checkpoint log (files saved before the agent changed them) is not a transcript.
        .filter(|p| !p.components().any(|c| c.as_os_str() == "checkpoints"))
        .collect();
    assert_eq!(transcripts.len(), 1, "{transcripts:?}");
    let text = std::fs::read_to_string(&transcripts[0]).unwrap();
    assert!(text.contains("toolu_big") && text.contains("All done"), "{text}");

    // Resume it from the project's session list: the history is back.
    click(&client, "[data-testid='recent-project']").await;
    click(&client, "[data-testid='resume-session']").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "All done").await;
    screenshot(&client, "06-resumed").await;
    // The cards are rebuilt as they were live: the parallel batch, the denial, the saved output,
    // the summaries; the engine's notes to the model are not shown as the user's words.
    element(&client, batch).await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_rm'][data-status='denied']",
    )
    .await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_big'] [data-testid='persisted-badge']",
    )
    .await;
    let summary = element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_read_1'] [data-testid='tool-summary']",
    )
    .await
    .prop("textContent")
    .await
    .unwrap();
    assert_eq!(summary.as_deref(), Some("notes.md"));
    for u in client
        .find_all(Locator::Css("[data-testid='user-text']"))
        .await
        .unwrap()
    {
        let text = u.prop("textContent").await.unwrap().unwrap_or_default();
        assert!(!text.contains("system-reminder"), "{text}");
    }

    // Abort while a command runs: the command is stopped, the call is answered, the turn ends,
    // and the session goes on (the mock checks the next request's history).
    type_into(&client, "[data-testid='prompt-input']", "Start the build.").await;
    click(&client, "[data-testid='send-button']").await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_abort'][data-status='executing']",
    )
    .await;
    assert!(sleep_running(), "the command runs");
    click(&client, "[data-testid='abort-button']").await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_abort'][data-status='cancelled']",
    )
    .await;
    wait_for_text(&client, "[data-testid='notice']", "Turn ended: aborted").await;
    wait_for(None, "the aborted command to be stopped", || async {
        (!sleep_running()).then_some(())
    })
    .await;
    screenshot(&client, "07-aborted").await;

    // The API refuses a request: the error is shown, the turn ends, the session goes on.
    type_into(&client, "[data-testid='prompt-input']", "Explain the config.").await;
    click(&client, "[data-testid='send-button']").await;
    wait_for_text(&client, "[data-testid='notice']", "e2e: the request was refused").await;
    wait_for_text(&client, "[data-testid='notice']", "Turn ended: error").await;

    // Quitting the app while a command runs: the command is stopped, the session ends cleanly.
    type_into(&client, "[data-testid='prompt-input']", "Now wait for the build.").await;
    click(&client, "[data-testid='send-button']").await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_sleep'][data-status='executing']",
    )
    .await;
    assert!(sleep_running(), "the command runs");
    // Quit the app the way a logout or `kill` does. (WebDriver cannot press the window manager's
    // close button; it kills the app instead. Both quit paths meet in the same exit handler.)
    let app = env!("CARGO_BIN_EXE_nerve-desktop");
    let quit = Command::new("pkill")
        .args(["-TERM", "-f", &format!("^{app}")])
        .status()
        .expect("pkill runs");
    assert!(quit.success(), "the app was running");
    wait_file(
        "the SessionEnd hook on quit",
        &root.join("session-ended.txt"),
        |t| t == Some(format!("{line}{line}")),
    )
    .await;
    wait_for(None, "the running command to be stopped", || async {
        (!sleep_running()).then_some(())
    })
    .await;
    let text = std::fs::read_to_string(&transcripts[0]).unwrap();
    assert!(
        text.contains("\"tool_use_id\":\"toolu_sleep\""),
        "the interrupted call is answered in the transcript"
    );
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
}

/// A git work tree in acceptEdits mode, for the review-and-rewind test.
fn review_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("a.txt"), "alpha\nshared line\n").unwrap();
    std::fs::write(p.join("b.txt"), "beta\n").unwrap();
    std::fs::write(p.join("c.txt"), "gamma\n").unwrap();
    std::fs::write(p.join("greeting.txt"), "hello\n").unwrap();
    // A project command, in Claude Code's format.
    std::fs::create_dir_all(p.join(".nerve/commands")).unwrap();
    std::fs::write(
        p.join(".nerve/commands/explain.md"),
        "---\ndescription: Explain a file\nargument-hint: <file>\n---\nExplain $ARGUMENTS in one sentence.",
    )
    .unwrap();
    let git = Command::new("git")
        .args(["init", "-q"])
        .current_dir(p)
        .status()
        .unwrap();
    assert!(git.success());
    std::fs::create_dir_all(p.join(".nerve")).unwrap();
    let settings = json!({"permissions": {"defaultMode": "acceptEdits"}});
    std::fs::write(p.join(".nerve/settings.json"), settings.to_string()).unwrap();
    dir
}

fn review_scenario(dir: &Path, outside: &Path) -> Scenario {
    let file = |name: &str| dir.join(name).display().to_string();
    let note = |id: &str, name: &str| {
        tool_use(
            id,
            "Read",
            json!({"file_path": outside.join(name).display().to_string()}),
        )
    };
    let steps = json!([
        {
            "expect": {"last_user_text_contains": "Rename the words"},
            "response": stream(vec![
                tool_use("toolu_read_a", "Read", json!({"file_path": file("a.txt")})),
                tool_use("toolu_read_b", "Read", json!({"file_path": file("b.txt")})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_read_b", "contains": "beta"}},
            "response": stream(vec![
                tool_use("toolu_edit_a", "Edit", json!({
                    "file_path": file("a.txt"), "old_string": "alpha", "new_string": "ALPHA"
                })),
                tool_use("toolu_edit_b", "Edit", json!({
                    "file_path": file("b.txt"), "old_string": "beta", "new_string": "BETA"
                })),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_edit_b", "is_error": false}},
            "response": stream(vec![
                tool_use("toolu_sed", "Bash", json!({
                    "command": "sed -i 's/gamma/GAMMA/' c.txt", "description": "Rename gamma"
                })),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_sed", "is_error": false}},
            "response": stream(vec![
                tool_use("toolu_new", "Bash", json!({"command": "echo x > new.txt", "description": "Add a file"})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_new", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Renamed the words and added new.txt."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Shout"},
            "response": stream(vec![
                tool_use("toolu_edit_a2", "Edit", json!({
                    "file_path": file("a.txt"), "old_string": "ALPHA", "new_string": "ALPHA!"
                })),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_edit_a2", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Shouted."})], "end_turn"),
        },
        {
            // The custom command, expanded by the engine, with the file picked after `@`.
            "expect": {"last_user_text_contains": "Explain @greeting.txt in one sentence."},
            "response": stream(vec![json!({"type": "text", "text": "It says hello."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Remove the build output"},
            "response": stream(vec![
                tool_use("toolu_rm", "Bash", json!({"command": "rm -rf build", "description": "Remove build"})),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_rm", "is_error": true, "contains": "doesn't want to proceed"}},
            "response": stream(vec![json!({"type": "text", "text": "Leaving it."})], "end_turn"),
        },
        {
            // `/init`, expanded by the engine: the model writes the project's instruction file
            // (acceptEdits: no question).
            "expect": {"last_user_text_contains": "Write a NERVE.md file at the root of this project"},
            "response": stream(vec![
                tool_use("toolu_init", "Write", json!({
                    "file_path": file("NERVE.md"),
                    "content": "# Words\n\nText files of words. Check with `cat *.txt`.\n"
                })),
            ], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_init", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Wrote NERVE.md."})], "end_turn"),
        },
        {
            // The second prompt, edited and resent: a fork of the conversation as it was before it.
            "expect": {"last_user_text_contains": "Whisper the first word.",
                       "no_message_contains": "Shout the first word"},
            "response": stream(vec![json!({"type": "text", "text": "Whispered."})], "end_turn"),
        },
        {
            // Back in the original session, in plan mode: a plan to approve.
            "expect": {"last_user_text_contains": "Plan the lower case."},
            "response": stream(vec![tool_use("toolu_plan", "ExitPlanMode", json!({
                "plan": "1. Lower ALPHA! in a.txt\n2. Say so"
            }))], "tool_use"),
        },
        {
            // Approved with notes: the approved plan the model reads carries them.
            "expect": {"tool_result": {"tool_use_id": "toolu_plan", "is_error": false,
                                       "contains": "## Notes from the user\nKeep the exclamation mark."}},
            "response": stream(vec![tool_use("toolu_read_a3", "Read", json!({"file_path": file("a.txt")}))], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_read_a3", "contains": "alpha"}},
            "response": stream(vec![tool_use("toolu_lower", "Edit", json!({
                "file_path": file("a.txt"), "old_string": "alpha", "new_string": "alpha!"
            }))], "tool_use"),
        },
        {
            // Accept edits, as chosen on approval: the edit ran without a question.
            "expect": {"tool_result": {"tool_use_id": "toolu_lower", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Lowered."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Read the three notes."},
            "response": stream(vec![
                note("toolu_note1", "one.txt"),
                note("toolu_note2", "two.txt"),
                note("toolu_note3", "three.txt"),
            ], "tool_use"),
        },
        {
            // Two allowed and the third denied with a message, in one action.
            "expect": {"tool_result": {"tool_use_id": "toolu_note3", "is_error": true,
                                       "contains": "Not the third one."}},
            "response": stream(vec![json!({"type": "text", "text": "Read two notes."})], "end_turn"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// First run: the key, the mock as the endpoint, then the project (a new session starts).
async fn set_up(client: &Client, server: &MockServer, root: &Path) {
    set_up_with(client, server, root, &[]).await;
}

/// [`set_up`], typing `fields` (a Settings field's test id and its text) before saving.
async fn set_up_with(client: &Client, server: &MockServer, root: &Path, fields: &[(&str, &str)]) {
    type_into(client, "[data-testid='api-key-input']", API_KEY).await;
    click(client, "[data-testid='api-key-save']").await;
    click(client, "[data-testid='open-settings']").await;
    type_into(client, "[data-testid='settings-base-url']", &server.url()).await;
    type_into(client, "[data-testid='settings-model']", "claude-e2e").await;
    for (testid, text) in fields {
        type_into(client, &format!("[data-testid='{testid}']"), text).await;
    }
    click(client, "[data-testid='settings-save']").await;
    wait_for_text(client, "[data-testid='settings-panel']", "Settings saved.").await;
    click(client, "[data-testid='settings-close']").await;
    type_into(
        client,
        "[data-testid='project-path-input']",
        &root.display().to_string(),
    )
    .await;
    click(client, "[data-testid='project-path-open']").await;
    element(client, "[data-testid='prompt-input']").await;
}

async fn send(client: &Client, prompt: &str) {
    type_into(client, "[data-testid='prompt-input']", prompt).await;
    click(client, "[data-testid='send-button']").await;
}

/// The `data-path`s of the elements matching `css`, sorted.
async fn paths_of(client: &Client, css: &str) -> Vec<String> {
    let mut paths = Vec::new();
    for e in client.find_all(Locator::Css(css)).await.unwrap() {
        paths.push(e.attr("data-path").await.unwrap().unwrap_or_default());
    }
    paths.sort();
    paths
}

/// Review and rewind in the real app: in acceptEdits mode the agent edits two files, runs a
/// `sed -i` (allowed from its preview) and a Bash command that creates a file; the cards show their
/// diffs, the Changes panel lists the four files, and rewinding the code to the first prompt
/// restores all four (the created file is removed because the engine saw it created). Then the
/// composer (a custom slash command with an `@` file) and a keyboard-only denial.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn review_and_rewind_in_the_desktop_app() {
    let dir = review_project();
    let root = dir.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    // Three notes outside the project: reading them asks, as one batch.
    let notes = tempfile::tempdir().unwrap();
    let outside = notes.path().canonicalize().unwrap();
    for name in ["one.txt", "two.txt", "three.txt"] {
        std::fs::write(outside.join(name), format!("note {name}\n")).unwrap();
    }
    let server = MockServer::start(review_scenario(&root, &outside)).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "review");
    let client = connect(port).await;
    set_up(&client, &server, &root).await;

    send(&client, "Rename the words, please.").await;
    dialog_for(&client, "Bash").await;
    element(&client, "[data-testid='sed-preview']").await;
    click(&client, "[data-testid='allow-once']").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "added new.txt").await;
    send(&client, "Shout the first word.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Shouted.").await;
    let read = |name: &str| std::fs::read_to_string(root.join(name)).ok();
    assert_eq!(read("a.txt").as_deref(), Some("ALPHA!\nshared line\n"));
    assert_eq!(read("new.txt").as_deref(), Some("x\n"));

    // Each changing card shows its own diff: the second edit of a.txt starts from the first.
    let card = |id: &str| format!("[data-testid='tool-card'][data-tool-use-id='{id}']");
    click(
        &client,
        &format!("{} [data-testid='card-changes'] summary", card("toolu_edit_a2")),
    )
    .await;
    wait_for_text(
        &client,
        &format!("{} [data-testid='diff-view']", card("toolu_edit_a2")),
        "ALPHA!",
    )
    .await;
    click(
        &client,
        &format!("{} [data-testid='card-changes'] summary", card("toolu_new")),
    )
    .await;
    let created = vec![root.join("new.txt").display().to_string()];
    let new_card_files = format!(
        "{} [data-testid='card-file'][data-status='created']",
        card("toolu_new")
    );
    wait_for(Some(&client), "the Bash card to list the file it created", || {
        let c = client.clone();
        let css = new_card_files.clone();
        let created = created.clone();
        async move { (paths_of(&c, &css).await == created).then_some(()) }
    })
    .await;
    assert!(
        client
            .find(Locator::Css(&format!(
                "{} [data-testid='card-changes']",
                card("toolu_read_a")
            )))
            .await
            .is_err(),
        "a read changes nothing and offers no diff"
    );

    // The Changes panel: the whole session's four files with their counts.
    click(&client, "[data-testid='open-changes']").await;
    element(&client, "[data-testid='changes-panel']").await;
    click(&client, "[data-testid='changes-scope-session']").await;
    let expected: Vec<String> = ["a.txt", "b.txt", "c.txt", "new.txt"]
        .iter()
        .map(|n| root.join(n).display().to_string())
        .collect();
    let shown = wait_for(Some(&client), "the session's four changed files", || {
        let c = client.clone();
        let expected = expected.clone();
        async move {
            let shown = paths_of(&c, "[data-testid='changed-file']").await;
            (shown == expected).then_some(shown)
        }
    })
    .await;
    assert_eq!(shown, expected);
    let row = |name: &str| {
        let css = format!(
            "[data-testid='changed-file'][data-path='{}'] [data-testid='file-counts']",
            root.join(name).display()
        );
        let client = client.clone();
        async move { element(&client, &css).await.text().await.unwrap() }
    };
    assert_eq!(row("new.txt").await.trim(), "+1 −0");
    assert_eq!(row("a.txt").await.trim(), "+1 −1");
    screenshot(&client, "08-changes-panel").await;
    check_layout(&client, "changes-panel").await;
    click(&client, "[data-testid='open-changes']").await;
    // The panel gone and the conversation laid out again: the view, still following the newest
    // output, has settled at the bottom before the click scrolls the first prompt into view.
    wait_for(Some(&client), "the changes panel to close", || {
        let c = client.clone();
        async move {
            c.find_all(Locator::Css("[data-testid='changes-panel']"))
                .await
                .ok()?
                .is_empty()
                .then_some(())
        }
    })
    .await;
    painted(&client).await;

    // Rewind the code to just before the first prompt: the preview lists the four files.
    click(&client, "[data-testid='rewind-prompt']").await;
    element(&client, "[data-testid='rewind-dialog']").await;
    click(&client, "[data-testid='rewind-choice-code']").await;
    let planned = wait_for(Some(&client), "the rewind preview's four files", || {
        let c = client.clone();
        let expected = expected.clone();
        async move {
            let planned = paths_of(&c, "[data-testid='rewind-file']").await;
            (planned == expected).then_some(planned)
        }
    })
    .await;
    assert_eq!(planned, expected);
    screenshot(&client, "09-rewind-preview").await;
    check_layout(&client, "rewind-preview").await;
    click(&client, "[data-testid='rewind-confirm']").await;
    wait_file("new.txt to be removed", &root.join("new.txt"), |t| t.is_none()).await;
    assert_eq!(read("a.txt").as_deref(), Some("alpha\nshared line\n"));
    assert_eq!(read("b.txt").as_deref(), Some("beta\n"));
    assert_eq!(read("c.txt").as_deref(), Some("gamma\n"));
    // Only the code went back: the conversation is still all there.
    wait_for_text(&client, "[data-testid='assistant-text']", "Shouted.").await;

    // The composer: `/` lists the project's command, `@gre` + Enter picks greeting.txt, and the
    // engine expands the command with its argument.
    type_into(&client, "[data-testid='prompt-input']", "/expl").await;
    element(&client, "[data-testid='command-item'][data-name='explain']").await;
    type_into(&client, "[data-testid='prompt-input']", &Key::Tab.to_string()).await;
    type_into(&client, "[data-testid='prompt-input']", "@gre").await;
    element(&client, "[data-testid='file-item'][data-path='greeting.txt']").await;
    screenshot(&client, "10-file-mention").await;
    type_into(&client, "[data-testid='prompt-input']", &Key::Enter.to_string()).await;
    let typed = element(&client, "[data-testid='prompt-input']")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(
        typed.as_deref(),
        Some("/explain @greeting.txt "),
        "Enter picked the file, nothing was sent"
    );
    type_into(&client, "[data-testid='prompt-input']", &Key::Enter.to_string()).await;
    wait_for_text(&client, "[data-testid='assistant-text']", "It says hello.").await;

    // Keyboard only: after sending, the request takes the focus; `n` denies it, types nothing into
    // the prompt box and sends nothing.
    send(&client, "Remove the build output.").await;
    dialog_for(&client, "Bash").await;
    // The dialog's shortcuts arm 400 ms after it opens (a key meant for the prompt box must not
    // answer it).
    tokio::time::sleep(Duration::from_millis(600)).await;
    client
        .active_element()
        .await
        .unwrap()
        .send_keys("n")
        .await
        .unwrap();
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_rm'][data-status='denied']",
    )
    .await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Leaving it.").await;
    let typed = element(&client, "[data-testid='prompt-input']")
        .await
        .prop("value")
        .await
        .unwrap();
    assert_eq!(
        typed.as_deref(),
        Some(""),
        "the key answered the dialog, not the prompt box"
    );

    // `/init`: the model is asked to study the project and writes NERVE.md.
    type_into(&client, "[data-testid='prompt-input']", "/ini").await;
    element(&client, "[data-testid='command-item'][data-name='init']").await;
    type_into(&client, "[data-testid='prompt-input']", &Key::Tab.to_string()).await;
    type_into(&client, "[data-testid='prompt-input']", &Key::Enter.to_string()).await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Wrote NERVE.md.").await;
    assert_eq!(
        read("NERVE.md").as_deref(),
        Some("# Words\n\nText files of words. Check with `cat *.txt`.\n")
    );

    // Edit the second prompt in place and resend it: the conversation goes on from before it in a
    // fork (the files stay as they are), and the earlier branch stays in the sidebar, whole.
    let original = active_session(&client).await;
    click(
        &client,
        "[data-testid='user-message'][data-turn='2'] [data-testid='prompt-edit']",
    )
    .await;
    let text = element(&client, "[data-testid='prompt-editor-text']").await;
    text.clear().await.unwrap();
    text.send_keys("Whisper the first word.").await.unwrap();
    screenshot(&client, "11-edit-prompt").await;
    click(&client, "[data-testid='prompt-editor-send']").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Whispered.").await;
    let fork = active_session(&client).await;
    assert_ne!(fork, original, "the edited prompt went to a fork");
    assert!(read("NERVE.md").is_some(), "the code was not rewound");
    element(
        &client,
        &format!("{} [data-testid='sidebar-session-forked']", self::row(&fork)),
    )
    .await;
    click(
        &client,
        &format!("{} [data-testid='sidebar-session-title']", self::row(&original)),
    )
    .await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='assistant-text']"),
        "Wrote NERVE.md.",
    )
    .await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='user-text']"),
        "Shout the first word.",
    )
    .await;

    // Plan review: the plan approved with notes, the work going on in acceptEdits.
    send_here(&client, "/mode plan").await;
    send_here(&client, "Plan the lower case.").await;
    element(&client, &on_screen("[data-testid='plan-approve']")).await;
    type_into(
        &client,
        &on_screen("[data-testid='plan-notes']"),
        "Keep the exclamation mark.",
    )
    .await;
    click(&client, &on_screen("[data-testid='plan-mode-acceptEdits']")).await;
    screenshot(&client, "12-plan-review").await;
    check_layout(&client, "plan-review").await;
    click(&client, &on_screen("[data-testid='plan-approve']")).await;
    wait_for_text(&client, &on_screen("[data-testid='assistant-text']"), "Lowered.").await;
    assert_eq!(read("a.txt").as_deref(), Some("alpha!\nshared line\n"));

    // A batch of three reads outside the project, answered in one action: two allowed, the third
    // denied with a message.
    send_here(&client, "Read the three notes.").await;
    element(&client, &on_screen("[data-testid='batch-approval']")).await;
    let rows = client
        .find_all(Locator::Css(&on_screen("[data-testid='batch-row']")))
        .await
        .unwrap();
    assert_eq!(rows.len(), 3);
    click(
        &client,
        &on_screen("[data-testid='batch-row'][data-tool-use-id='toolu_note3'] [data-testid='batch-select']"),
    )
    .await;
    type_into(
        &client,
        &on_screen("[data-testid='batch-deny-message']"),
        "Not the third one.",
    )
    .await;
    screenshot(&client, "13-batch-approval").await;
    check_layout(&client, "batch-approval").await;
    click(&client, &on_screen("[data-testid='batch-deny-rest']")).await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='assistant-text']"),
        "Read two notes.",
    )
    .await;
    for (id, status) in [
        ("toolu_note1", "completed"),
        ("toolu_note2", "completed"),
        ("toolu_note3", "denied"),
    ] {
        element(
            &client,
            &on_screen(&format!(
                "[data-testid='tool-card'][data-tool-use-id='{id}'][data-status='{status}']"
            )),
        )
        .await;
    }
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

/// The engine's test MCP server, built beside the app by the engine's tests (`scripts/test.sh`
/// runs them first).
fn test_mcp_server() -> PathBuf {
    let path = Path::new(env!("CARGO_BIN_EXE_nerve-desktop")).with_file_name("nerve-test-mcp-server");
    assert!(
        path.exists(),
        "{} is missing: build it with `cargo test -p nerve --no-run` (scripts/test.sh does)",
        path.display()
    );
    path
}

/// The test MCP server over streamable HTTP behind its own OAuth authorization server; killed
/// when dropped.
struct OAuthMcpServer {
    url: String,
    child: std::process::Child,
}

impl OAuthMcpServer {
    fn start() -> Self {
        use std::io::BufRead;
        let mut child = Command::new(test_mcp_server())
            .args(["--http", "127.0.0.1:0", "--oauth"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut url = String::new();
        std::io::BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut url)
            .unwrap();
        Self {
            url: url.trim().to_string(),
            child,
        }
    }
}

impl Drop for OAuthMcpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A project with a `.mcp.json` server nobody approved yet.
fn settings_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    std::fs::write(p.join("greeting.txt"), "hello\n").unwrap();
    let mcp = json!({"mcpServers": {"kit": {"command": test_mcp_server().display().to_string()}}});
    std::fs::write(p.join(".mcp.json"), mcp.to_string()).unwrap();
    // A sub-agent type in Claude Code's format, listed in Settings → Agents & skills.
    std::fs::create_dir_all(p.join(".claude/agents")).unwrap();
    std::fs::write(
        p.join(".claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: Reviews a change\ntools: Read, Grep\nmodel: haiku\n---\nReview.\n",
    )
    .unwrap();
    dir
}

/// A 1×1 PNG, as a screenshot pasted into the prompt box would arrive.
const TINY_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

fn settings_scenario() -> Scenario {
    let touch = || {
        tool_use(
            "toolu_touch",
            "Bash",
            json!({"command": "touch made.txt", "description": "Make the file"}),
        )
    };
    let thought =
        || json!({"type": "thinking", "thinking": "The rule is gone: ask.", "signature": "sig-e2e"});
    let medium = json!({"type": "enabled", "budget_tokens": 10_000});
    let steps = json!([
        {
            // The pasted image goes to the model as an image block; the unapproved server's tools
            // are not offered.
            "expect": {"last_user_images": ["image/png"], "last_user_text_contains": "in this picture",
                       "model": "claude-e2e", "tools_exclude": ["mcp__kit__echo"]},
            "response": stream(vec![json!({"type": "text", "text": "A tiny square."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Make the file"},
            "response": stream(vec![touch()], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_touch", "is_error": true}},
            "response": stream(vec![json!({"type": "text", "text": "Not made."})], "end_turn"),
        },
        {
            // A new session after the rule was added and the server approved in Settings.
            "expect": {"last_user_text_contains": "Again", "message_count": 1, "tools_include": ["mcp__kit__echo"]},
            "response": stream(vec![touch()], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_touch", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Made it."})], "end_turn"),
        },
        {
            // The rule was removed: the same call asks again.
            // Chosen in the header's model picker: another model, thinking at medium effort.
            // The hook added in Settings put its line beside the prompt.
            "expect": {"last_user_text_contains": "The hook says: be brief.", "message_count": 1,
                       "model": "claude-e2e-fast", "thinking": medium,
                       "tools_include": ["mcp__more__add"], "tools_exclude": ["mcp__more__echo"]},
            "response": stream(vec![thought(), touch()], "tool_use"),
        },
        {
            // Slow enough for the test to put another window in front before the turn ends.
            "expect": {"tool_result": {"tool_use_id": "toolu_touch", "is_error": false},
                       "model": "claude-e2e-fast", "thinking": medium},
            "response": delayed(stream(vec![json!({"type": "text", "text": "Made it again."})], "end_turn"), 3000),
        },
    ]);
    // A local model server: no key at all.
    Scenario::from_json(
        &json!({"steps": steps, "auth": "none", "models": ["claude-e2e", "claude-e2e-fast"]}).to_string(),
    )
    .unwrap()
}

/// `response` sent after a pause of `ms` milliseconds.
fn delayed(mut response: Value, ms: u64) -> Value {
    response["delay_ms"] = json!(ms);
    response
}

/// Another X client that takes the input focus, as switching to another window does (the test's X
/// server has no window manager to ask). Dropping it gives the focus back to the screen.
struct FocusThief {
    /// Held: the focus stays with this client's window until the connection closes.
    _connection: x11rb::rust_connection::RustConnection,
    window: u32,
}

impl FocusThief {
    /// Whether the X input focus left this client's window (another window took it).
    fn lost_focus(&self) -> bool {
        use x11rb::protocol::xproto::ConnectionExt;
        let focus = self._connection.get_input_focus().unwrap().reply().unwrap().focus;
        focus != self.window
    }

    fn take() -> Self {
        use x11rb::connection::Connection;
        use x11rb::protocol::xproto::{ConnectionExt, CreateWindowAux, InputFocus, WindowClass};
        let (conn, screen) = x11rb::connect(None).expect("the test's X display");
        let root = conn.setup().roots[screen].root;
        let window = conn.generate_id().unwrap();
        conn.create_window(
            x11rb::COPY_DEPTH_FROM_PARENT,
            window,
            root,
            0,
            0,
            16,
            16,
            0,
            WindowClass::INPUT_OUTPUT,
            0,
            &CreateWindowAux::new(),
        )
        .unwrap();
        conn.map_window(window).unwrap();
        // A window can take the focus once it is viewable: try until the server says it has it.
        let start = Instant::now();
        loop {
            conn.set_input_focus(InputFocus::PARENT, window, x11rb::CURRENT_TIME)
                .unwrap();
            let focus = conn.get_input_focus().unwrap().reply().unwrap().focus;
            if focus == window {
                return Self {
                    _connection: conn,
                    window,
                };
            }
            assert!(start.elapsed() < WAIT, "the focus thief never got the focus");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

/// A real notification server (dunst) on the test's D-Bus session and X display: the app's notices
/// are shown to it, and clicked through it (`dunstctl action`) as a user clicks them.
struct NotificationServer {
    daemon: std::process::Child,
    _config: tempfile::TempDir,
}

impl NotificationServer {
    fn start() -> Self {
        let config = tempfile::tempdir().unwrap();
        let file = config.path().join("dunstrc");
        // Notices stay on screen until clicked or closed, so the test finds them there.
        let never = "    timeout = 0\n";
        std::fs::write(
            &file,
            format!("[urgency_low]\n{never}[urgency_normal]\n{never}[urgency_critical]\n{never}"),
        )
        .unwrap();
        let daemon = Command::new("dunst")
            .arg("-config")
            .arg(&file)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("dunst, the notification server (Debian package dunst; scripts/test.sh installs it)");
        let server = Self {
            daemon,
            _config: config,
        };
        let start = Instant::now();
        while server.dunstctl(&["is-paused"]).is_none() {
            assert!(start.elapsed() < WAIT, "dunst never answered on the session bus");
            std::thread::sleep(Duration::from_millis(100));
        }
        server
    }

    /// Runs `dunstctl ARGS`: its output, or None when it failed (dunst not on the bus yet).
    fn dunstctl(&self, args: &[&str]) -> Option<String> {
        let out = Command::new("dunstctl").args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// How many notices are on screen.
    fn displayed(&self) -> usize {
        self.dunstctl(&["count", "displayed"])
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// Closes every notice on screen.
    fn close_all(&self) {
        self.dunstctl(&["close-all"]).expect("dunstctl close-all");
    }

    /// Clicks the notice on top, as a user does (its default action).
    fn click_top(&self) {
        self.dunstctl(&["action", "0"]).expect("dunstctl action");
    }
}

impl Drop for NotificationServer {
    fn drop(&mut self) {
        let _ = self.daemon.kill();
        let _ = self.daemon.wait();
    }
}

/// Pastes a PNG into the prompt box as the clipboard would (a `paste` event carrying a file).
async fn paste_png(client: &Client) {
    let script = r#"
        const bin = atob(arguments[0]);
        const bytes = new Uint8Array(bin.length);
        for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        const data = new DataTransfer();
        data.items.add(new File([bytes], "square.png", { type: "image/png" }));
        const event = new Event("paste", { bubbles: true, cancelable: true });
        Object.defineProperty(event, "clipboardData", { value: data });
        document.querySelector("[data-testid='prompt-input']").dispatchEvent(event);
    "#;
    client.execute(script, vec![json!(TINY_PNG)]).await.unwrap();
}

/// Opens Settings (scrolled to its rules) and waits for the project's rules to load.
async fn open_settings(client: &Client) {
    click(client, "[data-testid='open-settings']").await;
    element(client, "[data-testid='rules-list']").await;
}

/// `/clear`: a new session in the same project, with the settings as they now are.
async fn new_session(client: &Client) {
    send(client, "/clear").await;
    wait_for(Some(client), "a new, empty session", || {
        let c = client.clone();
        async move {
            c.find(Locator::Css("[data-testid='assistant-text']"))
                .await
                .is_err()
                .then_some(())
        }
    })
    .await;
}

/// Settings in the real app, with a local model server that needs no key: the first run offers it,
/// Settings lists its models, a pasted image reaches the model, a request gets attention, a rule
/// added in Settings lets the next session run a command without asking (the rule tester agrees),
/// an MCP server approved there offers its tools, and removing the rule makes the call ask again.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn settings_images_and_attention_in_the_desktop_app() {
    let dir = settings_project();
    let root = dir.path().canonicalize().unwrap();
    // A remote MCP server behind OAuth, in the project's local scope (personal: no approval).
    let secure = OAuthMcpServer::start();
    std::fs::create_dir_all(root.join(".nerve")).unwrap();
    std::fs::write(
        root.join(".nerve/settings.local.json"),
        json!({"mcpServers": {"secure": {"type": "http", "url": secure.url}}}).to_string(),
    )
    .unwrap();
    let mcp_service = format!("nerve-e2e-mcp-{}", std::process::id());
    let data = tempfile::tempdir().unwrap();
    let attention = data.path().join("attention.jsonl");
    // Before the app: it sends its notices to whichever server owns the bus name then.
    let notices = NotificationServer::start();
    let server = MockServer::start(settings_scenario()).await.unwrap();
    let port = free_port();
    let browser = test_mcp_server();
    let _driver = start_driver_with(
        port,
        data.path(),
        "settings",
        &[
            ("NERVE_ATTENTION_LOG", &attention),
            // The sign-in's "browser" is the test server, which follows the redirect back.
            ("BROWSER", &browser),
            ("NERVE_MCP_KEYRING_SERVICE", Path::new(&mcp_service)),
        ],
    );
    let client = connect(port).await;

    // First run: a local model server instead of a key. The keyring answers here, so the first
    // screen does not say otherwise.
    let url = element(&client, "[data-testid='first-run-local-url']").await;
    check_layout(&client, "first-run").await;
    assert!(
        client
            .find(Locator::Css("[data-testid='keyring-fallback']"))
            .await
            .is_err(),
        "a working keyring is not reported as missing"
    );
    url.clear().await.unwrap();
    url.send_keys(&server.url()).await.unwrap();
    click(&client, "[data-testid='first-run-local-check']").await;
    wait_for_text(&client, "body", "2 models").await;
    screenshot(&client, "11-first-run-local-server").await;
    click(&client, "[data-testid='first-run-local-use']").await;
    element(&client, "[data-testid='project-path-input']").await;
    check_layout(&client, "project-picker").await;

    // Settings lists the server's models; picking one fills the model.
    click(&client, "[data-testid='open-settings']").await;
    click(&client, "[data-testid='list-models']").await;
    click(&client, "[data-testid='model-option'][data-model='claude-e2e']").await;
    click(&client, "[data-testid='settings-save']").await;
    wait_for_text(&client, "[data-testid='settings-panel']", "Settings saved.").await;
    click(&client, "[data-testid='settings-close']").await;
    type_into(
        &client,
        "[data-testid='project-path-input']",
        &root.display().to_string(),
    )
    .await;
    click(&client, "[data-testid='project-path-open']").await;
    element(&client, "[data-testid='prompt-input']").await;

    // A pasted image: a thumbnail, then an image block in the request.
    paste_png(&client).await;
    element(&client, "[data-testid='attachment']").await;
    send(&client, "What is in this picture?").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "A tiny square.").await;
    element(&client, "[data-testid='user-image']").await;
    screenshot(&client, "13-pasted-image").await;
    assert!(
        client
            .find(Locator::Css("[data-testid='attachment']"))
            .await
            .is_err(),
        "sent images leave the composer"
    );

    // A request gets attention while the user is in another window: the shell marks the window
    // urgent and asks for a notification. The call is denied.
    let thief = FocusThief::take();
    send(&client, "Make the file.").await;
    dialog_for(&client, "Bash").await;
    let record: Value = wait_for(Some(&client), "the attention log to name the call", || {
        let text = std::fs::read_to_string(&attention).unwrap_or_default();
        async move {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find(|r| {
                    r["summary"]
                        .as_str()
                        .is_some_and(|s| s.contains("touch made.txt"))
                })
        }
    })
    .await;
    drop(thief);
    assert_eq!(record["focused"], json!(false), "{record}");
    assert_eq!(record["urgent"], json!("requested"), "{record}");
    // The request reached the notification service (the test's session bus may have none to show
    // it: then the plugin's error is recorded instead, naming the service).
    let notification = record["notification"].as_str().unwrap_or_default();
    assert!(
        notification == "requested" || notification.starts_with("failed: "),
        "{record}"
    );
    eprintln!("attention: {record}");
    click(&client, "[data-testid='deny']").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Not made.").await;
    assert!(!root.join("made.txt").exists());

    // Settings: a rule for the command (checked as typed), the tester agrees, the server approved.
    open_settings(&client).await;
    type_into(&client, "[data-testid='rule-add-input']", "Bash(touch made.txt").await;
    wait_for_text(&client, "[data-testid='rule-error']", "needs a matching `)`").await;
    type_into(&client, "[data-testid='rule-add-input']", ")").await;
    // Save turns on once the engine's parser accepts the rule.
    click(&client, "[data-testid='rule-add-save']:not([disabled])").await;
    element(
        &client,
        "[data-testid='rule-row'][data-rule='Bash(touch made.txt)'][data-behavior='allow']",
    )
    .await;
    let local = std::fs::read_to_string(root.join(".nerve/settings.local.json")).unwrap();
    assert!(local.contains("Bash(touch made.txt)"), "{local}");
    let command = element(&client, "[data-testid='check-command']").await;
    command.clear().await.unwrap();
    command.send_keys("touch made.txt").await.unwrap();
    click(&client, "[data-testid='check-run']").await;
    wait_for_text(&client, "[data-testid='check-decision']", "allow").await;
    wait_for_text(&client, "[data-testid='check-rule']", "Bash(touch made.txt)").await;
    // The project's sub-agent type, as the engine read it.
    let reviewer = element(&client, "[data-testid='definition-agent'][data-name='reviewer']").await;
    let listed = reviewer.text().await.unwrap();
    // The clamped description's text is read from the page (WebDriver leaves a line-clamped box
    // out of an element's visible text while it is scrolled away).
    let description = client
        .find(Locator::Css(
            "[data-testid='definition-agent'][data-name='reviewer'] [data-testid='definition-description']",
        ))
        .await
        .unwrap()
        .prop("textContent")
        .await
        .unwrap();
    assert_eq!(description.as_deref(), Some("Reviews a change"));
    for words in ["Read", "Grep", "haiku", "Project · Claude Code"] {
        assert!(listed.contains(words), "{words} missing from {listed}");
    }
    click(&client, "[data-testid='mcp-approve'][data-server='kit']").await;
    wait_file(
        "the approval in the local settings",
        &root.join(".nerve/settings.local.json"),
        |t| t.is_some_and(|t| t.contains("enabledMcpjsonServers") && t.contains("kit")),
    )
    .await;
    click(&client, "[data-testid='mcp-probe']").await;
    element(
        &client,
        "[data-testid='mcp-server'][data-server='kit'] [title='mcp__kit__echo']",
    )
    .await;
    // The remote server wants a sign-in; Sign in goes through the browser and the token lands in
    // the keyring, and the server connects.
    wait_for_text(
        &client,
        "[data-testid='mcp-server'][data-server='secure'] [data-testid='mcp-status']",
        "Needs sign-in",
    )
    .await;
    wait_for_text(
        &client,
        "[data-testid='mcp-server'][data-server='secure'] [data-testid='mcp-scope']",
        "local",
    )
    .await;
    click(&client, "[data-testid='mcp-sign-in'][data-server='secure']").await;
    element(
        &client,
        "[data-testid='mcp-server'][data-server='secure'] [title='mcp__secure__echo']",
    )
    .await;
    let entry = nerve::credentials::KeyringStore::new(&mcp_service, format!("secure {}", secure.url));
    let stored = nerve::credentials::SecretStore::read(&entry)
        .unwrap()
        .expect("the token is in the keyring");
    assert!(stored.contains("access-"), "{stored}");
    let local = std::fs::read_to_string(root.join(".nerve/settings.local.json")).unwrap();
    assert!(!local.contains("access-"), "no token in a settings file: {local}");
    screenshot(&client, "12-settings-rules-and-mcp").await;
    click(&client, "[data-testid='mcp-sign-out'][data-server='secure']").await;
    for _ in 0..100 {
        if nerve::credentials::SecretStore::read(&entry).unwrap().is_none() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(
        nerve::credentials::SecretStore::read(&entry).unwrap(),
        None,
        "signed out"
    );
    click(&client, "[data-testid='settings-close']").await;

    // A new session: the rule lets the command run without asking; the server's tools are offered.
    new_session(&client).await;
    send(&client, "Again, make the file.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Made it.").await;
    assert!(root.join("made.txt").exists());
    assert!(
        client
            .find(Locator::Css("[data-testid='permission-dialog']"))
            .await
            .is_err(),
        "the rule allowed the call"
    );

    // Removing the rule: the next session asks again.
    open_settings(&client).await;
    click(
        &client,
        "[data-testid='rule-row'][data-rule='Bash(touch made.txt)'] [data-testid='rule-remove']",
    )
    .await;
    click(
        &client,
        "[data-testid='rule-row'][data-rule='Bash(touch made.txt)'] [data-testid='rule-remove-confirm']",
    )
    .await;
    wait_for(Some(&client), "the rule to be gone", || {
        let c = client.clone();
        async move {
            c.find(Locator::Css(
                "[data-testid='rule-row'][data-rule='Bash(touch made.txt)']",
            ))
            .await
            .is_err()
            .then_some(())
        }
    })
    .await;
    // An MCP server added from the app, and one of its tools switched off: the next session's
    // requests offer its other tools, not that one.
    click(&client, "[data-testid='mcp-add']").await;
    type_into(&client, "[data-testid='mcp-form-name']", "more").await;
    type_into(
        &client,
        "[data-testid='mcp-form-command']",
        &test_mcp_server().display().to_string(),
    )
    .await;
    click(&client, "[data-testid='mcp-form-save']").await;
    wait_for_text(&client, "[data-testid='mcp-written']", "settings.local.json").await;
    click(
        &client,
        "[data-testid='mcp-server'][data-server='more'] [data-testid='mcp-tool'][data-tool='mcp__more__echo'] [data-testid='mcp-tool-toggle']",
    )
    .await;
    wait_file(
        "the tool to be switched off in the local settings",
        &root.join(".nerve/settings.local.json"),
        |text| text.is_some_and(|t| t.contains("\"mcp__more__echo\"") && t.contains("\"more\"")),
    )
    .await;
    screenshot(&client, "14-mcp-added").await;
    // A hook added from the app, tested first against a sample event: from the next prompt on, its
    // output goes to the model with the prompt.
    click(&client, "[data-testid='hook-add']").await;
    click(
        &client,
        "[data-testid='hook-form-event'] option[value='UserPromptSubmit']",
    )
    .await;
    type_into(
        &client,
        "[data-testid='hook-form-command']",
        "echo 'The hook says: be brief.'",
    )
    .await;
    click(&client, "[data-testid='hook-form'] [data-testid='hook-test']").await;
    wait_for_text(
        &client,
        "[data-testid='hook-test-result']",
        "added to what the model reads",
    )
    .await;
    click(&client, "[data-testid='hook-form-save']").await;
    wait_for_text(&client, "[data-testid='hook-written']", "settings.local.json").await;
    element(&client, "[data-testid='hook-row'][data-event='UserPromptSubmit']").await;
    screenshot(&client, "15-hook-added").await;
    click(&client, "[data-testid='settings-close']").await;
    new_session(&client).await;
    // The header's model picker: another of the server's models and a thinking effort. The mock
    // checks that the next prompt's requests carry both.
    click(&client, "[data-testid='model-picker']").await;
    click(
        &client,
        "[data-testid='model-menu-option'][data-model='claude-e2e-fast']",
    )
    .await;
    wait_for_text(&client, "[data-testid='model-picker-name']", "claude-e2e-fast").await;
    click(&client, "[data-testid='model-picker']").await;
    click(&client, "[data-testid='effort-option'][data-effort='medium']").await;
    wait_for_text(&client, "[data-testid='effort-chip']", "thinking medium").await;
    check_layout(&client, "model-menu").await;
    element(&client, "[data-testid='model-menu']")
        .await
        .send_keys(&Key::Escape.to_string())
        .await
        .unwrap();
    wait_for(Some(&client), "the model menu to close", || {
        let c = client.clone();
        async move {
            c.find(Locator::Css("[data-testid='model-menu']"))
                .await
                .is_err()
                .then_some(())
        }
    })
    .await;
    send(&client, "Once more, make the file.").await;
    dialog_for(&client, "Bash").await;
    click(&client, "[data-testid='allow-once']").await;
    // The turn ends while the user is in another window: a system notification names the session
    // and the outcome, its row says "done" until the session is opened, and a screen reader hears it.
    // Every turn's end is logged: only those after this point count. The notices of earlier
    // requests go first, so the one on screen is this turn's.
    let logged_before = std::fs::read_to_string(&attention)
        .unwrap_or_default()
        .lines()
        .count();
    notices.close_all();
    let thief = FocusThief::take();
    let ended: Value = wait_for(
        Some(&client),
        "the attention log to record the turn's end",
        || {
            let text = std::fs::read_to_string(&attention).unwrap_or_default();
            async move {
                text.lines()
                    .skip(logged_before)
                    .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                    .find(|r| r["turn_end"] == json!("end_turn"))
            }
        },
    )
    .await;
    eprintln!("turn end: {ended}");
    assert_eq!(
        (&ended["focused"], &ended["shown"]),
        (&json!(false), &json!(true)),
        "{ended}"
    );
    assert_eq!(
        (&ended["notification"], &ended["title"], &ended["body"]),
        (
            &json!("requested"),
            &json!("Nerve: Once more, make the file."),
            &json!("Done.")
        ),
        "{ended}"
    );
    wait_for(None, "the notice on the notification server's screen", || {
        let shown = notices.displayed();
        async move { (shown == 1).then_some(()) }
    })
    .await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Made it again.").await;
    let marker = "[data-testid='sidebar-session'][aria-current='true'] [data-testid='session-marker']";
    wait_for_text(&client, marker, "done").await;
    wait_for_text(&client, "[data-testid='live-announcer']", "done").await;
    // Meanwhile Settings cover the session. A click on the notice brings the window to the front
    // with the session shown and its marker gone.
    open_settings(&client).await;
    notices.click_top();
    let clicked: Value = wait_for(Some(&client), "the click on the notice to be handled", || {
        let text = std::fs::read_to_string(&attention).unwrap_or_default();
        async move {
            text.lines()
                .filter_map(|l| serde_json::from_str::<Value>(l).ok())
                .find(|r| r.get("clicked").is_some())
        }
    })
    .await;
    assert_eq!(
        clicked,
        json!({"clicked": ended["session_id"], "focus": "requested", "window_told": true})
    );
    wait_for(Some(&client), "the window to take the focus", || {
        let lost = thief.lost_focus();
        async move { lost.then_some(()) }
    })
    .await;
    wait_for(
        Some(&client),
        "Settings to close, showing the session without its marker",
        || {
            let c = client.clone();
            async move {
                let settings = c.find(Locator::Css("[data-testid='rules-list']")).await;
                let marker = c.find(Locator::Css(marker)).await;
                (settings.is_err() && marker.is_err()).then_some(())
            }
        },
    )
    .await;
    drop(thief);
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

fn queue_scenario() -> Scenario {
    let wait = |id: &str, seconds: &str| {
        tool_use(
            id,
            "Bash",
            json!({"command": format!("sleep {seconds}"), "description": "Wait"}),
        )
    };
    let steps = json!([
        // A turn makes two model calls (the limit set in Settings) and stops; Continue goes on.
        {"expect": {"last_user_text_contains": "Count slowly"}, "response": stream(vec![wait("toolu_w1", "0.1")], "tool_use")},
        {"expect": {"tool_result": {"tool_use_id": "toolu_w1"}}, "response": stream(vec![wait("toolu_w2", "0.1")], "tool_use")},
        {
            "expect": {"last_user_text_contains": "continue"},
            "response": stream(vec![json!({"type": "text", "text": "Continuing where the limit stopped me."})], "end_turn"),
        },
        // Another turn stops at the limit with three prompts queued behind it (its first call is
        // slow enough to queue them).
        {"expect": {"last_user_text_contains": "Count again"}, "response": stream(vec![wait("toolu_w3", "2")], "tool_use")},
        {"expect": {"tool_result": {"tool_use_id": "toolu_w3"}}, "response": stream(vec![wait("toolu_w4", "0.1")], "tool_use")},
        {
            "expect": {"last_user_text_contains": "First queued"},
            "response": stream(vec![json!({"type": "text", "text": "One."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Second queued"},
            "response": stream(vec![json!({"type": "text", "text": "Two."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Third queued"},
            "response": stream(vec![json!({"type": "text", "text": "Three."})], "end_turn"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// The model-call limit (set in Settings) is said, with a Continue that goes on with one click; and
/// prompts queued behind a turn that stops at the limit all run, in order, none refused.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn queued_prompts_survive_the_call_limit_in_the_desktop_app() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    let root = dir.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(queue_scenario()).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "queue");
    let client = connect(port).await;
    set_up_with(&client, &server, &root, &[("settings-max-model-calls", "2")]).await;

    send(&client, "Count slowly.").await;
    wait_for_text(&client, "[data-testid='notice']", "limit of model calls").await;
    screenshot(&client, "14-call-limit").await;
    click(&client, "[data-testid='continue-turn']").await;
    wait_for_text(
        &client,
        "[data-testid='assistant-text']",
        "Continuing where the limit stopped me.",
    )
    .await;

    send(&client, "Count again.").await;
    element(
        &client,
        "[data-testid='tool-card'][data-tool-use-id='toolu_w3'][data-status='executing']",
    )
    .await;
    for prompt in ["First queued.", "Second queued.", "Third queued."] {
        type_into(&client, "[data-testid='prompt-input']", prompt).await;
        type_into(&client, "[data-testid='prompt-input']", &Key::Enter.to_string()).await;
    }
    wait_for(Some(&client), "three queued prompts", || {
        let c = client.clone();
        async move {
            let n = c
                .find_all(Locator::Css("[data-testid='queued-prompt']"))
                .await
                .ok()?
                .len();
            (n == 3).then_some(())
        }
    })
    .await;
    // The limit stops that turn; the queue then runs, one prompt after the other.
    wait_for_text(&client, "[data-testid='assistant-text']", "Three.").await;
    let mut answers = Vec::new();
    for e in client
        .find_all(Locator::Css("[data-testid='assistant-text']"))
        .await
        .unwrap()
    {
        answers.push(
            e.prop("innerText")
                .await
                .unwrap()
                .unwrap_or_default()
                .trim()
                .to_string(),
        );
    }
    assert_eq!(
        answers[answers.len() - 3..],
        ["One.", "Two.", "Three."],
        "{answers:?}"
    );
    assert!(
        client
            .find(Locator::Css("[data-testid='queued-prompt']"))
            .await
            .is_err(),
        "the queue is empty"
    );
    let refused = client
        .find_all(Locator::Css("[data-testid='notice'][role='alert']"))
        .await
        .unwrap();
    assert!(refused.is_empty(), "no prompt was refused");
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

/// The app as a user installs it: the package's binary (`NERVE_E2E_APP`) starts under Xvfb and shows
/// its first screen. Run by `scripts/test-install.sh` after `dpkg -i`, not by the main e2e run.
#[tokio::test]
#[ignore = "needs the installed package: run by scripts/test-install.sh"]
async fn the_installed_app_shows_its_first_screen() {
    let app = std::env::var_os("NERVE_E2E_APP").expect("NERVE_E2E_APP names the installed app");
    assert!(
        Path::new(&app).is_absolute() && Path::new(&app).exists(),
        "{app:?}"
    );
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "installed");
    let client = connect(port).await;
    wait_for_text(&client, "body", "Welcome to Nerve").await;
    element(&client, "[data-testid='api-key-input']").await;
    element(&client, "[data-testid='first-run-local-url']").await;
    screenshot(&client, "15-installed-app-first-screen").await;
    client.close().await.unwrap();
}

/// The window sizes every screen must fit: the smallest the app allows, its default, a large one.
const SIZES: [(u32, u32); 3] = [(760, 520), (1280, 860), (1920, 1080)];

/// At each of [`SIZES`]: a screenshot of the screen, and the checks that the page never scrolls
/// sideways and that no visible button is cut off by the window's edges. Ends at the default size.
async fn check_layout(client: &Client, screen: &str) {
    let script = r#"
        const de = document.documentElement;
        const problems = [];
        if (de.scrollWidth > de.clientWidth) problems.push(`the page scrolls sideways: ${de.scrollWidth} > ${de.clientWidth}`);
        for (const b of document.querySelectorAll("button")) {
            const r = b.getBoundingClientRect();
            if (r.width === 0 || r.height === 0 || getComputedStyle(b).visibility === "hidden") continue;
            if (r.left < -1 || r.right > de.clientWidth + 1) {
                problems.push(`button "${b.textContent.trim()}" is cut off: ${Math.round(r.left)}..${Math.round(r.right)} of ${de.clientWidth}`);
            }
        }
        return problems;
    "#;
    for (width, height) in SIZES {
        client.set_window_size(width, height).await.unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
        screenshot(client, &format!("layout-{screen}-{width}x{height}")).await;
        let problems = client.execute(script, vec![]).await.unwrap();
        assert_eq!(problems, json!([]), "{screen} at {width}x{height}");
    }
    client.set_window_size(1280, 860).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
}

fn outputs_scenario() -> Scenario {
    let steps = json!([
        {
            "expect": {"last_user_text_contains": "Count to a hundred thousand"},
            "response": stream(vec![tool_use("toolu_count", "Bash", json!({"command": "seq 1 100000", "description": "Count"}))], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_count", "contains": "persisted-output"}},
            "response": stream(vec![json!({"type": "text", "text": "Counted."})], "end_turn"),
        },
        {
            "expect": {"last_user_text_contains": "Count the evens", "message_count": 1},
            "response": stream(vec![tool_use("toolu_evens", "Bash", json!({"command": "seq 2 2 50000", "description": "Evens"}))], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_evens", "contains": "persisted-output"}},
            "response": stream(vec![json!({"type": "text", "text": "Counted evens."})], "end_turn"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// The Outputs browser, with the sessions that made the outputs ended: two sessions each persist an
/// output; the browser lists both, a session filter leaves one, a search finds a line by its
/// number and opens the viewer there, tail shows the last line, and save-as writes a byte-identical
/// copy.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn outputs_browser_in_the_desktop_app() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.md"), "# Notes\n").unwrap();
    let root = dir.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    let saved = data.path().join("saved-copy.txt");
    let server = MockServer::start(outputs_scenario()).await.unwrap();
    let port = free_port();
    let _driver = start_driver_with(port, data.path(), "outputs", &[("NERVE_TEST_SAVE_AS", &saved)]);
    let client = connect(port).await;
    set_up(&client, &server, &root).await;

    send(&client, "Count to a hundred thousand.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Counted.").await;
    new_session(&client).await;
    send(&client, "Count the evens.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Counted evens.").await;
    // A persisted output's chip (a long path in the data folder) fits the window at every size.
    check_layout(&client, "conversation-with-output").await;
    // Both sessions that made outputs are ended: a new, empty one is open.
    new_session(&client).await;

    click(&client, "[data-testid='open-outputs']").await;
    let rows = "[data-testid='output-row']";
    wait_for(Some(&client), "both outputs listed", || {
        let c = client.clone();
        async move { (c.find_all(Locator::Css(rows)).await.ok()?.len() == 2).then_some(()) }
    })
    .await;
    screenshot(&client, "16-outputs-browser").await;
    check_layout(&client, "outputs-browser").await;
    // A session filter leaves one.
    let filter = element(&client, "[data-testid='outputs-filter-session']").await;
    let options = filter.find_all(Locator::Css("option")).await.unwrap();
    assert_eq!(options.len(), 3, "all sessions and the two that made outputs");
    options[2].click().await.unwrap();
    wait_for(Some(&client), "one output after filtering", || {
        let c = client.clone();
        async move { (c.find_all(Locator::Css(rows)).await.ok()?.len() == 1).then_some(()) }
    })
    .await;
    options[0].click().await.unwrap();
    wait_for(Some(&client), "both outputs again", || {
        let c = client.clone();
        async move { (c.find_all(Locator::Css(rows)).await.ok()?.len() == 2).then_some(()) }
    })
    .await;

    // Search finds a line by its number; the hit opens the viewer there.
    type_into(&client, "[data-testid='outputs-search-input']", "^77777$").await;
    click(&client, "[data-testid='outputs-search-regex']").await;
    click(&client, "[data-testid='outputs-search-run']").await;
    let hit = "[data-testid='search-hit'][data-tool-use-id='toolu_count'][data-line='77777']";
    click(&client, hit).await;
    wait_for_text(&client, "[data-testid='viewer-line'][data-line='77777']", "77777").await;
    screenshot(&client, "17-output-viewer").await;
    check_layout(&client, "output-viewer").await;
    // Tail: the last line.
    click(&client, "[data-testid='viewer-tail']").await;
    wait_for_text(&client, "body", "100000").await;
    // Save as: a byte-identical copy.
    click(&client, "[data-testid='viewer-save']").await;
    let original: Value = {
        let list = std::fs::read_dir(data.path().join("projects")).unwrap();
        let project = list.flatten().next().unwrap().path();
        let index = std::fs::read_to_string(project.join("tool-results-index.jsonl")).unwrap();
        index
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|e| e["tool_use_id"] == "toolu_count")
            .unwrap()
    };
    let original_path = PathBuf::from(original["path"].as_str().unwrap());
    wait_file("the saved copy", &saved, |t| {
        t.is_some_and(|t| t.ends_with("100000\n"))
    })
    .await;
    assert_eq!(
        std::fs::read(&saved).unwrap(),
        std::fs::read(&original_path).unwrap()
    );
    click(&client, "[data-testid='outputs-close']").await;
    element(&client, "[data-testid='prompt-input']").await;
    click(&client, "[data-testid='open-settings']").await;
    element(&client, "[data-testid='rules-list']").await;
    check_layout(&client, "settings").await;
    click(&client, "[data-testid='settings-close']").await;
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

fn sleep_running() -> bool {
    Command::new("pgrep")
        .args(["-f", SLEEP_COMMAND])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// What is inside the session on screen (the other live sessions stay mounted, hidden).
fn on_screen(css: &str) -> String {
    format!("[data-testid='session-view']:not([hidden]) {css}")
}

/// The sidebar's row of session `id`.
fn row(id: &str) -> String {
    format!("[data-testid='sidebar-session'][data-session-id='{id}']")
}

/// The id of the session on screen.
async fn active_session(client: &Client) -> String {
    element(client, "[data-testid='sidebar-session'][aria-current='true']")
        .await
        .attr("data-session-id")
        .await
        .unwrap()
        .unwrap()
}

/// Opens a project folder from the sidebar (a project without sessions starts one at once) and
/// returns the new session's id.
async fn open_from_sidebar(client: &Client, root: &Path) -> String {
    click(client, "[data-testid='sidebar-open-project']").await;
    type_into(
        client,
        "[data-testid='project-path-input']",
        &root.display().to_string(),
    )
    .await;
    click(client, "[data-testid='project-path-open']").await;
    let project = format!(
        "[data-testid='sidebar-project'][data-path='{}'] [data-testid='sidebar-session'][aria-current='true']",
        root.display()
    );
    element(client, &project).await;
    element(client, &on_screen("[data-testid='prompt-input']")).await;
    active_session(client).await
}

async fn send_here(client: &Client, prompt: &str) {
    type_into(client, &on_screen("[data-testid='prompt-input']"), prompt).await;
    click(client, &on_screen("[data-testid='send-button']")).await;
}

async fn session_action(client: &Client, id: &str, action: &str) {
    click(client, &format!("{} [data-testid='session-menu']", row(id))).await;
    click(client, &format!("[data-testid='{action}']")).await;
}

fn two_projects_scenario() -> Scenario {
    let steps = json!([
        // Project A: a slow command, allowed by the project's rules, keeps its session running…
        {
            "expect": {"last_user_text_contains": "Build slowly"},
            "response": stream(vec![tool_use("toolu_slow", "Bash", json!({"command": "sleep 12", "description": "Build"}))], "tool_use"),
        },
        // …while project B's session asks before creating a file.
        {
            "expect": {"last_user_text_contains": "Touch the file"},
            "response": stream(vec![tool_use("toolu_touch", "Bash", json!({"command": "touch made-by-b.txt", "description": "Create a file"}))], "tool_use"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_slow", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Built."})], "end_turn"),
        },
        {
            "expect": {"tool_result": {"tool_use_id": "toolu_touch", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": "Touched."})], "end_turn"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// Several sessions at once, from the sidebar: a session in project A runs a slow command while a
/// session in project B waits for an approval; both badges show, the window title counts the
/// waiting approval from either session; switching back to B answers it while A finishes on its own.
/// Then B is renamed, A forked (the fork holds A's conversation) and the fork deleted after a
/// confirmation, its files gone from the data folder.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn several_sessions_from_the_sidebar_in_the_desktop_app() {
    let a_dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(a_dir.path().join(".nerve")).unwrap();
    std::fs::write(
        a_dir.path().join(".nerve/settings.json"),
        r#"{"permissions": {"allow": ["Bash(sleep:*)"]}}"#,
    )
    .unwrap();
    let b_dir = tempfile::tempdir().unwrap();
    std::fs::write(b_dir.path().join("notes.md"), "# B\n").unwrap();
    let (a, b) = (
        a_dir.path().canonicalize().unwrap(),
        b_dir.path().canonicalize().unwrap(),
    );
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(two_projects_scenario()).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "sidebar");
    let client = connect(port).await;
    set_up(&client, &server, &a).await;
    let a_session = active_session(&client).await;

    send_here(&client, "Build slowly.").await;
    element(
        &client,
        &format!("{} [data-testid='badge-running']", row(&a_session)),
    )
    .await;
    let b_session = open_from_sidebar(&client, &b).await;
    assert_ne!(a_session, b_session);
    send_here(&client, "Touch the file.").await;
    dialog_for(&client, "Bash").await;
    // Both at once: A runs, B waits.
    element(
        &client,
        &format!("{} [data-testid='badge-waiting']", row(&b_session)),
    )
    .await;
    element(
        &client,
        &format!("{} [data-testid='badge-running']", row(&a_session)),
    )
    .await;
    let b_name = b.file_name().unwrap().to_string_lossy().to_string();
    assert_eq!(client.title().await.unwrap(), format!("(1) Nerve — {b_name}"));
    screenshot(&client, "18-sidebar-two-sessions").await;
    check_layout(&client, "sidebar").await;

    // On A's screen the title still counts B's approval; A finishes by itself.
    click(&client, &row(&a_session)).await;
    let a_name = a.file_name().unwrap().to_string_lossy().to_string();
    wait_for(Some(&client), "A on screen, B's approval counted", || {
        let c = client.clone();
        let want = format!("(1) Nerve — {a_name}");
        async move { (c.title().await.ok()? == want).then_some(()) }
    })
    .await;
    wait_for_text(&client, &on_screen("[data-testid='assistant-text']"), "Built.").await;
    element(
        &client,
        &format!("{} [data-testid='badge-waiting']", row(&b_session)),
    )
    .await;

    // Back to B: its dialog is still there; allowing it lets the turn finish.
    click(&client, &row(&b_session)).await;
    dialog_for(&client, "Bash").await;
    click(&client, "[data-testid='allow-once']").await;
    wait_for_text(&client, &on_screen("[data-testid='assistant-text']"), "Touched.").await;
    assert!(b.join("made-by-b.txt").exists());
    assert_eq!(client.title().await.unwrap(), format!("Nerve — {b_name}"));

    // Rename B.
    session_action(&client, &b_session, "session-rename").await;
    let input = element(&client, "[data-testid='session-rename-input']").await;
    input.clear().await.unwrap();
    input
        .send_keys(&format!("Touch work{}", Key::Enter))
        .await
        .unwrap();
    wait_for_text(
        &client,
        &format!("{} [data-testid='sidebar-session-title']", row(&b_session)),
        "Touch work",
    )
    .await;

    // Fork A: the fork opens with A's conversation.
    session_action(&client, &a_session, "session-fork").await;
    let fork = wait_for(Some(&client), "the fork on screen", || {
        let c = client.clone();
        let (a_session, b_session) = (a_session.clone(), b_session.clone());
        async move {
            let id = c
                .find(Locator::Css(
                    "[data-testid='sidebar-session'][aria-current='true']",
                ))
                .await
                .ok()?
                .attr("data-session-id")
                .await
                .ok()??;
            (id != a_session && id != b_session).then_some(id)
        }
    })
    .await;
    wait_for_text(&client, &on_screen("[data-testid='assistant-text']"), "Built.").await;
    screenshot(&client, "19-sidebar-fork").await;

    // Delete the fork, after a confirmation: its transcript and folder are gone.
    let project_data = std::fs::read_dir(data.path().join("projects"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join(format!("{fork}.jsonl")).exists())
        .expect("the fork's transcript is on disk");
    session_action(&client, &fork, "session-delete").await;
    wait_for_text(
        &client,
        "[data-testid='session-delete-confirm']",
        "Delete this session for good?",
    )
    .await;
    screenshot(&client, "20-sidebar-delete-confirm").await;
    click(&client, "[data-testid='session-delete-yes']").await;
    wait_for_text(&client, "[data-testid='session-deleted-note']", "freed").await;
    assert!(!project_data.join(format!("{fork}.jsonl")).exists());
    assert!(!project_data.join(&fork).exists());
    assert!(
        client.find(Locator::Css(&row(&fork))).await.is_err(),
        "the row is gone"
    );
    assert!(
        project_data.join(format!("{a_session}.jsonl")).exists(),
        "the original stays"
    );

    // Search finds B by its prompt.
    type_into(&client, "[data-testid='sidebar-search']", "touch the").await;
    wait_for(Some(&client), "only B listed", || {
        let c = client.clone();
        let b_session = b_session.clone();
        async move {
            let rows = c
                .find_all(Locator::Css("[data-testid='sidebar-session']"))
                .await
                .ok()?;
            let mut ids = Vec::new();
            for r in rows {
                ids.push(r.attr("data-session-id").await.ok()??);
            }
            (ids == [b_session]).then_some(())
        }
    })
    .await;
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

/// The demo, from the first screen without a key: the sample project and the scripted model walk
/// through a parallel batch of reads, an Edit allowed from its diff, a `sed -i` allowed from its
/// preview, an `rm -rf` denied by the project's rules and a persisted output, in a temporary folder.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn the_demo_in_the_desktop_app() {
    let data = tempfile::tempdir().unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "demo");
    let client = connect(port).await;
    element(&client, "[data-testid='first-run']").await;
    wait_for_text(
        &client,
        "[data-testid='demo-offer']",
        "nothing of yours is touched",
    )
    .await;
    click(&client, "[data-testid='start-demo']").await;
    let banner = element(&client, &on_screen("[data-testid='demo-banner']")).await;
    let banner = banner.text().await.unwrap();
    let project = banner
        .split('(')
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .map(PathBuf::from)
        .unwrap_or_else(|| panic!("the banner names the sample folder: {banner}"));
    assert!(
        project.starts_with(std::env::temp_dir()) && project.join("src/greeter.py").exists(),
        "{banner}"
    );

    let batch = on_screen("[data-testid='batch'][data-concurrent='true'][data-size='3']");
    element(&client, &batch).await;
    dialog_for(&client, "Edit").await;
    element(&client, "[data-testid='permission-diff']").await;
    screenshot(&client, "21-demo-edit").await;
    check_layout(&client, "permission-dialog").await;
    click(&client, "[data-testid='allow-once']").await;
    dialog_for(&client, "Bash").await;
    wait_for_text(&client, "[data-testid='sed-preview']", "debug = false").await;
    // The dialog and the card say whether the command runs in the sandbox (as this kernel allows).
    let sandboxed = nerve::sandbox::availability().is_available().to_string();
    let note = element(&client, "[data-testid='permission-sandbox']").await;
    assert_eq!(
        note.attr("data-sandboxed").await.unwrap(),
        Some(sandboxed.clone())
    );
    let badge = element(
        &client,
        &on_screen(
            "[data-testid='tool-card'][data-tool-use-id='toolu_demo_sed'] [data-testid='sandbox-badge']",
        ),
    )
    .await;
    assert_eq!(badge.attr("data-sandboxed").await.unwrap(), Some(sandboxed));
    click(&client, "[data-testid='allow-once']").await;
    element(
        &client,
        &on_screen("[data-testid='tool-card'][data-tool-use-id='toolu_demo_rm'][data-status='denied']"),
    )
    .await;
    element(
        &client,
        &on_screen(
            "[data-testid='tool-card'][data-tool-use-id='toolu_demo_seq'] [data-testid='persisted-badge']",
        ),
    )
    .await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='assistant-text']"),
        "That was the tour",
    )
    .await;
    screenshot(&client, "22-demo-done").await;
    check_layout(&client, "demo").await;
    let greeter = std::fs::read_to_string(project.join("src/greeter.py")).unwrap();
    assert!(greeter.contains("Hello, {name}!"), "{greeter}");
    let config = std::fs::read_to_string(project.join("config.toml")).unwrap();
    assert!(config.contains("debug = false"), "{config}");
    assert!(
        project.join("build").exists(),
        "the denied rm -rf removed nothing"
    );
    client.close().await.unwrap();
}

fn worktree_scenario() -> Scenario {
    let write = |id: &str, file: &str, text: &str| {
        stream(
            vec![tool_use(id, "Write", json!({"file_path": file, "content": text}))],
            "tool_use",
        )
    };
    let steps = json!([
        {"expect": {"last_user_text_contains": "Write the first notes"},
         "response": write("toolu_first", "first.txt", "first\n")},
        {"expect": {"tool_result": {"tool_use_id": "toolu_first", "is_error": false}},
         "response": stream(vec![json!({"type": "text", "text": "First notes written."})], "end_turn")},
        {"expect": {"last_user_text_contains": "Write the second notes"},
         "response": write("toolu_second", "second.txt", "second\n")},
        {"expect": {"tool_result": {"tool_use_id": "toolu_second", "is_error": false}},
         "response": stream(vec![json!({"type": "text", "text": "Second notes written."})], "end_turn")},
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// Two sessions of one project in parallel, each in its own worktree, in the real app: each
/// writes a file in its worktree (the main checkout sees neither), the first is landed from its
/// header (merged into the main checkout), the second is discarded after the app lists what would
/// be lost (its session ends, its worktree and branch go), and the main checkout ends with the
/// first session's file only.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn sessions_in_worktrees_in_the_desktop_app() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("a.txt"), "main\n").unwrap();
    std::fs::create_dir_all(root.join(".nerve")).unwrap();
    std::fs::write(
        root.join(".nerve/settings.json"),
        json!({"permissions": {"defaultMode": "acceptEdits"}}).to_string(),
    )
    .unwrap();
    nerve_test_support::git::init_with_commit(&root);
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(worktree_scenario()).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "worktrees");
    let client = connect(port).await;
    set_up(&client, &server, &root).await;
    let in_folder = active_session(&client).await;
    assert!(
        client
            .find(Locator::Css(&on_screen("[data-testid='worktree-button']")))
            .await
            .is_err(),
        "the first session works in the folder itself"
    );

    let mut sessions = Vec::new();
    for (prompt, reply) in [
        ("Write the first notes.", "First notes written."),
        ("Write the second notes.", "Second notes written."),
    ] {
        click(&client, "[data-testid='sidebar-new-worktree-session']").await;
        wait_for(Some(&client), "a new session on screen", || {
            let c = client.clone();
            let known = sessions.clone();
            let in_folder = in_folder.clone();
            async move {
                let id = active_session(&c).await;
                (id != in_folder && !known.contains(&id)).then_some(())
            }
        })
        .await;
        let id = active_session(&client).await;
        wait_for_text(&client, &on_screen("[data-testid='worktree-button']"), "nerve/").await;
        send_here(&client, prompt).await;
        wait_for_text(&client, &on_screen("[data-testid='conversation-scroll']"), reply).await;
        element(
            &client,
            &format!("{} [data-testid='sidebar-session-branch']", row(&id)),
        )
        .await;
        sessions.push(id);
    }
    assert!(!root.join("first.txt").exists() && !root.join("second.txt").exists());
    screenshot(&client, "30-worktree-sessions").await;

    // Land the first: merged into the main checkout.
    click(&client, &row(&sessions[0])).await;
    click(&client, &on_screen("[data-testid='worktree-button']")).await;
    click(&client, &on_screen("[data-testid='land-button']")).await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='land-summary']"),
        "Landed (merge): 1 file changed",
    )
    .await;
    screenshot(&client, "31-worktree-landed").await;
    assert_eq!(
        std::fs::read_to_string(root.join("first.txt")).unwrap(),
        "first\n"
    );
    assert_eq!(
        nerve_test_support::git::git(&root, &["status", "--porcelain"]),
        ""
    );

    // Discard the second, after the app says what would be lost.
    click(&client, &row(&sessions[1])).await;
    click(&client, &on_screen("[data-testid='worktree-button']")).await;
    click(&client, &on_screen("[data-testid='discard-button']")).await;
    wait_for_text(
        &client,
        &on_screen("[data-testid='discard-uncommitted']"),
        "second.txt",
    )
    .await;
    screenshot(&client, "32-worktree-discard").await;
    click(&client, &on_screen("[data-testid='discard-yes']")).await;
    wait_for(Some(&client), "the discarded session closed", || {
        let c = client.clone();
        let gone = sessions[1].clone();
        async move { (active_session(&c).await != gone).then_some(()) }
    })
    .await;
    assert!(!root.join("second.txt").exists());
    let branches = nerve_test_support::git::git(
        &root,
        &["branch", "--list", "nerve/*", "--format=%(refname:short)"],
    );
    assert_eq!(
        branches.lines().count(),
        1,
        "the landed branch stays, the discarded one goes: {branches}"
    );
    let worktrees = nerve_test_support::git::git(&root, &["worktree", "list", "--porcelain"]);
    assert_eq!(
        worktrees.lines().filter(|l| l.starts_with("worktree ")).count(),
        2,
        "the main checkout and the landed session's worktree: {worktrees}"
    );
    assert_eq!(server.remaining_steps(), 0);
}

/// A distinctive background command: `pgrep` finds only this one.
const BACKGROUND_SLEEP: &str = "sleep 297.52";

fn watching_scenario(root: &Path) -> Scenario {
    let long_file: String = (1..=120)
        .map(|i| format!("line {i} of a file the model writes slowly\n"))
        .collect();
    let mut write = tool_use(
        "toolu_long",
        "Write",
        json!({"file_path": "long.txt", "content": long_file}),
    );
    write["fragments"] = json!(80);
    // As a model writes it: the path first (a JSON map would put `content` first).
    write["raw_input"] = json!(format!(
        "{{\"file_path\": \"long.txt\", \"content\": {}}}",
        serde_json::to_string(&long_file).unwrap()
    ));
    let mut slow = stream(
        vec![
            tool_use(
                "toolu_marker",
                "Bash",
                json!({"command": "echo quokka-marker-7", "description": "Mark"}),
            ),
            write,
        ],
        "tool_use",
    );
    slow["delta_delay_ms"] = json!(50);
    let explore = |id: &str, description: &str, prompt: &str| {
        tool_use(
            id,
            "Agent",
            json!({"description": description, "prompt": prompt, "subagent_type": "Explore"}),
        )
    };
    let notes = root.join("notes.md").display().to_string();
    let steps = json!([
        {"when": {"last_user_text_contains": "Stream a long file"}, "response": slow},
        {"when": {"tool_result": {"tool_use_id": "toolu_long", "is_error": false}},
         "response": stream(vec![json!({"type": "text", "text": "Long file written."})], "end_turn")},
        {"when": {"last_user_text_contains": "Start two background commands"},
         "response": stream(vec![
            tool_use("toolu_bg_short", "Bash", json!({"command": "sleep 1; echo bg-finished", "run_in_background": true})),
            tool_use("toolu_bg_long", "Bash", json!({"command": BACKGROUND_SLEEP, "run_in_background": true})),
         ], "tool_use")},
        {"when": {"tool_result": {"tool_use_id": "toolu_bg_long"}},
         "response": stream(vec![json!({"type": "text", "text": "Both started."})], "end_turn")},
        {"when": {"last_user_text_contains": "Explore with two helpers"},
         "response": stream(vec![
            explore("toolu_helper_a", "fetch the docs", "Look at part A: fetch the docs page."),
            explore("toolu_helper_b", "read the notes", "Look at part B: read the notes."),
         ], "tool_use")},
        {"when": {"last_user_text_contains": "Look at part A"},
         "response": stream(vec![tool_use("toolu_fetch", "WebFetch", json!({"url": "https://docs.example.com/page", "prompt": "What does it say?"}))], "tool_use")},
        {"when": {"tool_result": {"tool_use_id": "toolu_fetch", "is_error": true}},
         "response": stream(vec![json!({"type": "text", "text": "Helper A was refused the page."})], "end_turn")},
        {"when": {"last_user_text_contains": "Look at part B"},
         "response": stream(vec![tool_use("toolu_notes", "Read", json!({"file_path": notes}))], "tool_use")},
        {"when": {"tool_result": {"tool_use_id": "toolu_notes", "is_error": false}},
         "response": stream(vec![json!({"type": "text", "text": "Helper B read the notes."})], "end_turn")},
        {"when": {"tool_result": {"tool_use_id": "toolu_helper_b"}},
         "response": stream(vec![json!({"type": "text", "text": "Both helpers reported."})], "end_turn")},
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

fn background_sleep_running() -> bool {
    Command::new("pgrep")
        .args(["-f", BACKGROUND_SLEEP])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// Watching the agent work, in the real app: a Write's card shows its path and text while its input
/// streams; two background commands are tasks (one ends on its own, one is stopped from the tasks
/// panel and its process is gone); two sub-agents run side by side in their cards, one asks for
/// permission (the dialog names it and links to its card); a terminal runs a command typed into it;
/// and a search hit inside a tool result opens its session at that card.
#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn watching_the_agent_work_in_the_desktop_app() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::write(root.join("notes.md"), "# Notes\nThe notes a helper reads.\n").unwrap();
    std::fs::create_dir_all(root.join(".nerve")).unwrap();
    std::fs::write(
        root.join(".nerve/settings.json"),
        json!({"permissions": {"defaultMode": "acceptEdits", "allow": ["Bash(sleep:*)", "Bash(echo:*)"]}})
            .to_string(),
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(watching_scenario(&root)).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "watching");
    let client = connect(port).await;
    set_up(&client, &server, &root).await;

    // A Write whose input streams: its card shows the path and the text before the call exists.
    send(&client, "Stream a long file.").await;
    let streaming = "[data-tool-use-id='toolu_long'][data-status='streaming']";
    wait_for_text(
        &client,
        &format!("{streaming} [data-testid='tool-summary']"),
        "long.txt",
    )
    .await;
    wait_for_text(
        &client,
        &format!("{streaming} [data-testid='streaming-text']"),
        "of a file the model writes slowly",
    )
    .await;
    screenshot(&client, "40-streaming-write").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Long file written.").await;
    assert!(
        client
            .find(Locator::Css("[data-testid='tool-card-streaming']"))
            .await
            .is_err(),
        "the streaming card became the normal card"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("long.txt"))
            .unwrap()
            .lines()
            .count(),
        120
    );

    // Two background commands: tasks, one ending by itself, one stopped.
    send(&client, "Start two background commands.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Both started.").await;
    wait_for_text(
        &client,
        "[data-tool-use-id='toolu_bg_long'] [data-testid='background-task-status']",
        "running in the background",
    )
    .await;
    click(&client, "[data-testid='tasks-toggle']").await;
    element(&client, "[data-testid='task-row'][data-status='completed']").await;
    let long_row = "[data-testid='task-row'][data-status='running']";
    wait_for_text(&client, long_row, BACKGROUND_SLEEP).await;
    assert!(background_sleep_running());
    screenshot(&client, "41-tasks-panel").await;
    click(&client, &format!("{long_row} [data-testid='task-stop']")).await;
    element(&client, "[data-testid='task-row'][data-status='killed']").await;
    wait_for(Some(&client), "the stopped command's process to go", || async {
        (!background_sleep_running()).then_some(())
    })
    .await;
    // The finished one's output, from its file.
    click(
        &client,
        "[data-testid='task-row'][data-status='completed'] [data-testid='task-expand']",
    )
    .await;
    wait_for_text(&client, "[data-testid='task-tail']", "bg-finished").await;
    click(&client, "[data-testid='tasks-close']").await;

    // Two sub-agents side by side; one asks for permission, labelled and linked to its card.
    send(&client, "Explore with two helpers.").await;
    let grid = "[data-testid='batch-agents']";
    wait_for(Some(&client), "two sub-agent cards in one batch", || {
        let c = client.clone();
        async move {
            let cards = c
                .find_all(Locator::Css(&format!("{grid} [data-testid='subagent-toggle']")))
                .await
                .ok()?;
            (cards.len() == 2).then_some(())
        }
    })
    .await;
    dialog_for(&client, "WebFetch").await;
    wait_for_text(
        &client,
        "[data-testid='permission-dialog']",
        "Sub-agent: fetch the docs",
    )
    .await;
    screenshot(&client, "42-subagent-permission").await;
    click(&client, "[data-testid='permission-subagent-link']").await;
    element(
        &client,
        "[data-tool-use-id='toolu_helper_a'] [data-testid='subagent-transcript']",
    )
    .await;
    click(&client, "[data-testid='deny']").await;
    wait_for_text(
        &client,
        "[data-testid='assistant-text']",
        "Both helpers reported.",
    )
    .await;
    let b = "[data-tool-use-id='toolu_helper_b']";
    if client
        .find(Locator::Css(&format!("{b} [data-testid='subagent-transcript']")))
        .await
        .is_err()
    {
        click(&client, &format!("{b} [data-testid='subagent-toggle']")).await;
    }
    element(
        &client,
        &format!("{b} [data-testid='subagent-transcript'] [data-tool-use-id='toolu_notes']"),
    )
    .await;
    wait_for_text(
        &client,
        &format!("{b} [data-testid='subagent-transcript']"),
        "Helper B read the notes.",
    )
    .await;
    screenshot(&client, "43-subagents").await;

    // The user's terminal: a command typed into it, its output read back.
    click(&client, "[data-testid='terminal-toggle']").await;
    let input = element(&client, "[data-testid='terminal-view'] .xterm-helper-textarea").await;
    wait_for(Some(&client), "the shell to start", || {
        let c = client.clone();
        async move {
            let rows = c
                .find(Locator::Css("[data-testid='terminal-view'] .xterm-rows"))
                .await
                .ok()?;
            (!rows.text().await.ok()?.trim().is_empty()).then_some(())
        }
    })
    .await;
    input.send_keys("echo term-$((6*7))").await.unwrap();
    input
        .send_keys(&char::from(Key::Enter).to_string())
        .await
        .unwrap();
    wait_for_text(&client, "[data-testid='terminal-view'] .xterm-rows", "term-42").await;
    screenshot(&client, "44-terminal").await;

    // Search: a word of a tool result finds its call; the hit opens that session at the card.
    let first = active_session(&client).await;
    new_session(&client).await;
    type_into(&client, "[data-testid='sidebar-search']", "quokka").await;
    let hit = format!(
        "[data-testid='search-hit'][data-session-id='{first}'][data-tool-use-id='toolu_marker'][data-kind='tool_result']"
    );
    wait_for_text(&client, &hit, "quokka").await;
    screenshot(&client, "45-session-search").await;
    click(&client, &hit).await;
    // The hit's session is on screen at its card, the result open.
    wait_for_text(
        &client,
        &on_screen("[data-tool-use-id='toolu_marker'][data-status='completed']"),
        "quokka-marker-7",
    )
    .await;
    element(
        &client,
        &on_screen("[data-tool-use-id='toolu_marker'] [data-testid='tool-expand'][aria-expanded='true']"),
    )
    .await;
    screenshot(&client, "46-search-hit-opened").await;
    // With the search cleared, the sidebar shows which session that is: the first one.
    element(&client, "[data-testid='sidebar-search']")
        .await
        .send_keys(&char::from(Key::Escape).to_string())
        .await
        .unwrap();
    wait_for(Some(&client), "the session of the hit marked current", || {
        let c = client.clone();
        let first = first.clone();
        async move { (active_session(&c).await == first).then_some(()) }
    })
    .await;
    assert_eq!(server.remaining_steps(), 0, "every scripted response was used");
    client.close().await.unwrap();
}

fn citizen_scenario() -> Scenario {
    let steps = json!([
        {
            "expect": {"last_user_text_contains": "Build it in colour"},
            "response": stream(vec![
                tool_use("toolu_colour", "Bash", json!({
                    "command": "printf '\\033[1m\\033[36m  Building\\033[0m [=>  ] 1/2\\r\\033[K\\033[31mred\\033[0m ok\\n'",
                    "description": "Build"
                })),
            ], "tool_use"),
        },
        {
            // The model reads the text plain: no escapes between the words, no progress frame.
            "expect": {"tool_result": {"tool_use_id": "toolu_colour", "contains": "red ok", "is_error": false}},
            "response": stream(vec![json!({"type": "text", "text": ["Built."]})], "end_turn"),
        },
        {
            // A folder attached with `@src/`: its listing, a block of its own beside the words.
            "expect": {"last_user_text_contains": "<attached-context kind=\"folder\" name=\"src/\">"},
            "response": stream(vec![json!({"type": "text", "text": ["A library."]})], "end_turn"),
        },
    ]);
    Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap()
}

/// A release feed on loopback: every request gets `body`.
fn serve_feed(body: &'static str) -> u16 {
    let listener = std::net::TcpListener::bind(("127.0.0.1", 0)).unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            use std::io::{Read as _, Write as _};
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    port
}

#[tokio::test]
#[ignore = "needs Xvfb, tauri-driver, WebKitWebDriver and a Secret Service: run by scripts/test.sh"]
async fn a_good_desktop_citizen() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let other = tempfile::tempdir().unwrap();
    std::fs::write(other.path().join("README.md"), "# The other project\n").unwrap();
    let other_root = other.path().canonicalize().unwrap();
    let data = tempfile::tempdir().unwrap();
    let server = MockServer::start(citizen_scenario()).await.unwrap();
    let port = free_port();
    let _driver = start_driver(port, data.path(), "citizen");
    let client = connect(port).await;
    set_up(&client, &server, &root).await;

    // Command output: the model read it plain (the mock checked), the user sees its colours.
    send(&client, "Build it in colour.").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "Built.").await;
    click(&client, "[data-testid='tool-expand']").await;
    wait_for_text(&client, "[data-testid='result-terminal'] .ansi-red-fg", "red").await;
    let shown = element(&client, "[data-testid='result-terminal']")
        .await
        .text()
        .await
        .unwrap();
    assert!(shown.contains("red ok") && !shown.contains("Building"), "{shown}");
    screenshot(&client, "50-command-output-in-colour").await;

    // An attachment: `@src/` offers the folder; it goes as a chip, and the past prompt names it.
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
    type_into(&client, "[data-testid='prompt-input']", "@src/").await;
    click(&client, "[data-testid='attach-folder']").await;
    element(&client, "[data-testid='attachment-chip'][data-kind='folder']").await;
    send(&client, "What is in here?").await;
    wait_for_text(&client, "[data-testid='assistant-text']", "A library.").await;
    wait_for_text(
        &client,
        "[data-testid='past-attachment'][data-kind='folder']",
        "src/",
    )
    .await;
    assert!(
        client
            .find_all(Locator::Css("[data-testid='attachment-chip']"))
            .await
            .unwrap()
            .is_empty(),
        "the chip went with the prompt"
    );
    screenshot(&client, "54-attached-folder").await;

    // Diagnostics: what a bug report needs, and a log file that has the app's start in it.
    open_settings(&client).await;
    click(&client, "[data-testid='settings-nav-about']").await;
    wait_for_text(
        &client,
        "[data-testid='diagnostics-version']",
        env!("CARGO_PKG_VERSION"),
    )
    .await;
    let report = element(&client, "[data-testid='diagnostics-report']")
        .await
        .text()
        .await
        .unwrap();
    let logs = data.path().join("logs");
    assert!(report.contains(&logs.display().to_string()), "{report}");
    assert!(
        report.contains("Sandbox") && report.contains("WebKitGTK"),
        "{report}"
    );
    let log_text: String = std::fs::read_dir(&logs)
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(log_text.contains("nerve-desktop started"), "{log_text}");

    // The release feed says a newer version exists: the check says so, with how to get it.
    let feed = serve_feed(
        r#"{"version": "99.0.0", "url": "https://nerve.example/releases/99.0.0", "notes": "Faster."}"#,
    );
    type_into(
        &client,
        "[data-testid='update-feed-url']",
        &format!("http://127.0.0.1:{feed}/feed.json"),
    )
    .await;
    click(&client, "[data-testid='check-updates']").await;
    wait_for_text(
        &client,
        "[data-testid='update-status']",
        "Nerve 99.0.0 is available",
    )
    .await;
    screenshot(&client, "51-about-and-diagnostics").await;
    click(&client, "[data-testid='settings-close']").await;

    // A second launch with a folder: it hands the folder over and goes; this window opens it.
    let second = Command::new(app_binary())
        .arg(&other_root)
        .env("NERVE_DATA_DIR", data.path())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let out = tokio::task::spawn_blocking(move || second.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    wait_for(
        Some(&client),
        "the other folder opened in the running app",
        || {
            let c = client.clone();
            let want = other_root.display().to_string();
            async move {
                let names = c
                    .find_all(Locator::Css("[data-testid='project-name']"))
                    .await
                    .ok()?;
                for name in names {
                    if name.attr("title").await.ok()?.as_deref() == Some(want.as_str()) {
                        return Some(());
                    }
                }
                None
            }
        },
    )
    .await;
    screenshot(&client, "52-a-second-launch-opened-its-folder").await;

    // The sidebar is hidden, the app quits; started again as `nerve-desktop PATH`, it comes back
    // hidden, opens the folder, and tells of the newer version at once.
    click(&client, "[data-testid='sidebar-toggle']").await;
    element(&client, "[data-testid='sidebar'].collapsed").await;
    client.close().await.unwrap();
    let client = connect_with(port, &[root.to_str().unwrap()]).await;
    element(&client, "[data-testid='sidebar'].collapsed").await;
    // The folder opens as the picker opens one: it has a session, so it offers it beside a new one.
    wait_for_text(&client, "[data-testid='project-picker']", root.to_str().unwrap()).await;
    wait_for_text(&client, "[data-testid='resume-session']", "Build it in colour.").await;
    wait_for_text(
        &client,
        "[data-testid='update-banner']",
        "Nerve 99.0.0 is available",
    )
    .await;
    screenshot(&client, "53-started-again-where-it-was-left").await;
    client.close().await.unwrap();
}
