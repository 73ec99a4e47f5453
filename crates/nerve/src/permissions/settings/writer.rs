//! Adding rules to `.nerve/settings.local.json` ("Always allow"), keeping the rest of the file.

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::permissions::rule::{RuleBehavior, RuleValue};
use crate::permissions::settings::error::SettingsError;

/// The project's personal settings file, `<project>/.nerve/settings.local.json`.
pub fn local_settings_path(project_root: &Path) -> PathBuf {
    project_root.join(".nerve").join("settings.local.json")
}

/// Adds `rules` to the `behavior` list of the project's local settings file and returns its path.
///
/// Creates the file (and `.nerve/`) if needed. Every other key, and the order of keys, is kept.
/// Rules already present (by parsed value, so `Bash(*)` equals `Bash`) are not added twice. The
/// file is written to a temporary file in the same folder and renamed over the old one, so a
/// crash leaves either the old or the new file, never half of one. A file that is not valid JSON,
/// or whose `permissions`/list has the wrong type, is left alone and reported. Two writers racing
/// on the same file may lose one update (last rename wins); the caller serialises its own writes.
/// A symlinked settings file is replaced by a regular file.
pub fn add_rules_to_local_settings(
    project_root: &Path,
    behavior: RuleBehavior,
    rules: &[RuleValue],
) -> Result<PathBuf, SettingsError> {
    let path = local_settings_path(project_root);
    let shape_error = |message: &str| SettingsError::Shape {
        path: path.clone(),
        message: message.to_string(),
    };
    let mut root = match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => serde_json::from_str(&text).map_err(|e| SettingsError::invalid(path.clone(), &e))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => {
            return Err(SettingsError::Read {
                path: path.clone(),
                source: e,
            });
        }
    };
    let Value::Object(root_map) = &mut root else {
        return Err(shape_error("the top level is not a JSON object"));
    };
    let permissions = root_map
        .entry("permissions")
        .or_insert_with(|| Value::Object(Map::new()));
    if permissions.is_null() {
        *permissions = Value::Object(Map::new());
    }
    let Value::Object(permissions) = permissions else {
        return Err(shape_error("`permissions` is not a JSON object"));
    };
    let list = permissions
        .entry(behavior.as_str())
        .or_insert_with(|| Value::Array(Vec::new()));
    let Value::Array(list) = list else {
        return Err(shape_error(&format!(
            "`permissions.{behavior}` is not a JSON array"
        )));
    };
    for rule in rules {
        let present = list.iter().any(|existing| match existing {
            Value::String(text) => {
                text == &rule.to_string() || text.parse::<RuleValue>().is_ok_and(|v| &v == rule)
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => false,
        });
        if !present {
            list.push(Value::String(rule.to_string()));
        }
    }
    write_atomically(&path, &root)?;
    Ok(path)
}

fn write_atomically(path: &Path, value: &Value) -> Result<(), SettingsError> {
    let write_error = |source: std::io::Error| SettingsError::Write {
        path: path.to_path_buf(),
        source,
    };
    let folder = path
        .parent()
        .ok_or_else(|| write_error(std::io::Error::other("the path has no parent folder")))?;
    std::fs::create_dir_all(folder).map_err(write_error)?;
    let mut text = serde_json::to_string_pretty(value).map_err(|e| write_error(e.into()))?;
    text.push('\n');
    let mut temp = tempfile::NamedTempFile::new_in(folder).map_err(write_error)?;
    temp.write_all(text.as_bytes()).map_err(write_error)?;
    temp.as_file().sync_all().map_err(write_error)?;
    // Keep the old file's permissions (the temporary file is created 0600).
    if let Ok(metadata) = std::fs::metadata(path) {
        std::fs::set_permissions(temp.path(), metadata.permissions()).map_err(write_error)?;
    }
    temp.persist(path).map_err(|e| write_error(e.error))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::rule::RuleSource;
    use crate::permissions::settings::file::SettingsFile;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn rule(text: &str) -> RuleValue {
        text.parse().unwrap()
    }

    #[test]
    fn creates_the_file_and_folder() {
        let dir = tempfile::tempdir().unwrap();
        let path = add_rules_to_local_settings(
            dir.path(),
            RuleBehavior::Allow,
            &[rule("Bash(git commit *)"), rule("Edit(/src/**)")],
        )
        .unwrap();
        assert_eq!(path, dir.path().join(".nerve/settings.local.json"));
        let text = std::fs::read_to_string(&path).unwrap();
        let file = SettingsFile::parse(RuleSource::LocalSettings, &path, &text).unwrap();
        assert_eq!(
            file.permissions.allow,
            vec![rule("Bash(git commit *)"), rule("Edit(/src/**)")]
        );
    }

    #[test]
    fn keeps_other_keys_and_order_and_skips_duplicates() {
        let dir = tempfile::tempdir().unwrap();
        let path = local_settings_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(
            &path,
            r#"{"env": {"A": "1"}, "permissions": {"deny": ["Read(./.env)"], "allow": ["Bash(*)", "Bash(ls)"]}, "hooks": {"Stop": []}}"#,
        )
        .unwrap();
        add_rules_to_local_settings(
            dir.path(),
            RuleBehavior::Allow,
            &[rule("Bash"), rule("Bash(ls)"), rule("Bash(npm test *)")],
        )
        .unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            value,
            json!({
                "env": {"A": "1"},
                "permissions": {
                    "deny": ["Read(./.env)"],
                    "allow": ["Bash(*)", "Bash(ls)", "Bash(npm test *)"]
                },
                "hooks": {"Stop": []}
            })
        );
        let keys: Vec<&String> = value.as_object().unwrap().keys().collect();
        assert_eq!(keys, vec!["env", "permissions", "hooks"]);
        let leftovers: Vec<_> = std::fs::read_dir(path.parent().unwrap())
            .unwrap()
            .map(|entry| entry.unwrap().file_name())
            .collect();
        assert_eq!(leftovers, vec![std::ffi::OsString::from("settings.local.json")]);
    }

    #[test]
    fn refuses_to_touch_a_bad_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = local_settings_path(dir.path());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        for (text, expected) in [
            ("{ not json", "settings.local.json:1:3 is invalid"),
            ("[]", "top level is not a JSON object"),
            (r#"{"permissions": []}"#, "`permissions` is not a JSON object"),
            (
                r#"{"permissions": {"ask": "Bash"}}"#,
                "`permissions.ask` is not a JSON array",
            ),
        ] {
            std::fs::write(&path, text).unwrap();
            let err = add_rules_to_local_settings(dir.path(), RuleBehavior::Ask, &[rule("Bash")])
                .unwrap_err()
                .to_string();
            assert!(err.contains(expected), "{text}: {err}");
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }
}
