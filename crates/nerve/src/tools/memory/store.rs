//! The per-project memory folder: one Markdown file per entry, `<name>.md`, starting with a
//! front matter that holds a one-line `description:`. The system prompt lists every entry's name
//! and description; the model reads an entry's text on demand. The user sees and deletes entries
//! with `nerve memory list|show|rm` (and the desktop app's memory editor).
//!
//! The folder lives under the project's data folder (`<data dir>/projects/<project key>/memory/`),
//! never in the project itself: the facts are the user's, not the repository's.

use std::path::{Path, PathBuf};

use crate::tools::memory::secrets::looks_like_secret;

/// The memory folder of a project whose data folder is `project_data_dir`.
pub fn memory_dir(project_data_dir: &Path) -> PathBuf {
    project_data_dir.join("memory")
}

/// Longest entry name (file stem).
pub const MAX_NAME_CHARS: usize = 64;
/// Longest description (one line).
pub const MAX_DESCRIPTION_CHARS: usize = 200;
/// Longest entry text: memory holds short facts, not documents.
pub const MAX_CONTENT_CHARS: usize = 4_000;
/// Most entries listed in the system prompt; the rest are named by count.
pub const MAX_LISTED: usize = 50;

/// One remembered fact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryEntry {
    /// The file stem, e.g. `test-command`.
    pub name: String,
    /// The one-line description from the front matter (empty when the file has none).
    pub description: String,
    /// The text after the front matter.
    pub content: String,
    /// The file.
    pub path: PathBuf,
}

/// Why an entry could not be written, read or removed.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    /// The name is not a short `lower-case-words` name.
    #[error(
        "memory name {0:?} is not valid: use 1 to {MAX_NAME_CHARS} lower-case letters, digits and hyphens, e.g. \"test-command\""
    )]
    BadName(String),
    /// The description is empty, too long, or not one line.
    #[error("the description must be one line of 1 to {MAX_DESCRIPTION_CHARS} characters")]
    BadDescription,
    /// The text is empty or too long.
    #[error("the memory text must be 1 to {MAX_CONTENT_CHARS} characters (memory holds short facts)")]
    BadContent,
    /// The text looks like a credential.
    #[error("refused: the memory looks like it holds a secret ({0}); memory never stores secrets")]
    Secret(&'static str),
    /// No entry by that name.
    #[error("no memory named {0:?}")]
    NotFound(String),
    /// The disk said no.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

fn io(context: impl Into<String>) -> impl FnOnce(std::io::Error) -> MemoryError {
    let context = context.into();
    move |source| MemoryError::Io { context, source }
}

/// Checks an entry name: lower-case ASCII letters, digits and single hyphens inside.
pub fn check_name(name: &str) -> Result<(), MemoryError> {
    let ok = !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--");
    if ok {
        Ok(())
    } else {
        Err(MemoryError::BadName(name.to_string()))
    }
}

/// A project's memory folder.
#[derive(Debug, Clone)]
pub struct MemoryStore {
    dir: PathBuf,
}

impl MemoryStore {
    /// The store over `dir` (created on the first write).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file of entry `name`.
    pub fn path_of(&self, name: &str) -> Result<PathBuf, MemoryError> {
        check_name(name)?;
        Ok(self.dir.join(format!("{name}.md")))
    }

    /// Every entry, sorted by name. Files that are not `<valid name>.md` are ignored; a missing
    /// folder is an empty memory.
    pub fn list(&self) -> Result<Vec<MemoryEntry>, MemoryError> {
        let entries = match std::fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(io(format!("reading {}", self.dir.display()))(e)),
        };
        let mut found = Vec::new();
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(name) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(|n| n.strip_suffix(".md"))
            else {
                continue;
            };
            if check_name(name).is_err() || !path.is_file() {
                continue;
            }
            found.push(self.read_path(name, &path)?);
        }
        found.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(found)
    }

    /// One entry.
    pub fn get(&self, name: &str) -> Result<MemoryEntry, MemoryError> {
        let path = self.path_of(name)?;
        if !path.is_file() {
            return Err(MemoryError::NotFound(name.to_string()));
        }
        self.read_path(name, &path)
    }

    fn read_path(&self, name: &str, path: &Path) -> Result<MemoryEntry, MemoryError> {
        let text = std::fs::read_to_string(path).map_err(io(format!("reading {}", path.display())))?;
        let (description, content) = split_front_matter(&text);
        Ok(MemoryEntry {
            name: name.to_string(),
            description,
            content,
            path: path.to_path_buf(),
        })
    }

    /// Writes (or replaces) entry `name`, after checking it holds no secret.
    pub fn save(&self, name: &str, description: &str, content: &str) -> Result<MemoryEntry, MemoryError> {
        let path = self.path_of(name)?;
        let description = description.trim();
        if description.is_empty()
            || description.chars().count() > MAX_DESCRIPTION_CHARS
            || description.contains(['\n', '\r'])
        {
            return Err(MemoryError::BadDescription);
        }
        let content = content.trim();
        if content.is_empty() || content.chars().count() > MAX_CONTENT_CHARS {
            return Err(MemoryError::BadContent);
        }
        for text in [description, content] {
            if let Some(kind) = looks_like_secret(text) {
                return Err(MemoryError::Secret(kind));
            }
        }
        std::fs::create_dir_all(&self.dir).map_err(io(format!("creating {}", self.dir.display())))?;
        let file = format!("---\ndescription: {description}\n---\n\n{content}\n");
        crate::files::write_atomic(&path, file.as_bytes())
            .map_err(io(format!("writing {}", path.display())))?;
        Ok(MemoryEntry {
            name: name.to_string(),
            description: description.to_string(),
            content: content.to_string(),
            path,
        })
    }

    /// Deletes entry `name`.
    pub fn remove(&self, name: &str) -> Result<PathBuf, MemoryError> {
        let path = self.path_of(name)?;
        match std::fs::remove_file(&path) {
            Ok(()) => Ok(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                Err(MemoryError::NotFound(name.to_string()))
            }
            Err(e) => Err(io(format!("removing {}", path.display()))(e)),
        }
    }
}

