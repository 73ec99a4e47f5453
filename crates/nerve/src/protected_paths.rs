//! The one list of paths whose modification makes a later program run code or change what Nerve
//! allows: git's configuration and hooks, editor and agent settings, MCP configurations, direnv
//! files, shell start-up files. Two consumers read it: the permission check (`permissions::
//! protected`), which asks before a tool writes any of them, and the Bash sandbox
//! (`sandbox::policy`), which write-protects them at the kernel level inside the folders a command
//! may write, so that `git config core.fsmonitor ...`, a script or `cp` cannot plant what the
//! user's next unsandboxed `git status` (or editor, or shell) would run.

/// Why a shell start-up file is protected.
pub const SHELL_STARTUP: &str = "a shell startup file: it runs on every new shell";
/// Why a git configuration file is protected.
pub const GIT_CONFIG: &str = "a git configuration file: it can make git run arbitrary programs";
/// Why an MCP configuration file is protected.
pub const MCP_CONFIG: &str = "an MCP configuration file: it decides which programs are started as servers";
/// Why Nerve's user settings are protected.
pub const NERVE_USER_SETTINGS: &str = "Nerve's user settings: they hold permission rules and hooks";

/// Folders protected at any depth, with the reason shown to the user.
pub const PROTECTED_DIRS: [(&str, &str); 7] = [
    (
        ".git",
        "inside a .git folder: changes there can rewrite history or run code through git hooks",
    ),
    (
        ".nerve",
        "inside a .nerve folder: it holds Nerve's own settings and permission rules",
    ),
    (
        ".claude",
        "inside a .claude folder: it holds Claude Code's settings, which Nerve also reads",
    ),
    (
        ".vscode",
        "inside a .vscode folder: editor tasks and settings there can run commands",
    ),
    (
        ".idea",
        "inside a .idea folder: IDE run configurations there can run commands",
    ),
    (
        ".husky",
        "inside a .husky folder: its git hooks run on every commit",
    ),
    (
        ".ssh",
        "inside a .ssh folder: keys and authorized_keys decide who can log in",
    ),
];

/// File names protected wherever they are, with the reason shown to the user.
pub const PROTECTED_FILES: [(&str, &str); 21] = [
    (".bashrc", SHELL_STARTUP),
    (".bash_profile", SHELL_STARTUP),
    (".bash_login", SHELL_STARTUP),
    (".bash_logout", SHELL_STARTUP),
    (".profile", SHELL_STARTUP),
    (".zshrc", SHELL_STARTUP),
    (".zprofile", SHELL_STARTUP),
    (".zshenv", SHELL_STARTUP),
    (".zlogin", SHELL_STARTUP),
    (".zlogout", SHELL_STARTUP),
    (".kshrc", SHELL_STARTUP),
    (".cshrc", SHELL_STARTUP),
    (".tcshrc", SHELL_STARTUP),
    (".inputrc", SHELL_STARTUP),
    (".gitconfig", GIT_CONFIG),
    (".gitmodules", GIT_CONFIG),
    (".gitattributes", GIT_CONFIG),
    (".mcp.json", MCP_CONFIG),
    (".claude.json", MCP_CONFIG),
    (
        ".ripgreprc",
        "ripgrep's configuration file: it changes every search that runs rg",
    ),
    (
        ".envrc",
        "a direnv file: direnv runs it when a shell enters the folder",
    ),
];

/// Folder sequences protected at any depth (`.config/fish/...`).
pub const PROTECTED_SEQUENCES: [(&[&str], &str); 3] = [
    (
        &[".config", "fish"],
        "fish shell configuration: it runs on every new shell",
    ),
    (&[".config", "git"], GIT_CONFIG),
    (&[".config", "nerve"], NERVE_USER_SETTINGS),
];

/// What the sandbox does when a protected entry does not exist yet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IfMissing {
    /// Refuse creating it: something runs it as soon as it exists (Claude Code and Nerve read
    /// `.claude/` and `.nerve/`, editors `.vscode/`, direnv `.envrc`).
    Refuse,
    /// Refuse creating it by holding it with a file naming the folder it is in (`.`): for
    /// `.git/commondir`, which would move the configuration to a repository of the command's
    /// making, and which git reads whenever it exists (an empty placeholder would break git).
    RefuseAsSelfReference,
    /// Let it be created: on its own it runs nothing (a new `.gitattributes` can only pick
    /// drivers the protected configuration defines), or refusing it would break ordinary work.
    Allow,
}

/// One entry the sandbox write-protects, relative to a folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxGuard {
    /// The path below the folder.
    pub relative: &'static str,
    /// When it does not exist.
    pub if_missing: IfMissing,
}

