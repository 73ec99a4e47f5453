//! A batch of calls waiting for approval, and a rule the user considers: the session says which of
//! the waiting calls the rule would let run, judging each exactly as the engine judged it when it
//! asked (paths, the parts of a command, the tool's own opinion), without changing anything.

use std::time::Duration;

use nerve::events::Event;
use nerve::permissions::UserAnswer;
use nerve::session::{Asker, SessionError};
use serde_json::json;

use crate::support::{Recorder, TestProject, mock, mock_session_options};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rule_covers_exactly_the_waiting_calls_it_would_allow() {
    let p = TestProject::new();
    let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let first = first.path().canonicalize().unwrap();
    let second = second.path().canonicalize().unwrap();
    for (dir, name) in [(&first, "a.txt"), (&first, "b.txt"), (&second, "c.txt")] {
        std::fs::write(dir.join(name), "x\n").unwrap();
    }
    let read = |id: &str, path: std::path::PathBuf| {
        json!({"type": "tool_use", "id": id, "name": "Read",
               "input": {"file_path": path.display().to_string()}})
    };
    let model = mock(json!([
        // Three reads outside the project: one batch, all waiting at once.
        {"response": {"type": "stream", "blocks": [
            read("read_a", first.join("a.txt")),
            read("read_b", first.join("b.txt")),
            read("read_c", second.join("c.txt"))]}},
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "rm", "name": "Bash",
             "input": {"command": "rm -rf build", "description": "Remove the build"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "stopped"}]}}
    ]))
    .await;
    let mut options = mock_session_options(&model);
    options.asker = Asker::Person;
    let session = std::sync::Arc::new(
        nerve::Session::start(nerve::Project::open(p.options()).unwrap(), options)
            .await
            .unwrap(),
    );
    let turn = Recorder::default();
    let running = {
        let (session, sink) = (session.clone(), turn.sink());
        tokio::spawn(async move { session.send("look outside", &[], sink).await })
    };
    let requests = || -> Vec<(String, String)> {
        turn.events()
            .iter()
            .filter_map(|e| match e {
                Event::PermissionRequested { request } => {
                    Some((request.tool_use_id.clone(), request.id.clone()))
                }
                _ => None,
            })
            .collect()
    };
    let until = |n: usize| {
        let requests = &requests;
        async move {
            for _ in 0..400 {
                if requests().len() >= n {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            panic!("{n} requests never arrived: {:?}", requests());
        }
    };
    until(3).await;
    let waiting = requests();
    let id_of = |call: &str| waiting.iter().find(|(c, _)| c == call).unwrap().1.clone();
    let mut both = vec![id_of("read_a"), id_of("read_b")];
    both.sort();

    // An absolute path is written with `//` in a rule, as in Claude Code.
    let folder = format!("Read(/{}/**)", first.display());
    assert_eq!(session.requests_covered_by(&[folder]).await.unwrap(), both);
    let one = format!("Read(/{})", first.join("a.txt").display());
    assert_eq!(
        session.requests_covered_by(&[one]).await.unwrap(),
        vec![id_of("read_a")]
    );
    assert_eq!(
        session
            .requests_covered_by(&["Bash(ls *)".into(), "WebFetch".into()])
            .await
            .unwrap(),
        Vec::<String>::new()
    );
    let bad = session.requests_covered_by(&["Read(".into()]).await;
    assert!(matches!(bad, Err(SessionError::BadRule { .. })), "{bad:?}");
    // Judging changed nothing: all three still wait.
    for (_, id) in &waiting {
        session.answer(id, UserAnswer::Deny { message: None }).unwrap();
    }

    // The next batch: a command that may destroy data, which its literal rule covers.
    until(4).await;
    let rm = requests()[3].clone();
    assert_eq!(rm.0, "rm");
    assert_eq!(
        session
            .requests_covered_by(&["Bash(rm -rf build)".into()])
            .await
            .unwrap(),
        vec![rm.1.clone()]
    );
    session.answer(&rm.1, UserAnswer::Deny { message: None }).unwrap();
    let done = running.await.unwrap().unwrap();
    assert_eq!(done.final_text, "stopped", "{:?}", done.error);
    session.close().await;
}
