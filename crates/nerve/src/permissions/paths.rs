//! Path helpers shared by matching and protection: lexical normalisation and symlink resolution.

use std::path::{Component, Path, PathBuf};

/// Removes `.` components and folds `..` into the previous component, without touching the
/// filesystem (the path may not exist yet, e.g. a file about to be written).
///
/// `..` at the root stays at the root (`/..` is `/`), as the kernel does. A relative path keeps its
/// leading `..` components because there is nothing to fold them into.
pub fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                let can_pop = matches!(out.components().next_back(), Some(Component::Normal(_)));
                if can_pop {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(part) => out.push(part),
        }
    }
    out
}

/// Resolves `path` the way the kernel would: symlinks in every existing component are followed,
/// and `..` after a symlink climbs from the symlink's target, not from the link's folder.
///
/// Components that do not exist yet (a file about to be written) are appended unchanged; they cannot
/// be symlinks, so folding a `..` that follows them is exact. The result is where a write to `path`
/// would really land. `path` should be absolute; a relative one is resolved against the process's
/// current directory by the filesystem calls.
pub fn resolve_real_path(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    // How many trailing components of `out` do not exist on disk.
    let mut missing = 0usize;
    for component in path.components() {
        match component {
            Component::Prefix(prefix) => out.push(prefix.as_os_str()),
            Component::RootDir => out.push(component.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                if missing > 0 {
                    missing -= 1;
                    out.pop();
                } else if matches!(out.components().next_back(), Some(Component::Normal(_))) {
                    out.pop();
                } else if !out.has_root() {
                    out.push("..");
                }
            }
            Component::Normal(part) => {
                out.push(part);
                if missing == 0 {
                    match out.canonicalize() {
                        Ok(real) => out = real,
                        Err(_) => missing = 1,
                    }
                } else {
                    missing += 1;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn folds_dot_and_dot_dot() {
        let cases = [
            ("/a/b/../c/./d", "/a/c/d"),
            ("/a/../../etc/passwd", "/etc/passwd"),
            ("/..", "/"),
            ("a/./b/..", "a"),
            ("../x", "../x"),
            ("a/../../x", "../x"),
            ("/a//b/", "/a/b"),
        ];
        for (input, expected) in cases {
            assert_eq!(
                normalize_lexically(Path::new(input)),
                PathBuf::from(expected),
                "{input}"
            );
        }
    }

    #[test]
    fn resolves_symlinked_prefix_and_keeps_missing_tail() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().canonicalize().unwrap().join("real");
        std::fs::create_dir(&real).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        assert_eq!(
            resolve_real_path(&link.join("new/file.txt")),
            real.join("new/file.txt")
        );
        assert_eq!(resolve_real_path(&link.join("new/../x")), real.join("x"));
        // `..` after a symlink climbs from the target, as the kernel does.
        let root = dir.path().canonicalize().unwrap();
        let outside = root.join("outside");
        std::fs::create_dir_all(outside.join("deep")).unwrap();
        let project = root.join("project");
        std::fs::create_dir(&project).unwrap();
        std::os::unix::fs::symlink(outside.join("deep"), project.join("jump")).unwrap();
        assert_eq!(
            resolve_real_path(&project.join("jump/../secret")),
            outside.join("secret")
        );
    }
}
