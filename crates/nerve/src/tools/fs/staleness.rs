//! Refuses changes to files the model has not seen, or has not seen as they are now.
//!
//! Run twice: in `validate_input`, so a stale edit fails before the user is asked, and again right
//! before writing, because the file may change while the permission dialog is open.

use std::path::{Path, PathBuf};

use crate::tool::{ReadFileState, SeenContent, ToolUseContext};
use crate::tools::fs::FileSnapshot;

/// Why a file may not be changed now. The messages are what the model reads, with what to do.
#[derive(Debug, thiserror::Error)]
pub enum StaleFile {
    /// Its metadata cannot be read (permissions...).
    #[error("Cannot inspect {}: {source}.", path.display())]
    Uninspectable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// It is a directory.
    #[error("{} is a directory, not a file. Give the path of a file inside it.", path.display())]
    Directory {
        /// The path.
        path: PathBuf,
    },
    /// It is a device, FIFO or socket.
    #[error(
        "{} is not a regular file (a device, FIFO or socket); the file tools only change regular files.",
        path.display()
    )]
    NotRegular {
        /// The path.
        path: PathBuf,
    },
    /// The model has not read it in this session.
    #[error(
        "File has not been read yet: {}. Read it first with the Read tool, then make the change, so it is based on the file's current content. Nothing was written.",
        path.display()
    )]
    NotRead {
        /// The file.
        path: PathBuf,
    },
    /// Its content cannot be read now.
    #[error("Cannot read {}: {source}.", path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Its content is not what the model read.
    #[error(
        "File has been modified since it was last read: {} (by the user, a formatter or another process). Read it again before changing it; nothing was written.",
        path.display()
    )]
    Modified {
        /// The file.
        path: PathBuf,
    },
}

/// Checks `path` against the session's read-file state. `Ok(None)`: the file does not exist (nothing
/// to be stale). `Ok(Some(snapshot))`: it exists, was read, and is unchanged; the snapshot is its
/// current content.
pub fn check_fresh(ctx: &ToolUseContext, path: &Path) -> Result<Option<FileSnapshot>, StaleFile> {
    check_fresh_at(&ctx.exec.read_files, path)
}

/// [`check_fresh`] against an explicit state.
pub fn check_fresh_at(state: &ReadFileState, path: &Path) -> Result<Option<FileSnapshot>, StaleFile> {
    let owned = || path.to_path_buf();
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(StaleFile::Uninspectable {
                path: owned(),
                source,
            });
        }
    };
    if meta.is_dir() {
        return Err(StaleFile::Directory { path: owned() });
    }
    if !meta.is_file() {
        return Err(StaleFile::NotRegular { path: owned() });
    }
    let Some(record) = state.get(path) else {
        return Err(StaleFile::NotRead { path: owned() });
    };
    // A large file's length or time that moved says enough, before its gigabytes are read.
    if let SeenContent::Large { len } = record.content
        && (meta.len() != len || meta.modified().ok() != record.modified)
    {
        return Err(StaleFile::Modified { path: owned() });
    }
    let snapshot = FileSnapshot::read(path).map_err(|source| StaleFile::Unreadable {
        path: owned(),
        source,
    })?;
    let unchanged = match &record.content {
        // The hash decides: a touched file (new mtime, same bytes) is not stale, and a rewrite
        // within the clock's granularity (same mtime, new bytes) is.
        SeenContent::Hash(hash) => snapshot.hash == *hash,
        // Checked again on what was read, which may have changed since the metadata above.
        SeenContent::Large { len } => {
            snapshot.bytes.len() as u64 == *len && snapshot.modified == record.modified
        }
    };
    if !unchanged {
        return Err(StaleFile::Modified { path: owned() });
    }
    Ok(Some(snapshot))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tool::FileReadRecord;
    use crate::tools::fs::hash_bytes;
    use crate::tools::fs::test_support::set_modified;
    use std::time::{Duration, SystemTime};

    fn read_now(state: &ReadFileState, path: &Path) {
        let bytes = std::fs::read(path).unwrap();
        state.record(
            path,
            FileReadRecord {
                content: SeenContent::Hash(hash_bytes(&bytes)),
                modified: std::fs::metadata(path).unwrap().modified().ok(),
                offset: None,
                limit: None,
            },
        );
    }

    #[test]
    fn missing_file_is_not_stale() {
        let dir = tempfile::tempdir().unwrap();
        let state = ReadFileState::default();
        assert!(matches!(
            check_fresh_at(&state, &dir.path().join("new.txt")),
            Ok(None)
        ));
    }

    #[test]
    fn unread_file_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "x").unwrap();
        let err = check_fresh_at(&ReadFileState::default(), &p).unwrap_err();
        assert!(matches!(&err, StaleFile::NotRead { path } if path == &p), "{err}");
        assert!(err.to_string().contains("has not been read yet"), "{err}");
    }

    #[test]
    fn modified_after_read_is_stale() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "one").unwrap();
        let state = ReadFileState::default();
        read_now(&state, &p);
        std::fs::write(&p, "two").unwrap();
        let err = check_fresh_at(&state, &p).unwrap_err();
        assert!(
            matches!(&err, StaleFile::Modified { path } if path == &p),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            format!(
                "File has been modified since it was last read: {} (by the user, a formatter or another process). Read it again before changing it; nothing was written.",
                p.display()
            )
        );
    }

    #[test]
    fn touched_but_unchanged_is_fresh() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("a.txt");
        std::fs::write(&p, "same").unwrap();
        let state = ReadFileState::default();
        read_now(&state, &p);
        set_modified(&p, SystemTime::now() + Duration::from_secs(3600));
        let snap = check_fresh_at(&state, &p).unwrap().unwrap();
        assert_eq!(snap.bytes, b"same");
    }

    /// A file read as too large to hash is known by its length and time: it stays fresh while both
    /// hold, and a touch, a rewrite to another length, or an append makes it stale.
    #[test]
    fn a_large_file_is_known_by_its_length_and_time() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("big.log");
        std::fs::write(&p, "0123456789").unwrap();
        let at = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        set_modified(&p, at);
        let state = ReadFileState::default();
        state.record(
            &p,
            FileReadRecord {
                content: SeenContent::Large { len: 10 },
                modified: Some(at),
                offset: Some(1_000),
                limit: Some(20),
            },
        );
        let fresh = check_fresh_at(&state, &p).unwrap().unwrap();
        assert_eq!(fresh.bytes, b"0123456789");

        // Rewritten with another length, the old time put back.
        std::fs::write(&p, "01234").unwrap();
        set_modified(&p, at);
        assert!(matches!(
            check_fresh_at(&state, &p),
            Err(StaleFile::Modified { .. })
        ));

        // The same length, a new time: without a hash a touch cannot be told from a rewrite.
        std::fs::write(&p, "9876543210").unwrap();
        set_modified(&p, at + Duration::from_secs(1));
        assert!(matches!(
            check_fresh_at(&state, &p),
            Err(StaleFile::Modified { .. })
        ));

        set_modified(&p, at);
        assert!(
            check_fresh_at(&state, &p).unwrap().is_some(),
            "length and time both hold again"
        );
    }

    #[test]
    fn directories_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = check_fresh_at(&ReadFileState::default(), dir.path()).unwrap_err();
        assert!(matches!(err, StaleFile::Directory { .. }), "{err}");
    }
}
