//! What a sandboxed command may touch. The policy crosses a process boundary (to the helper) as
//! JSON, so it holds plain paths, already made absolute.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use crate::protected_paths::IfMissing;

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
    /// Entries inside the writable folders it may not write, create, remove or rename (git's
    /// configuration and hooks, editor and agent settings...: see [`write_guards`]).
    #[serde(default)]
    pub write_protected: Vec<WriteGuard>,
}

/// One entry a sandboxed command may not change, though it lies in a folder it may write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WriteGuard {
    /// The entry (absolute).
    pub path: PathBuf,
    /// What happens when it does not exist.
    pub if_missing: IfMissing,
    /// A `.git`: when it is a folder it stays writable (its guarded entries are listed on their
    /// own); a `.git` file is guarded whole.
    #[serde(default)]
    pub git_dir: bool,
}

/// The write guards for commands that may write `writable_dirs`, from the shared list
/// (`protected_paths`): at the top of each folder, the project-level names and `.git`'s entries;
/// in `home`, the start-up files and configuration a writable folder holds. First mention wins.
pub fn write_guards(writable_dirs: &[PathBuf], home: &Path) -> Vec<WriteGuard> {
    use crate::protected_paths::{
        SANDBOX_GUARDS_IN_GIT_DIR, SANDBOX_GUARDS_IN_HOME, SANDBOX_GUARDS_IN_WRITABLE_FOLDERS,
    };
    let mut guards: Vec<WriteGuard> = Vec::new();
    let mut push = |path: PathBuf, if_missing: IfMissing, git_dir: bool| {
        if !guards.iter().any(|g| g.path == path) {
            guards.push(WriteGuard {
                path,
                if_missing,
                git_dir,
            });
        }
    };
    for dir in writable_dirs {
        for guard in SANDBOX_GUARDS_IN_WRITABLE_FOLDERS {
            let path = dir.join(guard.relative);
            let git_dir = guard.relative == ".git";
            if git_dir {
                for entry in SANDBOX_GUARDS_IN_GIT_DIR {
                    push(path.join(entry.relative), entry.if_missing, false);
                }
            }
            push(path, guard.if_missing, git_dir);
        }
    }
    for guard in SANDBOX_GUARDS_IN_HOME {
        let path = home.join(guard.relative);
        if writable_dirs
            .iter()
            .any(|dir| path.starts_with(dir) && path != *dir)
        {
            push(path, guard.if_missing, false);
        }
    }
    guards
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
