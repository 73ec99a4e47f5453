//! The persisted tool outputs of a project, as a browser and the CLI (`nerve outputs`) see them:
//! listed from the engine's index with the call that made them and its session, searched with
//! ripgrep's libraries (streaming hits with line numbers, never loading a file whole), read by
//! head, tail or line range, and deleted with the index kept in step. The engine reads the files;
//! a front-end only shows what these functions return.

pub use nerve_protocol::outputs::{Deleted, OutputInfo, OutputLine, PersistedChunk, SearchHit};

use std::collections::{HashMap, HashSet};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use grep_regex::RegexMatcherBuilder;
use grep_searcher::sinks::Lossy;
use grep_searcher::{BinaryDetection, SearcherBuilder};
use serde_json::Value;

use crate::budget::{IndexEntry, ResultStore};
use crate::transcripts::{Transcript, TranscriptEntry, session_title};

/// Longest line text a search hit or a shown line carries (the rest is cut with a note).
pub const MAX_LINE_CHARS: usize = 2_000;

/// Which outputs a listing or a search covers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutputFilter {
    /// Only this session's.
    pub session_id: Option<String>,
    /// Only this tool's.
    pub tool: Option<String>,
}

impl OutputFilter {
    fn keeps(&self, entry: &IndexEntry) -> bool {
        self.session_id.as_ref().is_none_or(|s| s == &entry.session_id)
            && self.tool.as_ref().is_none_or(|t| t == &entry.tool)
    }
}

/// Why outputs could not be read, searched or deleted.
#[derive(Debug, thiserror::Error)]
pub enum OutputsError {
    /// The index or a file could not be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The I/O error.
        source: io::Error,
    },
    /// No output of this project has that id or path.
    #[error("no persisted output of this project is `{0}` (see `nerve outputs list`)")]
    Unknown(String),
    /// The search pattern is not a valid regular expression.
    #[error("the pattern is not a valid regular expression: {0}")]
    Pattern(String),
}

fn io_error(what: impl Into<String>) -> impl FnOnce(io::Error) -> OutputsError {
    let what = what.into();
    move |source| OutputsError::Io { what, source }
}

/// The project's outputs matching `filter`, newest first, each with its call's summary and its
/// session's title (each transcript is read once, and only when one of its outputs is listed).
pub fn list_outputs(project_data_dir: &Path, filter: &OutputFilter) -> Result<Vec<OutputInfo>, OutputsError> {
    let entries: Vec<IndexEntry> = ResultStore::list(project_data_dir)
        .map_err(io_error("cannot read the outputs index"))?
        .into_iter()
        .filter(|e| filter.keeps(e))
        .collect();
    let mut wanted: HashMap<&str, HashSet<&str>> = HashMap::new();
    for e in &entries {
        wanted
            .entry(e.session_id.as_str())
            .or_default()
            .insert(e.tool_use_id.as_str());
    }
    let mut titles: HashMap<&str, String> = HashMap::new();
    let mut summaries: HashMap<String, String> = HashMap::new();
    for (session, ids) in &wanted {
        let transcript = Transcript::path_for(project_data_dir, session);
        titles.insert(session, session_title(project_data_dir, session));
        summaries.extend(call_summaries(&transcript, ids));
    }
    let builtins = crate::registry::all_builtin_tools();
    Ok(entries
        .iter()
        .map(|e| OutputInfo {
            tool: e.tool.clone(),
            kind: crate::registry::kind_by_name(&builtins, &e.tool),
            tool_use_id: e.tool_use_id.clone(),
            summary: summaries.get(&e.tool_use_id).cloned(),
            session_id: e.session_id.clone(),
            session_title: titles.get(e.session_id.as_str()).cloned().unwrap_or_default(),
            path: e.path.display().to_string(),
            size_bytes: e.size_bytes,
            time_ms: e.time_ms,
            exists: e.path.is_file(),
        })
        .collect())
}

