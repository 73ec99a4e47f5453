//! Nerve's desktop app: a thin Tauri shell over the engine. This is the skeleton the desktop issue
//! builds on: it opens the app window on the bundled UI and has no commands yet.

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    if let Err(e) = tauri::Builder::default().run(tauri::generate_context!()) {
        eprintln!("nerve-desktop failed to start: {e}");
        std::process::exit(1);
    }
}
