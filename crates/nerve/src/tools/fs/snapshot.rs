//! A file's content as the tools saw it, and how that is remembered in the read-file state.

use std::path::Path;
use std::time::SystemTime;

use crate::files::hash_bytes;
use crate::tool::{FileReadRecord, SeenContent, ToolUseContext};

/// The whole content of a file at one moment, with what identifies it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSnapshot {
    /// The file's bytes.
    pub bytes: Vec<u8>,
    /// SHA-256 of `bytes`, lowercase hex.
    pub hash: String,
    /// The modification time, when the platform reports one.
    pub modified: Option<SystemTime>,
}

impl FileSnapshot {
    /// Reads `path` completely.
    pub fn read(path: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
        Ok(Self {
            hash: hash_bytes(&bytes),
            bytes,
            modified,
        })
    }
}

/// Records that the model knows `path` holds `bytes` (it just wrote them), with the file's current
/// modification time, so a following edit is not refused as stale.
pub fn record_known_content(ctx: &ToolUseContext, path: &Path, bytes: &[u8]) {
    let modified = std::fs::metadata(path).and_then(|m| m.modified()).ok();
    ctx.exec.read_files.record(
        path,
        FileReadRecord {
            content: SeenContent::Hash(hash_bytes(bytes)),
            modified,
            offset: None,
            limit: None,
        },
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_is_sha256_hex() {
        assert_eq!(
            hash_bytes(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn snapshot_reads_bytes_hash_and_mtime() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("f");
        std::fs::write(&p, b"abc").unwrap();
        let s = FileSnapshot::read(&p).unwrap();
        assert_eq!(s.bytes, b"abc");
        assert_eq!(s.hash, hash_bytes(b"abc"));
        assert!(s.modified.is_some());
    }
}
