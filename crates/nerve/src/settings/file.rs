//! One settings file: its `permissions` block and raw `hooks`.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use crate::permissions::PermissionMode;
use crate::permissions::rule::{RuleBehavior, RuleSource, RuleValue};
use crate::settings::error::SettingsError;

/// The only value Claude Code accepts for `disableBypassPermissionsMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DisableBypass {
    /// `"disable"`: the bypassPermissions mode may not be entered.
    Disable,
}

impl<'de> Deserialize<'de> for DisableBypass {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = String::deserialize(deserializer)?;
        match value.as_str() {
            "disable" => Ok(DisableBypass::Disable),
            other => Err(serde::de::Error::custom(format!(
                "`disableBypassPermissionsMode` must be \"disable\" (or left out), not {other:?}"
            ))),
        }
    }
}

/// The `permissions` object of a settings file.
///
/// Unknown keys here are an error, unlike at the top level: a misspelt `"Deny"` would otherwise
/// drop a deny list without a word.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PermissionsSettings {
    /// Rules that approve matching calls.
    #[serde(default)]
    pub allow: Vec<RuleValue>,
    /// Rules that make matching calls ask.
    #[serde(default)]
    pub ask: Vec<RuleValue>,
    /// Rules that refuse matching calls.
    #[serde(default)]
    pub deny: Vec<RuleValue>,
    /// The mode a session starts in.
    #[serde(default)]
    pub default_mode: Option<PermissionMode>,
    /// Folders outside the project the session may work in, as written (resolved by the loader).
    #[serde(default)]
    pub additional_directories: Vec<String>,
    /// Forbids the bypassPermissions mode.
    #[serde(default)]
    pub disable_bypass_permissions_mode: Option<DisableBypass>,
}

impl PermissionsSettings {
    /// The rule list for `behavior`.
    pub fn rules(&self, behavior: RuleBehavior) -> &[RuleValue] {
        match behavior {
            RuleBehavior::Allow => &self.allow,
            RuleBehavior::Ask => &self.ask,
            RuleBehavior::Deny => &self.deny,
        }
    }
}

/// Accepts `T` only from a JSON object: serde's derived structs would also accept an array of
/// field values, and `"permissions": [["Bash"]]` must not quietly become an allow list.
struct ObjectOnly<T>(T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for ObjectOnly<T> {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> serde::de::Visitor<'de> for ObjectVisitor<T> {
            type Value = T;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<T, A::Error> {
                T::deserialize(serde::de::value::MapAccessDeserializer::new(map))
            }
        }
        deserializer
            .deserialize_any(ObjectVisitor(std::marker::PhantomData))
            .map(ObjectOnly)
    }
}

/// Top-level keys Nerve reads; every other key (`env`, `model`, ...) is ignored, as Claude Code
/// ignores keys it does not know.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSettings {
    #[serde(default)]
    permissions: Option<ObjectOnly<PermissionsSettings>>,
    #[serde(default)]
    hooks: Option<Value>,
    #[serde(default)]
    enable_all_project_mcp_servers: Option<bool>,
    #[serde(default)]
    enabled_mcpjson_servers: Vec<String>,
    #[serde(default)]
    disabled_mcp_servers: Vec<String>,
    #[serde(default)]
    sandbox: Option<ObjectOnly<crate::sandbox::settings::SandboxSettings>>,
    #[serde(default)]
    worktree: Option<ObjectOnly<WorktreeSettings>>,
}

/// The `worktree` object of a settings file: what a session's new worktree gets.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct WorktreeSettings {
    /// A command run once in each new worktree before the session's first prompt (installing
    /// dependencies, say), as a Bash call: shown, and asked like any other command.
    #[serde(default)]
    pub setup_command: Option<String>,
}

