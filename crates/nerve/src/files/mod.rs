//! File helpers below every tool and store: atomic replacement, content hashes, structured diffs.
//! The file tools, checkpoints and the result store all write and compare files the same way.

mod atomic;
mod hash;
pub mod hunk_text;

pub use atomic::{write_atomic, write_private};
pub use hash::{hash_bytes, hex};
pub use nerve_protocol::diff::{ChangeKind, DiffHunk, DiffLine, DiffTag, FileDiff};
