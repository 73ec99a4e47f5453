//! Atomic file replacement: a crash or a failed write never leaves half a file.
//!
//! The new content goes to a temporary file in the same folder (same filesystem, so the rename is
//! atomic), is flushed to disk, gets the old file's permissions, and then replaces the file by
//! rename. A failure at any step leaves the old file untouched and removes the temporary one.

use std::fs::{File, Permissions};
use std::io::Write as _;
use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

/// Replaces (or creates) `path` with `bytes` atomically, creating missing parent folders. An
/// existing file keeps its permission bits; a symlink keeps pointing at its target, which is what
/// gets replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] for a secret: the file is the owner's alone (0600) from its first byte, and
/// stays so whatever mode an earlier file had.
pub fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_in_mode(path, Some(0o600), |file| file.write_all(bytes))
}

/// [`write_atomic`] with the content produced by `fill`, so tests can make the write fail midway.
pub(crate) fn write_atomic_with(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_atomic_in_mode(path, None, fill)
}

/// The write itself: `mode` fixes the file's permission bits; without it, a new file gets the
/// umask's and an existing one keeps its own.
fn write_atomic_in_mode(
    path: &Path,
    mode: Option<u32>,
    fill: impl FnOnce(&mut File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let target = write_target(path);
    let parent = target.parent().ok_or_else(|| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} has no parent folder", target.display()),
        )
    })?;
    std::fs::create_dir_all(parent)?;
    let existing_mode = match mode {
        Some(mode) => Some(Permissions::from_mode(mode)),
        None => std::fs::metadata(&target).ok().map(|m| m.permissions()),
    };
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // 0o666 is passed to open(2), so the umask applies to new files as it would for any editor;
    // tempfile's own default (0o600) would make every created file private.
    let mut temp = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(Permissions::from_mode(mode.unwrap_or(0o666)))
        .tempfile_in(parent)?;
    fill(temp.as_file_mut())?;
    if let Some(mode) = existing_mode {
        temp.as_file().set_permissions(mode)?;
    }
    temp.as_file().sync_all()?;
    temp.persist(&target).map_err(|e| e.error)?;
    // The rename is durable only once the folder's entry is on disk; failing to sync it does not undo
    // a completed write, so it is not reported as one.
    if let Ok(dir) = File::open(parent) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// Where a write to `path` should land: the target of a symlink (so the link survives), else `path`.
fn write_target(path: &Path) -> PathBuf {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() => {
            std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
        }
        _ => path.to_path_buf(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn replaces_content_and_leaves_no_temp_file() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "old").unwrap();
        write_atomic(&p, b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "new");
        assert_eq!(entries(dir.path()), vec!["a.txt"]);
    }

    #[test]
    fn failed_write_keeps_old_content_and_cleans_up() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "old content").unwrap();
        let err = write_atomic_with(&p, |f| {
            f.write_all(b"half of the new")?;
            Err(std::io::Error::other("disk full"))
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "disk full");
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "old content");
        assert_eq!(entries(dir.path()), vec!["a.txt"]);
    }

    #[test]
    fn keeps_the_mode() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("run.sh");
        std::fs::write(&p, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&p, Permissions::from_mode(0o755)).unwrap();
        write_atomic(&p, b"#!/bin/sh\necho hi\n").unwrap();
        assert_eq!(std::fs::metadata(&p).unwrap().permissions().mode() & 0o777, 0o755);
    }

    #[test]
    fn new_files_are_not_private() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("deep/er/new.txt");
        write_atomic(&p, b"x").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"x");
        let status = std::fs::read_to_string("/proc/self/status").unwrap();
        let umask = status
            .lines()
            .find_map(|l| l.strip_prefix("Umask:"))
            .map(|v| u32::from_str_radix(v.trim(), 8).unwrap())
            .unwrap();
        let mode = std::fs::metadata(&p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o666 & !umask, "mode {mode:o}, umask {umask:o}");
    }

    #[test]
    fn writes_through_symlinks() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.txt");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.txt");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        write_atomic(&link, b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }
}
