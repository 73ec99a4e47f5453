//! The sandbox's network by domain and its writable toolchain caches, with real programs and no
//! internet: a local HTTP server on loopback answers for three host names (the proxy resolves them
//! to 127.0.0.1 through the test-only override), and `curl`, `pip` and a Python socket run as Bash
//! commands in the sandbox, through the whole pipeline.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, TcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::support::{ScriptedPrompter, TestProject, text_of};
use nerve::permissions::{PermissionMode, RuleScope, UserAnswer};
use nerve::pipeline::{CallOutcome, ToolCall};
use pretty_assertions::assert_eq;
use serde_json::json;

/// A loopback HTTP server: `/hello` says which host was asked for; `/simple/demo-pkg/` is a package
/// index page and `/files/...` the wheel it links to. Records each request's Host header, and
/// every connection.
struct LocalServer {
    port: u16,
    hosts: Arc<Mutex<Vec<String>>>,
    connections: Arc<Mutex<usize>>,
}

impl LocalServer {
    fn start(wheel: Vec<u8>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let (h, c) = (Arc::clone(&hosts), Arc::clone(&connections));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                *c.lock().unwrap() += 1;
                let (h, wheel) = (Arc::clone(&h), wheel.clone());
                std::thread::spawn(move || {
                    let mut head = Vec::new();
                    let mut byte = [0u8; 1];
                    while !head.ends_with(b"\r\n\r\n") {
                        match stream.read(&mut byte) {
                            Ok(1) => head.push(byte[0]),
                            _ => return,
                        }
                    }
                    let head = String::from_utf8_lossy(&head).to_string();
                    let path = head.split_whitespace().nth(1).unwrap_or("/").to_string();
                    let host = head
                        .lines()
                        .find_map(|l| l.strip_prefix("Host: ").or_else(|| l.strip_prefix("host: ")))
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    h.lock().unwrap().push(host.clone());
                    let (kind, body): (&str, Vec<u8>) = if path == "/hello" {
                        ("text/plain", format!("hello from {host}\n").into_bytes())
                    } else if path.starts_with("/simple/demo-pkg") {
                        let page = "<html><body><a href=\"/files/demo_pkg-1.0-py3-none-any.whl\">demo_pkg-1.0-py3-none-any.whl</a></body></html>";
                        ("text/html", page.as_bytes().to_vec())
                    } else if path.starts_with("/files/demo_pkg-1.0-py3-none-any.whl") {
                        ("application/octet-stream", wheel)
                    } else {
                        ("text/plain", b"not here\n".to_vec())
                    };
                    let status = if body == b"not here\n" {
                        "404 Not Found"
                    } else {
                        "200 OK"
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(&body);
                });
            }
        });
        Self {
            port,
            hosts,
            connections,
        }
    }

    fn hosts(&self) -> Vec<String> {
        self.hosts.lock().unwrap().clone()
    }
}

/// A minimal valid wheel of `demo-pkg` 1.0, made with Python's zipfile (outside the sandbox).
fn demo_wheel(python: &str, dir: &Path) -> Vec<u8> {
    let path = dir.join("demo_pkg-1.0-py3-none-any.whl");
    let script = r#"
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], "w") as z:
    z.writestr("demo_pkg/__init__.py", "")
    z.writestr("demo_pkg-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n")
    z.writestr("demo_pkg-1.0.dist-info/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    z.writestr("demo_pkg-1.0.dist-info/RECORD", "")
"#;
    let status = std::process::Command::new(python)
        .args(["-c", script])
        .arg(&path)
        .status()
        .unwrap();
    assert!(status.success());
    std::fs::read(path).unwrap()
}

/// The real interpreter behind `python3` (a pyenv shim would look for its root under `$HOME`).
fn python() -> Option<String> {
    let out = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn bash(id: &str, command: String) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "Bash".into(),
        input: json!({ "command": command }),
    }
}

fn result(out: &CallOutcome) -> (bool, String) {
    (out.is_error, text_of(&out.content))
}

fn project_with_domains(p: &TestProject) -> nerve::project::ProjectOptions {
    let user_settings = p.home().join(".config/nerve/settings.json");
    std::fs::create_dir_all(user_settings.parent().unwrap()).unwrap();
    std::fs::write(
        &user_settings,
        r#"{"sandbox": {"network": {"allowedDomains": ["allowed.test"], "deniedDomains": ["denied.test"]}}}"#,
    )
    .unwrap();
    let mut o = p.options();
    // The bypass mode lets every command run: only the sandbox and its proxy stand in the way.
    o.mode = Some(PermissionMode::BypassPermissions);
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    o.sandbox_host_overrides = Arc::new(HashMap::from([
        ("allowed.test".to_string(), loopback),
        ("other.test".to_string(), loopback),
        ("denied.test".to_string(), loopback),
    ]));
    o
}

