//! The rules in effect, each with its source and file, and editing them in the files the user owns.

pub use nerve_protocol::settings::{RuleEntry, RuleSyntax, RuleSyntaxError, RulesView, WritableFile};

use std::path::Path;

use crate::permissions::lint::rule_warnings;
use crate::permissions::{RuleBehavior, RuleSet, RuleSource, RuleValue};
use crate::settings::{RuleEdit, SettingsError, SettingsLocations, edit_rules};

/// Whether rules of `source` live in a file the user may edit.
pub fn is_editable(source: RuleSource) -> bool {
    match source {
        RuleSource::Managed | RuleSource::CliArg | RuleSource::Session => false,
        RuleSource::LocalSettings
        | RuleSource::ProjectSettings
        | RuleSource::UserSettings
        | RuleSource::ClaudeLocalSettings
        | RuleSource::ClaudeProjectSettings => true,
    }
}

/// The rules of `rules` (a session's or a freshly opened project's) as a settings screen lists them.
pub fn rules_view(rules: &RuleSet, locations: &SettingsLocations, project_root: &Path) -> RulesView {
    let mut entries: Vec<(RuleSource, usize, RuleEntry)> = rules
        .all()
        .iter()
        .map(|rule| {
            let order = RuleBehavior::STRONGEST_FIRST
                .iter()
                .position(|b| *b == rule.behavior)
                .unwrap_or(0);
            let entry = RuleEntry {
                behavior: rule.behavior,
                rule: rule.value.to_string(),
                source: rule.source,
                path: locations
                    .path_for(rule.source, project_root)
                    .map(|p| p.display().to_string()),
                editable: is_editable(rule.source),
            };
            (rule.source, order, entry)
        })
        .collect();
    // Stable: file order is kept within a source and behaviour.
    entries.sort_by_key(|(source, order, _)| (*source, *order));
    let writable = [
        RuleSource::LocalSettings,
        RuleSource::ProjectSettings,
        RuleSource::UserSettings,
    ]
    .into_iter()
    .filter_map(|source| {
        locations.path_for(source, project_root).map(|p| WritableFile {
            source,
            path: p.display().to_string(),
        })
    })
    .collect();
    RulesView {
        rules: entries.into_iter().map(|(_, _, e)| e).collect(),
        warnings: rule_warnings(rules),
        writable,
    }
}

/// Parses `text` as a rule, with the error's position when it does not parse.
pub fn check_rule_syntax(text: &str) -> RuleSyntax {
    match text.parse::<RuleValue>() {
        Ok(rule) => RuleSyntax::Valid {
            normalized: rule.to_string(),
        },
        Err(e) => {
            let span = e.span_in(text);
            let utf16 = |byte: usize| {
                let units = text.get(..byte).map_or(0, |s| s.encode_utf16().count());
                u32::try_from(units).unwrap_or(u32::MAX)
            };
            RuleSyntax::Invalid {
                error: RuleSyntaxError {
                    message: e.to_string(),
                    start: utf16(span.start),
                    end: utf16(span.end),
                },
            }
        }
    }
}

/// Applies `edit` to the `behavior` list of `source`'s settings file for the project; returns the
/// file's path. Managed, command-line and session rules are refused.
pub fn edit_rule(
    locations: &SettingsLocations,
    project_root: &Path,
    source: RuleSource,
    behavior: RuleBehavior,
    edit: &RuleEdit,
) -> Result<std::path::PathBuf, SettingsError> {
    let path = locations
        .path_for(source, project_root)
        .filter(|_| is_editable(source))
        .ok_or(SettingsError::NotEditable { from: source })?;
    edit_rules(&path, behavior, edit)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::PermissionRule;
    use pretty_assertions::assert_eq;
    use std::path::PathBuf;

    fn locations() -> SettingsLocations {
        SettingsLocations {
            managed_file: PathBuf::from("/etc/nerve/managed-settings.json"),
            config_dir: PathBuf::from("/home/me/.config"),
            home: PathBuf::from("/home/me"),
        }
    }

    #[test]
    fn lists_rules_by_source_then_strength_with_their_files() {
        let rule = |source, behavior, text: &str| {
            PermissionRule::new(source, behavior, text.parse().unwrap(), PathBuf::from("/p"))
        };
        let set = RuleSet::from_rules(vec![
            rule(RuleSource::UserSettings, RuleBehavior::Allow, "Bash(ls)"),
            rule(RuleSource::ProjectSettings, RuleBehavior::Allow, "Read"),
            rule(
                RuleSource::ProjectSettings,
                RuleBehavior::Deny,
                "Bash(curl -X POST *)",
            ),
            rule(RuleSource::Session, RuleBehavior::Allow, "Bash(make)"),
            rule(RuleSource::Managed, RuleBehavior::Deny, "WebFetch"),
        ]);
        let view = rules_view(&set, &locations(), Path::new("/p"));
        let listed: Vec<(String, RuleBehavior, RuleSource, Option<String>, bool)> = view
            .rules
            .into_iter()
            .map(|e| (e.rule, e.behavior, e.source, e.path, e.editable))
            .collect();
        assert_eq!(
            listed,
            vec![
                (
                    "WebFetch".into(),
                    RuleBehavior::Deny,
                    RuleSource::Managed,
                    Some("/etc/nerve/managed-settings.json".into()),
                    false
                ),
                (
                    "Bash(make)".into(),
                    RuleBehavior::Allow,
                    RuleSource::Session,
                    None,
                    false
                ),
                (
                    "Bash(curl -X POST *)".into(),
                    RuleBehavior::Deny,
                    RuleSource::ProjectSettings,
                    Some("/p/.nerve/settings.json".into()),
                    true
                ),
                (
                    "Read".into(),
                    RuleBehavior::Allow,
                    RuleSource::ProjectSettings,
                    Some("/p/.nerve/settings.json".into()),
                    true
                ),
                (
                    "Bash(ls)".into(),
                    RuleBehavior::Allow,
                    RuleSource::UserSettings,
                    Some("/home/me/.config/nerve/settings.json".into()),
                    true
                ),
            ]
        );
        assert_eq!(view.warnings.len(), 1, "{:?}", view.warnings);
        assert_eq!(view.writable.len(), 3);
    }

    #[test]
    fn syntax_errors_carry_utf16_positions() {
        assert_eq!(
            check_rule_syntax("Bash(*)"),
            RuleSyntax::Valid {
                normalized: "Bash".into()
            }
        );
        let RuleSyntax::Invalid { error } = check_rule_syntax("Bash(écho") else {
            panic!("expected an error");
        };
        assert_eq!((error.start, error.end), (4, 9));
        assert!(error.message.contains("matching `)`"), "{}", error.message);
    }

    #[test]
    fn managed_and_session_rules_are_not_edited() {
        for source in [RuleSource::Managed, RuleSource::Session, RuleSource::CliArg] {
            let err = edit_rule(
                &locations(),
                Path::new("/p"),
                source,
                RuleBehavior::Allow,
                &RuleEdit::Add { rule: "Read".into() },
            )
            .unwrap_err();
            assert!(matches!(err, SettingsError::NotEditable { .. }), "{err}");
        }
    }
}
