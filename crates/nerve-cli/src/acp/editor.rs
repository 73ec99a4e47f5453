//! The client's file system and terminals, for the engine's file tools and Bash (the engine's
//! [`nerve::tool::Editor`] seam), over `fs/read_text_file`, `fs/write_text_file` and the
//! `terminal/*` methods, each used only when the client offered it in `initialize`.
//!
//! A client on another machine (`ssh HOST nerve acp`: sshd sets `SSH_CONNECTION`) has other files
//! and runs its terminals elsewhere, so there the session keeps to its own machine's disk and
//! shell. `NERVE_ACP_CLIENT_TOOLS=0` does the same anywhere, `=1` uses what the client offers even
//! over ssh (a client that forwards to the same machine).

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::{self as sdk, Client};
use async_trait::async_trait;
use nerve::session::editor::{Editor, EditorError, TerminalCommand, TerminalEnd, TerminalRun};
use tokio_util::sync::CancellationToken;

/// How long a file or terminal request may go unanswered before the engine gives up on it (a
/// command's own run is bounded by its timeout instead).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

/// What of the client's file system and terminals the sessions use.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(super) struct ClientOffer {
    pub read: bool,
    pub write: bool,
    pub terminal: bool,
}

impl ClientOffer {
    /// What the client offered, unless it is on another machine or the user said otherwise
    /// (`var` reads the environment).
    pub fn from_capabilities(caps: &acp::ClientCapabilities, var: impl Fn(&str) -> Option<String>) -> Self {
        let offered = Self {
            read: caps.fs.read_text_file,
            write: caps.fs.write_text_file,
            terminal: caps.terminal,
        };
        let usable = match var("NERVE_ACP_CLIENT_TOOLS").as_deref().map(str::trim) {
            Some("0" | "false" | "off") => false,
            Some("1" | "true" | "on") => true,
            _ => var("SSH_CONNECTION").is_none_or(|v| v.trim().is_empty()),
        };
        if usable { offered } else { Self::default() }
    }

    pub fn any(self) -> bool {
        self.read || self.write || self.terminal
    }
}

/// The terminal each tool call ran in, so its card keeps showing it when the call completes.
#[derive(Debug, Default, Clone)]
pub(super) struct Terminals(Arc<Mutex<HashMap<String, acp::TerminalId>>>);

impl Terminals {
    /// The terminal the call `tool_use_id` ran in, forgotten once asked for.
    pub fn take(&self, tool_use_id: &str) -> Option<acp::TerminalId> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(tool_use_id)
    }

    fn insert(&self, tool_use_id: &str, id: acp::TerminalId) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(tool_use_id.to_string(), id);
    }
}

/// One session's view of the client.
pub(super) struct AcpEditor {
    client: ConnectionTo<Client>,
    session_id: acp::SessionId,
    offer: ClientOffer,
    pub terminals: Terminals,
}

impl std::fmt::Debug for AcpEditor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AcpEditor")
            .field("session_id", &self.session_id.0)
            .field("offer", &self.offer)
            .finish_non_exhaustive()
    }
}

impl AcpEditor {
    pub fn new(client: ConnectionTo<Client>, session_id: acp::SessionId, offer: ClientOffer) -> Self {
        Self {
            client,
            session_id,
            offer,
            terminals: Terminals::default(),
        }
    }

    /// Sends `request` and waits for the answer, at most [`REQUEST_TIMEOUT`].
    async fn ask<R>(&self, request: R, action: &'static str, path: &Path) -> Result<R::Response, EditorError>
    where
        R: sdk::JsonRpcRequest,
        R::Response: Send,
    {
        let failed = |message: String| EditorError {
            action,
            path: path.display().to_string(),
            message,
        };
        match tokio::time::timeout(REQUEST_TIMEOUT, self.client.send_request(request).block_task()).await {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(failed(e.to_string())),
            Err(_) => Err(failed(format!("no answer in {} s", REQUEST_TIMEOUT.as_secs()))),
        }
    }

    fn show_terminal(&self, tool_use_id: &str, id: &acp::TerminalId) {
        self.terminals.insert(tool_use_id, id.clone());
        let update = acp::ToolCallUpdate::new(
            tool_use_id.to_string(),
            acp::ToolCallUpdateFields::new().content(vec![terminal_content(id)]),
        );
        if let Err(e) = self.client.send_notification(acp::SessionNotification::new(
            self.session_id.clone(),
            acp::SessionUpdate::ToolCallUpdate(update),
        )) {
            tracing::warn!("the terminal could not be shown in its call: {e}");
        }
    }
}

/// A tool call's content that shows the terminal `id`.
pub(super) fn terminal_content(id: &acp::TerminalId) -> acp::ToolCallContent {
    acp::ToolCallContent::Terminal(acp::Terminal::new(id.clone()))
}

#[async_trait]
impl Editor for AcpEditor {
    fn can_read(&self) -> bool {
        self.offer.read
    }

    fn can_write(&self) -> bool {
        self.offer.write
    }

    fn can_run_commands(&self) -> bool {
        self.offer.terminal
    }

    async fn read_text(&self, path: &Path) -> Result<String, EditorError> {
        let request = acp::ReadTextFileRequest::new(self.session_id.clone(), path.to_path_buf());
        Ok(self.ask(request, "read", path).await?.content)
    }

