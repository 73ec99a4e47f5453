//! What a call may change on disk, as far as the engine can tell before it runs. The pipeline saves
//! a checkpoint from this before the call, so a rewind can put the files back.

use std::path::PathBuf;

/// The files a call may change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileEffect {
    /// The call changes no file.
    None,
    /// The call changes exactly these files (absolute paths), and nothing else.
    Files(Vec<PathBuf>),
    /// The call may change any file (a shell command, an external tool): the engine can only
    /// compare the work tree before and after it.
    Opaque {
        /// Whether the call keeps changing files after it returns (a background command), so no
        /// comparison after the call can see everything it does.
        outlives_call: bool,
    },
}
