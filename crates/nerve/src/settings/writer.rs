//! Adding rules to `.nerve/settings.local.json` ("Always allow"), keeping the rest of the file.

pub use nerve_protocol::settings::RuleEdit;

use std::io::Write;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::permissions::rule::{RuleBehavior, RuleValue};
use crate::settings::error::SettingsError;

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
    update_settings_file(&path, |root| {
        let list = string_list(&path, root, &["permissions", behavior.as_str()])?;
        for rule in rules {
            if !list.iter().any(|existing| same_rule(existing, rule)) {
                list.push(Value::String(rule.to_string()));
            }
        }
        Ok(())
    })?;
    Ok(path)
}

/// Adds `entry` (a path as settings write it: `~/.cache/x`, absolute, or from the project folder)
/// to `sandbox.filesystem.allowWrite` in the project's local settings file, written as
/// [`add_rules_to_local_settings`] writes; returns the file's path.
pub fn add_sandbox_write_to_local_settings(
    project_root: &Path,
    entry: &str,
) -> Result<PathBuf, SettingsError> {
    let path = local_settings_path(project_root);
    update_settings_file(&path, |root| {
        let list = string_list(&path, root, &["sandbox", "filesystem", "allowWrite"])?;
        if !list.iter().any(|existing| existing.as_str() == Some(entry)) {
            list.push(Value::String(entry.to_string()));
        }
        Ok(())
    })?;
    Ok(path)
}

/// Applies `edit` to the `behavior` list of the settings file at `path`, as
/// [`add_rules_to_local_settings`] writes (atomically, everything else kept). New rules are checked
/// with the rule parser first; a rule to remove or replace must be in the list.
pub fn edit_rules(path: &Path, behavior: RuleBehavior, edit: &RuleEdit) -> Result<(), SettingsError> {
    let parse = |text: &str| {
        text.parse::<RuleValue>().map_err(|source| SettingsError::Rule {
            path: path.to_path_buf(),
            source,
        })
    };
    let not_found = |rule: &str| SettingsError::RuleNotFound {
        path: path.to_path_buf(),
        behavior,
        rule: rule.to_string(),
    };
    update_settings_file(path, |root| {
        let list = string_list(path, root, &["permissions", behavior.as_str()])?;
        match edit {
            RuleEdit::Add { rule } => {
                let rule = parse(rule)?;
                if !list.iter().any(|existing| same_rule(existing, &rule)) {
                    list.push(Value::String(rule.to_string()));
                }
            }
            RuleEdit::Remove { rule } => {
                let before = list.len();
                list.retain(|existing| !same_text_or_rule(existing, rule));
                if list.len() == before {
                    return Err(not_found(rule));
                }
            }
            RuleEdit::Replace { old, new } => {
                let new = parse(new)?;
                let at = list
                    .iter()
                    .position(|existing| same_text_or_rule(existing, old))
                    .ok_or_else(|| not_found(old))?;
                list[at] = Value::String(new.to_string());
                // The new rule may already be elsewhere in the list: keep the first.
                let mut seen = false;
                list.retain(|existing| {
                    let same = same_rule(existing, &new);
                    let keep = !(same && seen);
                    seen |= same;
                    keep
                });
            }
        }
        Ok(())
    })
}

/// Adds `name` to (or removes it from) `enabledMcpjsonServers` of the settings file at `path`: the
/// approval of a project's `.mcp.json` server, which belongs in a personal file, never in the
/// committed project file.
pub fn set_mcpjson_server_enabled(path: &Path, name: &str, enabled: bool) -> Result<(), SettingsError> {
    update_settings_file(path, |root| {
        let list = string_list(path, root, &["enabledMcpjsonServers"])?;
        let present = list.iter().any(|v| v.as_str() == Some(name));
        if enabled && !present {
            list.push(Value::String(name.to_string()));
        } else if !enabled {
            list.retain(|v| v.as_str() != Some(name));
        }
        Ok(())
    })
}

/// Adds `name` to (`disabled`) or removes it from `disabledMcpServers` of the settings file at
/// `path`: a server the user switched off is not started.
pub fn set_mcp_server_disabled(path: &Path, name: &str, disabled: bool) -> Result<(), SettingsError> {
    update_settings_file(path, |root| {
        let list = string_list(path, root, &["disabledMcpServers"])?;
        let present = list.iter().any(|v| v.as_str() == Some(name));
        if disabled && !present {
            list.push(Value::String(name.to_string()));
        } else if !disabled {
            list.retain(|v| v.as_str() != Some(name));
        }
        Ok(())
    })
}

