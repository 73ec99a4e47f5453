//! Persisted tool outputs: one file per result under the session's `tool-results/` folder, written
//! atomically, and an append-only index per project that the UI lists.

use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::budget::preview_of;
use crate::storage::safe_file_stem;
use crate::tool::ResultBlock;

/// A result written to disk.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PersistedOutput {
    /// The file holding the full output.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size_bytes: u64,
    /// The inline preview.
    pub preview: String,
    /// Whether the preview is shorter than the output.
    pub preview_truncated: bool,
}

/// One line of the index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IndexEntry {
    /// The tool that produced the output.
    pub tool: String,
    /// The call.
    pub tool_use_id: String,
    /// The session.
    pub session_id: String,
    /// The file.
    pub path: PathBuf,
    /// Size in bytes.
    pub size_bytes: u64,
    /// When it was written (milliseconds since the Unix epoch).
    pub time_ms: u64,
    /// The preview shown to the model.
    pub preview: String,
}

/// Writes and reads persisted outputs of one session.
#[derive(Debug, Clone)]
pub struct ResultStore {
    session_id: String,
    results_dir: PathBuf,
    index_path: PathBuf,
}

impl ResultStore {
    /// A store writing to `<project data dir>/<session id>/tool-results/` and indexing in
    /// `<project data dir>/tool-results-index.jsonl`.
    pub fn new(project_data_dir: &Path, session_id: &str) -> Self {
        let stem = safe_file_stem(session_id);
        Self {
            session_id: session_id.to_string(),
            results_dir: project_data_dir.join(&stem).join("tool-results"),
            index_path: Self::index_path(project_data_dir),
        }
    }

    /// The name of a project's index file (in its data folder, beside the transcripts).
    pub const INDEX_FILE_NAME: &'static str = "tool-results-index.jsonl";

    /// The index file of a project.
    pub fn index_path(project_data_dir: &Path) -> PathBuf {
        project_data_dir.join(Self::INDEX_FILE_NAME)
    }

    /// The folder results are written to.
    pub fn results_dir(&self) -> &Path {
        &self.results_dir
    }

    /// Persists a result: `.txt` for text-only content, `.json` (the block array) otherwise. Written
    /// to a temporary file and renamed, so a crash or a full disk never leaves half an output
    /// behind a path the model was given.
    pub fn persist(
        &self,
        tool: &str,
        tool_use_id: &str,
        content: &[ResultBlock],
    ) -> io::Result<PersistedOutput> {
        fs::create_dir_all(&self.results_dir)?;
        let text_only = content.iter().all(|b| matches!(b, ResultBlock::Text { .. }));
        let (body, ext) = if text_only {
            let text = content
                .iter()
                .filter_map(|b| match b {
                    ResultBlock::Text { text } => Some(text.as_str()),
                    ResultBlock::Image { .. } | ResultBlock::Document { .. } => None,
                })
                .collect::<Vec<_>>()
                .join("\n");
            (text, "txt")
        } else {
            (
                serde_json::to_string_pretty(content).map_err(io::Error::other)?,
                "json",
            )
        };
        let path = self
            .results_dir
            .join(format!("{}.{ext}", safe_file_stem(tool_use_id)));
        let mut tmp = tempfile::NamedTempFile::new_in(&self.results_dir)?;
        tmp.write_all(body.as_bytes())?;
        tmp.as_file().sync_data()?;
        tmp.persist(&path).map_err(|e| e.error)?;

        let (preview, preview_truncated) = preview_of(&body);
        let persisted = PersistedOutput {
            path: path.clone(),
            size_bytes: body.len() as u64,
            preview: preview.to_string(),
            preview_truncated,
        };
        self.append_index(&IndexEntry {
            tool: tool.to_string(),
            tool_use_id: tool_use_id.to_string(),
            session_id: self.session_id.clone(),
            path,
            size_bytes: persisted.size_bytes,
            time_ms: now_ms(),
            preview: persisted.preview.clone(),
        })?;
        Ok(persisted)
    }

