//! Where the engine keeps things on disk, following the platform's conventions.
//!
//! `<data dir>/projects/<project key>/<session id>.jsonl` holds a transcript and
//! `<data dir>/projects/<project key>/<session id>/tool-results/` its persisted tool outputs, where
//! the data dir is `~/.local/share/nerve` on Linux (`NERVE_DATA_DIR` overrides it, for tests and
//! portable installs).

use std::path::{Path, PathBuf};

/// The engine's data directory: `NERVE_DATA_DIR` as `env` has it, else the platform's.
pub fn data_dir(env: &crate::engine_env::EngineEnv) -> PathBuf {
    if let Some(dir) = &env.data_dir {
        return dir.clone();
    }
    dirs::data_dir().unwrap_or_else(std::env::temp_dir).join("nerve")
}

/// A stable, file-name-safe key for a project folder: its absolute path with every character that is
/// not ASCII alphanumeric replaced by `-` (as Claude Code names its project folders).
pub fn project_key(project_dir: &Path) -> String {
    project_dir
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

/// The folder holding one project's sessions.
pub fn project_data_dir(data_dir: &Path, project_dir: &Path) -> PathBuf {
    data_dir.join("projects").join(project_key(project_dir))
}

/// Makes an id from outside (a tool_use id, a session id) safe as a file name: anything other than
/// ASCII alphanumerics, `-` and `_` becomes `_`, and an empty id becomes `_`.
pub fn safe_file_stem(id: &str) -> String {
    let s: String = id
        .chars()
        .take(128)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() { "_".into() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_key_is_path_with_dashes() {
        assert_eq!(project_key(Path::new("/home/me/my proj")), "-home-me-my-proj");
    }

    #[test]
    fn ids_cannot_escape_the_folder() {
        assert_eq!(safe_file_stem("../../etc/passwd"), "______etc_passwd");
        assert_eq!(safe_file_stem("toolu_01AB-c"), "toolu_01AB-c");
        assert_eq!(safe_file_stem(""), "_");
    }
}
