//! Work beside the conversation: background shells and sub-agents as tasks a front-end follows
//! (started, ended, also between turns; lost with an app that died), stops (a sub-agent alone,
//! while its turn goes on) and reads back; and tool calls announced while their input streams.

use std::time::Duration;

use nerve::events::{Event, EventSink};
use nerve::permissions::PermissionMode;
use nerve::tool::tasks::{TaskBoard, TaskKind, TaskStatus, TaskView};
use nerve_protocol::Progress;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::support::{Recorder, TestProject, mock, mock_session_options};

fn task_events(events: &[Event]) -> Vec<(String, TaskStatus)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::TaskChanged { task } => Some((task.id.clone(), task.status)),
            _ => None,
        })
        .collect()
}

async fn until(what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("timed out waiting for {what}");
}

fn bypass(p: &TestProject) -> nerve::Project {
    let mut options = p.options();
    options.mode = Some(PermissionMode::BypassPermissions);
    nerve::Project::open(options).unwrap()
}

/// Two background commands: one ends on its own after the turn did (the front-end hears it
/// between turns), one is stopped. The session lists both as they ended, with the call that started
/// each and the file its output went to.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_commands_are_tasks_reported_as_they_start_and_end_also_between_turns() {
    let p = TestProject::new();
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "bg_short", "name": "Bash",
             "input": {"command": "sleep 0.5; echo finished", "run_in_background": true}},
            {"type": "tool_use", "id": "bg_long", "name": "Bash",
             "input": {"command": "sleep 1000", "run_in_background": true}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "started both"}]}}
    ]))
    .await;
    let between_turns = Recorder::default();
    let mut options = mock_session_options(&model);
    options.events = between_turns.sink();
    let session = nerve::Session::start(bypass(&p), options).await.unwrap();
    let turn = Recorder::default();
    let done = session.send("start them", &[], turn.sink()).await.unwrap();
    assert_eq!(done.final_text, "started both", "{:?}", done.error);
    // Started during the turn, each naming its call (the two calls start side by side).
    let mut started = task_events(&turn.events());
    started.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        started,
        vec![
            ("bash_1".to_string(), TaskStatus::Running),
            ("bash_2".to_string(), TaskStatus::Running)
        ]
    );
    let mut calls: Vec<(String, String)> = session
        .tasks()
        .into_iter()
        .map(|t| (t.id, t.tool_use_id))
        .collect();
    calls.sort();
    let short = calls.iter().find(|(_, c)| c == "bg_short").unwrap().0.clone();
    let long = calls.iter().find(|(_, c)| c == "bg_long").unwrap().0.clone();

    // The short one ends after the turn: the session's own sink hears it.
    until("the short one to end", || {
        task_events(&between_turns.events()) == vec![(short.clone(), TaskStatus::Completed)]
    })
    .await;
    let stopped = session.stop_task(&long).await.unwrap();
    assert_eq!(stopped.status, TaskStatus::Killed);
    assert!(matches!(
        session.stop_task("bash_9").await,
        Err(nerve::session::SessionError::NoTask(_))
    ));
    let tasks = session.tasks();
    let mut summary: Vec<(&str, TaskStatus, Option<i32>, bool)> = tasks
        .iter()
        .map(|t| {
            (
                t.tool_use_id.as_str(),
                t.status,
                t.exit_code,
                t.ended_at_ms.is_some(),
            )
        })
        .collect();
    summary.sort_by_key(|s| s.0);
    assert_eq!(
        summary,
        vec![
            ("bg_long", TaskStatus::Killed, None, true),
            ("bg_short", TaskStatus::Completed, Some(0), true)
        ]
    );
    let short_task = tasks.iter().find(|t| t.id == short).unwrap();
    assert_eq!(
        short_task.kind,
        TaskKind::Shell {
            command: "sleep 0.5; echo finished".into()
        }
    );
    let output = std::fs::read_to_string(short_task.output_path.as_ref().unwrap()).unwrap();
    assert_eq!(output, "finished\n");
    session.close().await;
}