/// One parsed settings file.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsFile {
    /// Which source the file is.
    pub source: RuleSource,
    /// Where it was read from.
    pub path: PathBuf,
    /// Its `permissions` block (empty if absent).
    pub permissions: PermissionsSettings,
    /// Its `hooks` value, unparsed (the hooks module owns that format).
    pub hooks: Option<Value>,
    /// `enableAllProjectMcpServers`: start every server of the project's `.mcp.json`.
    pub enable_all_project_mcp_servers: Option<bool>,
    /// `enabledMcpjsonServers`: the `.mcp.json` servers to start, by name.
    pub enabled_mcpjson_servers: Vec<String>,
    /// `disabledMcpServers`: servers of any scope the user switched off, by name (not started).
    pub disabled_mcp_servers: Vec<String>,
    /// Its `sandbox` block (empty if absent).
    pub sandbox: crate::sandbox::settings::SandboxSettings,
    /// Its `worktree` block (empty if absent).
    pub worktree: WorktreeSettings,
}

impl SettingsFile {
    /// Parses `text` as the settings file at `path`. A file holding only whitespace is an empty
    /// settings object.
    pub fn parse(source: RuleSource, path: &Path, text: &str) -> Result<Self, SettingsError> {
        let raw: RawSettings = if text.trim().is_empty() {
            RawSettings {
                permissions: None,
                hooks: None,
                enable_all_project_mcp_servers: None,
                enabled_mcpjson_servers: Vec::new(),
                disabled_mcp_servers: Vec::new(),
                sandbox: None,
                worktree: None,
            }
        } else {
            serde_json::from_str::<ObjectOnly<RawSettings>>(text)
                .map_err(|e| SettingsError::invalid(path.to_path_buf(), &e))?
                .0
        };
        Ok(SettingsFile {
            source,
            path: path.to_path_buf(),
            permissions: raw.permissions.map(|p| p.0).unwrap_or_default(),
            hooks: raw.hooks,
            enable_all_project_mcp_servers: raw.enable_all_project_mcp_servers,
            enabled_mcpjson_servers: raw.enabled_mcpjson_servers,
            disabled_mcp_servers: raw.disabled_mcp_servers,
            sandbox: raw.sandbox.map(|s| s.0).unwrap_or_default(),
            worktree: raw.worktree.map(|w| w.0).unwrap_or_default(),
        })
    }

