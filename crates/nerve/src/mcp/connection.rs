//! One live connection to an MCP server (a child process over stdio, streamable HTTP, or the older
//! HTTP+SSE): connect, `initialize`, list tools, call tools, read resources and prompts, notice when
//! it dies, reconnect on the next call (bounded, with backoff), shut down.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam, ClientCapabilities,
    ClientConfig, ClientRequest, GetPromptRequestParams, GetPromptResult, Implementation, JsonObject,
    NumberOrString, ProgressNotificationParam, ProgressToken, Prompt as RemotePrompt,
    ReadResourceRequestParams, ReadResourceResult, Resource as RemoteResource, ServerResult,
};
use rmcp::service::{
    MaybeSendFuture, NotificationContext, Peer, PeerRequestOptions, RoleClient, RunningService,
    RxJsonRpcMessage, ServiceError, TxJsonRpcMessage,
};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess, Transport};
use rmcp::{ClientHandler, ServiceExt, model::Tool as RemoteTool};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

use crate::mcp::config::McpTransport;
use crate::mcp::oauth;
use crate::mcp::sse::{SseTransport, header_hash_map, header_map};
use crate::tool::{Progress, ProgressSink, ToolError};

/// How many times in a row a dead server is restarted before Nerve gives up on it for the session.
const MAX_RECONNECTS: u32 = 3;
/// The wait before the first restart; it doubles after each failed one.
const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// How many of the server's last stderr lines are kept (its log in Settings).
const STDERR_TAIL_LINES: usize = 40;
/// How many of them an error message quotes.
const STDERR_IN_ERRORS: usize = 10;
/// How long a shutdown waits for the server to exit before it is killed.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// What is known about the server process, shared with the transport and the stderr reader.
#[derive(Default)]
struct ServerState {
    /// Why the connection ended; `None` while it is up.
    closed: Mutex<Option<String>>,
    stderr_tail: Mutex<VecDeque<String>>,
    /// A stdio server's process group: stopped whole when the connection is shut down or this
    /// state is dropped (a restart), since the server leaving by itself leaves its helpers.
    process_group: Mutex<Option<crate::process_group::GroupKillGuard>>,
}

impl ServerState {
    fn mark_closed(&self, reason: &str) {
        let mut closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        if closed.is_none() {
            *closed = Some(reason.to_string());
        }
    }

    /// Forgets an earlier close: a second attempt on the same state (with a token) starts clean.
    fn reopen(&self) {
        *self.closed.lock().unwrap_or_else(PoisonError::into_inner) = None;
    }

    /// Stops the server's process group now (SIGTERM, SIGKILL after the grace period).
    fn stop_process_group(&self) {
        drop(
            self.process_group
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .take(),
        );
    }

    fn closed_reason(&self) -> Option<String> {
        self.closed.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    fn push_stderr(&self, line: String) {
        let mut tail = self.stderr_tail.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.len() == STDERR_TAIL_LINES {
            tail.pop_front();
        }
        tail.push_back(line);
    }

    /// The last stderr lines, as a suffix for error messages (empty if the server said nothing).
    fn stderr_suffix(&self) -> String {
        let tail = self.stderr_tail.lock().unwrap_or_else(PoisonError::into_inner);
        if tail.is_empty() {
            String::new()
        } else {
            let skip = tail.len().saturating_sub(STDERR_IN_ERRORS);
            let lines: Vec<&str> = tail.iter().skip(skip).map(String::as_str).collect();
            format!("; its last stderr lines:\n{}", lines.join("\n"))
        }
    }
}

/// A transport, watched: its end marks the server as gone, so later calls fail at once with a
/// clear message (or reconnect) instead of a generic "transport closed".
struct Watched<T> {
    inner: T,
    state: Arc<ServerState>,
}

impl<T: Transport<RoleClient> + 'static> Transport<RoleClient> for Watched<T> {
    type Error = T::Error;

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        self.inner.send(item)
    }

    fn receive(&mut self) -> impl Future<Output = Option<RxJsonRpcMessage<RoleClient>>> + Send {
        let state = Arc::clone(&self.state);
        let next = self.inner.receive();
        async move {
            let message = next.await;
            if message.is_none() {
                state.mark_closed("the server closed the connection (the process exited or crashed)");
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.state.mark_closed("the connection was shut down");
        self.inner.close()
    }
}

/// Why a connection could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConnectError {
    /// The server needs an OAuth sign-in (no token stored, or the stored one was refused).
    NeedsSignIn(String),
    /// Anything else, for the user.
    Failed(String),
}

