//! The `sandbox` block of the settings files, and how the files combine.
//!
//! Claude Code's names where they exist (`enabled`, `autoAllowBashIfSandboxed`,
//! `filesystem.allowWrite`, `filesystem.denyRead`, `network.allowedDomains`,
//! `network.deniedDomains`), plus `writablePaths` (the same as `filesystem.allowWrite`),
//! `filesystem.toolchainCaches` (`false` takes the package tools' caches out of the default
//! writable paths) and `network.allowAll` (the whole network, without the proxy).
//!
//! A project's committed settings come with the repository, so they may only narrow the sandbox
//! (turn it on, deny reads, deny domains, drop the toolchain caches); widening it (writable paths,
//! allowed domains, all of the network, turning it off, auto-allow) counts only from the user's
//! own files: user, local and managed settings.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One file's `sandbox` block, as written. Unknown keys (Claude Code's proxy and domain settings)
/// are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SandboxSettings {
    /// Run Bash commands in the sandbox (default: yes, where the kernel supports it).
    #[serde(default)]
    pub enabled: Option<bool>,
    /// Allow, without asking, a Bash command that would otherwise ask when it runs sandboxed with no
    /// network (deny and ask rules still apply). Off unless set.
    #[serde(default)]
    pub auto_allow_bash_if_sandboxed: Option<bool>,
    /// More paths sandboxed commands may write (`~` for home; relative to the project).
    #[serde(default)]
    pub writable_paths: Vec<String>,
    /// File-system settings.
    #[serde(default)]
    pub filesystem: FilesystemSettings,
    /// Network settings.
    #[serde(default)]
    pub network: NetworkSettings,
}

/// `sandbox.filesystem`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FilesystemSettings {
    /// More paths sandboxed commands may write.
    #[serde(default)]
    pub allow_write: Vec<String>,
    /// Paths sandboxed commands may not read (besides the default deny list).
    #[serde(default)]
    pub deny_read: Vec<String>,
    /// Whether the package and build tools' caches in the home folder are writable (default yes;
    /// see [`super::caches::toolchain_caches`]).
    #[serde(default)]
    pub toolchain_caches: Option<bool>,
}

/// `sandbox.network`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NetworkSettings {
    /// Let sandboxed commands use the network (all of it, without the proxy).
    #[serde(default)]
    pub allow_all: Option<bool>,
    /// Hosts sandboxed commands reach through the proxy without asking (`example.com`,
    /// `*.example.com`, either with `:port`).
    #[serde(default)]
    pub allowed_domains: Vec<String>,
    /// Hosts the proxy refuses, whatever else allows them.
    #[serde(default)]
    pub denied_domains: Vec<String>,
}

/// The sandbox settings in effect, combined from every file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SandboxConfig {
    /// Whether Bash commands run sandboxed.
    pub enabled: bool,
    /// See [`SandboxSettings::auto_allow_bash_if_sandboxed`].
    pub auto_allow: bool,
    /// Whether sandboxed commands may use all of the network directly (`network.allowAll`); when
    /// not, they reach it only through the engine's proxy, host by host.
    pub network: bool,
    /// Writable paths beyond the working folders and the session's temp folder.
    pub writable: Vec<PathBuf>,
    /// Unreadable paths beyond the default deny list.
    pub denied: Vec<PathBuf>,
    /// Whether the toolchain caches are writable (see [`super::caches::toolchain_caches`]).
    pub toolchain_caches: bool,
    /// Host patterns the proxy allows without asking (from the user's own files only).
    pub allowed_domains: Vec<String>,
    /// Host patterns the proxy refuses (from every file).
    pub denied_domains: Vec<String>,
}

impl Default for SandboxConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            auto_allow: false,
            network: false,
            writable: Vec::new(),
            denied: Vec::new(),
            toolchain_caches: true,
            allowed_domains: Vec::new(),
            denied_domains: Vec::new(),
        }
    }
}

