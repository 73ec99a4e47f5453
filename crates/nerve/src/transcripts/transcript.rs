//! The transcript: one JSON object per line, appended and flushed as things happen, so a killed
//! process loses at most the line being written. Reading skips a damaged line (a crash mid-write)
//! with a warning instead of failing the whole session.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::budget::ReplacementRecord;
use crate::model::types::Message;
use crate::storage::safe_file_stem;

/// One line of a transcript.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TranscriptEntry {
    /// The session began (or was forked from another).
    SessionStart {
        /// The session id.
        session_id: String,
        /// The working directory.
        cwd: PathBuf,
        /// The model.
        model: String,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
        /// The session this one was forked from.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        forked_from: Option<String>,
    },
    /// A message added to the conversation (exactly what is sent to the API).
    Message {
        /// The message.
        message: Message,
    },
    /// One block of an assistant message still streaming, written the moment it completes (a tool
    /// may already be running because of it). The complete message, when it arrives, supersedes
    /// these; after a crash they become the assistant message on resume.
    AssistantBlock {
        /// The block.
        block: crate::model::types::ContentBlock,
    },
    /// The frozen form of a tool result (inline or persisted), so a resumed session rebuilds the
    /// same messages.
    Replacement {
        /// The decision.
        record: ReplacementRecord,
    },
    /// The conversation was compacted: everything before is replaced by the summary message that
    /// follows this entry. Persisted outputs stay where they are.
    CompactBoundary {
        /// What triggered it (`manual` or `auto`).
        trigger: String,
        /// Tokens of context before compaction.
        tokens_before: u64,
    },
    /// A user prompt starts turn `turn` (prompts are numbered from 1 and never renumbered, also
    /// across rewinds); the prompt's message follows. Rewinds name prompts by this number.
    TurnStart {
        /// The prompt's number.
        turn: u32,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
    },
    /// The conversation was rewound to just before prompt `to_turn`: from here on, the history is
    /// what it was right before that prompt's `turn_start`. The entries in between stay, for the
    /// record.
    Rewind {
        /// The prompt rewound to.
        to_turn: u32,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
        /// The same rewind also put files back (so undoing it brings those forward too).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        code: bool,
    },
    /// The turn of the latest prompt ended (the prompt navigator shows how).
    TurnEnd {
        /// Why it ended.
        reason: crate::events::TurnEnd,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
    },
    /// The latest rewind still undoable was undone: the conversation it cut off is back, as if
    /// the rewind had not happened. Only a rewind with nothing said since can be undone.
    RewindUndone {
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
    },
    /// What one model response used, so a resumed session's totals and cost go on from where they
    /// were (responses of rewound turns were paid for too, so they count).
    Usage {
        /// The model that answered.
        model: String,
        /// Its usage.
        usage: crate::model::types::Usage,
    },
    /// The user named the session (the last name given wins; lists show it instead of the first
    /// prompt).
    Title {
        /// The name.
        title: String,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
    },
    /// The user chose the model or the effort of the session's requests (both are recorded as
    /// they are from then on); a resumed session goes on with the last choice.
    ModelChoice {
        /// The model.
        model: String,
        /// How hard it thinks.
        effort: nerve_protocol::prompt::Effort,
        /// Milliseconds since the Unix epoch.
        time_ms: u64,
    },
    /// A permission decision about a call.
    Permission {
        /// The call.
        tool_use_id: String,
        /// The tool.
        tool_name: String,
        /// Whether it was allowed.
        allowed: bool,
        /// What allowed it (absent for a refusal, and in transcripts older than the field).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        decided_by: Option<nerve_protocol::DecidedBy>,
        /// Why, in words: what allowed it, or the refusal the model read.
        reason: String,
    },
}

/// A transcript could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum TranscriptError {
    /// Writing failed (a full disk...). The conversation in memory is unaffected.
    #[error("could not write the transcript {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// Reading failed.
    #[error("could not read the transcript {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// No session has that id in the project.
    #[error("no session {id} in this project")]
    NoSession {
        /// The id asked for.
        id: String,
    },
    /// A session's files could not be deleted.
    #[error("could not delete {path}: {source}")]
    Delete {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
    /// A name that cannot be a session's title.
    #[error("a session's name cannot be empty")]
    EmptyTitle,
    /// The file is not a session's transcript (the persisted-output index, say).
    #[error("{} is not a session transcript", path.display())]
    NotATranscript {
        /// The file.
        path: PathBuf,
    },
    /// A fork was asked for before a prompt the conversation does not hold (rewound, or never).
    #[error("session {session_id} has no prompt {turn} in its conversation")]
    NoSuchPrompt {
        /// The session.
        session_id: String,
        /// The prompt's number.
        turn: u32,
    },
}

