//! Fuzzy matching of a typed query against the indexed paths, split across the cores.

pub use nerve_protocol::prompt::FileMatch;

use nucleo_matcher::pattern::{AtomKind, CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};

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
    paths: &[Box<str>],
    candidates: Option<&[u32]>,
    query: &str,
) -> (Vec<(u32, u32)>, Vec<u32>) {
    let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
    let rough = rough_scores(paths, candidates, &pattern);
    let matched: Vec<u32> = rough.iter().map(|(_, index)| *index).collect();
    let mut kept = rough;
    if kept.len() > RESCORED {
        kept.select_nth_unstable_by(RESCORED - 1, |a, b| rank(paths, a, b));
        kept.truncate(RESCORED);
    }
    let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
    let mut chars = Vec::new();
    let exact = kept
        .into_iter()
        .filter_map(|(_, index)| {
            let path = &paths[index as usize];
            pattern
                .score(Utf32Str::new(path, &mut chars), &mut matcher)
                .map(|score| (score, index))
        })
        .collect();
    (exact, matched)
}

/// Every match with its greedy score, on every core, in index order.
fn rough_scores(paths: &[Box<str>], candidates: Option<&[u32]>, pattern: &Pattern) -> Vec<(u32, u32)> {
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
        let mut out = Vec::new();
        'paths: for i in start..end {
            let index = candidates.map_or(i as u32, |c| c[i]);
            let Some(path) = paths.get(index as usize) else {
                continue;
            };
            let haystack = Utf32Str::new(path, &mut chars);
            let mut score = 0u32;
            for (atom, &(ignore_case, normalize)) in pattern.atoms.iter().zip(&settings) {
                let atom_score = if atom.kind == AtomKind::Fuzzy && !atom.negative {
                    matcher.config.ignore_case = ignore_case;
                    matcher.config.normalize = normalize;
                    matcher.fuzzy_match_greedy(haystack, atom.needle_text())
                } else {
                    atom.score(haystack, &mut matcher)
                };
                match atom_score {
                    Some(s) => score += u32::from(s),
                    None => continue 'paths,
                }
            }
            out.push((score, index));
        }
        out
    };
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads == 1 || total < PARALLEL_FROM {
        return score_range(0, total);
    }
    let per = total.div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (1..threads)
            .map(|t| {
                let score_range = &score_range;
                scope.spawn(move || score_range((t * per).min(total), ((t + 1) * per).min(total)))
            })
            .collect();
        let mut all = score_range(0, per.min(total));
        for worker in workers {
            // A worker that panicked lost only its share of the matches.
            if let Ok(part) = worker.join() {
                all.extend(part);
            }
        }
        all
    })
}

/// Better score first, then the shorter path, then by name (the paths are sorted, so a smaller
/// index is the smaller name: no string is compared).
fn rank(paths: &[Box<str>], a: &(u32, u32), b: &(u32, u32)) -> std::cmp::Ordering {
    let len = |index: u32| paths.get(index as usize).map_or(0, |p| p.len());
    b.0.cmp(&a.0).then(len(a.1).cmp(&len(b.1))).then(a.1.cmp(&b.1))
}

/// The best `limit` of `scored`, best first (ties: shorter path, then by name), with the matched
/// characters' positions.
pub(super) fn best(paths: &[Box<str>], scored: &[(u32, u32)], query: &str, limit: usize) -> Vec<FileMatch> {
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
        .map(|(score, index)| {
            let path = &paths[index as usize];
            let mut indices = Vec::new();
            pattern.indices(Utf32Str::new(path, &mut chars), &mut matcher, &mut indices);
            indices.sort_unstable();
            indices.dedup();
            FileMatch {
                path: path.to_string(),
                score,
                indices,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exhaustive(paths: &[Box<str>], query: &str) -> Vec<(u32, u32)> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT.match_paths());
        let mut chars = Vec::new();
        (0..paths.len() as u32)
            .filter_map(|i| {
                let haystack = Utf32Str::new(&paths[i as usize], &mut chars);
                pattern.score(haystack, &mut matcher).map(|s| (s, i))
            })
            .collect()
    }

    #[test]
    fn rescoring_the_roughly_best_finds_the_exactly_best() {
        let paths: Vec<Box<str>> = (0..30_000)
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
            .collect();
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
