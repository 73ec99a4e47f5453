//! Nerve's desktop app: a thin Tauri shell over the engine. Commands come in from the UI, each
//! turn's events go out on its own channel, permission answers come back as commands. Closing the
//! app ends every session cleanly (running tools cancelled, SessionEnd hooks run).

#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod about;
mod attention;
mod bindings;
mod commands;
mod demo;
mod dto;
mod error;
mod logging;
mod outputs_commands;
mod policy;
mod session_commands;
mod sessions;
mod settings;
mod settings_commands;
mod tasks_commands;
mod terminal;
mod webview_env;
mod window_place;
mod worktree_commands;

use commands::Shell;
use tauri::Manager;

fn main() {
    // Started as the Bash sandbox's helper: restrict, then become the command (never returns).
    nerve::sandbox::helper::run_if_asked();
    let args: Vec<String> = std::env::args().collect();
    if about::answered_version(&args) {
        return;
    }
    // Commands run through the `nerve` binary installed beside this one: see the function.
    nerve::sandbox::prefer_sibling_helper("nerve");
    // Before any thread starts: the web view's processes inherit the environment.
    webview_env::prepare_web_process_environment();
    // One TLS provider for every reqwest client in the process (the engine's and Tauri's).
    nerve::http::install_crypto_provider();
    // The engine's environment variables, read once for the whole app.
    let env = nerve::EngineEnv::process();
    let log_dir = logging::log_dir(&env, IDENTIFIER);
    logging::init(&log_dir);
    let cwd = std::env::current_dir().unwrap_or_default();
    let folder = about::folder_argument(&args, &cwd);
    let profile = profile(&env);
    let shell = Shell {
        settings: settings::SettingsStore::in_dir(&nerve::project::data_root(&env)),
        sessions: sessions::Sessions::default(),
        env: std::sync::Arc::clone(&env),
        demo: tokio::sync::Mutex::default(),
        terminals: terminal::Terminals::default(),
    };
    let app = tauri::Builder::default()
        // First: a second launch hands its folder to this one and exits before anything starts.
        .plugin(
            tauri_plugin_single_instance::Builder::new()
                .dbus_id(instance_id(profile.as_deref()))
                .callback(|app, argv, cwd| {
                    let folder = about::folder_argument(&argv, std::path::Path::new(&cwd));
                    match folder {
                        Some(folder) => attention::open_folder(app, folder),
                        None => attention::focus(app),
                    }
                })
                .build(),
        )
        // The window's size, position and maximised state; shown by the app itself once built.
        .plugin(window_place::plugin(profile.as_deref()))
        .plugin(tauri_plugin_dialog::init())
        .plugin(tauri_plugin_notification::init())
        // Used from Rust only (`open_link`): the UI gets no opener permission.
        .plugin(tauri_plugin_opener::init())
        .manage(shell)
        .manage(attention::AttentionWatch::default())
        .manage(about::LogDir(log_dir))
        .setup(move |app| {
            quit_on_signals(app.handle().clone());
            main_window(app)?;
            if let Some(folder) = folder {
                attention::open_folder(app.handle(), folder);
            }
            attention::alert_on_requests(app.handle().clone());
            attention::show_sessions_on_clicks(app.handle());
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::get_app_state,
            commands::save_settings,
            commands::use_local_server,
            commands::set_api_key,
            commands::delete_api_key,
            commands::open_project,
            commands::start_session,
            commands::send_prompt,
            commands::abort_turn,
            commands::interrupt_turn,
            commands::answer_permission,
            commands::allow_sandbox_refusal,
            commands::preview_permission_edit,
            commands::requests_covered_by,
            commands::set_permission_mode,
            commands::end_session,
            commands::read_persisted_output,
            commands::get_changes,
            commands::plan_rewind,
            commands::rewind_session,
            commands::undo_rewind,
            commands::plan_file_revert,
            commands::revert_file,
            commands::list_commands,
            commands::find_files,
            commands::compact_session,
            commands::set_model,
            commands::set_effort,
            commands::export_session,
            commands::open_link,
            settings_commands::get_project_settings,
            settings_commands::check_rule,
            settings_commands::edit_rule,
            settings_commands::check_call,
            settings_commands::probe_mcp_servers,
            settings_commands::set_mcp_server_approved,
            settings_commands::add_mcp_server,
            settings_commands::edit_mcp_server,
            settings_commands::remove_mcp_server,
            settings_commands::import_mcp_servers,
            settings_commands::set_mcp_tool_enabled,
            settings_commands::set_mcp_server_enabled,
            settings_commands::add_hook,
            settings_commands::remove_hook,
            settings_commands::test_hook,
            settings_commands::memory_files,
            settings_commands::read_memory_file,
            settings_commands::write_memory_file,
            settings_commands::append_memory_line,
            settings_commands::mcp_sign_in,
            settings_commands::mcp_sign_out,
            settings_commands::list_models,
            settings_commands::set_auth_token,
            settings_commands::delete_auth_token,
            outputs_commands::list_outputs,
            outputs_commands::search_outputs,
            outputs_commands::read_output_lines,
            outputs_commands::tail_output,
            outputs_commands::delete_outputs,
            outputs_commands::save_output_as,
            outputs_commands::reveal_output,
            session_commands::list_sessions,
            session_commands::search_sessions,
            session_commands::rename_session,
            session_commands::fork_session,
            session_commands::delete_session,
            session_commands::start_demo,
            worktree_commands::list_worktrees,
            worktree_commands::land_worktree,
            worktree_commands::worktree_discard_preview,
            worktree_commands::discard_worktree,
            worktree_commands::git_stage,
            worktree_commands::git_unstage,
            worktree_commands::git_stage_hunk,
            worktree_commands::git_unstage_hunk,
            worktree_commands::git_revert_file,
            worktree_commands::clean_worktrees,
            worktree_commands::git_commit,
            worktree_commands::git_create_branch,
            worktree_commands::suggest_commit_message,
            worktree_commands::undo_hunk,
            worktree_commands::review_prompt,
            attention::turn_ended,
            attention::watch_attention,
            tasks_commands::list_tasks,
            tasks_commands::stop_task,
            tasks_commands::tail_task,
            tasks_commands::subagent_transcript,
            tasks_commands::watch_session,
            terminal::terminal_open,
            terminal::terminal_write,
            terminal::terminal_resize,
            terminal::terminal_close,
            about::diagnostics,
            about::open_log_folder,
            about::check_for_update,
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
            tauri::async_runtime::block_on(async {
                shell.terminals.close_all();
                shell.sessions.close_all().await;
                // The demo's model stops and its sample folder is removed.
                drop(shell.demo.lock().await.take());
            });
        }
    });
}

