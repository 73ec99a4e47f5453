//! Settings files in Claude Code's JSON shape, from every source, merged into one view.
//!
//! ```json
//! { "permissions": { "allow": ["Bash(git *)"], "ask": [], "deny": ["Read(./.env)"],
//!                    "defaultMode": "acceptEdits", "additionalDirectories": ["../lib"],
//!                    "disableBypassPermissionsMode": "disable" },
//!   "hooks": { ... }, "env": { ... } }
//! ```
//!
//! A missing file is fine. A bad file is an error naming the file, the line and column, and what
//! was expected: a file is never skipped in part or in whole, because skipping a deny rule would
//! allow more than the user wrote.

mod error;
mod file;
mod load;
mod locations;
mod writer;

pub use error::SettingsError;
pub use file::{DisableBypass, PermissionsSettings, SettingsFile, WorktreeSettings};
pub use load::{
    AdditionalDirectory, HooksEntry, LoadOptions, LoadedSettings, ProjectServerApproval, load_all,
};
pub use locations::{MANAGED_SETTINGS_PATH, SettingsLocations};
pub use writer::{
    RuleEdit, add_rules_to_local_settings, add_sandbox_write_to_local_settings, edit_hook_entry, edit_rules,
    local_settings_path, set_mcp_server_disabled, set_mcp_server_entry, set_mcpjson_server_enabled,
};