impl ConnectError {
    /// The message.
    pub fn message(&self) -> &str {
        match self {
            Self::NeedsSignIn(m) | Self::Failed(m) => m,
        }
    }
}

/// What a connection needs to (re)connect.
#[derive(Debug, Clone)]
pub struct ConnectTarget {
    /// The server's name.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// The working folder of a stdio server.
    pub cwd: std::path::PathBuf,
    /// How long connecting may take.
    pub timeout: Duration,
    /// The keyring service OAuth tokens are kept under.
    pub keyring_service: String,
}

/// What the server tells the client between requests: progress of running calls, and that its
/// lists changed.
#[derive(Default)]
pub struct ServerNotices {
    progress: Mutex<Progresses>,
    tools_changed: AtomicBool,
}

/// Progress sinks by token, and reports that arrived before their call was followed (the server
/// may answer faster than the call registers).
#[derive(Default)]
struct Progresses {
    sinks: HashMap<String, ProgressSink>,
    early: VecDeque<(String, String)>,
}

/// How many early reports are kept.
const EARLY_PROGRESS: usize = 64;

impl ServerNotices {
    fn follow(&self, key: &str, sink: ProgressSink) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        let early: Vec<String> = progress
            .early
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, m)| m.clone())
            .collect();
        progress.early.retain(|(k, _)| k != key);
        for message in early {
            sink.emit(Progress::Status { message });
        }
        progress.sinks.insert(key.to_string(), sink);
    }

    fn unfollow(&self, key: &str) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        progress.sinks.remove(key);
        progress.early.retain(|(k, _)| k != key);
    }

    fn report(&self, key: String, message: String) {
        let mut progress = self.progress.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sink) = progress.sinks.get(&key) {
            sink.emit(Progress::Status { message });
        } else {
            if progress.early.len() == EARLY_PROGRESS {
                progress.early.pop_front();
            }
            progress.early.push_back((key, message));
        }
    }

    /// Whether the server said its tool list changed since the last call of this method.
    pub fn take_tools_changed(&self) -> bool {
        self.tools_changed.swap(false, Ordering::SeqCst)
    }
}

/// The client side of the protocol: answers nothing (Nerve offers no sampling, roots or
/// elicitation), routes progress to the call that asked for it, notes list changes.
#[derive(Clone)]
struct NerveClient {
    notices: Arc<ServerNotices>,
}

impl ClientHandler for NerveClient {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("nerve", env!("CARGO_PKG_VERSION")),
        )
    }

    fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        let amount = match params.total {
            Some(total) => format!("{}/{}", params.progress, total),
            None => params.progress.to_string(),
        };
        let message = match &params.message {
            Some(m) if !m.trim().is_empty() => format!("{m} ({amount})"),
            _ => amount,
        };
        self.notices.report(token_key(&params.progress_token), message);
        std::future::ready(())
    }

    fn on_tool_list_changed(
        &self,
        _context: NotificationContext<RoleClient>,
    ) -> impl Future<Output = ()> + MaybeSendFuture + '_ {
        self.notices.tools_changed.store(true, Ordering::SeqCst);
        std::future::ready(())
    }
}

fn token_key(token: &ProgressToken) -> String {
    match &token.0 {
        NumberOrString::Number(n) => n.to_string(),
        NumberOrString::String(s) => s.to_string(),
    }
}

/// One connection's live half; replaced whole when the server is restarted.
struct Live {
    peer: Peer<RoleClient>,
    state: Arc<ServerState>,
    running: tokio::sync::Mutex<Option<RunningService<RoleClient, NerveClient>>>,
}

/// Restarts so far, and when the next may be tried.
struct Reconnects {
    failed_in_a_row: u32,
    not_before: Option<Instant>,
}

/// A connected server.
pub struct McpConnection {
    target: ConnectTarget,
    live: Mutex<Arc<Live>>,
    notices: Arc<ServerNotices>,
    reconnects: tokio::sync::Mutex<Reconnects>,
    /// Shut down on purpose: never restarted.
    shut_down: AtomicBool,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("name", &self.target.name)
            .finish()
    }
}

