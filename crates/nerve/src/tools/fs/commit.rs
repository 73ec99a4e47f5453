//! The last step of a file change: the bytes go to disk, through the session's editor when it has
//! one that writes (so its buffers, its review of the agent's edits and its undo follow), and the
//! session then knows the file as it now is.
//!
//! An editor holding unsaved changes to the file refuses the change: writing through it would
//! replace the user's work with a change computed from the saved file, and writing past it would
//! leave the editor with a buffer that no longer matches the disk.

use std::path::Path;

use crate::tool::editor::same_text;
use crate::tool::{ToolError, ToolUseContext};
use crate::tools::fs::{TextFile, record_known_content, write_atomic};

/// What the model reads when the editor holds unsaved changes to `path`.
pub fn unsaved_message(path: &Path) -> String {
    format!(
        "{} has unsaved changes in the editor, which this change would overwrite. Nothing was written. Ask the user to save or revert them, then Read the file again and retry.",
        path.display()
    )
}

/// Whether the session's editor holds text for `path` other than `disk` (the file's saved bytes).
/// An editor that cannot say (it offered no reads, the read failed) counts as holding none.
pub async fn editor_has_unsaved(ctx: &ToolUseContext, path: &Path, disk: &[u8]) -> bool {
    let Some(editor) = ctx.config.editor.as_ref().filter(|e| e.can_read()) else {
        return false;
    };
    let Ok(disk) = TextFile::decode(disk) else {
        // Not text: the editor holds no buffer of it worth comparing.
        return false;
    };
    match editor.read_text(path).await {
        Ok(buffer) => !same_text(&buffer, &disk.text),
        Err(e) => {
            tracing::debug!(error = %e, "the editor could not say what it holds");
            false
        }
    }
}

/// Writes `new_bytes` to `path`, whose content was `original` (`None`: a new file) when the change
/// was computed, and records them as what the model knows of it.
pub async fn commit_change(
    ctx: &ToolUseContext,
    path: &Path,
    original: Option<&[u8]>,
    new_bytes: &[u8],
) -> Result<(), ToolError> {
    if let Some(original) = original
        && editor_has_unsaved(ctx, path, original).await
    {
        return Err(ToolError::InvalidInput(unsaved_message(path)));
    }
    if let Some(saved) = write_through_editor(ctx, path, new_bytes).await {
        record_known_content(ctx, path, &saved);
        return Ok(());
    }
    let (target, bytes) = (path.to_path_buf(), new_bytes.to_vec());
    tokio::task::spawn_blocking(move || write_atomic(&target, &bytes))
        .await
        .map_err(|e| ToolError::Failed(format!("the write stopped unexpectedly: {e}")))?
        .map_err(|e| ToolError::io(format!("writing {}", path.display()), e))?;
    record_known_content(ctx, path, new_bytes);
    Ok(())
}

