//! `nerve-test-mcp-server`: a small MCP server whose tools exercise the engine's MCP client in the
//! integration tests (built with the `test-tools` feature).
//!
//! Tools: `echo` (read-only, returns its text), `add` (sums two numbers), `fail` (answers with
//! `isError: true`), `slow` (sleeps, and records a cancellation in `NERVE_TEST_MCP_LOG` if one
//! arrives), `progress` (reports `steps` progress notifications), `flood` (answers `chars`
//! characters), `image` (one tiny PNG), `approve` (a permission-prompt tool: allows only calls of
//! the tools named in its `ALLOW` environment variable) and `crash` (exits the process). Resources
//! `note://readme` (text) and `note://logo` (a PNG); prompt `review` (`file`, optional `focus`).
//!
//! Over stdio by default. `--http ADDR` serves streamable HTTP at `http://ADDR/mcp` instead (the
//! first line on stdout is that URL); with `--oauth`, `/mcp` wants a bearer token, and the same
//! port is an OAuth authorization server (see `oauth_server`). Given a URL as its only argument,
//! it acts as the user's browser for a sign-in: it opens the URL and follows the redirect back.

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use rmcp::ServiceExt;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, JsonObject, ListPromptsResult, ListResourcesResult, ListToolsResult,
    MetaObject, PaginatedRequestParams, ProgressNotificationParam, Prompt, PromptArgument, PromptMessage,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, Role,
    ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

/// What goes wrong here is only reported (this is a test fixture), so any error will do.
type Result<T, E = Box<dyn std::error::Error + Send + Sync>> = std::result::Result<T, E>;

/// A 1×1 transparent PNG.
const TINY_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[derive(Clone)]
struct TestServer {
    log: Option<Arc<std::path::PathBuf>>,
    /// `grow` was called: the tool list has `extra` too (and lost `dotted.name`).
    grown: Arc<std::sync::atomic::AtomicBool>,
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools(grown: bool) -> Vec<Tool> {
    let text_schema = || {
        schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo"}},
            "required": ["text"]
        }))
    };
    vec![
        Tool::new("echo", "Echoes the text back.", text_schema())
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "add",
            "Adds two numbers.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            })),
        )
        .annotate(ToolAnnotations::new().read_only(false).destructive(false)),
        Tool::new("fail", "Always fails with the given text.", text_schema()),
        Tool::new(
            "slow",
            "Sleeps for `ms` milliseconds.",
            schema(json!({
                "type": "object",
                "properties": {"ms": {"type": "integer"}},
                "required": ["ms"]
            })),
        ),
        Tool::new("image", "Returns a tiny PNG.", schema(json!({"type": "object"}))),
        Tool::new(
            "progress",
            "Reports `steps` progress notifications, 20 ms apart, then answers.",
            schema(json!({
                "type": "object",
                "properties": {"steps": {"type": "integer"}},
                "required": ["steps"]
            })),
        ),
        Tool::new(
            "flood",
            "Answers `chars` characters of text.",
            schema(json!({
                "type": "object",
                "properties": {"chars": {"type": "integer"}},
                "required": ["chars"]
            })),
        ),
        Tool::new(
            "approve",
            "Permission prompt tool: allows the tools listed in $ALLOW.",
            schema(json!({
                "type": "object",
                "properties": {
                    "tool_name": {"type": "string"},
                    "input": {"type": "object"},
                    "tool_use_id": {"type": "string"}
                },
                "required": ["tool_name", "input"]
            })),
        ),
        Tool::new(
            "crash",
            "Exits the server process.",
            schema(json!({"type": "object"})),
        ),
        // A name with characters outside [A-Za-z0-9_-], to check the client normalises it.
        Tool::new(
            "dotted.name",
            "Has a dot in its name.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "grow",
            "Adds the tool `extra`, removes `dotted.name`, and says the tool list changed.",
            schema(json!({"type": "object"})),
        ),
        Tool::new(
            "extra",
            "Exists once `grow` was called.",
            schema(json!({"type": "object"})),
        ),
    ]
    .into_iter()
    .filter(|t| {
        if grown {
            t.name != "dotted.name"
        } else {
            t.name != "extra"
        }
    })
    .chain(bulk_tools())
    .collect()
}

