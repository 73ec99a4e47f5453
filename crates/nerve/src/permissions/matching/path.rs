//! File path rules (`Read(...)`, `Edit(...)` content): gitignore-style patterns, anchored by the
//! rule's source, matched with the `ignore` crate.
//!
//! Where a pattern is rooted:
//!
//! | pattern        | root                     | example                                   |
//! |----------------|--------------------------|-------------------------------------------|
//! | `//abs/path`   | the filesystem root      | `Read(//etc/passwd)`                      |
//! | `~/x`          | the home folder          | `Read(~/.ssh/**)`                         |
//! | `/x`           | the rule's anchor        | `Edit(/src/**)` = `<project>/src/**`      |
//! | `./x`          | the rule's anchor        | `Read(./secrets/**)` = `<anchor>/secrets/**` |
//! | `x`            | the rule's anchor, gitignore rules: no slash matches at any depth (`*.env`), an inner slash anchors (`a/b`) |
//!
//! Claude Code resolves `./x` and `x` against the current directory; Nerve resolves them against
//! the rule's anchor (the settings file's root, or the cwd for CLI and session rules), so a
//! project's rules mean the same thing whichever subfolder the session starts in. Leading `..`
//! components (`../shared/**`) climb from the anchor. Matching is case-insensitive, as Claude Code's
//! `ignore` package is by default, so `.ENV` cannot dodge a deny on `.env` on a case-insensitive
//! filesystem. A pattern naming a directory also matches everything below it.

use std::path::{Component, Path, PathBuf};

use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::permissions::matching::search_glob;
use crate::permissions::paths::normalize_lexically;

/// A path pattern that is not a valid glob.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("path pattern `{pattern}` is not a valid glob: {reason}")]
pub struct PathPatternError {
    /// The pattern as written in the rule.
    pub pattern: String,
    /// What the glob parser objected to.
    pub reason: String,
}

/// A rule's path pattern resolved to a root folder and compiled.
#[derive(Debug, Clone)]
pub struct PathPattern {
    root: PathBuf,
    /// The gitignore line, relative to `root`.
    line: String,
    matcher: Gitignore,
}

/// Splits rule content into the folder it is rooted at and a gitignore line relative to it.
fn root_and_line(content: &str, anchor: &Path, home: &Path) -> (PathBuf, String) {
    if let Some(rest) = content.strip_prefix("//") {
        return (PathBuf::from("/"), format!("/{rest}"));
    }
    if content == "~" {
        return (home.to_path_buf(), "**".to_string());
    }
    if let Some(rest) = content.strip_prefix("~/") {
        return fold_parent_dirs(home, rest);
    }
    if let Some(rest) = content.strip_prefix('/') {
        return fold_parent_dirs(anchor, rest);
    }
    let mut rest = content;
    let mut explicit = false;
    while let Some(stripped) = rest.strip_prefix("./") {
        rest = stripped;
        explicit = true;
    }
    if explicit || rest.starts_with("../") {
        return fold_parent_dirs(anchor, rest);
    }
    (normalize_lexically(anchor), escape_line_start(rest))
}

/// Roots an anchored pattern: leading `..`/`.` components move the root, the rest becomes `/rest`.
fn fold_parent_dirs(base: &Path, rest: &str) -> (PathBuf, String) {
    let mut root = normalize_lexically(base);
    let mut rest = rest;
    loop {
        if let Some(stripped) = rest.strip_prefix("../") {
            root.pop();
            rest = stripped;
        } else if let Some(stripped) = rest.strip_prefix("./") {
            rest = stripped;
        } else {
            break;
        }
    }
    (root, format!("/{rest}"))
}

/// Keeps a leading `!` or `#` literal: in a gitignore file they would negate or comment the line.
fn escape_line_start(line: &str) -> String {
    if line.starts_with('!') || line.starts_with('#') {
        format!("\\{line}")
    } else {
        line.to_string()
    }
}

/// How many compiled patterns [`PathPattern::compile_shared`] keeps.
const SHARED_PATTERNS: std::num::NonZeroUsize = match std::num::NonZeroUsize::new(256) {
    Some(n) => n,
    None => std::num::NonZeroUsize::MIN,
};

type PatternKey = (String, PathBuf, PathBuf);
type Compiled = Result<std::sync::Arc<PathPattern>, PathPatternError>;

