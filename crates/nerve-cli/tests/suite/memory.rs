//! Project memory end to end: the model saves a fact when asked (through the Memory tool, allowed
//! by a rule in `-p`), a secret is refused, the next session's prompt lists the entry, and the user
//! sees and deletes it with `nerve memory`.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::{Value, json};

use crate::support::{NERVE, mock};

/// `nerve memory ARGS --cwd DIR/project` with DIR's data folder: (exit code, stdout, stderr).
fn memory(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(NERVE)
        .arg("memory")
        .args(args)
        .arg("--cwd")
        .arg(dir.join("project"))
        .env("NERVE_DATA_DIR", dir.join("data"))
        .env("HOME", dir.join("home"))
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

async fn print(dir: &Path, server: &nerve_mock_model::MockServer, prompt: &str) -> Value {
    let mut c = crate::support::nerve(
        dir,
        server,
        &[
            "-p",
            prompt,
            "--output-format",
            "json",
            "--allowedTools",
            "Memory",
        ],
    );
    c.env("NERVE_KEYRING", "off");
    let out = c.output().await.unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or(Value::Null)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_model_remembers_when_asked_and_the_user_sees_and_deletes_it() {
    let d = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(d.path().join("project")).unwrap();
    std::fs::create_dir_all(d.path().join("home/.config")).unwrap();
    let (code, out, _) = memory(d.path(), &["list"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("No memory entries (kept in "), "{out}");

    let server = mock(json!([
        {"expect": {"system_includes": ["# Project memory", "No entries yet."], "tools_include": ["Memory"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "leak", "name": "Memory", "input": {
                "action": "save", "name": "deploy-key", "description": "The deploy key",
                "content": "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
            {"type": "tool_use", "id": "save", "name": "Memory", "input": {
                "action": "save", "name": "test-command", "description": "How to run the tests",
                "content": "Run `make check`; it also lints."}}]}},
        {"expect": {"tool_result": {"tool_use_id": "leak", "is_error": true,
                                    "contains": "refused: the memory looks like it holds a secret (a GitHub token)"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Saved the test command."}]}},
        {"expect": {"system_includes": ["- `test-command`: How to run the tests"],
                    "system_excludes": ["it also lints"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "read", "name": "Memory", "input": {"action": "read", "name": "test-command"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "read", "contains": "Run `make check`; it also lints."}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Use make check."}]}}
    ]))
    .await;
    let first = print(d.path(), &server, "Remember that the tests run with make check.").await;
    assert_eq!(first["result"], "Saved the test command.", "{first}");
    let second = print(d.path(), &server, "How do I run the tests?").await;
    assert_eq!(second["result"], "Use make check.", "{second}");
    assert_eq!(server.remaining_steps(), 0);

    let (code, out, err) = memory(d.path(), &["list"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (0, "test-command  How to run the tests\n", "")
    );
    let (code, out, _) = memory(d.path(), &["list", "--json"]);
    assert_eq!(code, 0);
    let listed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(listed[0]["name"], "test-command");
    assert!(
        listed[0]["path"]
            .as_str()
            .unwrap()
            .ends_with("/memory/test-command.md")
    );
    let (code, out, _) = memory(d.path(), &["show", "test-command"]);
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "test-command: How to run the tests\n\nRun `make check`; it also lints.\n"
        )
    );
    let (code, out, _) = memory(d.path(), &["rm", "test-command"]);
    assert_eq!(code, 0);
    assert!(out.starts_with("Deleted memory test-command ("), "{out}");
    let (code, _, err) = memory(d.path(), &["show", "test-command"]);
    assert_eq!(code, 1);
    assert!(err.contains("no memory named \"test-command\""), "{err}");
    let (code, _, err) = memory(d.path(), &["rm", "../../etc/passwd"]);
    assert_eq!(code, 1);
    assert!(err.contains("is not valid"), "{err}");
}
