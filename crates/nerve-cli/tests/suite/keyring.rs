//! The API key in a real OS keyring (a Secret Service on the D-Bus session bus): the library
//! calls and `nerve auth set|status|delete` / `nerve -p` end to end.
//!
//! Runs when `DBUS_SESSION_BUS_ADDRESS` is set and a Secret Service answers; otherwise it says
//! so and passes, unless `NERVE_REQUIRE_KEYRING=1` (set by `scripts/test.sh`, which runs it under
//! `scripts/with-keyring.sh`), where a missing service fails the test. Every entry uses a service
//! name of its own, so a developer's real key is never read or replaced.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use nerve::credentials::{
    KEYRING_USER, KeySource, KeyringStore, SecretStore, StoreError, load_from, mask, store_in,
};
use nerve::model::api_key::ApiKey;
use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;

use crate::support::NERVE;

fn unique_service() -> String {
    format!("nerve-test-{}", uuid::Uuid::new_v4().simple())
}

/// Whether a real Secret Service can be used; panics instead of skipping when it is required.
fn keyring_available() -> bool {
    let required = std::env::var("NERVE_REQUIRE_KEYRING").is_ok_and(|v| v == "1");
    let problem = if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_none() {
        Some("DBUS_SESSION_BUS_ADDRESS is not set".to_owned())
    } else {
        match KeyringStore::new(unique_service(), KEYRING_USER).read() {
            Ok(_) => None,
            Err(e) => Some(e.to_string()),
        }
    };
    match problem {
        None => true,
        Some(p) if required => panic!("NERVE_REQUIRE_KEYRING=1 but no Secret Service answers: {p}"),
        Some(p) => {
            eprintln!("skipping the real-keyring test: {p} (run it with scripts/with-keyring.sh)");
            false
        }
    }
}

#[test]
fn store_load_and_remove_in_the_real_keyring() {
    if !keyring_available() {
        return;
    }
    let store = KeyringStore::new(unique_service(), KEYRING_USER);
    assert_eq!(store.read(), Ok(None));
    let key = ApiKey::new("sk-ant-api03-real-keyring-test-key");
    store_in(&store, &key).unwrap();
    let loaded = load_from(Some(&store), Some("sk-ant-env-key".into())).unwrap();
    assert_eq!(loaded.source, KeySource::Keyring);
    assert_eq!(loaded.key, key);

    store_in(&store, &ApiKey::new("sk-ant-api03-replaced")).unwrap();
    assert_eq!(store.read().unwrap().as_deref(), Some("sk-ant-api03-replaced"));

    assert_eq!(store.remove(), Ok(true));
    assert_eq!(store.remove(), Ok(false));
    let loaded = load_from(Some(&store), Some("sk-ant-env-key".into())).unwrap();
    assert_eq!(loaded.source, KeySource::Environment);
    assert_eq!(loaded.keyring_problem, None::<StoreError>);
}