/// Recent compilations by (content, anchor, home): a pure function of those, so a kept one is
/// exactly what compiling again would give.
static SHARED: std::sync::LazyLock<std::sync::Mutex<lru::LruCache<PatternKey, Compiled>>> =
    std::sync::LazyLock::new(|| std::sync::Mutex::new(lru::LruCache::new(SHARED_PATTERNS)));

impl PathPattern {
    /// [`PathPattern::compile`], compiled once per (content, anchor, home): every path a call
    /// touches is checked against every path rule, and compiling one (a gitignore matcher, so a
    /// regex) costs far more than matching, so a 2 KB command naming a dozen files spent most of
    /// its permission check compiling the same few rules again.
    pub fn compile_shared(content: &str, anchor: &Path, home: &Path) -> Compiled {
        let key = (content.to_string(), anchor.to_path_buf(), home.to_path_buf());
        if let Some(kept) = SHARED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(&key)
        {
            return kept.clone();
        }
        let compiled = Self::compile(content, anchor, home).map(std::sync::Arc::new);
        SHARED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .put(key, compiled.clone());
        compiled
    }

    /// Resolves `content` against `anchor` (for `/x`, `./x`, `x`) or `home` (for `~/x`) and compiles
    /// it.
    pub fn compile(content: &str, anchor: &Path, home: &Path) -> Result<Self, PathPatternError> {
        let (root, line) = root_and_line(content.trim(), anchor, home);
        let mut builder = GitignoreBuilder::new(&root);
        builder.case_insensitive(true).map_err(|e| PathPatternError {
            pattern: content.to_string(),
            reason: e.to_string(),
        })?;
        builder.add_line(None, &line).map_err(|e| PathPatternError {
            pattern: content.to_string(),
            reason: e.to_string(),
        })?;
        let matcher = builder.build().map_err(|e| PathPatternError {
            pattern: content.to_string(),
            reason: e.to_string(),
        })?;
        Ok(PathPattern { root, line, matcher })
    }

    /// The folder the pattern is rooted at.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether `target` (an absolute path) or one of its parent folders matches.
    ///
    /// `target` is normalised lexically first. A relative target, or one outside the pattern's
    /// root, never matches: there is nothing to compare it with.
    pub fn matches(&self, target: &Path) -> bool {
        let target = normalize_lexically(target);
        self.matches_entry(&target, target.is_dir())
    }

    /// [`PathPattern::matches`] for a path whose kind the caller knows (a directory walk), without
    /// asking the filesystem.
    pub fn matches_entry(&self, target: &Path, is_dir: bool) -> bool {
        let target = normalize_lexically(target);
        if !target.is_absolute() {
            return false;
        }
        let Ok(relative) = target.strip_prefix(&self.root) else {
            return false;
        };
        // The root itself has no path relative to it; only `//`/`~` patterns could name it and
        // the rule then covers what is inside, not the folder entry.
        if relative.as_os_str().is_empty()
            || relative.components().any(|c| !matches!(c, Component::Normal(_)))
        {
            return false;
        }
        matches!(
            self.matcher.matched_path_or_any_parents(relative, is_dir),
            Match::Ignore(_)
        )
    }
}

impl PathPattern {
    /// Where the paths this pattern matches can lie: the deepest folder every match is below, and
    /// whether the pattern has more components after it (`/secrets/**` is the region `secrets` with
    /// more below; `/.env` is exactly `.env`). A slashless pattern (`*.pem`) may match at any depth,
    /// so its region is the root with more below.
    fn region(&self) -> (PathBuf, bool) {
        let line = self.line.trim_end_matches('/');
        let anchored = line.starts_with('/') || line.trim_start_matches('/').contains('/');
        if !anchored {
            return (self.root.clone(), true);
        }
        let mut region = self.root.clone();
        let mut parts = line
            .trim_start_matches('/')
            .split('/')
            .filter(|p| !p.is_empty())
            .peekable();
        while let Some(part) = parts.peek() {
            if part.contains(['*', '?', '[', '\\']) {
                return (region, true);
            }
            region.push(part);
            parts.next();
        }
        (region, false)
    }

    /// Whether every path inside folder `dir` matches: `dir` itself matches, or it lies in the
    /// region of a pattern that takes everything below (`/secrets/**`, `/secrets`).
    pub fn covers_everything_under(&self, dir: &Path) -> bool {
        let dir = normalize_lexically(dir);
        if self.matches(&dir) {
            return true;
        }
        let (region, _) = self.region();
        let line = self.line.trim_end_matches('/');
        let takes_all_below =
            line.ends_with("/**") && !line.trim_end_matches("/**").contains(['*', '?', '[']);
        takes_all_below && starts_with_ignoring_case(&dir, &region)
    }

