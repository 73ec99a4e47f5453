//! What the user allowed the sandbox during a session on top of the settings it started with
//! (one click on a refused write, see `settings_view::allow_sandbox_refusal`): shared by every
//! session of the project object, so the next command gets it without a restart.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

/// Paths made writable since the settings were read.
#[derive(Debug, Clone, Default)]
pub struct SandboxGrants(Arc<Mutex<Vec<PathBuf>>>);

impl SandboxGrants {
    /// Makes `path` (and what is under it) writable for the next commands.
    pub fn add_writable(&self, path: PathBuf) {
        let mut paths = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !paths.contains(&path) {
            paths.push(path);
        }
    }

    /// The paths made writable so far.
    pub fn writable(&self) -> Vec<PathBuf> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }
}
