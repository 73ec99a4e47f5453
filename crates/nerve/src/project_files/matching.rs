//! Fuzzy matching of a typed query against the indexed paths, split across the cores.

pub use nerve_protocol::prompt::FileMatch;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use std::collections::BinaryHeap;

use nucleo_matcher::{Config, Matcher, Utf32Str};

use super::path_list::PathList;

/// Below this many candidates one thread is faster than starting others.
const PARALLEL_FROM: usize = 20_000;

/// Whether every path matching `longer` also matches `shorter`, so `longer` may be scored over
/// `shorter`'s matches only. True when `longer` extends `shorter` and neither uses the operators
/// that break it (`!` negates, `^`/`$` anchor, `'` and `\` change how a word matches).
pub(super) fn narrows(shorter: &str, longer: &str) -> bool {
    let plain = |q: &str| !q.contains(['!', '^', '$', '\'', '\\']);
    longer.starts_with(shorter) && plain(shorter) && plain(longer)
}

/// How many of the best rough scores are scored again exactly: enough that the exact best 50
/// are among them in practice, few enough that the exact scoring costs nothing next to the rough.
const RESCORED: usize = 2_000;

/// The paths (among `candidates`, or all) that match `query`, with their exact scores, unordered:
/// when many match, only the [`RESCORED`] best by a rough score are kept. Also every match's index
/// (for narrowing the next search).
///
/// Scoring every path exactly (nucleo's optimal alignment) costs about 0.1–0.25 µs a path, over
/// 100 ms for a broad query over a million files on two cores; its greedy alignment finds the same
/// matches (a fuzzy match exists exactly when the letters appear in order) several times faster,
/// and only the best of those need the exact score.
pub(super) fn score_all(
    paths: &PathList,
    candidates: Option<&[u32]>,
    query: &str,
) -> (Vec<(u32, u32)>, Vec<u32>) {
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let Rough { matched, best: kept } = rough_scores(paths, candidates, &pattern, RESCORED);
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut chars = Vec::new();
    let exact = kept
        .into_iter()
        .filter_map(|(_, index)| {
            let path = paths.get(index as usize)?;
            pattern
                .score(Utf32Str::new(path, &mut chars), &mut matcher)
                .map(|score| (score, index))
        })
        .collect();
    (exact, matched)
}

/// A fuzzy word's greedy match in an earlier path: the path, where the match ended, its score.
///
/// The greedy score of a word depends only on the path up to the end of its match: nucleo finds
/// the first occurrence of the word's first letter, matches the rest forward from there, tightens
/// the span backward, and scores the span and the character before it. So a path that begins with
/// the same characters up to that end has the same score, and a query that matches within a folder's
/// name scores the folder's files (sorted, so one after another) once. The test
/// `reused_greedy_scores_are_the_scores_path_by_path` holds nucleo to this.
struct Greedy<'p> {
    path: &'p [u8],
    end: usize,
    score: u16,
}

/// What the greedy scoring found.
struct Rough {
    /// Every match's index, in index order.
    matched: Vec<u32>,
    /// The best matches by greedy score, with it (unordered).
    best: Vec<(u32, u32)>,
}

/// A match as [`rank`] orders it, the worse the greater, so a max-heap's top is the worst kept.
#[derive(PartialEq, Eq)]
struct Ranked {
    score: u32,
    len: usize,
    index: u32,
}

impl Ord for Ranked {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other
            .score
            .cmp(&self.score)
            .then(self.len.cmp(&other.len))
            .then(self.index.cmp(&other.index))
    }
}

