//! WebSearch: a side request with the API's server-side web search tool, its results read back as
//! titles and links with the answer written from them; the user's rules decide whether it runs
//! and which sites' results are kept; not offered where the server has no web search.

use std::sync::Arc;

use nerve::events::EventSink;
use nerve::permissions::RuleBehavior;
use serde_json::json;

use crate::support::{TestProject, mock, mock_session_options};

/// The project with web search switched on for any server (the mock is a local one) and `rules`.
fn project(p: &TestProject, web_search: Option<bool>, rules: &[(RuleBehavior, &str)]) -> nerve::Project {
    let mut options = p.options();
    options.env = Arc::new(nerve::EngineEnv {
        web_search,
        ..nerve::EngineEnv::default()
    });
    options.cli_rules = rules.iter().map(|(b, r)| (*b, (*r).to_string())).collect();
    nerve::Project::open(options).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_search_returns_titles_and_links_and_leaves_out_sites_the_user_denies() {
    let p = TestProject::new();
    let model = mock(json!([
        {"expect": {"tools_include": ["WebSearch"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "search", "name": "WebSearch",
             "input": {"query": "tokio 2 release date", "blocked_domains": ["spam.example"]}}]}},
        // The side request: the server tool, with the model's and the user's blocked domains.
        {"expect": {"tools_include": ["web_search"], "tool_count": 1,
                    "last_user_text_contains": "Perform a web search for the query: tokio 2 release date"},
         "response": {"type": "stream", "blocks": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "tokio 2 release date"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "Announcing Tokio 2.0", "url": "https://tokio.rs/blog/2026-tokio-2", "page_age": "3 days ago", "encrypted_content": "e1"},
                {"type": "web_search_result", "title": "Tokio 2 leaked", "url": "https://evil.example/tokio", "encrypted_content": "e2"},
                {"type": "web_search_result", "title": "tokio on crates.io", "url": "https://crates.io/crates/tokio", "encrypted_content": "e3"}
            ]},
            {"type": "text", "text": "Tokio 2.0 was announced three days ago."}]}},
        {"expect": {"tool_result": {"tool_use_id": "search", "is_error": false,
                    "contains": "1. Announcing Tokio 2.0 — https://tokio.rs/blog/2026-tokio-2 (3 days ago)\n2. tokio on crates.io — https://crates.io/crates/tokio\n(1 result(s) left out: the user's rules deny those sites.)\n\nWhat the results say:\nTokio 2.0 was announced three days ago."}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Tokio 2.0 is out."}]}}
    ]))
    .await;
    let session = nerve::Session::start(
        project(
            &p,
            Some(true),
            &[
                (RuleBehavior::Allow, "WebSearch"),
                (RuleBehavior::Deny, "WebFetch(domain:evil.example)"),
            ],
        ),
        mock_session_options(&model),
    )
    .await
    .unwrap();
    let done = session
        .send("is tokio 2 out?", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "Tokio 2.0 is out.", "{:?}", done.error);
    assert_eq!(model.remaining_steps(), 0);
    let side = &model.requests()[1].body;
    assert_eq!(
        side["tools"],
        json!([{"type": "web_search_20250305", "name": "web_search", "max_uses": 8,
                "blocked_domains": ["spam.example", "evil.example"]}])
    );
    assert_eq!(side["stream"], json!(false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn not_offered_without_web_search_and_asks_like_any_reach_for_the_web() {
    let p = TestProject::new();
    // A local server, nothing said: no WebSearch.
    let model = mock(json!([
        {"expect": {"tools_exclude": ["WebSearch"]},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "no search here"}]}}
    ]))
    .await;
    let session = nerve::Session::start(project(&p, None, &[]), mock_session_options(&model))
        .await
        .unwrap();
    let done = session.send("search", &[], EventSink::discard()).await.unwrap();
    assert_eq!(done.final_text, "no search here", "{:?}", done.error);

    // Offered, but nobody to ask and no rule allowing it: refused before any request; both domain
    // lists at once: refused with words for the model.
    let model = mock(json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "both", "name": "WebSearch",
             "input": {"query": "x y", "allowed_domains": ["a.example"], "blocked_domains": ["b.example"]}},
            {"type": "tool_use", "id": "plain", "name": "WebSearch", "input": {"query": "rust 2027 edition"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "both", "is_error": true,
                    "contains": "Give `allowed_domains` or `blocked_domains`, not both."}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "checked"}]}}
    ]))
    .await;
    let session = nerve::Session::start(project(&p, Some(true), &[]), mock_session_options(&model))
        .await
        .unwrap();
    let done = session.send("search", &[], EventSink::discard()).await.unwrap();
    assert_eq!(done.final_text, "checked", "{:?}", done.error);
    assert_eq!(model.remaining_steps(), 0);
    let last = &model.requests()[1].body;
    let results = last["messages"].as_array().unwrap().last().unwrap()["content"].clone();
    let plain = results
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["tool_use_id"] == "plain")
        .unwrap()
        .clone();
    assert_eq!(plain["is_error"], json!(true), "{plain}");
}