/// `nerve ARGS` with its keyring entry under `service`, no key in the environment, and data and
/// config folders below `home` (the credentials file must never be the developer's).
fn nerve_command(service: &str, home: &std::path::Path, args: &[&str]) -> Command {
    let mut c = Command::new(NERVE);
    c.args(args)
        .env("NERVE_KEYRING_SERVICE", service)
        .env_remove("NERVE_KEYRING")
        .env_remove("ANTHROPIC_API_KEY")
        .env("NERVE_DATA_DIR", home.join("data"))
        .env("XDG_CONFIG_HOME", home.join("config"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Runs `command`, writing `stdin` to it when given.
fn run_with(mut command: Command, stdin: Option<&str>) -> Output {
    command.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    });
    let mut child = command.spawn().unwrap();
    if let Some(text) = stdin {
        child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    }
    child.wait_with_output().unwrap()
}

fn nerve(service: &str, args: &[&str], stdin: Option<&str>) -> Output {
    let dir = tempfile::tempdir().unwrap();
    run_with(nerve_command(service, dir.path(), args), stdin)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn auth_commands_against_the_real_keyring() {
    if !keyring_available() {
        return;
    }
    let service = unique_service();
    let secret = "sk-ant-api03-cli-secret-0123456789";
    let out = nerve(&service, &["auth", "set"], Some(&format!("{secret}\n")));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Stored the API key (sk-ant-…)"));

    let out = nerve(&service, &["auth", "status"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let shown = text(&out.stdout);
    assert!(
        shown.contains(&format!(
            "API key {} from the OS keyring",
            mask(&ApiKey::new(secret))
        )),
        "{shown}"
    );
    assert!(shown.contains(&service), "{shown}");
    assert!(
        !shown.contains(secret) && !text(&out.stderr).contains(secret),
        "{shown}"
    );

    let out = nerve(&service, &["auth", "delete"], None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("Removed the stored API key"));
    let out = nerve(&service, &["auth", "status"], None);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("nerve auth set"),
        "{}",
        text(&out.stderr)
    );

    let out = nerve(&service, &["auth", "set"], Some("\n"));
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("the API key is empty"),
        "{}",
        text(&out.stderr)
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_uses_the_key_from_the_keyring() {
    if !keyring_available() {
        return;
    }
    let service = unique_service();
    let store = KeyringStore::new(&service, KEYRING_USER);
    store_in(&store, &ApiKey::new("sk-ant-api03-print-mode-key")).unwrap();
    let server = MockServer::start(
        Scenario::from_json(
            &json!({"steps": [{"response": {"type": "stream", "blocks": [{"type": "text", "text": "Keyed."}]}}]})
                .to_string(),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    let project = tempfile::tempdir().unwrap();
    let url = server.url();
    let cwd = project.path().display().to_string();
    let out = tokio::task::spawn_blocking(move || {
        nerve(&service, &["-p", "hi", "--base-url", &url, "--cwd", &cwd], None)
    })
    .await
    .unwrap();
    store.remove().unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "Keyed.");
    assert_eq!(server.requests().len(), 1);
}

/// Without a Secret Service (no D-Bus session bus, as in a container), `nerve auth set` keeps the
/// key in `<config dir>/nerve/credentials`, mode 0600, says so calmly, and `-p` uses it.
#[test]
fn without_a_secret_service_the_key_goes_to_a_private_file() {
    use std::os::unix::fs::PermissionsExt as _;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config");
    let service = unique_service();
    let run = |args: &[&str], stdin: Option<&str>, base_url: Option<&str>| {
        let mut c = nerve_command(&service, home.path(), args);
        // No session bus: no Secret Service can answer.
        c.current_dir(home.path())
            .env_remove("DBUS_SESSION_BUS_ADDRESS")
            .env_remove("DISPLAY")
            .env("HOME", home.path());
        if let Some(url) = base_url {
            c.env("ANTHROPIC_BASE_URL", url);
        }
        run_with(c, stdin)
    };
    let secret = "sk-ant-api03-file-secret-0123456789";
    let out = run(&["auth", "set"], Some(secret), None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let file = config.join("nerve/credentials");
    let said = text(&out.stdout);
    assert!(
        said.starts_with(&format!(
            "No OS keyring answered, so the API key (sk-ant-…) is stored in {}, readable only by you.",
            file.display()
        )),
        "{said}"
    );
    assert!(!said.contains(secret));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), secret);
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );

    let status = text(&run(&["auth", "status"], None, None).stdout);
    assert!(status.contains(&format!("from {}", file.display())), "{status}");

    let runtime = tokio::runtime::Runtime::new().unwrap();
    let server = runtime.block_on(async {
        let steps = json!({"steps": [{"response": {"type": "stream", "blocks": [{"type": "text", "text": "hi from the mock"}]}}]});
        MockServer::start(Scenario::from_json(&steps.to_string()).unwrap()).await.unwrap()
    });
    let out = run(&["-p", "hello"], None, Some(&server.url()));
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout).trim(), "hi from the mock");

    let out = run(&["auth", "delete"], None, None);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!file.exists());
}

/// The test MCP server over streamable HTTP, behind its own OAuth authorization server; killed
/// when dropped. Access tokens live `ttl` seconds.
struct OAuthServer {
    url: String,
    child: std::process::Child,
}

impl Drop for OAuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn oauth_server(ttl: u64) -> OAuthServer {
    use std::io::BufRead;
    let mut child = Command::new(crate::support::test_mcp_server())
        .args(["--http", "127.0.0.1:0", "--oauth"])
        .env("NERVE_TEST_OAUTH_TTL", ttl.to_string())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    OAuthServer {
        url: url.trim().to_string(),
        child,
    }
}

/// `nerve mcp ARGS` in `project`, with MCP tokens under `service`, and the test server as the
/// browser (it follows the authorization page's redirect back to the loopback port).
fn nerve_mcp(
    service: &str,
    home: &std::path::Path,
    project: &std::path::Path,
    args: &[&str],
) -> (bool, String) {
    let mut command = nerve_command(
        service,
        home,
        &["mcp", args[0], "--cwd", project.to_str().unwrap()],
    );
    command
        .args(&args[1..])
        .env("NERVE_MCP_KEYRING_SERVICE", service)
        .env("BROWSER", crate::support::test_mcp_server());
    let out = run_with(command, None);
    (
        out.status.success(),
        format!("{}{}", text(&out.stdout), text(&out.stderr)),
    )
}