const fn guard(relative: &'static str, if_missing: IfMissing) -> SandboxGuard {
    SandboxGuard { relative, if_missing }
}

/// Guarded at the top of every folder a sandboxed command may write (the project, additional
/// working folders, the paths the user made writable). `.git` is special: a `.git` *folder* stays
/// writable (commits write its index, objects, refs and logs) and [`SANDBOX_GUARDS_IN_GIT_DIR`]
/// are guarded inside it; a `.git` *file* (a worktree's or submodule's pointer, which could be
/// pointed at a planted repository) is guarded whole; a missing one is refused, so no repository
/// with a planted configuration appears where the user runs git.
pub const SANDBOX_GUARDS_IN_WRITABLE_FOLDERS: [SandboxGuard; 11] = [
    guard(".git", IfMissing::Refuse),
    guard(".gitmodules", IfMissing::Allow),
    guard(".gitattributes", IfMissing::Allow),
    guard(".husky", IfMissing::Allow),
    guard(".nerve", IfMissing::Refuse),
    guard(".claude", IfMissing::Refuse),
    guard(".vscode", IfMissing::Refuse),
    guard(".idea", IfMissing::Refuse),
    guard(".mcp.json", IfMissing::Refuse),
    guard(".envrc", IfMissing::Refuse),
    guard(".claude.json", IfMissing::Allow),
];

/// Guarded inside a `.git` folder: what makes git run a program (`config`: `core.fsmonitor`,
/// `core.hooksPath`, filters, aliases...; `hooks/`; `commondir`, which moves the configuration
/// elsewhere; `config.worktree`; the configurations and hooks of submodules under `modules/`).
/// The rest (index, objects, refs, logs, `COMMIT_EDITMSG`) stays writable so commits work.
pub const SANDBOX_GUARDS_IN_GIT_DIR: [SandboxGuard; 5] = [
    guard("config", IfMissing::Refuse),
    guard("hooks", IfMissing::Refuse),
    guard("commondir", IfMissing::RefuseAsSelfReference),
    guard("config.worktree", IfMissing::Allow),
    guard("modules", IfMissing::Allow),
];

/// Guarded in the home folder when a writable folder holds them (home, or `~/.config`, made
/// writable by the user): shell start-up files and the user's git, fish, Nerve and Claude Code
/// configuration. A missing one is refused only where its folder exists.
pub const SANDBOX_GUARDS_IN_HOME: [SandboxGuard; 22] = [
    guard(".bashrc", IfMissing::Refuse),
    guard(".bash_profile", IfMissing::Refuse),
    guard(".bash_login", IfMissing::Refuse),
    guard(".bash_logout", IfMissing::Refuse),
    guard(".profile", IfMissing::Refuse),
    guard(".zshrc", IfMissing::Refuse),
    guard(".zprofile", IfMissing::Refuse),
    guard(".zshenv", IfMissing::Refuse),
    guard(".zlogin", IfMissing::Refuse),
    guard(".zlogout", IfMissing::Refuse),
    guard(".kshrc", IfMissing::Refuse),
    guard(".cshrc", IfMissing::Refuse),
    guard(".tcshrc", IfMissing::Refuse),
    guard(".inputrc", IfMissing::Refuse),
    guard(".gitconfig", IfMissing::Refuse),
    guard(".ssh", IfMissing::Refuse),
    guard(".config/git", IfMissing::Refuse),
    guard(".config/fish", IfMissing::Refuse),
    guard(".config/nerve", IfMissing::Refuse),
    guard(".claude", IfMissing::Refuse),
    guard(".claude.json", IfMissing::Refuse),
    guard(".nerve", IfMissing::Refuse),
];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every name the sandbox guards is one the permission check protects: the two never drift.
    #[test]
    fn what_the_sandbox_guards_the_permission_check_protects() {
        let protected_name = |name: &str| {
            PROTECTED_DIRS.iter().any(|(n, _)| *n == name) || PROTECTED_FILES.iter().any(|(n, _)| *n == name)
        };
        let mut checked = 0;
        for guard in SANDBOX_GUARDS_IN_WRITABLE_FOLDERS
            .iter()
            .chain(&SANDBOX_GUARDS_IN_HOME)
        {
            let first = guard.relative.split('/').next().unwrap_or_default();
            let sequence: Vec<&str> = guard.relative.split('/').collect();
            let in_sequence = PROTECTED_SEQUENCES.iter().any(|(s, _)| *s == sequence.as_slice());
            assert!(protected_name(first) || in_sequence, "{}", guard.relative);
            checked += 1;
        }
        println!("{checked} guarded names checked against the permission check's list");
    }
}