    /// Lists a file a tool saved itself (Bash's whole output) in the index, so front-ends show
    /// and read it like any persisted output. Only files inside this session's results folder
    /// are accepted: the index is what `read_range` trusts.
    pub fn index_saved(&self, tool: &str, tool_use_id: &str, path: &Path) -> io::Result<PersistedOutput> {
        let inside = fs::canonicalize(path)?.starts_with(fs::canonicalize(&self.results_dir)?);
        if !inside {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "a saved output must be inside the session's tool results folder",
            ));
        }
        let size_bytes = fs::metadata(path)?.len();
        let mut head = Vec::new();
        fs::File::open(path)?.take(4096).read_to_end(&mut head)?;
        let head = String::from_utf8_lossy(&head);
        let (preview, preview_truncated) = preview_of(&head);
        let persisted = PersistedOutput {
            path: path.to_path_buf(),
            size_bytes,
            preview: preview.to_string(),
            preview_truncated: preview_truncated || size_bytes > head.len() as u64,
        };
        self.append_index(&IndexEntry {
            tool: tool.to_string(),
            tool_use_id: tool_use_id.to_string(),
            session_id: self.session_id.clone(),
            path: path.to_path_buf(),
            size_bytes,
            time_ms: now_ms(),
            preview: persisted.preview.clone(),
        })?;
        Ok(persisted)
    }

    fn append_index(&self, entry: &IndexEntry) -> io::Result<()> {
        if let Some(parent) = self.index_path.parent() {
            fs::create_dir_all(parent)?;
        }
        let mut line = serde_json::to_string(entry).map_err(io::Error::other)?;
        line.push('\n');
        // One write of the whole line in append mode: concurrent sessions interleave whole lines.
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.index_path)?;
        file.write_all(line.as_bytes())
    }

    /// This session's persisted outputs, newest first.
    pub fn session_outputs(&self) -> io::Result<Vec<IndexEntry>> {
        let project_data_dir = self.index_path.parent().unwrap_or_else(|| Path::new("."));
        let mut entries = Self::list(project_data_dir)?;
        entries.retain(|e| e.session_id == self.session_id);
        Ok(entries)
    }

    /// This session's saved outputs by call: the file and its size in bytes. An unreadable index
    /// gives none (what it costs is a card without its file, never the conversation).
    pub fn saved_by_call(&self) -> std::collections::HashMap<String, (PathBuf, u64)> {
        self.session_outputs()
            .unwrap_or_default()
            .into_iter()
            .map(|e| (e.tool_use_id, (e.path, e.size_bytes)))
            .collect()
    }

    /// Lists a project's persisted outputs, newest first. Damaged lines (a crash mid-write) are skipped.
    pub fn list(project_data_dir: &Path) -> io::Result<Vec<IndexEntry>> {
        let text = match fs::read_to_string(Self::index_path(project_data_dir)) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut entries: Vec<IndexEntry> = text
            .lines()
            .filter_map(|l| match serde_json::from_str(l) {
                Ok(e) => Some(e),
                Err(err) => {
                    tracing::warn!(error = %err, "skipping a damaged line of the tool-results index");
                    None
                }
            })
            .collect();
        entries.sort_by_key(|e| std::cmp::Reverse(e.time_ms));
        Ok(entries)
    }

    /// Drops the index lines of the outputs `gone` says are gone (their files were deleted),
    /// rewriting the index atomically. Lines that do not parse are kept: this never loses what it
    /// cannot read. A session appending at the same moment may lose that one line (last rename
    /// wins); deleting is a user's action between turns.
    pub fn forget(project_data_dir: &Path, gone: impl Fn(&IndexEntry) -> bool) -> io::Result<()> {
        let path = Self::index_path(project_data_dir);
        let text = match fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let mut kept = String::with_capacity(text.len());
        for line in text.lines() {
            let drop = serde_json::from_str::<IndexEntry>(line).is_ok_and(|e| gone(&e));
            if !drop && !line.trim().is_empty() {
                kept.push_str(line);
                kept.push('\n');
            }
        }
        crate::files::write_atomic(&path, kept.as_bytes())
    }

    /// Reads `len` bytes at `offset` of a persisted output listed in the project's index. Paths not in
    /// the index are refused, so this cannot be used to read arbitrary files.
    pub fn read_range(project_data_dir: &Path, path: &Path, offset: u64, len: usize) -> io::Result<Vec<u8>> {
        let listed = Self::list(project_data_dir)?.into_iter().any(|e| e.path == path);
        if !listed {
            return Err(io::Error::new(
                io::ErrorKind::NotFound,
                "not a persisted tool output of this project",
            ));
        }
        let mut file = fs::File::open(path)?;
        file.seek(SeekFrom::Start(offset))?;
        let mut buf = Vec::with_capacity(len.min(1 << 20));
        file.take(len as u64).read_to_end(&mut buf)?;
        Ok(buf)
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_saved_by_tools_are_indexed_only_inside_the_results_folder() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s1");
        fs::create_dir_all(store.results_dir()).unwrap();
        let saved = store.results_dir().join("bash-1.log");
        fs::write(&saved, "1\n2\n3\n").unwrap();
        let p = store.index_saved("Bash", "toolu_1", &saved).unwrap();
        assert_eq!(p.size_bytes, 6);
        assert_eq!(ResultStore::read_range(dir.path(), &saved, 2, 2).unwrap(), b"2\n");
        let outside = dir.path().join("secret.txt");
        fs::write(&outside, "no").unwrap();
        assert!(store.index_saved("Bash", "toolu_2", &outside).is_err());
        assert!(ResultStore::read_range(dir.path(), &outside, 0, 2).is_err());
    }

    #[test]
    fn persists_text_and_indexes_it() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s1");
        let big = "line\n".repeat(10_000);
        let p = store
            .persist("Bash", "toolu_1", &[ResultBlock::text(big.clone())])
            .unwrap();
        assert_eq!(p.path, dir.path().join("s1/tool-results/toolu_1.txt"));
        assert_eq!(fs::read_to_string(&p.path).unwrap(), big);
        assert!(p.preview_truncated);
        let list = ResultStore::list(dir.path()).unwrap();
        assert_eq!(list.len(), 1);
        assert_eq!(list[0].tool_use_id, "toolu_1");
        assert_eq!(list[0].size_bytes, big.len() as u64);
        let part = ResultStore::read_range(dir.path(), &p.path, 5, 4).unwrap();
        assert_eq!(part, b"line");
    }

    #[test]
    fn block_arrays_are_json() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s1");
        let blocks = vec![
            ResultBlock::text("a"),
            ResultBlock::Image {
                media_type: "image/png".into(),
                data: "AAAA".into(),
            },
        ];
        let p = store.persist("X", "t2", &blocks).unwrap();
        assert!(p.path.to_string_lossy().ends_with("t2.json"));
        let back: Vec<ResultBlock> = serde_json::from_str(&fs::read_to_string(&p.path).unwrap()).unwrap();
        assert_eq!(back, blocks);
    }

    #[test]
    fn read_range_refuses_unlisted_paths() {
        let dir = tempfile::tempdir().unwrap();
        let err = ResultStore::read_range(dir.path(), Path::new("/etc/passwd"), 0, 10).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }

    #[test]
    fn damaged_index_line_is_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        store.persist("T", "a", &[ResultBlock::text("x")]).unwrap();
        let mut f = OpenOptions::new()
            .append(true)
            .open(ResultStore::index_path(dir.path()))
            .unwrap();
        f.write_all(b"{\"tool\": \"half").unwrap();
        assert_eq!(ResultStore::list(dir.path()).unwrap().len(), 1);
    }

    #[test]
    fn unwritable_dir_is_an_error_not_a_half_file() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        fs::write(&blocker, "x").unwrap();
        // The results folder would have to be created below a regular file.
        let store = ResultStore::new(&blocker, "s");
        assert!(store.persist("T", "a", &[ResultBlock::text("x")]).is_err());
    }
}
