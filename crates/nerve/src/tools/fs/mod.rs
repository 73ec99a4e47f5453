//! Helpers the file tools (Read, Edit, Write) share: where a path points, what the model has seen of
//! a file, whether it changed since, how text is decoded and encoded again, atomic writes, diffs.

pub mod commit;
pub mod path;
mod preview;
pub mod similar_names;
pub mod snapshot;
pub mod staleness;
pub mod text;

pub use crate::files::{ChangeKind, DiffHunk, DiffLine, DiffTag, FileDiff, hash_bytes, write_atomic};
pub use commit::{commit_change, editor_has_unsaved, unsaved_message};
pub use path::{absolute_path, display_path, permission_paths};
pub use preview::diff_preview;
pub use snapshot::{FileSnapshot, record_known_content};
pub use staleness::{StaleFile, check_fresh, check_fresh_at};
pub use text::{LineEnding, TextFile};

#[cfg(test)]
pub(crate) mod test_support;