/// An open transcript file, appended to.
#[derive(Debug)]
pub struct Transcript {
    path: PathBuf,
    file: File,
}

impl Transcript {
    /// The transcript path of a session in a project's data folder.
    pub fn path_for(project_data_dir: &Path, session_id: &str) -> PathBuf {
        project_data_dir.join(format!("{}.jsonl", safe_file_stem(session_id)))
    }

    /// Opens (creating if needed) a transcript for appending.
    pub fn open(path: &Path) -> Result<Self, TranscriptError> {
        let err = |source| TranscriptError::Write {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).map_err(err)?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(err)?;
        Ok(Self {
            path: path.to_path_buf(),
            file,
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one entry as one line and flushes it to the OS.
    pub fn append(&mut self, entry: &TranscriptEntry) -> Result<(), TranscriptError> {
        let err = |source| TranscriptError::Write {
            path: self.path.clone(),
            source,
        };
        let mut line = serde_json::to_string(entry).map_err(|e| err(io::Error::other(e)))?;
        line.push('\n');
        self.file.write_all(line.as_bytes()).map_err(err)?;
        self.file.flush().map_err(err)
    }
}

/// Reads a transcript. Damaged lines are skipped with a warning (returned as the second value).
pub fn read_transcript(path: &Path) -> Result<(Vec<TranscriptEntry>, Vec<String>), TranscriptError> {
    let file = File::open(path).map_err(|source| TranscriptError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let mut entries = Vec::new();
    let mut warnings = Vec::new();
    for (n, line) in BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| TranscriptError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(e) => entries.push(e),
            Err(e) => {
                let w = format!(
                    "{}: line {} is damaged and was skipped ({e})",
                    path.display(),
                    n + 1
                );
                tracing::warn!("{w}");
                warnings.push(w);
            }
        }
    }
    Ok((entries, warnings))
}

/// Whether the `.jsonl` file at `path` is a session's transcript: the project's data folder also
/// holds the engine's other logs (the persisted-output index), which are not sessions and must
/// never be resumed (a conversation would be appended to them). A transcript's first line is a
/// transcript entry; a file with no line yet is a session just started.
pub fn is_transcript(path: &Path) -> bool {
    if path
        .file_name()
        .is_some_and(|n| n == crate::budget::ResultStore::INDEX_FILE_NAME)
    {
        return false;
    }
    let Ok(file) = File::open(path) else {
        return false;
    };
    let mut first = String::new();
    for line in BufReader::new(file).lines() {
        match line {
            Ok(line) if line.trim().is_empty() => continue,
            Ok(line) => {
                first = line;
                break;
            }
            Err(_) => return false,
        }
    }
    first.is_empty() || serde_json::from_str::<TranscriptEntry>(&first).is_ok()
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transcripts::list_sessions;

    #[test]
    fn round_trip_and_damaged_last_line() {
        let dir = tempfile::tempdir().unwrap();
        let path = Transcript::path_for(dir.path(), "s1");
        let mut t = Transcript::open(&path).unwrap();
        t.append(&TranscriptEntry::Message {
            message: Message::user_text("hello"),
        })
        .unwrap();
        t.append(&TranscriptEntry::Permission {
            tool_use_id: "t".into(),
            tool_name: "Bash".into(),
            allowed: false,
            decided_by: None,
            reason: "r".into(),
        })
        .unwrap();
        // A crash mid-write leaves half a line.
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(b"{\"type\": \"message\", \"mess").unwrap();
        let (entries, warnings) = read_transcript(&path).unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(warnings.len(), 1);
        let sessions = list_sessions(dir.path()).unwrap();
        assert_eq!(sessions[0].session_id, "s1");
        assert_eq!(sessions[0].title, "hello");
    }

    #[test]
    fn only_transcripts_are_sessions() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Transcript::open(&Transcript::path_for(dir.path(), "s1")).unwrap();
        t.append(&TranscriptEntry::Message {
            message: Message::user_text("hello"),
        })
        .unwrap();
        // The persisted-output index lives beside the transcripts, also as JSON lines.
        let store = crate::budget::ResultStore::new(dir.path(), "s1");
        let saved = store.results_dir().join("out.txt");
        fs::create_dir_all(store.results_dir()).unwrap();
        fs::write(&saved, "big output").unwrap();
        store.index_saved("Bash", "toolu_1", &saved).unwrap();
        // And some other JSON-lines file that is no transcript.
        fs::write(dir.path().join("notes.jsonl"), "{\"kind\": \"note\"}\n").unwrap();

        let ids: Vec<String> = list_sessions(dir.path())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect();
        assert_eq!(ids, vec!["s1".to_string()]);
        assert!(!is_transcript(&crate::budget::ResultStore::index_path(
            dir.path()
        )));
        let fork = fork_session(dir.path(), "tool-results-index").unwrap_err();
        assert!(matches!(fork, TranscriptError::NotATranscript { .. }), "{fork}");
    }
}

/// Forks a session: a new session whose transcript starts as a copy of `from`'s, with a
/// `session_start` entry naming where it came from. Returns the new id.
pub fn fork_session(project_data_dir: &Path, from: &str) -> Result<String, TranscriptError> {
    fork_session_before(project_data_dir, from, None)
}

/// Forks a session as [`fork_session`] does; with `before_turn`, the fork holds the conversation
/// as it was just before that prompt (what a rewind to it would leave, without its record): the
/// place to send an edited prompt from, while the original keeps everything after it.
pub fn fork_session_before(
    project_data_dir: &Path,
    from: &str,
    before_turn: Option<u32>,
) -> Result<String, TranscriptError> {
    let source = Transcript::path_for(project_data_dir, from);
    if source.exists() && !is_transcript(&source) {
        return Err(TranscriptError::NotATranscript { path: source });
    }
    let (entries, _warnings) = read_transcript(&source)?;
    let entries = match before_turn {
        None => entries,
        Some(turn) => {
            let mut live = crate::transcripts::live_entries(entries);
            let Some(at) = live
                .iter()
                .position(|e| matches!(e, TranscriptEntry::TurnStart { turn: t, .. } if *t == turn))
            else {
                return Err(TranscriptError::NoSuchPrompt {
                    session_id: from.to_string(),
                    turn,
                });
            };
            live.truncate(at);
            live
        }
    };
    let id = uuid::Uuid::new_v4().to_string();
    let mut fork = Transcript::open(&Transcript::path_for(project_data_dir, &id))?;
    let (cwd, model) = entries
        .iter()
        .find_map(|e| match e {
            TranscriptEntry::SessionStart { cwd, model, .. } => Some((cwd.clone(), model.clone())),
            _ => None,
        })
        .unwrap_or_default();
    fork.append(&TranscriptEntry::SessionStart {
        session_id: id.clone(),
        cwd,
        model,
        time_ms: now_ms(),
        forked_from: Some(from.to_string()),
    })?;
    for e in entries
        .iter()
        .filter(|e| !matches!(e, TranscriptEntry::SessionStart { .. }))
    {
        fork.append(e)?;
    }
    Ok(id)
}

#[cfg(test)]
mod fork_tests {
    use super::*;
    use crate::transcripts::list_sessions;

