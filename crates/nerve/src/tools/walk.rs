//! Directory walking shared by Glob and Grep: ripgrep's rules (`.gitignore`, `.ignore`, hidden
//! files skipped) plus a hard exclusion of version-control folders.

use std::ffi::OsStr;
use std::path::Path;

use ignore::{DirEntry, WalkBuilder};
use tokio_util::sync::CancellationToken;

use crate::permissions::RuleBehavior;
use crate::permissions::matching::path::PathPattern;
use crate::tool::ToolUseContext;

/// Version-control folders that are never searched, even when hidden files are: their contents
/// (packed objects, copies of every revision) are noise that burns the model's budget.
pub const VCS_DIRS: [&str; 6] = [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"];

/// Whether `name` is one of [`VCS_DIRS`].
pub fn is_vcs_dir_name(name: &OsStr) -> bool {
    VCS_DIRS.iter().any(|d| OsStr::new(d) == name)
}

/// Whether a walk entry is a version-control folder.
fn is_vcs_dir(entry: &DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_dir()) && is_vcs_dir_name(entry.file_name())
}

/// What one walk thread found, kept in its own list and added to the shared one when the thread's
/// visitor is dropped: a search over a large tree then takes the shared lock once per thread, not
/// once per file found.
#[derive(Debug)]
pub struct Gathered<'a, T> {
    local: Vec<T>,
    shared: &'a std::sync::Mutex<Vec<T>>,
}

impl<'a, T> Gathered<'a, T> {
    /// An empty list for one thread, emptied into `shared` when dropped.
    pub fn new(shared: &'a std::sync::Mutex<Vec<T>>) -> Self {
        Self {
            local: Vec::new(),
            shared,
        }
    }

    /// One more item found.
    pub fn push(&mut self, item: T) {
        self.local.push(item);
    }
}

impl<T> Drop for Gathered<'_, T> {
    fn drop(&mut self) {
        if !self.local.is_empty() {
            self.shared
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .append(&mut self.local);
        }
    }
}

/// One walk thread's look at a cancellation token, every [`CancelCheck::EVERY`] entries: the token's
/// check takes a lock, which the walk's threads would otherwise pass between them for each of a
/// million files. A cancel is then seen within a few hundred entries (microseconds).
#[derive(Debug)]
pub struct CancelCheck<'a> {
    cancel: &'a CancellationToken,
    entries: u32,
}

impl<'a> CancelCheck<'a> {
    /// Entries between two looks.
    pub const EVERY: u32 = 256;

    /// Looks at `cancel` on the first entry and every [`Self::EVERY`] after it.
    pub fn new(cancel: &'a CancellationToken) -> Self {
        Self { cancel, entries: 0 }
    }

    /// Whether the walk should stop, for one more entry.
    pub fn is_cancelled(&mut self) -> bool {
        let look = self.entries.is_multiple_of(Self::EVERY);
        self.entries = self.entries.wrapping_add(1);
        look && self.cancel.is_cancelled()
    }
}

/// A walker over `root` with ripgrep's default filters; `hidden` also visits dot-files.
/// VCS folders are pruned either way.
pub fn walker(root: &Path, hidden: bool) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .standard_filters(true)
        .hidden(!hidden)
        .filter_entry(|entry| !is_vcs_dir(entry));
    builder
}

/// The session's `Read(...)` deny patterns, to drop denied files from search results. The
/// permission check only sees the search root; without this, searching a folder that contains a
/// denied one (the project root around `./secrets/**`) would show the denied files' contents.
#[derive(Debug, Clone, Default)]
pub struct ReadDenyFilter {
    patterns: Vec<PathPattern>,
}

impl ReadDenyFilter {
    /// The deny patterns in force for `ctx`. A pattern that does not compile is left out here: the
    /// permission check already treats it as matching every path and refuses the call.
    pub fn from_context(ctx: &ToolUseContext) -> Self {
        let rules = ctx.permissions.rules.snapshot();
        let patterns = rules
            .rules(RuleBehavior::Deny)
            .filter(|r| r.value.tool_name == "Read")
            .filter_map(|r| {
                let content = r.value.content.as_deref()?;
                PathPattern::compile(content, &r.anchor, &ctx.permissions.home).ok()
            })
            .collect();
        Self { patterns }
    }

    /// Whether `path` (absolute) is denied to reads.
    pub fn hides(&self, path: &Path) -> bool {
        self.patterns.iter().any(|p| p.matches(path))
    }

    /// Whether no pattern is in force.
    pub fn is_empty(&self) -> bool {
        self.patterns.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::{PermissionRule, RuleSource, SharedRules};

    /// A token cancelled before the walk stops it at the first entry; one cancelled during the
    /// walk, within [`CancelCheck::EVERY`] entries.
    #[test]
    fn a_cancel_is_seen_first_and_then_every_few_entries() {
        let cancel = CancellationToken::new();
        cancel.cancel();
        assert!(CancelCheck::new(&cancel).is_cancelled());

        let cancel = CancellationToken::new();
        let mut check = CancelCheck::new(&cancel);
        let before = (0..1_000).filter(|_| check.is_cancelled()).count();
        cancel.cancel();
        let entries_until_seen = (1..=CancelCheck::EVERY).find(|_| check.is_cancelled());
        assert_eq!((before, entries_until_seen.is_some()), (0, true));
    }

    #[test]
    fn read_denies_hide_paths_below_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut ctx = crate::tools::test_support::context_in(dir.path());
        let mut rules = crate::permissions::RuleSet::new();
        for (behavior, text) in [
            (RuleBehavior::Deny, "Read(./secret/**)"),
            (RuleBehavior::Deny, "Edit(./docs/**)"),
        ] {
            rules.add(PermissionRule::new(
                RuleSource::CliArg,
                behavior,
                text.parse().unwrap(),
                dir.path().to_path_buf(),
            ));
        }
        ctx.permissions.rules = SharedRules::new(rules);
        let filter = ReadDenyFilter::from_context(&ctx);
        assert!(filter.hides(&dir.path().join("secret/key.txt")));
        assert!(
            !filter.hides(&dir.path().join("docs/a.md")),
            "edit denies do not hide reads"
        );
        assert!(!filter.hides(&dir.path().join("src/a.rs")));
    }

    #[test]
    fn names_every_vcs_folder() {
        for name in [".git", ".svn", ".hg", ".bzr", ".jj", ".sl"] {
            assert!(is_vcs_dir_name(OsStr::new(name)), "{name}");
        }
        assert!(!is_vcs_dir_name(OsStr::new(".github")));
        assert!(!is_vcs_dir_name(OsStr::new("git")));
    }
}