/// An app that dies while a background command runs never says how it ended: the resumed session
/// lists it as lost, never as running, and numbers its new tasks after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_running_when_the_app_died_comes_back_lost() {
    let p = TestProject::new();
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "bg", "name": "Bash",
             "input": {"command": "sleep 20", "run_in_background": true}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "running"}]}},
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "bg_again", "name": "Bash",
             "input": {"command": "true", "run_in_background": true}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "again"}]}}
    ]))
    .await;
    let session = nerve::Session::start(bypass(&p), mock_session_options(&model))
        .await
        .unwrap();
    session.send("go", &[], EventSink::discard()).await.unwrap();
    let id = session.id().to_string();
    // The app dies: nothing ends the session, nothing records how its command ended.
    std::mem::forget(session);

    let mut options = mock_session_options(&model);
    options.resume = Some(id);
    let resumed = nerve::Session::start(bypass(&p), options).await.unwrap();
    let tasks = resumed.tasks();
    assert_eq!(tasks.len(), 1);
    assert_eq!(
        (tasks[0].id.as_str(), tasks[0].status),
        ("bash_1", TaskStatus::Lost)
    );
    resumed.send("again", &[], EventSink::discard()).await.unwrap();
    let ids: Vec<(String, String)> = resumed
        .tasks()
        .into_iter()
        .map(|t| (t.id, t.tool_use_id))
        .collect();
    assert_eq!(
        ids,
        vec![
            ("bash_1".to_string(), "bg".to_string()),
            ("bash_2".to_string(), "bg_again".to_string())
        ]
    );
    resumed.close().await;
}

