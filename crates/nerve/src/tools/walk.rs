//! Directory walking shared by Glob and Grep: ripgrep's rules (`.gitignore`, `.ignore`, hidden
//! files skipped) plus a hard exclusion of version-control folders.

use std::ffi::OsStr;
use std::path::Path;

use ignore::{DirEntry, WalkBuilder};

/// Version-control folders that are never searched, even when hidden files are: their contents
/// (packed objects, copies of every revision) are noise that burns the model's budget.
pub const VCS_DIRS: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// Whether `name` is one of [`VCS_DIRS`].
pub fn is_vcs_dir_name(name: &OsStr) -> bool {
    VCS_DIRS.iter().any(|d| OsStr::new(d) == name)
}

/// Whether a walk entry is a version-control folder.
fn is_vcs_dir(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir()) && is_vcs_dir_name(entry.file_name())
}

/// A walker over `root` with ripgrep's default filters; `hidden` also visits dot-files.
/// VCS folders are pruned either way.
pub fn walker(root: &Path, hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(true)
        .hidden(!hidden)
        .filter_entry(|entry| !is_vcs_dir(entry));
    builder
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_every_vcs_folder() {
        for name in [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"] {
            assert!(is_vcs_dir_name(OsStr::new(name)), "{name}");
        }
        assert!(!is_vcs_dir_name(OsStr::new(".github")));
        assert!(!is_vcs_dir_name(OsStr::new("git")));
    }
}
