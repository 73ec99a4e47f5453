//! The configured hooks, as a read-only list.

pub use nerve_protocol::settings::HookView;

use crate::hooks::config::HookConfig;

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
            })
        })
        .collect()
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
                    source: "/p/.nerve/settings.json".into()
                },
                HookView {
                    event: "Stop".into(),
                    matcher: String::new(),
                    command: "notify-send done".into(),
                    timeout_secs: 60,
                    source: "/p/.nerve/settings.json".into()
                },
            ]
        );
    }
}
