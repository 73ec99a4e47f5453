//! A project's sessions as a full-text index (SQLite's FTS5, one file in the project's data folder):
//! titles, prompts, replies, tool inputs and tool results, each with its session, prompt number
//! and call. Transcripts only grow, so the index keeps, per session, how many bytes it has read
//! and reads only what was appended since: a search costs a `stat` per session and the new lines,
//! never a scan of every transcript. A transcript that shrank (rewritten, replaced) or is gone is
//! indexed again or forgotten. A damaged index file is rebuilt from the transcripts.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use nerve_protocol::transcripts::{SearchHitKind, SessionSearchHit, SnippetPart};
use rusqlite::{Connection, OptionalExtension, params};

use crate::model::types::{ContentBlock, Message, Role, ToolResultBlock, ToolResultContent};
use crate::transcripts::{TranscriptEntry, is_transcript};

/// The index's file name in the project's data folder.
pub const INDEX_FILE: &str = "search-index.sqlite";

/// Bumped when what is indexed changes: an index of another version is rebuilt.
const SCHEMA_VERSION: &str = "1";

/// Most text one document keeps (a huge tool result is found by its first part).
const MAX_DOC_CHARS: usize = 32 * 1024;

/// Words of context a snippet shows.
const SNIPPET_TOKENS: i32 = 14;

// Snippet markers: control characters no transcript text the index keeps contains.
const MARK_START: char = '\u{1}';
const MARK_END: char = '\u{2}';

/// Why the index could not answer.
#[derive(Debug, thiserror::Error)]
pub enum SearchIndexError {
    /// SQLite failed (a locked or unreadable file, a full disk).
    #[error("the search index {path} failed: {source}")]
    Sqlite {
        /// The index file.
        path: PathBuf,
        /// The error.
        #[source]
        source: rusqlite::Error,
    },
    /// The data folder could not be read.
    #[error("could not read {path}: {source}")]
    Io {
        /// The folder or file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

/// A project's session index, open.
pub struct SearchIndex {
    conn: Connection,
    data_dir: PathBuf,
    path: PathBuf,
}

impl std::fmt::Debug for SearchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SearchIndex").field("path", &self.path).finish()
    }
}

/// What one refresh read.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Refreshed {
    /// Sessions with new lines.
    pub sessions: usize,
    /// Documents added.
    pub documents: usize,
    /// Bytes of transcript read.
    pub bytes: u64,
}

/// How long opening the index waits for another connection (the app's, `nerve`'s, a session's
/// refresh after its turn) that holds the file.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// Puts the index in WAL mode. The switch takes the whole file and SQLite's busy handler does not
/// retry it, so two connections opening a new index at once (a search while a session refreshes
/// after its turn) would fail one with "database is locked": it is retried here, as long as
/// another statement would wait.
fn switch_to_wal(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_WAIT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            done => return done,
        }
    }
}

impl SearchIndex {
    /// Opens (or creates) the index of the project whose data folder is `data_dir`. A file that is
    /// not a usable index (damaged, another version) is replaced by an empty one.
    pub fn open(data_dir: &Path) -> Result<Self, SearchIndexError> {
        let path = data_dir.join(INDEX_FILE);
        fs::create_dir_all(data_dir).map_err(|source| SearchIndexError::Io {
            path: data_dir.to_path_buf(),
            source,
        })?;
        match Self::open_at(data_dir, &path) {
            Ok(index) => Ok(index),
            Err(SearchIndexError::Sqlite { source, .. }) if is_damage(&source) => {
                tracing::warn!(path = %path.display(), error = %source, "rebuilding a damaged search index");
                for suffix in ["", "-wal", "-shm"] {
                    let _ = fs::remove_file(format!("{}{suffix}", path.display()));
                }
                Self::open_at(data_dir, &path)
            }
            Err(e) => Err(e),
        }
    }