impl PartialOrd for Ranked {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// The `keep` best of `ranked` (each thread's best), by [`rank`].
fn keep_best(ranked: impl Iterator<Item = Ranked>, keep: usize, into: &mut BinaryHeap<Ranked>) {
    for candidate in ranked {
        if into.len() < keep {
            into.push(candidate);
        } else if let Some(mut worst) = into.peek_mut()
            && candidate < *worst
        {
            *worst = candidate;
        }
    }
}

/// Every match (on every core), and the `keep` best by greedy score. Only those are held with
/// their scores: a broad query over a million files would otherwise fill and sort 8 MB.
fn rough_scores(paths: &PathList, candidates: Option<&[u32]>, pattern: &Pattern, keep: usize) -> Rough {
    // Case and normalisation per word, as nucleo's parser decided them (smart: a needle folded to
    // lower case, or typed so, ignores case; one with accents is not normalised).
    let settings: Vec<(bool, bool)> = pattern
        .atoms
        .iter()
        .map(|atom| {
            let needle = atom.needle_text();
            (
                !needle.chars().any(char::is_uppercase),
                needle.chars().all(|c| c.is_ascii()),
            )
        })
        .collect();
    let total = candidates.map_or(paths.len(), <[u32]>::len);
    let score_range = |start: usize, end: usize| {
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut chars = Vec::new();
        let mut positions = Vec::new();
        let mut earlier: Vec<Option<Greedy>> = pattern.atoms.iter().map(|_| None).collect();
        let mut matched = Vec::new();
        let mut best = BinaryHeap::new();
        'paths: for i in start..end {
            let index = candidates.map_or(i as u32, |c| c[i]);
            let Some(path) = paths.get(index as usize) else {
                continue;
            };
            let bytes = path.as_bytes();
            let ascii = path.is_ascii();
            let haystack = if ascii {
                Utf32Str::Ascii(bytes)
            } else {
                Utf32Str::new(path, &mut chars)
            };
            let mut score = 0u32;
            for ((atom, &(ignore_case, normalize)), earlier) in
                pattern.atoms.iter().zip(&settings).zip(&mut earlier)
            {
                let atom_score = if atom.kind == AtomKind::Fuzzy && !atom.negative {
                    let needle = atom.needle_text();
                    // Only an ASCII match longer than the word is reused: a path exactly as long
                    // as the word is matched exactly, not greedily.
                    let reusable = ascii && needle.len() < bytes.len();
                    match earlier
                        .as_ref()
                        .filter(|e| reusable && e.end <= bytes.len() && bytes[..e.end] == e.path[..e.end])
                    {
                        Some(e) => Some(e.score),
                        None => {
                            matcher.config.ignore_case = ignore_case;
                            matcher.config.normalize = normalize;
                            positions.clear();
                            let found = matcher.fuzzy_indices_greedy(haystack, needle, &mut positions);
                            if let (Some(score), Some(&last), true) = (found, positions.last(), reusable) {
                                *earlier = Some(Greedy {
                                    path: bytes,
                                    end: last as usize + 1,
                                    score,
                                });
                            }
                            found
                        }
                    }
                } else {
                    atom.score(haystack, &mut matcher)
                };
                match atom_score {
                    Some(s) => score += u32::from(s),
                    None => continue 'paths,
                }
            }
            matched.push(index);
            let len = bytes.len();
            keep_best(std::iter::once(Ranked { score, len, index }), keep, &mut best);
        }
        (matched, best)
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let (matched, best) = if threads == 1 || total < PARALLEL_FROM {
        score_range(0, total)
    } else {
        let per = total.div_ceil(threads);
        std::thread::scope(|scope| {
            let workers: Vec<_> = (1..threads)
                .map(|t| {
                    let score_range = &score_range;
                    scope.spawn(move || score_range((t * per).min(total), ((t + 1) * per).min(total)))
                })
                .collect();
            let (mut matched, mut best) = score_range(0, per.min(total));
            for worker in workers {
                // A worker that panicked lost only its share of the matches.
                if let Ok((more, their_best)) = worker.join() {
                    matched.extend(more);
                    keep_best(their_best.into_iter(), keep, &mut best);
                }
            }
            (matched, best)
        })
    };
    Rough {
        matched,
        best: best.into_iter().map(|r| (r.score, r.index)).collect(),
    }
}

/// Better score first, then the shorter path, then by name (the paths are sorted, so a smaller
/// index is the smaller name: no string is compared).
fn rank(paths: &PathList, a: &(u32, u32), b: &(u32, u32)) -> std::cmp::Ordering {
    let len = |index: u32| paths.len_of(index as usize);
    b.0.cmp(&a.0).then(len(a.1).cmp(&len(b.1))).then(a.1.cmp(&b.1))
}

/// The best `limit` of `scored`, best first (ties: shorter path, then by name), with the matched
/// characters' positions.
pub(super) fn best(paths: &PathList, scored: &[(u32, u32)], query: &str, limit: usize) -> Vec<FileMatch> {
    let order = |a: &(u32, u32), b: &(u32, u32)| rank(paths, a, b);
    let mut top: Vec<(u32, u32)> = scored.to_vec();
    if top.len() > limit && limit > 0 {
        top.select_nth_unstable_by(limit - 1, order);
        top.truncate(limit);
    }
    top.sort_by(order);
    top.truncate(limit);
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut chars = Vec::new();
    top.into_iter()
        .filter_map(|(score, index)| {
            let path = paths.get(index as usize)?;
            let mut indices = Vec::new();
            pattern.indices(Utf32Str::new(path, &mut chars), &mut matcher, &mut indices);
            indices.sort_unstable();
            indices.dedup();
            Some(FileMatch {
                path: path.to_string(),
                score,
                indices,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exhaustive(paths: &PathList, query: &str) -> Vec<(u32, u32)> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut chars = Vec::new();
        (0..paths.len() as u32)
            .filter_map(|i| {
                let haystack = Utf32Str::new(paths.get(i as usize)?, &mut chars);
                pattern.score(haystack, &mut matcher).map(|s| (s, i))
            })
            .collect()
    }

    /// The greedy score of every path, each computed on its own (nothing reused), in index order.
    fn greedy_path_by_path(paths: &PathList, candidates: &[u32], query: &str) -> Vec<(u32, u32)> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut chars = Vec::new();
        candidates
            .iter()
            .filter_map(|&index| {
                let haystack = Utf32Str::new(paths.get(index as usize)?, &mut chars);
                let mut total = 0;
                for atom in &pattern.atoms {
                    let needle = atom.needle_text();
                    let score = if atom.kind == AtomKind::Fuzzy && !atom.negative {
                        matcher.config.ignore_case = !needle.chars().any(char::is_uppercase);
                        matcher.config.normalize = needle.chars().all(|c| c.is_ascii());
                        matcher.fuzzy_match_greedy(haystack, needle)
                    } else {
                        atom.score(haystack, &mut matcher)
                    };
                    total += u32::from(score?);
                }
                Some((total, index))
            })
            .collect()
    }

    fn synthetic(n: usize) -> PathList {
        PathList::new(
            (0..n)
                .map(|i| {
                    format!(
                        "pkg_{:03}/src/mod_{:02}/file_{:03}.{}",
                        i / 1000,
                        i / 50 % 20,
                        i % 500,
                        ["rs", "ts", "md"][i % 3]
                    )
                    .into()
                })
                .collect(),
        )
    }

    #[test]
    fn reused_greedy_scores_are_the_scores_path_by_path() {
        let mut names: Vec<Box<str>> = synthetic(25_000).iter().map(Into::into).collect();
        // Folders that are prefixes of each other, a path as long as a query, case, non-ASCII
        // names (matched on characters, not bytes), repeated letters.
        for name in [
            "src",
            "src/m",
            "src/mod",
            "src/mod_1",
            "src/mod_1x",
            "src/mod_1/a",
            "src/mod_1/b.rs",
            "SRC/Mod_1/c.rs",
            "src/mödül/x.rs",
            "src/mod_ü/y.rs",
            "ssss/rrrr/cccc",
            "déjà/vu/src.rs",
            "a/src/mod_1/z",
            "Src",
            "SRC/MOD_1",
        ] {
            names.push(name.into());
        }
        let paths = PathList::new(names);
        let every: Vec<u32> = (0..paths.len() as u32).collect();
        let some: Vec<u32> = every.iter().copied().filter(|i| i % 7 != 3).collect();
        for query in [
            "s",
            "src",
            "src/mod_1",
            "src/m",
            "Mod_1",
            "SRC",
            "mod_1 src",
            "rs",
            "p4m7",
            "ü",
            "mödül",
            "déjà src",
            "ssrc",
            "file_12 rs",
            "^src",
            "!ts mod",
            "md$",
            "'src/mod",
            "zzq",
        ] {
            let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
            for candidates in [&every, &some] {
                let Rough { matched, mut best } =
                    rough_scores(&paths, Some(candidates), &pattern, usize::MAX);
                best.sort_unstable_by_key(|(_, index)| *index);
                let expected = greedy_path_by_path(&paths, candidates, query);
                assert_eq!(best, expected, "{query}");
                assert_eq!(
                    matched,
                    expected.iter().map(|(_, index)| *index).collect::<Vec<_>>(),
                    "{query}"
                );
            }
        }
    }

    #[test]
    fn rescoring_the_roughly_best_finds_the_exactly_best() {
        let paths = synthetic(30_000);
        for query in ["f", "src/mod_1", "p4m7", "file_12 rs", "Mod", "md$", "!ts mod"] {
            let (scored, matched) = score_all(&paths, None, query);
            let all = exhaustive(&paths, query);
            assert_eq!(matched.len(), all.len(), "{query}: the same files match");
            assert_eq!(
                best(&paths, &scored, query, 50),
                best(&paths, &all, query, 50),
                "{query}"
            );
        }
    }

    #[test]
    fn only_plain_extensions_narrow() {
        assert!(narrows("src", "src/m"));
        assert!(narrows("", "a"));
        assert!(narrows("src", "src main"));
        assert!(!narrows("src", "sr"));
        assert!(!narrows("!src", "!srcx"), "a longer negation excludes less");
        assert!(!narrows("rs", "rs$"));
        assert!(!narrows("main", "xmain"));
    }
}
