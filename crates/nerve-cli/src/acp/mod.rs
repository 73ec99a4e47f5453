//! `nerve acp`: Nerve as an agent of the Agent Client Protocol over stdin and stdout, so an editor
//! that hosts ACP agents (Zed, JetBrains, Neovim and Emacs clients) runs Nerve's sessions with
//! Nerve's own tools, permission rules and sandbox. `ssh HOST nerve acp` runs the same on another
//! machine.
//!
//! Each ACP session is a [`nerve::Session`] (the front door: nothing here assembles a session of
//! its own). A turn's events become `session/update` notifications (text, thinking, tool calls
//! with their kind, diff and files, the plan from TodoWrite, mode changes); a call that would ask
//! becomes `session/request_permission`, the client's choice the session's answer (allow once,
//! always with the rules the engine suggests, or reject); `session/cancel` aborts the turn, which
//! then ends `cancelled`; `session/load` resumes a saved session and replays it.
//!
//! When the client offers its file system and terminals (`initialize`), the session uses them
//! ([`editor`]): Read, Edit and Write consult and write through the editor's buffers, and a
//! foreground Bash command runs in one of its terminals, shown live in the call's card.
//!
//! stdout is the protocol: nothing else may be written there (logs go to stderr).

mod convert;
mod editor;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema as acp;
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{self as sdk, Agent, Client, Stdio};
use editor::{AcpEditor, ClientOffer};
use nerve::session::{Asker, EventSink, ModelServer, SessionOptions};
use nerve_protocol::Event;
use nerve_protocol::prompt::CommandSource;

/// The sessions this connection opened or loaded, by id.
#[derive(Default)]
struct Sessions(Mutex<HashMap<String, Arc<Live>>>);

/// An open session, the folder it works in and the client's part in it.
struct Live {
    session: nerve::Session,
    cwd: PathBuf,
    editor: Option<Arc<AcpEditor>>,
}

impl Sessions {
    fn get(&self, id: &acp::SessionId) -> Result<Arc<Live>, sdk::Error> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&*id.0)
            .cloned()
            .ok_or_else(|| sdk::Error::invalid_params().data(format!("no open session {}", id.0)))
    }

    fn insert(&self, live: Arc<Live>) {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(live.session.id().to_string(), live);
    }

    fn all(&self) -> Vec<Arc<Live>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .values()
            .cloned()
            .collect()
    }
}

/// An error for the client, with what went wrong in words.
fn failure(message: impl std::fmt::Display) -> sdk::Error {
    sdk::Error::new(sdk::ErrorCode::INTERNAL_ERROR, message.to_string())
}

