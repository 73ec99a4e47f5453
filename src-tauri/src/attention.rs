//! Getting the user's attention when they are elsewhere: a permission request, or a turn that
//! ended in a session they are not looking at (another session shown, or the window in the
//! background), gets a system notification; a request also marks the window urgent. With
//! `NERVE_ATTENTION_LOG=FILE`, each is appended to FILE as a JSON line (whether the window was
//! focused, what was asked of the window manager and the notification service): the end-to-end
//! test reads it, since a headless X server shows nothing.
//!
//! A click on a notice focuses the window and shows the notice's session: each notice carries its
//! session's id, and the window hears of the click through the channel it gave `watch_attention`.

use std::sync::{Mutex, PoisonError};

use nerve_protocol::TurnEnd;
use serde::Serialize;
use tauri::ipc::Channel;
use tauri::{Manager, State};
use tauri_plugin_notification::{Action, ActionPerformed, ActionType, NotificationExt};
use ts_rs::TS;

use crate::commands::{Shell, blocking};
use crate::error::ShellError;

/// The action type of every notice: its one action, `default`, is what notification servers run
/// on a click on the notice itself (rather than showing a button).
const SHOW_SESSION: &str = "nerve-show-session";

/// The notice's extra field naming its session.
const SESSION_ID: &str = "session_id";

/// What the shell tells the window the user asked for from outside it: a click on one of its
/// notices, or a folder named on the command line (this launch's, or a second launch's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum AttentionEvent {
    /// The user clicked a notice about this session: the window (focused now) shows it.
    ShowSession {
        /// The session the notice was about.
        session_id: String,
    },
    /// Open this folder as a project (`nerve-desktop PATH`, the desktop entry's `%F`).
    OpenFolder {
        /// The folder, absolute.
        path: String,
    },
}

/// Where clicks on notices go: the window's channel, once it gave one.
#[derive(Default)]
pub struct AttentionWatch(Mutex<Option<Channel<AttentionEvent>>>, Mutex<Vec<AttentionEvent>>);

impl AttentionWatch {
    /// Tells the window, or keeps the event until it gives its channel (a folder named on the
    /// command line arrives before the page has loaded). Whether the window was told now.
    pub fn tell(&self, event: AttentionEvent) -> bool {
        let channel = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        match channel.as_ref().map(|c| c.send(event.clone())) {
            Some(Ok(())) => true,
            _ => {
                self.1.lock().unwrap_or_else(PoisonError::into_inner).push(event);
                false
            }
        }
    }
}

