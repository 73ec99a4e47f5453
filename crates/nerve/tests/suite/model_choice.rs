//! The model and thinking effort of a session's requests, chosen while it lives: between turns
//! the next request uses them; while a turn runs they wait for the next prompt (one tool-use loop
//! keeps one thinking configuration, as the API requires); the transcript records each choice and
//! a resumed session goes on with the last.

use nerve::events::EventSink;
use nerve::permissions::PermissionMode;
use nerve::session::{Effort, ModelChoice};
use serde_json::{Value, json};

use crate::support::{TestProject, mock, mock_session_options};

fn bypass(p: &TestProject) -> nerve::Project {
    let mut options = p.options();
    options.mode = Some(PermissionMode::BypassPermissions);
    nerve::Project::open(options).unwrap()
}

/// What each request asked for: its model, its output limit and its thinking.
fn asked(model: &nerve_mock_model::MockServer) -> Vec<(String, u64, Value)> {
    model
        .requests()
        .iter()
        .filter(|r| r.path == "/v1/messages")
        .map(|r| {
            (
                r.body["model"].as_str().unwrap_or_default().to_string(),
                r.body["max_tokens"].as_u64().unwrap_or_default(),
                r.body.get("thinking").cloned().unwrap_or(Value::Null),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_choice_applies_between_turns_waits_for_the_next_prompt_during_one_and_survives_a_resume() {
    let p = TestProject::new();
    let thought = |text: &str| json!({"type": "thinking", "thinking": text, "signature": "sig"});
    let high = json!({"type": "enabled", "budget_tokens": 24_000});
    let low = json!({"type": "enabled", "budget_tokens": 4_000});
    let model = mock(json!([
        {"expect": {"model": "claude-test", "thinking": null},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "plain"}]}},
        // High effort on the chosen model; the turn runs a command meanwhile.
        {"expect": {"model": "claude-sonnet-4-5", "thinking": high},
         "response": {"type": "stream", "blocks": [thought("Wait a little."),
            {"type": "tool_use", "id": "wait", "name": "Bash", "input": {"command": "sleep 1"}}]}},
        // The same loop keeps its thinking though the user chose low meanwhile.
        {"expect": {"model": "claude-sonnet-4-5", "thinking": high, "tool_result": {"tool_use_id": "wait"}},
         "response": {"type": "stream", "blocks": [thought("Done."), {"type": "text", "text": "waited"}]}},
        {"expect": {"model": "claude-sonnet-4-5", "thinking": low, "last_user_text_contains": "third"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "low now"}]}},
        // Resumed: the last choice goes on.
        {"expect": {"model": "claude-sonnet-4-5", "thinking": low, "last_user_text_contains": "resumed"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "still low"}]}}
    ]))
    .await;
    let session = std::sync::Arc::new(
        nerve::Session::start(bypass(&p), mock_session_options(&model))
            .await
            .unwrap(),
    );
    assert_eq!(session.state().unwrap().effort, Effort::Off);
    let first = session.send("first", &[], EventSink::discard()).await.unwrap();
    assert_eq!(first.final_text, "plain", "{:?}", first.error);

    // Between turns: at once.
    assert_eq!(
        session.set_effort(Effort::High),
        ModelChoice {
            model: "claude-test".into(),
            effort: Effort::High,
            at_next_prompt: false
        }
    );
    assert_eq!(
        session.set_model(" claude-sonnet-4-5 ").unwrap(),
        ModelChoice {
            model: "claude-sonnet-4-5".into(),
            effort: Effort::High,
            at_next_prompt: false
        }
    );
    assert!(session.set_model("  ").is_err(), "a blank model is refused");

    // During a turn: for the next prompt.
    let running = {
        let session = session.clone();
        tokio::spawn(async move { session.send("second", &[], EventSink::discard()).await })
    };
    let mut waited = 0;
    while model.requests().len() < 2 {
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        waited += 1;
        assert!(waited < 500, "the second turn never asked the model");
    }
    let pending = ModelChoice {
        model: "claude-sonnet-4-5".into(),
        effort: Effort::Low,
        at_next_prompt: true,
    };
    assert_eq!(session.set_effort(Effort::Low), pending);
    assert_eq!(session.model_choice(), pending);
    let second = running.await.unwrap().unwrap();
    assert_eq!(second.final_text, "waited", "{:?}", second.error);
    let third = session.send("third", &[], EventSink::discard()).await.unwrap();
    assert_eq!(third.final_text, "low now", "{:?}", third.error);
    assert_eq!(
        session.model_choice(),
        ModelChoice {
            at_next_prompt: false,
            ..pending.clone()
        }
    );
    // Each request's output limit leaves room for the answer beside the thinking budget.
    assert_eq!(
        asked(&model),
        vec![
            ("claude-test".into(), 16_000, Value::Null),
            ("claude-sonnet-4-5".into(), 32_000, high.clone()),
            ("claude-sonnet-4-5".into(), 32_000, high),
            ("claude-sonnet-4-5".into(), 16_000, low),
        ]
    );

    // The transcript has each choice as it applied; a resumed session goes on with the last,
    // whatever its options say.
    let id = session.id().to_string();
    let transcript = nerve::transcripts::Transcript::path_for(&session.project().data_dir(), &id);
    session.close().await;
    let choices: Vec<(String, String)> = std::fs::read_to_string(transcript)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "model_choice")
        .map(|e| {
            (
                e["model"].as_str().unwrap_or_default().to_string(),
                e["effort"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    assert_eq!(
        choices,
        vec![
            ("claude-test".into(), "high".into()),
            ("claude-sonnet-4-5".into(), "high".into()),
            ("claude-sonnet-4-5".into(), "low".into()),
        ]
    );
    let mut options = mock_session_options(&model);
    options.resume = Some(id);
    let resumed = nerve::Session::start(bypass(&p), options).await.unwrap();
    let state = resumed.state().unwrap();
    assert_eq!(
        (state.model.as_str(), state.effort),
        ("claude-sonnet-4-5", Effort::Low)
    );
    let again = resumed.send("resumed", &[], EventSink::discard()).await.unwrap();
    assert_eq!(again.final_text, "still low", "{:?}", again.error);
    assert_eq!(model.remaining_steps(), 0);
    resumed.close().await;
}
