//! WebFetch through the pipeline against a local HTTP server started in each test: conversion,
//! redirects, limits, cache, refusal of binary content, permissions, and summarisation by the real
//! model client talking to the scripted mock Messages API.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::support::{ScriptedPrompter, TestProject, text_of};
use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use nerve::errors::ErrorClass;
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig};
use nerve::model::small::{ClientSmallModel, SmallModel};
use nerve::permissions::{PermissionMode, PermissionPrompter, RuleBehavior, UserAnswer};
use nerve::pipeline::{CallOutcome, ToolCall};
use nerve::project::{SessionRuntime, SessionSetup};
use nerve::tools::web_fetch::{WebFetchOptions, WebFetchTool};
use nerve_mock_model::{MockServer, Scenario};
use serde_json::json;

const PAGE: &str = "<html><head><title>Widgets</title><script>track()</script></head><body>\
    <h1>Widget guide</h1><p>Widgets are <em>small</em> parts. See <a href=\"/more\">more</a>.</p>\
    <ul><li>red widget</li><li>blue widget</li></ul></body></html>";

/// A local site; counts requests per path.
#[derive(Clone, Default)]
struct Site {
    hits: Arc<Mutex<HashMap<String, usize>>>,
    port: Arc<Mutex<u16>>,
}

impl Site {
    fn hits(&self, path: &str) -> usize {
        self.hits.lock().unwrap().get(path).copied().unwrap_or(0)
    }
}

fn with_type(content_type: &'static str, body: impl IntoResponse) -> Response {
    let mut r = body.into_response();
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r
}

fn redirect(status: StatusCode, location: String) -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(header::LOCATION, HeaderValue::from_str(&location).unwrap());
    (status, headers).into_response()
}

async fn route(State(site): State<Site>, Path(path): Path<String>) -> Response {
    *site.hits.lock().unwrap().entry(path.clone()).or_default() += 1;
    let port = *site.port.lock().unwrap();
    match path.as_str() {
        "page" => with_type("text/html; charset=utf-8", PAGE),
        "text" => with_type("text/plain", "just text"),
        "json" => with_type("application/json", r#"{"answer": 42}"#),
        "image" => with_type("image/png", vec![0x89u8, b'P', b'N', b'G', 0, 0]),
        "big" => with_type("text/plain", "y".repeat(5_000)),
        "slow" => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            with_type("text/plain", "late")
        }
        "same-host" => redirect(StatusCode::MOVED_PERMANENTLY, "/page".into()),
        "other-host" => redirect(StatusCode::FOUND, format!("http://localhost:{port}/page")),
        "loop" => redirect(StatusCode::FOUND, "/loop".into()),
        "missing" => (StatusCode::NOT_FOUND, "no").into_response(),
        _ => (StatusCode::NOT_FOUND, "unknown").into_response(),
    }
}

async fn start_site() -> (Site, String) {
    let site = Site::default();
    let app = Router::new()
        .route("/{*path}", get(route))
        .with_state(site.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    *site.port.lock().unwrap() = port;
    tokio::spawn(async move { axum::serve(listener, app).await });
    (site, format!("http://127.0.0.1:{port}"))
}

fn options() -> WebFetchOptions {
    let mut o = WebFetchOptions::default();
    o.limits.total_timeout = Duration::from_millis(500);
    o.limits.max_bytes = 1_000;
    o
}

struct Setup {
    mode: PermissionMode,
    rules: Vec<(RuleBehavior, &'static str)>,
    prompter: Option<Arc<ScriptedPrompter>>,
    model: Option<Arc<dyn SmallModel>>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            mode: PermissionMode::Default,
            rules: vec![(RuleBehavior::Allow, "WebFetch(domain:127.0.0.1)")],
            prompter: None,
            model: None,
        }
    }
}

fn session(p: &TestProject, setup: Setup) -> SessionRuntime {
    let headless = setup.prompter.is_none();
    p.session_with_setup(
        vec![Arc::new(WebFetchTool::new(options()))],
        false,
        setup.mode,
        &setup.rules,
        SessionSetup {
            prompter: setup.prompter.map(|pr| pr as Arc<dyn PermissionPrompter>),
            headless,
            small_model: setup.model,
            ..SessionSetup::default()
        },
    )
}

async fn fetch(s: &SessionRuntime, url: &str) -> CallOutcome {
    let call = ToolCall {
        id: "toolu_fetch".into(),
        name: "WebFetch".into(),
        input: json!({"url": url, "prompt": "What are widgets?"}),
    };
    s.run_one(&call).await
}

