//! Tauri's build step. The config (`tauri.conf.json`) sits at the workspace root beside the root
//! `Cargo.toml`; capabilities stay in `src-tauri/capabilities/`. Every app command gets a generated
//! `allow-*` permission, so the capability file lists exactly the commands the UI may call.

/// The shell's commands (keep in step with `tauri::generate_handler!` in `main.rs`).
const COMMANDS: &[&str] = &[
    "get_app_state",
    "save_settings",
    "use_local_server",
    "set_api_key",
    "delete_api_key",
    "open_project",
    "start_session",
    "send_prompt",
    "abort_turn",
    "interrupt_turn",
    "answer_permission",
    "allow_sandbox_refusal",
    "preview_permission_edit",
    "requests_covered_by",
    "set_permission_mode",
    "end_session",
    "read_persisted_output",
    "get_changes",
    "plan_rewind",
    "rewind_session",
    "plan_file_revert",
    "revert_file",
    "list_commands",
    "find_files",
    "compact_session",
    "set_model",
    "set_effort",
    "export_session",
    "open_link",
    "get_project_settings",
    "check_rule",
    "edit_rule",
    "check_call",
    "probe_mcp_servers",
    "set_mcp_server_approved",
    "add_mcp_server",
    "edit_mcp_server",
    "remove_mcp_server",
    "import_mcp_servers",
    "set_mcp_tool_enabled",
    "set_mcp_server_enabled",
    "add_hook",
    "remove_hook",
    "test_hook",
    "memory_files",
    "read_memory_file",
    "write_memory_file",
    "append_memory_line",
    "mcp_sign_in",
    "mcp_sign_out",
    "list_models",
    "set_auth_token",
    "delete_auth_token",
    "list_outputs",
    "search_outputs",
    "read_output_lines",
    "tail_output",
    "delete_outputs",
    "save_output_as",
    "reveal_output",
    "list_sessions",
    "rename_session",
    "fork_session",
    "delete_session",
    "start_demo",
    "list_worktrees",
    "land_worktree",
    "worktree_discard_preview",
    "discard_worktree",
    "git_stage",
    "git_unstage",
    "git_stage_hunk",
    "git_unstage_hunk",
    "git_revert_file",
    "clean_worktrees",
    "git_commit",
    "git_create_branch",
    "suggest_commit_message",
    "undo_hunk",
    "review_prompt",
    "undo_rewind",
    "turn_ended",
    "watch_attention",
    "list_tasks",
    "search_sessions",
    "stop_task",
    "tail_task",
    "subagent_transcript",
    "watch_session",
    "terminal_open",
    "terminal_write",
    "terminal_resize",
    "terminal_close",
    "diagnostics",
    "open_log_folder",
    "check_for_update",
];

fn main() {
    // The version both binaries report: `NERVE_VERSION` at build time (a release's packages), else
    // the crate's.
    println!("cargo:rerun-if-env-changed=NERVE_VERSION");
    let version = std::env::var("NERVE_VERSION")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| std::env::var("CARGO_PKG_VERSION").ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=NERVE_VERSION={}", version.trim());
    // The WebKitGTK the app is built against, for the diagnostics (beside the one it runs on).
    if let Ok(out) = std::process::Command::new("pkg-config")
        .args(["--modversion", "webkit2gtk-4.1"])
        .output()
        && out.status.success()
    {
        let built = String::from_utf8_lossy(&out.stdout).trim().to_string();
        println!("cargo:rustc-env=NERVE_WEBKITGTK_BUILD_VERSION={built}");
    }
    let attributes = tauri_build::Attributes::new()
        .capabilities_path_pattern("src-tauri/capabilities/**/*")
        .app_manifest(
            tauri_build::AppManifest::new()
                .commands(COMMANDS)
                .permissions_path_pattern("src-tauri/permissions/**/*"),
        );
    if let Err(e) = tauri_build::try_build(attributes) {
        println!("cargo:warning=tauri build step failed: {e}");
        std::process::exit(1);
    }
}