/// Resolves a path as settings write it: `~` and `~/x` from home, absolute as is, anything else
/// from the project folder.
fn resolve(text: &str, home: &Path, project: &Path) -> PathBuf {
    if text == "~" {
        return home.to_path_buf();
    }
    if let Some(rest) = text.strip_prefix("~/") {
        return home.join(rest);
    }
    let path = Path::new(text);
    if path.is_absolute() {
        path.to_path_buf()
    } else {
        project.join(path)
    }
}

/// Combines the files' blocks, highest priority first; `trusted` says whether a file is the user's
/// own (may widen the sandbox) or came with the project (may only narrow it).
pub fn combine<'a>(
    blocks: impl IntoIterator<Item = (&'a SandboxSettings, bool)>,
    home: &Path,
    project: &Path,
) -> SandboxConfig {
    let mut config = SandboxConfig::default();
    let (mut enabled, mut auto_allow, mut network) = (None, None, None);
    for (block, trusted) in blocks {
        // The first (highest-priority) file to say wins, for the keys it may set.
        match block.enabled {
            Some(false) if trusted => {
                enabled.get_or_insert(false);
            }
            Some(true) => {
                enabled.get_or_insert(true);
            }
            _ => {}
        }
        if trusted {
            if let Some(a) = block.auto_allow_bash_if_sandboxed {
                auto_allow.get_or_insert(a);
            }
            if let Some(n) = block.network.allow_all {
                network.get_or_insert(n);
            }
            for path in block.writable_paths.iter().chain(&block.filesystem.allow_write) {
                config.writable.push(resolve(path, home, project));
            }
            config
                .allowed_domains
                .extend(block.network.allowed_domains.iter().cloned());
        }
        for path in &block.filesystem.deny_read {
            config.denied.push(resolve(path, home, project));
        }
        config
            .denied_domains
            .extend(block.network.denied_domains.iter().cloned());
        // Dropping the caches narrows: any file may; keeping them is the default.
        if block.filesystem.toolchain_caches == Some(false) {
            config.toolchain_caches = false;
        }
    }
    config.enabled = enabled.unwrap_or(true);
    config.auto_allow = auto_allow.unwrap_or(false);
    config.network = network.unwrap_or(false);
    config
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn block(json: serde_json::Value) -> SandboxSettings {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn the_users_files_may_widen_and_the_projects_only_narrow() {
        let home = Path::new("/home/u");
        let project = Path::new("/home/u/p");
        let project_file = block(serde_json::json!({
            "enabled": false,
            "autoAllowBashIfSandboxed": true,
            "writablePaths": ["~/.bashrc"],
            "network": {"allowAll": true, "allowedDomains": ["evil.example"], "deniedDomains": ["*.tracker.example"]},
            "filesystem": {"denyRead": ["secrets"], "toolchainCaches": false}
        }));
        let user_file = block(serde_json::json!({
            "filesystem": {"allowWrite": ["~/.cache/pip"], "toolchainCaches": true},
            "network": {"allowAll": false, "allowedDomains": ["pypi.org", "*.pythonhosted.org"]}
        }));
        let config = combine([(&project_file, false), (&user_file, true)], home, project);
        assert_eq!(
            config,
            SandboxConfig {
                enabled: true,
                auto_allow: false,
                network: false,
                writable: vec![PathBuf::from("/home/u/.cache/pip")],
                denied: vec![PathBuf::from("/home/u/p/secrets")],
                toolchain_caches: false,
                allowed_domains: vec!["pypi.org".into(), "*.pythonhosted.org".into()],
                denied_domains: vec!["*.tracker.example".into()],
            }
        );
        let local = block(serde_json::json!({"enabled": false, "network": {"allowAll": true}}));
        let config = combine([(&local, true), (&user_file, true)], home, project);
        assert!(!config.enabled && config.network, "{config:?}");
        assert_eq!(combine([], home, project), SandboxConfig::default());
    }
}