#[test]
fn mcp_oauth_sign_in_refresh_revocation_and_sign_out_against_the_real_keyring() {
    if !keyring_available() {
        return;
    }
    let server = oauth_server(2);
    let service = unique_service();
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let mcp = |args: &[&str]| nerve_mcp(&service, home.path(), project.path(), args);

    let (ok, out) = mcp(&["add", "--transport", "http", "secure", &server.url]);
    assert!(ok, "{out}");
    assert!(
        out.contains("Added http MCP server secure to local config"),
        "{out}"
    );
    let (ok, out) = mcp(&["list"]);
    assert!(ok, "{out}");
    assert!(
        out.contains(&format!(
            "secure: http {} - ! Needs sign-in: run `nerve mcp login secure`",
            server.url
        )),
        "{out}"
    );

    let (ok, out) = mcp(&["login", "secure"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("Signed in to secure; the token is stored in the OS keyring."),
        "{out}"
    );
    let entry = KeyringStore::new(&service, format!("secure {}", server.url));
    let stored = |entry: &KeyringStore| -> serde_json::Value {
        serde_json::from_str(&entry.read().unwrap().expect("a token in the keyring")).unwrap()
    };
    let first = stored(&entry)["token_response"]["access_token"].clone();
    assert!(first.as_str().unwrap().starts_with("access-"), "{first}");
    // Never in a settings file.
    let settings = std::fs::read_to_string(project.path().join(".nerve/settings.local.json")).unwrap();
    assert!(!settings.contains("access-"), "{settings}");

    let (ok, out) = mcp(&["list"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("secure: http") && out.contains("✓ Connected ("),
        "{out}"
    );

    // The access token expires; the next use refreshes it.
    std::thread::sleep(std::time::Duration::from_secs(3));
    let (ok, out) = mcp(&["get", "secure"]);
    assert!(ok, "{out}");
    assert!(out.contains("Status: ✓ Connected"), "{out}");
    assert!(out.contains("mcp__secure__echo"), "{out}");
    let refreshed = stored(&entry)["token_response"]["access_token"].clone();
    assert_ne!(refreshed, first, "the token was refreshed");

    // The server revokes every token: the server needs a sign-in again, said clearly.
    {
        use std::io::{Read, Write};
        let address = server
            .url
            .trim_start_matches("http://")
            .trim_end_matches("/mcp")
            .to_string();
        let mut stream = std::net::TcpStream::connect(&address).unwrap();
        write!(
            stream,
            "POST /test/revoke HTTP/1.1\r\nHost: {address}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        )
        .unwrap();
        let mut answer = String::new();
        stream.read_to_string(&mut answer).unwrap();
        assert!(answer.starts_with("HTTP/1.1 204"), "{answer}");
    }
    let (ok, out) = mcp(&["list"]);
    assert!(ok, "{out}");
    assert!(
        out.contains("! Needs sign-in: run `nerve mcp login secure`"),
        "{out}"
    );

    let (ok, out) = mcp(&["logout", "secure"]);
    assert!(ok, "{out}");
    assert!(out.contains("Signed out of secure"), "{out}");
    assert_eq!(entry.read(), Ok(None));
    let (ok, out) = mcp(&["remove", "secure"]);
    assert!(ok, "{out}");
    assert!(out.contains("Removed MCP server secure from"), "{out}");
    let (ok, out) = mcp(&["get", "secure"]);
    assert!(!ok);
    assert!(
        out.contains("no MCP server named \"secure\" is configured"),
        "{out}"
    );
}

/// Another process (the desktop app signing out, a second `nerve auth delete`) may delete the
/// entry while this one reads or deletes it: the Secret Service can then find the item and lose
/// it before its secret is fetched. Such a read answers "nothing stored" and such a delete
/// "there was none", never a keyring failure.
#[test]
fn an_entry_deleted_meanwhile_reads_as_missing() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    if !keyring_available() {
        return;
    }
    let service = unique_service();
    let stop = Arc::new(AtomicBool::new(false));
    let churn = {
        let store = KeyringStore::new(service.clone(), KEYRING_USER);
        std::thread::spawn(move || {
            for _ in 0..100 {
                store.write("sk-ant-api03-churn").unwrap();
                assert_eq!(store.remove(), Ok(true));
            }
        })
    };
    let readers: Vec<_> = (0..2)
        .map(|_| {
            let store = KeyringStore::new(service.clone(), KEYRING_USER);
            let stop = stop.clone();
            std::thread::spawn(move || {
                let mut failures = Vec::new();
                let mut reads = 0;
                while !stop.load(Ordering::Relaxed) {
                    match store.read() {
                        Ok(None) => {}
                        Ok(Some(secret)) => assert_eq!(secret, "sk-ant-api03-churn"),
                        Err(e) => failures.push(e),
                    }
                    reads += 1;
                }
                (reads, failures)
            })
        })
        .collect();
    let churned = churn.join();
    stop.store(true, Ordering::Relaxed);
    churned.unwrap();
    for reader in readers {
        let (reads, failures) = reader.join().unwrap();
        assert!(reads > 0);
        assert_eq!(failures, Vec::<StoreError>::new(), "{reads} reads");
    }
    assert_eq!(KeyringStore::new(service, KEYRING_USER).read(), Ok(None));
}
