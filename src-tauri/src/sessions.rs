//! The app's open sessions: a map from id to the engine's [`Session`], and the route from each
//! turn's events to the window's channel. Nothing here decides anything about tools, permissions
//! or prompts; the engine's session does.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use nerve::Session;
use nerve::credentials::ApiKey;
use nerve::project::{Project, ProjectOptions};
use nerve::session::{Asker, EventSink, ModelAuth, ModelServer, SessionOptions};
use nerve_protocol::Event;
use nerve_protocol::prompt::AttachedImage;
use tauri::ipc::Channel;

use crate::demo::DEMO_MODEL;
use crate::dto::{AppSettings, SessionInfo, TurnSummary};
use crate::error::{ShellError, to_shell};

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // These slots hold plain values; a panic elsewhere cannot leave them half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Everything a new session needs from the app.
pub struct StartRequest {
    /// The project folder.
    pub project_path: PathBuf,
    /// The session to resume.
    pub resume: Option<String>,
    /// The app settings.
    pub settings: AppSettings,
    /// The demo's scripted model (its URL): no key is looked up and the settings' server, models
    /// and headers are not used.
    pub demo_model: Option<String>,
    /// Whether a new session works in a worktree of its own (`None`: as the settings say).
    pub worktree: Option<bool>,
}

/// Where a session's events between turns go: the window's channel, once it gave one.
type Watcher = Arc<Mutex<Option<Channel<Event>>>>;

/// The open sessions by id.
#[derive(Default)]
pub struct Sessions {
    live: Mutex<HashMap<String, Arc<Session>>>,
    /// Each open session's channel for events between turns.
    watchers: Mutex<HashMap<String, Watcher>>,
    /// Called for every permission request as it arrives (the window asks for attention).
    on_request: Mutex<Option<RequestAlert>>,
}

/// What the shell does when a permission request arrives, given its session's id and the
/// request's one-line summary.
pub type RequestAlert = Arc<dyn Fn(&str, &str) + Send + Sync>;

impl Sessions {
    /// Sets what happens when any session's permission request arrives.
    pub fn alert_on_requests(&self, alert: RequestAlert) {
        *lock(&self.on_request) = Some(alert);
    }

    /// The session `id`.
    pub fn get(&self, id: &str) -> Result<Arc<Session>, ShellError> {
        lock(&self.live)
            .get(id)
            .cloned()
            .ok_or_else(|| ShellError::new(format!("no open session {id}")))
    }

    /// Runs one turn of the session `id`, its events going to `channel`.
    pub async fn send(
        &self,
        id: &str,
        prompt: &str,
        images: &[AttachedImage],
        attachments: &[nerve_protocol::prompt::PromptAttachment],
        channel: Channel<Event>,
    ) -> Result<TurnSummary, ShellError> {
        let session = self.get(id)?;
        let alert = lock(&self.on_request).clone();
        let session_id = id.to_string();
        let events = EventSink::new(move |event| {
            if let (Event::PermissionRequested { request }, Some(alert)) = (&event, &alert) {
                alert(&session_id, &request.summary);
            }
            // A closed window drops its events; the engine goes on and the transcript keeps
            // everything.
            let _ = channel.send(event);
        });
        let summary = session
            .send_with_attachments(prompt, images, attachments, events)
            .await
            .map_err(to_shell)?;
        Ok(TurnSummary {
            end: summary.end,
            error: summary.error,
            session_cost_usd: summary.session_cost_usd,
        })
    }

    /// Starts (or resumes) a session.
    pub async fn start(&self, request: StartRequest) -> Result<SessionInfo, ShellError> {
        let mut options = ProjectOptions::new(&request.project_path);
        options.fallback_mode = request.settings.default_mode;
        let project = Project::open(options).map_err(to_shell)?;
        let settings = request.settings;
        // Events between turns (a background command ending) go to the window once it watches.
        let watcher = Watcher::default();
        let between_turns = Arc::clone(&watcher);
        let mut options = SessionOptions::new(EventSink::new(move |event| {
            if let Some(channel) = lock(&between_turns).as_ref() {
                let _ = channel.send(event);
            }
        }));
        options.resume = request.resume;
        options.max_turns = settings.max_model_calls;
        options.max_concurrency = settings.max_concurrency.map(|n| n as usize);
        options.asker = Asker::Person;
        options.index_files = true;
        let others = self.live_in(project.main_dir());
        options.choose_worktree(request.worktree, settings.new_session_worktree, others);
        match &request.demo_model {
            // The demo's scripted model: no key is looked up and the settings' server, models and
            // headers are not used.
            Some(url) => {
                options.server = ModelServer::Fixed {
                    base_url: url.clone(),
                    auth: ModelAuth::ApiKey(ApiKey::new(DEMO_MODEL.to_string())),
                    extra_headers: Vec::new(),
                    provider: nerve_protocol::settings::ModelProvider::Anthropic,
                };
                options.model = Some(DEMO_MODEL.to_string());
                options.fast_model = Some(DEMO_MODEL.to_string());
            }
            None => {
                options.server = ModelServer::Configured {
                    base_url: settings.base_url,
                    custom_headers: settings.custom_headers,
                    provider: settings.provider,
                };
                options.model = settings.model;
                options.effort = settings.effort;
                options.fast_model = settings.fast_model;
            }
        }
        let session = Session::start(project, options).await.map_err(to_shell)?;
        let info = SessionInfo {
            state: session.state().map_err(to_shell)?,
            demo: request.demo_model.is_some(),
        };
        lock(&self.watchers).insert(session.id().to_string(), watcher);
        let previous = lock(&self.live).insert(session.id().to_string(), Arc::new(session));
        if let Some(previous) = previous {
            // The same session opened twice: the older handle ends first.
            previous.close().await;
        }
        Ok(info)
    }

    /// Sends the session's events between turns to `channel`.
    pub fn watch(&self, id: &str, channel: Channel<Event>) -> Result<(), ShellError> {
        let watchers = lock(&self.watchers);
        let watcher = watchers
            .get(id)
            .ok_or_else(|| ShellError::new(format!("no open session {id}")))?;
        *lock(watcher) = Some(channel);
        Ok(())
    }

    /// How many sessions of the project at `main_dir` are open.
    fn live_in(&self, main_dir: &std::path::Path) -> usize {
        lock(&self.live)
            .values()
            .filter(|s| s.project().main_dir() == main_dir)
            .count()
    }

    /// Whether the session `id` is open.
    pub fn is_open(&self, id: &str) -> bool {
        lock(&self.live).contains_key(id)
    }

    /// Ends and forgets the session `id`.
    pub async fn end(&self, id: &str) -> Result<(), ShellError> {
        lock(&self.watchers).remove(id);
        let session = lock(&self.live).remove(id);
        match session {
            Some(s) => {
                s.close().await;
                Ok(())
            }
            None => Err(ShellError::new(format!("no open session {id}"))),
        }
    }

    /// Ends every session (the app is quitting).
    pub async fn close_all(&self) {
        let all: Vec<_> = lock(&self.live).drain().map(|(_, s)| s).collect();
        futures::future::join_all(all.iter().map(|s| s.close())).await;
    }
}
