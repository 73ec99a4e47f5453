//! Helpers shared by the CLI's integration tests: the binaries they start (`nerve` and the test MCP
//! server), `nerve -p` against the scripted mock of the Messages API, and a temporary project folder.

#![allow(dead_code)]

pub mod acp_editor;

use std::path::Path;
use std::process::Stdio;
use std::sync::OnceLock;

use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Value, json};
use tokio::process::Command;

/// The `nerve` binary under test.
pub const NERVE: &str = env!("CARGO_BIN_EXE_nerve");

/// The scripted mock of the Messages API serving `steps` (a real HTTP server speaking SSE).
pub async fn mock(steps: Value) -> MockServer {
    MockServer::start(Scenario::from_json(&json!({ "steps": steps }).to_string()).unwrap())
        .await
        .unwrap()
}

/// `nerve ARGS --cwd DIR/project` against `server`, with DIR's own data folder and home (so no
/// setting, session or key of the developer's is read): output piped, killed when dropped.
pub fn nerve(dir: &Path, server: &MockServer, args: &[&str]) -> Command {
    let mut c = Command::new(NERVE);
    c.args(args)
        .arg("--cwd")
        .arg(dir.join("project"))
        .env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "test-key")
        .env("NERVE_DATA_DIR", dir.join("data"))
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("home/.config"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

/// A temporary folder holding a project (`project/`), a home (`home/`) and, once `nerve` ran, its
/// data dir (`data/`): the layout every suite shares.
pub use nerve_test_support::folder::ProjectFolder as TestProject;

/// The path of `nerve-test-mcp-server`, the engine's test MCP server (a bin of the `nerve` crate
/// with its `test-tools` feature). A crate's tests only get their own crate's binaries through
/// `CARGO_BIN_EXE_*`, so this one is looked for beside them, in the folder cargo puts every binary
/// of a build in (this test binary runs from its `deps/` subfolder). A `cargo test` run that tests
/// the engine too (`cargo test -p nerve -p nerve-cli`, as scripts/test.sh does) builds it first.
pub fn test_mcp_server() -> &'static str {
    static PATH: OnceLock<String> = OnceLock::new();
    PATH.get_or_init(|| {
        let exe = std::env::current_exe().unwrap();
        let bin_dir: &Path = exe.parent().and_then(Path::parent).unwrap();
        let path = bin_dir.join("nerve-test-mcp-server");
        assert!(
            path.is_file(),
            "{} is missing: build it with `cargo build -p nerve --features test-tools --bin \
             nerve-test-mcp-server`, or run these tests with the engine's (`cargo test -p nerve -p nerve-cli`)",
            path.display()
        );
        path.to_str().unwrap().to_string()
    })
}

// The engine's tests' helper: one file for both test binaries.
#[path = "../../../nerve/tests/support/sandbox.rs"]
mod sandbox;
pub use sandbox::sandbox_available;