/// Two sub-agents side by side: each one's steps reach the front-end as typed events of its Agent
/// call, each is a task; the user stops the slow one from its card and the turn goes on, the model
/// told the user stopped it. After a resume, its conversation reads back as it was.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_streams_typed_steps_and_is_stopped_alone_while_the_turn_goes_on() {
    let p = TestProject::new();
    let a_txt = p.write("a.txt", "alpha\n").display().to_string();
    let model = mock(json!([
        {"when": {"last_user_text_contains": "survey the repository"},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "explore_a", "name": "Agent",
             "input": {"description": "slow look", "prompt": "Explore part a slowly.", "subagent_type": "Explore"}},
            {"type": "tool_use", "id": "explore_b", "name": "Agent",
             "input": {"description": "quick look", "prompt": "Explore part b.", "subagent_type": "Explore"}}]}},
        {"when": {"last_user_text_contains": "part b"},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "b_read", "name": "Read", "input": {"file_path": a_txt}}]}},
        {"when": {"tool_result": {"tool_use_id": "b_read"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "b found alpha"}]}},
        {"when": {"last_user_text_contains": "part a"},
         "response": {"type": "stream", "delay_ms": 30000, "blocks": [{"type": "text", "text": "never"}]}},
        {"when": {"tool_result": {"tool_use_id": "explore_a", "contains": "The user stopped this sub-agent"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "went on without a"}]}}
    ]))
    .await;
    let session = std::sync::Arc::new(
        nerve::Session::start(bypass(&p), mock_session_options(&model))
            .await
            .unwrap(),
    );
    let turn = Recorder::default();
    let stopper = {
        let (session, turn) = (std::sync::Arc::clone(&session), turn.clone());
        tokio::spawn(async move {
            // Stop the slow one once both run and the quick one is done.
            let slow = loop {
                let events = turn.events();
                let running: Vec<TaskView> = events
                    .iter()
                    .filter_map(|e| match e {
                        Event::TaskChanged { task } => Some(task.clone()),
                        _ => None,
                    })
                    .collect();
                let quick_done = running
                    .iter()
                    .any(|t| t.tool_use_id == "explore_b" && t.status == TaskStatus::Completed);
                if let (true, Some(slow)) =
                    (quick_done, running.iter().find(|t| t.tool_use_id == "explore_a"))
                {
                    break slow.id.clone();
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            };
            session.stop_task(&slow).await.unwrap()
        })
    };
    let done = session
        .send("survey the repository", &[], turn.sink())
        .await
        .unwrap();
    let stopped = stopper.await.unwrap();
    assert_eq!(done.final_text, "went on without a", "{:?}", done.error);
    assert_eq!(done.end, nerve::events::TurnEnd::EndTurn);
    assert_eq!(
        stopped.kind,
        TaskKind::Subagent {
            description: "slow look".into(),
            subagent_type: "Explore".into()
        }
    );
    let events = turn.events();
    // The quick one's steps came as typed events of its call: its Read card and its words.
    let quick_id = session
        .tasks()
        .into_iter()
        .find(|t| t.tool_use_id == "explore_b")
        .unwrap()
        .id;
    let inner: Vec<&Event> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolProgress {
                tool_use_id,
                progress: Progress::Subagent { agent_id, event },
            } if tool_use_id == "explore_b" => {
                assert_eq!(agent_id, &quick_id);
                Some(event.as_ref())
            }
            _ => None,
        })
        .collect();
    assert!(inner.iter().any(
        |e| matches!(e, Event::ToolCompleted { tool_use_id, is_error: false, .. } if tool_use_id == "b_read")
    ));
    assert!(
        inner
            .iter()
            .any(|e| matches!(e, Event::TextDelta { text } if text == "b found alpha"))
    );
    assert!(inner.iter().any(|e| matches!(e, Event::Usage { .. })));
    // Both were tasks; the slow one ended stopped, the quick one completed.
    let ends: Vec<(String, TaskStatus)> = session
        .tasks()
        .into_iter()
        .map(|t| (t.tool_use_id, t.status))
        .collect();
    assert_eq!(ends.len(), 2);
    assert!(
        ends.contains(&("explore_a".into(), TaskStatus::Killed)),
        "{ends:?}"
    );
    assert!(
        ends.contains(&("explore_b".into(), TaskStatus::Completed)),
        "{ends:?}"
    );

    // A resumed session reads the finished sub-agent's conversation back, its call as a card.
    let id = session.id().to_string();
    session.close().await;
    let mut options = mock_session_options(&model);
    options.resume = Some(id);
    let resumed = nerve::Session::start(bypass(&p), options).await.unwrap();
    let transcript = resumed.subagent_transcript(&quick_id).unwrap();
    assert_eq!(transcript.agent_id, quick_id);
    let calls: Vec<(&str, &str)> = transcript
        .past_calls
        .iter()
        .map(|c| (c.tool_use_id.as_str(), c.tool_name.as_str()))
        .collect();
    assert_eq!(calls, [("b_read", "Read")]);
    assert_eq!(transcript.history.len(), 4, "{:#?}", transcript.history);
    assert!(resumed.subagent_transcript("agent-unknown").is_err());
    resumed.close().await;
}