    fn open_at(data_dir: &Path, path: &Path) -> Result<Self, SearchIndexError> {
        let sql = |source| SearchIndexError::Sqlite {
            path: path.to_path_buf(),
            source,
        };
        let conn = Connection::open(path).map_err(sql)?;
        // Another process (the app and `nerve`) may be refreshing the same index.
        conn.busy_timeout(BUSY_WAIT).map_err(sql)?;
        // Readers never wait for a writer. Switching the mode takes the whole file, so it is done
        // once (a busy switch is not retried by SQLite's busy handler).
        let mode: String = conn
            .pragma_query_value(None, "journal_mode", |r| r.get(0))
            .map_err(sql)?;
        if !mode.eq_ignore_ascii_case("wal") {
            switch_to_wal(&conn).map_err(sql)?;
        }
        conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS files(session_id TEXT PRIMARY KEY, indexed_bytes INTEGER NOT NULL, turn INTEGER NOT NULL);
             CREATE VIRTUAL TABLE IF NOT EXISTS docs USING fts5(
                 text, session_id UNINDEXED, kind UNINDEXED, turn UNINDEXED, tool_use_id UNINDEXED,
                 tokenize = 'unicode61 remove_diacritics 2');",
        )
        .map_err(sql)?;
        let version: Option<String> = conn
            .query_row("SELECT value FROM meta WHERE key = 'schema'", [], |r| r.get(0))
            .optional()
            .map_err(sql)?;
        if version.as_deref() != Some(SCHEMA_VERSION) {
            conn.execute_batch("DELETE FROM docs; DELETE FROM files;")
                .map_err(sql)?;
            conn.execute(
                "INSERT OR REPLACE INTO meta(key, value) VALUES ('schema', ?1)",
                [SCHEMA_VERSION],
            )
            .map_err(sql)?;
        }
        Ok(Self {
            conn,
            data_dir: data_dir.to_path_buf(),
            path: path.to_path_buf(),
        })
    }

    fn sql(&self, source: rusqlite::Error) -> SearchIndexError {
        SearchIndexError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Reads what the project's transcripts gained since the last refresh; forgets sessions whose
    /// transcript is gone.
    pub fn refresh(&mut self) -> Result<Refreshed, SearchIndexError> {
        let known = known_files(&self.conn).map_err(|e| self.sql(e))?;
        let on_disk = transcripts(&self.data_dir, &known)?;
        if unchanged(&known, &on_disk) {
            // Nothing grew, nothing went: no transaction at all.
            return Ok(Refreshed::default());
        }
        let mut refreshed = Refreshed::default();
        let sql = |source| SearchIndexError::Sqlite {
            path: self.path.clone(),
            source,
        };
        // Immediate: the write lock is taken (waiting for another writer: the app and `nerve` may
        // refresh at once) before anything is read, so the offsets read below are the latest and
        // no line is indexed twice.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sql)?;
        let known = known_files(&tx).map_err(sql)?;
        // The sizes again, now that no other refresh can run: one that ran meanwhile may have read
        // past the sizes seen before the lock, and an older size would look like a shorter file
        // (read again from the start, up to a point before the end).
        let on_disk = transcripts(&self.data_dir, &known)?;
        if unchanged(&known, &on_disk) {
            return Ok(refreshed);
        }
        for gone in known.keys().filter(|id| !on_disk.contains_key(*id)) {
            tx.execute("DELETE FROM docs WHERE session_id = ?1", [gone])
                .map_err(sql)?;
            tx.execute("DELETE FROM files WHERE session_id = ?1", [gone])
                .map_err(sql)?;
        }
        for (id, (path, size)) in &on_disk {
            let (mut from, mut turn) = known.get(id).copied().unwrap_or((0, 0));
            if *size < from {
                // Shorter than what was read: not the same file any more. Read it whole again.
                tx.execute("DELETE FROM docs WHERE session_id = ?1", [id])
                    .map_err(sql)?;
                (from, turn) = (0, 0);
            }
            if *size == from {
                continue;
            }
            // A transcript removed meanwhile is forgotten at the next refresh.
            let Ok((lines, read)) = complete_lines(path, from, *size) else {
                continue;
            };
            if read == 0 {
                continue;
            }
            let mut insert = tx
                .prepare_cached(
                    "INSERT INTO docs(text, session_id, kind, turn, tool_use_id) VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sql)?;
            for line in lines.lines() {
                let Ok(entry) = serde_json::from_str::<TranscriptEntry>(line) else {
                    continue;
                };
                for doc in documents(entry, &mut turn) {
                    insert
                        .execute(params![doc.text, id, kind_name(doc.kind), turn, doc.tool_use_id])
                        .map_err(sql)?;
                    refreshed.documents += 1;
                }
            }
            drop(insert);
            tx.execute(
                "INSERT OR REPLACE INTO files(session_id, indexed_bytes, turn) VALUES (?1, ?2, ?3)",
                params![id, from + read, turn],
            )
            .map_err(sql)?;
            refreshed.sessions += 1;
            refreshed.bytes += read;
        }
        tx.commit().map_err(sql)?;
        Ok(refreshed)
    }

    /// The latest `limit` places matching `query` (its words, the last one as a prefix, as the user
    /// types), after a refresh. A blank query finds nothing. Newest first, not by rank: FTS5 walks
    /// its index in row order and stops at the limit, where ranking a common word would score every
    /// match (in the benchmark, 120 ms for a word in 200,000 places, more than scanning every
    /// transcript), and what a user looks for in their sessions is most often recent.
    pub fn search(&mut self, query: &str, limit: usize) -> Result<Vec<SessionSearchHit>, SearchIndexError> {
        let Some(matcher) = fts_query(query) else {
            return Ok(Vec::new());
        };
        self.refresh()?;
        let mut stmt = self
            .conn
            .prepare(
                "SELECT session_id, kind, turn, tool_use_id,
                        snippet(docs, 0, char(1), char(2), '…', ?2)
                 FROM docs WHERE docs MATCH ?1 ORDER BY rowid DESC LIMIT ?3",
            )
            .map_err(|e| self.sql(e))?;
        let rows = stmt
            .query_map(params![matcher, SNIPPET_TOKENS, limit as i64], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, String>(1)?,
                    r.get::<_, u32>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, String>(4)?,
                ))
            })
            .map_err(|e| self.sql(e))?;
        let rows: Vec<_> = rows.collect::<Result<_, _>>().map_err(|e| self.sql(e))?;
        let mut titles: HashMap<String, (String, u64)> = HashMap::new();
        let mut hits = Vec::with_capacity(rows.len());
        for (session_id, kind, turn, tool_use_id, snippet) in rows {
            let (title, modified_ms) = titles
                .entry(session_id.clone())
                .or_insert_with(|| {
                    let path = crate::transcripts::Transcript::path_for(&self.data_dir, &session_id);
                    (
                        crate::transcripts::session_title(&self.data_dir, &session_id),
                        modified_ms(&path),
                    )
                })
                .clone();
            hits.push(SessionSearchHit {
                session_id,
                title,
                kind: kind_of(&kind),
                turn,
                tool_use_id,
                snippet: snippet_parts(&snippet),
                modified_ms,
            });
        }
        Ok(hits)
    }
}

