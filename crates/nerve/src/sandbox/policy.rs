//! What a sandboxed command may touch. The policy crosses a process boundary (to the helper) as
//! JSON, so it holds plain paths, already made absolute.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// What one sandboxed command may do.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxPolicy {
    /// Folders and files it may write (and read): the working folders, the session's temp folder,
    /// the paths the settings allow.
    pub writable: Vec<PathBuf>,
    /// Folders and files it may not read (nor write), even inside a writable folder.
    pub denied: Vec<PathBuf>,
    /// Whether it may use the network.
    pub network: bool,
}

/// Files and folders under `home` that hold secrets and are never readable from the sandbox:
/// keys, cloud credentials, keyrings, password stores, browser profiles, and the credentials of
/// Nerve and Claude Code.
pub fn default_denied_reads(home: &Path) -> Vec<PathBuf> {
    [
        ".ssh",
        ".aws",
        ".gnupg",
        ".azure",
        ".kube",
        ".docker/config.json",
        ".netrc",
        ".git-credentials",
        ".pgpass",
        ".password-store",
        ".local/share/keyrings",
        ".config/gcloud",
        ".config/gh/hosts.yml",
        ".config/nerve/credentials",
        ".claude/.credentials.json",
        ".mozilla",
        ".thunderbird",
        ".config/google-chrome",
        ".config/chromium",
        ".config/BraveSoftware",
        ".config/microsoft-edge",
        ".config/vivaldi",
        "snap/firefox",
        ".var/app/org.mozilla.firefox",
    ]
    .iter()
    .map(|p| home.join(p))
    .collect()
}

impl SandboxPolicy {
    /// Whether `path` (absolute, resolved) is one the policy hides.
    pub fn is_denied(&self, path: &Path) -> bool {
        self.denied.iter().any(|d| path.starts_with(d))
    }
}