/// Sends the server `notifications/cancelled` for a request unless disarmed (`peer` taken).
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: rmcp::model::RequestId,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let reason = "the call was cancelled".to_string();
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), Some(reason)))
                    .await;
            });
        }
    }
}

/// Why connecting failed: the error text, with the server's stderr when it has any.
fn failure(name: &str, what: &str, error: impl std::fmt::Display, state: &ServerState) -> ConnectError {
    ConnectError::Failed(format!(
        "MCP server `{name}` {what}: {error}{}",
        state.stderr_suffix()
    ))
}

impl McpConnection {
    /// Connects, initialises the session and lists its tools, all within the target's timeout. A
    /// child process is killed if any step fails or the time runs out (and, as a last resort,
    /// when its handle is dropped).
    pub async fn start(target: ConnectTarget) -> Result<(Arc<Self>, Vec<RemoteTool>), ConnectError> {
        let notices = Arc::new(ServerNotices::default());
        let (live, tools) = connect(&target, &notices).await?;
        let connection = Arc::new(Self {
            target,
            live: Mutex::new(Arc::new(live)),
            notices,
            reconnects: tokio::sync::Mutex::new(Reconnects {
                failed_in_a_row: 0,
                not_before: None,
            }),
            shut_down: AtomicBool::new(false),
        });
        Ok((connection, tools))
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.target.name
    }

    /// The last lines the server wrote to stderr (a stdio server's log; empty for others).
    pub fn stderr_lines(&self) -> Vec<String> {
        let live = self.live();
        let tail = live
            .state
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        tail.iter().cloned().collect()
    }

    /// Whether the server offers resources and prompts (from its `initialize` answer).
    pub fn offers(&self) -> (bool, bool) {
        let live = self.live();
        live.peer.peer_info().map_or((false, false), |info| {
            (
                info.capabilities.resources.is_some(),
                info.capabilities.prompts.is_some(),
            )
        })
    }

    /// What the server said between requests.
    pub fn notices(&self) -> &ServerNotices {
        &self.notices
    }