/// How far the index read each session's transcript, and the prompt number it had reached.
fn known_files(conn: &Connection) -> rusqlite::Result<HashMap<String, (u64, u32)>> {
    let mut stmt = conn.prepare("SELECT session_id, indexed_bytes, turn FROM files")?;
    let rows = stmt.query_map([], |r| {
        Ok((r.get::<_, String>(0)?, (r.get::<_, u64>(1)?, r.get::<_, u32>(2)?)))
    })?;
    rows.collect()
}

fn unchanged(known: &HashMap<String, (u64, u32)>, on_disk: &BTreeMap<String, (PathBuf, u64)>) -> bool {
    on_disk.len() == known.len()
        && on_disk
            .iter()
            .all(|(id, (_, size))| known.get(id).is_some_and(|(n, _)| n == size))
}

fn is_damage(e: &rusqlite::Error) -> bool {
    use rusqlite::ffi::ErrorCode;
    matches!(
        e.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
}

fn modified_ms(path: &Path) -> u64 {
    fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The project's transcripts by session id, with their sizes. A file the index read to its end is
/// known to be a transcript; only new or changed ones are opened to check.
fn transcripts(
    data_dir: &Path,
    known: &HashMap<String, (u64, u32)>,
) -> Result<BTreeMap<String, (PathBuf, u64)>, SearchIndexError> {
    let rd = match fs::read_dir(data_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(BTreeMap::new()),
        Err(source) => {
            return Err(SearchIndexError::Io {
                path: data_dir.to_path_buf(),
                source,
            });
        }
    };
    let mut out = BTreeMap::new();
    for entry in rd.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let (Some(id), Ok(meta)) = (path.file_stem(), entry.metadata()) else {
            continue;
        };
        let id = id.to_string_lossy().into_owned();
        let unchanged = known.get(&id).is_some_and(|(n, _)| *n == meta.len());
        // Other JSONL files of the data folder (the outputs' index) are not transcripts.
        if !unchanged && !is_transcript(&path) {
            continue;
        }
        out.insert(id, (path.clone(), meta.len()));
    }
    Ok(out)
}

/// The complete lines of `path` between `from` and `to` (a line still being written waits), and
/// how many bytes they are.
fn complete_lines(path: &Path, from: u64, to: u64) -> std::io::Result<(String, u64)> {
    let mut file = fs::File::open(path)?;
    file.seek(SeekFrom::Start(from))?;
    let mut bytes = Vec::new();
    file.take(to - from).read_to_end(&mut bytes)?;
    let end = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(end);
    Ok((String::from_utf8_lossy(&bytes).into_owned(), end as u64))
}

struct Doc {
    text: String,
    kind: SearchHitKind,
    tool_use_id: Option<String>,
}

fn doc(text: &str, kind: SearchHitKind, tool_use_id: Option<&str>) -> Option<Doc> {
    let text = text.trim();
    if text.is_empty() {
        return None;
    }
    let mut text: String = text.chars().take(MAX_DOC_CHARS).collect();
    // The snippet markers must be the only such characters in what is returned.
    text.retain(|c| c != MARK_START && c != MARK_END);
    Some(Doc {
        text,
        kind,
        tool_use_id: tool_use_id.map(str::to_string),
    })
}

/// What one transcript entry adds to the index; `turn` follows the prompts.
fn documents(entry: TranscriptEntry, turn: &mut u32) -> Vec<Doc> {
    match entry {
        TranscriptEntry::TurnStart { turn: t, .. } => {
            *turn = t;
            Vec::new()
        }
        TranscriptEntry::Title { title, .. } => doc(&title, SearchHitKind::Title, None).into_iter().collect(),
        TranscriptEntry::Message { message } => message_documents(&message),
        // Blocks of a message still streaming are indexed with the message when it completes.
        _ => Vec::new(),
    }
}

fn message_documents(message: &Message) -> Vec<Doc> {
    let mut docs = Vec::new();
    for block in &message.content {
        match (message.role, block) {
            // What the engine adds for the model (reminders, hook context) is not the user's.
            (Role::User, ContentBlock::Text(t)) if !t.text.trim_start().starts_with('<') => {
                docs.extend(doc(&t.text, SearchHitKind::Prompt, None));
            }
            (Role::Assistant, ContentBlock::Text(t)) => docs.extend(doc(&t.text, SearchHitKind::Reply, None)),
            (_, ContentBlock::ToolUse(t)) => {
                docs.extend(doc(&input_text(&t.input), SearchHitKind::ToolCall, Some(&t.id)));
            }
            (_, ContentBlock::ToolResult(r)) => {
                let text = match &r.content {
                    Some(ToolResultContent::Text(text)) => text.clone(),
                    Some(ToolResultContent::Blocks(blocks)) => blocks
                        .iter()
                        .filter_map(|b| match b {
                            ToolResultBlock::Text(t) => Some(t.text.as_str()),
                            ToolResultBlock::Image(_) => None,
                        })
                        .collect::<Vec<_>>()
                        .join("\n"),
                    None => String::new(),
                };
                docs.extend(doc(&text, SearchHitKind::ToolResult, Some(&r.tool_use_id)));
            }
            _ => {}
        }
    }
    docs
}

/// A tool input's string values, one per line (a command, a path, a pattern, written content).
fn input_text(input: &serde_json::Value) -> String {
    let mut out = String::new();
    let mut stack = vec![input];
    while let Some(value) = stack.pop() {
        match value {
            serde_json::Value::String(s) => {
                out.push_str(s);
                out.push('\n');
            }
            serde_json::Value::Array(items) => stack.extend(items.iter().rev()),
            serde_json::Value::Object(map) => stack.extend(map.values().rev()),
            _ => {}
        }
    }
    out
}

fn kind_name(kind: SearchHitKind) -> &'static str {
    match kind {
        SearchHitKind::Title => "title",
        SearchHitKind::Prompt => "prompt",
        SearchHitKind::Reply => "reply",
        SearchHitKind::ToolCall => "tool_call",
        SearchHitKind::ToolResult => "tool_result",
    }
}

