//! A project's sessions as lists show them: title, time, cost, prompts (for search). Listing must
//! stay quick for hundreds of long sessions, so each session keeps a small summary beside its
//! transcript (`<data>/<session>/summary.json`) that records how far into the transcript it has
//! read. Listing reads only what was appended since (nothing, for a finished session) and parses
//! only the few kinds of lines a summary needs; tool calls and their results are skipped unparsed.
//! The summary is a cache: the transcript stays the only truth (a rename is a transcript entry),
//! and a summary that is missing, damaged, of another version or ahead of its transcript is
//! rebuilt from the transcript.

pub use nerve_protocol::transcripts::{DeletedSession, TranscriptSummary};

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use serde::{Deserialize, Serialize};

use crate::budget::ResultStore;
use crate::model::types::{ContentBlock, Message, Role, Usage};
use crate::storage::safe_file_stem;

use super::transcript::{Transcript, TranscriptEntry, TranscriptError, is_transcript, now_ms};

/// Longest title kept (characters).
const TITLE_CHARS: usize = 80;
/// Longest prompt kept for search (characters).
const PROMPT_CHARS: usize = 400;
/// Most prompts kept for search per session (the first ones).
const MAX_PROMPTS: usize = 500;
/// Longest name a user may give a session (characters).
const NAME_CHARS: usize = 200;
/// Bumped when the summary's shape or meaning changes; older summaries are rebuilt.
const SUMMARY_VERSION: u32 = 1;

/// What a summary has folded from its transcript so far.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
struct Fold {
    first_prompt: Option<String>,
    name: Option<String>,
    prompts: Vec<String>,
    prompt_count: u32,
    cost_usd: Option<f64>,
    /// A response from a model without a price was seen: the cost stays unknown.
    cost_unknown: bool,
    created_ms: u64,
    forked_from: Option<String>,
    /// A `turn_start` was read and its prompt's message is the next message line.
    awaiting_prompt: bool,
}

/// The cached summary: the fold and how many bytes of the transcript it covers.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Summary {
    version: u32,
    scanned_bytes: u64,
    fold: Fold,
}

impl Fold {
    fn add_line(&mut self, line: &str) {
        // Entries are written with their tag first (`{"type":"message",...`): decide from the
        // tag whether the line is worth parsing at all.
        let Some(tag) = line
            .strip_prefix("{\"type\":\"")
            .and_then(|rest| rest.split('"').next())
        else {
            return;
        };
        let wanted = match tag {
            "message" => self.awaiting_prompt || self.first_prompt.is_none(),
            "turn_start" | "usage" | "title" | "session_start" => true,
            _ => false,
        };
        if !wanted {
            return;
        }
        let Ok(entry) = serde_json::from_str::<TranscriptEntry>(line) else {
            return; // a damaged line (a crash mid-write): reading the transcript skips it too
        };
        match entry {
            TranscriptEntry::SessionStart {
                time_ms, forked_from, ..
            } => {
                if self.created_ms == 0 {
                    self.created_ms = time_ms;
                }
                if forked_from.is_some() {
                    self.forked_from = forked_from;
                }
            }
            TranscriptEntry::TurnStart { time_ms, .. } => {
                self.awaiting_prompt = true;
                if self.created_ms == 0 {
                    self.created_ms = time_ms;
                }
            }
            TranscriptEntry::Message { message } => self.add_message(&message),
            TranscriptEntry::Usage { model, usage } => self.add_usage(&model, &usage),
            TranscriptEntry::Title { title, .. } => self.name = Some(title),
            _ => {}
        }
    }

    fn add_message(&mut self, message: &Message) {
        if message.role != Role::User {
            return;
        }
        let Some(text) = message.content.iter().find_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        }) else {
            return;
        };
        // A transcript written before prompts were numbered has no `turn_start`: its first user
        // text is its first prompt.
        if !self.awaiting_prompt && self.first_prompt.is_some() {
            return;
        }
        self.awaiting_prompt = false;
        if self.first_prompt.is_none() {
            self.first_prompt = Some(shorten(text, TITLE_CHARS));
        }
        self.prompt_count += 1;
        if self.prompts.len() < MAX_PROMPTS {
            self.prompts.push(shorten(text, PROMPT_CHARS));
        }
    }

    fn add_usage(&mut self, model: &str, usage: &Usage) {
        match crate::model::usage::cost_usd(model, usage) {
            Some(cost) if !self.cost_unknown => {
                self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + cost);
            }
            _ => {
                self.cost_unknown = true;
                self.cost_usd = None;
            }
        }
    }

    fn title(&self) -> String {
        self.name
            .clone()
            .or_else(|| self.first_prompt.clone())
            .unwrap_or_default()
    }
}

