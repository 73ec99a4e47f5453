//! Nerve's desktop app: a thin Tauri shell over the engine. Commands come in from the UI, each
//! turn's events go out on its own channel, permission answers come back as commands. Closing the
//! app ends every session cleanly (running tools cancelled, SessionEnd hooks run).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod bindings;
mod commands;
mod dto;
mod error;
mod policy;
mod sessions;
mod settings;

use commands::Shell;
use tauri::Manager;

fn main() {
    let shell = Shell {
        settings: settings::SettingsStore::in_dir(&nerve::storage::data_dir()),
        sessions: sessions::Sessions::default(),
    };
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(shell)
        .setup(|app| {
            quit_on_signals(app.handle().clone());
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::get_app_state,
            commands::save_settings,
            commands::set_api_key,
            commands::delete_api_key,
            commands::open_project,
            commands::start_session,
            commands::send_prompt,
            commands::abort_turn,
            commands::interrupt_turn,
            commands::answer_permission,
            commands::set_permission_mode,
            commands::end_session,
            commands::read_persisted_output,
        ])
        .build(tauri::generate_context!());
    let app = match app {
        Ok(app) => app,
        Err(e) => {
            eprintln!("nerve-desktop failed to start: {e}");
            std::process::exit(1);
        }
    };
    // Quitting (the window closed, a signal) ends every session before the process goes.
    app.run(|handle, event| {
        if let tauri::RunEvent::Exit = event {
            let shell = handle.state::<Shell>();
            tauri::async_runtime::block_on(shell.sessions.close_all());
        }
    });
}

/// SIGTERM (a logout, `kill`) and SIGINT (Ctrl-C in the terminal that started the app) quit the app
/// the normal way, so sessions end cleanly instead of leaving commands running.
fn quit_on_signals(handle: tauri::AppHandle) {
    use tokio::signal::unix::{SignalKind, signal};
    tauri::async_runtime::spawn(async move {
        let (Ok(mut term), Ok(mut int)) = (signal(SignalKind::terminate()), signal(SignalKind::interrupt()))
        else {
            eprintln!(
                "nerve-desktop: cannot listen for quit signals; quitting by signal will not end sessions"
            );
            return;
        };
        tokio::select! {
            _ = term.recv() => {}
            _ = int.recv() => {}
        }
        handle.exit(0);
    });
}
