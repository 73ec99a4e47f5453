//! Saved file contents, named by their SHA-256, so the same content is kept once however often
//! it is saved.

pub use nerve_protocol::checkpoint::Content;

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::checkpoint::CheckpointError;
use crate::files::hash_bytes;

/// Largest file a checkpoint keeps a copy of.
pub const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// The content of `bytes` (not saved).
pub fn content_of_bytes(bytes: &[u8]) -> Content {
    Content::Present {
        sha256: hash_bytes(bytes),
        size: bytes.len() as u64,
    }
}

/// What `path` holds now (not saved): absent when there is no file.
pub fn content_of_file(path: &Path) -> Result<Content, CheckpointError> {
    Ok(read_file(path)?.map_or(Content::Absent, |bytes| content_of_bytes(&bytes)))
}

/// Reads a regular file up to [`MAX_FILE_BYTES`]; `None` when it does not exist.
pub(crate) fn read_file(path: &Path) -> Result<Option<Vec<u8>>, CheckpointError> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(CheckpointError::io("read", path, e)),
    };
    if !meta.is_file() {
        return Err(CheckpointError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(CheckpointError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: MAX_FILE_BYTES,
        });
    }
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        // Removed between the two calls: absent is what it is now.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(CheckpointError::io("read", path, e)),
    }
}

/// The folder of saved contents.
#[derive(Debug, Clone)]
pub struct BlobStore {
    dir: PathBuf,
}

impl BlobStore {
    /// A store in `dir` (created on first save).
    pub fn new(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// Saves `bytes` (once per distinct content) and returns their content.
    pub fn put(&self, bytes: &[u8]) -> Result<Content, CheckpointError> {
        let content = content_of_bytes(bytes);
        let Content::Present { sha256, .. } = &content else {
            return Ok(content);
        };
        let target = self.dir.join(sha256);
        if target.exists() {
            return Ok(content);
        }
        std::fs::create_dir_all(&self.dir).map_err(|e| CheckpointError::io("create", &self.dir, e))?;
        // Written beside and renamed, so a crash never leaves half a content under a good name.
        let mut temp = tempfile::NamedTempFile::new_in(&self.dir)
            .map_err(|e| CheckpointError::io("save a checkpoint in", &self.dir, e))?;
        temp.write_all(bytes)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| CheckpointError::io("save a checkpoint in", &self.dir, e))?;
        temp.persist(&target)
            .map_err(|e| CheckpointError::io("save a checkpoint in", &target, e.error))?;
        Ok(content)
    }

    /// Saves what `path` holds now; absent when there is no file.
    pub fn capture(&self, path: &Path) -> Result<Content, CheckpointError> {
        match read_file(path)? {
            Some(bytes) => self.put(&bytes),
            None => Ok(Content::Absent),
        }
    }

    /// The bytes of a saved content (`None` for absent). The hash comes from a log on disk, so it
    /// is checked to be a hash before it becomes a file name, and the bytes are checked against it.
    pub fn get(&self, content: &Content) -> Result<Option<Vec<u8>>, CheckpointError> {
        let Content::Present { sha256, .. } = content else {
            return Ok(None);
        };
        let missing = || CheckpointError::MissingContent {
            sha256: sha256.clone(),
            store: self.dir.clone(),
        };
        if sha256.len() != 64 || !sha256.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(missing());
        }
        let bytes = std::fs::read(self.dir.join(sha256)).map_err(|_| missing())?;
        if hash_bytes(&bytes) != *sha256 {
            return Err(missing());
        }
        Ok(Some(bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_same_content_is_kept_once_and_comes_back_whole() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::new(dir.path().join("blobs"));
        let a = store.put(b"\x00\xffbinary").unwrap();
        let b = store.put(b"\x00\xffbinary").unwrap();
        assert_eq!(a, b);
        assert_eq!(std::fs::read_dir(dir.path().join("blobs")).unwrap().count(), 1);
        assert_eq!(store.get(&a).unwrap(), Some(b"\x00\xffbinary".to_vec()));
        assert_eq!(store.get(&Content::Absent).unwrap(), None);
    }

    #[test]
    fn a_hash_from_a_tampered_log_never_becomes_a_path() {
        let dir = tempfile::tempdir().unwrap();
        let store = BlobStore::new(dir.path().to_path_buf());
        let hostile = Content::Present {
            sha256: "../../etc/passwd".into(),
            size: 1,
        };
        assert!(matches!(
            store.get(&hostile),
            Err(CheckpointError::MissingContent { .. })
        ));
    }
}
