//! What a Write would do, computed without writing (shared by `validate_input` and `call`).

use std::path::PathBuf;

use crate::tool::ToolUseContext;
use crate::tools::fs::text::normalize_newlines;
use crate::tools::fs::{ChangeKind, FileDiff, FileSnapshot, StaleFile, TextFile, absolute_path, check_fresh};
use crate::tools::write::WriteInput;

/// What a write would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WritePreview {
    /// The file (absolute, normalised).
    pub path: PathBuf,
    /// Created or replaced.
    pub kind: ChangeKind,
    /// The file as it is now (`None` when it is created).
    pub original: Option<FileSnapshot>,
    /// The bytes to write.
    pub new_bytes: Vec<u8>,
    /// The change, for the UI.
    pub diff: FileDiff,
}

/// Computes the write `input` describes.
pub fn preview_write(input: &WriteInput, ctx: &ToolUseContext) -> Result<WritePreview, StaleFile> {
    let path = absolute_path(ctx, &input.file_path);
    let display = path.display().to_string();
    let Some(snapshot) = check_fresh(ctx, &path)? else {
        return Ok(WritePreview {
            diff: FileDiff::between(&display, ChangeKind::Create, "", &input.content),
            new_bytes: input.content.as_bytes().to_vec(),
            path,
            kind: ChangeKind::Create,
            original: None,
        });
    };
    // A text file keeps its conventions; a file that was not UTF-8 is simply replaced.
    let (old_text, new_bytes) = match TextFile::decode(&snapshot.bytes) {
        Ok(file) => {
            let bytes = file.encode(&input.content);
            (file.text, bytes)
        }
        Err(_) => (
            String::from_utf8_lossy(&snapshot.bytes).into_owned(),
            input.content.as_bytes().to_vec(),
        ),
    };
    let new_text = normalize_newlines(&input.content);
    Ok(WritePreview {
        diff: FileDiff::between(&display, ChangeKind::Update, &old_text, &new_text),
        new_bytes,
        path,
        kind: ChangeKind::Update,
        original: Some(snapshot),
    })
}
