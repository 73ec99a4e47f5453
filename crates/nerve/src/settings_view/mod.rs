//! What a settings screen shows and changes, as engine functions so that a screen, the CLI and the
//! engine cannot disagree: the rules in effect with their files, a rule's syntax as it is typed,
//! edits to the files the user owns, a dry run of a call, the hooks, and the project's MCP servers
//! with their approval and status.
//!
//! This sits above the project and its parts (it reads what they loaded) and below front-ends; it
//! never decides anything itself.

mod check;
mod hooks;
mod mcp;
mod memory;
mod rules;
mod sandbox;

pub use check::{CheckCallError, PermissionCheck, check_call};
pub use hooks::{
    HookEditError, HookSpec, HookTestResult, HookView, add_hook, hooks_of, project_hooks, remove_hook,
    test_hook,
};
pub use mcp::{
    McpImportReport, McpImportSkip, McpImportSource, McpServerSpec, McpServerStatus, McpServerView,
    McpViewError, add_mcp_server, check_server_name, edit_mcp_server, find_mcp_server, import_mcp_servers,
    mcp_login, mcp_logout, mcp_servers, probe_mcp_servers, remove_mcp_server, server_entry,
    set_mcp_server_approved, set_mcp_server_enabled, set_mcp_tool_enabled, spec_of, transport_of,
};
pub use memory::{
    MemoryFileError, MemoryFileView, MemoryKind, append_memory_line, memory_files, read_memory_file,
    write_memory_file,
};
pub use rules::{
    RuleEntry, RuleSyntax, RuleSyntaxError, RulesView, check_rule_syntax, edit_rule, rules_view,
};
pub use sandbox::{AllowRefusalError, allow_sandbox_refusal};

/// The settings files outside any project, named for a bug report: the managed policy, the user's
/// Nerve settings and Claude Code's user settings. `None` when the home folder is unknown.
pub fn machine_settings_files() -> Option<Vec<(&'static str, std::path::PathBuf)>> {
    let locations = crate::settings::SettingsLocations::from_environment()?;
    Some(vec![
        ("managed policy", locations.managed_file.clone()),
        ("user settings", locations.config_dir.join("nerve/settings.json")),
        (
            "Claude Code user settings",
            locations.home.join(".claude/settings.json"),
        ),
    ])
}