/// The app's identifier (tauri.conf.json).
const IDENTIFIER: &str = "dev.nerve.desktop";

/// The single-instance D-Bus name: one app per data folder. The default folder's is the app's
/// identifier; another folder (`NERVE_DATA_DIR`: tests, a second profile) gets its own, so two
/// profiles run side by side and each still has one window.
fn instance_id(profile: Option<&str>) -> String {
    match profile {
        None => IDENTIFIER.to_string(),
        Some(profile) => format!("{IDENTIFIER}.data_{profile}"),
    }
}

/// A short name for a data folder other than the default (`NERVE_DATA_DIR`), `None` for the
/// default: the single-instance name and the window-state file are per data folder.
fn profile(env: &nerve::EngineEnv) -> Option<String> {
    std::env::var_os("NERVE_DATA_DIR")?;
    let root = nerve::project::data_root(env);
    let hash = nerve::files::hash_bytes(root.to_string_lossy().as_bytes());
    Some(hash.chars().take(16).collect())
}

/// The main window, built from its configuration so that its title follows the page's: the UI
/// counts the approvals that wait there ("(2) Nerve — project").
fn main_window(app: &tauri::App) -> Result<(), Box<dyn std::error::Error>> {
    let config = app
        .config()
        .app
        .windows
        .iter()
        .find(|w| w.label == "main")
        .cloned()
        .ok_or("tauri.conf.json has no window labelled main")?;
    let window = tauri::WebviewWindowBuilder::from_config(app.handle(), &config)?
        .on_document_title_changed(|window, title| {
            let _ = window.set_title(&title);
        })
        .build()?;
    window_place::save_as_it_moves(&window);
    Ok(())
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
