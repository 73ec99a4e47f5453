//! The `hooks` section of settings files, in Claude Code's shape, parsed and merged across sources.
//!
//! ```json
//! {"PreToolUse": [{"matcher": "Bash|Edit",
//!                  "hooks": [{"type": "command", "command": "./check.sh", "timeout": 30}]}]}
//! ```
//!
//! Parsing is strict: an unknown event, an unknown field, a non-command hook type or a bad matcher is an
//! error naming the file and the JSON path, never a hook silently skipped. Claude Code's newer
//! `async`, `once` and `shell` fields are accepted (see where hooks are read).

use std::time::Duration;

use serde_json::{Map, Value};

use crate::hooks::config_error::{HookConfigError, HookConfigErrors, HookConfigProblem, json_type_name};
use crate::hooks::event::{HookEvent, MatchTargetKind};
use crate::hooks::matcher::HookMatcher;

/// How long a hook may run when its configuration gives no `timeout` (Claude Code's default).
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

const GROUP_FIELDS: &str = "matcher, hooks";
const HOOK_FIELDS: &str = "type, command, timeout, statusMessage, async, once, shell";

/// One shell command to run when its group matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandHook {
    /// The command line, run as `sh -c COMMAND`.
    pub command: String,
    /// How long it may run before its whole process group is killed.
    pub timeout: Duration,
    /// Text the UI may show while the hook runs (`statusMessage`).
    pub status_message: Option<String>,
    /// Label of the settings file it came from, for messages.
    pub source: String,
}

/// A `matcher` and the hooks it guards, for one event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookGroup {
    /// The event the group is registered under.
    pub event: HookEvent,
    /// Which targets (tool names, sources...) the group applies to.
    pub matcher: HookMatcher,
    /// The hooks to run, in file order.
    pub hooks: Vec<CommandHook>,
}

/// Every configured hook group from every settings source, in precedence order (earlier source first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HookConfig {
    groups: Vec<HookGroup>,
}

impl HookConfig {
    /// Parses the value of a settings file's `hooks` key; `source` labels the file in errors.
    ///
    /// `null` means "no hooks". All problems are collected, so the user can fix them in one pass.
    pub fn from_settings(hooks: &Value, source: &str) -> Result<HookConfig, HookConfigErrors> {
        let mut parser = Parser {
            source,
            errors: Vec::new(),
        };
        let groups = parser.parse_root(hooks);
        if parser.errors.is_empty() {
            Ok(HookConfig { groups })
        } else {
            Err(HookConfigErrors(parser.errors))
        }
    }

    /// Concatenates configurations, keeping their order: hooks from earlier configs run (and win
    /// "first" ties) before hooks from later ones.
    pub fn merge(configs: impl IntoIterator<Item = HookConfig>) -> HookConfig {
        HookConfig {
            groups: configs.into_iter().flat_map(|config| config.groups).collect(),
        }
    }

    /// All groups, in configuration order.
    pub fn groups(&self) -> &[HookGroup] {
        &self.groups
    }

    /// Whether no hook is configured at all.
    pub fn is_empty(&self) -> bool {
        self.groups.iter().all(|group| group.hooks.is_empty())
    }

    /// The hooks to run for `event` on `target`, in configuration order, each command once.
    ///
    /// Events without a match target ignore matchers. When an event has a target kind but the caller
    /// has no target, every group runs: skipping a guard because we could not tell whether it applies
    /// would fail open. Identical command strings run once (as in Claude Code); the first occurrence
    /// is kept, so its timeout and source label apply.
    pub fn hooks_for(&self, event: HookEvent, target: Option<&str>) -> Vec<&CommandHook> {
        let mut selected: Vec<&CommandHook> = Vec::new();
        for group in self.groups.iter().filter(|group| group.event == event) {
            let applies = match (event.match_target_kind(), target) {
                (MatchTargetKind::Nothing, _) => true,
                (
                    MatchTargetKind::ToolName
                    | MatchTargetKind::SessionStartSource
                    | MatchTargetKind::SessionEndReason
                    | MatchTargetKind::CompactTrigger
                    | MatchTargetKind::NotificationType,
                    None,
                ) => true,
                (
                    MatchTargetKind::ToolName
                    | MatchTargetKind::SessionStartSource
                    | MatchTargetKind::SessionEndReason
                    | MatchTargetKind::CompactTrigger
                    | MatchTargetKind::NotificationType,
                    Some(target),
                ) => group.matcher.matches(target),
            };
            if !applies {
                continue;
            }
            for hook in &group.hooks {
                if !selected.iter().any(|seen| seen.command == hook.command) {
                    selected.push(hook);
                }
            }
        }
        selected
    }
}