/// Serves the protocol on stdin and stdout until the client closes stdin.
pub async fn run() -> anyhow::Result<()> {
    let sessions = Arc::new(Sessions::default());
    // What the client offered of its file system and terminals, read at `initialize`.
    let offer = Arc::new(Mutex::new(ClientOffer::default()));
    let result = Agent
        .v1()
        .name("nerve")
        .on_receive_request(
            {
                let offer = Arc::clone(&offer);
                async move |req: acp::InitializeRequest,
                            r: Responder<acp::InitializeResponse>,
                            _cx: ConnectionTo<Client>| {
                    *offer.lock().unwrap_or_else(std::sync::PoisonError::into_inner) =
                        ClientOffer::from_capabilities(&req.client_capabilities, |name| {
                            std::env::var(name).ok()
                        });
                    r.respond(
                        acp::InitializeResponse::new(ProtocolVersion::V1)
                            .agent_capabilities(
                                acp::AgentCapabilities::new()
                                    .load_session(true)
                                    .prompt_capabilities(
                                        acp::PromptCapabilities::new().image(true).embedded_context(true),
                                    ),
                            )
                            .agent_info(acp::Implementation::new("nerve", env!("NERVE_VERSION"))),
                    )
                }
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = Arc::clone(&sessions);
                let offer = Arc::clone(&offer);
                async move |req: acp::NewSessionRequest,
                            r: Responder<acp::NewSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let sessions = Arc::clone(&sessions);
                    let client = cx.clone();
                    let offer = *offer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    cx.spawn(async move {
                        let id = acp::SessionId::new(uuid::Uuid::new_v4().to_string());
                        match open(&client, offer, req.cwd, id, false).await {
                            Ok(live) => {
                                let id = acp::SessionId::new(live.session.id().to_string());
                                let mode = live
                                    .session
                                    .mode()
                                    .unwrap_or(nerve_protocol::PermissionMode::Default);
                                sessions.insert(Arc::clone(&live));
                                let _ = r.respond(
                                    acp::NewSessionResponse::new(id.clone()).modes(convert::modes(mode)),
                                );
                                let _ = announce_commands(&client, &id, &live);
                            }
                            Err(e) => {
                                let _ = r.respond_with_error(failure(format!("{e:#}")));
                            }
                        }
                        Ok(())
                    })
                }
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = Arc::clone(&sessions);
                let offer = Arc::clone(&offer);
                async move |req: acp::LoadSessionRequest,
                            r: Responder<acp::LoadSessionResponse>,
                            cx: ConnectionTo<Client>| {
                    let sessions = Arc::clone(&sessions);
                    let client = cx.clone();
                    let offer = *offer.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    cx.spawn(async move {
                        match load(&client, offer, &req).await {
                            Ok(live) => {
                                let mode = live
                                    .session
                                    .mode()
                                    .unwrap_or(nerve_protocol::PermissionMode::Default);
                                sessions.insert(Arc::clone(&live));
                                let _ =
                                    r.respond(acp::LoadSessionResponse::new().modes(convert::modes(mode)));
                                let _ = announce_commands(&client, &req.session_id, &live);
                            }
                            Err(e) => {
                                let _ = r.respond_with_error(e);
                            }
                        }
                        Ok(())
                    })
                }
            },
            sdk::on_receive_request!(),
        )
        .on_receive_request(
            {
                let sessions = Arc::clone(&sessions);
                async move |req: acp::PromptRequest,
                            r: Responder<acp::PromptResponse>,
                            cx: ConnectionTo<Client>| {
                    let live = sessions.get(&req.session_id)?;
                    let client = cx.clone();
                    // The turn runs outside the dispatch loop, so cancel and the permission
                    // answers are read while it runs.
                    cx.spawn(async move {
                        let _ = r.respond_with_result(prompt(&client, live, req).await);
                        Ok(())
                    })
                }
            },
            sdk::on_receive_request!(),
        )
        .on_receive_notification(
            {
                let sessions = Arc::clone(&sessions);
                async move |n: acp::CancelNotification, _cx: ConnectionTo<Client>| {
                    if let Ok(live) = sessions.get(&n.session_id) {
                        live.session.abort();
                    }
                    Ok(())
                }
            },
            sdk::on_receive_notification!(),
        )
        .on_receive_request(
            {
                let sessions = Arc::clone(&sessions);
                async move |req: acp::SetSessionModeRequest,
                            r: Responder<acp::SetSessionModeResponse>,
                            cx: ConnectionTo<Client>| {
                    let live = sessions.get(&req.session_id)?;
                    let mode: nerve_protocol::PermissionMode = req
                        .mode_id
                        .0
                        .parse()
                        .map_err(|e| sdk::Error::invalid_params().data(format!("{e}")))?;
                    let now = live.session.set_mode(mode).map_err(failure)?;
                    r.respond(acp::SetSessionModeResponse::new())?;
                    cx.send_notification(acp::SessionNotification::new(
                        req.session_id,
                        acp::SessionUpdate::CurrentModeUpdate(acp::CurrentModeUpdate::new(
                            now.as_str().to_string(),
                        )),
                    ))
                }
            },
            sdk::on_receive_request!(),
        )
        .connect_to(Stdio::new())
        .await;
    for live in sessions.all() {
        live.session.close().await;
    }
    result.map_err(|e| anyhow::anyhow!("the ACP connection failed: {e}"))
}