/// A long Write streams: its card exists from the first fragment, the file's path and its content
/// arrive in a few throttled deltas that add up to the whole text, and the normal queued card
/// follows. A response that breaks off mid-input abandons its call; the request is sent again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_shows_while_its_input_streams_and_a_broken_response_abandons_it() {
    let p = TestProject::new();
    let content: String = (0..200)
        .map(|i| format!("line {i} of the streamed file\n"))
        .collect();
    let model = mock(json!([
        {"response": {"type": "stream", "drop_after_events": 6, "blocks": [
            {"type": "tool_use", "id": "cut", "name": "Write", "fragments": 10,
             "input": {"file_path": "cut.txt", "content": "never written"}}]}},
        {"response": {"type": "stream", "delta_delay_ms": 25, "blocks": [
            {"type": "tool_use", "id": "w", "name": "Write", "fragments": 40,
             "input": {"file_path": "streamed.txt", "content": content}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "written"}]}}
    ]))
    .await;
    let session = nerve::Session::start(bypass(&p), mock_session_options(&model))
        .await
        .unwrap();
    let turn = Recorder::default();
    let done = session.send("write it", &[], turn.sink()).await.unwrap();
    assert_eq!(done.final_text, "written", "{:?}", done.error);
    assert_eq!(
        std::fs::read_to_string(p.project_dir().join("streamed.txt")).unwrap(),
        content
    );
    let events = turn.events();
    let of = |id: &str| -> Vec<&Event> {
        events
            .iter()
            .filter(|e| match e {
                Event::ToolInputStarted { tool_use_id, .. }
                | Event::ToolInputDelta { tool_use_id, .. }
                | Event::ToolInputAbandoned { tool_use_id }
                | Event::ToolQueued { tool_use_id, .. } => tool_use_id == id,
                _ => false,
            })
            .collect()
    };
    // The broken response: its call was announced, then abandoned, never queued.
    let cut = of("cut");
    assert!(matches!(cut.first(), Some(Event::ToolInputStarted { tool_name, .. }) if tool_name == "Write"));
    assert!(matches!(cut.last(), Some(Event::ToolInputAbandoned { .. })));
    assert!(!cut.iter().any(|e| matches!(e, Event::ToolQueued { .. })));
    assert!(!p.project_dir().join("cut.txt").exists());

    let w = of("w");
    assert!(matches!(
        w.first(),
        Some(Event::ToolInputStarted {
            kind: nerve_protocol::ToolKind::FileWrite,
            ..
        })
    ));
    assert!(matches!(w.last(), Some(Event::ToolQueued { .. })));
    let mut text = String::new();
    let mut paths = Vec::new();
    for e in &w[1..w.len() - 1] {
        let Event::ToolInputDelta {
            text: more,
            restart,
            path,
            ..
        } = e
        else {
            panic!("not a delta: {e:?}");
        };
        assert!(!restart);
        text.push_str(more);
        paths.push(path.clone());
    }
    assert_eq!(text, content, "the deltas add up to the whole content");
    assert_eq!(paths.last().unwrap().as_deref(), Some("streamed.txt"));
    // Throttled: far fewer deltas than the 40 fragments (about one per 100 ms of a 1 s stream).
    let deltas = w.len() - 2;
    assert!((2..=20).contains(&deltas), "{deltas} deltas");
    session.close().await;
}

/// The board a sub-agent test connects by hand (a bare agent has no session to do it).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sub_agent_is_a_task_of_the_parent_session() {
    let p = TestProject::new();
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "spawn", "name": "Agent",
             "input": {"description": "count", "prompt": "Count the files."}}]}},
        {"expect": {"last_user_text_contains": "Count the files"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "three"}]}},
        {"expect": {"tool_result": {"tool_use_id": "spawn", "contains": "three"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "there are three"}]}}
    ]))
    .await;
    let mut a = crate::suite::agent_loop::parent_with_subagents(&p, &server);
    let board = TaskBoard::of(&a.runtime().context);
    let seen = Recorder::default();
    board.connect(seen.sink(), None);
    let out = a.send("count", CancellationToken::new()).await;
    assert_eq!(out.final_text, "there are three", "{:?}", out.error);
    let tasks: Vec<(String, TaskStatus)> = seen
        .events()
        .into_iter()
        .filter_map(|e| match e {
            Event::TaskChanged { task } => Some((task.tool_use_id, task.status)),
            _ => None,
        })
        .collect();
    assert_eq!(
        tasks,
        vec![
            ("spawn".to_string(), TaskStatus::Running),
            ("spawn".to_string(), TaskStatus::Completed)
        ]
    );
    assert!(board.subagents().is_empty());
}