/// Sets (`Some`) or removes (`None`) the server `name` under `mcpServers` of the JSON file at
/// `path` (a settings file or a `.mcp.json`), keeping everything else. Returns whether the server
/// was there before.
pub fn set_mcp_server_entry(path: &Path, name: &str, entry: Option<Value>) -> Result<bool, SettingsError> {
    let mut existed = false;
    update_settings_file(path, |root| {
        let servers = root
            .entry("mcpServers")
            .or_insert_with(|| Value::Object(Map::new()));
        if servers.is_null() {
            *servers = Value::Object(Map::new());
        }
        let Value::Object(servers) = servers else {
            return Err(SettingsError::Shape {
                path: path.to_path_buf(),
                message: "`mcpServers` is not a JSON object".to_string(),
            });
        };
        existed = servers.contains_key(name);
        match entry {
            Some(entry) => {
                servers.insert(name.to_string(), entry);
            }
            None => {
                servers.remove(name);
            }
        }
        Ok(())
    })?;
    Ok(existed)
}

/// Adds (`add`) or removes one command hook under `hooks.<event>` of the settings file at `path`,
/// in Claude Code's shape (`[{"matcher": M, "hooks": [{"type": "command", "command": C}]}]`): an
/// added hook joins the group with the same matcher, or a new one; a removed hook leaves its group,
/// and an emptied group or event goes. Returns whether the file changed.
pub fn edit_hook_entry(
    path: &Path,
    event: &str,
    matcher: &str,
    command: &str,
    timeout_secs: Option<u32>,
    add: bool,
) -> Result<bool, SettingsError> {
    let shape = |message: &str| SettingsError::Shape {
        path: path.to_path_buf(),
        message: message.to_string(),
    };
    let mut changed = false;
    update_settings_file(path, |root| {
        let hooks = root.entry("hooks").or_insert_with(|| Value::Object(Map::new()));
        if hooks.is_null() {
            *hooks = Value::Object(Map::new());
        }
        let Value::Object(hooks) = hooks else {
            return Err(shape("`hooks` is not a JSON object"));
        };
        let groups = hooks
            .entry(event.to_string())
            .or_insert_with(|| Value::Array(Vec::new()));
        let Value::Array(groups) = groups else {
            return Err(shape(&format!("`hooks.{event}` is not a list")));
        };
        let same_matcher = |g: &Value| g.get("matcher").and_then(Value::as_str).unwrap_or("") == matcher;
        if add {
            let mut entry = serde_json::json!({"type": "command", "command": command});
            if let Some(t) = timeout_secs {
                entry["timeout"] = Value::from(t);
            }
            match groups.iter_mut().find(|g| same_matcher(g)) {
                Some(group) => match group.get_mut("hooks") {
                    Some(Value::Array(list)) => list.push(entry),
                    _ => return Err(shape(&format!("a `hooks.{event}` group has no `hooks` list"))),
                },
                None => {
                    let mut group = serde_json::json!({"hooks": [entry]});
                    if !matcher.is_empty() {
                        group["matcher"] = Value::from(matcher);
                    }
                    groups.push(group);
                }
            }
            changed = true;
        } else {
            for group in groups.iter_mut().filter(|g| same_matcher(g)) {
                if let Some(Value::Array(list)) = group.get_mut("hooks") {
                    let before = list.len();
                    list.retain(|h| h.get("command").and_then(Value::as_str) != Some(command));
                    changed |= list.len() != before;
                }
            }
            groups.retain(|g| {
                g.get("hooks")
                    .and_then(Value::as_array)
                    .is_none_or(|l| !l.is_empty())
            });
        }
        if groups.is_empty() {
            hooks.remove(event);
        }
        Ok(())
    })?;
    Ok(changed)
}