    /// Whether some path inside folder `dir` (or `dir` itself) may match: a recursive read of `dir`
    /// may then read a matched path. Over-approximates (a glob component after the literal prefix
    /// is assumed to match something).
    pub fn may_match_under(&self, dir: &Path) -> bool {
        let dir = normalize_lexically(dir);
        if !dir.is_absolute() {
            return true;
        }
        let (region, _) = self.region();
        self.matches(&dir)
            || starts_with_ignoring_case(&region, &dir)
            || starts_with_ignoring_case(&dir, &region)
    }

    /// Whether the shell glob `glob` (an absolute pattern, `*` not crossing `/`) may name a path
    /// this pattern matches, or, when `recursive`, a folder holding one.
    pub fn may_match_glob(&self, glob: &Path, recursive: bool) -> bool {
        let glob = normalize_lexically(glob);
        if !glob.is_absolute() {
            return true;
        }
        let (region, more_below) = self.region();
        let globs: Vec<String> = glob
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let literals: Vec<String> = region
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        for (g, l) in globs.iter().zip(&literals) {
            if !component_matches(g, l) {
                return false;
            }
        }
        match globs.len().cmp(&literals.len()) {
            // The glob names a folder above the region: only a recursive read reaches it.
            std::cmp::Ordering::Less => recursive,
            // The glob names the region itself: a match when the region is the whole pattern, or
            // when the read is recursive.
            std::cmp::Ordering::Equal => recursive || !more_below,
            // The glob goes deeper than the region's literal part: assume it may match.
            std::cmp::Ordering::Greater => true,
        }
    }
}

impl PathPattern {
    /// Whether a search of `root` (absolute) that reads what `globs` match (absolute alternatives,
    /// see [`crate::permissions::matching::search_glob`]; empty: everything below `root`) may read a
    /// path this pattern matches: `Some(true)` when it names such paths (everything below `root` or
    /// below a glob's literal folder matches, or a glob reaches a matched path through a component
    /// that names it), `Some(false)` when it may only come across them while descending.
    pub fn search_reach(&self, root: &Path, globs: &[PathBuf]) -> Option<bool> {
        let root = normalize_lexically(root);
        if !root.is_absolute() {
            return Some(false);
        }
        if self.covers_everything_under(&root) {
            return Some(true);
        }
        if globs.is_empty() {
            return self.may_match_under(&root).then_some(false);
        }
        // Everything below a matched path matches too (a rule naming a folder covers its
        // contents), so the paths of interest always continue below the region.
        let (region, _) = self.region();
        let named_from = root.components().count();
        let mut found = None;
        for glob in globs {
            if !glob.is_absolute() {
                found = Some(false);
                continue;
            }
            if self.covers_everything_under(&search_glob::literal_prefix(glob)) {
                return Some(true);
            }
            match search_glob::reach(glob, &region, true, named_from) {
                Some(search_glob::Reach::Names) => return Some(true),
                Some(search_glob::Reach::Through) => found = Some(false),
                None => {}
            }
        }
        found
    }
}

/// [`Path::starts_with`] comparing components case-insensitively, as path rules match: `SECRETS`
/// lies in the region of `./secrets/**` on a filesystem that ignores case.
fn starts_with_ignoring_case(path: &Path, prefix: &Path) -> bool {
    let mut parts = path.components();
    prefix.components().all(|p| {
        parts.next().is_some_and(|c| {
            c.as_os_str()
                .to_string_lossy()
                .eq_ignore_ascii_case(&p.as_os_str().to_string_lossy())
        })
    })
}

/// Whether one shell-glob path component may match one literal component (case-insensitively, as
/// path rules are). A leading dot must be matched by a literal dot, as bash expands globs by
/// default (`*` skips `.env`; `shopt -s dotglob` is a command that is not pre-approved). An invalid
/// glob is assumed to match.
fn component_matches(glob: &str, literal: &str) -> bool {
    if !glob.contains(['*', '?', '[']) {
        return glob.eq_ignore_ascii_case(literal);
    }
    if literal.starts_with('.') && !glob.starts_with('.') {
        return false;
    }
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .case_insensitive(true)
        .build()
        .map_or(true, |g| g.compile_matcher().is_match(literal))
}

