//! Loading every source's settings file and merging them.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::permissions::PermissionMode;
use crate::permissions::paths::normalize_lexically;
use crate::permissions::rule::{AnchorRoots, PermissionRule, RuleBehavior, RuleSource};
use crate::permissions::rule_set::RuleSet;
use crate::settings::error::SettingsError;
use crate::settings::file::SettingsFile;
use crate::settings::locations::SettingsLocations;

/// Choices about which files to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoadOptions {
    /// Read Claude Code's `.claude/settings.json` and `.claude/settings.local.json` as the two
    /// lowest-priority sources (on by default, so users can reuse their rules).
    pub read_claude_settings: bool,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions {
            read_claude_settings: true,
        }
    }
}

/// A folder from `additionalDirectories`, resolved, with the source that named it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdditionalDirectory {
    /// Absolute, lexically normalised path (`~/` expanded, relative paths joined to the source's
    /// anchor).
    pub path: PathBuf,
    /// Which settings file listed it.
    pub source: RuleSource,
}

/// A settings file's raw `hooks` value, for the hooks module to parse.
#[derive(Debug, Clone, PartialEq)]
pub struct HooksEntry {
    /// Which source declared the hooks (managed policy may restrict others).
    pub source: RuleSource,
    /// The file they came from, for error messages.
    pub path: PathBuf,
    /// The unparsed `hooks` object.
    pub value: Value,
}

/// Every source's settings merged into what the resolver and session need.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadedSettings {
    files: Vec<SettingsFile>,
    rules: RuleSet,
    default_mode: Option<(PermissionMode, RuleSource)>,
    additional_directories: Vec<AdditionalDirectory>,
    hooks: Vec<HooksEntry>,
    bypass_permissions_disabled: bool,
    sandbox: crate::sandbox::settings::SandboxConfig,
}

impl LoadedSettings {
    /// The sandbox settings, combined from every file (see [`crate::sandbox::settings`]).
    pub fn sandbox(&self) -> &crate::sandbox::settings::SandboxConfig {
        &self.sandbox
    }

    /// The files that existed, highest priority first.
    pub fn files(&self) -> &[SettingsFile] {
        &self.files
    }

    /// Every rule from every file, anchored at its source's root.
    pub fn rules(&self) -> &RuleSet {
        &self.rules
    }

    /// The rule set, for adding command-line and session rules to.
    pub fn into_rules(self) -> RuleSet {
        self.rules
    }

    /// The `defaultMode` of the highest-priority file that sets one, with that file's source.
    pub fn default_mode(&self) -> Option<(PermissionMode, RuleSource)> {
        self.default_mode
    }

    /// The `worktree.setupCommand` of the highest-priority file that sets one (an empty command
    /// turns a lower file's off), with that file's source.
    pub fn worktree_setup_command(&self) -> Option<(String, RuleSource)> {
        let (command, source) = self
            .files
            .iter()
            .find_map(|f| f.worktree.setup_command.as_ref().map(|c| (c.trim(), f.source)))?;
        (!command.is_empty()).then(|| (command.to_string(), source))
    }

    /// Every file's `additionalDirectories`, highest priority first, without duplicates.
    pub fn additional_directories(&self) -> &[AdditionalDirectory] {
        &self.additional_directories
    }

    /// Every file's `hooks`, highest priority first.
    pub fn hooks(&self) -> &[HooksEntry] {
        &self.hooks
    }

    /// Which `.mcp.json` servers may start: `enableAllProjectMcpServers` and
    /// `enabledMcpjsonServers` from the personal files (user, project-local, managed and Claude
    /// Code's local file). The shared project files are ignored for this: they come with the
    /// repository, and a repository must not approve its own commands.
    pub fn project_mcp_approval(&self) -> ProjectServerApproval {
        let mut approval = ProjectServerApproval::default();
        for f in &self.files {
            match f.source {
                RuleSource::ProjectSettings | RuleSource::ClaudeProjectSettings => continue,
                RuleSource::Managed
                | RuleSource::CliArg
                | RuleSource::Session
                | RuleSource::LocalSettings
                | RuleSource::UserSettings
                | RuleSource::ClaudeLocalSettings => {}
            }
            approval.all |= f.enable_all_project_mcp_servers == Some(true);
            for name in &f.enabled_mcpjson_servers {
                if !approval.names.contains(name) {
                    approval.names.push(name.clone());
                }
            }
            for name in &f.disabled_mcp_servers {
                if !approval.disabled.contains(name) {
                    approval.disabled.push(name.clone());
                }
            }
        }
        approval
    }