/// `text` on one line, at most `max` characters (an ellipsis marks a cut).
fn shorten(text: &str, max: usize) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() <= max {
        return one_line;
    }
    let mut cut: String = one_line.chars().take(max.saturating_sub(1)).collect();
    cut.push('…');
    cut
}

/// The folder a session keeps its own files in (checkpoints, persisted outputs, its summary).
fn session_dir(project_data_dir: &Path, session_id: &str) -> PathBuf {
    project_data_dir.join(safe_file_stem(session_id))
}

fn summary_path(project_data_dir: &Path, session_id: &str) -> PathBuf {
    session_dir(project_data_dir, session_id).join("summary.json")
}

/// The session's summary, brought up to date with its transcript (only new lines are read).
fn summarize(project_data_dir: &Path, session_id: &str, transcript: &Path) -> io::Result<Fold> {
    let cache = summary_path(project_data_dir, session_id);
    let len = fs::metadata(transcript)?.len();
    let mut summary = fs::read(&cache)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Summary>(&bytes).ok())
        .filter(|s| s.version == SUMMARY_VERSION && s.scanned_bytes <= len)
        .unwrap_or(Summary {
            version: SUMMARY_VERSION,
            ..Summary::default()
        });
    if summary.scanned_bytes == len {
        return Ok(summary.fold);
    }
    let mut file = File::open(transcript)?;
    file.seek(SeekFrom::Start(summary.scanned_bytes))?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        // Only whole lines count: a line being written now is read next time.
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        summary.scanned_bytes += n as u64;
        if let Ok(text) = std::str::from_utf8(&line) {
            summary.fold.add_line(text.trim_end());
        }
    }
    if let Err(e) = write_summary(&cache, &summary) {
        // A read-only data folder: listing still works, only slower next time.
        tracing::debug!(path = %cache.display(), error = %e, "could not save a session summary");
    }
    Ok(summary.fold)
}

fn write_summary(path: &Path, summary: &Summary) -> io::Result<()> {
    crate::files::write_atomic(path, &serde_json::to_vec(summary).map_err(io::Error::other)?)
}

fn info(id: String, path: PathBuf, modified_ms: u64, fold: &Fold) -> TranscriptSummary {
    TranscriptSummary {
        session_id: id,
        path,
        modified_ms,
        created_ms: fold.created_ms,
        title: fold.title(),
        named: fold.name.is_some(),
        prompts: fold.prompt_count,
        cost_usd: fold.cost_usd,
        forked_from: fold.forked_from.clone(),
        matched_prompt: None,
    }
}

/// A project's sessions, newest first, each with what its summary says (see the module's note).
pub fn list_sessions(project_data_dir: &Path) -> Result<Vec<TranscriptSummary>, TranscriptError> {
    Ok(sessions_with_folds(project_data_dir)?
        .into_iter()
        .map(|(info, _)| info)
        .collect())
}

/// The project's sessions whose title or one of whose prompts contains `query` (any case), newest
/// first. A blank query lists them all.
pub fn search_sessions(
    project_data_dir: &Path,
    query: &str,
) -> Result<Vec<TranscriptSummary>, TranscriptError> {
    let needle = query.trim().to_lowercase();
    let all = sessions_with_folds(project_data_dir)?;
    if needle.is_empty() {
        return Ok(all.into_iter().map(|(info, _)| info).collect());
    }
    Ok(all
        .into_iter()
        .filter_map(|(mut info, fold)| {
            if info.title.to_lowercase().contains(&needle) {
                return Some(info);
            }
            let prompt = fold
                .prompts
                .into_iter()
                .find(|p| p.to_lowercase().contains(&needle))?;
            info.matched_prompt = Some(prompt);
            Some(info)
        })
        .collect())
}

