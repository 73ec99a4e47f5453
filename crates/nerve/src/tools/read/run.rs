//! The work of one Read, synchronous (it runs on a blocking thread): find the file, refuse what
//! cannot be read, sniff its kind and render it.

use std::fs::File;
use std::io::{Read as _, Seek as _};
use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use crate::tool::{FileReadRecord, MAX_HASHED_BYTES, ResultBlock, SeenContent, ToolError};
use crate::tools::fs::hash_bytes;
use crate::tools::fs::similar_names::{missing_file_message, screenshot_alternative};
use crate::tools::read::directory::list_directory;
use crate::tools::read::image::prepare_image;
use crate::tools::read::notebook::render_notebook;
use crate::tools::read::pdf::{MAX_PDF_DOCUMENT_BYTES, PageRange, read_pdf};
use crate::tools::read::sniff::{FileKind, SNIFF_BYTES, sniff};
use crate::tools::read::special::{OpenError, blocked_by_name, open_regular, refusal, special_kind};
use crate::tools::read::text::{
    DEFAULT_LINE_LIMIT, MAX_TOKENS, ScanError, TextScan, lines_that_fit, scan_text,
};

/// Image files larger than this are not loaded (a real screenshot is far smaller).
const MAX_IMAGE_FILE_BYTES: u64 = 64 * 1024 * 1024;
/// PDFs larger than this are not parsed for page text.
const MAX_PDF_PARSE_BYTES: u64 = 128 * 1024 * 1024;
/// Notebooks larger than this are not parsed.
const MAX_NOTEBOOK_BYTES: u64 = 32 * 1024 * 1024;

/// What one Read asks for, with the path already resolved.
#[derive(Debug, Clone)]
pub struct ReadRequest {
    /// Absolute, normalised path.
    pub path: PathBuf,
    /// First line (1-based), as given.
    pub offset: Option<usize>,
    /// How many lines, as given.
    pub limit: Option<usize>,
    /// PDF pages, parsed.
    pub pages: Option<PageRange>,
    /// The working directory (named in a missing-file message).
    pub cwd: PathBuf,
}

/// What a successful Read produced.
#[derive(Debug)]
pub struct ReadOutcome {
    /// The result blocks.
    pub blocks: Vec<ResultBlock>,
    /// The file actually read (differs from the request for a screenshot-name match).
    pub path: PathBuf,
    /// What to remember in the read-file state (none for folders).
    pub record: Option<FileReadRecord>,
}

/// Performs the read.
pub fn read(request: &ReadRequest, cancel: &CancellationToken) -> Result<ReadOutcome, ToolError> {
    let mut path = request.path.clone();
    if let Some(why) = blocked_by_name(&path) {
        return Err(ToolError::InvalidInput(why));
    }
    let meta = match std::fs::metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => match screenshot_alternative(&path) {
            Some(alt) => {
                path = alt;
                std::fs::metadata(&path)
                    .map_err(|e| ToolError::io(format!("reading {}", path.display()), e))?
            }
            None => return Err(ToolError::InvalidInput(missing_file_message(&path, &request.cwd))),
        },
        Err(e) => return Err(ToolError::io(format!("reading {}", path.display()), e)),
    };
    if meta.is_dir() {
        let listing =
            list_directory(&path).map_err(|e| ToolError::io(format!("listing {}", path.display()), e))?;
        return Ok(ReadOutcome {
            blocks: vec![ResultBlock::text(listing)],
            path,
            record: None,
        });
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(ToolError::InvalidInput(refusal(&path, kind)));
    }
    let mut file = open_regular(&path).map_err(|e| match e {
        OpenError::Special(msg) => ToolError::InvalidInput(msg),
        OpenError::Io(e) => ToolError::io(format!("opening {}", path.display()), e),
    })?;
    let io = |e| ToolError::io(format!("reading {}", path.display()), e);
    let file_meta = file.metadata().map_err(io)?;
    let modified = file_meta.modified().ok();
    let size = file_meta.len();
    let mut head = Vec::with_capacity(SNIFF_BYTES);
    (&mut file)
        .take(SNIFF_BYTES as u64)
        .read_to_end(&mut head)
        .map_err(io)?;
    let kind = sniff(&head, &path);
    if request.pages.is_some() && kind != FileKind::Pdf {
        return Err(ToolError::InvalidInput(format!(
            "`pages` applies only to PDF files, and {} is not a PDF. For text files use `offset` and `limit`.",
            path.display()
        )));
    }
    file.rewind().map_err(io)?;
    let record = |content: SeenContent| FileReadRecord {
        content,
        modified,
        offset: request.offset,
        limit: request.limit,
    };
    let (blocks, content) = match kind {
        FileKind::Text => read_text(file, size, request, &path, cancel)?,
        FileKind::Binary(what) => {
            return Err(ToolError::InvalidInput(format!(
                "Cannot read {}: it is {what}, which Read cannot show (it shows text, PNG/JPEG/GIF/WebP images, PDFs and notebooks). Inspect it with a suitable command through Bash instead.",
                path.display()
            )));
        }
        FileKind::Image(image_kind) => {
            let bytes = read_capped(file, size, MAX_IMAGE_FILE_BYTES, &path, "image")?;
            let prepared = prepare_image(&bytes, image_kind)
                .map_err(|e| ToolError::InvalidInput(format!("Cannot show {}: {e}.", path.display())))?;
            let mut note = format!("Image {} ({}×{}", path.display(), prepared.width, prepared.height);
            if prepared.resized() {
                let (w, h) = prepared.original;
                note.push_str(&format!(", downscaled from {w}×{h} to fit the API's limits"));
            }
            note.push_str(").");
            let blocks = vec![
                ResultBlock::text(note),
                ResultBlock::Image {
                    media_type: prepared.media_type.into(),
                    data: prepared.data,
                },
            ];
            (blocks, SeenContent::Hash(hash_bytes(&bytes)))
        }
        FileKind::Pdf => {
            let cap = if request.pages.is_some() {
                MAX_PDF_PARSE_BYTES
            } else {
                MAX_PDF_DOCUMENT_BYTES as u64
            };
            if size > cap {
                return Err(ToolError::InvalidInput(format!(
                    "This PDF is {} MB, too large to {}. {}",
                    size / (1024 * 1024),
                    if request.pages.is_some() {
                        "extract text from"
                    } else {
                        "send whole"
                    },
                    if request.pages.is_some() {
                        "Convert the pages you need with a command (e.g. `pdftotext -f 1 -l 5`) through Bash."
                    } else {
                        "Read its text in parts with `pages` (e.g. pages: \"1-20\")."
                    }
                )));
            }
            let bytes = read_capped(file, size, cap, &path, "PDF")?;
            let blocks =
                read_pdf(&bytes, request.pages).map_err(|e| ToolError::InvalidInput(e.to_string()))?;
            (blocks, SeenContent::Hash(hash_bytes(&bytes)))
        }
        FileKind::Notebook => {
            let bytes = read_capped(file, size, MAX_NOTEBOOK_BYTES, &path, "notebook")?;
            match render_notebook(&bytes).map_err(|e| ToolError::InvalidInput(e.to_string()))? {
                Some(blocks) => (blocks, SeenContent::Hash(hash_bytes(&bytes))),
                None => read_text(bytes.as_slice(), bytes.len() as u64, request, &path, cancel)?,
            }
        }
    };
    Ok(ReadOutcome {
        blocks,
        record: Some(record(content)),
        path,
    })
}