/// `$NERVE_TEST_MCP_BULK` tools the size of a typical API wrapper's (a tracker, a cloud console),
/// plus one the server asks to be sent in full (`_meta["anthropic/alwaysLoad"]`), for deferred
/// loading.
fn bulk_tools() -> Vec<Tool> {
    let count: usize = std::env::var("NERVE_TEST_MCP_BULK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if count == 0 {
        return Vec::new();
    }
    let bulk = (0..count).map(|i| {
        Tool::new(
            format!("bulk_{i:02}"),
            format!(
                "Operation {i} of the service: lists, filters and pages through records of kind {i}, \
                 returning at most `limit` records sorted by `sort`. Use `cursor` from a previous answer \
                 to continue."
            ),
            schema(json!({
                "type": "object",
                "properties": {
                    "project": {"type": "string", "description": "The project key, e.g. `CORE`."},
                    "query": {"type": "string", "description": "A filter in the service's query language."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many records."},
                    "sort": {"type": "string", "enum": ["created", "updated", "priority"], "description": "Sort order."},
                    "cursor": {"type": "string", "description": "Where the previous page ended."},
                    "fields": {"type": "array", "items": {"type": "string"}, "description": "Fields to return."}
                },
                "required": ["project"]
            })),
        )
    });
    let mut pinned = Tool::new(
        "pinned",
        "Always sent in full: the server marks it alwaysLoad.",
        schema(json!({"type": "object", "properties": {"x": {"type": "string"}}})),
    );
    let mut meta = JsonObject::new();
    meta.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
    pinned.meta = Some(MetaObject(meta));
    bulk.chain(std::iter::once(pinned)).collect()
}

fn arg<'a>(request: &'a CallToolRequestParams, key: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(key))
}