fn sessions_with_folds(project_data_dir: &Path) -> Result<Vec<(TranscriptSummary, Fold)>, TranscriptError> {
    let rd = match fs::read_dir(project_data_dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(TranscriptError::Read {
                path: project_data_dir.to_path_buf(),
                source,
            });
        }
    };
    let mut out = Vec::new();
    for entry in rd.flatten() {
        let path = entry.path();
        if path.extension().is_none_or(|e| e != "jsonl") || !is_transcript(&path) {
            continue;
        }
        let Some(id) = path.file_stem().map(|s| s.to_string_lossy().to_string()) else {
            continue;
        };
        let modified_ms = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_millis() as u64);
        // A transcript that cannot be read now (removed while listing) is left out, not fatal.
        let Ok(fold) = summarize(project_data_dir, &id, &path) else {
            continue;
        };
        out.push((info(id, path, modified_ms, &fold), fold));
    }
    out.sort_by_key(|(s, _)| std::cmp::Reverse(s.modified_ms));
    Ok(out)
}

/// The session's title as lists show it (its name, or the start of its first prompt).
pub fn session_title(project_data_dir: &Path, session_id: &str) -> String {
    let transcript = Transcript::path_for(project_data_dir, session_id);
    summarize(project_data_dir, session_id, &transcript)
        .map(|f| f.title())
        .unwrap_or_default()
}

/// The transcript of an existing session, or why there is none.
pub(crate) fn existing_transcript(
    project_data_dir: &Path,
    session_id: &str,
) -> Result<PathBuf, TranscriptError> {
    let path = Transcript::path_for(project_data_dir, session_id);
    if !path.is_file() {
        return Err(TranscriptError::NoSession {
            id: session_id.to_string(),
        });
    }
    if !is_transcript(&path) {
        return Err(TranscriptError::NotATranscript { path });
    }
    Ok(path)
}

/// Names a session: the name is appended to its transcript (one line, at most 200 characters) and
/// lists show it from then on. Returns the name as kept.
pub fn rename_session(
    project_data_dir: &Path,
    session_id: &str,
    title: &str,
) -> Result<String, TranscriptError> {
    let title = shorten(title, NAME_CHARS);
    if title.is_empty() {
        return Err(TranscriptError::EmptyTitle);
    }
    let path = existing_transcript(project_data_dir, session_id)?;
    Transcript::open(&path)?.append(&TranscriptEntry::Title {
        title: title.clone(),
        time_ms: now_ms(),
    })?;
    Ok(title)
}

/// Deletes a session for good: its transcript, its folder (checkpoints, persisted outputs, its
/// summary) and its lines in the persisted-outputs index. The caller makes sure it is not open.
pub fn delete_session(project_data_dir: &Path, session_id: &str) -> Result<DeletedSession, TranscriptError> {
    let transcript = existing_transcript(project_data_dir, session_id)?;
    let folder = session_dir(project_data_dir, session_id);
    let index_error = |source| TranscriptError::Delete {
        path: ResultStore::index_path(project_data_dir),
        source,
    };
    // Outputs indexed for the session (they live in its folder, which goes below).
    let outputs = ResultStore::list(project_data_dir)
        .map_err(index_error)?
        .iter()
        .filter(|e| e.session_id == session_id)
        .count();
    if outputs > 0 {
        ResultStore::forget(project_data_dir, |e| e.session_id == session_id).map_err(index_error)?;
    }
    let bytes = disk_size(&transcript) + disk_size(&folder);
    match fs::remove_dir_all(&folder) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(source) => return Err(TranscriptError::Delete { path: folder, source }),
    }
    fs::remove_file(&transcript).map_err(|source| TranscriptError::Delete {
        path: transcript.clone(),
        source,
    })?;
    Ok(DeletedSession {
        bytes,
        outputs,
        kept_branch: None,
    })
}

