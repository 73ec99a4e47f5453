//! The user's terminals: the user's own shell in a real PTY, in a session's folder (or its worktree).
//! Deliberately outside the engine: it is never sandboxed, no rule or hook sees it, and the model
//! never reads it; only a selection the user sends to the prompt reaches the conversation.
//!
//! Each terminal belongs to a session (its tabs survive switching sessions in the window) and ends
//! with it, or when the app quits.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use portable_pty::{ChildKiller, CommandBuilder, MasterPty, PtySize, native_pty_system};
use serde::Serialize;
use tauri::State;
use tauri::ipc::Channel;
use ts_rs::TS;

use crate::commands::Shell;
use crate::error::ShellError;

/// Bytes read from the PTY at a time (xterm.js takes large writes well; fewer IPC messages).
const READ_CHUNK: usize = 16 * 1024;

/// What a terminal sends the window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum TerminalEvent {
    /// Text the shell wrote.
    Output {
        /// Text the shell wrote (UTF-8; a character split across reads arrives whole in the next one).
        data: String,
    },
    /// The shell exited.
    Exit {
        /// The shell's exit code, when it exited with one.
        code: Option<i32>,
    },
}

/// An open terminal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct TerminalInfo {
    /// Its id (for writes, resizes and closing).
    pub id: String,
    /// The shell it runs.
    pub shell: String,
    /// The folder it started in: the session's folder, or its worktree.
    pub cwd: String,
}

struct Terminal {
    session_id: String,
    master: Box<dyn MasterPty + Send>,
    writer: Box<dyn Write + Send>,
    killer: Box<dyn ChildKiller + Send + Sync>,
}

impl Drop for Terminal {
    fn drop(&mut self) {
        // Closing the tab (or the session, or the app) ends the shell; its reader then sees EOF.
        let _ = self.killer.kill();
    }
}

/// The app's open terminals by id.
#[derive(Default)]
pub struct Terminals {
    open: Mutex<HashMap<String, Terminal>>,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The map holds plain values; a panic elsewhere cannot leave it half-written.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

fn shell_error(what: &str, e: impl std::fmt::Display) -> ShellError {
    ShellError::new(format!("{what}: {e}"))
}

/// The user's shell: `$SHELL` when it names a program that exists, else bash, else sh.
fn user_shell() -> String {
    std::env::var("SHELL")
        .ok()
        .filter(|s| !s.is_empty() && Path::new(s).is_file())
        .or_else(|| Path::new("/bin/bash").is_file().then(|| "/bin/bash".to_string()))
        .unwrap_or_else(|| "/bin/sh".to_string())
}

/// Decodes a byte stream as UTF-8 text, holding back a character split across reads.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn push(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let valid_up_to = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An incomplete character at the end waits for the next read; invalid bytes in the
            // middle are replaced (a program printing binary must not stall the terminal).
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.pending.len(),
        };
        let rest = self.pending.split_off(valid_up_to);
        let text = String::from_utf8_lossy(&self.pending).into_owned();
        self.pending = rest;
        text
    }
}