fn same_rule(existing: &Value, rule: &RuleValue) -> bool {
    match existing {
        Value::String(text) => {
            text == &rule.to_string() || text.parse::<RuleValue>().is_ok_and(|v| &v == rule)
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => false,
    }
}

/// The entry is `text` as written, or the same rule spelled otherwise.
fn same_text_or_rule(existing: &Value, text: &str) -> bool {
    existing.as_str() == Some(text.trim())
        || text
            .parse::<RuleValue>()
            .is_ok_and(|rule| same_rule(existing, &rule))
}

/// Reads the settings file at `path` (missing or blank: `{}`), lets `change` edit its top-level
/// object, and writes it back atomically. Nothing is written when `change` fails.
fn update_settings_file(
    path: &Path,
    change: impl FnOnce(&mut Map<String, Value>) -> Result<(), SettingsError>,
) -> Result<(), SettingsError> {
    let mut root = match std::fs::read_to_string(path) {
        Ok(text) if text.trim().is_empty() => Value::Object(Map::new()),
        Ok(text) => {
            serde_json::from_str(&text).map_err(|e| SettingsError::invalid(path.to_path_buf(), &e))?
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Value::Object(Map::new()),
        Err(e) => {
            return Err(SettingsError::Read {
                path: path.to_path_buf(),
                source: e,
            });
        }
    };
    let Value::Object(root_map) = &mut root else {
        return Err(SettingsError::Shape {
            path: path.to_path_buf(),
            message: "the top level is not a JSON object".to_string(),
        });
    };
    change(root_map)?;
    write_atomically(path, &root)
}

/// The array at `keys` under `root`, created (with the objects on the way) when missing or null.
fn string_list<'a>(
    path: &Path,
    root: &'a mut Map<String, Value>,
    keys: &[&str],
) -> Result<&'a mut Vec<Value>, SettingsError> {
    let shape_error = |message: String| SettingsError::Shape {
        path: path.to_path_buf(),
        message,
    };
    let Some((last, parents)) = keys.split_last() else {
        return Err(shape_error("no key to edit".to_string()));
    };
    let mut map = root;
    let mut at = String::new();
    for key in parents {
        at = if at.is_empty() {
            (*key).to_string()
        } else {
            format!("{at}.{key}")
        };
        let entry = map.entry(*key).or_insert_with(|| Value::Object(Map::new()));
        if entry.is_null() {
            *entry = Value::Object(Map::new());
        }
        let Value::Object(inner) = entry else {
            return Err(shape_error(format!("`{at}` is not a JSON object")));
        };
        map = inner;
    }
    let full = if at.is_empty() {
        (*last).to_string()
    } else {
        format!("{at}.{last}")
    };
    let list = map.entry(*last).or_insert_with(|| Value::Array(Vec::new()));
    if list.is_null() {
        *list = Value::Array(Vec::new());
    }
    let Value::Array(list) = list else {
        return Err(shape_error(format!("`{full}` is not a JSON array")));
    };
    Ok(list)
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
    use crate::settings::file::SettingsFile;
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
    fn edits_add_remove_and_replace_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("settings.json");
        std::fs::write(
            &path,
            r#"{"permissions": {"allow": ["Bash(ls)", "Read", "Bash(git *)"]}, "model": "x"}"#,
        )
        .unwrap();
        let edit = |e: RuleEdit| edit_rules(&path, RuleBehavior::Allow, &e);
        edit(RuleEdit::Add {
            rule: "Bash(npm test)".into(),
        })
        .unwrap();
        edit(RuleEdit::Add {
            rule: "Read(*)".into(),
        })
        .unwrap();
        edit(RuleEdit::Replace {
            old: "Bash(ls)".into(),
            new: "Bash(ls -la)".into(),
        })
        .unwrap();
        edit(RuleEdit::Remove {
            rule: "Bash(git *)".into(),
        })
        .unwrap();
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            value,
            json!({"permissions": {"allow": ["Bash(ls -la)", "Read", "Bash(npm test)"]}, "model": "x"})
        );
        let before = std::fs::read_to_string(&path).unwrap();
        let err = edit(RuleEdit::Remove {
            rule: "Bash(git *)".into(),
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("has no allow rule `Bash(git *)`"), "{err}");
        let err = edit(RuleEdit::Add {
            rule: "Bash(ls".into(),
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("needs a matching `)`"), "{err}");
        let err = edit(RuleEdit::Replace {
            old: "Read".into(),
            new: "Bash(ls -la)".into(),
        });
        assert!(err.is_ok());
        let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(
            value["permissions"]["allow"],
            json!(["Bash(ls -la)", "Bash(npm test)"])
        );
        assert_ne!(before, std::fs::read_to_string(&path).unwrap());
    }

    #[test]
    fn approves_and_revokes_an_mcp_json_server() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(".nerve/settings.local.json");
        set_mcpjson_server_enabled(&path, "docs", true).unwrap();
        set_mcpjson_server_enabled(&path, "docs", true).unwrap();
        set_mcpjson_server_enabled(&path, "db", true).unwrap();
        let read = || serde_json::from_str::<Value>(&std::fs::read_to_string(&path).unwrap()).unwrap();
        assert_eq!(read(), json!({"enabledMcpjsonServers": ["docs", "db"]}));
        set_mcpjson_server_enabled(&path, "docs", false).unwrap();
        assert_eq!(read(), json!({"enabledMcpjsonServers": ["db"]}));
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
