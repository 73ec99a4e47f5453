//! `nerve acp` driven by the Agent Client Protocol's own client (the `agent-client-protocol`
//! crate's client side, spawning `nerve acp` as an editor does): a whole turn with a read, an edit
//! the client is asked about (with its diff) and allows; a turn the client cancels; then, in a new
//! connection, the session loaded (its conversation replayed) and continued.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{self as sdk, AcpAgent, AcpAgentConfig, Agent, Client};
use serde_json::json;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::support::{NERVE, TestProject, mock};

/// `nerve acp` with the test folder's data, home and the mock's address.
fn agent(dir: &TestProject, model_url: &str) -> AcpAgent {
    AcpAgent::new(
        AcpAgentConfig::new(NERVE)
            .arg("acp")
            .env("ANTHROPIC_BASE_URL", model_url)
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("NERVE_KEYRING", "off")
            .env(
                "NERVE_DATA_DIR",
                dir.dir.path().join("data").display().to_string(),
            )
            .env("HOME", dir.home().display().to_string())
            .env(
                "XDG_CONFIG_HOME",
                dir.home().join(".config").display().to_string(),
            ),
    )
}

type Asked = (
    acp::RequestPermissionRequest,
    Responder<acp::RequestPermissionResponse>,
);

/// What the client received, kept for the test to read.
#[derive(Clone, Default)]
struct Received(Arc<Mutex<Vec<acp::SessionUpdate>>>);

