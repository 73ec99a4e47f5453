//! The desktop app's own settings file (`desktop.json` in the data folder): model names, base URL
//! and recent projects. Written atomically; a damaged file is reported, never silently replaced.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::dto::AppSettings;
use crate::error::ShellError;

/// Recent projects kept.
const MAX_RECENT: usize = 10;

/// The file's content.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct DesktopFile {
    /// The settings.
    pub settings: AppSettings,
    /// Project folders, newest first.
    pub recent_projects: Vec<String>,
}

/// The settings file at a path.
#[derive(Debug, Clone)]
pub struct SettingsStore {
    path: PathBuf,
}

impl SettingsStore {
    /// The store in `data_dir`.
    pub fn in_dir(data_dir: &Path) -> Self {
        Self {
            path: data_dir.join("desktop.json"),
        }
    }

    /// The settings file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Reads the file; a missing file is the defaults.
    pub fn load(&self) -> Result<DesktopFile, ShellError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => serde_json::from_str(&text).map_err(|e| {
                ShellError::new(format!(
                    "the settings file {} is not valid ({e}); fix or delete it",
                    self.path.display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(DesktopFile::default()),
            Err(e) => Err(ShellError::new(format!(
                "cannot read {}: {e}",
                self.path.display()
            ))),
        }
    }

    /// Replaces the settings, keeping the rest.
    pub fn save_settings(&self, settings: AppSettings) -> Result<AppSettings, ShellError> {
        let mut file = self.load()?;
        file.settings = normalized(settings)?;
        self.write(&file)?;
        Ok(file.settings)
    }

    /// Points the model client at a server on this machine, the first run's way to start without
    /// a key. Only such a server is used without one (the engine's `is_local_server` decides), so
    /// an address elsewhere is refused with what to do instead, and nothing is saved. Text that is
    /// no http(s) URL gets the settings' own refusal. The other settings stay as they are.
    pub fn use_local_server(&self, base_url: &str) -> Result<AppSettings, ShellError> {
        let url = base_url.trim();
        let mut settings = self.load()?.settings;
        settings.base_url = Some(url.to_string());
        let settings = normalized(settings)?;
        if !nerve::session::is_local_server(url) {
            return Err(ShellError::new(format!(
                "Without a key, Nerve uses only a server on this computer (localhost, 127.0.0.1 or ::1). For {url}, save a key above, then set the base URL in Settings."
            )));
        }
        self.save_settings(settings)
    }

    /// Puts `project` first in the recent list.
    pub fn remember_project(&self, project: &str) -> Result<(), ShellError> {
        let mut file = self.load()?;
        file.recent_projects.retain(|p| p != project);
        file.recent_projects.insert(0, project.to_string());
        file.recent_projects.truncate(MAX_RECENT);
        self.write(&file)
    }

    fn write(&self, file: &DesktopFile) -> Result<(), ShellError> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| ShellError::new(format!("cannot create {}: {e}", parent.display())))?;
        }
        let text = serde_json::to_string_pretty(file)
            .map_err(|e| ShellError::new(format!("cannot encode the settings: {e}")))?;
        nerve::files::write_atomic(&self.path, text.as_bytes()).map_err(|e| {
            ShellError::new(format!(
                "cannot save the settings to {}: {e}",
                self.path.display()
            ))
        })
    }
}

/// The most tool calls the concurrency setting allows at once.
pub const MAX_CONCURRENCY_SETTING: u32 = 64;

/// The most model calls per prompt the setting allows.
pub const MAX_MODEL_CALLS_SETTING: u32 = 10_000;