    /// Whether any file sets `disableBypassPermissionsMode: "disable"` (any source may forbid it;
    /// none can re-enable it).
    pub fn bypass_permissions_disabled(&self) -> bool {
        self.bypass_permissions_disabled
    }
}

/// Resolves an `additionalDirectories` entry: `~` and `~/x` from home, absolute as is, anything
/// else relative to the source's anchor.
fn resolve_directory(entry: &str, anchor: &Path, home: &Path) -> PathBuf {
    let path = if entry == "~" {
        home.to_path_buf()
    } else if let Some(rest) = entry.strip_prefix("~/") {
        home.join(rest)
    } else {
        anchor.join(entry)
    };
    normalize_lexically(&path)
}

/// Loads every settings file for the project at `project_root`, in priority order.
///
/// A relative `project_root` or home is made absolute against the current directory first.
///
/// Missing files are skipped; the first bad file stops loading with an error naming it (see the
/// module docs for why nothing is skipped). Rules are anchored per [`RuleSource::anchor`]: managed,
/// project, local and Claude files at `project_root`, user settings at `locations.home`.
pub fn load_all(
    project_root: &Path,
    locations: &SettingsLocations,
    options: LoadOptions,
) -> Result<LoadedSettings, SettingsError> {
    // Anchors must be absolute: a relative anchor would make every anchored pattern miss.
    let absolute = |path: &Path| {
        std::path::absolute(path)
            .map(|p| normalize_lexically(&p))
            .map_err(|source| SettingsError::Read {
                path: path.to_path_buf(),
                source,
            })
    };
    let project_root = absolute(project_root)?;
    let roots = AnchorRoots {
        cwd: project_root.clone(),
        home: absolute(&locations.home)?,
        project_root,
    };
    let mut files = Vec::new();
    for &source in RuleSource::ALL {
        let wanted = match source {
            RuleSource::ClaudeLocalSettings | RuleSource::ClaudeProjectSettings => {
                options.read_claude_settings
            }
            RuleSource::Managed
            | RuleSource::CliArg
            | RuleSource::Session
            | RuleSource::LocalSettings
            | RuleSource::ProjectSettings
            | RuleSource::UserSettings => true,
        };
        let Some(path) = locations.path_for(source, &roots.project_root) else {
            continue;
        };
        if !wanted {
            continue;
        }
        if let Some(file) = SettingsFile::load(source, &path)? {
            files.push(file);
        }
    }
    Ok(merge(files, &roots))
}

fn merge(files: Vec<SettingsFile>, roots: &AnchorRoots) -> LoadedSettings {
    let mut rules = RuleSet::new();
    let mut default_mode = None;
    let mut additional_directories: Vec<AdditionalDirectory> = Vec::new();
    let mut hooks = Vec::new();
    let mut bypass_permissions_disabled = false;
    for file in &files {
        let anchor = roots.for_source(file.source);
        for behavior in RuleBehavior::STRONGEST_FIRST {
            for value in file.permissions.rules(behavior) {
                rules.add(PermissionRule::new(file.source, behavior, value.clone(), anchor));
            }
        }
        if default_mode.is_none() {
            default_mode = file.permissions.default_mode.map(|mode| (mode, file.source));
        }
        for entry in &file.permissions.additional_directories {
            let path = resolve_directory(entry, anchor, &roots.home);
            if !additional_directories.iter().any(|known| known.path == path) {
                additional_directories.push(AdditionalDirectory {
                    path,
                    source: file.source,
                });
            }
        }
        if let Some(value) = &file.hooks {
            hooks.push(HooksEntry {
                source: file.source,
                path: file.path.clone(),
                value: value.clone(),
            });
        }
        bypass_permissions_disabled |= file.permissions.disable_bypass_permissions_mode.is_some();
    }
    // The user's own files may widen the sandbox; the project's committed ones only narrow it.
    let sandbox = crate::sandbox::settings::combine(
        files.iter().map(|f| {
            let trusted = matches!(
                f.source,
                RuleSource::Managed
                    | RuleSource::UserSettings
                    | RuleSource::LocalSettings
                    | RuleSource::ClaudeLocalSettings
            );
            (&f.sandbox, trusted)
        }),
        &roots.home,
        &roots.project_root,
    );
    LoadedSettings {
        files,
        rules,
        default_mode,
        additional_directories,
        hooks,
        bypass_permissions_disabled,
        sandbox,
    }
}

