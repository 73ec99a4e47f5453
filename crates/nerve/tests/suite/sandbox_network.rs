//! The sandbox's network by domain and its writable toolchain caches, with real programs and no
//! internet: a local HTTP server on loopback answers for several host names (the proxy resolves
//! them to 127.0.0.1 through the test-only override), and `curl`, `pip`, `npm`, `cargo` and a
//! Python socket run as Bash commands in the sandbox, through the whole pipeline.

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

/// What the server answers for a path (its query left out): a content type and a body.
type Routes = HashMap<String, (&'static str, Vec<u8>)>;

/// A loopback HTTP server: `/hello` says which host was asked for, and each of its routes answers
/// with its file. Records each request's Host header, and every connection.
struct LocalServer {
    port: u16,
    hosts: Arc<Mutex<Vec<String>>>,
    connections: Arc<Mutex<usize>>,
}

/// The package index page of `demo-pkg`, linking to its wheel.
fn pip_index_route() -> (String, (&'static str, Vec<u8>)) {
    let page = "<html><body><a href=\"/files/demo_pkg-1.0-py3-none-any.whl\">demo_pkg-1.0-py3-none-any.whl</a></body></html>";
    (
        "/simple/demo-pkg/".into(),
        ("text/html", page.as_bytes().to_vec()),
    )
}

impl LocalServer {
    /// A Python package index of `demo-pkg`, whose wheel is `wheel`.
    fn start(wheel: Vec<u8>) -> Self {
        Self::serving(|_| {
            Routes::from([
                pip_index_route(),
                (
                    "/files/demo_pkg-1.0-py3-none-any.whl".into(),
                    ("application/octet-stream", wheel),
                ),
            ])
        })
    }

    /// Serves the routes `routes` gives for the port the server got.
    fn serving(routes: impl FnOnce(u16) -> Routes) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let routes = Arc::new(routes(port));
        let hosts = Arc::new(Mutex::new(Vec::new()));
        let connections = Arc::new(Mutex::new(0));
        let (h, c) = (Arc::clone(&hosts), Arc::clone(&connections));
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                *c.lock().unwrap() += 1;
                let (h, routes) = (Arc::clone(&h), Arc::clone(&routes));
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
                    let target = head.split_whitespace().nth(1).unwrap_or("/");
                    let path = target.split('?').next().unwrap_or("/").to_string();
                    let host = head
                        .lines()
                        .find_map(|l| l.strip_prefix("Host: ").or_else(|| l.strip_prefix("host: ")))
                        .unwrap_or("")
                        .trim()
                        .to_string();
                    h.lock().unwrap().push(host.clone());
                    let hello = format!("hello from {host}\n").into_bytes();
                    let (status, kind, body): (&str, &str, &[u8]) = if path == "/hello" {
                        ("200 OK", "text/plain", &hello)
                    } else if let Some((kind, body)) = routes.get(&path) {
                        ("200 OK", kind, body)
                    } else {
                        ("404 Not Found", "text/plain", b"not here\n")
                    };
                    let _ = write!(
                        stream,
                        "HTTP/1.1 {status}\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                        body.len()
                    );
                    let _ = stream.write_all(body);
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
    let s = p.builtin_session_opened(project_with_domains(&p), Some(prompter.clone()));
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
    let s = p.builtin_session_opened(project_with_domains(&p), None);
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

/// The packages the local registries serve, made with Python's tarfile (outside the sandbox): an
/// npm tarball of `demo-dep` 1.0.0 and a crate `demo_dep` 1.0.0, with the checksums their
/// registries publish.
struct RegistryFixtures {
    npm_tarball: Vec<u8>,
    npm_sha1: String,
    npm_integrity: String,
    crate_file: Vec<u8>,
    crate_sha256: String,
}

fn registry_fixtures(python: &str, dir: &Path) -> RegistryFixtures {
    let script = r#"
import base64, hashlib, io, json, os, sys, tarfile
d = sys.argv[1]
def tar_gz(name, files):
    path = os.path.join(d, name)
    with tarfile.open(path, "w:gz") as t:
        for member, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(member)
            info.size = len(data)
            info.mode = 0o644
            t.addfile(info, io.BytesIO(data))
    return path, open(path, "rb").read()
npm_path, npm = tar_gz("demo-dep-1.0.0.tgz", {
    "package/package.json": json.dumps({"name": "demo-dep", "version": "1.0.0", "main": "index.js"}),
    "package/index.js": "module.exports = 'demo-dep works';\n",
})
crate_path, crate = tar_gz("demo_dep-1.0.0.crate", {
    "demo_dep-1.0.0/Cargo.toml": '[package]\nname = "demo_dep"\nversion = "1.0.0"\nedition = "2021"\n',
    "demo_dep-1.0.0/src/lib.rs": "pub fn answer() -> u32 { 42 }\n",
})
print(json.dumps({
    "npm_path": npm_path,
    "npm_sha1": hashlib.sha1(npm).hexdigest(),
    "npm_integrity": "sha512-" + base64.b64encode(hashlib.sha512(npm).digest()).decode(),
    "crate_path": crate_path,
    "crate_sha256": hashlib.sha256(crate).hexdigest(),
}))
"#;
    let out = std::process::Command::new(python)
        .args(["-c", script])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let made: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let field = |name: &str| made[name].as_str().unwrap().to_string();
    RegistryFixtures {
        npm_tarball: std::fs::read(field("npm_path")).unwrap(),
        npm_sha1: field("npm_sha1"),
        npm_integrity: field("npm_integrity"),
        crate_file: std::fs::read(field("crate_path")).unwrap(),
        crate_sha256: field("crate_sha256"),
    }
}

/// A Python index at `pypi.test`, an npm registry at `npm.test` and a sparse Cargo registry at
/// `crates.test`, all served by one loopback server on `port`.
fn registry_routes(port: u16, wheel: Vec<u8>, f: &RegistryFixtures) -> Routes {
    let packument = json!({
        "name": "demo-dep",
        "dist-tags": {"latest": "1.0.0"},
        "versions": {"1.0.0": {
            "name": "demo-dep",
            "version": "1.0.0",
            "main": "index.js",
            "dist": {
                "tarball": format!("http://npm.test:{port}/demo-dep/-/demo-dep-1.0.0.tgz"),
                "shasum": f.npm_sha1,
                "integrity": f.npm_integrity,
            },
        }},
    });
    let index_line = json!({
        "name": "demo_dep", "vers": "1.0.0", "deps": [], "cksum": f.crate_sha256,
        "features": {}, "yanked": false,
    });
    Routes::from([
        pip_index_route(),
        (
            "/files/demo_pkg-1.0-py3-none-any.whl".into(),
            ("application/octet-stream", wheel),
        ),
        (
            "/demo-dep".into(),
            ("application/json", packument.to_string().into_bytes()),
        ),
        (
            "/demo-dep/-/demo-dep-1.0.0.tgz".into(),
            ("application/octet-stream", f.npm_tarball.clone()),
        ),
        (
            "/index/config.json".into(),
            (
                "application/json",
                json!({"dl": format!("http://crates.test:{port}/dl")})
                    .to_string()
                    .into_bytes(),
            ),
        ),
        (
            "/index/de/mo/demo_dep".into(),
            ("text/plain", format!("{index_line}\n").into_bytes()),
        ),
        (
            "/dl/demo_dep/1.0.0/download".into(),
            ("application/octet-stream", f.crate_file.clone()),
        ),
    ])
}

/// The toolchain's own `cargo` and `rustc` (not rustup's proxies, which look for their home under
/// `$HOME`, here the test's).
fn rust_toolchain() -> (PathBuf, PathBuf) {
    let out = std::process::Command::new("rustup")
        .args(["which", "cargo"])
        .output()
        .ok()
        .filter(|o| o.status.success());
    let cargo = match out {
        Some(out) => PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()),
        None => PathBuf::from(std::env::var("CARGO").expect("cargo runs the tests")),
    };
    let rustc = cargo.with_file_name("rustc");
    assert!(rustc.is_file(), "{}", rustc.display());
    (cargo, rustc)
}

/// `pip install`, `npm install` and `cargo build` fetch from their registries in the default
/// sandbox (no domain lists, no writable paths added): each tool's first contact with its
/// registry's host asks the user once, "always" answers for the session, and their caches in the
/// home folder need no question at all.
#[tokio::test]
async fn pip_npm_and_cargo_install_from_local_registries_in_the_default_sandbox() {
    if !sandboxing() {
        return;
    }
    let p = TestProject::new();
    let home = p.home();
    // Tools used before on this machine: their folders exist, so their caches become writable.
    std::fs::create_dir_all(home.join(".cache")).unwrap();
    std::fs::create_dir_all(home.join(".cargo")).unwrap();
    let py = python().expect("python3 is installed by scripts/test.sh");
    let wheel = demo_wheel(&py, p.dir.path());
    let fixtures = registry_fixtures(&py, p.dir.path());
    let server = LocalServer::serving(|port| registry_routes(port, wheel, &fixtures));
    let port = server.port;
    let always = |host: &str| UserAnswer::AlwaysAllow {
        rules: vec![format!("WebFetch(domain:{host})")],
        scope: RuleScope::Session,
        updated_input: None,
    };
    let prompter = ScriptedPrompter::new(vec![
        always("pypi.test"),
        always("npm.test"),
        always("crates.test"),
    ]);
    let mut o = p.options();
    o.mode = Some(PermissionMode::BypassPermissions);
    let loopback = IpAddr::V4(Ipv4Addr::LOCALHOST);
    o.sandbox_host_overrides = Arc::new(HashMap::from(
        ["pypi.test", "npm.test", "crates.test"].map(|h| (h.to_string(), loopback)),
    ));
    let s = p.builtin_session_opened(o, Some(prompter.clone()));
    let dir = p.project_dir();
    let (cargo, rustc) = rust_toolchain();
    for (round, folder) in [(1, "a"), (2, "b")] {
        let work = dir.join(folder);
        std::fs::create_dir_all(work.join("web")).unwrap();
        std::fs::write(
            work.join("web/package.json"),
            r#"{"name": "web", "version": "1.0.0", "dependencies": {"demo-dep": "1.0.0"}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(work.join("rs/src")).unwrap();
        std::fs::create_dir_all(work.join("rs/.cargo")).unwrap();
        std::fs::write(
            work.join("rs/Cargo.toml"),
            "[package]\nname = \"app\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\ndemo_dep = \"1.0\"\n\n[workspace]\n",
        )
        .unwrap();
        std::fs::write(
            work.join("rs/src/main.rs"),
            "fn main() { println!(\"{}\", demo_dep::answer()); }\n",
        )
        .unwrap();
        std::fs::write(
            work.join("rs/.cargo/config.toml"),
            format!("[source.crates-io]\nreplace-with = \"local\"\n\n[source.local]\nregistry = \"sparse+http://crates.test:{port}/index/\"\n"),
        )
        .unwrap();
        let (h, w) = (home.display(), work.display());
        let commands = [
            format!(
                "cd {w} && HOME={h} {py} -m pip install --disable-pip-version-check --target vendor --index-url http://pypi.test:{port}/simple --trusted-host pypi.test demo-pkg"
            ),
            format!(
                "cd {w}/web && HOME={h} npm install --registry http://npm.test:{port}/ --no-audit --no-fund --no-update-notifier && node -e \"console.log(require('demo-dep'))\""
            ),
            format!(
                "cd {w}/rs && env -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET_DIR -u RUSTC_WRAPPER -u RUSTFLAGS HOME={h} CARGO_HOME={h}/.cargo RUSTC={} {} run --quiet",
                rustc.display(),
                cargo.display()
            ),
        ];
        let mut outputs = Vec::new();
        for (i, command) in commands.into_iter().enumerate() {
            let (error, text) = result(&s.run_one(&bash(&format!("r{round}-{i}"), command)).await);
            assert!(!error, "round {round}, command {i}: {text}");
            // No refusal, and no tool that carried on without its cache (pip says so on stderr).
            assert!(!text.contains("refused"), "round {round}, command {i}: {text}");
            assert!(
                !text.contains("cache has been disabled"),
                "round {round}, command {i}: {text}"
            );
            outputs.push(text);
        }
        assert!(work.join("vendor/demo_pkg/__init__.py").is_file(), "{outputs:?}");
        assert!(outputs[1].contains("demo-dep works"), "{outputs:?}");
        assert!(outputs[2].lines().any(|l| l == "42"), "{outputs:?}");
        let asked: Vec<(String, u16)> = prompter
            .asked()
            .iter()
            .map(|a| {
                let n = a.network.clone().expect("only the network asks");
                (n.host, n.port)
            })
            .collect();
        assert_eq!(
            asked,
            vec![
                ("pypi.test".to_string(), port),
                ("npm.test".to_string(), port),
                ("crates.test".to_string(), port)
            ],
            "round {round}: one question per registry host, none after 'always'"
        );
    }
    // npm and Cargo wrote their caches in the home folder, which asked nothing. (pip keeps nothing
    // from a plain-HTTP index; that its cache is writable is the test above.)
    for cache in [".npm/_cacache", ".cargo/registry/cache", ".cargo/registry/index"] {
        let entries = std::fs::read_dir(home.join(cache))
            .map(|d| d.count())
            .unwrap_or(0);
        assert!(entries > 0, "{cache} is empty");
    }
}