impl Terminals {
    /// Starts the user's shell in `cwd`, its output going to `events`.
    pub fn open(
        &self,
        session_id: &str,
        cwd: &Path,
        cols: u16,
        rows: u16,
        events: Channel<TerminalEvent>,
    ) -> Result<TerminalInfo, ShellError> {
        let size = PtySize {
            rows: rows.max(1),
            cols: cols.max(1),
            pixel_width: 0,
            pixel_height: 0,
        };
        let pair = native_pty_system()
            .openpty(size)
            .map_err(|e| shell_error("could not open a terminal", e))?;
        let shell = user_shell();
        let mut command = CommandBuilder::new(&shell);
        command.cwd(cwd);
        command.env("TERM", "xterm-256color");
        command.env("COLORTERM", "truecolor");
        let mut child = pair
            .slave
            .spawn_command(command)
            .map_err(|e| shell_error(&format!("could not start {shell}"), e))?;
        // The slave end belongs to the shell now; holding it here would keep the PTY open after
        // the shell exits, and the reader would never see the end.
        drop(pair.slave);
        let mut reader = pair
            .master
            .try_clone_reader()
            .map_err(|e| shell_error("could not read the terminal", e))?;
        let writer = pair
            .master
            .take_writer()
            .map_err(|e| shell_error("could not write to the terminal", e))?;
        let killer = child.clone_killer();
        let id = format!("term-{}", uuid::Uuid::new_v4().simple());
        std::thread::Builder::new()
            .name(format!("nerve-{id}"))
            .spawn(move || {
                let mut buf = vec![0u8; READ_CHUNK];
                let mut text = Utf8Stream::default();
                loop {
                    match reader.read(&mut buf) {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            let data = text.push(&buf[..n]);
                            if !data.is_empty() && events.send(TerminalEvent::Output { data }).is_err() {
                                break;
                            }
                        }
                    }
                }
                let code = child
                    .wait()
                    .ok()
                    .and_then(|status| i32::try_from(status.exit_code()).ok());
                let _ = events.send(TerminalEvent::Exit { code });
            })
            .map_err(|e| shell_error("could not start the terminal's reader", e))?;
        lock(&self.open).insert(
            id.clone(),
            Terminal {
                session_id: session_id.to_string(),
                master: pair.master,
                writer,
                killer,
            },
        );
        Ok(TerminalInfo {
            id,
            shell,
            cwd: cwd.display().to_string(),
        })
    }

    fn with<T>(
        &self,
        id: &str,
        f: impl FnOnce(&mut Terminal) -> Result<T, ShellError>,
    ) -> Result<T, ShellError> {
        let mut open = lock(&self.open);
        let terminal = open
            .get_mut(id)
            .ok_or_else(|| ShellError::new(format!("no open terminal {id}")))?;
        f(terminal)
    }

    /// Sends keystrokes or pasted text to the shell.
    pub fn write(&self, id: &str, data: &str) -> Result<(), ShellError> {
        self.with(id, |t| {
            t.writer
                .write_all(data.as_bytes())
                .and_then(|()| t.writer.flush())
                .map_err(|e| shell_error("the terminal's shell is gone", e))
        })
    }

    /// Tells the shell its window's new size.
    pub fn resize(&self, id: &str, cols: u16, rows: u16) -> Result<(), ShellError> {
        self.with(id, |t| {
            t.master
                .resize(PtySize {
                    rows: rows.max(1),
                    cols: cols.max(1),
                    pixel_width: 0,
                    pixel_height: 0,
                })
                .map_err(|e| shell_error("could not resize the terminal", e))
        })
    }

    /// Ends one terminal's shell.
    pub fn close(&self, id: &str) -> Result<(), ShellError> {
        match lock(&self.open).remove(id) {
            Some(_) => Ok(()),
            None => Err(ShellError::new(format!("no open terminal {id}"))),
        }
    }

    /// Ends the terminals of a session that closed.
    pub fn close_session(&self, session_id: &str) {
        lock(&self.open).retain(|_, t| t.session_id != session_id);
    }

    /// Ends every terminal (the app is quitting).
    pub fn close_all(&self) {
        lock(&self.open).clear();
    }
}

/// Opens a terminal in the session's folder (its worktree, when it has one).
#[tauri::command]
pub async fn terminal_open(
    shell: State<'_, Shell>,
    session_id: String,
    cols: u16,
    rows: u16,
    on_event: Channel<TerminalEvent>,
) -> Result<TerminalInfo, ShellError> {
    let session = shell.sessions.get(&session_id)?;
    shell
        .terminals
        .open(&session_id, session.project().dir(), cols, rows, on_event)
}

/// Keystrokes or pasted text for a terminal.
#[tauri::command]
pub async fn terminal_write(
    shell: State<'_, Shell>,
    terminal_id: String,
    data: String,
) -> Result<(), ShellError> {
    shell.terminals.write(&terminal_id, &data)
}

/// A terminal's new size.
#[tauri::command]
pub async fn terminal_resize(
    shell: State<'_, Shell>,
    terminal_id: String,
    cols: u16,
    rows: u16,
) -> Result<(), ShellError> {
    shell.terminals.resize(&terminal_id, cols, rows)
}

/// Closes a terminal (its shell is killed).
#[tauri::command]
pub async fn terminal_close(shell: State<'_, Shell>, terminal_id: String) -> Result<(), ShellError> {
    shell.terminals.close(&terminal_id)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_character_split_across_reads_arrives_whole() {
        let mut stream = Utf8Stream::default();
        let bytes = "é€".as_bytes();
        assert_eq!(stream.push(&bytes[..1]), "");
        assert_eq!(stream.push(&bytes[1..3]), "é");
        assert_eq!(stream.push(&bytes[3..]), "€");
        assert_eq!(stream.push(b"a\xffb"), "a\u{fffd}b");
    }
}