/// The front matter's `description:` and the text after it. A file without front matter has an
/// empty description and is all text.
fn split_front_matter(text: &str) -> (String, String) {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (String::new(), text.trim().to_string());
    };
    let Some(end) = rest.find("\n---") else {
        return (String::new(), text.trim().to_string());
    };
    let description = rest[..end]
        .lines()
        .find_map(|line| line.strip_prefix("description:"))
        .map(|d| d.trim().trim_matches('"').to_string())
        .unwrap_or_default();
    let after = &rest[end + "\n---".len()..];
    (description, after.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn entries_round_trip_sorted_and_removable() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path().join("memory"));
        assert_eq!(store.list().unwrap(), Vec::new());
        store
            .save(
                "test-command",
                "How to run the tests",
                "Run `make check`, not `cargo test`.",
            )
            .unwrap();
        store
            .save("editor", "Preferred indentation", "Tabs, width 4.")
            .unwrap();
        std::fs::write(store.dir().join("Not A Name.md"), "ignored").unwrap();
        let listed = store.list().unwrap();
        assert_eq!(
            listed
                .iter()
                .map(|e| (e.name.as_str(), e.description.as_str(), e.content.as_str()))
                .collect::<Vec<_>>(),
            vec![
                ("editor", "Preferred indentation", "Tabs, width 4."),
                (
                    "test-command",
                    "How to run the tests",
                    "Run `make check`, not `cargo test`."
                ),
            ]
        );
        assert_eq!(
            std::fs::read_to_string(store.dir().join("editor.md")).unwrap(),
            "---\ndescription: Preferred indentation\n---\n\nTabs, width 4.\n"
        );
        store.remove("editor").unwrap();
        assert!(matches!(store.get("editor"), Err(MemoryError::NotFound(_))));
        assert!(matches!(store.remove("editor"), Err(MemoryError::NotFound(_))));
    }

    #[test]
    fn names_are_checked() {
        let good = ["a", "test-command", "v2", "x-1-y"];
        let bad = [
            "",
            "A",
            "a b",
            "../x",
            "a/b",
            "-a",
            "a-",
            "a--b",
            "a.md",
            "é",
            &"a".repeat(65),
        ];
        for name in good {
            assert!(check_name(name).is_ok(), "{name}");
        }
        for name in bad {
            assert!(check_name(name).is_err(), "{name}");
        }
        println!("checked {} names", good.len() + bad.len());
    }

    #[test]
    fn secrets_and_bad_shapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let store = MemoryStore::new(dir.path());
        assert!(matches!(
            store.save(
                "key",
                "The API key",
                "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"
            ),
            Err(MemoryError::Secret(_))
        ));
        assert!(matches!(
            store.save("d", "two\nlines", "x"),
            Err(MemoryError::BadDescription)
        ));
        assert!(matches!(
            store.save("d", "ok", "  "),
            Err(MemoryError::BadContent)
        ));
        assert!(matches!(
            store.save("d", "ok", &"x".repeat(MAX_CONTENT_CHARS + 1)),
            Err(MemoryError::BadContent)
        ));
        assert_eq!(store.list().unwrap(), Vec::new(), "nothing was written");
    }

    #[test]
    fn a_hand_written_file_without_front_matter_is_all_text() {
        assert_eq!(
            split_front_matter("just text\n"),
            (String::new(), "just text".into())
        );
        assert_eq!(
            split_front_matter("---\nname: x\ndescription: \"quoted\"\n---\nbody"),
            ("quoted".into(), "body".into())
        );
    }
}