    fn live(&self) -> Arc<Live> {
        Arc::clone(&self.live.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Why the server is not running, if it is not.
    pub fn not_running(&self) -> Option<String> {
        let live = self.live();
        live.state
            .closed_reason()
            .map(|reason| self.not_running_message(&live.state, &reason))
    }

    fn not_running_message(&self, state: &ServerState, reason: &str) -> String {
        format!(
            "MCP server {} is not running: {reason}{}. Nerve restarts it on the next call of one of its \
             tools (up to {MAX_RECONNECTS} times in a row)",
            self.target.name,
            state.stderr_suffix()
        )
    }

    /// The live connection, restarting the server first if it died (at most [`MAX_RECONNECTS`]
    /// times in a row, waiting longer before each).
    async fn usable(&self) -> Result<Arc<Live>, ToolError> {
        let live = self.live();
        let Some(reason) = live.state.closed_reason() else {
            return Ok(live);
        };
        if self.shut_down.load(Ordering::SeqCst) {
            return Err(ToolError::Failed(format!(
                "MCP server {} is not running: {reason}",
                self.target.name
            )));
        }
        let mut reconnects = self.reconnects.lock().await;
        // Another call may have restarted it while this one waited.
        let current = self.live();
        if current.state.closed_reason().is_none() {
            return Ok(current);
        }
        if reconnects.failed_in_a_row >= MAX_RECONNECTS {
            return Err(ToolError::Failed(format!(
                "MCP server {} stopped and could not be restarted ({MAX_RECONNECTS} attempts); its tools are \
                 unavailable for the rest of this session",
                self.target.name
            )));
        }
        if let Some(not_before) = reconnects.not_before {
            tokio::time::sleep_until(not_before.into()).await;
        }
        match connect(&self.target, &self.notices).await {
            Ok((live, _tools)) => {
                reconnects.failed_in_a_row = 0;
                reconnects.not_before = None;
                let live = Arc::new(live);
                *self.live.lock().unwrap_or_else(PoisonError::into_inner) = Arc::clone(&live);
                Ok(live)
            }
            Err(e) => {
                reconnects.failed_in_a_row += 1;
                let wait = FIRST_BACKOFF * 2u32.saturating_pow(reconnects.failed_in_a_row - 1);
                reconnects.not_before = Some(Instant::now() + wait);
                Err(ToolError::Failed(format!(
                    "MCP server {} stopped, and restarting it failed (attempt {} of {MAX_RECONNECTS}): {}",
                    self.target.name,
                    reconnects.failed_in_a_row,
                    e.message()
                )))
            }
        }
    }

    /// Calls `tool` with `arguments`; the server's progress notifications go to `progress`.
    /// Cancelling `cancel` sends the server `notifications/cancelled` and ends the call at once.
    pub async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        cancel: &CancellationToken,
        progress: Option<&ProgressSink>,
    ) -> Result<CallToolResult, ToolError> {
        let live = self.usable().await?;
        let what = format!("the call of `{tool}`");
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let handle = live
            .peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.call_error(&live, &what, e))?;
        // rmcp gives each request its own progress token; progress for it goes to this call.
        let key = token_key(&handle.progress_token);
        if let Some(sink) = progress {
            self.notices.follow(&key, sink.clone());
        }
        // The call may be dropped rather than cancelled (an interrupted turn): the guard tells the
        // server either way.
        let mut guard = CancelOnDrop {
            peer: Some(handle.peer.clone()),
            id: handle.id.clone(),
        };
        let response = handle.await_response();
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                Err(ToolError::Cancelled(format!(
                    "the call of `{tool}` on MCP server {} was cancelled", self.target.name
                )))
            }
            r = response => match r {
                Ok(ServerResult::CallToolResult(result)) => Ok(result),
                Ok(_) => Err(ToolError::Failed(format!(
                    "MCP server {} answered {what} with something other than a tool result",
                    self.target.name
                ))),
                Err(e) => Err(self.call_error(&live, &what, e)),
            },
        };
        if !matches!(result, Err(ToolError::Cancelled(_))) {
            guard.peer = None;
        }
        drop(guard);
        self.notices.unfollow(&key);
        result
    }

    /// The server's resources (empty when it offers none).
    pub async fn list_resources(&self) -> Result<Vec<RemoteResource>, ToolError> {
        let live = self.usable().await?;
        if live
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.resources.is_none())
        {
            return Ok(Vec::new());
        }
        live.peer
            .list_all_resources()
            .await
            .map_err(|e| self.call_error(&live, "listing its resources", e))
    }

    /// Reads the resource at `uri`.
    pub async fn read_resource(&self, uri: &str) -> Result<ReadResourceResult, ToolError> {
        let live = self.usable().await?;
        live.peer
            .read_resource(ReadResourceRequestParams::new(uri.to_string()))
            .await
            .map_err(|e| self.call_error(&live, &format!("reading the resource {uri}"), e))
    }

    /// The server's prompts (empty when it offers none).
    pub async fn list_prompts(&self) -> Result<Vec<RemotePrompt>, ToolError> {
        let live = self.usable().await?;
        if live
            .peer
            .peer_info()
            .is_some_and(|i| i.capabilities.prompts.is_none())
        {
            return Ok(Vec::new());
        }
        live.peer
            .list_all_prompts()
            .await
            .map_err(|e| self.call_error(&live, "listing its prompts", e))
    }

    /// Gets the prompt `name` with `arguments`.
    pub async fn get_prompt(&self, name: &str, arguments: JsonObject) -> Result<GetPromptResult, ToolError> {
        let live = self.usable().await?;
        let mut params = GetPromptRequestParams::new(name.to_string());
        if !arguments.is_empty() {
            params.arguments = Some(arguments);
        }
        live.peer
            .get_prompt(params)
            .await
            .map_err(|e| self.call_error(&live, &format!("getting the prompt `{name}`"), e))
    }

    /// The server's tools, listed again (after it said they changed).
    pub async fn list_tools(&self) -> Result<Vec<RemoteTool>, ToolError> {
        let live = self.usable().await?;
        live.peer
            .list_all_tools()
            .await
            .map_err(|e| self.call_error(&live, "listing its tools", e))
    }

    fn call_error(&self, live: &Live, what: &str, error: ServiceError) -> ToolError {
        if let Some(reason) = live.state.closed_reason() {
            return ToolError::Failed(self.not_running_message(&live.state, &reason));
        }
        if error.auth_challenge().is_some() {
            return ToolError::Failed(format!(
                "MCP server {} refused {what}: its sign-in expired or was revoked. Sign in again \
                 (`nerve mcp login {}`, or Sign in in the app's MCP settings)",
                self.target.name, self.target.name
            ));
        }
        match error {
            ServiceError::McpError(e) => ToolError::Failed(format!(
                "MCP server {} refused {what}: {} (JSON-RPC error {})",
                self.target.name, e.message, e.code.0
            )),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                live.state.mark_closed(&error.to_string());
                ToolError::Failed(self.not_running_message(&live.state, &error.to_string()))
            }
            other => ToolError::Failed(format!(
                "{what} on MCP server {} failed: {other}",
                self.target.name
            )),
        }
    }

    /// Closes the connection: a child's stdin is closed, the server gets a few seconds to exit,
    /// then it is killed; an HTTP session is ended.
    pub async fn shutdown(&self) {
        let live = self.live();
        let running = live.running.lock().await.take();
        if let Some(mut running) = running {
            let _ = running.close_with_timeout(SHUTDOWN_WAIT * 2).await;
        }
        live.state.stop_process_group();
        // No restart after an explicit shutdown.
        self.shut_down.store(true, Ordering::SeqCst);
        live.state.mark_closed("the connection was shut down");
    }
}

