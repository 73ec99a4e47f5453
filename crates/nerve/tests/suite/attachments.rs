//! Prompt attachments: a folder's listing, a web page, another session and the terminal's
//! selection reach the model as blocks of their own, apart from the person's words, and a past
//! prompt shows them by kind and name; one that cannot be read fails the send before anything is
//! sent, and the rules hold (Read deny rules leave files out of a listing, a WebFetch deny rule
//! keeps a page out).

use axum::Router;
use axum::http::header;
use axum::routing::get;
use nerve::events::EventSink;
use nerve::permissions::RuleBehavior;
use nerve_protocol::HistoryMessage;
use nerve_protocol::prompt::{AttachmentKind, AttachmentView, PromptAttachment};
use serde_json::json;

use crate::support::{TestProject, mock, mock_session_options};

async fn site() -> String {
    let app = Router::new().route(
        "/guide",
        get(|| async {
            (
                [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
                "<html><body><h1>Release guide</h1><p>Tag, then publish.</p></body></html>",
            )
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://127.0.0.1:{port}")
}

fn project(p: &TestProject, rules: &[(RuleBehavior, &str)]) -> nerve::Project {
    let mut options = p.options();
    options.cli_rules = rules.iter().map(|(b, r)| (*b, (*r).to_string())).collect();
    nerve::Project::open(options).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn attachments_reach_the_model_as_their_own_blocks_and_the_history_names_them() {
    let p = TestProject::new();
    p.write("src/main.rs", "fn main() {}\n");
    p.write("src/util/strings.rs", "\n");
    p.write("src/secret.rs", "KEY\n");
    p.write("target/debug/app", "binary");
    p.write(".gitignore", "target/\n");
    let url = format!("{}/guide", site().await);
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "First session's answer."}]}},
        {"expect": {"last_user_text_contains": "How do I release this?"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Like so."}]}}
    ]))
    .await;
    let rules = [(RuleBehavior::Deny, "Read(src/secret.rs)")];
    let first = nerve::Session::start(project(&p, &rules), mock_session_options(&model))
        .await
        .unwrap();
    first
        .send("What does the first session say?", &[], EventSink::discard())
        .await
        .unwrap();
    let first_id = first.id().to_string();
    first.close().await;

    let session = nerve::Session::start(project(&p, &rules), mock_session_options(&model))
        .await
        .unwrap();
    let attachments = [
        PromptAttachment::Folder { path: "src/".into() },
        PromptAttachment::Url { url: url.clone() },
        PromptAttachment::Session {
            session_id: first_id.clone(),
        },
        PromptAttachment::TerminalSelection {
            text: "$ cargo publish\nerror: no token".into(),
        },
    ];
    let done = session
        .send_with_attachments("How do I release this?", &[], &attachments, EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "Like so.", "{:?}", done.error);

    let requests = model.requests();
    let content = requests[1].body["messages"][0]["content"]
        .as_array()
        .unwrap()
        .clone();
    let texts: Vec<String> = content
        .iter()
        .filter_map(|b| b["text"].as_str().map(str::to_string))
        .collect();
    // The folder: what .gitignore hides and what a deny rule covers are left out.
    assert_eq!(
        texts[0],
        "<attached-context kind=\"folder\" name=\"src/\">\nThe user attached the listing of a folder (files .gitignore hides are left out) to their message:\nsrc/\n  main.rs\n  util/\n    strings.rs\n(1 entries left out: Read deny rules cover them)\n</attached-context>"
    );
    assert!(
        texts[1].starts_with("<attached-context kind=\"url\""),
        "{}",
        texts[1]
    );
    assert!(
        texts[1].contains("# Release guide") && texts[1].contains("Tag, then publish."),
        "{}",
        texts[1]
    );
    assert!(
        texts[2].starts_with("<attached-context kind=\"session\" name=\"What does the first session say?\""),
        "{}",
        texts[2]
    );
    assert!(texts[2].contains("First session's answer."), "{}", texts[2]);
    assert!(
        texts[3].contains("kind=\"terminal_selection\" name=\"$ cargo publish\""),
        "{}",
        texts[3]
    );
    assert!(texts[3].contains("error: no token"));
    assert_eq!(texts[4], "How do I release this?");

    // The history: the person's words alone, the attachments by kind and name.
    let state = session.state().unwrap();
    let HistoryMessage::User { words, .. } = &state.history[0] else {
        panic!("not a prompt: {:?}", state.history[0]);
    };
    assert_eq!(words.text, "How do I release this?");
    let view = |kind, label: &str| AttachmentView {
        kind,
        label: label.to_string(),
    };
    assert_eq!(
        words.attachments,
        vec![
            view(AttachmentKind::Folder, "src/"),
            view(AttachmentKind::Url, &url),
            view(AttachmentKind::Session, "What does the first session say?"),
            view(AttachmentKind::TerminalSelection, "$ cargo publish"),
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attachment_that_cannot_be_read_fails_the_send_and_nothing_is_sent() {
    let p = TestProject::new();
    let outside = tempfile::tempdir().unwrap();
    let url = format!("{}/guide", site().await);
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "never"}]}}
    ]))
    .await;
    let rules = [(RuleBehavior::Deny, "WebFetch(domain:127.0.0.1)")];
    let session = nerve::Session::start(project(&p, &rules), mock_session_options(&model))
        .await
        .unwrap();
    let refused = |attachment: PromptAttachment| {
        let session = &session;
        async move {
            session
                .send_with_attachments("go", &[], &[attachment], EventSink::discard())
                .await
                .unwrap_err()
                .to_string()
        }
    };
    let outside_path = outside.path().display().to_string();
    assert_eq!(
        refused(PromptAttachment::Folder {
            path: outside_path.clone()
        })
        .await,
        format!(
            "The folder {outside_path} is outside the project's folders; only folders inside them can be attached."
        )
    );
    assert!(
        refused(PromptAttachment::Folder {
            path: "nowhere".into()
        })
        .await
        .starts_with("The folder nowhere cannot be attached:")
    );
    assert_eq!(
        refused(PromptAttachment::Url { url: url.clone() }).await,
        format!("A WebFetch deny rule covers {url}: it cannot be attached.")
    );
    assert!(
        refused(PromptAttachment::Url {
            url: "file:///etc/passwd".into()
        })
        .await
        .starts_with("The address file:///etc/passwd cannot be attached")
    );
    assert!(
        refused(PromptAttachment::Session {
            session_id: "no-such-session".into()
        })
        .await
        .starts_with("The session no-such-session cannot be attached")
    );
    assert_eq!(model.requests().len(), 0);
    assert_eq!(model.remaining_steps(), 1);
}
