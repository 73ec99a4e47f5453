//! Paths whose modification can run code or change permissions later: never pre-approved by an
//! allow rule or acceptEdits (the resolver asks instead), and the working-directory check. The
//! list itself is `protected_paths`, shared with the sandbox, which write-protects the same paths.

use std::path::{Component, Path, PathBuf};

use crate::permissions::paths::{normalize_lexically, resolve_real_path};
#[cfg(test)]
use crate::protected_paths::SHELL_STARTUP;
use crate::protected_paths::{NERVE_USER_SETTINGS, PROTECTED_DIRS, PROTECTED_FILES, PROTECTED_SEQUENCES};

/// The lowercase components of `path` below the working directory that contains it, or all of
/// them. Below a working directory only the part inside it is judged: the user chose to work
/// there, even if the folder itself sits under, say, `~/.claude/skills/`.
fn judged_components(path: &Path, working_dirs: &[PathBuf]) -> Vec<String> {
    let relative = working_dirs
        .iter()
        .filter_map(|dir| path.strip_prefix(dir).ok())
        .min_by_key(|rest| rest.components().count())
        .unwrap_or(path);
    relative
        .components()
        .filter_map(|component| match component {
            Component::Normal(part) => Some(part.to_string_lossy().to_lowercase()),
            Component::Prefix(_) | Component::RootDir | Component::CurDir | Component::ParentDir => None,
        })
        .collect()
}

fn protection_reason(components: &[String]) -> Option<&'static str> {
    // Case-insensitive: on macOS and Windows `.GIT/config` is `.git/config`.
    for component in components {
        if let Some((_, reason)) = PROTECTED_DIRS.iter().find(|(name, _)| component == name) {
            return Some(reason);
        }
    }
    if let Some((_, reason)) = components
        .last()
        .and_then(|file_name| PROTECTED_FILES.iter().find(|(name, _)| file_name == name))
    {
        return Some(reason);
    }
    PROTECTED_SEQUENCES
        .iter()
        .find(|(sequence, _)| {
            components
                .windows(sequence.len())
                .any(|window| window.iter().zip(sequence.iter()).all(|(a, b)| a == b))
        })
        .map(|(_, reason)| *reason)
}

/// Why writing to `path` must not be pre-approved, or `None` if it is an ordinary path.
///
/// Protected: the folders `.git`, `.nerve`, `.claude`, `.vscode`, `.idea`, `.husky`, `.ssh` at any
/// depth; shell startup files (`.bashrc`, `.zshrc`, `.profile`, ...), git configuration
/// (`.gitconfig`, `.gitmodules`, `.gitattributes`, `.config/git/`), `.mcp.json`, `.claude.json`,
/// `.ripgreprc`, `.envrc`, `.config/fish/`, and Nerve's user settings (`<home>/.config/nerve/`, or the
/// platform's equivalent under `home`). Names compare case-insensitively.
///
/// Both the lexical path and the path with symlinks resolved are judged, so a link in the project
/// pointing into `.git/` is caught. Below a working directory only the part inside it is judged
/// (see `judged_components`); file names are judged everywhere.
pub fn is_protected_path(path: &Path, working_dirs: &[PathBuf], home: &Path) -> Option<&'static str> {
    let lexical = normalize_lexically(path);
    let real = resolve_real_path(&lexical);
    let lexical_dirs: Vec<PathBuf> = working_dirs.iter().map(|d| normalize_lexically(d)).collect();
    let real_dirs: Vec<PathBuf> = working_dirs.iter().map(|d| resolve_real_path(d)).collect();
    let user_settings_dirs = [
        normalize_lexically(&home.join(".config/nerve")),
        resolve_real_path(&home.join(".config/nerve")),
    ];
    for (candidate, dirs) in [(&lexical, &lexical_dirs), (&real, &real_dirs)] {
        if user_settings_dirs.iter().any(|dir| candidate.starts_with(dir)) {
            return Some(NERVE_USER_SETTINGS);
        }
        if let Some(reason) = protection_reason(&judged_components(candidate, dirs)) {
            return Some(reason);
        }
        // File names are dangerous wherever they are, even as the working directory's own name.
        let file_name = candidate
            .file_name()
            .map(|name| name.to_string_lossy().to_lowercase());
        if let Some(reason) = file_name.and_then(|name| {
            PROTECTED_FILES
                .iter()
                .find(|(protected, _)| *protected == name)
                .map(|(_, reason)| *reason)
        }) {
            return Some(reason);
        }
    }
    None
}

