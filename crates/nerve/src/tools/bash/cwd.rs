//! The persistent working directory: each command runs in the session's cwd, its final directory is
//! recorded when the shell exits, and a `cd` carries over to later calls only inside the allowed
//! working directories.

use std::path::{Path, PathBuf};

use crate::permissions::protected::is_inside_working_dirs;

/// The script `bash -c` runs: the model's command arrives as `$1` and runs through `eval`, so no
/// text of it can break out of the wrapper (an unterminated heredoc or a trailing backslash would
/// swallow an appended `pwd`). The EXIT trap records the final directory even after `exit 3`.
pub(crate) fn tracking_script(cwd_file: &Path) -> String {
    let record = format!(
        "pwd -P >| {} 2>/dev/null",
        shell_quote(&cwd_file.to_string_lossy())
    );
    format!(
        "__nerve_command=$1\nshift\ntrap {} EXIT\neval \"$__nerve_command\"\n",
        shell_quote(&record)
    )
}

/// `text` in single quotes, safe as one shell word.
pub(crate) fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

/// What happened to the working directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum CwdChange {
    /// Still where it was (or nothing was recorded, for example after `exec`).
    Unchanged,
    /// Moved inside the working directories: later calls start here.
    Moved(PathBuf),
    /// Moved outside the working directories: later calls stay in the old one.
    Refused {
        /// Where the command ended up.
        attempted: PathBuf,
    },
}

/// Judges the directory recorded by [`tracking_script`] (`None` when the file is empty or missing).
pub(crate) fn judge_cwd(recorded: Option<&str>, old: &Path, working_dirs: &[PathBuf]) -> CwdChange {
    let Some(recorded) = recorded
        .map(|r| r.trim_end_matches('\n'))
        .filter(|r| !r.is_empty())
    else {
        return CwdChange::Unchanged;
    };
    let new = PathBuf::from(recorded);
    let old_real = std::fs::canonicalize(old).unwrap_or_else(|_| old.to_path_buf());
    if new == old_real || new == old {
        CwdChange::Unchanged
    } else if is_inside_working_dirs(&new, working_dirs) {
        CwdChange::Moved(new)
    } else {
        CwdChange::Refused { attempted: new }
    }
}

/// The note for the model when a `cd` was refused.
pub(crate) fn refused_note(attempted: &Path, kept: &Path) -> String {
    format!(
        "Shell cwd was reset to {}: {} is outside the allowed working directories, so the next command starts in {} again. Use absolute paths or `cd` within the project instead.",
        kept.display(),
        attempted.display(),
        kept.display()
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn quoting_survives_single_quotes() {
        assert_eq!(shell_quote("a'b"), r"'a'\''b'");
    }

    #[test]
    fn judging() {
        let root = tempfile::tempdir().unwrap();
        let project = std::fs::canonicalize(root.path()).unwrap();
        std::fs::create_dir(project.join("sub")).unwrap();
        let dirs = vec![project.clone()];
        let sub = project.join("sub");
        assert_eq!(judge_cwd(None, &project, &dirs), CwdChange::Unchanged);
        assert_eq!(judge_cwd(Some(""), &project, &dirs), CwdChange::Unchanged);
        let here = format!("{}\n", project.display());
        assert_eq!(judge_cwd(Some(&here), &project, &dirs), CwdChange::Unchanged);
        assert_eq!(
            judge_cwd(Some(&sub.to_string_lossy()), &project, &dirs),
            CwdChange::Moved(sub.clone())
        );
        assert_eq!(
            judge_cwd(Some("/"), &project, &dirs),
            CwdChange::Refused {
                attempted: PathBuf::from("/")
            }
        );
    }

    #[tokio::test]
    async fn the_script_records_the_final_directory_and_keeps_the_exit_code() {
        let root = tempfile::tempdir().unwrap();
        let file = root.path().join("it's cwd");
        let script = tracking_script(&file);
        let out = tokio::process::Command::new("bash")
            .args(["-c", &script, "nerve-bash", "cd / && echo \"$#\" && exit 3"])
            .output()
            .await
            .unwrap();
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            "0\n",
            "the command sees no arguments"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "/\n");
    }
}