    async fn write_text(&self, path: &Path, text: &str) -> Result<(), EditorError> {
        let request = acp::WriteTextFileRequest::new(self.session_id.clone(), path.to_path_buf(), text);
        self.ask(request, "write", path).await.map(|_| ())
    }

    async fn run_in_terminal(
        &self,
        tool_use_id: &str,
        command: TerminalCommand,
        stop: CancellationToken,
    ) -> Result<TerminalRun, EditorError> {
        let program = command.program.clone();
        let request = acp::CreateTerminalRequest::new(self.session_id.clone(), program.display().to_string())
            .args(command.args)
            .env(
                command
                    .env
                    .into_iter()
                    .map(|(name, value)| acp::EnvVariable::new(name, value))
                    .collect(),
            )
            .cwd(command.cwd)
            .output_byte_limit(command.output_byte_limit);
        let id = self.ask(request, "run", &program).await?.terminal_id;
        self.show_terminal(tool_use_id, &id);
        let sid = self.session_id.clone();
        let wait = self
            .client
            .send_request(acp::WaitForTerminalExitRequest::new(sid.clone(), id.clone()))
            .block_task();
        let end = tokio::select! {
            waited = wait => match waited {
                Ok(exit) => Ok(end_of(&exit.exit_status)),
                Err(e) => Err(EditorError {
                    action: "run",
                    path: program.display().to_string(),
                    message: format!("waiting for the terminal failed: {e}"),
                }),
            },
            () = stop.cancelled() => {
                if let Err(e) = self.ask(acp::KillTerminalRequest::new(sid.clone(), id.clone()), "run", &program).await {
                    tracing::warn!("the terminal could not be killed: {e}");
                }
                Ok(TerminalEnd::Stopped)
            }
        };
        let output = match &end {
            Ok(_) => Some(
                self.ask(
                    acp::TerminalOutputRequest::new(sid.clone(), id.clone()),
                    "run",
                    &program,
                )
                .await,
            ),
            Err(_) => None,
        };
        // Released whatever happened: the client frees it (and kills what still runs), and keeps
        // showing its output in the call's card.
        if let Err(e) = self
            .ask(acp::ReleaseTerminalRequest::new(sid, id), "run", &program)
            .await
        {
            tracing::warn!("the terminal could not be released: {e}");
        }
        let end = end?;
        let output = output.transpose()?;
        let (output, truncated) = output.map_or((String::new(), false), |o| (o.output, o.truncated));
        Ok(TerminalRun {
            output,
            truncated,
            end,
        })
    }
}

/// How the client says the command ended, in the engine's terms.
fn end_of(status: &acp::TerminalExitStatus) -> TerminalEnd {
    match (&status.signal, status.exit_code) {
        (Some(signal), _) => TerminalEnd::Signalled(signal.clone()),
        (None, Some(code)) => TerminalEnd::Exited(code),
        // Neither: the client could not tell; it did not succeed.
        (None, None) => TerminalEnd::Exited(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caps(read: bool, write: bool, terminal: bool) -> acp::ClientCapabilities {
        acp::ClientCapabilities::new()
            .fs(acp::FileSystemCapabilities::new()
                .read_text_file(read)
                .write_text_file(write))
            .terminal(terminal)
    }

    #[test]
    fn what_the_client_offers_is_used_unless_it_is_on_another_machine_or_the_user_says_not() {
        let none = |_: &str| None;
        let all = ClientOffer {
            read: true,
            write: true,
            terminal: true,
        };
        assert_eq!(ClientOffer::from_capabilities(&caps(true, true, true), none), all);
        assert_eq!(
            ClientOffer::from_capabilities(&caps(true, false, false), none),
            ClientOffer {
                read: true,
                ..ClientOffer::default()
            }
        );
        let over_ssh =
            |name: &str| (name == "SSH_CONNECTION").then(|| "10.0.0.2 5555 10.0.0.1 22".to_string());
        assert_eq!(
            ClientOffer::from_capabilities(&caps(true, true, true), over_ssh),
            ClientOffer::default()
        );
        let forced = |name: &str| match name {
            "SSH_CONNECTION" => Some("10.0.0.2 5555 10.0.0.1 22".to_string()),
            "NERVE_ACP_CLIENT_TOOLS" => Some("1".to_string()),
            _ => None,
        };
        assert_eq!(
            ClientOffer::from_capabilities(&caps(true, true, true), forced),
            all
        );
        let off = |name: &str| (name == "NERVE_ACP_CLIENT_TOOLS").then(|| "0".to_string());
        assert_eq!(
            ClientOffer::from_capabilities(&caps(true, true, true), off),
            ClientOffer::default()
        );
    }

    #[test]
    fn exit_statuses_are_read_as_the_client_gives_them() {
        assert_eq!(
            end_of(&acp::TerminalExitStatus::new().exit_code(3)),
            TerminalEnd::Exited(3)
        );
        assert_eq!(
            end_of(&acp::TerminalExitStatus::new().signal("SIGTERM".to_string())),
            TerminalEnd::Signalled("SIGTERM".into())
        );
        assert_eq!(end_of(&acp::TerminalExitStatus::new()), TerminalEnd::Exited(1));
    }
}