/// Has the editor write the change and save it. `Some(bytes)`: the file on disk now holds the new
/// text (in the editor's line endings, perhaps), as these bytes. `None`: the session has no
/// writing editor, the change is not UTF-8 text, or the editor failed or did not save; the caller
/// writes the disk itself (the editor then reloads the file as it does for any outside change).
async fn write_through_editor(ctx: &ToolUseContext, path: &Path, new_bytes: &[u8]) -> Option<Vec<u8>> {
    let editor = ctx.config.editor.as_ref().filter(|e| e.can_write())?;
    let text = std::str::from_utf8(new_bytes).ok()?;
    if let Some(parent) = path.parent()
        && let Err(e) = tokio::fs::create_dir_all(parent).await
    {
        tracing::debug!(error = %e, "the new file's folder could not be made");
        return None;
    }
    if let Err(e) = editor.write_text(path, text).await {
        tracing::warn!(error = %e, "the editor did not take a change; it is written to disk directly");
        return None;
    }
    let saved = tokio::fs::read(path).await.ok()?;
    let holds_it =
        saved == new_bytes || TextFile::decode(&saved).is_ok_and(|file| same_text(&file.text, text));
    if holds_it {
        Some(saved)
    } else {
        tracing::warn!("the editor took a change without saving it; it is written to disk directly");
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use async_trait::async_trait;
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::tool::editor::{Editor, EditorError, TerminalCommand, TerminalRun};

    /// How the test editor behaves when asked to write.
    #[derive(Debug, Clone, Copy, PartialEq)]
    enum OnWrite {
        /// Takes the text and saves it with CRLF line endings (its own choice).
        SaveWithCrlf,
        /// Takes the text into its buffer and does not save.
        KeepUnsaved,
        /// Refuses.
        Refuse,
    }

    #[derive(Debug)]
    struct TestEditor {
        on_write: OnWrite,
        /// What the buffers hold, by path (a path without one reads from disk).
        buffers: Mutex<Vec<(PathBuf, String)>>,
        writes: Mutex<Vec<(PathBuf, String)>>,
        reads_fail: bool,
    }

    impl TestEditor {
        fn new(on_write: OnWrite) -> Self {
            Self {
                on_write,
                buffers: Mutex::default(),
                writes: Mutex::default(),
                reads_fail: false,
            }
        }
    }

    #[async_trait]
    impl Editor for TestEditor {
        fn can_read(&self) -> bool {
            true
        }
        fn can_write(&self) -> bool {
            true
        }
        fn can_run_commands(&self) -> bool {
            false
        }
        async fn read_text(&self, path: &Path) -> Result<String, EditorError> {
            let failed = |message: &str| EditorError {
                action: "read",
                path: path.display().to_string(),
                message: message.into(),
            };
            if self.reads_fail {
                return Err(failed("no buffer"));
            }
            let buffers = self.buffers.lock().unwrap();
            match buffers.iter().find(|(p, _)| p == path) {
                Some((_, text)) => Ok(text.clone()),
                None => std::fs::read_to_string(path).map_err(|e| failed(&e.to_string())),
            }
        }
        async fn write_text(&self, path: &Path, text: &str) -> Result<(), EditorError> {
            self.writes
                .lock()
                .unwrap()
                .push((path.to_path_buf(), text.to_string()));
            match self.on_write {
                OnWrite::SaveWithCrlf => {
                    std::fs::write(path, text.replace('\n', "\r\n")).unwrap();
                    Ok(())
                }
                OnWrite::KeepUnsaved => {
                    self.buffers
                        .lock()
                        .unwrap()
                        .push((path.to_path_buf(), text.to_string()));
                    Ok(())
                }
                OnWrite::Refuse => Err(EditorError {
                    action: "write",
                    path: path.display().to_string(),
                    message: "read-only buffer".into(),
                }),
            }
        }
        async fn run_in_terminal(
            &self,
            _tool_use_id: &str,
            _command: TerminalCommand,
            _stop: CancellationToken,
        ) -> Result<TerminalRun, EditorError> {
            unreachable!("the file tools run no commands")
        }
    }

    fn context(dir: &Path, editor: &Arc<TestEditor>) -> ToolUseContext {
        let mut ctx = ToolUseContext::for_tests(dir.to_path_buf());
        Arc::make_mut(&mut ctx.config).editor = Some(Arc::clone(editor) as Arc<dyn Editor>);
        ctx
    }

    #[tokio::test]
    async fn a_new_file_goes_through_the_editor_and_what_it_saved_is_what_the_session_knows() {
        let dir = tempfile::tempdir().unwrap();
        let editor = Arc::new(TestEditor::new(OnWrite::SaveWithCrlf));
        let ctx = context(dir.path(), &editor);
        let path = dir.path().join("new/folder/a.txt");
        commit_change(&ctx, &path, None, b"one\ntwo\n").await.unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"one\r\ntwo\r\n");
        assert_eq!(
            *editor.writes.lock().unwrap(),
            vec![(path.clone(), "one\ntwo\n".to_string())]
        );
        // The editor's line endings are the file's now, and an edit of it is not stale.
        assert!(crate::tools::fs::check_fresh(&ctx, &path).unwrap().is_some());
    }

    #[tokio::test]
    async fn an_editor_that_does_not_save_or_refuses_leaves_the_write_to_the_disk() {
        for on_write in [OnWrite::KeepUnsaved, OnWrite::Refuse] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("a.txt");
            std::fs::write(&path, "old\n").unwrap();
            let editor = Arc::new(TestEditor::new(on_write));
            let ctx = context(dir.path(), &editor);
            commit_change(&ctx, &path, Some(b"old\n"), b"new\n")
                .await
                .unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n", "{on_write:?}");
            assert_eq!(editor.writes.lock().unwrap().len(), 1);
            assert!(crate::tools::fs::check_fresh(&ctx, &path).unwrap().is_some());
        }
    }

    #[tokio::test]
    async fn unsaved_text_in_the_editor_refuses_the_change_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "saved\n").unwrap();
        let editor = Arc::new(TestEditor::new(OnWrite::SaveWithCrlf));
        editor
            .buffers
            .lock()
            .unwrap()
            .push((path.clone(), "saved\nand typed\n".into()));
        let ctx = context(dir.path(), &editor);
        let refused = commit_change(&ctx, &path, Some(b"saved\n"), b"changed\n").await;
        assert_eq!(
            refused.unwrap_err().to_string(),
            ToolError::InvalidInput(unsaved_message(&path)).to_string()
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "saved\n");
        assert!(editor.writes.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_buffer_that_differs_only_in_line_endings_or_an_editor_that_cannot_say_is_no_objection() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "one\r\ntwo\r\n").unwrap();
        let mut editor = TestEditor::new(OnWrite::SaveWithCrlf);
        editor
            .buffers
            .lock()
            .unwrap()
            .push((path.clone(), "one\ntwo\n".into()));
        let ctx = context(dir.path(), &Arc::new(editor));
        assert!(!editor_has_unsaved(&ctx, &path, b"one\r\ntwo\r\n").await);
        editor = TestEditor::new(OnWrite::SaveWithCrlf);
        editor.reads_fail = true;
        let ctx = context(dir.path(), &Arc::new(editor));
        assert!(!editor_has_unsaved(&ctx, &path, b"one\r\ntwo\r\n").await);
    }
}
