//! Where each source's settings file lives.

use std::path::{Path, PathBuf};

use crate::permissions::rule::RuleSource;

/// The managed policy file an administrator installs.
pub const MANAGED_SETTINGS_PATH: &str = "/etc/nerve/managed-settings.json";

/// The machine-wide folders settings are found in; injectable so tests never read the real ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsLocations {
    /// The managed policy file (normally [`MANAGED_SETTINGS_PATH`]).
    pub managed_file: PathBuf,
    /// The user's configuration folder (`~/.config` on Linux); user settings are
    /// `<config dir>/nerve/settings.json`.
    pub config_dir: PathBuf,
    /// The user's home folder, anchor of user settings and of `~/` patterns.
    pub home: PathBuf,
}

impl SettingsLocations {
    /// The real locations for this user, or `None` if the home or configuration folder is unknown.
    pub fn from_environment() -> Option<Self> {
        Some(SettingsLocations {
            managed_file: PathBuf::from(MANAGED_SETTINGS_PATH),
            config_dir: dirs::config_dir()?,
            home: dirs::home_dir()?,
        })
    }

    /// The settings file of `source` for the project at `project_root`; `None` for sources that
    /// are not files (command-line arguments, the session).
    pub fn path_for(&self, source: RuleSource, project_root: &Path) -> Option<PathBuf> {
        match source {
            RuleSource::Managed => Some(self.managed_file.clone()),
            RuleSource::CliArg | RuleSource::Session => None,
            RuleSource::LocalSettings => Some(project_root.join(".nerve/settings.local.json")),
            RuleSource::ProjectSettings => Some(project_root.join(".nerve/settings.json")),
            RuleSource::UserSettings => Some(self.config_dir.join("nerve/settings.json")),
            RuleSource::ClaudeLocalSettings => Some(project_root.join(".claude/settings.local.json")),
            RuleSource::ClaudeProjectSettings => Some(project_root.join(".claude/settings.json")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_source_has_its_documented_file() {
        let locations = SettingsLocations {
            managed_file: PathBuf::from(MANAGED_SETTINGS_PATH),
            config_dir: PathBuf::from("/home/me/.config"),
            home: PathBuf::from("/home/me"),
        };
        let paths: Vec<Option<PathBuf>> = RuleSource::ALL
            .iter()
            .map(|source| locations.path_for(*source, Path::new("/p")))
            .collect();
        let expected: Vec<Option<PathBuf>> = vec![
            Some("/etc/nerve/managed-settings.json".into()),
            None,
            None,
            Some("/p/.nerve/settings.local.json".into()),
            Some("/p/.nerve/settings.json".into()),
            Some("/home/me/.config/nerve/settings.json".into()),
            Some("/p/.claude/settings.local.json".into()),
            Some("/p/.claude/settings.json".into()),
        ];
        assert_eq!(paths, expected);
    }
}