fn kind_of(name: &str) -> SearchHitKind {
    match name {
        "title" => SearchHitKind::Title,
        "prompt" => SearchHitKind::Prompt,
        "tool_call" => SearchHitKind::ToolCall,
        "tool_result" => SearchHitKind::ToolResult,
        _ => SearchHitKind::Reply,
    }
}

/// The user's words as an FTS5 query: each word a quoted phrase (so no word is read as syntax),
/// all required, the last a prefix unless the query ends with a space. `None`: no words.
fn fts_query(query: &str) -> Option<String> {
    let words: Vec<String> = query
        .split_whitespace()
        .map(|w| w.replace('"', "\"\""))
        .filter(|w| !w.is_empty())
        .collect();
    let last = words.len().checked_sub(1)?;
    let typing = !query.ends_with(char::is_whitespace);
    Some(
        words
            .iter()
            .enumerate()
            .map(|(i, w)| {
                if i == last && typing {
                    format!("\"{w}\"*")
                } else {
                    format!("\"{w}\"")
                }
            })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

/// A snippet with its marks, as parts.
fn snippet_parts(snippet: &str) -> Vec<SnippetPart> {
    let mut parts: Vec<SnippetPart> = Vec::new();
    let mut matched = false;
    let mut text = String::new();
    let mut flush = |text: &mut String, matched: bool| {
        if !text.is_empty() {
            parts.push(SnippetPart {
                text: std::mem::take(text),
                matched,
            });
        }
    };
    for c in snippet.chars() {
        match c {
            MARK_START => {
                flush(&mut text, matched);
                matched = true;
            }
            MARK_END => {
                flush(&mut text, matched);
                matched = false;
            }
            // Newlines become spaces: a snippet is one line.
            '\n' | '\r' | '\t' => text.push(' '),
            c => text.push(c),
        }
    }
    flush(&mut text, matched);
    parts
}

/// The set of sessions the index holds (for tests and diagnostics).
pub fn indexed_sessions(index: &SearchIndex) -> Result<HashSet<String>, SearchIndexError> {
    let mut stmt = index
        .conn
        .prepare("SELECT session_id FROM files")
        .map_err(|e| index.sql(e))?;
    let rows = stmt
        .query_map([], |r| r.get::<_, String>(0))
        .map_err(|e| index.sql(e))?;
    rows.collect::<Result<_, _>>().map_err(|e| index.sql(e))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn connections_opening_a_new_index_at_once_all_get_it() {
        // A search and a session's refresh after its turn open the index of a new project together.
        for round in 0..20 {
            let dir = tempfile::tempdir().unwrap();
            let data = dir.path().join(format!("data-{round}"));
            let barrier = std::sync::Arc::new(std::sync::Barrier::new(4));
            let opened: Vec<_> = (0..4)
                .map(|_| {
                    let (data, barrier) = (data.clone(), std::sync::Arc::clone(&barrier));
                    std::thread::spawn(move || {
                        barrier.wait();
                        SearchIndex::open(&data).map(|_| ()).map_err(|e| e.to_string())
                    })
                })
                .collect();
            for thread in opened {
                assert_eq!(thread.join().unwrap(), Ok(()), "round {round}");
            }
        }
    }

    #[test]
    fn the_query_quotes_every_word_and_types_the_last_as_a_prefix() {
        assert_eq!(fts_query("  "), None);
        assert_eq!(fts_query("cargo te").as_deref(), Some("\"cargo\" \"te\"*"));
        assert_eq!(fts_query("NEAR( \"x ").as_deref(), Some("\"NEAR(\" \"\"\"x\""));
    }

    #[test]
    fn a_snippet_becomes_marked_parts_on_one_line() {
        assert_eq!(
            snippet_parts("…the \u{1}cargo\u{2} test\nran \u{1}ok\u{2}"),
            vec![
                SnippetPart {
                    text: "…the ".into(),
                    matched: false
                },
                SnippetPart {
                    text: "cargo".into(),
                    matched: true
                },
                SnippetPart {
                    text: " test ran ".into(),
                    matched: false
                },
                SnippetPart {
                    text: "ok".into(),
                    matched: true
                },
            ]
        );
    }
}
