//! `nerve -p --provider openai-chat`: a turn on an OpenAI-compatible server (the mock's Chat
//! Completions endpoint), its key from OPENAI_API_KEY; `nerve auth status --provider` says where
//! that key comes from; an unknown provider is a usage error.

use serde_json::{Value, json};

use crate::support::{TestProject, mock, nerve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn print_mode_runs_a_turn_on_a_chat_completions_server() {
    let dir = TestProject::new();
    let file = dir
        .write("notes.txt", "remember the milk\n")
        .display()
        .to_string();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "call_1", "name": "Read", "input": {"file_path": file}}]}},
        {"expect": {"tool_result": {"tool_use_id": "call_1", "contains": "remember the milk"}},
         "response": {"type": "stream", "usage": {"input_tokens": 50, "output_tokens": 7},
                      "blocks": [{"type": "text", "text": "It says to remember the milk."}]}}
    ]))
    .await;
    let mut c = nerve(
        dir.dir.path(),
        &server,
        &[
            "-p",
            "what does notes.txt say?",
            "--provider",
            "openai-chat",
            "--output-format",
            "json",
        ],
    );
    c.env_remove("ANTHROPIC_API_KEY")
        .env("OPENAI_API_KEY", "sk-test")
        .env("NERVE_KEYRING", "off");
    let out = c.output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(result["result"], "It says to remember the milk.", "{result}");
    let paths: Vec<String> = server.requests().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/chat/completions", "/v1/chat/completions"]);
}

#[test]
fn auth_status_names_the_providers_key_and_an_unknown_provider_is_a_usage_error() {
    let dir = TestProject::new();
    let run = |args: &[&str], key: Option<&str>| {
        let mut c = std::process::Command::new(crate::support::NERVE);
        c.args(args)
            .env("HOME", dir.home())
            .env("NERVE_KEYRING", "off")
            .env_remove("OPENAI_API_KEY");
        if let Some(key) = key {
            c.env("OPENAI_API_KEY", key);
        }
        let out = c.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(
        run(&["auth", "status", "--provider", "openai-chat"], Some("sk-x")),
        (
            0,
            "OpenAI-compatible API key from OPENAI_API_KEY.\n".to_string(),
            String::new()
        )
    );
    let (code, _, err) = run(&["auth", "status", "--provider", "openai-chat"], None);
    assert_eq!(code, 1);
    assert!(
        err.contains("no API key for the OpenAI-compatible server: set OPENAI_API_KEY"),
        "{err}"
    );
    let (code, _, err) = run(&["-p", "hi", "--provider", "gemini"], None);
    assert_eq!(code, 2);
    assert!(
        err.contains(
            "unknown model provider `gemini`; the providers are anthropic, openai-chat and openai-responses"
        ),
        "{err}"
    );
}
