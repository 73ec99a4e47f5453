//! The one code path of an edit: from the input and the file on disk to the new content and its
//! diff, without writing anything. `validate_input`, `call` and (later) the permission dialog all
//! go through [`preview_edit`], so what the user approves is what gets written.

use std::path::PathBuf;

use crate::tool::ToolUseContext;
use crate::tools::edit::EditInput;
use crate::tools::edit::matching::{find_matches, match_quote_style};
use crate::tools::fs::similar_names::missing_file_message;
use crate::tools::fs::text::normalize_newlines;
use crate::tools::fs::{ChangeKind, FileDiff, FileSnapshot, StaleFile, TextFile, absolute_path, check_fresh};

/// Files larger than this are not edited (the whole file is held in memory several times).
pub const MAX_EDIT_FILE_BYTES: usize = 64 * 1024 * 1024;

/// What an edit would do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditPreview {
    /// The file (absolute, normalised).
    pub path: PathBuf,
    /// Created or changed.
    pub kind: ChangeKind,
    /// The file as it is now (`None` when it is created).
    pub original: Option<FileSnapshot>,
    /// The new content with `\n` line breaks and no BOM (what the diff and the snippet show).
    pub new_text: String,
    /// The bytes to write: the new content with the file's BOM and line endings.
    pub new_bytes: Vec<u8>,
    /// The change, for the UI.
    pub diff: FileDiff,
    /// How many places were replaced.
    pub replacements: usize,
    /// Where the first change starts in `new_text` (1-based line).
    pub first_changed_line: usize,
    /// How many lines the first replacement spans in `new_text`.
    pub changed_lines: usize,
}

/// Why an edit cannot be made. The messages are what the model reads, with what to do instead.
#[derive(Debug, thiserror::Error)]
pub enum EditRefusal {
    /// `old_string` and `new_string` are the same.
    #[error(
        "No changes to make: old_string and new_string are exactly the same. Give the text to replace in old_string and its replacement in new_string."
    )]
    NoChange,
    /// The file may not be changed now (not read, changed since, not a file).
    #[error(transparent)]
    Stale(#[from] StaleFile),
    /// The file does not exist and `old_string` names text in it.
    #[error("{missing} To create a new file, use Write, or Edit with an empty old_string.")]
    Missing {
        /// Says the file does not exist, with similar names nearby.
        missing: String,
    },
    /// The file is larger than Edit handles.
    #[error(
        "{} is {} MB; Edit changes files up to {} MB. Use a command through Bash for files this large.",
        path.display(),
        bytes / (1024 * 1024),
        MAX_EDIT_FILE_BYTES / (1024 * 1024)
    )]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        bytes: usize,
    },
    /// The file is not UTF-8 text.
    #[error("{} is not UTF-8 text, so Edit cannot change it (it edits text files only).", path.display())]
    NotText {
        /// The file.
        path: PathBuf,
    },
    /// An empty `old_string` (create) on a file that has content.
    #[error(
        "Cannot create {}: it already exists and is not empty. To change part of it, give the exact text to replace in old_string; to replace all of it, use Write.",
        path.display()
    )]
    NotEmpty {
        /// The file.
        path: PathBuf,
    },
    /// `old_string` is not in the file.
    #[error(
        "String to replace not found in {}. old_string must match the file's text exactly, including indentation and line breaks (only quote style and trailing spaces are matched loosely). Read the file again and copy the exact text.",
        path.display()
    )]
    NotFound {
        /// The file.
        path: PathBuf,
    },
    /// `old_string` is in the file more than once and `replace_all` is off.
    #[error(
        "Found {count} matches of old_string in {}, but replace_all is false. To replace every occurrence, set replace_all to true; to replace one, include more surrounding lines in old_string so it matches exactly one place.",
        path.display()
    )]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// How many places match.
        count: usize,
    },
}

/// Computes the edit `input` describes on the file as it is now.
pub fn preview_edit(input: &EditInput, ctx: &ToolUseContext) -> Result<EditPreview, EditRefusal> {
    let path = absolute_path(ctx, &input.file_path);
    let old_string = normalize_newlines(&input.old_string);
    let new_string = normalize_newlines(&input.new_string);
    if old_string == new_string {
        return Err(EditRefusal::NoChange);
    }
    let Some(snapshot) = check_fresh(ctx, &path)? else {
        if !old_string.is_empty() {
            return Err(EditRefusal::Missing {
                missing: missing_file_message(&path, &ctx.exec.cwd),
            });
        }
        let file = TextFile::new_file(&new_string);
        return Ok(finish(
            path,
            ChangeKind::Create,
            None,
            "",
            new_string,
            &file,
            1,
            1,
        ));
    };
    if snapshot.bytes.len() > MAX_EDIT_FILE_BYTES {
        return Err(EditRefusal::TooLarge {
            path,
            bytes: snapshot.bytes.len(),
        });
    }
    let Ok(file) = TextFile::decode(&snapshot.bytes) else {
        return Err(EditRefusal::NotText { path });
    };
    let content = file.text.clone();
    if old_string.is_empty() {
        if !content.trim().is_empty() {
            return Err(EditRefusal::NotEmpty { path });
        }
        let lines = new_string.lines().count().max(1);
        return Ok(finish(
            path,
            ChangeKind::Update,
            Some(snapshot),
            &content,
            new_string,
            &file,
            1,
            lines,
        ));
    }
    let matches = find_matches(&content, &old_string);
    match matches.ranges.len() {
        0 => {
            return Err(EditRefusal::NotFound { path });
        }
        n if n > 1 && !input.replace_all => {
            return Err(EditRefusal::Ambiguous { path, count: n });
        }
        _ => {}
    }
    let mut new_text = String::with_capacity(content.len() + new_string.len());
    let mut cursor = 0;
    let mut first_replacement = None;
    for range in &matches.ranges {
        let actual = &content[range.clone()];
        // The forgiving match found the file's own text; the replacement keeps its quote style.
        let replacement = if matches.exact {
            new_string.clone()
        } else {
            match_quote_style(&new_string, actual)
        };
        new_text.push_str(&content[cursor..range.start]);
        if first_replacement.is_none() {
            first_replacement = Some((new_text.len(), replacement.lines().count().max(1)));
        }
        new_text.push_str(&replacement);
        cursor = range.end;
    }
    new_text.push_str(&content[cursor..]);
    let (offset, lines) = first_replacement.unwrap_or((0, 1));
    let first_line = new_text[..offset].matches('\n').count() + 1;
    let replacements = matches.ranges.len();
    let mut preview = finish(
        path,
        ChangeKind::Update,
        Some(snapshot),
        &content,
        new_text,
        &file,
        first_line,
        lines,
    );
    preview.replacements = replacements;
    Ok(preview)
}

#[allow(clippy::too_many_arguments)]
fn finish(
    path: PathBuf,
    kind: ChangeKind,
    original: Option<FileSnapshot>,
    old_text: &str,
    new_text: String,
    file: &TextFile,
    first_changed_line: usize,
    changed_lines: usize,
) -> EditPreview {
    let diff = FileDiff::between(&path.display().to_string(), kind, old_text, &new_text);
    EditPreview {
        new_bytes: file.encode(&new_text),
        path,
        kind,
        original,
        new_text,
        diff,
        replacements: 1,
        first_changed_line,
        changed_lines,
    }
}
