//! Paths Read must not open: devices and special files whose read never ends (`/dev/zero`), blocks
//! forever (`/dev/stdin`, a FIFO), or has side effects (a tty). Checked by name first, for a clear
//! message, then by the opened file's type, which no name trick can dodge.

use std::fs::{File, Metadata};
use std::os::unix::fs::{FileTypeExt as _, OpenOptionsExt as _};
use std::path::Path;

/// Device paths refused by name.
const BLOCKED_DEVICES: &[&str] = &[
    "/dev/zero",
    "/dev/random",
    "/dev/urandom",
    "/dev/full",
    "/dev/stdin",
    "/dev/tty",
    "/dev/console",
    "/dev/stdout",
    "/dev/stderr",
];

/// Why `path` is refused by its name alone, if it is.
pub fn blocked_by_name(path: &Path) -> Option<String> {
    let text = path.to_str()?;
    let blocked = BLOCKED_DEVICES.contains(&text)
        || text.starts_with("/dev/fd/")
        || text.starts_with("/dev/tty")
        || is_proc_fd(text);
    blocked.then(|| refusal(path, "a device or process file descriptor"))
}

/// `/proc/self/fd/N`, `/proc/thread-self/fd/N` and `/proc/<pid>/fd/N` (also `/task/<tid>/fd/N`).
fn is_proc_fd(text: &str) -> bool {
    let Some(rest) = text.strip_prefix("/proc/") else {
        return false;
    };
    let parts: Vec<&str> = rest.split('/').collect();
    parts
        .iter()
        .enumerate()
        .any(|(i, p)| *p == "fd" && i > 0 && i + 1 < parts.len())
}

/// What kind of special file `meta` describes, if it is not a regular file or folder.
pub fn special_kind(meta: &Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if ft.is_socket() {
        Some("a socket")
    } else if ft.is_char_device() {
        Some("a character device")
    } else if ft.is_block_device() {
        Some("a block device")
    } else if !ft.is_file() && !ft.is_dir() {
        Some("not a regular file")
    } else {
        None
    }
}

/// Opens `path` for reading without ever blocking on it: `O_NONBLOCK` makes opening a FIFO return at
/// once, and the type of what was actually opened is checked before a single byte is read (a file
/// swapped for a FIFO after a `stat` is still caught).
pub fn open_regular(path: &Path) -> Result<File, OpenError> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
        .map_err(OpenError::Io)?;
    let meta = file.metadata().map_err(OpenError::Io)?;
    if let Some(kind) = special_kind(&meta) {
        return Err(OpenError::Special(refusal(path, kind)));
    }
    Ok(file)
}

/// Why a file could not be opened for reading.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The path is a special file (message ready for the model).
    #[error("{0}")]
    Special(String),
    /// The file system refused.
    #[error(transparent)]
    Io(std::io::Error),
}

/// The refusal message for a special path.
pub fn refusal(path: &Path, kind: &str) -> String {
    format!(
        "Cannot read {}: it is {kind}, and reading it could block forever or never end. Read only regular files; to see command output, run the command with Bash.",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_are_blocked() {
        for p in [
            "/dev/zero",
            "/dev/urandom",
            "/dev/stdin",
            "/dev/tty",
            "/dev/tty1",
            "/dev/fd/0",
            "/proc/self/fd/0",
            "/proc/1234/fd/3",
            "/proc/1/task/1/fd/2",
        ] {
            assert!(blocked_by_name(Path::new(p)).is_some(), "{p}");
        }
        for p in ["/dev/null2", "/home/u/dev/zero", "/proc/self/status", "/proc/fd"] {
            assert!(blocked_by_name(Path::new(p)).is_none(), "{p}");
        }
    }

    #[test]
    fn character_devices_are_refused_by_type() {
        // /dev/null is not on the name list: its type refuses it.
        let err = open_regular(Path::new("/dev/null")).unwrap_err();
        assert!(err.to_string().contains("a character device"), "{err}");
    }

    #[test]
    fn fifos_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
        assert!(status.success());
        let err = open_regular(&fifo).unwrap_err();
        assert!(err.to_string().contains("FIFO"), "{err}");
    }

    #[test]
    fn regular_files_open() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f.txt");
        std::fs::write(&p, "x").unwrap();
        assert!(open_regular(&p).is_ok());
    }
}
