//! Allowing, for a project, what the sandbox refused a command: the card's one click on a refused
//! write or host. It writes the setting the user owns (the project's `.nerve/settings.local.json`)
//! and applies it to the project's live sessions at once.

use std::path::PathBuf;

use nerve_protocol::SandboxRefusal;

use crate::permissions::{PermissionRule, RuleBehavior, RuleSource, RuleValue, SharedRules};
use crate::project::Project;
use crate::settings::{SettingsError, add_rules_to_local_settings, add_sandbox_write_to_local_settings};

/// Why a refusal could not be allowed.
#[derive(Debug, thiserror::Error)]
pub enum AllowRefusalError {
    /// The settings file could not be written.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// The host does not make a valid rule (it came from a command's connection attempt).
    #[error("`{host}` is not a host a rule can name")]
    BadHost {
        /// The host.
        host: String,
    },
}

/// Allows `refusal` for `project`: a path joins `sandbox.filesystem.allowWrite`, a host becomes a
/// `WebFetch(domain:…)` allow rule (as "always allow" in the network question writes it); both in
/// the project's local settings, and at once for the sessions of `project` (whose rules are
/// `rules`). Returns the settings file written.
pub fn allow_sandbox_refusal(
    project: &Project,
    rules: &SharedRules,
    refusal: &SandboxRefusal,
) -> Result<PathBuf, AllowRefusalError> {
    match refusal {
        SandboxRefusal::Write { path, setting } => {
            let file = add_sandbox_write_to_local_settings(project.dir(), setting)?;
            project.sandbox_grants().add_writable(path.clone());
            Ok(file)
        }
        SandboxRefusal::Network { host, .. } => {
            let valid = !host.is_empty()
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | ':' | '[' | ']'));
            let rule: RuleValue = format!("WebFetch(domain:{host})")
                .parse()
                .ok()
                .filter(|_| valid)
                .ok_or_else(|| AllowRefusalError::BadHost { host: host.clone() })?;
            let file =
                add_rules_to_local_settings(project.dir(), RuleBehavior::Allow, std::slice::from_ref(&rule))?;
            rules.add(PermissionRule::new(
                RuleSource::LocalSettings,
                RuleBehavior::Allow,
                rule,
                project.dir().to_path_buf(),
            ));
            Ok(file)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::ProjectOptions;
    use crate::settings::SettingsLocations;
    use pretty_assertions::assert_eq;

    fn project(dir: &std::path::Path) -> Project {
        let home = dir.join("home");
        std::fs::create_dir_all(dir.join("p")).unwrap();
        std::fs::create_dir_all(&home).unwrap();
        let mut options = ProjectOptions::new(dir.join("p"));
        options.data_dir = dir.join("data");
        options.locations = SettingsLocations {
            managed_file: dir.join("managed.json"),
            config_dir: home.join(".config"),
            home,
        };
        Project::open(options).unwrap()
    }

    fn local_settings(project: &Project) -> serde_json::Value {
        let text = std::fs::read_to_string(project.dir().join(".nerve/settings.local.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn a_refused_write_is_allowed_in_the_local_settings_and_for_the_next_command_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let project = project(dir.path());
        let cache = dir.path().join("home/.cache/tool");
        let sandbox = project.session_sandbox("s1");
        assert!(!sandbox.policy(&[], None).writable.contains(&cache));
        let refusal = SandboxRefusal::Write {
            path: cache.clone(),
            setting: "~/.cache/tool".into(),
        };
        let file = allow_sandbox_refusal(&project, &project.rules_handle(), &refusal).unwrap();
        assert_eq!(file, project.dir().join(".nerve/settings.local.json"));
        assert_eq!(
            local_settings(&project),
            serde_json::json!({"sandbox": {"filesystem": {"allowWrite": ["~/.cache/tool"]}}})
        );
        // The sandbox made before the click writes there from its next command on.
        assert!(sandbox.policy(&[], None).writable.contains(&cache));
        // Twice is once.
        allow_sandbox_refusal(&project, &project.rules_handle(), &refusal).unwrap();
        assert_eq!(
            local_settings(&project)["sandbox"]["filesystem"]["allowWrite"],
            serde_json::json!(["~/.cache/tool"])
        );
        // A project opened afresh reads it from the file.
        let reopened = self::project(dir.path());
        assert!(
            reopened
                .session_sandbox("s2")
                .policy(&[], None)
                .writable
                .contains(&cache)
        );
    }

    #[test]
    fn a_refused_host_becomes_an_allow_rule_for_the_session_and_the_project() {
        let dir = tempfile::tempdir().unwrap();
        let project = project(dir.path());
        let rules = project.rules_handle();
        let refusal = SandboxRefusal::Network {
            host: "pypi.org".into(),
            port: 443,
        };
        allow_sandbox_refusal(&project, &rules, &refusal).unwrap();
        assert_eq!(
            local_settings(&project),
            serde_json::json!({"permissions": {"allow": ["WebFetch(domain:pypi.org)"]}})
        );
        let live: Vec<String> = rules
            .snapshot()
            .rules(RuleBehavior::Allow)
            .map(|r| r.value.to_string())
            .collect();
        assert_eq!(live, vec!["WebFetch(domain:pypi.org)".to_string()]);
    }

    #[test]
    fn a_host_that_would_smuggle_a_rule_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let project = project(dir.path());
        for host in ["evil) Bash(rm -rf", "a b", "", "x\ny"] {
            let refusal = SandboxRefusal::Network {
                host: host.into(),
                port: 443,
            };
            let error = allow_sandbox_refusal(&project, &project.rules_handle(), &refusal).unwrap_err();
            assert!(
                matches!(error, AllowRefusalError::BadHost { .. }),
                "{host:?}: {error}"
            );
        }
        assert!(!project.dir().join(".nerve/settings.local.json").exists());
    }
}