/// Opens the project at `cwd` and starts (or, with `resume`, resumes) the session `id` in it,
/// whose permission requests go to the client and whose files and commands use what the client
/// offered.
async fn open(
    client: &ConnectionTo<Client>,
    offer: ClientOffer,
    cwd: PathBuf,
    id: acp::SessionId,
    resume: bool,
) -> anyhow::Result<Arc<Live>> {
    let project = nerve::Project::open(nerve::project::ProjectOptions::new(&cwd))?;
    let mut options = SessionOptions::new(EventSink::discard());
    if resume {
        options.resume = Some(id.0.to_string());
    } else {
        options.session_id = Some(id.0.to_string());
    }
    let editor = offer
        .any()
        .then(|| Arc::new(AcpEditor::new(client.clone(), id, offer)));
    options.editor = editor
        .clone()
        .map(|e| e as Arc<dyn nerve::session::editor::Editor>);
    options.server = ModelServer::Configured {
        base_url: None,
        custom_headers: None,
        provider: None,
    };
    options.asker = Asker::Person;
    let session = nerve::Session::start(project, options).await?;
    for warning in session.warnings() {
        tracing::warn!("{warning}");
    }
    Ok(Arc::new(Live { session, cwd, editor }))
}

/// Resumes a saved session and replays its conversation to the client (before the response, as
/// the protocol asks).
async fn load(
    client: &ConnectionTo<Client>,
    offer: ClientOffer,
    req: &acp::LoadSessionRequest,
) -> Result<Arc<Live>, sdk::Error> {
    let live = open(client, offer, req.cwd.clone(), req.session_id.clone(), true)
        .await
        .map_err(|e| failure(format!("{e:#}")))?;
    let state = live.session.state().map_err(failure)?;
    for update in convert::history_updates(&state.history) {
        client.send_notification(acp::SessionNotification::new(req.session_id.clone(), update))?;
    }
    Ok(live)
}

/// Tells the client the slash commands it can offer: the project's and the user's custom commands,
/// the MCP servers' prompts and `/init` (the ones the engine itself expands).
fn announce_commands(
    client: &ConnectionTo<Client>,
    id: &acp::SessionId,
    live: &Live,
) -> Result<(), sdk::Error> {
    let commands = live
        .session
        .commands()
        .into_iter()
        .filter(|c| c.source != CommandSource::Builtin || c.name == "init")
        .map(|c| {
            let command = acp::AvailableCommand::new(c.name, c.description);
            match c.argument_hint {
                Some(hint) => command.input(acp::AvailableCommandInput::Unstructured(
                    acp::UnstructuredCommandInput::new(hint),
                )),
                None => command,
            }
        })
        .collect();
    client.send_notification(acp::SessionNotification::new(
        id.clone(),
        acp::SessionUpdate::AvailableCommandsUpdate(acp::AvailableCommandsUpdate::new(commands)),
    ))
}

/// Runs one turn of `live` with the prompt's text and images, its events sent to the client.
async fn prompt(
    client: &ConnectionTo<Client>,
    live: Arc<Live>,
    req: acp::PromptRequest,
) -> Result<acp::PromptResponse, sdk::Error> {
    let (text, images) = convert::prompt_input(&req.prompt);
    let sink = turn_events(client.clone(), req.session_id.clone(), Arc::clone(&live));
    let summary = live.session.send(&text, &images, sink).await.map_err(failure)?;
    match convert::stop_reason(&summary.end) {
        Some(reason) => Ok(acp::PromptResponse::new(reason)),
        None => Err(failure(
            summary.error.unwrap_or_else(|| "the turn failed".to_string()),
        )),
    }
}