impl Received {
    fn take(&self) -> Vec<acp::SessionUpdate> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

fn text_of(
    updates: &[acp::SessionUpdate],
    pick: fn(&acp::SessionUpdate) -> Option<&acp::ContentChunk>,
) -> String {
    updates
        .iter()
        .filter_map(pick)
        .filter_map(|c| match &c.content {
            acp::ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

fn agent_text(u: &acp::SessionUpdate) -> Option<&acp::ContentChunk> {
    match u {
        acp::SessionUpdate::AgentMessageChunk(c) => Some(c),
        _ => None,
    }
}

fn user_text(u: &acp::SessionUpdate) -> Option<&acp::ContentChunk> {
    match u {
        acp::SessionUpdate::UserMessageChunk(c) => Some(c),
        _ => None,
    }
}

/// Runs `body` as an ACP client connected to `nerve acp`, collecting updates into `received` and
/// passing permission requests to `asked`.
async fn connect<F>(agent: AcpAgent, received: Received, body: F) -> Result<(), sdk::Error>
where
    F: AsyncFnOnce(ConnectionTo<Agent>, UnboundedReceiver<Asked>) -> Result<(), sdk::Error> + Send,
{
    let (asked_tx, asked_rx) = unbounded_channel::<Asked>();
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _cx: ConnectionTo<Agent>| {
                received.0.lock().unwrap().push(n.update);
                Ok(())
            },
            sdk::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: acp::RequestPermissionRequest,
                        r: Responder<acp::RequestPermissionResponse>,
                        _cx: ConnectionTo<Agent>| {
                asked_tx.send((req, r)).map_err(sdk::Error::into_internal_error)
            },
            sdk::on_receive_request!(),
        )
        .connect_with(agent, async move |cx: ConnectionTo<Agent>| {
            body(cx, asked_rx).await
        });
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the ACP session took over a minute")
}

async fn initialize(cx: &ConnectionTo<Agent>) -> Result<acp::InitializeResponse, sdk::Error> {
    cx.send_request(
        acp::InitializeRequest::new(ProtocolVersion::V1)
            .client_capabilities(acp::ClientCapabilities::new())
            .client_info(acp::Implementation::new("nerve-test-client", "0.0.0")),
    )
    .block_task()
    .await
}

fn select(option: &str) -> acp::RequestPermissionResponse {
    acp::RequestPermissionResponse::new(acp::RequestPermissionOutcome::Selected(
        acp::SelectedPermissionOutcome::new(option.to_string()),
    ))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_runs_a_turn_with_an_approved_edit_cancels_one_and_resumes_the_session() {
    let dir = TestProject::new();
    let project = dir.project_dir();
    let greeting = project.join("greeting.txt");
    std::fs::write(&greeting, "hello\n").unwrap();
    let file = greeting.display().to_string();
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "read", "name": "Read", "input": {"file_path": file}}]}},
        {"expect": {"tool_result": {"tool_use_id": "read", "is_error": false, "contains": "hello"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "edit", "name": "Edit",
             "input": {"file_path": file, "old_string": "hello", "new_string": "hello, world"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "edit", "is_error": false}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Fixed."}]}},
        // A slow answer, cancelled by the client.
        {"expect": {"last_user_text_contains": "count slowly"},
         "response": {"type": "stream", "delta_delay_ms": 400, "blocks": [
            {"type": "text", "text": ["one ", "two ", "three ", "four ", "five ", "six "]}]}},
        // The next connection's turn, over the loaded conversation.
        {"expect": {"last_user_text_contains": "and now?"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Still fixed."}]}}
    ]))
    .await;

    let received = Received::default();
    let session_id = Arc::new(Mutex::new(None::<acp::SessionId>));
    let (cwd, id_slot, seen) = (project.clone(), Arc::clone(&session_id), received.clone());
    connect(
        agent(&dir, &model.url()),
        received.clone(),
        async move |cx, mut asked| {
            let init = initialize(&cx).await?;
            assert!(init.agent_capabilities.load_session);
            let new = cx
                .send_request(acp::NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?;
            let modes = new.modes.expect("the session's modes");
            assert_eq!(&*modes.current_mode_id.0, "default");
            assert!(modes.available_modes.iter().any(|m| &*m.id.0 == "acceptEdits"));
            let sid = new.session_id.clone();
            *id_slot.lock().unwrap() = Some(sid.clone());
            // The slash commands the engine carries out itself are offered to the editor.
            for _ in 0..100 {
                if !seen.0.lock().unwrap().is_empty() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            let commands = seen.take();
            assert!(
                commands.iter().any(|u| matches!(u, acp::SessionUpdate::AvailableCommandsUpdate(c)
                    if c.available_commands.iter().any(|c| c.name == "init"))),
                "{commands:?}"
            );


            // A whole turn: the read runs, the edit asks, the client allows it once.
            let turn = cx.send_request(acp::PromptRequest::new(
                sid.clone(),
                vec![acp::ContentBlock::from("fix the greeting")],
            ));
            let (request, responder) = asked.recv().await.expect("a permission request");
            assert_eq!(request.tool_call.fields.kind, Some(acp::ToolKind::Edit));
            let kinds: Vec<acp::PermissionOptionKind> = request.options.iter().map(|o| o.kind).collect();
            assert!(kinds.contains(&acp::PermissionOptionKind::AllowOnce), "{kinds:?}");
            assert!(
                kinds.contains(&acp::PermissionOptionKind::RejectOnce),
                "{kinds:?}"
            );
            let content = request.tool_call.fields.content.clone().unwrap_or_default();
            let Some(acp::ToolCallContent::Diff(diff)) = content.first() else {
                panic!("the request shows no diff: {content:?}");
            };
            assert_eq!(diff.path, greeting);
            assert_eq!(diff.old_text.as_deref(), Some("hello\n"));
            assert_eq!(diff.new_text, "hello, world\n");
            responder.respond(select("allow_once"))?;
            let done = turn.block_task().await?;
            assert_eq!(done.stop_reason, acp::StopReason::EndTurn);
            assert_eq!(std::fs::read_to_string(&greeting).unwrap(), "hello, world\n");

            let updates = seen.take();
            assert_eq!(text_of(&updates, agent_text), "Let me look.Fixed.");
            let calls: Vec<(String, acp::ToolKind)> = updates
                .iter()
                .filter_map(|u| match u {
                    acp::SessionUpdate::ToolCall(c) => Some((c.tool_call_id.0.to_string(), c.kind)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                calls,
                vec![
                    ("read".to_string(), acp::ToolKind::Read),
                    ("edit".to_string(), acp::ToolKind::Edit)
                ]
            );
            let edit_done = updates
                .iter()
                .find_map(|u| match u {
                    acp::SessionUpdate::ToolCallUpdate(c)
                        if &*c.tool_call_id.0 == "edit"
                            && c.fields.status == Some(acp::ToolCallStatus::Completed) =>
                    {
                        Some(c.fields.clone())
                    }
                    _ => None,
                })
                .expect("the edit's completion");
            assert!(
                edit_done.content.unwrap_or_default().iter().any(
                    |c| matches!(c, acp::ToolCallContent::Diff(d) if d.new_text.contains("hello, world"))
                ),
                "the completed edit shows its diff"
            );
            assert_eq!(
                edit_done
                    .locations
                    .unwrap_or_default()
                    .first()
                    .map(|l| l.path.clone()),
                Some(greeting.clone())
            );

            // A turn the client cancels as soon as words arrive.
            let slow = cx.send_request(acp::PromptRequest::new(
                sid.clone(),
                vec![acp::ContentBlock::from("count slowly")],
            ));
            for _ in 0..100 {
                if !text_of(&seen.0.lock().unwrap(), agent_text).is_empty() {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.send_notification(acp::CancelNotification::new(sid.clone()))?;
            let cancelled = slow.block_task().await?;
            assert_eq!(cancelled.stop_reason, acp::StopReason::Cancelled);
            let partial = text_of(&seen.take(), agent_text);
            assert!(
                partial.starts_with("one") && !partial.contains("six"),
                "{partial}"
            );

            // The editor's mode picker: the session's permission mode changes, and the client hears it.
            cx.send_request(acp::SetSessionModeRequest::new(sid.clone(), "acceptEdits"))
                .block_task()
                .await?;
            let bad = cx
                .send_request(acp::SetSessionModeRequest::new(sid.clone(), "yolo"))
                .block_task()
                .await;
            assert!(bad.is_err(), "an unknown mode is refused");
            let updates = seen.take();
            assert!(
                updates.iter().any(
                    |u| matches!(u, acp::SessionUpdate::CurrentModeUpdate(m) if &*m.current_mode_id.0 == "acceptEdits")
                ),
                "{updates:?}"
            );

            Ok(())
        },
    )
    .await
    .unwrap();

    // An editor opened again: the session is loaded, its conversation replayed, and it goes on.
    let sid = session_id.lock().unwrap().clone().unwrap();
    let replayed = Received::default();
    let seen = replayed.clone();
    connect(agent(&dir, &model.url()), replayed, async move |cx, _asked| {
        initialize(&cx).await?;
        cx.send_request(acp::LoadSessionRequest::new(sid.clone(), project.clone()))
            .block_task()
            .await?;
        let history = seen.take();
        assert!(
            text_of(&history, user_text).contains("fix the greeting"),
            "{history:?}"
        );
        assert!(text_of(&history, agent_text).contains("Fixed."), "{history:?}");
        assert!(
            history
                .iter()
                .any(|u| matches!(u, acp::SessionUpdate::ToolCall(c) if &*c.tool_call_id.0 == "edit"))
        );
        let next = cx
            .send_request(acp::PromptRequest::new(
                sid.clone(),
                vec![acp::ContentBlock::from("and now?")],
            ))
            .block_task()
            .await?;
        assert_eq!(next.stop_reason, acp::StopReason::EndTurn);
        assert_eq!(text_of(&seen.take(), agent_text), "Still fixed.");
        Ok(())
    })
    .await
    .unwrap();
    assert_eq!(model.remaining_steps(), 0);
    // The resumed turn's request carried the earlier conversation.
    let requests = model.requests();
    let last = &requests.last().unwrap().body;
    assert!(last["messages"].to_string().contains("fix the greeting"));
}