    #[test]
    fn a_fork_copies_the_conversation_and_names_its_origin() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Transcript::open(&Transcript::path_for(dir.path(), "orig")).unwrap();
        t.append(&TranscriptEntry::Message {
            message: Message::user_text("hello"),
        })
        .unwrap();
        let id = fork_session(dir.path(), "orig").unwrap();
        let (entries, _) = read_transcript(&Transcript::path_for(dir.path(), &id)).unwrap();
        assert!(
            matches!(&entries[0], TranscriptEntry::SessionStart { forked_from: Some(f), .. } if f == "orig")
        );
        assert!(matches!(&entries[1], TranscriptEntry::Message { .. }));
        assert_eq!(list_sessions(dir.path()).unwrap().len(), 2);
    }

    #[test]
    fn a_fork_before_a_prompt_holds_the_conversation_as_it_was_before_it() {
        let dir = tempfile::tempdir().unwrap();
        let mut t = Transcript::open(&Transcript::path_for(dir.path(), "orig")).unwrap();
        let prompt = |turn: u32, text: &str| {
            [
                TranscriptEntry::TurnStart { turn, time_ms: 1 },
                TranscriptEntry::Message {
                    message: Message::user_text(text),
                },
            ]
        };
        for (turn, text) in [(1, "one"), (2, "two"), (3, "three")] {
            for e in prompt(turn, text) {
                t.append(&e).unwrap();
            }
        }
        let fork = fork_session_before(dir.path(), "orig", Some(2)).unwrap();
        let (entries, _) = read_transcript(&Transcript::path_for(dir.path(), &fork)).unwrap();
        assert!(
            matches!(&entries[0], TranscriptEntry::SessionStart { forked_from: Some(f), .. } if f == "orig")
        );
        assert_eq!(entries[1..].to_vec(), prompt(1, "one").to_vec());
        // The original keeps everything.
        let (all, _) = read_transcript(&Transcript::path_for(dir.path(), "orig")).unwrap();
        assert_eq!(all.len(), 6);
        // A prompt the conversation does not hold is refused, naming it.
        let missing = fork_session_before(dir.path(), "orig", Some(9)).unwrap_err();
        assert_eq!(
            missing.to_string(),
            "session orig has no prompt 9 in its conversation"
        );
    }
}