/// Bytes a file or folder takes (its files' lengths; symlinks are not followed).
fn disk_size(path: &Path) -> u64 {
    let Ok(meta) = fs::symlink_metadata(path) else {
        return 0;
    };
    if !meta.is_dir() {
        return meta.len();
    }
    fs::read_dir(path)
        .map(|rd| rd.flatten().map(|e| disk_size(&e.path())).sum())
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::Message;
    use pretty_assertions::assert_eq;

    fn write(dir: &Path, id: &str, entries: &[TranscriptEntry]) {
        let mut t = Transcript::open(&Transcript::path_for(dir, id)).unwrap();
        for e in entries {
            t.append(e).unwrap();
        }
    }

    fn prompt(turn: u32, text: &str) -> [TranscriptEntry; 2] {
        [
            TranscriptEntry::TurnStart {
                turn,
                time_ms: 1_000 * u64::from(turn),
            },
            TranscriptEntry::Message {
                message: Message::user_text(text),
            },
        ]
    }

    fn usage(model: &str, input: u64) -> TranscriptEntry {
        TranscriptEntry::Usage {
            model: model.into(),
            usage: Usage {
                input_tokens: input,
                ..Usage::default()
            },
        }
    }

    #[test]
    fn a_summary_has_title_prompts_cost_and_origin_and_follows_appends() {
        let dir = tempfile::tempdir().unwrap();
        let mut entries = vec![TranscriptEntry::SessionStart {
            session_id: "s1".into(),
            cwd: "/p".into(),
            model: "claude-sonnet-4-5".into(),
            time_ms: 500,
            forked_from: Some("s0".into()),
        }];
        entries.extend(prompt(1, "Fix   the\nflaky test"));
        entries.push(usage("claude-sonnet-4-5", 1_000_000));
        write(dir.path(), "s1", &entries);

        let listed = list_sessions(dir.path()).unwrap();
        let path = Transcript::path_for(dir.path(), "s1");
        let modified_ms = listed[0].modified_ms;
        assert_eq!(
            listed,
            vec![TranscriptSummary {
                session_id: "s1".into(),
                path,
                modified_ms,
                created_ms: 500,
                title: "Fix the flaky test".into(),
                named: false,
                prompts: 1,
                cost_usd: Some(3.0),
                forked_from: Some("s0".into()),
                matched_prompt: None,
            }]
        );
        assert!(summary_path(dir.path(), "s1").is_file());

        // Appending goes on from where the summary stopped.
        let mut more = prompt(2, "Now the docs").to_vec();
        more.push(usage("claude-sonnet-4-5", 1_000_000));
        more.push(TranscriptEntry::Title {
            title: "old name".into(),
            time_ms: 3,
        });
        write(dir.path(), "s1", &more);
        rename_session(dir.path(), "s1", "  Flaky\ttest hunt ").unwrap();
        let s = &list_sessions(dir.path()).unwrap()[0];
        assert_eq!(
            (s.title.as_str(), s.named, s.prompts, s.cost_usd),
            ("Flaky test hunt", true, 2, Some(6.0))
        );

        // A model without a price makes the cost unknown rather than too low.
        write(dir.path(), "s1", &[usage("some-local-model", 10)]);
        assert_eq!(list_sessions(dir.path()).unwrap()[0].cost_usd, None);
    }

    #[test]
    fn a_stale_damaged_or_foreign_summary_is_rebuilt_and_a_half_written_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "s1", &prompt(1, "first"));
        let cache = summary_path(dir.path(), "s1");
        for bad in [
            "not json".to_string(),
            // Claims more than the transcript holds (the transcript was replaced).
            serde_json::json!({"version": SUMMARY_VERSION, "scanned_bytes": 1_000_000, "fold": Fold::default()}).to_string(),
            serde_json::json!({"version": 0, "scanned_bytes": 0, "fold": {"first_prompt": "stale"}}).to_string(),
        ] {
            fs::create_dir_all(cache.parent().unwrap()).unwrap();
            fs::write(&cache, bad).unwrap();
            assert_eq!(list_sessions(dir.path()).unwrap()[0].title, "first");
        }
        // A crash mid-write leaves half a line: it is not counted until it is whole.
        let path = Transcript::path_for(dir.path(), "s1");
        let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
        std::io::Write::write_all(&mut f, b"{\"type\":\"turn_start\",\"tu").unwrap();
        assert_eq!(list_sessions(dir.path()).unwrap()[0].prompts, 1);
        std::io::Write::write_all(&mut f, b"rn\":2,\"time_ms\":9}\n").unwrap();
        write(
            dir.path(),
            "s1",
            &[TranscriptEntry::Message {
                message: Message::user_text("second"),
            }],
        );
        assert_eq!(list_sessions(dir.path()).unwrap()[0].prompts, 2);
    }

    #[test]
    fn an_old_transcript_without_turn_numbers_takes_its_first_user_text_as_title() {
        let dir = tempfile::tempdir().unwrap();
        write(
            dir.path(),
            "old",
            &[
                TranscriptEntry::Message {
                    message: Message::user_text("hello there"),
                },
                TranscriptEntry::Message {
                    message: Message::user_text("not a prompt: no turn_start"),
                },
            ],
        );
        let s = &list_sessions(dir.path()).unwrap()[0];
        assert_eq!((s.title.as_str(), s.prompts), ("hello there", 1));
    }

    #[test]
    fn search_finds_titles_and_prompts_in_any_case() {
        let dir = tempfile::tempdir().unwrap();
        let mut a = prompt(1, "Fix the parser").to_vec();
        a.extend(prompt(2, "Then bump the VERSION in Cargo.toml"));
        write(dir.path(), "a", &a);
        write(dir.path(), "b", &prompt(1, "Write the docs"));
        let ids = |q: &str| -> Vec<(String, Option<String>)> {
            search_sessions(dir.path(), q)
                .unwrap()
                .into_iter()
                .map(|s| (s.session_id, s.matched_prompt))
                .collect()
        };
        assert_eq!(ids("PARSER"), vec![("a".to_string(), None)]);
        assert_eq!(
            ids("version in"),
            vec![(
                "a".to_string(),
                Some("Then bump the VERSION in Cargo.toml".to_string())
            )]
        );
        assert_eq!(ids("nothing like this"), vec![]);
        assert_eq!(ids("  ").len(), 2);
    }

    #[test]
    fn rename_refuses_blank_names_and_unknown_sessions() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "s", &prompt(1, "x"));
        assert!(matches!(
            rename_session(dir.path(), "s", " \n "),
            Err(TranscriptError::EmptyTitle)
        ));
        assert!(matches!(
            rename_session(dir.path(), "nope", "name"),
            Err(TranscriptError::NoSession { .. })
        ));
        assert!(
            !Transcript::path_for(dir.path(), "nope").exists(),
            "no transcript is made up"
        );
        let long = "n".repeat(500);
        assert_eq!(
            rename_session(dir.path(), "s", &long).unwrap().chars().count(),
            NAME_CHARS
        );
    }

    #[test]
    fn delete_removes_the_transcript_its_folder_and_its_outputs_and_says_how_much() {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "gone", &prompt(1, "x"));
        write(dir.path(), "kept", &prompt(1, "y"));
        for session in ["gone", "kept"] {
            let store = ResultStore::new(dir.path(), session);
            fs::create_dir_all(store.results_dir()).unwrap();
            let saved = store.results_dir().join("out.txt");
            fs::write(&saved, vec![b'x'; 10_000]).unwrap();
            store
                .index_saved("Bash", &format!("toolu_{session}"), &saved)
                .unwrap();
        }
        list_sessions(dir.path()).unwrap(); // writes the summaries
        let transcript_len = fs::metadata(Transcript::path_for(dir.path(), "gone"))
            .unwrap()
            .len();

        let deleted = delete_session(dir.path(), "gone").unwrap();
        assert_eq!(deleted.outputs, 1);
        assert!(deleted.bytes >= 10_000 + transcript_len, "{deleted:?}");
        assert!(!Transcript::path_for(dir.path(), "gone").exists());
        assert!(!session_dir(dir.path(), "gone").exists());
        let left: Vec<String> = ResultStore::list(dir.path())
            .unwrap()
            .into_iter()
            .map(|e| e.session_id)
            .collect();
        assert_eq!(left, vec!["kept".to_string()]);
        let ids: Vec<String> = list_sessions(dir.path())
            .unwrap()
            .into_iter()
            .map(|s| s.session_id)
            .collect();
        assert_eq!(ids, vec!["kept".to_string()]);
        assert!(matches!(
            delete_session(dir.path(), "gone"),
            Err(TranscriptError::NoSession { .. })
        ));
        assert!(matches!(
            delete_session(dir.path(), "tool-results-index"),
            Err(TranscriptError::NotATranscript { .. })
        ));
    }
}
