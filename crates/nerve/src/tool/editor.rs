//! The editor a session runs inside, when a front-end has one (an ACP client such as Zed).
//!
//! - **Files.** The file tools tell it about every change they make, so its open buffers, its
//!   review of the agent's edits and its undo follow, and ask it what it holds, so the user's
//!   unsaved work is never read past or written over. The disk stays the truth the session works
//!   on: staleness checks, checkpoints, Grep and Bash all see the saved files; the editor is
//!   consulted beside it, never instead of it.
//! - **Terminals.** A foreground Bash command runs in a terminal of the editor's, shown live in the
//!   call's card, as the same command line the engine would have run itself (through the sandbox
//!   helper, so the sandbox holds); the engine still decides the timeout and reads the output.

use std::path::{Path, PathBuf};

use tokio_util::sync::CancellationToken;

use async_trait::async_trait;

/// Why the editor could not read or write a file.
#[derive(Debug, Clone, thiserror::Error)]
#[error("the editor could not {action} {path}: {message}")]
pub struct EditorError {
    /// "read" or "write".
    pub action: &'static str,
    /// The file, as given.
    pub path: String,
    /// The editor's own words.
    pub message: String,
}

/// A command for one of the editor's terminals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalCommand {
    /// The program.
    pub program: PathBuf,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables set on top of the editor's environment.
    pub env: Vec<(String, String)>,
    /// The folder it starts in.
    pub cwd: PathBuf,
    /// Most bytes of output the editor keeps (the start goes first).
    pub output_byte_limit: u64,
}

/// How a command in an editor's terminal ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TerminalEnd {
    /// It exited with this code.
    Exited(u32),
    /// A signal ended it (its name, as the editor gives it: `SIGKILL`).
    Signalled(String),
    /// `stop` fired first (a timeout, an abort); the terminal was killed.
    Stopped,
}

/// What a command in an editor's terminal did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TerminalRun {
    /// Its output as the terminal holds it (stdout and stderr together).
    pub output: String,
    /// Whether the editor dropped the start of the output to keep within the limit.
    pub truncated: bool,
    /// How it ended.
    pub end: TerminalEnd,
}

/// What the session may use of the editor it runs inside.
#[async_trait]
pub trait Editor: Send + Sync + std::fmt::Debug {
    /// Whether [`Self::run_in_terminal`] may be called (the client offered terminals).
    fn can_run_commands(&self) -> bool;
    /// Whether [`Self::read_text`] may be called (the client offered it).
    fn can_read(&self) -> bool;
    /// Whether [`Self::write_text`] may be called (the client offered it).
    fn can_write(&self) -> bool;
    /// The text the editor holds for `path`: its buffer, saved or not (the file on disk when it
    /// has no buffer open).
    async fn read_text(&self, path: &Path) -> Result<String, EditorError>;
    /// Has the editor replace the file's text with `text` (through its buffer, which it saves).
    async fn write_text(&self, path: &Path, text: &str) -> Result<(), EditorError>;
    /// Runs `command` in a new terminal of the editor's, shown in the card of the tool call
    /// `tool_use_id`, until it exits or `stop` fires (then the terminal is killed); the terminal is
    /// released either way.
    async fn run_in_terminal(
        &self,
        tool_use_id: &str,
        command: TerminalCommand,
        stop: CancellationToken,
    ) -> Result<TerminalRun, EditorError>;
}

/// Whether the editor's `buffer` holds the same text as the file's saved `disk` text. Editors keep
/// a buffer's line endings and byte-order mark apart from its text, so those do not count.
pub fn same_text(buffer: &str, disk: &str) -> bool {
    fn plain(s: &str) -> std::borrow::Cow<'_, str> {
        let s = s.strip_prefix('\u{feff}').unwrap_or(s);
        if s.contains('\r') {
            std::borrow::Cow::Owned(s.replace("\r\n", "\n"))
        } else {
            std::borrow::Cow::Borrowed(s)
        }
    }
    plain(buffer) == plain(disk)
}

#[cfg(test)]
mod tests {
    use super::same_text;

    #[test]
    fn line_endings_and_a_byte_order_mark_are_not_differences() {
        assert!(same_text("a\nb\n", "\u{feff}a\r\nb\r\n"));
        assert!(same_text("", ""));
        assert!(!same_text("a\nb\n", "a\nb"));
        assert!(!same_text("a\nc\n", "a\r\nb\r\n"));
    }
}