/// Whether `path` is inside (or is) one of `dirs`, judged where a write would really land.
///
/// Both sides are normalised lexically and resolved through symlinks as far as they exist (see
/// [`resolve_real_path`]), so `<project>/link/../x` with `link` pointing outside is outside, and a
/// project reached through a symlinked folder is still inside. A relative `path` is never inside.
pub fn is_inside_working_dirs(path: &Path, dirs: &[PathBuf]) -> bool {
    if !path.is_absolute() {
        return false;
    }
    let real = resolve_real_path(path);
    dirs.iter()
        .filter(|dir| dir.is_absolute())
        .any(|dir| real.starts_with(resolve_real_path(dir)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn protected(path: &str) -> Option<&'static str> {
        is_protected_path(
            Path::new(path),
            &[PathBuf::from("/work/project")],
            Path::new("/home/me"),
        )
    }

    #[test]
    fn protects_tool_folders_at_any_depth() {
        for path in [
            "/work/project/.git/config",
            "/work/project/.git/hooks/pre-commit",
            "/work/project/vendor/lib/.git/HEAD",
            "/work/project/.nerve/settings.json",
            "/work/project/.claude/settings.local.json",
            "/work/project/.vscode/tasks.json",
            "/work/project/.idea/workspace.xml",
            "/work/project/.husky/pre-commit",
            "/work/project/.GIT/config",
            "/home/me/.ssh/authorized_keys",
            "/work/project/sub/.git",
        ] {
            assert!(protected(path).is_some(), "{path}");
        }
        assert_eq!(
            protected("/work/project/.git/config"),
            Some(
                "inside a .git folder: changes there can rewrite history or run code through git \
                 hooks"
            )
        );
    }

    #[test]
    fn protects_startup_and_config_files() {
        for path in [
            "/home/me/.bashrc",
            "/home/me/.bash_profile",
            "/home/me/.profile",
            "/home/me/.zshrc",
            "/home/me/.zprofile",
            "/home/me/.zshenv",
            "/home/me/.bash_login",
            "/home/me/.bash_logout",
            "/home/me/.config/fish/config.fish",
            "/home/me/.config/fish/conf.d/x.fish",
            "/home/me/.gitconfig",
            "/home/me/.config/git/config",
            "/work/project/.gitmodules",
            "/work/project/.mcp.json",
            "/work/project/.ripgreprc",
            "/work/project/sub/.zshrc",
            "/home/me/.config/nerve/settings.json",
            "/work/project/../project/.bashrc",
        ] {
            assert!(protected(path).is_some(), "{path}");
        }
        assert_eq!(protected("/home/me/.zshrc"), Some(SHELL_STARTUP));
    }

    #[test]
    fn ordinary_paths_are_not_protected() {
        for path in [
            "/work/project/src/main.rs",
            "/work/project/.github/workflows/ci.yml",
            "/work/project/.gitignore",
            "/work/project/docs/git/notes.md",
            "/work/project/bashrc.md",
            "/work/project/.env",
        ] {
            assert_eq!(protected(path), None, "{path}");
        }
    }

    #[test]
    fn a_working_dir_inside_a_protected_folder_is_judged_below_itself() {
        let dirs = [PathBuf::from("/home/me/.claude/skills/mine")];
        let home = Path::new("/home/me");
        assert_eq!(
            is_protected_path(Path::new("/home/me/.claude/skills/mine/SKILL.md"), &dirs, home),
            None
        );
        assert!(is_protected_path(Path::new("/home/me/.claude/settings.json"), &dirs, home).is_some());
        assert!(is_protected_path(Path::new("/home/me/.claude/skills/mine/.git/x"), &dirs, home).is_some());
    }

    #[test]
    fn a_symlink_into_git_is_protected() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(project.join(".git/hooks")).unwrap();
        std::os::unix::fs::symlink(project.join(".git/hooks"), project.join("innocent")).unwrap();
        let dirs = [project.clone()];
        assert!(
            is_protected_path(&project.join("innocent/pre-commit"), &dirs, Path::new("/nohome")).is_some()
        );
    }

    #[test]
    fn inside_working_dirs_is_lexical_and_follows_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        std::fs::create_dir_all(project.join("src")).unwrap();
        std::fs::create_dir_all(outside.join("deep")).unwrap();
        std::os::unix::fs::symlink(&outside, project.join("escape")).unwrap();
        std::os::unix::fs::symlink(outside.join("deep"), project.join("jump")).unwrap();
        std::os::unix::fs::symlink(&project, root.join("alias")).unwrap();
        let dirs = [project.clone()];
        assert!(is_inside_working_dirs(&project.join("src/new.rs"), &dirs));
        assert!(is_inside_working_dirs(&project, &dirs));
        assert!(is_inside_working_dirs(&project.join("a/b/../c.txt"), &dirs));
        assert!(!is_inside_working_dirs(&project.join("../outside/x"), &dirs));
        assert!(!is_inside_working_dirs(&project.join("escape/x"), &dirs));
        assert!(!is_inside_working_dirs(&project.join("jump/../x"), &dirs));
        assert!(!is_inside_working_dirs(&root.join("projectx/a"), &dirs));
        assert!(is_inside_working_dirs(&root.join("alias/src/x"), &dirs));
        assert!(is_inside_working_dirs(
            &project.join("src/x"),
            &[root.join("alias")]
        ));
        assert!(!is_inside_working_dirs(Path::new("src/x"), &dirs));
    }
}