struct Parser<'a> {
    source: &'a str,
    errors: Vec<HookConfigError>,
}

impl Parser<'_> {
    fn fail(&mut self, path: &str, problem: HookConfigProblem) {
        self.errors.push(HookConfigError {
            source_label: self.source.to_owned(),
            path: path.to_owned(),
            problem,
        });
    }

    fn wrong_type(&mut self, path: &str, expected: &'static str, found: &Value) {
        self.fail(
            path,
            HookConfigProblem::WrongType {
                expected,
                found: json_type_name(found),
            },
        );
    }

    fn parse_root(&mut self, hooks: &Value) -> Vec<HookGroup> {
        let root = "hooks";
        let events = match hooks {
            Value::Null => return Vec::new(),
            Value::Object(events) => events,
            other => {
                self.wrong_type(root, "an object mapping event names to hook groups", other);
                return Vec::new();
            }
        };
        let mut groups = Vec::new();
        for (name, value) in events {
            let path = format!("{root}.{name}");
            let Some(event) = HookEvent::from_name(name) else {
                let known = HookEvent::ALL
                    .iter()
                    .map(|event| event.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
                self.fail(
                    &path,
                    HookConfigProblem::UnknownEvent {
                        name: name.clone(),
                        known,
                    },
                );
                continue;
            };
            let Value::Array(entries) = value else {
                self.wrong_type(&path, "an array of hook groups", value);
                continue;
            };
            for (index, entry) in entries.iter().enumerate() {
                let group_path = format!("{path}[{index}]");
                if let Some(group) = self.parse_group(event, entry, &group_path) {
                    groups.push(group);
                }
            }
        }
        groups
    }

    fn parse_group(&mut self, event: HookEvent, entry: &Value, path: &str) -> Option<HookGroup> {
        let Value::Object(fields) = entry else {
            self.wrong_type(path, "an object with \"matcher\" and \"hooks\"", entry);
            return None;
        };
        self.reject_unknown_fields(fields, &["matcher", "hooks"], GROUP_FIELDS, path);

        let matcher = match fields.get("matcher") {
            None | Some(Value::Null) => Some(HookMatcher::everything()),
            Some(Value::String(text)) => match HookMatcher::parse(text) {
                Ok(matcher) => Some(matcher),
                Err(error) => {
                    self.fail(&format!("{path}.matcher"), error.into());
                    None
                }
            },
            Some(other) => {
                self.wrong_type(&format!("{path}.matcher"), "a string", other);
                None
            }
        };

        let hooks_path = format!("{path}.hooks");
        let hooks = match fields.get("hooks") {
            None => {
                self.fail(path, HookConfigProblem::MissingField { field: "hooks" });
                None
            }
            Some(Value::Array(items)) => {
                let parsed: Vec<Option<CommandHook>> = items
                    .iter()
                    .enumerate()
                    .map(|(index, item)| self.parse_hook(item, &format!("{hooks_path}[{index}]")))
                    .collect();
                parsed.into_iter().collect::<Option<Vec<CommandHook>>>()
            }
            Some(other) => {
                self.wrong_type(&hooks_path, "an array of hooks", other);
                None
            }
        };

        Some(HookGroup {
            event,
            matcher: matcher?,
            hooks: hooks?,
        })
    }

    fn parse_hook(&mut self, item: &Value, path: &str) -> Option<CommandHook> {
        let Value::Object(fields) = item else {
            self.wrong_type(
                path,
                "an object like {\"type\": \"command\", \"command\": \"...\"}",
                item,
            );
            return None;
        };

        let kind = match fields.get("type") {
            None => {
                self.fail(path, HookConfigProblem::MissingField { field: "type" });
                return None;
            }
            Some(Value::String(kind)) => kind,
            Some(other) => {
                self.wrong_type(&format!("{path}.type"), "a string", other);
                return None;
            }
        };
        if kind != "command" {
            // Checked before the other fields: a `prompt` hook has different fields, and reporting
            // them one by one would bury the real problem.
            self.fail(
                &format!("{path}.type"),
                HookConfigProblem::UnsupportedType { kind: kind.clone() },
            );
            return None;
        }
        // Newer Claude Code fields are accepted so users' settings keep loading, and handled in
        // the safe direction: `async` hooks run like the others (awaited), `once` hooks run every
        // time, and `shell` is ignored (commands run under `sh`). None of these lets a call through
        // that the hook would have stopped.
        let unknown_ok = self.reject_unknown_fields(
            fields,
            &[
                "type",
                "command",
                "timeout",
                "statusMessage",
                "async",
                "once",
                "shell",
            ],
            HOOK_FIELDS,
            path,
        );

        let command = match fields.get("command") {
            None => {
                self.fail(path, HookConfigProblem::MissingField { field: "command" });
                None
            }
            Some(Value::String(command)) if command.trim().is_empty() => {
                self.fail(&format!("{path}.command"), HookConfigProblem::EmptyCommand);
                None
            }
            Some(Value::String(command)) => Some(command.clone()),
            Some(other) => {
                self.wrong_type(&format!("{path}.command"), "a string", other);
                None
            }
        };

        let timeout = match fields.get("timeout") {
            None | Some(Value::Null) => Some(DEFAULT_HOOK_TIMEOUT),
            Some(Value::Number(number)) => {
                let seconds = number.as_f64().filter(|s| s.is_finite() && *s > 0.0);
                match seconds.and_then(|s| Duration::try_from_secs_f64(s).ok()) {
                    Some(timeout) => Some(timeout),
                    None => {
                        self.fail(
                            &format!("{path}.timeout"),
                            HookConfigProblem::InvalidTimeout {
                                found: number.to_string(),
                            },
                        );
                        None
                    }
                }
            }
            Some(other) => {
                self.wrong_type(&format!("{path}.timeout"), "a number of seconds", other);
                None
            }
        };

        let status_message = match fields.get("statusMessage") {
            None | Some(Value::Null) => Some(None),
            Some(Value::String(message)) => Some(Some(message.clone())),
            Some(other) => {
                self.wrong_type(&format!("{path}.statusMessage"), "a string", other);
                None
            }
        };

        if !unknown_ok {
            return None;
        }
        Some(CommandHook {
            command: command?,
            timeout: timeout?,
            status_message: status_message?,
            source: self.source.to_owned(),
        })
    }

    /// Reports every field not in `allowed`; returns whether there were none.
    fn reject_unknown_fields(
        &mut self,
        fields: &Map<String, Value>,
        allowed: &[&str],
        supported: &'static str,
        path: &str,
    ) -> bool {
        let mut clean = true;
        for field in fields.keys() {
            if !allowed.contains(&field.as_str()) {
                clean = false;
                self.fail(
                    &format!("{path}.{field}"),
                    HookConfigProblem::UnsupportedField {
                        field: field.clone(),
                        supported,
                    },
                );
            }
        }
        clean
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    fn parse(value: Value) -> HookConfig {
        HookConfig::from_settings(&value, "settings.json").unwrap()
    }

    fn errors(value: Value) -> Vec<HookConfigError> {
        HookConfig::from_settings(&value, "/home/u/.nerve/settings.json")
            .unwrap_err()
            .0
    }

    fn error(path: &str, problem: HookConfigProblem) -> HookConfigError {
        HookConfigError {
            source_label: "/home/u/.nerve/settings.json".to_owned(),
            path: path.to_owned(),
            problem,
        }
    }

    fn hook(command: &str, seconds: u64, source: &str) -> CommandHook {
        CommandHook {
            command: command.to_owned(),
            timeout: Duration::from_secs(seconds),
            status_message: None,
            source: source.to_owned(),
        }
    }

    fn commands(hooks: Vec<&CommandHook>) -> Vec<&str> {
        hooks.into_iter().map(|hook| hook.command.as_str()).collect()
    }

    #[test]
    fn parses_claude_code_shape_with_default_timeout() {
        let config = parse(json!({
            "PreToolUse": [{"matcher": "Bash|Edit", "hooks": [
                {"type": "command", "command": "./check.sh", "timeout": 30},
                {"type": "command", "command": "./log.sh", "statusMessage": "logging"}
            ]}],
            "Stop": [{"hooks": [{"type": "command", "command": "./done.sh"}]}]
        }));
        let mut logged = hook("./log.sh", 60, "settings.json");
        logged.status_message = Some("logging".to_owned());
        assert_eq!(
            config.groups(),
            &[
                HookGroup {
                    event: HookEvent::PreToolUse,
                    matcher: HookMatcher::parse("Bash|Edit").unwrap(),
                    hooks: vec![hook("./check.sh", 30, "settings.json"), logged],
                },
                HookGroup {
                    event: HookEvent::Stop,
                    matcher: HookMatcher::everything(),
                    hooks: vec![hook("./done.sh", 60, "settings.json")],
                },
            ]
        );
    }

    #[test]
    fn fractional_timeouts_are_kept() {
        let config = parse(json!({"Stop": [{"hooks": [
            {"type": "command", "command": "x", "timeout": 1.5}
        ]}]}));
        assert_eq!(config.groups()[0].hooks[0].timeout, Duration::from_millis(1500));
    }

    #[test]
    fn null_means_no_hooks() {
        let config = parse(Value::Null);
        assert!(config.is_empty());
        assert_eq!(config.groups(), &[]);
    }

    #[test]
    fn unknown_event_is_an_error_naming_source_and_path() {
        let found = errors(json!({"PreToolUze": []}));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "hooks.PreToolUze");
        let text = found[0].to_string();
        assert!(
            text.starts_with(
                "/home/u/.nerve/settings.json: hooks.PreToolUze: unknown hook event \"PreToolUze\""
            ),
            "{text}"
        );
        assert!(text.contains("PreToolUse, PostToolUse"), "{text}");
    }

    #[test]
    fn wrong_shapes_are_reported_at_their_paths() {
        let found = errors(json!({
            "PreToolUse": {"matcher": "Bash"},
            "PostToolUse": [
                "./script.sh",
                {"matcher": 3, "hooks": [{"type": "command", "command": "x"}]},
                {"matcher": "Bash"},
                {"hooks": [{"type": "command", "command": ["x"]}]}
            ]
        }));
        assert_eq!(
            found,
            vec![
                error(
                    "hooks.PreToolUse",
                    HookConfigProblem::WrongType {
                        expected: "an array of hook groups",
                        found: "an object"
                    }
                ),
                error(
                    "hooks.PostToolUse[0]",
                    HookConfigProblem::WrongType {
                        expected: "an object with \"matcher\" and \"hooks\"",
                        found: "a string"
                    }
                ),
                error(
                    "hooks.PostToolUse[1].matcher",
                    HookConfigProblem::WrongType {
                        expected: "a string",
                        found: "a number"
                    }
                ),
                error(
                    "hooks.PostToolUse[2]",
                    HookConfigProblem::MissingField { field: "hooks" }
                ),
                error(
                    "hooks.PostToolUse[3].hooks[0].command",
                    HookConfigProblem::WrongType {
                        expected: "a string",
                        found: "an array"
                    }
                ),
            ]
        );
    }

    #[test]
    fn root_must_be_an_object() {
        assert_eq!(
            errors(json!([])),
            vec![error(
                "hooks",
                HookConfigProblem::WrongType {
                    expected: "an object mapping event names to hook groups",
                    found: "an array"
                }
            )]
        );
    }

    #[test]
    fn non_command_types_are_unsupported() {
        let found = errors(json!({"Stop": [{"hooks": [
            {"type": "prompt", "prompt": "Is the work done?"},
            {"command": "x"}
        ]}]}));
        assert_eq!(
            found,
            vec![
                error(
                    "hooks.Stop[0].hooks[0].type",
                    HookConfigProblem::UnsupportedType {
                        kind: "prompt".to_owned()
                    }
                ),
                error(
                    "hooks.Stop[0].hooks[1]",
                    HookConfigProblem::MissingField { field: "type" }
                ),
            ]
        );
        assert!(found[0].to_string().contains("only \"command\" hooks run"));
    }

    #[test]
    fn newer_claude_code_fields_are_accepted() {
        let config = HookConfig::from_settings(
            &json!({"PostToolUse": [{"hooks": [
                {"type": "command", "command": "x", "async": true, "once": true, "shell": "bash"}
            ]}]}),
            "s.json",
        )
        .unwrap();
        assert_eq!(config.hooks_for(HookEvent::PostToolUse, Some("Bash")).len(), 1);
    }

    #[test]
    fn unknown_fields_and_bad_values_are_errors() {
        let found = errors(json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "x", "sync": true},
            {"type": "command", "command": "  ", "timeout": 0},
            {"type": "command", "command": "y", "timeout": "30"}
        ], "extra": 1}]}));
        assert_eq!(
            found,
            vec![
                error(
                    "hooks.PreToolUse[0].extra",
                    HookConfigProblem::UnsupportedField {
                        field: "extra".to_owned(),
                        supported: GROUP_FIELDS
                    }
                ),
                error(
                    "hooks.PreToolUse[0].hooks[0].sync",
                    HookConfigProblem::UnsupportedField {
                        field: "sync".to_owned(),
                        supported: HOOK_FIELDS
                    }
                ),
                error(
                    "hooks.PreToolUse[0].hooks[1].command",
                    HookConfigProblem::EmptyCommand
                ),
                error(
                    "hooks.PreToolUse[0].hooks[1].timeout",
                    HookConfigProblem::InvalidTimeout {
                        found: "0".to_owned()
                    }
                ),
                error(
                    "hooks.PreToolUse[0].hooks[2].timeout",
                    HookConfigProblem::WrongType {
                        expected: "a number of seconds",
                        found: "a string"
                    }
                ),
            ]
        );
    }

    #[test]
    fn huge_and_negative_timeouts_are_rejected() {
        for bad in [json!(-5), json!(1e300)] {
            let found = errors(json!({"Stop": [{"hooks": [
                {"type": "command", "command": "x", "timeout": bad}
            ]}]}));
            assert!(
                matches!(found[0].problem, HookConfigProblem::InvalidTimeout { .. }),
                "{found:?}"
            );
        }
    }

    #[test]
    fn invalid_regex_matcher_is_a_config_error() {
        let found = errors(json!({"PreToolUse": [{"matcher": "mcp__(", "hooks": []}]}));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].path, "hooks.PreToolUse[0].matcher");
        assert!(matches!(found[0].problem, HookConfigProblem::InvalidMatcher(_)));
    }

    #[test]
    fn errors_display_lists_every_problem() {
        let all = HookConfig::from_settings(&json!({"A": [], "B": []}), "s.json").unwrap_err();
        let text = all.to_string();
        assert!(text.contains("2 problems"), "{text}");
        assert!(
            text.contains("s.json: hooks.A: unknown hook event \"A\""),
            "{text}"
        );
        assert!(
            text.contains("s.json: hooks.B: unknown hook event \"B\""),
            "{text}"
        );
    }

    #[test]
    fn merge_keeps_source_order_and_selection_dedupes_commands() {
        let user = HookConfig::from_settings(
            &json!({"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "./guard.sh", "timeout": 5}
            ]}]}),
            "user",
        )
        .unwrap();
        let project = HookConfig::from_settings(
            &json!({"PreToolUse": [{"matcher": "*", "hooks": [
                {"type": "command", "command": "./audit.sh"},
                {"type": "command", "command": "./guard.sh", "timeout": 99}
            ]}]}),
            "project",
        )
        .unwrap();
        let merged = HookConfig::merge([user, project]);

        let for_bash = merged.hooks_for(HookEvent::PreToolUse, Some("Bash"));
        assert_eq!(
            for_bash,
            vec![&hook("./guard.sh", 5, "user"), &hook("./audit.sh", 60, "project")]
        );
        assert_eq!(
            commands(merged.hooks_for(HookEvent::PreToolUse, Some("Read"))),
            vec!["./audit.sh", "./guard.sh"]
        );
        assert_eq!(
            commands(merged.hooks_for(HookEvent::PostToolUse, Some("Bash"))),
            Vec::<&str>::new()
        );
    }

    #[test]
    fn events_without_target_ignore_matchers() {
        let config = parse(json!({"UserPromptSubmit": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "./prompt.sh"}
        ]}]}));
        assert_eq!(
            commands(config.hooks_for(HookEvent::UserPromptSubmit, None)),
            vec!["./prompt.sh"]
        );
        assert_eq!(
            commands(config.hooks_for(HookEvent::UserPromptSubmit, Some("anything"))),
            vec!["./prompt.sh"]
        );
    }

    #[test]
    fn session_start_matches_on_source_and_unknown_target_runs_everything() {
        let config = parse(json!({"SessionStart": [
            {"matcher": "startup|resume", "hooks": [{"type": "command", "command": "./warm.sh"}]},
            {"matcher": "compact", "hooks": [{"type": "command", "command": "./recap.sh"}]}
        ]}));
        assert_eq!(
            commands(config.hooks_for(HookEvent::SessionStart, Some("resume"))),
            vec!["./warm.sh"]
        );
        assert_eq!(
            commands(config.hooks_for(HookEvent::SessionStart, Some("compact"))),
            vec!["./recap.sh"]
        );
        assert_eq!(
            commands(config.hooks_for(HookEvent::SessionStart, None)),
            vec!["./warm.sh", "./recap.sh"]
        );
    }
}
