//! The folder every suite's test project lives in: the project (`project/`), a home of its own
//! (`home/`) so no test reads the user's settings, and room beside them for a data dir.

use std::path::PathBuf;

/// A temporary folder holding `project/` and `home/`; removed when dropped.
pub struct ProjectFolder {
    /// The temporary folder.
    pub dir: tempfile::TempDir,
}

impl ProjectFolder {
    /// A new folder with an empty project and an empty home.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary folder");
        for sub in ["project", "home"] {
            std::fs::create_dir_all(dir.path().join(sub)).expect("the test folder's layout");
        }
        Self { dir }
    }

    /// The project, canonical (as the engine sees it).
    pub fn project_dir(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path().join("project")).expect("the project folder exists")
    }

    /// The test's home folder.
    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// Writes `content` to `rel` in the project (making its folders); its path.
    pub fn write(&self, rel: &str, content: &str) -> PathBuf {
        let p = self.project_dir().join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).expect("the file's folder");
        }
        std::fs::write(&p, content).expect("the file is written");
        p
    }
}

impl Default for ProjectFolder {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_file_lands_in_the_project_with_its_folders() {
        let f = ProjectFolder::new();
        let p = f.write("a/b.txt", "hi");
        assert_eq!(p, f.project_dir().join("a/b.txt"));
        assert_eq!(std::fs::read_to_string(p).unwrap(), "hi");
        assert!(f.home().is_dir());
    }
}
