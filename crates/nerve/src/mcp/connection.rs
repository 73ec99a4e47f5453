//! One live connection to a stdio MCP server: start it, `initialize`, `tools/list`, call tools,
//! notice when it dies, shut it down.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, Implementation, JsonObject,
};
use rmcp::service::{Peer, RoleClient, RunningService, RxJsonRpcMessage, ServiceError, TxJsonRpcMessage};
use rmcp::transport::{TokioChildProcess, Transport};
use rmcp::{ServiceExt, model::Tool as RemoteTool};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;

use crate::mcp::config::McpTransport;
use crate::tool::ToolError;

/// How many of the server's last stderr lines are kept for error messages.
const STDERR_TAIL_LINES: usize = 10;
/// How long a shutdown waits for the server to exit before it is killed.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// What is known about the server process, shared with the transport and the stderr reader.
#[derive(Default)]
struct ServerState {
    /// Why the connection ended; `None` while it is up.
    closed: Mutex<Option<String>>,
    stderr_tail: Mutex<VecDeque<String>>,
}

impl ServerState {
    fn mark_closed(&self, reason: &str) {
        let mut closed = self.closed.lock().unwrap_or_else(PoisonError::into_inner);
        if closed.is_none() {
            *closed = Some(reason.to_string());
        }
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
            let lines: Vec<&str> = tail.iter().map(String::as_str).collect();
            format!("; its last stderr lines:\n{}", lines.join("\n"))
        }
    }
}

/// The child-process transport, watched: end of output marks the server as gone, so later calls
/// fail at once with a clear message instead of a generic "transport closed".
struct WatchedChild {
    inner: TokioChildProcess,
    state: Arc<ServerState>,
}

impl Transport<RoleClient> for WatchedChild {
    type Error = std::io::Error;

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
                state.mark_closed("the server closed its output (the process exited or crashed)");
            }
            message
        }
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.state.mark_closed("the connection was shut down");
        self.inner.close()
    }
}

/// A connected server.
pub struct McpConnection {
    name: String,
    peer: Peer<RoleClient>,
    state: Arc<ServerState>,
    running: tokio::sync::Mutex<Option<RunningService<RoleClient, ClientConfig>>>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection").field("name", &self.name).finish()
    }
}

impl McpConnection {
    /// Starts the server, initialises the session and lists its tools, all within `timeout`. The
    /// child is killed if any step fails or the time runs out (and, as a last resort, when its
    /// handle is dropped).
    pub async fn start(
        name: &str,
        transport: &McpTransport,
        cwd: &Path,
        timeout: Duration,
    ) -> Result<(Arc<Self>, Vec<RemoteTool>), String> {
        let (command, args, env) = match transport {
            McpTransport::Stdio { command, args, env } => (command, args, env),
            McpTransport::Unsupported { kind, .. } => {
                return Err(format!(
                    "MCP server `{name}` uses the `{kind}` transport, which Nerve does not support yet; \
                     only stdio servers (\"command\" and \"args\") can be used for now"
                ));
            }
        };
        let mut cmd = tokio::process::Command::new(command);
        cmd.args(args).envs(env).current_dir(cwd).kill_on_drop(true);
        let (child, stderr) = TokioChildProcess::builder(cmd)
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| format!("MCP server `{name}` could not be started (`{command}`): {e}"))?;
        let state = Arc::new(ServerState::default());
        if let Some(stderr) = stderr {
            let state = Arc::clone(&state);
            tokio::spawn(async move {
                let mut lines = BufReader::new(stderr).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    state.push_stderr(line);
                }
            });
        }
        let watched = WatchedChild {
            inner: child,
            state: Arc::clone(&state),
        };
        let handshake = async {
            // Nerve answers no server requests (sampling, elicitation, roots): it offers no capability.
            let identity = ClientConfig::new(
                ClientCapabilities::default(),
                Implementation::new("nerve", env!("CARGO_PKG_VERSION")),
            );
            let running = identity.serve(watched).await.map_err(|e| e.to_string())?;
            let tools = running.peer().list_all_tools().await.map_err(|e| e.to_string());
            Ok::<_, String>((running, tools))
        };
        let (running, tools) = match tokio::time::timeout(timeout, handshake).await {
            Ok(Ok((running, Ok(tools)))) => (running, tools),
            Ok(Ok((mut running, Err(e)))) => {
                let _ = running.close_with_timeout(SHUTDOWN_WAIT).await;
                return Err(format!(
                    "MCP server `{name}` failed to list its tools: {e}{}",
                    state.stderr_suffix()
                ));
            }
            Ok(Err(e)) => {
                return Err(format!(
                    "MCP server `{name}` failed to initialize: {e}{}",
                    state.stderr_suffix()
                ));
            }
            Err(_) => {
                return Err(format!(
                    "MCP server `{name}` did not finish starting within {} s and was stopped{}",
                    timeout.as_secs_f64(),
                    state.stderr_suffix()
                ));
            }
        };
        let connection = Arc::new(Self {
            name: name.to_string(),
            peer: running.peer().clone(),
            state,
            running: tokio::sync::Mutex::new(Some(running)),
        });
        Ok((connection, tools))
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Why the server is not running, if it is not.
    pub fn not_running(&self) -> Option<String> {
        self.state
            .closed_reason()
            .map(|reason| self.not_running_message(&reason))
    }

    fn not_running_message(&self, reason: &str) -> String {
        format!(
            "MCP server {} is not running: {reason}{}. Its tools are unavailable for the rest of \
             this session; use other tools or ask the user to restart the session",
            self.name,
            self.state.stderr_suffix()
        )
    }

    /// Calls `tool` with `arguments`. Cancelling `cancel` drops the request, which sends the
    /// server `notifications/cancelled`.
    pub async fn call(
        &self,
        tool: &str,
        arguments: JsonObject,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, ToolError> {
        if let Some(message) = self.not_running() {
            return Err(ToolError::Failed(message));
        }
        let mut params = CallToolRequestParams::new(tool.to_string());
        params.arguments = Some(arguments);
        let call = self.peer.call_tool(params);
        let result = tokio::select! {
            biased;
            () = cancel.cancelled() => {
                return Err(ToolError::Cancelled(format!(
                    "the call of `{tool}` on MCP server {} was cancelled", self.name
                )));
            }
            r = call => r,
        };
        result.map_err(|e| self.call_error(tool, e))
    }

    fn call_error(&self, tool: &str, error: ServiceError) -> ToolError {
        if let Some(message) = self.not_running() {
            return ToolError::Failed(message);
        }
        match error {
            ServiceError::McpError(e) => ToolError::Failed(format!(
                "MCP server {} refused the call of `{tool}`: {} (JSON-RPC error {})",
                self.name, e.message, e.code.0
            )),
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
                self.state.mark_closed(&error.to_string());
                ToolError::Failed(self.not_running_message(&error.to_string()))
            }
            other => ToolError::Failed(format!(
                "the call of `{tool}` on MCP server {} failed: {other}",
                self.name
            )),
        }
    }

    /// Closes the connection: stdin is closed, the server gets a few seconds to exit, then it is
    /// killed.
    pub async fn shutdown(&self) {
        let running = self.running.lock().await.take();
        if let Some(mut running) = running {
            let _ = running.close_with_timeout(SHUTDOWN_WAIT * 2).await;
        }
        self.state.mark_closed("the connection was shut down");
    }
}
