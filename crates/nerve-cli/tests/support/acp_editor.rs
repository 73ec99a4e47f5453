//! An editor for `nerve acp` to talk to, on the protocol's own client library (the
//! `agent-client-protocol` crate's client side): the tests' and the benchmarks' (which include this
//! file by path).
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{self as sdk, AcpAgent, Agent, Client};
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

pub type Asked = (
    acp::RequestPermissionRequest,
    Responder<acp::RequestPermissionResponse>,
);

/// What the client received, with when, kept for the test to read.
#[derive(Clone, Default)]
pub struct Received(Arc<Mutex<Vec<(Instant, acp::SessionUpdate)>>>);

impl Received {
    /// Keeps an update, stamped now.
    pub fn push(&self, update: acp::SessionUpdate) {
        self.0.lock().unwrap().push((Instant::now(), update));
    }

    /// The updates so far, in order (and forgets them).
    pub fn take(&self) -> Vec<acp::SessionUpdate> {
        self.take_timed().into_iter().map(|(_, u)| u).collect()
    }

    /// [`Self::take`] with when each arrived.
    pub fn take_timed(&self) -> Vec<(Instant, acp::SessionUpdate)> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }

    /// The updates so far, left in place.
    pub fn peek(&self) -> Vec<acp::SessionUpdate> {
        self.0.lock().unwrap().iter().map(|(_, u)| u.clone()).collect()
    }
}

/// An editor's side of the file system and terminal methods, as Zed does them: reads answer from
/// the editor's buffers (unsaved text included), writes replace the buffer and save it, terminals
/// run the command line they are given in a process group of their own and keep its output.
#[derive(Clone, Default)]
pub struct TestEditor {
    /// Buffers with unsaved text, by path.
    pub unsaved: Arc<Mutex<HashMap<PathBuf, String>>>,
    /// Every request the agent made of the editor, in order.
    pub log: Arc<Mutex<Vec<EditorRequest>>>,
    terminals: Arc<Mutex<HashMap<String, TestTerminal>>>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EditorRequest {
    Read(PathBuf),
    Write(PathBuf, String),
    Create {
        program: String,
        args: Vec<String>,
        cwd: Option<PathBuf>,
        env: Vec<(String, String)>,
    },
    Kill(String),
    Release(String),
}

#[derive(Clone)]
struct TestTerminal {
    output: Arc<Mutex<String>>,
    exit: tokio::sync::watch::Receiver<Option<acp::TerminalExitStatus>>,
    pgid: u32,
}

impl TestEditor {
    fn logged(&self, request: EditorRequest) {
        self.log.lock().unwrap().push(request);
    }

    fn read(&self, req: &acp::ReadTextFileRequest) -> Result<acp::ReadTextFileResponse, sdk::Error> {
        self.logged(EditorRequest::Read(req.path.clone()));
        let unsaved = self.unsaved.lock().unwrap().get(&req.path).cloned();
        let text = match unsaved {
            Some(text) => text,
            None => std::fs::read_to_string(&req.path)
                .map_err(|e| sdk::Error::invalid_params().data(e.to_string()))?,
        };
        Ok(acp::ReadTextFileResponse::new(text))
    }

    fn write(&self, req: &acp::WriteTextFileRequest) -> Result<acp::WriteTextFileResponse, sdk::Error> {
        self.logged(EditorRequest::Write(req.path.clone(), req.content.clone()));
        self.unsaved.lock().unwrap().remove(&req.path);
        std::fs::write(&req.path, &req.content).map_err(sdk::Error::into_internal_error)?;
        Ok(acp::WriteTextFileResponse::new())
    }

    fn create(&self, req: &acp::CreateTerminalRequest) -> Result<acp::CreateTerminalResponse, sdk::Error> {
        self.logged(EditorRequest::Create {
            program: req.command.clone(),
            args: req.args.clone(),
            cwd: req.cwd.clone(),
            env: req
                .env
                .iter()
                .map(|v| (v.name.clone(), v.value.clone()))
                .collect(),
        });
        let mut command = tokio::process::Command::new(&req.command);
        command
            .args(&req.args)
            .envs(req.env.iter().map(|v| (&v.name, &v.value)))
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .process_group(0);
        if let Some(cwd) = &req.cwd {
            command.current_dir(cwd);
        }
        let mut child = command.spawn().map_err(sdk::Error::into_internal_error)?;
        let output = Arc::new(Mutex::new(String::new()));
        let mut readers = Vec::new();
        for stream in [
            child
                .stdout
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
            child
                .stderr
                .take()
                .map(|s| Box::new(s) as Box<dyn tokio::io::AsyncRead + Unpin + Send>),
        ]
        .into_iter()
        .flatten()
        {
            let output = Arc::clone(&output);
            readers.push(tokio::spawn(async move {
                use tokio::io::AsyncReadExt;
                let mut stream = stream;
                let mut buf = [0u8; 4096];
                while let Ok(n) = stream.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    output
                        .lock()
                        .unwrap()
                        .push_str(&String::from_utf8_lossy(&buf[..n]));
                }
            }));
        }
        let pgid = child.id().unwrap();
        let (exit_tx, exit) = tokio::sync::watch::channel(None);
        tokio::spawn(async move {
            use std::os::unix::process::ExitStatusExt;
            let status = child.wait().await.unwrap();
            for reader in readers {
                let _ = reader.await;
            }
            let status = match (status.code(), status.signal()) {
                (Some(code), _) => acp::TerminalExitStatus::new().exit_code(code as u32),
                (None, Some(9)) => acp::TerminalExitStatus::new().signal("SIGKILL".to_string()),
                (None, signal) => acp::TerminalExitStatus::new().signal(format!("{}", signal.unwrap_or(0))),
            };
            let _ = exit_tx.send(Some(status));
        });
        let id = format!("term-{}", self.terminals.lock().unwrap().len() + 1);
        self.terminals
            .lock()
            .unwrap()
            .insert(id.clone(), TestTerminal { output, exit, pgid });
        Ok(acp::CreateTerminalResponse::new(id))
    }

