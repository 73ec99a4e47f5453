//! No work-tree watcher outside Linux yet: every checkpoint asks `git status` (see the Linux
//! `treewatch`).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// A moment of the watcher's history (never made here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mark;

/// The watcher of a work tree (never made here).
#[derive(Debug)]
pub(crate) struct TreeWatch;

impl TreeWatch {
    pub(crate) fn for_root(_root: &Path, _git_dir: &Path, _common_dir: &Path) -> Option<Arc<Self>> {
        None
    }

    pub(crate) fn mark(&self) -> Option<Mark> {
        None
    }

    pub(crate) fn quiet_since(&self, _mark: Mark) -> bool {
        false
    }

    pub(crate) fn wait_ready(&self, _timeout: Duration) -> bool {
        false
    }
}
