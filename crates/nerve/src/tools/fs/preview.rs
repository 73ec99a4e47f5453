//! The permission dialog's preview of a file change.

use crate::files::FileDiff;
use crate::tool::PermissionPreview;

/// Largest old + new text sent with a permission preview.
const MAX_PREVIEW_TEXT_BYTES: usize = 4 * 1024 * 1024;

/// The permission dialog's preview: the diff plus both whole texts, so the user can edit the
/// proposed text and see the diff recomputed. Texts too large to send to a window are left out
/// (the hunks still show every change).
pub fn diff_preview(diff: &FileDiff, old_text: &str, new_text: &str) -> PermissionPreview {
    let mut display = diff.to_value();
    if old_text.len() + new_text.len() <= MAX_PREVIEW_TEXT_BYTES
        && let Some(map) = display.as_object_mut()
    {
        map.insert("old_text".into(), old_text.into());
        map.insert("new_text".into(), new_text.into());
    }
    PermissionPreview {
        display,
        engine_input: serde_json::Map::new(),
    }
}