/// The sink a turn's events go to: each becomes what the client shows.
fn turn_events(client: ConnectionTo<Client>, id: acp::SessionId, live: Arc<Live>) -> EventSink {
    EventSink::new(move |event: Event| {
        let notify = |update: acp::SessionUpdate| {
            if let Err(e) = client.send_notification(acp::SessionNotification::new(id.clone(), update)) {
                tracing::warn!("an update could not be sent to the ACP client: {e}");
            }
        };
        let chunk = |text: String| acp::ContentChunk::new(acp::ContentBlock::from(text));
        match event {
            Event::TextDelta { text } => notify(acp::SessionUpdate::AgentMessageChunk(chunk(text))),
            Event::ThinkingDelta { text } => notify(acp::SessionUpdate::AgentThoughtChunk(chunk(text))),
            Event::ToolQueued {
                tool_use_id,
                kind,
                display_name,
                summary,
                ..
            } => notify(acp::SessionUpdate::ToolCall(
                acp::ToolCall::new(tool_use_id, convert::tool_title(&display_name, &summary))
                    .kind(convert::tool_kind(&kind))
                    .status(acp::ToolCallStatus::Pending),
            )),
            Event::ToolStarted { tool_use_id } => {
                notify(acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    tool_use_id,
                    acp::ToolCallUpdateFields::new().status(acp::ToolCallStatus::InProgress),
                )))
            }
            Event::ToolCompleted {
                tool_use_id,
                content,
                is_error,
                error,
                display,
                changed_files,
                ..
            } => {
                let diff = display
                    .and_then(|d| serde_json::from_value::<nerve_protocol::diff::FileDiff>(d).ok())
                    .map(|d| convert::diff_content(&live.cwd, &d, None));
                let mut shown = convert::result_content(&content);
                if let Some(error) = error {
                    shown = vec![acp::ToolCallContent::from(error)];
                }
                // A command that ran in the client's terminal goes on showing it.
                if let Some(terminal) = live.editor.as_ref().and_then(|e| e.terminals.take(&tool_use_id)) {
                    shown = vec![editor::terminal_content(&terminal)];
                }
                if let Some(diff) = diff {
                    shown.insert(0, diff);
                }
                let status = if is_error {
                    acp::ToolCallStatus::Failed
                } else {
                    acp::ToolCallStatus::Completed
                };
                let mut fields = acp::ToolCallUpdateFields::new().status(status).content(shown);
                if !changed_files.is_empty() {
                    fields = fields.locations(
                        changed_files
                            .into_iter()
                            .map(acp::ToolCallLocation::new)
                            .collect::<Vec<_>>(),
                    );
                }
                notify(acp::SessionUpdate::ToolCallUpdate(acp::ToolCallUpdate::new(
                    tool_use_id,
                    fields,
                )));
            }
            Event::TodosChanged { todos } => notify(acp::SessionUpdate::Plan(convert::plan(&todos))),
            Event::ModeChanged { mode } => notify(acp::SessionUpdate::CurrentModeUpdate(
                acp::CurrentModeUpdate::new(mode.as_str().to_string()),
            )),
            Event::PermissionRequested { request } => {
                ask(client.clone(), id.clone(), Arc::clone(&live), *request);
            }
            _ => {}
        }
    })
}

/// Asks the client about a call and gives the session its answer (a connection that fails
/// before answering denies the call).
fn ask(
    client: ConnectionTo<Client>,
    id: acp::SessionId,
    live: Arc<Live>,
    request: nerve_protocol::PermissionRequest,
) {
    let mut fields = acp::ToolCallUpdateFields::new()
        .title(convert::tool_title(&request.display_name, &request.summary))
        .kind(convert::tool_kind(&request.kind))
        .status(acp::ToolCallStatus::Pending)
        .raw_input(request.input.clone());
    let content = convert::request_content(&live.cwd, &request);
    if !content.is_empty() {
        fields = fields.content(content);
    }
    let question = acp::RequestPermissionRequest::new(
        id,
        acp::ToolCallUpdate::new(request.tool_use_id.clone(), fields),
        convert::permission_options(&request),
    );
    tokio::spawn(async move {
        let answer = match client.send_request(question).block_task().await {
            Ok(response) => convert::answer(&request, &response.outcome),
            Err(e) => {
                tracing::warn!("the ACP client did not answer a permission request: {e}");
                nerve_protocol::UserAnswer::Deny {
                    message: Some("The client did not answer.".into()),
                }
            }
        };
        if let Err(e) = live.session.answer(&request.id, answer) {
            tracing::warn!("a permission answer came too late: {e}");
        }
    });
}