/// Connects once: the transport, the handshake and the tool list, within the timeout.
async fn connect(
    target: &ConnectTarget,
    notices: &Arc<ServerNotices>,
) -> Result<(Live, Vec<RemoteTool>), ConnectError> {
    let state = Arc::new(ServerState::default());
    let handler = NerveClient {
        notices: Arc::clone(notices),
    };
    let name = target.name.as_str();
    let attempt = async {
        match &target.transport {
            McpTransport::Stdio { command, args, env } => {
                let transport = spawn_child(name, command, args, env, &target.cwd, &state)?;
                handshake(name, handler, transport, &state)
                    .await
                    .map_err(HandshakeError::into_connect_error)
            }
            McpTransport::Http { url, headers } => {
                let headers = header_map(headers).map_err(|e| {
                    ConnectError::Failed(format!("MCP server `{name}` has an invalid header: {e}"))
                })?;
                let http = remote_client(name)?;
                let config = StreamableHttpClientTransportConfig::with_uri(url.as_str())
                    .custom_headers(header_hash_map(&headers));
                let plain = StreamableHttpClientTransport::with_client(http.clone(), config.clone());
                match handshake(name, handler.clone(), plain, &state).await {
                    Err(HandshakeError::AuthRequired) => {
                        state.reopen();
                        let secret = oauth::token_entry(&target.keyring_service, name, url);
                        let authorized = oauth::authorized_client(url, secret, http)
                            .await
                            .map_err(|e| ConnectError::NeedsSignIn(sign_in_message(name, &e.to_string())))?
                            .ok_or_else(|| {
                                ConnectError::NeedsSignIn(sign_in_message(name, "it needs an OAuth sign-in"))
                            })?;
                        let transport = StreamableHttpClientTransport::with_client(authorized, config);
                        match handshake(name, handler, transport, &state).await {
                            Err(HandshakeError::AuthRequired) => Err(ConnectError::NeedsSignIn(
                                sign_in_message(name, "the stored sign-in was refused (expired or revoked)"),
                            )),
                            other => other.map_err(HandshakeError::into_connect_error),
                        }
                    }
                    other => other.map_err(HandshakeError::into_connect_error),
                }
            }
            McpTransport::Sse { url, headers } => {
                let headers = header_map(headers).map_err(|e| {
                    ConnectError::Failed(format!("MCP server `{name}` has an invalid header: {e}"))
                })?;
                let http = remote_client(name)?;
                let transport = SseTransport::connect(http, url, headers).await.map_err(|e| {
                    ConnectError::Failed(format!("MCP server `{name}` could not be reached: {e}"))
                })?;
                handshake(name, handler, transport, &state)
                    .await
                    .map_err(HandshakeError::into_connect_error)
            }
            McpTransport::Unsupported { kind, .. } => Err(ConnectError::Failed(format!(
                "MCP server `{name}` uses the `{kind}` transport, which Nerve does not support; use \
                 stdio (\"command\"), \"http\" or \"sse\""
            ))),
        }
    };
    let (running, tools) = match tokio::time::timeout(target.timeout, attempt).await {
        Ok(result) => result?,
        Err(_) => {
            return Err(failure(
                name,
                "did not finish starting",
                format!(
                    "no answer within {} s, so it was stopped",
                    target.timeout.as_secs_f64()
                ),
                &state,
            ));
        }
    };
    let live = Live {
        peer: running.peer().clone(),
        state,
        running: tokio::sync::Mutex::new(Some(running)),
    };
    Ok((live, tools))
}