    /// Reads and parses the file at `path`; `Ok(None)` if it does not exist.
    pub fn load(source: RuleSource, path: &Path) -> Result<Option<Self>, SettingsError> {
        match std::fs::read_to_string(path) {
            Ok(text) => SettingsFile::parse(source, path, &text).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source_error) => Err(SettingsError::Read {
                path: path.to_path_buf(),
                source: source_error,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn parse(text: &str) -> Result<SettingsFile, SettingsError> {
        SettingsFile::parse(
            RuleSource::ProjectSettings,
            Path::new("/p/.nerve/settings.json"),
            text,
        )
    }

    fn invalid(text: &str) -> (usize, usize, String) {
        match parse(text) {
            Err(SettingsError::Invalid {
                line,
                column,
                message,
                ..
            }) => (line, column, message),
            other => panic!("expected Invalid, got {other:?}"),
        }
    }

    #[test]
    fn parses_claude_code_shape_and_ignores_unknown_top_level_keys() {
        let file = parse(
            r#"{
              "permissions": {
                "allow": ["Bash(git *)", "Read"],
                "ask": ["Bash(git push *)"],
                "deny": ["Read(./.env)"],
                "defaultMode": "acceptEdits",
                "additionalDirectories": ["../lib"],
                "disableBypassPermissionsMode": "disable"
              },
              "hooks": {"PreToolUse": []},
              "env": {"FOO": "1"},
              "model": "opus"
            }"#,
        )
        .unwrap();
        assert_eq!(
            file.permissions,
            PermissionsSettings {
                allow: vec![RuleValue::with_content("Bash", "git *"), RuleValue::bare("Read")],
                ask: vec![RuleValue::with_content("Bash", "git push *")],
                deny: vec![RuleValue::with_content("Read", "./.env")],
                default_mode: Some(PermissionMode::AcceptEdits),
                additional_directories: vec!["../lib".into()],
                disable_bypass_permissions_mode: Some(DisableBypass::Disable),
            }
        );
        assert_eq!(file.hooks, Some(json!({"PreToolUse": []})));
    }

    #[test]
    fn empty_and_minimal_files_are_empty_settings() {
        for text in [
            "",
            "  \n",
            "{}",
            r#"{"permissions": {}}"#,
            r#"{"permissions": null}"#,
        ] {
            let file = parse(text).unwrap();
            assert_eq!(file.permissions, PermissionsSettings::default(), "{text:?}");
            assert_eq!(file.hooks, None);
        }
    }

    #[test]
    fn bad_json_reports_line_and_column() {
        let (line, column, message) = invalid("{\n  \"permissions\": {\n    \"allow\": [\"Bash\",]\n  }\n}");
        assert_eq!((line, column), (3, 22));
        assert!(message.contains("trailing comma"), "{message}");
    }

    #[test]
    fn invalid_rule_reports_position_and_rule() {
        let (line, _, message) = invalid("{\"permissions\": {\n\"deny\": [\"Bash(rm *\"]}}");
        assert_eq!(line, 2);
        assert!(message.contains("`Bash(rm *`"), "{message}");
    }

    #[test]
    fn unknown_mode_lists_valid_modes() {
        let (line, _, message) = invalid("{\"permissions\": {\"defaultMode\": \"yolo\"}}");
        assert_eq!(line, 1);
        assert!(message.contains("unknown permission mode `yolo`"), "{message}");
        assert!(message.contains("acceptEdits"), "{message}");
    }

    #[test]
    fn wrong_types_and_unknown_permission_keys_are_errors() {
        let (_, _, message) = invalid(r#"{"permissions": {"allow": "Bash"}}"#);
        assert!(message.contains("expected a sequence"), "{message}");
        let (_, _, message) = invalid(r#"{"permissions": {"Deny": ["Bash"]}}"#);
        assert!(message.contains("unknown field `Deny`"), "{message}");
        let (_, _, message) = invalid(r#"{"permissions": {"disableBypassPermissionsMode": true}}"#);
        assert!(
            message.contains("invalid type: boolean `true`, expected a string"),
            "{message}"
        );
        let (_, _, message) = invalid(r#"{"permissions": {"disableBypassPermissionsMode": "yes"}}"#);
        assert!(message.contains("must be \"disable\""), "{message}");
        let (_, _, message) = invalid(r#"{"permissions": {"defaultMode": 1}}"#);
        assert!(message.contains("expected a string"), "{message}");
        let (_, _, message) = invalid("[]");
        assert!(
            message.contains("invalid type: sequence, expected a JSON object"),
            "{message}"
        );
        let (_, _, message) = invalid(r#"{"permissions": [["Bash"]]}"#);
        assert!(message.contains("expected a JSON object"), "{message}");
        let (_, _, message) = invalid("null");
        assert!(message.contains("expected a JSON object"), "{message}");
    }

    #[test]
    fn error_message_names_the_file_and_position() {
        let err = parse("{").unwrap_err().to_string();
        assert!(err.contains("/p/.nerve/settings.json"), "{err}");
        assert!(err.contains("settings.json:1:1 is invalid"), "{err}");
        assert!(!err.contains("at line 1 column 1"), "{err}");
    }

    #[test]
    fn load_treats_missing_file_as_none_and_unreadable_as_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("settings.json");
        assert_eq!(
            SettingsFile::load(RuleSource::UserSettings, &missing).unwrap(),
            None
        );
        let err = SettingsFile::load(RuleSource::UserSettings, dir.path()).unwrap_err();
        assert!(matches!(err, SettingsError::Read { .. }), "{err:?}");
    }
}
