//! The instruction ("memory") files the model reads: the project's at its root, the user's for
//! every project, and what they import. Listed, read and written by the app, and a line appended
//! by a prompt starting with `#`. Only a listed file is ever read or written here: the paths come
//! from the window, and must not reach the user's other files.

pub use nerve_protocol::settings::{MemoryFileView, MemoryKind};

use std::path::{Path, PathBuf};

use crate::agent::system_prompt::{INSTRUCTION_FILES, imports_of, user_instructions_path};
use crate::settings::SettingsLocations;

/// Why a memory file could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum MemoryFileError {
    /// Not one of the session's instruction files.
    #[error("{0} is not one of this project's instruction files")]
    NotListed(String),
    /// Reading or writing failed.
    #[error("could not {what} {path}: {source}")]
    Io {
        /// Read or write.
        what: &'static str,
        /// The file.
        path: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// An empty line to remember.
    #[error("there is nothing to add: type the line after `#`")]
    Empty,
}

/// The instruction files of the project at `project_root`, in the order the model reads them:
/// the user's, the project's (`NERVE.md` always, to be created; the others when they exist),
/// then each one's imports.
pub fn memory_files(project_root: &Path, locations: &SettingsLocations) -> Vec<MemoryFileView> {
    let view = |path: &Path, kind, imported_by: Option<&Path>| MemoryFileView {
        path: path.display().to_string(),
        kind,
        exists: path.is_file(),
        imported_by: imported_by.map(|p| p.display().to_string()),
    };
    let mut files = Vec::new();
    // Each file with the folder its imports must stay in: the user's own folder for the user's
    // file, the project for the project's.
    let user = user_instructions_path(&locations.config_dir);
    files.push(view(&user, MemoryKind::User, None));
    let mut roots = vec![(user.clone(), user.parent().unwrap_or(project_root).to_path_buf())];
    for (i, name) in INSTRUCTION_FILES.iter().enumerate() {
        let path = project_root.join(name);
        if i == 0 || path.is_file() {
            files.push(view(&path, MemoryKind::Project, None));
            roots.push((path, project_root.to_path_buf()));
        }
    }
    for (root, base) in &roots {
        for (path, importer) in imports_of(base, root) {
            if !files.iter().any(|f| Path::new(&f.path) == path) {
                files.push(view(&path, MemoryKind::Import, Some(&importer)));
            }
        }
    }
    files
}

/// `path` when it is one of the listed files.
fn listed(
    project_root: &Path,
    locations: &SettingsLocations,
    path: &str,
) -> Result<PathBuf, MemoryFileError> {
    memory_files(project_root, locations)
        .into_iter()
        .find(|f| f.path == path)
        .map(|f| PathBuf::from(f.path))
        .ok_or_else(|| MemoryFileError::NotListed(path.to_string()))
}

/// The text of a listed file (empty when it does not exist yet).
pub fn read_memory_file(
    project_root: &Path,
    locations: &SettingsLocations,
    path: &str,
) -> Result<String, MemoryFileError> {
    let path = listed(project_root, locations, path)?;
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(String::new()),
        Err(source) => Err(MemoryFileError::Io {
            what: "read",
            path: path.display().to_string(),
            source,
        }),
    }
}

/// Replaces the text of a listed file (created, with its folder, when missing), atomically.
pub fn write_memory_file(
    project_root: &Path,
    locations: &SettingsLocations,
    path: &str,
    text: &str,
) -> Result<(), MemoryFileError> {
    let path = listed(project_root, locations, path)?;
    let io = |source| MemoryFileError::Io {
        what: "write",
        path: path.display().to_string(),
        source,
    };
    if let Some(folder) = path.parent() {
        std::fs::create_dir_all(folder).map_err(io)?;
    }
    crate::files::write_atomic(&path, text.as_bytes()).map_err(io)
}

/// Appends `line` (what followed `#` in a prompt) to a listed file as a list item, on a line of
/// its own.
pub fn append_memory_line(
    project_root: &Path,
    locations: &SettingsLocations,
    path: &str,
    line: &str,
) -> Result<(), MemoryFileError> {
    let line = line.trim().trim_start_matches('#').trim();
    if line.is_empty() {
        return Err(MemoryFileError::Empty);
    }
    let mut text = read_memory_file(project_root, locations, path)?;
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&format!("- {line}\n"));
    write_memory_file(project_root, locations, path, &text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_files_the_model_reads_are_listed_edited_and_appended_to_and_no_other() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("CLAUDE.md"), "See @docs/style.md for the style.\n").unwrap();
        std::fs::write(root.join("docs/style.md"), "Tabs.\n").unwrap();
        std::fs::write(dir.path().join("secret.txt"), "no").unwrap();
        let locations = SettingsLocations {
            managed_file: dir.path().join("etc/managed.json"),
            config_dir: dir.path().join("home/.config"),
            home: dir.path().join("home"),
        };
        let files = memory_files(&root, &locations);
        let summary: Vec<(String, MemoryKind, bool, Option<String>)> = files
            .iter()
            .map(|f| {
                (
                    f.path.replace(&dir.path().display().to_string(), ""),
                    f.kind,
                    f.exists,
                    f.imported_by
                        .as_ref()
                        .map(|p| p.replace(&dir.path().display().to_string(), "")),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "/home/.config/nerve/NERVE.md".into(),
                    MemoryKind::User,
                    false,
                    None
                ),
                ("/project/NERVE.md".into(), MemoryKind::Project, false, None),
                ("/project/CLAUDE.md".into(), MemoryKind::Project, true, None),
                (
                    "/project/docs/style.md".into(),
                    MemoryKind::Import,
                    true,
                    Some("/project/CLAUDE.md".into())
                ),
            ]
        );
        let nerve = files[1].path.clone();
        assert_eq!(read_memory_file(&root, &locations, &nerve).unwrap(), "");
        append_memory_line(&root, &locations, &nerve, "# Run the tests with cargo test").unwrap();
        append_memory_line(&root, &locations, &nerve, "Keep commits small").unwrap();
        assert_eq!(
            read_memory_file(&root, &locations, &nerve).unwrap(),
            "- Run the tests with cargo test\n- Keep commits small\n"
        );
        let user = files[0].path.clone();
        write_memory_file(&root, &locations, &user, "Answer briefly.\n").unwrap();
        assert_eq!(std::fs::read_to_string(&user).unwrap(), "Answer briefly.\n");
        let outside = dir.path().join("secret.txt").display().to_string();
        assert!(matches!(
            read_memory_file(&root, &locations, &outside),
            Err(MemoryFileError::NotListed(_))
        ));
        assert!(matches!(
            write_memory_file(&root, &locations, &outside, "x"),
            Err(MemoryFileError::NotListed(_))
        ));
        assert!(matches!(
            append_memory_line(&root, &locations, &nerve, "  # "),
            Err(MemoryFileError::Empty)
        ));
    }
}