/// The summaries of the calls `ids` in a transcript, as their tools describe them on a card.
fn call_summaries(transcript: &Path, ids: &HashSet<&str>) -> HashMap<String, String> {
    let mut out = HashMap::new();
    let Ok(file) = File::open(transcript) else {
        return out;
    };
    let tools = crate::registry::all_builtin_tools();
    let cwd = transcript.parent().unwrap_or_else(|| Path::new("/"));
    for line in BufReader::new(file).lines().map_while(Result::ok) {
        if out.len() == ids.len() {
            break;
        }
        // Only lines that can hold a wanted call are parsed.
        if !line.contains("tool_use") {
            continue;
        }
        let Ok(entry) = serde_json::from_str::<TranscriptEntry>(&line) else {
            continue;
        };
        let blocks = match entry {
            TranscriptEntry::AssistantBlock { block } => vec![block],
            TranscriptEntry::Message { message } => message.content,
            _ => continue,
        };
        for block in blocks {
            if let crate::model::types::ContentBlock::ToolUse(t) = block
                && ids.contains(t.id.as_str())
            {
                let summary = match tools.iter().find(|tool| tool.name() == t.name) {
                    Some(tool) => tool.summary(&tool.prepare(t.input), cwd),
                    None => fallback_summary(&t.input),
                };
                out.insert(t.id, summary);
            }
        }
    }
    out
}

/// For a tool the engine does not have (an MCP tool): its first text argument.
fn fallback_summary(input: &Value) -> String {
    input
        .as_object()
        .and_then(|o| o.values().find_map(Value::as_str))
        .map(|s| s.chars().take(200).collect())
        .unwrap_or_default()
}

/// Finds the output `key` (its call id or its path) in the project's index.
pub fn find_output(project_data_dir: &Path, key: &str) -> Result<IndexEntry, OutputsError> {
    ResultStore::list(project_data_dir)
        .map_err(io_error("cannot read the outputs index"))?
        .into_iter()
        .find(|e| e.tool_use_id == key || e.path == Path::new(key))
        .ok_or_else(|| OutputsError::Unknown(key.to_string()))
}

fn line_text(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_end_matches(['\n', '\r']);
    let count = text.chars().count();
    if count <= MAX_LINE_CHARS {
        return text.to_string();
    }
    let kept: String = text.chars().take(MAX_LINE_CHARS).collect();
    format!("{kept}… ({} more characters)", count - MAX_LINE_CHARS)
}

/// Lines `first..first + count` (1-based) of the output at `path`, read as a stream.
pub fn read_lines(path: &Path, first: u64, count: usize) -> Result<Vec<OutputLine>, OutputsError> {
    let file = File::open(path).map_err(io_error(format!("cannot open {}", path.display())))?;
    let mut reader = BufReader::new(file);
    let mut out = Vec::new();
    let mut number = 0u64;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let read = reader
            .read_until(b'\n', &mut buf)
            .map_err(io_error(format!("cannot read {}", path.display())))?;
        if read == 0 || out.len() == count {
            break;
        }
        number += 1;
        if number >= first.max(1) {
            out.push(OutputLine {
                number,
                text: line_text(&buf),
            });
        }
    }
    Ok(out)
}

/// The last `count` lines of the output at `path`, read backwards from its end (a 500 MB output
/// costs what its last lines cost, not its size).
pub fn tail_lines(path: &Path, count: usize) -> Result<Vec<String>, OutputsError> {
    const BLOCK: u64 = 64 * 1024;
    let mut file = File::open(path).map_err(io_error(format!("cannot open {}", path.display())))?;
    let len = file
        .seek(SeekFrom::End(0))
        .map_err(io_error(format!("cannot read {}", path.display())))?;
    let mut end = len;
    let mut tail: Vec<u8> = Vec::new();
    // Enough bytes for `count` lines: count + 1 newlines (the last line may end with one).
    while end > 0 && tail.iter().filter(|&&b| b == b'\n').count() <= count {
        let start = end.saturating_sub(BLOCK);
        let mut block = vec![0; (end - start) as usize];
        file.seek(SeekFrom::Start(start))
            .and_then(|_| file.read_exact(&mut block))
            .map_err(io_error(format!("cannot read {}", path.display())))?;
        block.extend_from_slice(&tail);
        tail = block;
        end = start;
    }
    if tail.is_empty() || count == 0 {
        return Ok(Vec::new());
    }
    let text = tail.strip_suffix(b"\n").unwrap_or(&tail);
    let mut lines: Vec<String> = text.rsplit(|&b| b == b'\n').take(count).map(line_text).collect();
    lines.reverse();
    Ok(lines)
}