fn sandboxing() -> bool {
    crate::support::sandbox_available("the network tests check nothing")
}

#[tokio::test]
async fn commands_reach_allowed_hosts_ask_for_unknown_ones_and_never_reach_denied_ones() {
    if !sandboxing() {
        return;
    }
    let p = TestProject::new();
    let py = python().expect("python3 is installed by scripts/test.sh");
    let server = LocalServer::start(demo_wheel(&py, p.dir.path()));
    let port = server.port;
    let prompter = ScriptedPrompter::new(vec![
        UserAnswer::AllowOnce { updated_input: None },
        UserAnswer::AlwaysAllow {
            rules: vec!["WebFetch(domain:other.test)".into()],
            scope: RuleScope::Session,
            updated_input: None,
        },
    ]);
    let project = nerve::project::Project::open(project_with_domains(&p)).unwrap();
    let s = project.session(
        nerve::registry::ToolPool::new(nerve::registry::all_builtin_tools(), false).unwrap(),
        nerve::project::SessionSetup {
            prompter: Some(prompter.clone()),
            events: p.recorder.sink(),
            ..nerve::project::SessionSetup::default()
        },
    );
    let run = |id: &'static str, command: String| {
        let s = &s;
        async move { result(&s.run_one(&bash(id, command)).await) }
    };

    // An allowed host, as a plain HTTP request, through a CONNECT tunnel, and through SOCKS5.
    let hello = |host: &str| (false, format!("hello from {host}:{port}"));
    assert_eq!(
        run("a1", format!("curl -sS http://allowed.test:{port}/hello")).await,
        hello("allowed.test")
    );
    assert_eq!(
        run(
            "a2",
            format!("curl -sS --proxytunnel http://allowed.test:{port}/hello")
        )
        .await,
        hello("allowed.test")
    );
    assert_eq!(
        run(
            "a3",
            format!("curl -sS --proxy \"$ALL_PROXY\" http://allowed.test:{port}/hello")
        )
        .await,
        hello("allowed.test")
    );
    assert!(prompter.asked().is_empty(), "an allowed host asks nothing");

    // An unknown host asks: allowed once (for that command), then always (a rule for the session).
    let (error, text) = run("u1", format!("curl -sS http://other.test:{port}/hello")).await;
    assert_eq!(
        (error, text),
        (
            false,
            format!(
                "hello from other.test:{port}\nSandbox: network access to other.test:{port} was allowed by the user, for this command."
            )
        )
    );
    let (error, text) = run("u2", format!("curl -sS http://other.test:{port}/hello")).await;
    assert!(!error && text.starts_with(&hello("other.test").1), "{text}");
    assert_eq!(
        run("u3", format!("curl -sS http://other.test:{port}/hello")).await,
        hello("other.test"),
        "the rule answers now"
    );
    let asked = prompter.asked();
    assert_eq!(asked.len(), 2, "{asked:?}");
    let network = asked[0].network.clone().unwrap();
    assert_eq!(
        (network.host.as_str(), network.port, network.command.as_str()),
        (
            "other.test",
            port,
            format!("curl -sS http://other.test:{port}/hello").as_str()
        )
    );
    assert_eq!(network.session_id, s.context.config.session_id);
    assert_eq!(
        asked[0].suggestions,
        vec!["WebFetch(domain:other.test)".to_string()]
    );

    // A denied host: refused with the reason, and nothing reaches the server for it.
    let (error, text) = run("d1", format!("curl -sSf http://denied.test:{port}/hello")).await;
    assert!(error, "{text}");
    assert!(
        text.contains(&format!(
            "Sandbox: the sandbox refused denied.test:{port}: `denied.test` in sandbox.network.deniedDomains names it."
        )),
        "{text}"
    );
    let (error, text) = run("d2", format!("curl -sS -p http://denied.test:{port}/hello")).await;
    assert!(error && text.contains("refused denied.test"), "{text}");
    assert!(
        !server.hosts().iter().any(|h| h.starts_with("denied.test")),
        "{:?}",
        server.hosts()
    );
    assert_eq!(prompter.asked().len(), 2, "a denied host asks nobody");

    // A program that ignores the proxy variables has no network at all.
    let before = *server.connections.lock().unwrap();
    let (error, text) = run(
        "s1",
        format!("{py} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), timeout=3)\""),
    )
    .await;
    assert!(error && text.contains("ConnectionRefusedError"), "{text}");
    assert_eq!(
        *server.connections.lock().unwrap(),
        before,
        "no connection reached the server"
    );

    // pip through the proxy, from the allowed host's index.
    let (error, text) = run(
        "p1",
        format!(
            "{py} -m pip download --no-deps --disable-pip-version-check --index-url http://allowed.test:{port}/simple --trusted-host allowed.test -d dl demo-pkg"
        ),
    )
    .await;
    assert!(!error, "{text}");
    assert!(
        p.project_dir().join("dl/demo_pkg-1.0-py3-none-any.whl").exists(),
        "{text}"
    );
    // And from the denied one: refused, nobody asked.
    let (error, text) = run(
        "p2",
        format!(
            "{py} -m pip download --no-deps --disable-pip-version-check --retries 0 --index-url http://denied.test:{port}/simple --trusted-host denied.test -d dl2 demo-pkg"
        ),
    )
    .await;
    assert!(
        error && text.contains("Sandbox: the sandbox refused denied.test"),
        "{text}"
    );
    assert_eq!(prompter.asked().len(), 2);
}