impl TestServer {
    fn record(&self, line: &str) {
        if let Some(path) = &self.log
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path.as_ref())
        {
            let _ = writeln!(f, "{line}");
        }
    }

    fn approve(request: &CallToolRequestParams) -> CallToolResult {
        let allowed = std::env::var("ALLOW").unwrap_or_default();
        let tool = arg(request, "tool_name").and_then(Value::as_str).unwrap_or("");
        let answer = if allowed.split(',').any(|t| t == tool) {
            let mut input = arg(request, "input").cloned().unwrap_or(json!({}));
            if let Some(obj) = input.as_object_mut() {
                obj.insert("approved_by".into(), json!("approve"));
            }
            json!({"behavior": "allow", "updatedInput": input})
        } else if tool == "garbage" {
            return CallToolResult::success(vec![ContentBlock::text("not json")]);
        } else {
            json!({"behavior": "deny", "message": format!("{tool} is not on the approve list")})
        };
        CallToolResult::success(vec![ContentBlock::text(answer.to_string())])
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .enable_resources()
                .enable_prompts()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut readme = Resource::new("note://readme", "readme");
        readme.mime_type = Some("text/plain".into());
        readme.description = Some("What this server is".into());
        let mut logo = Resource::new("note://logo", "logo");
        logo.mime_type = Some("image/png".into());
        Ok(ListResourcesResult::with_all_items(vec![readme, logo]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let contents = match request.uri.as_str() {
            "note://readme" => ResourceContents::text("The test server's readme.", "note://readme"),
            "note://logo" => ResourceContents::BlobResourceContents {
                uri: "note://logo".into(),
                mime_type: Some("image/png".into()),
                blob: TINY_PNG.into(),
                meta: None,
            },
            other => {
                return Err(ErrorData::resource_not_found(
                    format!("no resource {other}"),
                    None,
                ));
            }
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let mut file = PromptArgument::new("file");
        file.required = Some(true);
        file.description = Some("The file to review".into());
        let focus = PromptArgument::new("focus");
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "review",
            Some("Review a file"),
            Some(vec![file, focus]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "review" {
            return Err(ErrorData::invalid_params(
                format!("no prompt {}", request.name),
                None,
            ));
        }
        let get = |k: &str| {
            request
                .arguments
                .as_ref()
                .and_then(|a| a.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let Some(file) = get("file") else {
            return Err(ErrorData::invalid_params("`file` is required", None));
        };
        let focus = get("focus").map_or(String::new(), |f| format!(", focusing on {f}"));
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(
            Role::User,
            format!("Please review {file}{focus}."),
        )])
        .into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools(
            self.grown.load(std::sync::atomic::Ordering::SeqCst),
        )))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = arg(&request, "text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let result = match request.name.as_ref() {
            "echo" => {
                let extra = request
                    .arguments
                    .as_ref()
                    .map(|a| Value::Object(a.clone()).to_string())
                    .unwrap_or_default();
                self.record(&format!("echo {extra}"));
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "add" => {
                let n = |k| arg(&request, k).and_then(Value::as_f64).unwrap_or(0.0);
                CallToolResult::success(vec![ContentBlock::text((n("a") + n("b")).to_string())])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text(format!("failed: {text}"))]),
            "slow" => {
                let ms = arg(&request, "ms").and_then(Value::as_u64).unwrap_or(0);
                self.record("slow started");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    () = context.ct.cancelled() => {
                        self.record("slow cancelled");
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
            }
            "progress" => {
                let steps = arg(&request, "steps").and_then(Value::as_u64).unwrap_or(1);
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=steps {
                        let mut note = ProgressNotificationParam::new(token.clone(), step as f64);
                        note.total = Some(steps as f64);
                        note.message = Some(format!("step {step}"));
                        let _ = context.peer.notify_progress(note).await;
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!("{steps} steps done"))])
            }
            "flood" => {
                let chars = arg(&request, "chars").and_then(Value::as_u64).unwrap_or(0);
                let chars = usize::try_from(chars).unwrap_or(0);
                CallToolResult::success(vec![ContentBlock::text("x".repeat(chars))])
            }
            "image" => CallToolResult::success(vec![
                ContentBlock::text("an image:"),
                ContentBlock::image(TINY_PNG, "image/png"),
                ContentBlock::embedded_text("file:///notes.txt", "resource text"),
            ]),
            "approve" => Self::approve(&request),
            "crash" => std::process::exit(3),
            "dotted.name" => CallToolResult::success(vec![ContentBlock::text("dotted")]),
            "grow" => {
                self.grown.store(true, std::sync::atomic::Ordering::SeqCst);
                let _ = context.peer.notify_tool_list_changed().await;
                CallToolResult::success(vec![ContentBlock::text("grown")])
            }
            "extra" => CallToolResult::success(vec![ContentBlock::text("extra")]),
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [url] = args.as_slice()
        && url.starts_with("http")
    {
        return oauth_server::browse(url).await;
    }
    if std::env::var("NERVE_TEST_MCP_HANG").is_ok_and(|v| v == "1") {
        // Never answers `initialize`: tests the client's connect timeout.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    // A line on stderr, as real servers log there (the app shows a server's log).
    if let Ok(line) = std::env::var("NERVE_TEST_MCP_STDERR") {
        eprintln!("{line}");
    }
    let server = TestServer {
        log: std::env::var_os("NERVE_TEST_MCP_LOG").map(|p| Arc::new(p.into())),
        grown: Arc::default(),
    };
    server.record(&format!("pid {}", std::process::id()));
    if let Some(at) = args.iter().position(|a| a == "--http") {
        let addr = args.get(at + 1).map_or("127.0.0.1:0", String::as_str);
        let oauth = args.iter().any(|a| a == "--oauth");
        return oauth_server::serve_http(server, addr, oauth).await;
    }
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}

/// The streamable HTTP server and, with `--oauth`, the OAuth authorization server in front of it:
/// metadata (RFC 9728 and RFC 8414), dynamic client registration, the authorization endpoint
/// (which approves at once and redirects back with a code, as a user clicking "Allow" would), the
/// token endpoint (authorization code with PKCE S256, refresh tokens), and `POST /test/revoke`,
/// which revokes every token. Access tokens live `NERVE_TEST_OAUTH_TTL` seconds (default 3600).
mod oauth_server {
    use std::collections::{HashMap, HashSet};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use axum::Router;
    use axum::extract::{Form, Query, Request, State};
    use axum::http::{StatusCode, header};
    use axum::middleware::{self, Next};
    use axum::response::{IntoResponse, Redirect, Response};
    use axum::routing::{get, post};
    use base64::Engine;
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use serde_json::{Value, json};
    use sha2::Digest;

    use super::{Result, TestServer};

    #[derive(Default)]
    struct Auth {
        base: String,
        ttl: Duration,
        clients: HashSet<String>,
        /// code → (PKCE challenge, redirect URI)
        codes: HashMap<String, (String, String)>,
        access: HashMap<String, Instant>,
        refresh: HashSet<String>,
        counter: u64,
    }

    type Shared = Arc<Mutex<Auth>>;

    fn lock(auth: &Shared) -> std::sync::MutexGuard<'_, Auth> {
        auth.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub async fn serve_http(server: TestServer, addr: &str, oauth: bool) -> Result<()> {
        let listener = tokio::net::TcpListener::bind(addr).await?;
        let local = listener.local_addr()?;
        let base = format!("http://{local}");
        let mcp = StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let ttl = std::env::var("NERVE_TEST_OAUTH_TTL")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(3600);
        let auth: Shared = Arc::new(Mutex::new(Auth {
            base: base.clone(),
            ttl: Duration::from_secs(ttl),
            ..Auth::default()
        }));
        let mut app: Router = Router::new().nest_service("/mcp", mcp);
        if oauth {
            let endpoints: Router = Router::new()
                .route(
                    "/.well-known/oauth-protected-resource/mcp",
                    get(resource_metadata),
                )
                .route("/.well-known/oauth-protected-resource", get(resource_metadata))
                .route("/.well-known/oauth-authorization-server", get(server_metadata))
                .route("/register", post(register))
                .route("/authorize", get(authorize))
                .route("/token", post(token))
                .route("/test/revoke", post(revoke))
                .with_state(Arc::clone(&auth));
            app = app
                .merge(endpoints)
                .layer(middleware::from_fn_with_state(auth, require_token));
        }
        println!("{base}/mcp");
        use std::io::Write;
        std::io::stdout().flush()?;
        axum::serve(listener, app).await?;
        Ok(())
    }

    async fn require_token(State(auth): State<Shared>, request: Request, next: Next) -> Response {
        if !request.uri().path().starts_with("/mcp") {
            return next.run(request).await;
        }
        let bearer = request
            .headers()
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::to_string);
        let (valid, base) = {
            let auth = lock(&auth);
            let valid = bearer
                .as_ref()
                .and_then(|t| auth.access.get(t))
                .is_some_and(|expires| *expires > Instant::now());
            (valid, auth.base.clone())
        };
        if valid {
            return next.run(request).await;
        }
        let challenge = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\""
        );
        (StatusCode::UNAUTHORIZED, [(header::WWW_AUTHENTICATE, challenge)]).into_response()
    }

    async fn resource_metadata(State(auth): State<Shared>) -> impl IntoResponse {
        let base = lock(&auth).base.clone();
        axum::Json(json!({"resource": format!("{base}/mcp"), "authorization_servers": [base]}))
    }

    async fn server_metadata(State(auth): State<Shared>) -> impl IntoResponse {
        let base = lock(&auth).base.clone();
        axum::Json(json!({
            "issuer": base,
            "authorization_endpoint": format!("{base}/authorize"),
            "token_endpoint": format!("{base}/token"),
            "registration_endpoint": format!("{base}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none"]
        }))
    }

    async fn register(State(auth): State<Shared>, axum::Json(body): axum::Json<Value>) -> impl IntoResponse {
        let mut auth = lock(&auth);
        auth.counter += 1;
        let client_id = format!("client-{}", auth.counter);
        auth.clients.insert(client_id.clone());
        let mut answer = body;
        answer["client_id"] = json!(client_id);
        answer["token_endpoint_auth_method"] = json!("none");
        (StatusCode::CREATED, axum::Json(answer))
    }

    async fn authorize(State(auth): State<Shared>, Query(q): Query<HashMap<String, String>>) -> Response {
        let mut auth = lock(&auth);
        let known = q.get("client_id").is_some_and(|c| auth.clients.contains(c));
        let (Some(redirect), Some(challenge), Some(state)) =
            (q.get("redirect_uri"), q.get("code_challenge"), q.get("state"))
        else {
            return (
                StatusCode::BAD_REQUEST,
                "missing redirect_uri, code_challenge or state",
            )
                .into_response();
        };
        if !known || q.get("code_challenge_method").map(String::as_str) != Some("S256") {
            return (StatusCode::BAD_REQUEST, "unknown client or no S256 challenge").into_response();
        }
        auth.counter += 1;
        let code = format!("code-{}", auth.counter);
        auth.codes
            .insert(code.clone(), (challenge.clone(), redirect.clone()));
        let state = url_encode(state);
        Redirect::to(&format!("{redirect}?code={code}&state={state}")).into_response()
    }

    fn url_encode(text: &str) -> String {
        text.bytes()
            .map(|b| match b {
                b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                    (b as char).to_string()
                }
                other => format!("%{other:02X}"),
            })
            .collect()
    }

    fn issue(auth: &mut Auth) -> Value {
        auth.counter += 1;
        let access = format!("access-{}", auth.counter);
        let refresh = format!("refresh-{}", auth.counter);
        let ttl = auth.ttl;
        auth.access.insert(access.clone(), Instant::now() + ttl);
        auth.refresh.insert(refresh.clone());
        json!({"access_token": access, "token_type": "Bearer", "expires_in": ttl.as_secs(), "refresh_token": refresh})
    }

    fn invalid_grant(why: &str) -> Response {
        (
            StatusCode::BAD_REQUEST,
            axum::Json(json!({"error": "invalid_grant", "error_description": why})),
        )
            .into_response()
    }

    async fn token(State(auth): State<Shared>, Form(form): Form<HashMap<String, String>>) -> Response {
        let mut auth = lock(&auth);
        match form.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let Some((challenge, redirect)) = form.get("code").and_then(|c| auth.codes.remove(c)) else {
                    return invalid_grant("unknown or used code");
                };
                let verifier = form.get("code_verifier").cloned().unwrap_or_default();
                let computed = base64::engine::general_purpose::URL_SAFE_NO_PAD
                    .encode(sha2::Sha256::digest(verifier.as_bytes()));
                if computed != challenge || form.get("redirect_uri") != Some(&redirect) {
                    return invalid_grant("PKCE verifier or redirect_uri does not match");
                }
                axum::Json(issue(&mut auth)).into_response()
            }
            Some("refresh_token") => {
                let Some(refresh) = form.get("refresh_token") else {
                    return invalid_grant("no refresh_token");
                };
                if !auth.refresh.remove(refresh) {
                    return invalid_grant("the refresh token was revoked");
                }
                axum::Json(issue(&mut auth)).into_response()
            }
            _ => (
                StatusCode::BAD_REQUEST,
                axum::Json(json!({"error": "unsupported_grant_type"})),
            )
                .into_response(),
        }
    }

    async fn revoke(State(auth): State<Shared>) -> impl IntoResponse {
        let mut auth = lock(&auth);
        auth.access.clear();
        auth.refresh.clear();
        StatusCode::NO_CONTENT
    }

    /// The user's browser: opens the authorization page and follows its redirect to the loopback
    /// callback (printing the page it lands on).
    pub async fn browse(url: &str) -> Result<()> {
        nerve::http::install_crypto_provider();
        let client = nerve::http::client_builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()?;
        let answer = client.get(url).send().await?;
        let location = answer
            .headers()
            .get(reqwest::header::LOCATION)
            .and_then(|v| v.to_str().ok())
            .ok_or("the authorization page did not redirect")?
            .to_string();
        let page = client.get(&location).send().await?.text().await?;
        println!("{page}");
        Ok(())
    }
}
