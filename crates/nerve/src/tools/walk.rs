//! Directory walking shared by Glob and Grep: ripgrep's rules (`.gitignore`, `.ignore`, hidden
//! files skipped) plus a hard exclusion of version-control folders.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::{DirEntry, WalkBuilder};
use tokio_util::sync::CancellationToken;

use crate::permissions::matching::path::PathPattern;
use crate::permissions::matching::search_glob;
use crate::permissions::paths::resolve_real_path;
use crate::permissions::{Access, RuleBehavior, RuleSet};
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
/// VCS folders are pruned either way, and so is everything `withhold` withholds: a denied folder
/// is never entered and a denied file never opened.
pub fn walker(root: &Path, hidden: bool, withhold: &Arc<ReadDenyFilter>) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    let withhold = Arc::clone(withhold);
    builder
        .standard_filters(true)
        .hidden(!hidden)
        .filter_entry(move |entry| !is_vcs_dir(entry) && !withhold.withholds(entry));
    builder
}

/// The session's Read deny rules (`Read(...)`, and deny rules naming another reading tool), which
/// a search applies while it walks: the permission check refuses a search that names denied paths,
/// and lets one that only walks past them run (`Grep` over the project around `./secrets/**`), so
/// the search itself must leave them out, and count them so its result can say so.
#[derive(Debug, Default)]
pub struct ReadDenyFilter {
    patterns: Vec<Arc<PathPattern>>,
    /// The root as walked and where its symlinks lead, when that differs: a path below the root is
    /// also checked where it really is.
    root: Option<(PathBuf, PathBuf)>,
    /// What the search reads below its root, as absolute glob alternatives (empty: everything):
    /// only a withheld path one of them could reach is counted, so a search of `src/*.rs` does not
    /// report a denied folder beside `src`.
    reach: Vec<PathBuf>,
    withheld: AtomicUsize,
}

impl ReadDenyFilter {
    /// The deny patterns in force for `ctx`. A pattern that does not compile is left out here: the
    /// permission check already refuses (or asks about) a search it cannot apply to.
    pub fn from_context(ctx: &ToolUseContext) -> Self {
        Self::from_rules(&ctx.permissions.rules.snapshot(), &ctx.permissions.home)
    }

    /// The deny patterns of `rules` (`~` being `home`).
    pub fn from_rules(rules: &RuleSet, home: &Path) -> Self {
        let patterns = rules
            .path_rules_consulted(RuleBehavior::Deny, Access::Read)
            .filter_map(|r| {
                let content = r.value.content.as_deref()?;
                PathPattern::compile_shared(content, &r.anchor, home).ok()
            })
            .collect();
        Self {
            patterns,
            ..Self::default()
        }
    }

    /// The same filter for a walk of `root`, whose symlinks may lead elsewhere.
    pub fn for_root(mut self, root: &Path) -> Self {
        let real = resolve_real_path(root);
        if real != root {
            self.root = Some((root.to_path_buf(), real));
        }
        self
    }

    /// The same filter, counting only withheld paths that `globs` (relative to `root`, as the
    /// search's permission subject gives them) could reach.
    pub fn counting_only(mut self, root: &Path, globs: &[String]) -> Self {
        self.reach = search_glob::absolute_alternatives(root, globs);
        self
    }

    /// Whether `path` (absolute) is denied to reads; for a folder, whether everything inside is.
    pub fn hides(&self, path: &Path, is_dir: bool) -> bool {
        let real = self
            .root
            .as_ref()
            .and_then(|(root, real)| path.strip_prefix(root).ok().map(|rest| real.join(rest)));
        std::iter::once(path).chain(real.as_deref()).any(|path| {
            self.patterns.iter().any(|p| {
                if is_dir {
                    p.covers_everything_under(path)
                } else {
                    p.matches_entry(path, false)
                }
            })
        })
    }

    /// Whether the walk leaves `entry` out (and then counts it, when the search could reach it).
    fn withholds(&self, entry: &DirEntry) -> bool {
        if self.patterns.is_empty() {
            return false;
        }
        let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
        let hidden = self.hides(entry.path(), is_dir);
        let reachable = || {
            self.reach.is_empty()
                || self
                    .reach
                    .iter()
                    .any(|glob| search_glob::reach(glob, entry.path(), is_dir, 0).is_some())
        };
        if hidden && reachable() {
            self.withheld.fetch_add(1, Ordering::Relaxed);
        }
        hidden
    }

    /// How many files and folders walks with this filter left out.
    pub fn withheld(&self) -> usize {
        self.withheld.load(Ordering::Relaxed)
    }

    /// The sentence a search result ends with when paths were left out.
    pub fn note(&self) -> Option<String> {
        let n = self.withheld();
        (n > 0).then(|| {
            format!(
                "({n} {} matched Read deny rules and {} withheld: not searched or listed.)",
                if n == 1 { "path" } else { "paths" },
                if n == 1 { "was" } else { "were" }
            )
        })
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
        assert!(filter.hides(&dir.path().join("secret/key.txt"), false));
        assert!(filter.hides(&dir.path().join("secret"), true));
        assert!(
            !filter.hides(&dir.path().join("docs/a.md"), false),
            "edit denies do not hide reads"
        );
        assert!(!filter.hides(&dir.path().join("src/a.rs"), false));
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