/// Searches the outputs matching `filter` for `pattern` (a literal unless `regex`; case-sensitive
/// unless it has no capital letter, as ripgrep's smart case), handing each hit to `on_hit` as it is
/// found; `on_hit` returning `false` stops the search. Binary files are searched up to their
/// first NUL byte. Returns how many hits were handed over.
pub fn search_outputs(
    project_data_dir: &Path,
    filter: &OutputFilter,
    pattern: &str,
    regex: bool,
    mut on_hit: impl FnMut(SearchHit) -> bool,
) -> Result<usize, OutputsError> {
    let matcher = RegexMatcherBuilder::new()
        .case_smart(true)
        .fixed_strings(!regex)
        .build(pattern)
        .map_err(|e| OutputsError::Pattern(e.to_string()))?;
    let mut searcher = SearcherBuilder::new()
        .line_number(true)
        .binary_detection(BinaryDetection::quit(0))
        .build();
    let entries: Vec<IndexEntry> = ResultStore::list(project_data_dir)
        .map_err(io_error("cannot read the outputs index"))?
        .into_iter()
        .filter(|e| filter.keeps(e) && e.path.is_file())
        .collect();
    let mut hits = 0usize;
    let mut stopped = false;
    for entry in entries {
        let path = entry.path.display().to_string();
        let sink = Lossy(|number, line: &str| {
            hits += 1;
            let keep_going = on_hit(SearchHit {
                tool_use_id: entry.tool_use_id.clone(),
                path: path.clone(),
                line: OutputLine {
                    number,
                    text: line_text(line.as_bytes()),
                },
            });
            stopped = !keep_going;
            Ok(keep_going)
        });
        searcher
            .search_path(&matcher, &entry.path, sink)
            .map_err(io_error(format!("cannot search {path}")))?;
        if stopped {
            break;
        }
    }
    Ok(hits)
}

/// Deletes the outputs `keys` (call ids or paths) or, with `session`, every output of that
/// session: the files go, and so do their index lines (the index is rewritten atomically).
pub fn delete_outputs(
    project_data_dir: &Path,
    keys: &[String],
    session: Option<&str>,
) -> Result<Deleted, OutputsError> {
    let entries = ResultStore::list(project_data_dir).map_err(io_error("cannot read the outputs index"))?;
    for key in keys {
        if !entries
            .iter()
            .any(|e| &e.tool_use_id == key || e.path == Path::new(key))
        {
            return Err(OutputsError::Unknown(key.clone()));
        }
    }
    let doomed: Vec<&IndexEntry> = entries
        .iter()
        .filter(|e| {
            session.is_some_and(|s| s == e.session_id)
                || keys.iter().any(|k| k == &e.tool_use_id || e.path == Path::new(k))
        })
        .collect();
    let mut bytes = 0;
    for entry in &doomed {
        match std::fs::metadata(&entry.path) {
            Ok(m) => {
                std::fs::remove_file(&entry.path)
                    .map_err(io_error(format!("cannot delete {}", entry.path.display())))?;
                bytes += m.len();
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(format!("cannot delete {}", entry.path.display()))(e)),
        }
    }
    let gone: HashSet<&PathBuf> = doomed.iter().map(|e| &e.path).collect();
    ResultStore::forget(project_data_dir, |e| gone.contains(&e.path))
        .map_err(io_error("cannot rewrite the outputs index"))?;
    Ok(Deleted {
        outputs: doomed.len(),
        bytes,
    })
}

/// Bytes the project's persisted outputs take on disk (files still there).
pub fn disk_usage(project_data_dir: &Path) -> Result<u64, OutputsError> {
    Ok(ResultStore::list(project_data_dir)
        .map_err(io_error("cannot read the outputs index"))?
        .iter()
        .filter_map(|e| std::fs::metadata(&e.path).ok())
        .map(|m| m.len())
        .sum())
}

