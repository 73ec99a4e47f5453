//! What permission rules are matched against for one call. Tools describe their input this way;
//! the resolver never needs to know a tool's input type.

use std::path::PathBuf;

pub use crate::permissions::rule_set::{Access, ReadScope};

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
    /// A shell command, split into simple commands (boxed: it is much larger than the others).
    Shell(Box<ShellSubject>),
    /// A search (Grep, Glob): the files it reads are found while it walks, and it leaves out every
    /// path a Read deny rule matches, saying how many it left out.
    Search(SearchSubject),
    /// A URL to fetch.
    Url {
        /// The URL as given.
        url: String,
    },
}

/// What a search can reach: Read rules meet its root, its globs, and every path below the root
/// it may walk into; reading inside the working directories means all of these lie there.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchSubject {
    /// The file or folder searched, absolute and normalised, then where its symlinks lead when
    /// that differs.
    pub roots: Vec<PathBuf>,
    /// Globs choosing what below the root is read, relative to it (`*` within one folder, `**`
    /// across folders, `{a,b}` alternatives, `..` climbing) or absolute; empty when everything
    /// below the root is read.
    pub globs: Vec<String>,
    /// Globs the tool anchors at the root although they look absolute (ripgrep reads `/x/*` as
    /// `<root>/x/*`): Read deny rules also meet them as the absolute paths they look like (fail
    /// closed); only `globs` say whether the search stays inside the working directories.
    pub absolute_lookalikes: Vec<String>,
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
    /// Reads whose exact files are not known before the command runs: folders read recursively
    /// (`grep -r x src`, `rg x`), shell globs (`cat sec*/key`), and operands known only at run time
    /// (`cat $F`). Read deny and ask rules that may match anything inside them make the command ask.
    pub read_scopes: Vec<ReadScope>,
    /// Files that input redirections read (`cat < key.txt`), resolved like `read_targets`. They meet
    /// Read rules and the working-directory check whatever the command is.
    pub input_targets: Vec<PathBuf>,
    /// Network connections opened by redirections (`< /dev/tcp/host/port`), as written.
    pub network_targets: Vec<String>,
    /// Files that commands create, change or remove through their operands (`touch`, `mkdir`, `mv`,
    /// `cp`, `tee`, `install`, `ln`, `sed -i`, `dd of=`, `rm` ...), however they are run: Edit rules
    /// and protected paths apply to them, and acceptEdits allows them inside the working directories
    /// for the parts that are [`ShellPart::file_edit`]s.
    pub edit_targets: Vec<PathBuf>,
    /// Destinations of file-writing commands that are only known at run time (`tee "$F"`, the
    /// files `xargs cp` copies to), described for the user: any of them may be a protected path.
    pub unknown_write_targets: Vec<String>,
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
    /// Further forms deny and ask rules are matched against: the command with the options that do
    /// not change what it does removed (`git -C . --no-pager push` is also `git push`).
    pub deny_forms: Vec<String>,
    /// Why the command is not read-only, when it is not (`assigning `LD_PRELOAD` can change what the
    /// command runs`).
    pub why_not_read_only: Option<String>,
    /// Whether the command only creates, changes or removes files named by its operands (`touch`,
    /// `mkdir`, `mv`, `cp`), whose paths are in [`ShellSubject::edit_targets`].
    pub file_edit: bool,
    /// The words.
    pub argv: Vec<String>,
    /// Whether the command only reads.
    pub read_only: bool,
    /// Neither reads nor writes (echo, true...): never decides anything.
    pub neutral: bool,
}