#[tokio::test]
async fn headless_sessions_refuse_unknown_hosts_with_the_setting_that_would_allow_them() {
    if !sandboxing() {
        return;
    }
    let p = TestProject::new();
    let server = LocalServer::start(Vec::new());
    let port = server.port;
    let project = nerve::project::Project::open(project_with_domains(&p)).unwrap();
    let s = project.session(
        nerve::registry::ToolPool::new(nerve::registry::all_builtin_tools(), false).unwrap(),
        nerve::project::SessionSetup {
            headless: true,
            events: p.recorder.sink(),
            ..nerve::project::SessionSetup::default()
        },
    );
    let (error, text) = result(
        &s.run_one(&bash("h1", format!("curl -sSf http://other.test:{port}/hello")))
            .await,
    );
    assert!(error, "{text}");
    assert!(
        text.contains(&format!("Sandbox: the sandbox refused other.test:{port}: no rule allows it and nobody can be asked in this mode; to allow it, add \"other.test\" to sandbox.network.allowedDomains in your own settings (or a WebFetch(domain:other.test) allow rule). Prefer asking for that over dangerouslyDisableSandbox.")),
        "{text}"
    );
    assert!(server.hosts().is_empty());
}

#[tokio::test]
async fn toolchain_caches_are_writable_and_start_up_files_are_not() {
    if !sandboxing() {
        return;
    }
    let p = TestProject::new();
    let home = p.home();
    std::fs::create_dir_all(home.join(".cache")).unwrap();
    std::fs::write(home.join(".bashrc"), "# mine\n").unwrap();
    // The user approves whatever asks (a write to ~/.bashrc always does): only the sandbox refuses.
    let yes = ScriptedPrompter::new(vec![UserAnswer::AllowOnce { updated_input: None }; 4]);
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, Some(yes.clone()), false);
    let cache: PathBuf = home.join(".cache/pip/http");
    let out = s
        .run_one(&bash(
            "c1",
            format!(
                "mkdir -p {0} && echo cached > {0}/entry && cat {0}/entry",
                cache.display()
            ),
        ))
        .await;
    assert_eq!(result(&out), (false, "cached".to_string()));
    let out = s
        .run_one(&bash(
            "c2",
            format!("echo evil >> {}", home.join(".bashrc").display()),
        ))
        .await;
    let (error, text) = result(&out);
    assert!(error, "{text}");
    assert!(
        text.contains(&format!(
            "Sandbox: writing {} was refused: it is outside the sandbox's writable paths; to allow it, add \"~/.bashrc\" to sandbox.filesystem.allowWrite",
            home.join(".bashrc").display()
        )),
        "{text}"
    );
    assert_eq!(std::fs::read_to_string(home.join(".bashrc")).unwrap(), "# mine\n");
    // The card gets the same refusal typed, for its one-click "allow for this project".
    let refusals: Vec<nerve_protocol::SandboxRefusal> = p
        .recorder
        .events()
        .into_iter()
        .filter_map(|e| match e {
            nerve::events::Event::ToolProgress {
                tool_use_id,
                progress: nerve::tool::Progress::SandboxRefused { refusal },
            } if tool_use_id == "c2" => Some(refusal),
            _ => None,
        })
        .collect();
    assert_eq!(
        refusals,
        vec![nerve_protocol::SandboxRefusal::Write {
            path: home.join(".bashrc"),
            setting: "~/.bashrc".into()
        }]
    );
    assert_eq!(
        yes.asked().len(),
        1,
        "the permission system asked about ~/.bashrc, and was told yes"
    );
    // The projects' settings can take the caches away.
    std::fs::create_dir_all(p.project_dir().join(".nerve")).unwrap();
    std::fs::write(
        p.project_dir().join(".nerve/settings.json"),
        r#"{"sandbox": {"filesystem": {"toolchainCaches": false}}}"#,
    )
    .unwrap();
    let s = p.builtin_session(PermissionMode::BypassPermissions, &[]);
    let out = s
        .run_one(&bash("c3", format!("echo again > {}/entry2", cache.display())))
        .await;
    assert!(out.is_error, "{:?}", out.content);
}