/// Blank fields mean "the default"; values a session could not use are refused with the reason.
fn normalized(settings: AppSettings) -> Result<AppSettings, ShellError> {
    let clean = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let base_url = clean(settings.base_url);
    if let Some(url) = &base_url {
        match tauri::Url::parse(url) {
            Ok(u) if matches!(u.scheme(), "http" | "https") => {}
            _ => {
                return Err(ShellError::new(format!(
                    "the base URL `{url}` is not an http or https URL (for example http://localhost:11434)"
                )));
            }
        }
    }
    let custom_headers = clean(settings.custom_headers);
    if let Some(text) = &custom_headers {
        nerve::session::parse_custom_headers(text)
            .map_err(|e| ShellError::new(format!("extra headers: {e}")))?;
    }
    if let Some(n) = settings.max_concurrency
        && !(1..=MAX_CONCURRENCY_SETTING).contains(&n)
    {
        return Err(ShellError::new(format!(
            "the concurrency cap must be between 1 and {MAX_CONCURRENCY_SETTING}, not {n}"
        )));
    }
    if let Some(n) = settings.max_model_calls
        && !(1..=MAX_MODEL_CALLS_SETTING).contains(&n)
    {
        return Err(ShellError::new(format!(
            "the model calls per prompt must be between 1 and {MAX_MODEL_CALLS_SETTING}, not {n}"
        )));
    }
    let update_feed_url = clean(settings.update_feed_url);
    if let Some(url) = &update_feed_url
        && !(url.starts_with("https://") || url.starts_with("http://"))
    {
        return Err(ShellError::new(format!(
            "the release feed `{url}` is not an http or https URL"
        )));
    }
    Ok(AppSettings {
        base_url,
        provider: settings.provider,
        model: clean(settings.model),
        fast_model: clean(settings.fast_model),
        effort: settings.effort,
        default_mode: settings.default_mode,
        max_concurrency: settings.max_concurrency,
        max_model_calls: settings.max_model_calls,
        custom_headers,
        new_session_worktree: settings.new_session_worktree,
        turn_end_notices: settings.turn_end_notices,
        shortcuts: settings
            .shortcuts
            .into_iter()
            .map(|(action, keys)| (action.trim().to_string(), keys.trim().to_string()))
            .filter(|(action, keys)| !action.is_empty() && !keys.is_empty())
            .collect(),
        sidebar_collapsed: settings.sidebar_collapsed,
        update_feed_url,
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn settings_round_trip_and_blank_fields_mean_default() {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::in_dir(dir.path());
        assert_eq!(store.load().unwrap(), DesktopFile::default());
        let saved = store
            .save_settings(AppSettings {
                base_url: Some(" http://127.0.0.1:9 ".into()),
                model: Some("  ".into()),
                custom_headers: Some(" X-Team: nerve \n".into()),
                max_concurrency: Some(4),
                ..AppSettings::default()
            })
            .unwrap();
        assert_eq!(saved.custom_headers.as_deref(), Some("X-Team: nerve"));
        assert_eq!(saved.base_url.as_deref(), Some("http://127.0.0.1:9"));
        assert_eq!(saved.model, None);
        assert_eq!(store.load().unwrap().settings, saved);
    }

    #[test]
    fn settings_a_session_could_not_use_are_refused_and_not_saved() {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::in_dir(dir.path());
        for (settings, expected) in [
            (
                AppSettings {
                    base_url: Some("localhost:11434".into()),
                    ..AppSettings::default()
                },
                "the base URL `localhost:11434` is not an http or https URL",
            ),
            (
                AppSettings {
                    custom_headers: Some("no colon here".into()),
                    ..AppSettings::default()
                },
                "extra headers:",
            ),
            (
                AppSettings {
                    max_concurrency: Some(0),
                    ..AppSettings::default()
                },
                "the concurrency cap must be between 1 and 64, not 0",
            ),
        ] {
            let err = store.save_settings(settings).unwrap_err().to_string();
            assert!(err.starts_with(expected), "{err}");
        }
        assert_eq!(store.load().unwrap(), DesktopFile::default());
    }

    #[test]
    fn a_local_server_is_used_without_a_key_and_another_address_is_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::in_dir(dir.path());
        let kept = store
            .save_settings(AppSettings {
                model: Some("qwen3:8b".into()),
                max_concurrency: Some(4),
                ..AppSettings::default()
            })
            .unwrap();
        for refused in [
            "http://192.168.1.20:11434",
            "https://localhost.example.com",
            "localhost:11434",
        ] {
            let err = store.use_local_server(refused).unwrap_err().to_string();
            let expected = if refused == "localhost:11434" {
                "the base URL `localhost:11434` is not an http or https URL (for example http://localhost:11434)".to_string()
            } else {
                format!(
                    "Without a key, Nerve uses only a server on this computer (localhost, 127.0.0.1 or ::1). For {refused}, save a key above, then set the base URL in Settings."
                )
            };
            assert_eq!(err, expected);
            assert_eq!(
                store.load().unwrap().settings,
                kept,
                "nothing saved for {refused}"
            );
        }
        for local in [
            " http://localhost:11434 ",
            "http://127.0.0.1:8080/",
            "https://LOCALHOST",
            "http://[::1]:11434",
        ] {
            let saved = store.use_local_server(local).unwrap();
            assert_eq!(
                saved,
                AppSettings {
                    base_url: Some(local.trim().to_string()),
                    ..kept.clone()
                }
            );
            assert_eq!(store.load().unwrap().settings, saved);
        }
    }

    #[test]
    fn a_file_from_an_older_version_still_loads() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("desktop.json"),
            r#"{"settings": {"base_url": null, "model": "m", "fast_model": null}, "recent_projects": ["/p"]}"#,
        )
        .unwrap();
        let file = SettingsStore::in_dir(dir.path()).load().unwrap();
        assert_eq!(file.settings.model.as_deref(), Some("m"));
        assert_eq!(file.settings.default_mode, None);
    }

    #[test]
    fn recent_projects_are_unique_newest_first_and_bounded() {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::in_dir(dir.path());
        for i in 0..12 {
            store.remember_project(&format!("/p{i}")).unwrap();
        }
        store.remember_project("/p5").unwrap();
        let recent = store.load().unwrap().recent_projects;
        assert_eq!(recent.len(), MAX_RECENT);
        assert_eq!(recent[0], "/p5");
        assert_eq!(recent.iter().filter(|p| *p == "/p5").count(), 1);
    }

    #[test]
    fn a_damaged_file_is_an_error_and_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = SettingsStore::in_dir(dir.path());
        std::fs::write(dir.path().join("desktop.json"), "{not json").unwrap();
        let err = store.load().unwrap_err().to_string();
        assert!(err.contains("not valid"), "{err}");
        assert!(store.remember_project("/p").is_err());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("desktop.json")).unwrap(),
            "{not json"
        );
    }
}