/// Most bytes one [`read_chunk`] returns.
pub const MAX_CHUNK_BYTES: usize = 1024 * 1024;

/// Reads up to `len` bytes (at most [`MAX_CHUNK_BYTES`]) of the persisted output at `path` from
/// `offset`, as text for a viewer that pages through it. Only a listed output of the project can
/// be read. A character the chunk size would cut waits for the next chunk, so paging never shows
/// half a character.
/// The bytes `offset..offset + len` of the persisted output at `path` as they are (which must lie
/// in `project_data_dir`'s outputs).
pub fn read_bytes(
    project_data_dir: &Path,
    path: &Path,
    offset: u64,
    len: usize,
) -> Result<Vec<u8>, OutputsError> {
    ResultStore::read_range(project_data_dir, path, offset, len)
        .map_err(io_error(format!("could not read {}", path.display())))
}

/// A chunk of the persisted output at `path` for a browser (whole characters, at most
/// `MAX_CHUNK_BYTES`).
pub fn read_chunk(
    project_data_dir: &Path,
    path: &Path,
    offset: u64,
    len: usize,
) -> Result<PersistedChunk, OutputsError> {
    let mut bytes = ResultStore::read_range(project_data_dir, path, offset, len.min(MAX_CHUNK_BYTES))
        .map_err(io_error(format!("could not read {}", path.display())))?;
    let total_bytes = std::fs::metadata(path)
        .map_err(io_error(format!("could not read {}", path.display())))?
        .len();
    let at_end = offset.saturating_add(bytes.len() as u64) >= total_bytes;
    if !at_end {
        bytes.truncate(whole_chars_len(&bytes));
    }
    Ok(PersistedChunk {
        text: String::from_utf8_lossy(&bytes).into_owned(),
        offset,
        next_offset: offset.saturating_add(bytes.len() as u64),
        total_bytes,
    })
}

