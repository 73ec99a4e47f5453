//! The modification time of each file a walk thread matched, read relative to its folder.
//!
//! Newest-first order needs the time of every match: for "every `.md`" of a million-file project
//! that is 200,000 stats. A stat by full path walks every component of the path again; one
//! relative to an open descriptor of the folder looks up only the name, and the walk hands a
//! thread a folder's files one after another, so the descriptor is opened about once per folder.

use std::ffi::OsStr;
use std::os::fd::OwnedFd;
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use nix::fcntl::AtFlags;
use nix::fcntl::{OFlag, open};
use nix::sys::stat::{FileStat, Mode, fstatat};

/// One walk thread's reader of modification times; keeps the last folder open.
#[derive(Default)]
pub(super) struct ModifiedTimes {
    folder: Option<(PathBuf, OwnedFd)>,
}

impl ModifiedTimes {
    /// When the file at `path` was last modified (without following a symbolic link, as the walk
    /// does not); `None` when that cannot be read (the file went away, no permission).
    pub(super) fn of(&mut self, path: &Path) -> Option<SystemTime> {
        let Some((folder, name)) = folder_and_name(path) else {
            return by_path(path);
        };
        match self.stat_in(folder, name) {
            Some(stat) => modified(&stat),
            // A folder that cannot be opened (searchable but not readable, say) can still hold
            // files whose time a stat by path reads.
            None => by_path(path),
        }
    }

    fn stat_in(&mut self, folder: &Path, name: &OsStr) -> Option<FileStat> {
        if self
            .folder
            .as_ref()
            .is_none_or(|(open_folder, _)| open_folder != folder)
        {
            // O_PATH: the descriptor only names the folder; nothing is read through it.
            #[cfg(target_os = "linux")]
            let flags = OFlag::O_PATH | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
            #[cfg(not(target_os = "linux"))]
            let flags = OFlag::O_RDONLY | OFlag::O_DIRECTORY | OFlag::O_CLOEXEC;
            self.folder = open(folder, flags, Mode::empty())
                .ok()
                .map(|fd| (folder.to_path_buf(), fd));
        }
        let (_, fd) = self.folder.as_ref()?;
        fstatat(fd, name, AtFlags::AT_SYMLINK_NOFOLLOW).ok()
    }
}

/// `a/b/c` → (`a/b`, `c`) by the last slash: the walk's paths are plain (no `.`, `..` or trailing
/// slash), so this is `Path::parent` and `Path::file_name` without parsing every component.
fn folder_and_name(path: &Path) -> Option<(&Path, &OsStr)> {
    let bytes = path.as_os_str().as_bytes();
    let slash = memchr::memrchr(b'/', bytes)?;
    let name = &bytes[slash + 1..];
    if name.is_empty() || name == b"." || name == b".." {
        return None;
    }
    let folder = if slash == 0 { &bytes[..1] } else { &bytes[..slash] };
    Some((Path::new(OsStr::from_bytes(folder)), OsStr::from_bytes(name)))
}

fn by_path(path: &Path) -> Option<SystemTime> {
    std::fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
}

/// The stat's modification time, as `std::fs::Metadata::modified` gives it.
fn modified(stat: &FileStat) -> Option<SystemTime> {
    let nanos = u32::try_from(stat.st_mtime_nsec).ok()?;
    let since_epoch = |secs: i64| Duration::new(secs.unsigned_abs(), 0);
    if stat.st_mtime >= 0 {
        SystemTime::UNIX_EPOCH
            .checked_add(since_epoch(stat.st_mtime) + Duration::from_nanos(u64::from(nanos)))
    } else {
        SystemTime::UNIX_EPOCH
            .checked_sub(since_epoch(stat.st_mtime))?
            .checked_add(Duration::from_nanos(u64::from(nanos)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::fs::test_support::set_modified;

    /// The same times as `std::fs::Metadata::modified`, across folders, before 1970 and after.
    #[test]
    fn gives_the_times_a_stat_by_path_gives() {
        let dir = tempfile::tempdir().unwrap();
        let times = [
            SystemTime::UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_789),
            SystemTime::UNIX_EPOCH - Duration::new(86_400, 500_000_000),
            SystemTime::UNIX_EPOCH + Duration::new(0, 1),
        ];
        let mut paths = Vec::new();
        for folder in ["a", "b", "a"] {
            std::fs::create_dir_all(dir.path().join(folder)).unwrap();
            for (i, at) in times.iter().enumerate() {
                let path = dir.path().join(folder).join(format!("f{i}-{}", paths.len()));
                std::fs::write(&path, "x").unwrap();
                set_modified(&path, *at);
                paths.push((path, *at));
            }
        }
        let mut reader = ModifiedTimes::default();
        for (path, at) in &paths {
            assert_eq!(reader.of(path), Some(*at), "{}", path.display());
            assert_eq!(reader.of(path), by_path(path));
        }
    }

    #[test]
    fn folder_and_name_split_at_the_last_slash() {
        let split = |p: &str| folder_and_name(Path::new(p)).map(|(f, n)| (f.to_path_buf(), n.to_owned()));
        assert_eq!(split("/a/b/c.md"), Some(("/a/b".into(), "c.md".into())));
        assert_eq!(split("/c.md"), Some(("/".into(), "c.md".into())));
        assert_eq!(split("/a/"), None);
        assert_eq!(split("/a/.."), None);
        assert_eq!(split("c.md"), None);
    }

    #[test]
    fn a_file_gone_has_no_time_and_a_link_is_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("target");
        std::fs::write(&target, "x").unwrap();
        set_modified(&target, SystemTime::UNIX_EPOCH + Duration::from_secs(5));
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        let mut reader = ModifiedTimes::default();
        assert_eq!(reader.of(&dir.path().join("gone")), None);
        assert_eq!(reader.of(&link), by_path(&link));
        assert_ne!(reader.of(&link), reader.of(&target));
        assert_eq!(reader.of(&dir.path().join("missing-folder/file")), None);
    }
}