/// The project's search index: a hit inside a tool result names its session, prompt and call; a
/// later search reads only what the transcripts gained; a deleted session is forgotten; a damaged
/// index file is rebuilt from the transcripts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_are_searched_through_an_index_kept_current_as_they_grow() {
    use nerve::transcripts::search_index::{INDEX_FILE, SearchIndex};
    use nerve_protocol::transcripts::{SearchHitKind, SnippetPart};

    let p = TestProject::new();
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "probe", "name": "Bash", "input": {"command": "echo the quokka test passed"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "The probe ran."}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "A zeppelin, then."}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "other session"}]}}
    ]))
    .await;
    let project = bypass(&p);
    let data_dir = project.data_dir();
    let session = nerve::Session::start(project, mock_session_options(&model))
        .await
        .unwrap();
    session
        .send("run the probe", &[], EventSink::discard())
        .await
        .unwrap();
    let id = session.id().to_string();

    let hits = bypass(&p).search_sessions("quokka", 10).unwrap();
    let places: Vec<(SearchHitKind, u32, Option<&str>)> = hits
        .iter()
        .map(|h| (h.kind, h.turn, h.tool_use_id.as_deref()))
        .collect();
    // The command and its result both hold the word; each names the call.
    assert_eq!(places.len(), 2, "{hits:#?}");
    assert!(places.contains(&(SearchHitKind::ToolResult, 1, Some("probe"))));
    assert!(places.contains(&(SearchHitKind::ToolCall, 1, Some("probe"))));
    assert!(
        hits.iter()
            .all(|h| h.session_id == id && h.title == "run the probe")
    );
    let result = hits.iter().find(|h| h.kind == SearchHitKind::ToolResult).unwrap();
    assert_eq!(
        result.snippet,
        vec![
            SnippetPart {
                text: "the ".into(),
                matched: false
            },
            SnippetPart {
                text: "quokka".into(),
                matched: true
            },
            SnippetPart {
                text: " test passed".into(),
                matched: false
            },
        ]
    );
    // As the user types: the last word is a prefix.
    assert_eq!(
        bypass(&p).search_sessions("the pro", 10).unwrap()[0].session_id,
        id
    );

    // The session grows: the next refresh reads only the new lines.
    let size_before = std::fs::metadata(nerve::transcripts::Transcript::path_for(&data_dir, &id))
        .unwrap()
        .len();
    session.send("and now?", &[], EventSink::discard()).await.unwrap();
    let size_after = std::fs::metadata(nerve::transcripts::Transcript::path_for(&data_dir, &id))
        .unwrap()
        .len();
    // The session refreshed the index after its turn (off the async workers): wait for it.
    until("the index to read the second turn", || {
        let mut index = SearchIndex::open(&data_dir).unwrap();
        !index.search("zeppelin", 5).unwrap().is_empty()
    })
    .await;
    let mut index = SearchIndex::open(&data_dir).unwrap();
    assert_eq!(index.refresh().unwrap().bytes, 0, "nothing new to read");
    let zeppelin = index.search("zeppelin", 5).unwrap();
    assert_eq!((zeppelin[0].kind, zeppelin[0].turn), (SearchHitKind::Reply, 2));
    assert!(size_after > size_before);
    session.close().await;

    // Another session, then the first is deleted: only the other is found.
    let other = nerve::Session::start(bypass(&p), mock_session_options(&model))
        .await
        .unwrap();
    other
        .send("the other probe", &[], EventSink::discard())
        .await
        .unwrap();
    other.close().await;
    bypass(&p).delete(&id).unwrap();
    let left: Vec<String> = bypass(&p)
        .search_sessions("probe", 10)
        .unwrap()
        .into_iter()
        .map(|h| h.session_id)
        .collect();
    assert_eq!(left, vec![other.id().to_string()]);

    // A damaged index file is replaced and filled again from the transcripts.
    drop(index);
    std::fs::write(
        data_dir.join(INDEX_FILE),
        b"this is not a database, only bytes on a disk",
    )
    .unwrap();
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(data_dir.join(format!("{INDEX_FILE}{suffix}")));
    }
    let again = bypass(&p).search_sessions("other probe", 10).unwrap();
    assert_eq!(again[0].session_id, other.id());
    assert!(bypass(&p).search_sessions("   ", 10).unwrap().is_empty());
}