/// Which of the project's `.mcp.json` servers the settings approve (`enableAllProjectMcpServers`,
/// `enabledMcpjsonServers`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectServerApproval {
    /// Every server in `.mcp.json` is approved.
    pub all: bool,
    /// These servers are approved by name.
    pub names: Vec<String>,
    /// These servers, of any scope, are switched off (`disabledMcpServers` in a personal file).
    pub disabled: Vec<String>,
}

impl ProjectServerApproval {
    /// Whether `name` may start.
    pub fn approves(&self, name: &str) -> bool {
        self.all || self.names.iter().any(|n| n == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::rule_set::Access;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    struct Fixture {
        _dir: tempfile::TempDir,
        project: PathBuf,
        locations: SettingsLocations,
    }

    impl Fixture {
        fn new() -> Self {
            let dir = tempfile::tempdir().unwrap();
            let base = dir.path().canonicalize().unwrap();
            let project = base.join("project");
            std::fs::create_dir_all(&project).unwrap();
            let locations = SettingsLocations {
                managed_file: base.join("etc/nerve/managed-settings.json"),
                config_dir: base.join("home/.config"),
                home: base.join("home"),
            };
            Fixture {
                _dir: dir,
                project,
                locations,
            }
        }

        fn write(&self, source: RuleSource, text: &str) {
            let path = self.locations.path_for(source, &self.project).unwrap();
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }

        fn load(&self, options: LoadOptions) -> Result<LoadedSettings, SettingsError> {
            load_all(&self.project, &self.locations, options)
        }
    }

    #[test]
    fn no_files_is_empty_settings() {
        let fixture = Fixture::new();
        let loaded = fixture.load(LoadOptions::default()).unwrap();
        assert_eq!(loaded.files(), &[]);
        assert_eq!(loaded.rules().all(), &[]);
        assert_eq!(loaded.default_mode(), None);
        assert!(!loaded.bypass_permissions_disabled());
    }

    #[test]
    fn merges_sources_in_priority_order() {
        let fixture = Fixture::new();
        fixture.write(
            RuleSource::ClaudeProjectSettings,
            r#"{"permissions": {"deny": ["Bash(rm *)"], "defaultMode": "plan"}}"#,
        );
        fixture.write(
            RuleSource::UserSettings,
            r#"{"permissions": {"allow": ["Bash(rm tmp)", "Read(/notes/**)"], "additionalDirectories": ["~/lib"]}}"#,
        );
        fixture.write(
            RuleSource::ProjectSettings,
            r#"{"permissions": {"defaultMode": "acceptEdits", "additionalDirectories": ["../shared", "~/lib"]}, "hooks": {"Stop": []}}"#,
        );
        fixture.write(
            RuleSource::Managed,
            r#"{"permissions": {"disableBypassPermissionsMode": "disable"}, "hooks": {"PreToolUse": []}}"#,
        );
        let loaded = fixture.load(LoadOptions::default()).unwrap();
        let sources: Vec<RuleSource> = loaded.files().iter().map(|f| f.source).collect();
        assert_eq!(
            sources,
            vec![
                RuleSource::Managed,
                RuleSource::ProjectSettings,
                RuleSource::UserSettings,
                RuleSource::ClaudeProjectSettings
            ]
        );
        assert_eq!(
            loaded.default_mode(),
            Some((PermissionMode::AcceptEdits, RuleSource::ProjectSettings))
        );
        assert!(loaded.bypass_permissions_disabled());
        let (behavior, rule) = loaded.rules().decide_shell("rm tmp").unwrap();
        assert_eq!(
            (behavior, rule.source),
            (RuleBehavior::Deny, RuleSource::ClaudeProjectSettings)
        );
        let home = &fixture.locations.home;
        let (behavior, rule) = loaded
            .rules()
            .decide_path(Access::Read, &home.join("notes/a.md"), home)
            .unwrap();
        assert_eq!(
            (behavior, rule.anchor.as_path()),
            (RuleBehavior::Allow, home.as_path())
        );
        let dirs: Vec<(PathBuf, RuleSource)> = loaded
            .additional_directories()
            .iter()
            .map(|d| (d.path.clone(), d.source))
            .collect();
        assert_eq!(
            dirs,
            vec![
                (
                    fixture.project.parent().unwrap().join("shared"),
                    RuleSource::ProjectSettings
                ),
                (home.join("lib"), RuleSource::ProjectSettings),
            ]
        );
        let hooks: Vec<(RuleSource, Value)> = loaded
            .hooks()
            .iter()
            .map(|h| (h.source, h.value.clone()))
            .collect();
        assert_eq!(
            hooks,
            vec![
                (RuleSource::Managed, json!({"PreToolUse": []})),
                (RuleSource::ProjectSettings, json!({"Stop": []})),
            ]
        );
    }

    #[test]
    fn mcp_json_approval_comes_from_personal_files_only() {
        let fixture = Fixture::new();
        fixture.write(
            RuleSource::ProjectSettings,
            r#"{"enableAllProjectMcpServers": true, "enabledMcpjsonServers": ["repo"]}"#,
        );
        fixture.write(
            RuleSource::ClaudeProjectSettings,
            r#"{"enableAllProjectMcpServers": true}"#,
        );
        let loaded = fixture.load(LoadOptions::default()).unwrap();
        assert_eq!(loaded.project_mcp_approval(), ProjectServerApproval::default());

        fixture.write(
            RuleSource::LocalSettings,
            r#"{"enabledMcpjsonServers": ["a", "b"]}"#,
        );
        fixture.write(
            RuleSource::UserSettings,
            r#"{"enabledMcpjsonServers": ["b", "c"]}"#,
        );
        let approval = fixture
            .load(LoadOptions::default())
            .unwrap()
            .project_mcp_approval();
        assert!(!approval.all);
        assert_eq!(approval.names, vec!["a", "b", "c"]);

        fixture.write(
            RuleSource::ClaudeLocalSettings,
            r#"{"enableAllProjectMcpServers": true}"#,
        );
        let approval = fixture
            .load(LoadOptions::default())
            .unwrap()
            .project_mcp_approval();
        assert!(approval.all && approval.approves("anything"));
    }

    #[test]
    fn claude_files_can_be_turned_off() {
        let fixture = Fixture::new();
        fixture.write(
            RuleSource::ClaudeLocalSettings,
            r#"{"permissions": {"allow": ["Bash"]}}"#,
        );
        let on = fixture.load(LoadOptions::default()).unwrap();
        assert_eq!(on.rules().all().len(), 1);
        let off = fixture
            .load(LoadOptions {
                read_claude_settings: false,
            })
            .unwrap();
        assert_eq!(off.rules().all(), &[]);
    }

    #[test]
    fn a_bad_file_stops_loading_and_is_named() {
        let fixture = Fixture::new();
        fixture.write(
            RuleSource::ProjectSettings,
            r#"{"permissions": {"deny": ["Bash(rm *)"]}}"#,
        );
        fixture.write(
            RuleSource::LocalSettings,
            "{\n  \"permissions\": {\n    \"allow\": [\"Bash(ls\"]\n  }\n}",
        );
        let err = fixture.load(LoadOptions::default()).unwrap_err();
        match &err {
            SettingsError::Invalid { path, line, .. } => {
                assert!(path.ends_with(".nerve/settings.local.json"), "{path:?}");
                assert_eq!(*line, 3);
            }
            other => panic!("expected Invalid, got {other:?}"),
        }
        let message = err.to_string();
        assert!(message.contains("settings.local.json"), "{message}");
        assert!(message.contains("`Bash(ls`"), "{message}");
    }
}