/// The length of `bytes` without a UTF-8 character cut off at its end (invalid bytes elsewhere are
/// left to the lossy decoding). Never 0 for a non-empty slice, so reading always moves on.
fn whole_chars_len(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(4) {
        let byte = bytes[n - back];
        if byte & 0b1100_0000 == 0b1000_0000 {
            continue; // a continuation byte: the character starts further back
        }
        let needed = match byte {
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            0xF0..=0xF7 => 4,
            _ => 1,
        };
        return if back < needed && back < n { n - back } else { n };
    }
    n
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_character_cut_by_the_chunk_size_waits_for_the_next_chunk() {
        let text = "ab─cd€😀".as_bytes();
        // Every cut inside a character moves back to its start; cuts between characters stay.
        let boundaries: Vec<usize> = (0..=text.len())
            .filter(|&i| std::str::from_utf8(&text[..i]).is_ok())
            .collect();
        for cut in 1..=text.len() {
            let kept = whole_chars_len(&text[..cut]);
            let expected = *boundaries.iter().rev().find(|&&b| b <= cut).unwrap_or(&0);
            assert_eq!(kept, if expected == 0 { cut } else { expected }, "cut at {cut}");
            assert!(std::str::from_utf8(&text[..kept]).is_ok() || expected == 0);
        }
        assert_eq!(whole_chars_len(b""), 0);
        assert_eq!(
            whole_chars_len(&[0xE2]),
            1,
            "a lone partial character still moves the reader on"
        );
        assert_eq!(
            whole_chars_len(&[b'a', 0xFF]),
            2,
            "invalid bytes are not held back"
        );
    }

    use super::*;
    use crate::model::types::{ContentBlock, Message, ToolUseBlock};
    use crate::tool::ResultBlock;
    use pretty_assertions::assert_eq;

    /// A project data folder with one session whose Bash call's output was persisted.
    fn project_with_output() -> (tempfile::TempDir, IndexEntry) {
        let dir = tempfile::tempdir().unwrap();
        let mut transcript = Transcript::open(&Transcript::path_for(dir.path(), "s1")).unwrap();
        transcript
            .append(&TranscriptEntry::Message {
                message: Message::user_text("count to five"),
            })
            .unwrap();
        transcript
            .append(&TranscriptEntry::AssistantBlock {
                block: ContentBlock::ToolUse(ToolUseBlock {
                    id: "toolu_seq".into(),
                    name: "Bash".into(),
                    input: serde_json::json!({"command": "seq 1 5", "description": "Count"}),
                    cache_control: None,
                }),
            })
            .unwrap();
        let store = ResultStore::new(dir.path(), "s1");
        store
            .persist("Bash", "toolu_seq", &[ResultBlock::text("1\n2\n3\n4\n5\n")])
            .unwrap();
        let entry = ResultStore::list(dir.path()).unwrap().remove(0);
        (dir, entry)
    }

    #[test]
    fn a_listed_output_names_its_call_and_session() {
        let (dir, entry) = project_with_output();
        let listed = list_outputs(dir.path(), &OutputFilter::default()).unwrap();
        assert_eq!(
            listed,
            vec![OutputInfo {
                tool: "Bash".into(),
                kind: nerve_protocol::ToolKind::Shell,
                tool_use_id: "toolu_seq".into(),
                summary: Some("seq 1 5".into()),
                session_id: "s1".into(),
                session_title: "count to five".into(),
                path: entry.path.display().to_string(),
                size_bytes: 10,
                time_ms: entry.time_ms,
                exists: true,
            }]
        );
        let other = OutputFilter {
            session_id: Some("s2".into()),
            tool: None,
        };
        assert_eq!(list_outputs(dir.path(), &other).unwrap(), Vec::new());
        std::fs::remove_file(&entry.path).unwrap();
        assert!(!list_outputs(dir.path(), &OutputFilter::default()).unwrap()[0].exists);
    }

    #[test]
    fn tail_reads_the_last_lines_across_blocks_and_without_a_final_newline() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let text: String = (1..=100_000).map(|n| format!("{n}\n")).collect();
        std::fs::write(&path, &text).unwrap();
        assert_eq!(tail_lines(&path, 3).unwrap(), ["99998", "99999", "100000"]);
        std::fs::write(&path, "a\nb").unwrap();
        assert_eq!(tail_lines(&path, 5).unwrap(), ["a", "b"]);
        std::fs::write(&path, "").unwrap();
        assert_eq!(tail_lines(&path, 5).unwrap(), Vec::<String>::new());
    }

    #[test]
    fn long_lines_are_cut_with_a_note_and_bad_bytes_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.txt");
        let mut bytes = "y".repeat(MAX_LINE_CHARS + 5).into_bytes();
        bytes.extend_from_slice(b"\n\xff ok\n");
        std::fs::write(&path, bytes).unwrap();
        let lines = read_lines(&path, 1, 10).unwrap();
        assert_eq!(
            lines[0].text,
            format!("{}… (5 more characters)", "y".repeat(MAX_LINE_CHARS))
        );
        assert_eq!(
            lines[1],
            OutputLine {
                number: 2,
                text: "\u{fffd} ok".into()
            }
        );
    }

    #[test]
    fn deleting_a_sessions_outputs_frees_their_bytes_and_their_index_lines() {
        let (dir, entry) = project_with_output();
        std::fs::write(ResultStore::index_path(dir.path()), {
            let mut text = std::fs::read_to_string(ResultStore::index_path(dir.path())).unwrap();
            text.push_str("{damaged\n");
            text
        })
        .unwrap();
        let deleted = delete_outputs(dir.path(), &[], Some("s1")).unwrap();
        assert_eq!(
            deleted,
            Deleted {
                outputs: 1,
                bytes: 10
            }
        );
        assert!(!entry.path.exists());
        assert_eq!(
            std::fs::read_to_string(ResultStore::index_path(dir.path())).unwrap(),
            "{damaged\n",
            "a line that cannot be read is kept"
        );
        assert!(matches!(
            delete_outputs(dir.path(), &["toolu_seq".into()], None),
            Err(OutputsError::Unknown(_))
        ));
    }
}
