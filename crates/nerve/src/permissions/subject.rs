//! What permission rules are matched against for one call. Tools describe their input this way;
//! the resolver never needs to know a tool's input type.

use std::path::PathBuf;

pub use crate::permissions::rule_set::Access;

/// The matchable content of one call.
#[derive(Debug, Clone, PartialEq)]
pub enum PermissionSubject {
    /// Nothing beyond the tool name (bare-name and parameter rules still apply).
    Opaque,
    /// File paths, absolute and lexically normalised.
    Paths {
        /// Read or edit.
        access: Access,
        /// The paths.
        paths: Vec<PathBuf>,
    },
    /// A shell command, split into simple commands.
    Shell(ShellSubject),
    /// A URL to fetch.
    Url {
        /// The URL as given.
        url: String,
    },
}

/// A parsed shell command as the permission system sees it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShellSubject {
    /// The command as the model wrote it.
    pub command: String,
    /// Whether the parser understood every part. When false, nothing is pre-approved.
    pub understood: bool,
    /// Why not, when not understood.
    pub not_understood_reason: Option<String>,
    /// The simple commands, in order.
    pub parts: Vec<ShellPart>,
    /// Files written by redirections, resolved against the working directory.
    pub write_targets: Vec<PathBuf>,
    /// What the read-only parts read: their non-option arguments, resolved against the working
    /// directory (`~` expanded). An argument whose location is only known at run time (`$HOME/x`)
    /// stands as `/`, outside every working directory, so the command asks.
    pub read_targets: Vec<PathBuf>,
    /// Best-effort pieces of an unparsed command, so deny rules still catch `rm` in it.
    pub fallback_segments: Vec<String>,
}

/// One simple command of a shell command.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ShellPart {
    /// Words after quote removal and wrapper stripping, joined by spaces (allow rules match this).
    pub as_written: String,
    /// The same with the program reduced to its base name (deny rules also match this, so `/bin/rm`
    /// cannot dodge `Bash(rm *)`).
    pub canonical: String,
    /// The words.
    pub argv: Vec<String>,
    /// Whether the command only reads.
    pub read_only: bool,
    /// Neither reads nor writes (echo, true...): never decides anything.
    pub neutral: bool,
}
