//! The staleness rule edits share: the model must have read the file, and the file must still
//! hold what it read. The content hash decides; a changed modification time alone (a `touch`, a
//! formatter that rewrote the same bytes) does not make the model's view wrong.

use std::path::Path;
use std::time::SystemTime;

use sha2::{Digest, Sha256};

use crate::tool::{FileReadRecord, ReadFileState};

/// Lowercase hex SHA-256 of `bytes`, the form [`FileReadRecord::content_hash`] holds.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

/// Checks that `path` was read and is unchanged since; the error tells the model what to do.
pub fn check_fresh(state: &ReadFileState, path: &Path, current: &[u8]) -> Result<(), String> {
    let Some(record) = state.get(path) else {
        return Err(format!(
            "File has not been read yet: {}. Read it first before editing it.",
            path.display()
        ));
    };
    if record.content_hash != sha256_hex(current) {
        return Err(format!(
            "File has been modified since it was read, either by the user or by a linter: {}. Read it again before attempting to edit it.",
            path.display()
        ));
    }
    Ok(())
}

/// Records what the model wrote, so a following edit does not need another read.
pub fn record_written(state: &ReadFileState, path: &Path, written: &[u8], modified: Option<SystemTime>) {
    state.record(
        path,
        FileReadRecord {
            content_hash: sha256_hex(written),
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
    fn unread_changed_and_fresh() {
        let state = ReadFileState::default();
        let p = Path::new("/n.ipynb");
        assert!(
            check_fresh(&state, p, b"a")
                .unwrap_err()
                .contains("has not been read")
        );
        record_written(&state, p, b"a", None);
        assert_eq!(check_fresh(&state, p, b"a"), Ok(()));
        assert!(
            check_fresh(&state, p, b"b")
                .unwrap_err()
                .contains("modified since it was read")
        );
    }

    #[test]
    fn hash_is_lowercase_hex() {
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
    }
}