#[tokio::test]
async fn html_is_converted_to_markdown_and_returned_when_no_model_is_available() {
    let (_site, base) = start_site().await;
    let p = TestProject::new();
    let out = fetch(&session(&p, Setup::default()), &format!("{base}/page")).await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    assert!(
        text.starts_with("No model is available to summarise this page, so here is the page content itself; answer the request from it: What are widgets?"),
        "{text}"
    );
    assert!(text.contains("# Widget guide"), "{text}");
    assert!(
        text.contains("Widgets are *small* parts. See [more](/more)."),
        "{text}"
    );
    assert!(!text.contains("track()"), "scripts are dropped: {text}");
    let display = out.display.unwrap();
    assert_eq!(display["status"], 200);
    assert_eq!(display["summarised"], false);
}

#[tokio::test]
async fn text_and_json_pass_through_and_binary_is_refused() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let s = session(&p, Setup::default());
    assert!(text_of(&fetch(&s, &format!("{base}/text")).await.content).ends_with("---\njust text"));
    assert!(text_of(&fetch(&s, &format!("{base}/json")).await.content).ends_with("---\n{\"answer\": 42}"));
    let out = fetch(&s, &format!("{base}/image")).await;
    assert!(out.is_error);
    let text = text_of(&out.content);
    assert!(
        text.contains("returned image/png, which is binary content WebFetch cannot read"),
        "{text}"
    );
    assert_eq!(site.hits("image"), 1);
}

#[tokio::test]
async fn a_redirect_to_another_host_is_reported_not_followed() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let out = fetch(&session(&p, Setup::default()), &format!("{base}/other-host")).await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    let port = base.rsplit(':').next().unwrap();
    assert!(text.starts_with("REDIRECT DETECTED"), "{text}");
    assert!(
        text.contains(&format!("Redirect URL: http://localhost:{port}/page")),
        "{text}"
    );
    assert!(text.contains("Status: 302 Found"), "{text}");
    assert_eq!(site.hits("page"), 0, "the other host was not contacted");
}

#[tokio::test]
async fn a_redirect_on_the_same_host_is_followed_and_loops_are_cut() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let s = session(&p, Setup::default());
    let out = fetch(&s, &format!("{base}/same-host")).await;
    assert!(
        text_of(&out.content).contains("# Widget guide"),
        "{:?}",
        out.content
    );
    assert_eq!(out.display.unwrap()["final_url"], format!("{base}/page"));
    assert_eq!(site.hits("page"), 1);

    let out = fetch(&s, &format!("{base}/loop")).await;
    assert!(out.is_error);
    assert!(
        text_of(&out.content).contains("redirected more than 10 times"),
        "{:?}",
        out.content
    );
    assert_eq!(site.hits("loop"), 11);
}

#[tokio::test]
async fn bodies_over_the_size_limit_are_cut_and_the_model_is_told() {
    let (_site, base) = start_site().await;
    let p = TestProject::new();
    let out = fetch(&session(&p, Setup::default()), &format!("{base}/big")).await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    assert!(
        text.contains("The response was larger than 1 KB and was cut there"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("---\n{}", "y".repeat(1_000))),
        "exactly the cap is kept"
    );
    assert_eq!(out.display.unwrap()["bytes"], 1_000);
}

#[tokio::test]
async fn a_slow_server_times_out() {
    let (_site, base) = start_site().await;
    let p = TestProject::new();
    let out = fetch(&session(&p, Setup::default()), &format!("{base}/slow")).await;
    assert!(out.is_error);
    assert!(
        text_of(&out.content).contains("took longer than 0.5 s and was stopped"),
        "{:?}",
        out.content
    );
}

#[tokio::test]
async fn error_statuses_are_reported() {
    let (_site, base) = start_site().await;
    let p = TestProject::new();
    let out = fetch(&session(&p, Setup::default()), &format!("{base}/missing")).await;
    assert!(out.is_error);
    assert!(
        text_of(&out.content).contains("answered HTTP 404 Not Found"),
        "{:?}",
        out.content
    );
}

#[tokio::test]
async fn a_second_fetch_of_the_same_url_comes_from_the_cache() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let s = session(&p, Setup::default());
    let first = fetch(&s, &format!("{base}/page")).await;
    let second = fetch(&s, &format!("{base}/page")).await;
    assert_eq!(site.hits("page"), 1);
    assert_eq!(text_of(&first.content), text_of(&second.content));
    assert_eq!(first.display.unwrap()["cached"], false);
    assert_eq!(second.display.unwrap()["cached"], true);
}