fn read_capped(file: File, size: u64, cap: u64, path: &Path, what: &str) -> Result<Vec<u8>, ToolError> {
    if size > cap {
        return Err(ToolError::InvalidInput(format!(
            "Cannot read {}: this {what} is {} MB, over the {} MB Read loads.",
            path.display(),
            size / (1024 * 1024),
            cap / (1024 * 1024)
        )));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // The cap holds even if the file grows after the size was taken.
    file.take(cap + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io(format!("reading {}", path.display()), e))?;
    if bytes.len() as u64 > cap {
        return Err(ToolError::InvalidInput(format!(
            "Cannot read {}: it grew past {} MB while being read.",
            path.display(),
            cap / (1024 * 1024)
        )));
    }
    Ok(bytes)
}

/// Reads text of `size` bytes (at opening); what identifies the content read: its hash, or for a
/// file over [`MAX_HASHED_BYTES`] its length (see [`SeenContent::Large`]).
fn read_text(
    reader: impl std::io::Read,
    size: u64,
    request: &ReadRequest,
    path: &Path,
    cancel: &CancellationToken,
) -> Result<(Vec<ResultBlock>, SeenContent), ToolError> {
    let offset = request.offset.unwrap_or(1).max(1);
    let limit = request.limit.unwrap_or(DEFAULT_LINE_LIMIT);
    let hash = size <= MAX_HASHED_BYTES;
    let scan = scan_text(reader, offset, limit, hash, cancel).map_err(|e| match e {
        ScanError::Io(e) => ToolError::io(format!("reading {}", path.display()), e),
        ScanError::Cancelled => ToolError::Cancelled("the read was interrupted".into()),
    })?;
    let text = render_text(&scan, path, offset)?;
    let content = match scan.hash {
        Some(hash) => SeenContent::Hash(hash),
        None => SeenContent::Large { len: size },
    };
    Ok((vec![ResultBlock::text(text)], content))
}

fn render_text(scan: &TextScan, path: &Path, offset: usize) -> Result<String, ToolError> {
    let total = scan.total_lines;
    if total == 0 {
        return Ok(format!(
            "The file {} exists but is empty (0 lines).",
            path.display()
        ));
    }
    if scan.shown_lines == 0 {
        return Ok(format!(
            "The file {} has {total} line{}; offset {offset} is past its end. Use an offset from 1 to {total}.",
            path.display(),
            if total == 1 { "" } else { "s" }
        ));
    }
    if scan.over_budget() {
        return Err(ToolError::InvalidInput(format!(
            "The requested part of {} (lines {offset}–{}) is about {} tokens, over the {MAX_TOKENS}-token limit of one read. The file has {total} lines. Use `offset` and `limit` to read a part of it, e.g. offset={offset}, limit={}, or search it with Grep.",
            path.display(),
            offset + scan.shown_lines - 1,
            scan.estimated_tokens,
            lines_that_fit(scan)
        )));
    }
    let mut text = scan.body.clone();
    let last = offset + scan.shown_lines - 1;
    if offset > 1 || last < total {
        text.push_str(&format!(
            "\n(Showing lines {offset}–{last} of {total}. Use offset and limit to read other parts.)"
        ));
    }
    if scan.cut_lines > 0 {
        text.push_str(&format!(
            "\n({} line{} longer than {} characters {} cut.)",
            scan.cut_lines,
            if scan.cut_lines == 1 { "" } else { "s" },
            crate::tools::read::text::MAX_LINE_CHARS,
            if scan.cut_lines == 1 { "was" } else { "were" }
        ));
    }
    Ok(text)
}
