//! `nerve acp` driven by the Agent Client Protocol's own client (the `agent-client-protocol`
//! crate's client side, spawning `nerve acp` as an editor does): a whole turn with a read, an edit
//! the client is asked about (with its diff) and allows; a turn the client cancels; then, in a new
//! connection, the session loaded (its conversation replayed) and continued.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{self as sdk, AcpAgent, AcpAgentConfig, Agent};
use serde_json::json;

use crate::support::acp_editor::{EditorRequest, Received, TestEditor, connect_editor};
use crate::support::{NERVE, TestProject, mock};

/// `nerve acp` with the test folder's data, home and the mock's address, using what the client
/// offers of its files and terminals.
fn agent(dir: &TestProject, model_url: &str) -> AcpAgent {
    AcpAgent::new(
        AcpAgentConfig::new(NERVE)
            .arg("acp")
            .env("ANTHROPIC_BASE_URL", model_url)
            .env("ANTHROPIC_API_KEY", "test-key")
            .env("NERVE_KEYRING", "off")
            // The client is on this machine even when the tests run over ssh.
            .env("NERVE_ACP_CLIENT_TOOLS", "1")
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
    connect_editor(
        agent(&dir, &model.url()),
        received.clone(),
        TestEditor::default(),
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
                if !seen.peek().is_empty() {
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
                if !text_of(&seen.peek(), agent_text).is_empty() {
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
    connect_editor(
        agent(&dir, &model.url()),
        replayed,
        TestEditor::default(),
        async move |cx, _asked| {
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
        },
    )
    .await
    .unwrap();
    assert_eq!(model.remaining_steps(), 0);
    // The resumed turn's request carried the earlier conversation.
    let requests = model.requests();
    let last = &requests.last().unwrap().body;
    assert!(last["messages"].to_string().contains("fix the greeting"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_editor_that_offers_its_files_and_terminals_gets_the_edits_and_runs_the_commands() {
    let dir = TestProject::new();
    let project = dir.project_dir();
    let greeting = project.join("greeting.txt");
    std::fs::write(&greeting, "hello\n").unwrap();
    let notes = project.join("notes.txt");
    std::fs::write(&notes, "draft\n").unwrap();
    let (greeting_path, notes_path) = (greeting.display().to_string(), notes.display().to_string());
    let outside = dir.home().join("outside.txt");
    let outside_path = outside.display().to_string();
    let sandboxed = crate::support::sandbox_available("a write outside the project is not refused");
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "read-notes", "name": "Read", "input": {"file_path": notes_path}}]}},
        // The editor holds unsaved text: the read says so, and an edit is refused.
        {"expect": {"tool_result": {"tool_use_id": "read-notes", "is_error": false,
                    "contains": "the editor has unsaved changes"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "edit-notes", "name": "Edit",
             "input": {"file_path": notes_path, "old_string": "draft", "new_string": "final"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "edit-notes", "is_error": true,
                    "contains": "has unsaved changes in the editor"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "read", "name": "Read", "input": {"file_path": greeting_path}}]}},
        {"expect": {"tool_result": {"tool_use_id": "read", "is_error": false, "contains": "hello"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "edit", "name": "Edit",
             "input": {"file_path": greeting_path, "old_string": "hello", "new_string": "hello, world"}}]}},
        // Commands run in the editor's terminals, cd tracking and all.
        {"expect": {"tool_result": {"tool_use_id": "edit", "is_error": false}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "make", "name": "Bash",
             "input": {"command": "mkdir -p sub && cd sub && printf 'made by %s\\n' terminal > made.txt && cat made.txt"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "make", "is_error": false, "contains": "made by terminal"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "where", "name": "Bash", "input": {"command": "pwd"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "where", "is_error": false, "contains": "/sub"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "outside", "name": "Bash", "input": {"command": format!("touch {outside_path}")}}]}},
        // The sandbox holds in the editor's terminal: nothing is written outside the project.
        {"expect": {"tool_result": {"tool_use_id": "outside", "is_error": sandboxed}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "slow", "name": "Bash", "input": {"command": "sleep 30", "timeout": 1000}}]}},
        {"expect": {"tool_result": {"tool_use_id": "slow", "is_error": true,
                    "contains": "Command timed out after 1000 ms"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Done."}]}}
    ]))
    .await;

    let editor = TestEditor::default();
    editor
        .unsaved
        .lock()
        .unwrap()
        .insert(notes.clone(), "draft, with the user's unsaved line\n".into());
    let received = Received::default();
    let (cwd, seen, log) = (project.clone(), received.clone(), editor.log.clone());
    connect_editor(
        agent(&dir, &model.url()),
        received,
        editor.clone(),
        async move |cx, mut asked| {
            cx.send_request(
                acp::InitializeRequest::new(ProtocolVersion::V1)
                    .client_capabilities(
                        acp::ClientCapabilities::new()
                            .fs(acp::FileSystemCapabilities::new()
                                .read_text_file(true)
                                .write_text_file(true))
                            .terminal(true),
                    )
                    .client_info(acp::Implementation::new("nerve-test-editor", "0.0.0")),
            )
            .block_task()
            .await?;
            let sid = cx
                .send_request(acp::NewSessionRequest::new(cwd.clone()))
                .block_task()
                .await?
                .session_id;
            // Whatever asks is allowed once (the edit, the commands that write).
            let approvals = tokio::spawn(async move {
                let mut titles = Vec::new();
                while let Some((request, responder)) = asked.recv().await {
                    titles.push(request.tool_call.tool_call_id.0.to_string());
                    responder.respond(select("allow_once")).unwrap();
                }
                titles
            });
            let done = cx
                .send_request(acp::PromptRequest::new(
                    sid.clone(),
                    vec![acp::ContentBlock::from("tidy up")],
                ))
                .block_task()
                .await?;
            assert_eq!(done.stop_reason, acp::StopReason::EndTurn);
            drop(approvals);
            Ok(())
        },
    )
    .await
    .unwrap();
    assert_eq!(model.remaining_steps(), 0);

    // The user's unsaved text was neither overwritten nor written past; the approved edit went
    // through the editor, which saved it.
    assert_eq!(std::fs::read_to_string(&notes).unwrap(), "draft\n");
    assert_eq!(std::fs::read_to_string(&greeting).unwrap(), "hello, world\n");
    assert_eq!(
        std::fs::read_to_string(project.join("sub/made.txt")).unwrap(),
        "made by terminal\n"
    );
    let log = log.lock().unwrap().clone();
    let writes: Vec<&EditorRequest> = log
        .iter()
        .filter(|r| matches!(r, EditorRequest::Write(..)))
        .collect();
    assert_eq!(
        writes,
        vec![&EditorRequest::Write(greeting.clone(), "hello, world\n".into())]
    );
    assert!(log.contains(&EditorRequest::Read(notes.clone())), "{log:?}");

    // A terminal per command, each released; the one that timed out was killed first.
    let creates: Vec<(String, Vec<String>, Option<PathBuf>)> = log
        .iter()
        .filter_map(|r| match r {
            EditorRequest::Create {
                program, args, cwd, ..
            } => Some((program.clone(), args.clone(), cwd.clone())),
            _ => None,
        })
        .collect();
    assert_eq!(creates.len(), 4, "{log:?}");
    assert_eq!(outside.exists(), !sandboxed);
    for (program, args, _) in &creates {
        let bash = args
            .iter()
            .position(|a| a == "--noprofile")
            .expect("bash's own options");
        // The session's own command line: the sandbox helper (the nerve binary), watching the
        // engine it is not a child of, with the policy when the kernel can enforce one.
        assert_eq!(program, NERVE);
        assert_eq!(args[0], "__nerve-sandbox-exec");
        assert!(
            args[1].starts_with('@'),
            "the helper watches the engine: {args:?}"
        );
        assert_eq!(args[2] != "-", sandboxed, "{args:?}");
        assert_eq!(args[bash - 1], "bash");
        assert_eq!(args[bash + 1..bash + 2], ["--norc".to_string()]);
        assert_eq!(args[args.len() - 2], "nerve-bash");
    }
    assert!(creates[0].1.last().unwrap().starts_with("mkdir -p sub"));
    assert_eq!(creates[0].2.as_deref(), Some(project.as_path()));
    assert_eq!(creates[1].2, Some(project.join("sub")), "the cd carried over");
    let tail: Vec<&EditorRequest> = log
        .iter()
        .filter(|r| matches!(r, EditorRequest::Kill(_) | EditorRequest::Release(_)))
        .collect();
    assert_eq!(
        tail,
        vec![
            &EditorRequest::Release("term-1".into()),
            &EditorRequest::Release("term-2".into()),
            &EditorRequest::Release("term-3".into()),
            &EditorRequest::Kill("term-4".into()),
            &EditorRequest::Release("term-4".into()),
        ]
    );

    // Each command's card shows its terminal, to the end.
    let updates = seen.take();
    for (call, terminal) in [
        ("make", "term-1"),
        ("where", "term-2"),
        ("outside", "term-3"),
        ("slow", "term-4"),
    ] {
        let last = updates
            .iter()
            .rev()
            .find_map(|u| match u {
                acp::SessionUpdate::ToolCallUpdate(c)
                    if &*c.tool_call_id.0 == call && c.fields.content.is_some() =>
                {
                    c.fields.content.clone()
                }
                _ => None,
            })
            .unwrap_or_default();
        assert!(
            matches!(last.as_slice(), [acp::ToolCallContent::Terminal(t)] if &*t.terminal_id.0 == terminal),
            "{call}: {last:?}"
        );
    }
}
