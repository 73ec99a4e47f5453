//! Getting the user's attention when they are elsewhere: a permission request, or a turn that
//! ended in a session they are not looking at (another session shown, or the window in the
//! background), gets a system notification; a request also marks the window urgent. With
//! `NERVE_ATTENTION_LOG=FILE`, each is appended to FILE as a JSON line (whether the window was
//! focused, what was asked of the window manager and the notification service): the end-to-end
//! test reads it, since a headless X server shows nothing.

use nerve_protocol::TurnEnd;
use tauri::{Manager, State};

use crate::commands::{Shell, blocking};
use crate::error::ShellError;

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
            use tauri_plugin_notification::NotificationExt;
            let shown = app
                .notification()
                .builder()
                .title(format!("Nerve: {}", short(&title)))
                .body(turn_end_text(&end, error.as_deref()))
                .show();
            record["notification"] = outcome(shown);
        }
        if let Some(path) = std::env::var_os("NERVE_ATTENTION_LOG") {
            append_line(std::path::Path::new(&path), &record.to_string());
        }
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
    use tauri_plugin_notification::NotificationExt;
    let shell = handle.state::<Shell>();
    let app = handle.clone();
    let log = std::env::var_os("NERVE_ATTENTION_LOG").map(std::path::PathBuf::from);
    shell
        .sessions
        .alert_on_requests(std::sync::Arc::new(move |summary: &str| {
            // Off the engine's thread: a slow notification service must not hold up the call.
            let (app, summary, log) = (app.clone(), summary.to_string(), log.clone());
            tauri::async_runtime::spawn_blocking(move || {
                let Some(window) = app.get_webview_window("main") else {
                    return;
                };
                let focused = window.is_focused().unwrap_or(false);
                let mut record = serde_json::json!({"summary": summary, "focused": focused});
                if !focused {
                    let urgent = window.request_user_attention(Some(tauri::UserAttentionType::Critical));
                    // Without a notification service (a bare X session) the window's urgency still shows.
                    let shown = app
                        .notification()
                        .builder()
                        .title("Nerve needs your approval")
                        .body(&summary)
                        .show();
                    record["urgent"] = outcome(urgent);
                    record["notification"] = outcome(shown);
                }
                if let Some(path) = log {
                    append_line(&path, &record.to_string());
                }
            });
        }));
}

fn outcome<E: std::fmt::Display>(result: Result<(), E>) -> serde_json::Value {
    match result {
        Ok(()) => serde_json::json!("requested"),
        Err(e) => serde_json::json!(format!("failed: {e}")),
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