/// Brings the window to the front (a second launch without a folder).
pub fn focus(app: &tauri::AppHandle) {
    if let Some(window) = app.get_webview_window("main") {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// Opens `folder` in the window: focused, the folder shown as a project. A second launch's folder
/// (the single-instance plugin hands it over) and this launch's own come this way.
pub fn open_folder(app: &tauri::AppHandle, folder: String) {
    focus(app);
    tracing::info!(folder, "opening a folder from the command line");
    app.state::<AttentionWatch>()
        .tell(AttentionEvent::OpenFolder { path: folder });
}

/// The window's channel for clicks on notices (a reloaded page gives a new one).
#[tauri::command]
pub fn watch_attention(
    watch: State<'_, AttentionWatch>,
    on_event: Channel<AttentionEvent>,
) -> Result<(), ShellError> {
    let waiting = std::mem::take(&mut *watch.1.lock().unwrap_or_else(PoisonError::into_inner));
    for event in waiting {
        let _ = on_event.send(event);
    }
    *watch.0.lock().unwrap_or_else(PoisonError::into_inner) = Some(on_event);
    Ok(())
}

/// Makes a click on a notice focus the window and show the notice's session. Called once, at
/// start: the notification plugin reports actions only on notices shown after a handler exists.
pub fn show_sessions_on_clicks(handle: &tauri::AppHandle) {
    let notices = handle.notification();
    let types = vec![
        ActionType::builder(SHOW_SESSION)
            .actions(vec![Action::builder("default", "Show").build()])
            .build(),
    ];
    if let Err(e) = notices.register_action_types(types) {
        tracing::warn!("notices will not open their session: {e}");
        return;
    }
    let app = handle.clone();
    let registered = notices.on_action(move |performed: &ActionPerformed| {
        let Some(session_id) = clicked_session(performed) else {
            return;
        };
        let focus = app
            .get_webview_window("main")
            .map(|window| {
                // Each may fail where the window manager declines; the session shows either way.
                let _ = window.unminimize();
                let _ = window.show();
                window.set_focus()
            })
            .unwrap_or(Ok(()));
        let told = app.state::<AttentionWatch>().tell(AttentionEvent::ShowSession {
            session_id: session_id.clone(),
        });
        let record = serde_json::json!({
            "clicked": session_id,
            "focus": outcome(focus),
            "window_told": told,
        });
        log_attention(&record);
    });
    if let Err(e) = registered {
        tracing::warn!("notices will not open their session: {e}");
    }
}

/// The session of a clicked notice: a click on the notice itself (`tap`, which the plugin reports
/// for the `default` action) or on its Show action, of a notice that names a session.
fn clicked_session(performed: &ActionPerformed) -> Option<String> {
    if !matches!(performed.action_id(), "tap" | "default") {
        return None;
    }
    performed
        .notification()?
        .extra()
        .get(SESSION_ID)?
        .as_str()
        .map(str::to_string)
}

/// A system notification about a session, which a click opens. What the service said is returned
/// for the attention log.
fn notify_about(app: &tauri::AppHandle, session_id: &str, title: &str, body: &str) -> serde_json::Value {
    let shown = app
        .notification()
        .builder()
        .title(title)
        .body(body)
        .action_type_id(SHOW_SESSION)
        .extra(SESSION_ID, session_id)
        .show();
    outcome(shown)
}

/// A turn ended in a session (the UI says so once its command resolved, with whether it shows that
/// session): when the user is not looking at it and the settings want this kind of end, a system
/// notification names the session and how the turn ended. Returns whether the user was looking
/// (the session shown in the focused window): the UI marks the session's row otherwise.
#[tauri::command]
pub async fn turn_ended(
    app: tauri::AppHandle,
    shell: State<'_, Shell>,
    session_id: String,
    title: String,
    end: TurnEnd,
    error: Option<String>,
    shown: bool,
) -> Result<bool, ShellError> {
    let wanted = shell
        .settings
        .load()
        .map(|f| f.settings.turn_end_notices)
        .unwrap_or_default();
    blocking(move || {
        let focused = app
            .get_webview_window("main")
            .and_then(|w| w.is_focused().ok())
            .unwrap_or(false);
        let looking = shown && focused;
        let mut record = serde_json::json!({
            "turn_end": end, "session_id": session_id, "focused": focused, "shown": shown,
        });
        if !looking && wanted.wants(&end) {
            let (title, body) = (
                format!("Nerve: {}", short(&title)),
                turn_end_text(&end, error.as_deref()),
            );
            record["notification"] = notify_about(&app, &session_id, &title, &body);
            record["title"] = title.into();
            record["body"] = body.into();
        }
        log_attention(&record);
        Ok(looking)
    })
    .await
}

/// How a turn ended, in the words of its notice.
fn turn_end_text(end: &TurnEnd, error: Option<&str>) -> String {
    match end {
        TurnEnd::EndTurn | TurnEnd::StoppedByHook => "Done.".to_string(),
        TurnEnd::MaxTurns => "Stopped at the call limit: send a prompt to go on.".to_string(),
        TurnEnd::MaxTokens => "Stopped: the answer reached its length limit.".to_string(),
        TurnEnd::Refusal => "The model declined to go on.".to_string(),
        TurnEnd::Aborted | TurnEnd::Interrupted => "Stopped.".to_string(),
        TurnEnd::Error => match error {
            Some(e) => format!("Failed: {}", short(e)),
            None => "Failed.".to_string(),
        },
    }
}

/// At most 80 characters of `text`, on one line (a notification is a glance).
fn short(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(80) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

/// A permission request gets attention when the user is elsewhere: the window is marked urgent and
/// a system notification names the call. A focused window needs neither (the dialog takes focus).
/// With `NERVE_ATTENTION_LOG=FILE`, each request's handling is appended to FILE as a JSON line
/// (whether the window was focused, what was asked of the window manager and the notification
/// service): the end-to-end test reads it, since a headless X server shows nothing.
pub fn alert_on_requests(handle: tauri::AppHandle) {
    let shell = handle.state::<Shell>();
    let app = handle.clone();
    shell
        .sessions
        .alert_on_requests(std::sync::Arc::new(move |session_id: &str, summary: &str| {
            // Off the engine's thread: a slow notification service must not hold up the call.
            let (app, session_id, summary) = (app.clone(), session_id.to_string(), summary.to_string());
            tauri::async_runtime::spawn_blocking(move || {
                let Some(window) = app.get_webview_window("main") else {
                    return;
                };
                let focused = window.is_focused().unwrap_or(false);
                let mut record = serde_json::json!({"summary": summary, "focused": focused});
                if !focused {
                    let urgent = window.request_user_attention(Some(tauri::UserAttentionType::Critical));
                    // Without a notification service (a bare X session) the window's urgency still shows.
                    record["urgent"] = outcome(urgent);
                    record["notification"] =
                        notify_about(&app, &session_id, "Nerve needs your approval", &summary);
                }
                log_attention(&record);
            });
        }));
}

fn outcome<E: std::fmt::Display>(result: Result<(), E>) -> serde_json::Value {
    match result {
        Ok(()) => serde_json::json!("requested"),
        Err(e) => serde_json::json!(format!("failed: {e}")),
    }
}

/// Appends `record` to the attention log, when `NERVE_ATTENTION_LOG` names one.
fn log_attention(record: &serde_json::Value) {
    if let Some(path) = std::env::var_os("NERVE_ATTENTION_LOG") {
        append_line(std::path::Path::new(&path), &record.to_string());
    }
}

fn append_line(path: &std::path::Path, line: &str) {
    use std::io::Write;
    let written = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut f| writeln!(f, "{line}"));
    if let Err(e) = written {
        eprintln!(
            "nerve-desktop: cannot write the attention log {}: {e}",
            path.display()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dto::TurnEndNotices;

    #[test]
    fn each_end_has_its_words_and_the_settings_choose_which_are_sent() {
        assert_eq!(turn_end_text(&TurnEnd::EndTurn, None), "Done.");
        assert_eq!(
            turn_end_text(&TurnEnd::Error, Some("the API answered 529 overloaded")),
            "Failed: the API answered 529 overloaded"
        );
        assert_eq!(
            turn_end_text(&TurnEnd::MaxTurns, None),
            "Stopped at the call limit: send a prompt to go on."
        );
        let ends = [
            TurnEnd::EndTurn,
            TurnEnd::Error,
            TurnEnd::MaxTurns,
            TurnEnd::Aborted,
        ];
        let sent = |w: TurnEndNotices| ends.iter().map(|e| w.wants(e)).collect::<Vec<_>>();
        assert_eq!(sent(TurnEndNotices::All), vec![true, true, true, false]);
        assert_eq!(sent(TurnEndNotices::Failures), vec![false, true, true, false]);
        assert_eq!(sent(TurnEndNotices::Off), vec![false, false, false, false]);
        assert_eq!(short(&"word ".repeat(40)).chars().count(), 81);
        assert_eq!(short("two\nlines"), "two lines");
    }
}