#[tokio::test]
async fn the_small_model_answers_from_the_page() {
    let (_site, base) = start_site().await;
    let mock = MockServer::start(
        Scenario::from_json(
            &json!({"steps": [{
                "expect": {"last_user_text_contains": "Widgets are *small* parts", "system_contains": "web page"},
                "response": {"type": "stream", "blocks": [{"type": "text", "text": ["Widgets are ", "small parts."]}]}
            }]})
            .to_string(),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("sk-test"), Some(mock.url()));
    config.retry.max_retries = 0;
    let model = ClientSmallModel::new(ModelClient::new(config).unwrap(), "claude-haiku-test", 1024);
    let p = TestProject::new();
    let s = session(
        &p,
        Setup {
            model: Some(Arc::new(model)),
            ..Setup::default()
        },
    );
    let out = fetch(&s, &format!("{base}/page")).await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(text_of(&out.content), "Widgets are small parts.");
    assert_eq!(out.display.unwrap()["summarised"], true);

    let requests = mock.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(body["model"], "claude-haiku-test");
    let user = body["messages"][0]["content"][0]["text"].as_str().unwrap();
    assert!(
        user.starts_with("Web page content:\n---\n# Widget guide"),
        "{user}"
    );
    assert!(
        user.contains(
            "---\n\nWhat are widgets?\n\nProvide a concise response based only on the content above."
        ),
        "{user}"
    );
}

#[tokio::test]
async fn a_failing_model_falls_back_to_the_page() {
    let (_site, base) = start_site().await;
    let mock = MockServer::start(
        Scenario::from_json(&json!({"steps": [{"response": {"type": "error", "status": 400}}]}).to_string())
            .unwrap(),
    )
    .await
    .unwrap();
    let mut config = ModelConfig::with_base_url_override(ApiKey::new("sk-test"), Some(mock.url()));
    config.retry.max_retries = 0;
    let model = ClientSmallModel::new(ModelClient::new(config).unwrap(), "m", 1024);
    let p = TestProject::new();
    let s = session(
        &p,
        Setup {
            model: Some(Arc::new(model)),
            ..Setup::default()
        },
    );
    let out = fetch(&s, &format!("{base}/page")).await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    assert!(
        text.starts_with("Summarising the page failed (the API answered 400"),
        "{text}"
    );
    assert!(text.contains("# Widget guide"), "{text}");
}

#[tokio::test]
async fn without_a_domain_rule_fetching_asks_and_headless_denies() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let headless = session(
        &p,
        Setup {
            rules: vec![],
            ..Setup::default()
        },
    );
    let out = fetch(&headless, &format!("{base}/page")).await;
    assert!(out.denied);
    assert_eq!(out.error_class, Some(ErrorClass::Permission));
    assert!(
        text_of(&out.content).contains("no one is available to approve it"),
        "{:?}",
        out.content
    );
    assert_eq!(site.hits("page"), 0);

    let prompter = ScriptedPrompter::new(vec![UserAnswer::AllowOnce { updated_input: None }]);
    let asking = session(
        &p,
        Setup {
            rules: vec![],
            prompter: Some(Arc::clone(&prompter)),
            ..Setup::default()
        },
    );
    let out = fetch(&asking, &format!("{base}/page")).await;
    assert!(!out.is_error, "{:?}", out.content);
    let asked = prompter.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool_name, "WebFetch");
    assert_eq!(asked[0].input["url"], format!("{base}/page"));
}

#[tokio::test]
async fn a_domain_allow_rule_fetches_without_asking_and_a_deny_rule_blocks() {
    let (site, base) = start_site().await;
    let p = TestProject::new();
    let prompter = ScriptedPrompter::new(vec![]);
    let allowed = session(
        &p,
        Setup {
            prompter: Some(Arc::clone(&prompter)),
            ..Setup::default()
        },
    );
    assert!(!fetch(&allowed, &format!("{base}/page")).await.is_error);
    assert!(prompter.asked().is_empty());

    let denied = session(
        &p,
        Setup {
            mode: PermissionMode::BypassPermissions,
            rules: vec![(RuleBehavior::Deny, "WebFetch(domain:127.0.0.1)")],
            ..Setup::default()
        },
    );
    let out = fetch(&denied, &format!("{base}/text")).await;
    assert!(out.denied, "{:?}", out.content);
    assert_eq!(site.hits("text"), 0);
}

#[tokio::test]
async fn invalid_urls_fail_validation_before_anything_is_fetched() {
    let p = TestProject::new();
    let s = session(&p, Setup::default());
    let out = fetch(&s, "file:///etc/passwd").await;
    assert_eq!(out.error_class, Some(ErrorClass::Validation));
    assert!(
        text_of(&out.content).contains("only fetches http and https"),
        "{:?}",
        out.content
    );
}
