//! What a search glob can reach (Grep's `glob`, Glob's `pattern`, made absolute by the tool): `*`
//! and `?` stay within one folder, `**` crosses folders, `{a,b}` are alternatives, `[..]` classes.
//!
//! Permission rules compare such a glob with the literal part of a path rule (the folder
//! `./secrets/**` lies in) component by component: whether some path the glob matches lies in that
//! folder, above it or below it, and whether the glob *names* it — reaches it through a component
//! that is literal (`secrets/*`, `**/secrets/**`) or a wildcard that picks folders by name
//! (`sec*/**`) — rather than only descending into everything (`**/*.rs`, `*/x`).

use std::path::{Component, Path, PathBuf};

use crate::permissions::paths::normalize_lexically;

/// More alternatives than this after brace expansion: the glob is taken as reaching everything
/// (fail closed), not expanded.
pub const MAX_ALTERNATIVES: usize = 256;

/// The glob's brace alternatives (`/p/{a,b/c}/*` → `/p/a/*`, `/p/b/c/*`), each normalised
/// lexically (`..` folded, so `/p/x/../secrets/*` is `/p/secrets/*`). An alternative may be
/// absolute or relative, as the glob is. `None` when there would be more than
/// [`MAX_ALTERNATIVES`].
pub fn alternatives(glob: &str) -> Option<Vec<PathBuf>> {
    let mut out = Vec::new();
    expand(glob, &mut out)?;
    Some(out.iter().map(|g| normalize_lexically(Path::new(g))).collect())
}

/// Every alternative of each of `globs` (relative to `root`, or absolute), made absolute and
/// normalised. A glob with too many alternatives stands as `/**`: it may reach anything.
pub fn absolute_alternatives(root: &Path, globs: &[String]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for glob in globs {
        match alternatives(glob) {
            Some(alts) => out.extend(alts.iter().map(|a| normalize_lexically(&root.join(a)))),
            None => out.push(PathBuf::from("/**")),
        }
    }
    out
}

/// Expands the first brace group of `glob` (nested groups through recursion). An unbalanced brace
/// is literal, as globset reads it.
fn expand(glob: &str, out: &mut Vec<String>) -> Option<()> {
    let Some((open, close, options)) = first_group(glob) else {
        if out.len() >= MAX_ALTERNATIVES {
            return None;
        }
        out.push(glob.to_string());
        return Some(());
    };
    for option in options {
        let next = format!("{}{}{}", &glob[..open], option, &glob[close + 1..]);
        expand(&next, out)?;
    }
    Some(())
}

/// The first top-level `{...}` group: where it opens, where it closes, its comma-separated options.
fn first_group(glob: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = glob.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'{' => {
                let mut depth = 0usize;
                let mut start = i + 1;
                let mut options = Vec::new();
                let mut j = i;
                while j < bytes.len() {
                    match bytes[j] {
                        b'\\' => j += 1,
                        b'{' => depth += 1,
                        b'}' => {
                            depth -= 1;
                            if depth == 0 {
                                options.push(&glob[start..j]);
                                return Some((i, j, options));
                            }
                        }
                        b',' if depth == 1 => {
                            options.push(&glob[start..j]);
                            start = j + 1;
                        }
                        _ => {}
                    }
                    j += 1;
                }
                return None;
            }
            _ => i += 1,
        }
    }
    None
}

/// Whether a glob component has a wildcard.
fn is_wild(component: &str) -> bool {
    component.contains(['*', '?', '['])
}

/// The folder an alternative (no braces left) starts matching in: its components before the first
/// wildcard (`/p/src/**/*.rs` → `/p/src`; a glob with no wildcard names one path, itself).
pub fn literal_prefix(alternative: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in alternative.components() {
        if is_wild(&component.as_os_str().to_string_lossy()) {
            break;
        }
        out.push(component);
    }
    out
}

/// How a glob meets a literal path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// It may match the path, a path below it or (a folder's contents being read) a folder above it.
    Through,
    /// The same, through a component that names the path's components after the first
    /// `named_from` (see the module's documentation).
    Names,
}

/// How the glob alternative `glob` (absolute, no braces, normalised) meets `literal` (absolute,
/// normalised): `None` when no path it matches is `literal`, below it (when `below`, the paths of
/// interest continue below `literal`), or a folder holding it. Only components of `literal` after
/// the first `named_from` count for [`Reach::Names`] (the search root's own are not named by the
/// search).
pub fn reach(glob: &Path, literal: &Path, below: bool, named_from: usize) -> Option<Reach> {
    let glob: Vec<String> = components(glob);
    let literal: Vec<String> = components(literal);
    let mut memo = std::collections::HashMap::new();
    let walk = Walk {
        glob: &glob,
        literal: &literal,
        below,
        named_from,
    };
    walk.from(0, 0, false, &mut memo)
}

fn components(path: &Path) -> Vec<String> {
    path.components()
        .map(|c| match c {
            Component::RootDir => "/".to_string(),
            other => other.as_os_str().to_string_lossy().into_owned(),
        })
        .collect()
}

struct Walk<'a> {
    glob: &'a [String],
    literal: &'a [String],
    below: bool,
    named_from: usize,
}

type Memo = std::collections::HashMap<(usize, usize, bool), Option<Reach>>;

