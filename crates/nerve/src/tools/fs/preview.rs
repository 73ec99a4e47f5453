//! The permission dialog's preview of a file change.

use crate::files::FileDiff;
use crate::tool::{ApprovalPreview, PermissionPreview};

/// Largest old + new text sent with a permission preview.
const MAX_PREVIEW_TEXT_BYTES: usize = 4 * 1024 * 1024;

/// The permission dialog's preview: the diff plus both whole texts, so the user can edit the
/// proposed text and see the diff recomputed. Texts too large to send to a window are left out
/// (the hunks still show every change).
pub fn diff_preview(diff: &FileDiff, old_text: &str, new_text: &str) -> ApprovalPreview {
    let small = old_text.len() + new_text.len() <= MAX_PREVIEW_TEXT_BYTES;
    ApprovalPreview {
        display: PermissionPreview::FileChange {
            diff: diff.clone(),
            old_text: small.then(|| old_text.to_string()),
            new_text: small.then(|| new_text.to_string()),
        },
        engine_input: serde_json::Map::new(),
    }
}