fn sign_in_message(name: &str, why: &str) -> String {
    format!(
        "MCP server `{name}` needs you to sign in ({why}): run `nerve mcp login {name}`, or press Sign in in the app's MCP settings"
    )
}

/// The HTTP client of a remote server: no pooled idle connections (rmcp's advice: a reused
/// connection after an unread body stalls ~40 ms on Linux), no redirects followed.
fn remote_client(name: &str) -> Result<reqwest::Client, ConnectError> {
    crate::http::client_builder()
        .pool_max_idle_per_host(0)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| ConnectError::Failed(format!("MCP server `{name}`: could not set up HTTP: {e}")))
}

fn spawn_child(
    name: &str,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: &Path,
    state: &Arc<ServerState>,
) -> Result<TokioChildProcess, ConnectError> {
    let mut cmd = tokio::process::Command::new(command);
    // The user's environment, then the server's own variables from its configuration.
    crate::child_env::as_user(cmd.as_std_mut());
    cmd.args(args).envs(env).current_dir(cwd);
    // Its own process group, signalled and killed whole: a server started through `npx`, `uvx` or
    // `sh -c` is a tree of processes, and killing only the first would leave the rest running
    // after Nerve.
    let mut wrapped = process_wrap::tokio::CommandWrap::from(cmd);
    wrapped
        .wrap(process_wrap::tokio::ProcessGroup::leader())
        .wrap(process_wrap::tokio::KillOnDrop);
    let (child, stderr) = TokioChildProcess::builder(wrapped)
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            ConnectError::Failed(format!(
                "MCP server `{name}` could not be started (`{command}`): {e}"
            ))
        })?;
    if let Some(pgid) = child.id() {
        *state.process_group.lock().unwrap_or_else(PoisonError::into_inner) =
            Some(crate::process_group::GroupKillGuard::new(pgid));
    }
    if let Some(stderr) = stderr {
        let state = Arc::clone(state);
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                state.push_stderr(line);
            }
        });
    }
    Ok(child)
}

enum HandshakeError {
    /// The server answered 401: it wants a token.
    AuthRequired,
    Other(ConnectError),
}

impl HandshakeError {
    fn into_connect_error(self) -> ConnectError {
        match self {
            Self::AuthRequired => ConnectError::NeedsSignIn("the server needs an OAuth sign-in".to_string()),
            Self::Other(e) => e,
        }
    }
}

/// `initialize`, then `tools/list`.
async fn handshake<T>(
    name: &str,
    handler: NerveClient,
    transport: T,
    state: &Arc<ServerState>,
) -> Result<(RunningService<RoleClient, NerveClient>, Vec<RemoteTool>), HandshakeError>
where
    T: Transport<RoleClient> + Send + 'static,
{
    let watched = Watched {
        inner: transport,
        state: Arc::clone(state),
    };
    let mut running = match handler.serve(watched).await {
        Ok(running) => running,
        Err(e) if e.auth_challenge().is_some() => return Err(HandshakeError::AuthRequired),
        Err(e) => {
            return Err(HandshakeError::Other(failure(
                name,
                "failed to initialize",
                e,
                state,
            )));
        }
    };
    match running.peer().list_all_tools().await {
        Ok(tools) => Ok((running, tools)),
        Err(e) => {
            let _ = running.close_with_timeout(SHUTDOWN_WAIT).await;
            Err(HandshakeError::Other(failure(
                name,
                "failed to list its tools",
                e,
                state,
            )))
        }
    }
}