/// Whether `target` matches the path rule content `rule_content` anchored at `anchor`.
///
/// An invalid glob never matches here; [`PathPattern::compile`] reports it, and the rule set treats
/// an invalid deny/ask pattern as matching (fail closed).
pub fn path_rule_matches(rule_content: &str, anchor: &Path, home: &Path, target: &Path) -> bool {
    PathPattern::compile_shared(rule_content, anchor, home).is_ok_and(|pattern| pattern.matches(target))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANCHOR: &str = "/work/project";
    const HOME: &str = "/home/me";

    fn hit(rule: &str, target: &str) -> bool {
        path_rule_matches(rule, Path::new(ANCHOR), Path::new(HOME), Path::new(target))
    }

    #[test]
    fn absolute_double_slash_patterns() {
        assert!(hit("//etc/passwd", "/etc/passwd"));
        assert!(!hit("//etc/passwd", "/etc/passwd.bak"));
        assert!(hit("//etc/**", "/etc/ssh/sshd_config"));
        assert!(hit("//etc", "/etc/hosts"));
        assert!(!hit("//etc/passwd", "/work/project/etc/passwd"));
    }

    #[test]
    fn home_patterns() {
        assert!(hit("~/.ssh/**", "/home/me/.ssh/id_rsa"));
        assert!(hit("~/.ssh", "/home/me/.ssh/keys/id_rsa"));
        assert!(!hit("~/.ssh/**", "/work/project/.ssh/id_rsa"));
        assert!(hit("~", "/home/me/anything"));
    }

    #[test]
    fn anchor_relative_patterns() {
        assert!(hit("/src/**", "/work/project/src/main.rs"));
        assert!(hit("/src/**", "/work/project/src/a/b/c.rs"));
        assert!(!hit("/src/**", "/work/project/lib/src/main.rs"));
        assert!(!hit("/src/**", "/src/main.rs"));
        assert!(hit("./secrets/**", "/work/project/secrets/key.pem"));
        assert!(!hit("./secrets/**", "/work/project/app/secrets/key.pem"));
        assert!(hit("secrets/keys", "/work/project/secrets/keys/a"));
        assert!(hit("../shared/**", "/work/shared/x.txt"));
        assert!(!hit("../shared/**", "/work/project/shared/x.txt"));
    }

    #[test]
    fn slashless_patterns_match_at_any_depth_below_the_anchor() {
        assert!(hit("*.env", "/work/project/.env.x.env"));
        assert!(hit("*.env", "/work/project/config/prod.env"));
        assert!(hit(".env", "/work/project/a/b/.env"));
        assert!(hit(".env", "/work/project/.ENV"));
        assert!(!hit("*.env", "/other/prod.env"));
        assert!(!hit("*.env", "/work/projectx/prod.env"));
    }

    #[test]
    fn directory_patterns_cover_everything_below() {
        assert!(hit("/build", "/work/project/build/out/app"));
        assert!(hit("node_modules", "/work/project/a/node_modules/x/index.js"));
    }

    #[test]
    fn targets_are_normalised_and_must_be_absolute() {
        assert!(hit("/src/**", "/work/project/lib/../src/./main.rs"));
        assert!(!hit("/src/**", "/work/project/src/../../escape.rs"));
        assert!(hit("//etc/passwd", "/work/project/../../etc/passwd"));
        assert!(!hit("/src/**", "src/main.rs"));
        assert!(!hit("/src/**", "/work/project"));
    }

    #[test]
    fn leading_bang_and_hash_are_literal() {
        assert!(hit("!important", "/work/project/!important"));
        assert!(!hit("!important", "/work/project/other"));
        assert!(hit("#notes", "/work/project/#notes"));
    }

    fn pattern(rule: &str) -> PathPattern {
        PathPattern::compile(rule, Path::new(ANCHOR), Path::new(HOME)).unwrap()
    }

    #[test]
    fn folders_that_may_hold_a_match() {
        let secrets = pattern("./secrets/**");
        for dir in [
            "/work/project",
            "/work/project/secrets",
            "/work/project/secrets/sub",
            "/work",
            "/",
        ] {
            assert!(secrets.may_match_under(Path::new(dir)), "{dir}");
        }
        for dir in ["/work/project/src", "/work/projectx", "/tmp"] {
            assert!(!secrets.may_match_under(Path::new(dir)), "{dir}");
        }
        assert!(secrets.covers_everything_under(Path::new("/work/project/secrets")));
        assert!(secrets.covers_everything_under(Path::new("/work/project/secrets/a")));
        assert!(!secrets.covers_everything_under(Path::new("/work/project")));
        let pem = pattern("*.pem");
        assert!(!pem.covers_everything_under(Path::new("/work/project")));
        assert!(pem.may_match_under(Path::new("/work/project/src")));
        assert!(pem.may_match_under(Path::new("/work")));
        assert!(!pem.may_match_under(Path::new("/tmp")));
        let keys = pattern("/config/*.key");
        assert!(keys.may_match_under(Path::new("/work/project/config")));
        assert!(!keys.may_match_under(Path::new("/work/project/src")));
    }

    #[test]
    fn globs_that_may_name_a_match() {
        let secrets = pattern("./secrets/**");
        let may = |glob: &str, recursive: bool| secrets.may_match_glob(Path::new(glob), recursive);
        assert!(may("/work/project/sec*/key.txt", false));
        assert!(may("/work/project/*/key.txt", false));
        assert!(may("/work/project/secrets/*", false));
        assert!(may("/work/project/SECRET?/x", false));
        assert!(!may("/work/project/*.md", false));
        assert!(!may("/work/project/src/*", false));
        assert!(!may("/work/project/s[!e]*/x", false));
        // `cat *` names the folder itself, which cat cannot read; `grep -r x *` reads inside it.
        assert!(!may("/work/project/*", false));
        assert!(may("/work/project/*", true));
        let env = pattern("./.env");
        assert!(env.may_match_glob(Path::new("/work/project/.e*"), false));
        assert!(!env.may_match_glob(Path::new("/work/project/*"), false));
        assert!(!env.may_match_glob(Path::new("/work/project/*.md"), false));
    }

    #[test]
    fn invalid_glob_is_reported_and_never_matches() {
        let err = PathPattern::compile("/src/[z-a]", Path::new(ANCHOR), Path::new(HOME)).unwrap_err();
        assert_eq!(err.pattern, "/src/[z-a]");
        assert!(err.to_string().contains("not a valid glob"), "{err}");
        assert!(!hit("/src/[z-a]", "/work/project/src/z"));
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn segment() -> impl Strategy<Value = String> {
            "[a-z0-9_-][a-z0-9_.-]{0,8}"
        }

        proptest! {
            #[test]
            fn anchored_directory_rule_covers_everything_below_it(
                dir in segment(),
                below in proptest::collection::vec(segment(), 1..4),
            ) {
                let target = format!("{ANCHOR}/{dir}/{}", below.join("/"));
                let rule = format!("/{dir}/**");
                prop_assert!(hit(&rule, &target));
                let bare_dir = format!("/{dir}");
                prop_assert!(hit(&bare_dir, &target));
            }

            #[test]
            fn anchor_relative_rules_never_match_outside_the_anchor(
                rule in prop_oneof![Just("/**".to_string()), Just("**".to_string()), Just("*".to_string()), segment()],
                outside in proptest::collection::vec(segment(), 1..4),
            ) {
                let target = format!("/elsewhere/{}", outside.join("/"));
                prop_assert!(!hit(&rule, &target));
                let sibling = format!("/work/project-other/{}", outside.join("/"));
                prop_assert!(!hit(&rule, &sibling));
            }
        }
    }

    #[test]
    fn a_shared_pattern_is_compiled_once_and_matches_as_a_fresh_one() {
        let (anchor, home) = (Path::new(ANCHOR), Path::new(HOME));
        let first = PathPattern::compile_shared("./shared-test/**", anchor, home).unwrap();
        let second = PathPattern::compile_shared("./shared-test/**", anchor, home).unwrap();
        assert!(std::sync::Arc::ptr_eq(&first, &second));
        let fresh = PathPattern::compile("./shared-test/**", anchor, home).unwrap();
        for target in ["/work/project/shared-test/a.txt", "/work/project/other/a.txt"] {
            assert_eq!(
                first.matches(Path::new(target)),
                fresh.matches(Path::new(target)),
                "{target}"
            );
        }
        assert!(first.matches(Path::new("/work/project/shared-test/a.txt")));
        // Another anchor is another pattern.
        let elsewhere =
            PathPattern::compile_shared("./shared-test/**", Path::new("/elsewhere"), home).unwrap();
        assert!(!std::sync::Arc::ptr_eq(&first, &elsewhere));
        // An invalid glob is an error every time.
        assert!(PathPattern::compile_shared("/src/[z-a]", anchor, home).is_err());
        assert!(PathPattern::compile_shared("/src/[z-a]", anchor, home).is_err());
    }
}