    fn terminal(&self, id: &acp::TerminalId) -> Result<TestTerminal, sdk::Error> {
        self.terminals
            .lock()
            .unwrap()
            .get(&*id.0)
            .cloned()
            .ok_or_else(|| sdk::Error::invalid_params().data(format!("no terminal {}", id.0)))
    }
}

/// Runs `body` as an editor connected to `nerve acp`, collecting updates into `received`, passing
/// permission requests to the body, and serving the file system and terminal methods from `editor`
/// (whether they are offered is up to the body's `initialize`).
pub async fn connect_editor<F>(
    agent: AcpAgent,
    received: Received,
    editor: TestEditor,
    body: F,
) -> Result<(), sdk::Error>
where
    F: AsyncFnOnce(ConnectionTo<Agent>, UnboundedReceiver<Asked>) -> Result<(), sdk::Error> + Send,
{
    let (asked_tx, asked_rx) = unbounded_channel::<Asked>();
    let (reads, writes, creates, outputs, waits, kills, releases) = (
        editor.clone(),
        editor.clone(),
        editor.clone(),
        editor.clone(),
        editor.clone(),
        editor.clone(),
        editor,
    );
    let run = Client
        .v1()
        .on_receive_notification(
            async move |n: acp::SessionNotification, _cx: ConnectionTo<Agent>| {
                received.push(n.update);
                Ok(())
            },
            sdk::on_receive_notification!(),
        )
        .on_receive_request(
            async move |req: acp::RequestPermissionRequest,
                        r: Responder<acp::RequestPermissionResponse>,
                        _cx: ConnectionTo<Agent>| {
                asked_tx.send((req, r)).map_err(sdk::Error::into_internal_error)
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::ReadTextFileRequest,
                        r: Responder<acp::ReadTextFileResponse>,
                        _cx: ConnectionTo<Agent>| { r.respond_with_result(reads.read(&req)) },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::WriteTextFileRequest,
                        r: Responder<acp::WriteTextFileResponse>,
                        _cx: ConnectionTo<Agent>| { r.respond_with_result(writes.write(&req)) },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::CreateTerminalRequest,
                        r: Responder<acp::CreateTerminalResponse>,
                        _cx: ConnectionTo<Agent>| { r.respond_with_result(creates.create(&req)) },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::TerminalOutputRequest,
                        r: Responder<acp::TerminalOutputResponse>,
                        _cx: ConnectionTo<Agent>| {
                let terminal = outputs.terminal(&req.terminal_id)?;
                let text = terminal.output.lock().unwrap().clone();
                let exit = terminal.exit.borrow().clone();
                r.respond(acp::TerminalOutputResponse::new(text, false).exit_status(exit))
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::WaitForTerminalExitRequest,
                        r: Responder<acp::WaitForTerminalExitResponse>,
                        cx: ConnectionTo<Agent>| {
                let mut exit = waits.terminal(&req.terminal_id)?.exit;
                // Waiting must not hold up the connection (the agent kills while it waits).
                cx.spawn(async move {
                    let status = loop {
                        if let Some(status) = exit.borrow().clone() {
                            break status;
                        }
                        if exit.changed().await.is_err() {
                            break acp::TerminalExitStatus::new();
                        }
                    };
                    let _ = r.respond(acp::WaitForTerminalExitResponse::new(status));
                    Ok(())
                })
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::KillTerminalRequest,
                        r: Responder<acp::KillTerminalResponse>,
                        _cx: ConnectionTo<Agent>| {
                kills.logged(EditorRequest::Kill(req.terminal_id.0.to_string()));
                let terminal = kills.terminal(&req.terminal_id)?;
                // As closing a terminal does: the whole process group goes.
                let _ = std::process::Command::new("kill")
                    .args(["-KILL", "--", &format!("-{}", terminal.pgid)])
                    .status();
                r.respond(acp::KillTerminalResponse::new())
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            async move |req: acp::ReleaseTerminalRequest,
                        r: Responder<acp::ReleaseTerminalResponse>,
                        _cx: ConnectionTo<Agent>| {
                releases.logged(EditorRequest::Release(req.terminal_id.0.to_string()));
                r.respond(acp::ReleaseTerminalResponse::new())
            },
            sdk::on_receive_request!(),
        )
        .connect_with(agent, async move |cx: ConnectionTo<Agent>| {
            body(cx, asked_rx).await
        });
    tokio::time::timeout(Duration::from_secs(60), run)
        .await
        .expect("the ACP session took over a minute")
}
