//! Where the window was left: size, position and maximised state (tauri-plugin-window-state),
//! kept per data folder so two profiles (or tests) do not share it, and saved as the window
//! moves, not only at a clean exit: an app that is killed or crashes still comes back where it was.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use tauri::Manager as _;
use tauri_plugin_window_state::{AppHandleExt as _, StateFlags};

/// What is kept.
const FLAGS: StateFlags = StateFlags::SIZE
    .union(StateFlags::POSITION)
    .union(StateFlags::MAXIMIZED);

/// How long the window must keep still before its place is written (a drag sends many events).
const SETTLE: Duration = Duration::from_millis(400);

/// The plugin, its file named after the data folder when `profile` is given.
pub fn plugin<R: tauri::Runtime>(profile: Option<&str>) -> tauri::plugin::TauriPlugin<R> {
    let builder = tauri_plugin_window_state::Builder::new().with_state_flags(FLAGS);
    match profile {
        Some(profile) => builder.with_filename(format!(".window-state-{profile}.json")),
        None => builder,
    }
    .build()
}

/// Writes the window's place once it has settled after a move or a resize.
pub fn save_as_it_moves(window: &tauri::WebviewWindow) {
    let generation = Arc::new(AtomicU64::new(0));
    let app = window.app_handle().clone();
    window.on_window_event(move |event| {
        if !matches!(
            event,
            tauri::WindowEvent::Moved(_) | tauri::WindowEvent::Resized(_)
        ) {
            return;
        }
        let this = generation.fetch_add(1, Ordering::SeqCst) + 1;
        let generation = Arc::clone(&generation);
        let app = app.clone();
        tauri::async_runtime::spawn(async move {
            tokio::time::sleep(SETTLE).await;
            if generation.load(Ordering::SeqCst) == this
                && let Err(e) = app.save_window_state(FLAGS)
            {
                tracing::warn!("could not save the window's place: {e}");
            }
        });
    });
}