impl Walk<'_> {
    /// The best reach from glob component `g` and literal component `l` on (`Names` over
    /// `Through`).
    fn from(&self, g: usize, l: usize, named: bool, memo: &mut Memo) -> Option<Reach> {
        if let Some(known) = memo.get(&(g, l, named)) {
            return *known;
        }
        let found = self.step(g, l, named, memo);
        memo.insert((g, l, named), found);
        found
    }

    fn step(&self, g: usize, l: usize, named: bool, memo: &mut Memo) -> Option<Reach> {
        let reached = if named { Reach::Names } else { Reach::Through };
        let Some(literal) = self.literal.get(l) else {
            // The whole literal path is matched: the glob ends there, or goes on below it.
            let rest = &self.glob[g..];
            let reaches = rest.is_empty() || self.below || rest.iter().all(|c| c == "**");
            return reaches.then_some(reached);
        };
        let Some(component) = self.glob.get(g) else {
            // The glob matched a folder holding the literal path. Grep and Glob match files, so
            // this reaches nothing inside; it is still taken as passing by (fail closed), never as
            // naming what is inside.
            return Some(Reach::Through);
        };
        if component == "**" {
            // `**` takes this literal component (and maybe more), or none.
            let take = self.from(g, l + 1, named, memo);
            let skip = self.from(g + 1, l, named, memo);
            return best(take, skip);
        }
        if !component_matches(component, literal) {
            return None;
        }
        let last = g + 1 == self.glob.len();
        let names = !is_wild(component) || (!last && component != "*");
        self.from(g + 1, l + 1, named || (names && l >= self.named_from), memo)
    }
}

fn best(a: Option<Reach>, b: Option<Reach>) -> Option<Reach> {
    match (a, b) {
        (Some(Reach::Names), _) | (_, Some(Reach::Names)) => Some(Reach::Names),
        (Some(Reach::Through), _) | (_, Some(Reach::Through)) => Some(Reach::Through),
        (None, None) => None,
    }
}

/// Whether one glob component may match one literal component, case-insensitively as path rules
/// match. Hidden names are not special here (Grep and Glob skip them while walking, but a rule must
/// not depend on that). An invalid component is assumed to match (fail closed).
fn component_matches(glob: &str, literal: &str) -> bool {
    if !is_wild(glob) {
        return glob.eq_ignore_ascii_case(literal);
    }
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .case_insensitive(true)
        .build()
        .map_or(true, |g| g.compile_matcher().is_match(literal))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn braces_expand_into_normalised_alternatives() {
        let alts = |g: &str| {
            alternatives(g)
                .unwrap()
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
        };
        assert_eq!(alts("/p/{a,secrets}/*"), ["/p/a/*", "/p/secrets/*"]);
        assert_eq!(alts("/p/{a,{b,c/../d}}/x"), ["/p/a/x", "/p/b/x", "/p/d/x"]);
        assert_eq!(
            alts("/p/x/../secrets/*.{rs,md}"),
            ["/p/secrets/*.rs", "/p/secrets/*.md"]
        );
        assert_eq!(alts("/p/{unclosed/*"), ["/p/{unclosed/*"]);
        assert_eq!(
            alternatives(&"{a,b}".repeat(9)),
            None,
            "2^9 alternatives is too many"
        );
    }

    #[test]
    fn the_literal_prefix_stops_at_the_first_wildcard() {
        assert_eq!(
            literal_prefix(Path::new("/p/src/**/*.rs")),
            PathBuf::from("/p/src")
        );
        assert_eq!(literal_prefix(Path::new("/p/a.rs")), PathBuf::from("/p/a.rs"));
        assert_eq!(literal_prefix(Path::new("/**")), PathBuf::from("/"));
    }

    #[test]
    fn reach_tells_naming_from_descending() {
        let secrets = Path::new("/p/secrets");
        let r = |g: &str| reach(Path::new(g), secrets, true, 2);
        let cases = [
            ("/p/secrets/*", Some(Reach::Names)),
            ("/p/**/secrets/**", Some(Reach::Names)),
            ("/p/sec*/**", Some(Reach::Names)),
            ("/p/SECRETS/key", Some(Reach::Names)),
            ("/p/secrets", Some(Reach::Names)),
            ("/p/**/*.rs", Some(Reach::Through)),
            ("/p/**/*", Some(Reach::Through)),
            ("/p/*/key", Some(Reach::Through)),
            ("/p/*", Some(Reach::Through)),
            ("/**", Some(Reach::Through)),
            ("/p/src/**/*.rs", None),
            ("/q/**", None),
            ("/p/*.rs", None),
        ];
        for (glob, expected) in cases {
            assert_eq!(r(glob), expected, "{glob}");
        }
        // A file rule (nothing below it): a glob that stops above it in a wildcard reaches it only
        // by that wildcard; one that goes deeper does not reach it.
        let env = Path::new("/p/.env");
        assert_eq!(reach(Path::new("/p/.env"), env, false, 2), Some(Reach::Names));
        assert_eq!(reach(Path::new("/p/*"), env, false, 2), Some(Reach::Through));
        assert_eq!(reach(Path::new("/p/*/x"), env, false, 2), None);
        // The search root's own components are not named by the search.
        assert_eq!(
            reach(Path::new("/p/secrets/**"), secrets, true, 3),
            Some(Reach::Through)
        );
    }
}
