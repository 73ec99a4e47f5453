//! The configured hooks: listed with their files, added to and removed from the files the user
//! owns, and run once against a sample event of their kind ("test this hook").

pub use nerve_protocol::settings::{HookSpec, HookTestResult, HookView};

use std::path::{Path, PathBuf};

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::hooks::config::HookConfig;
use crate::hooks::{HookEnding, HookEvent, HookInput, HookReply, interpret::interpret, runner::run_hooks};
use crate::permissions::RuleSource;
use crate::settings::{SettingsError, SettingsLocations, edit_hook_entry};

/// Why a hook could not be changed or tested.
#[derive(Debug, thiserror::Error)]
pub enum HookEditError {
    /// The settings file could not be changed.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The hook cannot be what it says.
    #[error("{0}")]
    Invalid(String),
}

/// Every hook command, in the order they run.
pub fn hooks_of(config: &HookConfig) -> Vec<HookView> {
    config
        .groups()
        .iter()
        .flat_map(|group| {
            group.hooks.iter().map(|hook| HookView {
                event: group.event.as_str().to_string(),
                matcher: group.matcher.as_str().to_string(),
                command: hook.command.clone(),
                timeout_secs: u32::try_from(hook.timeout.as_secs()).unwrap_or(u32::MAX),
                source: hook.source.clone(),
                editable_source: None,
            })
        })
        .collect()
}

/// The files whose hooks the app changes: the user's, the project's and the project's local
/// settings (Claude Code's files and the managed policy are shown, not changed).
const EDITABLE: [RuleSource; 3] = [
    RuleSource::LocalSettings,
    RuleSource::ProjectSettings,
    RuleSource::UserSettings,
];

/// [`hooks_of`], each hook marked with its file's kind when the app may change it.
pub fn project_hooks(
    config: &HookConfig,
    locations: &SettingsLocations,
    project_root: &Path,
) -> Vec<HookView> {
    let editable: Vec<(RuleSource, String)> = EDITABLE
        .iter()
        .filter_map(|s| {
            locations
                .path_for(*s, project_root)
                .map(|p| (*s, p.display().to_string()))
        })
        .collect();
    hooks_of(config)
        .into_iter()
        .map(|mut view| {
            view.editable_source = editable.iter().find(|(_, p)| *p == view.source).map(|(s, _)| *s);
            view
        })
        .collect()
}

/// The file of `source` whose hooks the app may change.
fn hooks_file(
    locations: &SettingsLocations,
    project_root: &Path,
    source: RuleSource,
) -> Result<PathBuf, HookEditError> {
    EDITABLE
        .contains(&source)
        .then(|| locations.path_for(source, project_root))
        .flatten()
        .ok_or_else(|| HookEditError::Invalid(format!("hooks are not changed in the {source:?} file here")))
}

/// Checks a hook before it is written: a known event, a matcher that parses, a command.
fn check(hook: &HookSpec) -> Result<HookEvent, HookEditError> {
    let event = HookEvent::from_name(hook.event.trim())
        .ok_or_else(|| HookEditError::Invalid(format!("{:?} is not a hook event", hook.event)))?;
    crate::hooks::HookMatcher::parse(hook.matcher.trim())
        .map_err(|e| HookEditError::Invalid(format!("the matcher {:?}: {e}", hook.matcher)))?;
    if hook.command.trim().is_empty() {
        return Err(HookEditError::Invalid("a hook needs a command".into()));
    }
    Ok(event)
}

/// Adds `hook` to the settings file of `source`; returns the file.
pub fn add_hook(
    locations: &SettingsLocations,
    project_root: &Path,
    source: RuleSource,
    hook: &HookSpec,
) -> Result<PathBuf, HookEditError> {
    let event = check(hook)?;
    let path = hooks_file(locations, project_root, source)?;
    edit_hook_entry(
        &path,
        event.as_str(),
        hook.matcher.trim(),
        hook.command.trim(),
        hook.timeout_secs,
        true,
    )?;
    Ok(path)
}

/// Removes `hook` (its event, matcher and command) from the settings file of `source`; returns
/// the file.
pub fn remove_hook(
    locations: &SettingsLocations,
    project_root: &Path,
    source: RuleSource,
    hook: &HookSpec,
) -> Result<PathBuf, HookEditError> {
    let path = hooks_file(locations, project_root, source)?;
    let removed = edit_hook_entry(
        &path,
        hook.event.trim(),
        hook.matcher.trim(),
        hook.command.trim(),
        None,
        false,
    )?;
    if !removed {
        return Err(HookEditError::Invalid(format!(
            "{} has no {} hook running {:?}",
            path.display(),
            hook.event,
            hook.command
        )));
    }
    Ok(path)
}

/// A sample event of `event`'s kind, as a session would send it: for tool events, a call of the
/// first tool the matcher names (Bash when it names none).
fn sample_input(event: HookEvent, matcher: &str, cwd: &Path) -> Result<HookInput, HookEditError> {
    let tool = matcher
        .split('|')
        .map(str::trim)
        .find(|t| !t.is_empty() && t.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or("Bash");
    let tool_input = match tool {
        "Bash" => json!({"command": "echo hello", "description": "Say hello"}),
        "Read" | "Edit" | "Write" | "NotebookEdit" => json!({"file_path": cwd.join("README.md")}),
        _ => json!({}),
    };
    let specific = match event {
        HookEvent::PreToolUse | HookEvent::PermissionRequest => {
            json!({"tool_name": tool, "tool_input": tool_input, "tool_use_id": "toolu_hook_test"})
        }
        HookEvent::PostToolUse => json!({"tool_name": tool, "tool_input": tool_input,
            "tool_response": {"stdout": "hello\n", "stderr": "", "interrupted": false},
            "tool_use_id": "toolu_hook_test"}),
        HookEvent::PostToolUseFailure => json!({"tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_hook_test", "error": "exit code 1"}),
        HookEvent::PermissionDenied => json!({"tool_name": tool, "tool_input": tool_input,
            "tool_use_id": "toolu_hook_test", "reason": "denied by a rule"}),
        HookEvent::UserPromptSubmit => json!({"prompt": "Fix the failing test"}),
        HookEvent::Stop | HookEvent::SubagentStop => json!({"stop_hook_active": false}),
        HookEvent::SessionStart => json!({"source": "startup"}),
        HookEvent::SessionEnd => json!({"reason": "other"}),
        HookEvent::Notification => {
            json!({"message": "Nerve needs your permission to use Bash", "notification_type": "permission_prompt"})
        }
        HookEvent::PreCompact => json!({"trigger": "manual", "custom_instructions": ""}),
    };
    let mut input = json!({
        "session_id": "hook-test",
        "transcript_path": cwd.join(".nerve/hook-test.jsonl"),
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": event.as_str(),
    });
    if let (Some(input), Some(specific)) = (input.as_object_mut(), specific.as_object()) {
        input.extend(specific.clone());
    }
    serde_json::from_value(input)
        .map_err(|e| HookEditError::Invalid(format!("no sample {} event: {e}", event.as_str())))
}

/// Runs `hook` once, as a session would, against a sample event of its kind in `project_root`,
/// and says what Nerve would make of its answer.
pub async fn test_hook(project_root: &Path, hook: &HookSpec) -> Result<HookTestResult, HookEditError> {
    let event = check(hook)?;
    let mut entry = json!({"type": "command", "command": hook.command.trim()});
    if let Some(t) = hook.timeout_secs {
        entry["timeout"] = json!(t);
    }
    let mut group = json!({"hooks": [entry]});
    if !hook.matcher.trim().is_empty() {
        group["matcher"] = json!(hook.matcher.trim());
    }
    let config = HookConfig::from_settings(&json!({ event.as_str(): [group] }), "the hook under test")
        .map_err(|e| HookEditError::Invalid(e.to_string()))?;
    let input = sample_input(event, hook.matcher.trim(), project_root)?;
    let report = run_hooks(&config, &input, project_root, CancellationToken::new()).await;
    let Some(execution) = report.executions.first() else {
        return Err(HookEditError::Invalid(format!(
            "the matcher {:?} does not match the sample event",
            hook.matcher
        )));
    };
    let (exit_code, timed_out) = match &execution.ending {
        HookEnding::Exited { code } => (Some(*code), false),
        HookEnding::TimedOut { .. } => (None, true),
        _ => (None, false),
    };
    Ok(HookTestResult {
        input: serde_json::to_string_pretty(&input).unwrap_or_default(),
        exit_code,
        stdout: execution.stdout.text_with_note(),
        stderr: execution.stderr.text_with_note(),
        timed_out,
        effect: effect_of(event, &interpret(execution), &report.outcome),
    })
}

/// What Nerve does with a hook's answer, in words.
fn effect_of(event: HookEvent, reply: &HookReply, outcome: &crate::hooks::HookOutcome) -> String {
    if let Some(stop) = outcome.stops.first() {
        return format!(
            "Stops the agent{}",
            stop.value
                .reason
                .as_deref()
                .map(|r| format!(": {r}"))
                .unwrap_or_default()
        );
    }
    if let Some(block) = outcome.blocks.first() {
        let what = match event {
            HookEvent::PreToolUse | HookEvent::PermissionRequest => "Denies the call",
            HookEvent::UserPromptSubmit => "Rejects the prompt",
            HookEvent::Stop | HookEvent::SubagentStop => "Keeps the agent working",
            _ => "Blocks",
        };
        return format!("{what}: {}", block.value.reason);
    }
    if let Some(permission) = &outcome.permission {
        return format!("Decides the call: {:?}", permission.decision).to_lowercase();
    }
    match reply {
        HookReply::Failed(failure) => {
            format!("Fails (shown to the user, the work goes on): the hook {failure}")
        }
        HookReply::Silent => "No answer: the work goes on as it would have.".to_string(),
        HookReply::Text(_) if !outcome.additional_context.is_empty() => {
            "Its output is added to what the model reads.".to_string()
        }
        HookReply::Text(_) => "Its output is shown in the transcript; the work goes on.".to_string(),
        HookReply::Structured(_) if !outcome.additional_context.is_empty() => {
            "Its answer adds context for the model.".to_string()
        }
        HookReply::Structured(_) => "A JSON answer with no decision: the work goes on.".to_string(),
        HookReply::Blocking(reason) => format!("Blocks: {reason}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn lists_each_command_with_its_event_matcher_and_file() {
        let config = HookConfig::from_settings(
            &json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./check.sh", "timeout": 5}]}],
                    "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}]}),
            "/p/.nerve/settings.json",
        )
        .unwrap();
        let views = hooks_of(&config);
        assert_eq!(
            views,
            vec![
                HookView {
                    event: "PreToolUse".into(),
                    matcher: "Bash".into(),
                    command: "./check.sh".into(),
                    timeout_secs: 5,
                    source: "/p/.nerve/settings.json".into(),
                    editable_source: None,
                },
                HookView {
                    event: "Stop".into(),
                    matcher: String::new(),
                    command: "notify-send done".into(),
                    timeout_secs: 60,
                    source: "/p/.nerve/settings.json".into(),
                    editable_source: None,
                },
            ]
        );
    }

    fn locations(dir: &Path) -> SettingsLocations {
        SettingsLocations {
            managed_file: dir.join("etc/managed.json"),
            config_dir: dir.join("home/.config"),
            home: dir.join("home"),
        }
    }

    #[test]
    fn hooks_are_added_to_and_removed_from_the_users_files_in_claude_codes_shape() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(&root).unwrap();
        let locations = locations(dir.path());
        let hook = |command: &str| HookSpec {
            event: "PreToolUse".into(),
            matcher: "Bash".into(),
            command: command.into(),
            timeout_secs: Some(5),
        };
        let file = add_hook(&locations, &root, RuleSource::LocalSettings, &hook("./check.sh")).unwrap();
        assert_eq!(file, root.join(".nerve/settings.local.json"));
        add_hook(&locations, &root, RuleSource::LocalSettings, &hook("./audit.sh")).unwrap();
        let read =
            || serde_json::from_str::<serde_json::Value>(&std::fs::read_to_string(&file).unwrap()).unwrap();
        assert_eq!(
            read(),
            json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "./check.sh", "timeout": 5},
                {"type": "command", "command": "./audit.sh", "timeout": 5}]}]}})
        );
        // Listed with the file's kind, so the app may change them.
        let config = HookConfig::from_settings(&read()["hooks"], &file.display().to_string()).unwrap();
        let views = project_hooks(&config, &locations, &root);
        assert_eq!(views[0].editable_source, Some(RuleSource::LocalSettings));
        assert_eq!(hooks_of(&config)[0].editable_source, None);

        remove_hook(&locations, &root, RuleSource::LocalSettings, &hook("./check.sh")).unwrap();
        remove_hook(&locations, &root, RuleSource::LocalSettings, &hook("./audit.sh")).unwrap();
        assert_eq!(read(), json!({"hooks": {}}));
        let missing =
            remove_hook(&locations, &root, RuleSource::LocalSettings, &hook("./gone.sh")).unwrap_err();
        assert!(
            missing
                .to_string()
                .contains("has no PreToolUse hook running \"./gone.sh\""),
            "{missing}"
        );
        let bad = add_hook(
            &locations,
            &root,
            RuleSource::LocalSettings,
            &HookSpec {
                event: "OnLunch".into(),
                ..hook("x")
            },
        )
        .unwrap_err();
        assert_eq!(bad.to_string(), "\"OnLunch\" is not a hook event");
        assert!(add_hook(&locations, &root, RuleSource::Managed, &hook("x")).is_err());
    }

    #[tokio::test]
    async fn a_hook_under_test_reads_a_sample_event_and_its_answer_is_told_in_words() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let spec = |event: &str, matcher: &str, command: &str| HookSpec {
            event: event.into(),
            matcher: matcher.into(),
            command: command.into(),
            timeout_secs: None,
        };
        // Exit 2 on a Bash call: the call is denied with the hook's reason; it read the sample.
        let blocked = test_hook(
            root,
            &spec(
                "PreToolUse",
                "Bash",
                "cat > seen.json; echo 'no shell today' >&2; exit 2",
            ),
        )
        .await
        .unwrap();
        assert_eq!(
            (blocked.exit_code, blocked.timed_out, blocked.effect.as_str()),
            (Some(2), false, "Denies the call: no shell today")
        );
        let seen: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(root.join("seen.json")).unwrap()).unwrap();
        assert_eq!(
            (
                &seen["hook_event_name"],
                &seen["tool_name"],
                &seen["tool_input"]["command"]
            ),
            (&json!("PreToolUse"), &json!("Bash"), &json!("echo hello"))
        );
        assert!(
            blocked.input.contains("\"tool_name\": \"Bash\""),
            "{}",
            blocked.input
        );

        let context = test_hook(root, &spec("UserPromptSubmit", "", "echo 'Today is a holiday.'"))
            .await
            .unwrap();
        assert_eq!(
            (
                context.exit_code,
                context.stdout.as_str(),
                context.effect.as_str()
            ),
            (
                Some(0),
                "Today is a holiday.\n",
                "Its output is added to what the model reads."
            )
        );
        let silent = test_hook(root, &spec("Stop", "", "true")).await.unwrap();
        assert_eq!(silent.effect, "No answer: the work goes on as it would have.");
        let failed = test_hook(root, &spec("SessionEnd", "", "echo oops >&2; exit 3"))
            .await
            .unwrap();
        assert!(
            failed
                .effect
                .starts_with("Fails (shown to the user, the work goes on)"),
            "{}",
            failed.effect
        );
        let other = test_hook(root, &spec("PreToolUse", "Edit|Write", "true"))
            .await
            .unwrap();
        assert!(other.input.contains("\"tool_name\": \"Edit\""), "{}", other.input);
    }
}
