//! The index's paths: sorted, distinct, and stored end to end in one buffer.
//!
//! Every keystroke in the picker reads every path in order. Packed, they are read from contiguous
//! memory; as a million names allocated one by one (in the order the walk's threads found them,
//! then sorted) each read was a cache miss, and a search over a million files took 3–8 times as
//! long (60 ms instead of 13 ms for a query nothing matches, on two cores).

use std::ops::Range;

#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(super) struct PathList {
    text: String,
    /// Where each path ends in `text` (each starts where the one before it ends).
    ends: Vec<usize>,
}

impl PathList {
    /// The list of `paths`, in any order and with repeats.
    pub fn new(mut paths: Vec<Box<str>>) -> Self {
        paths.sort_unstable();
        paths.dedup();
        let mut list = Self::with_capacity(paths.iter().map(|p| p.len()).sum(), paths.len());
        for path in &paths {
            list.push(path);
        }
        list
    }

    fn with_capacity(bytes: usize, paths: usize) -> Self {
        Self {
            text: String::with_capacity(bytes),
            ends: Vec::with_capacity(paths),
        }
    }

    /// Appends `path`, which sorts after every path in the list.
    fn push(&mut self, path: &str) {
        self.text.push_str(path);
        self.ends.push(self.text.len());
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// The `index`th path by name.
    pub fn get(&self, index: usize) -> Option<&str> {
        let end = *self.ends.get(index)?;
        let start = index.checked_sub(1).map_or(0, |before| self.ends[before]);
        self.text.get(start..end)
    }

    /// The length in bytes of the `index`th path (0 past the end), without reading it.
    pub fn len_of(&self, index: usize) -> usize {
        let Some(&end) = self.ends.get(index) else {
            return 0;
        };
        end - index.checked_sub(1).map_or(0, |before| self.ends[before])
    }

    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).filter_map(|index| self.get(index))
    }

    /// The indices of the paths that start with `prefix` (`""`: all), a run since they are sorted.
    pub fn starting_with(&self, prefix: &str) -> Range<usize> {
        let first = self.partition_point(|path| path < prefix);
        let end = first + self.partition_point_from(first, |path| path.starts_with(prefix));
        first..end
    }

    /// The index of `path`, if it is listed.
    pub fn position(&self, path: &str) -> Option<usize> {
        let at = self.partition_point(|listed| listed < path);
        (self.get(at) == Some(path)).then_some(at)
    }

    /// How many paths from the start satisfy `before` (which holds for a prefix of the list).
    fn partition_point(&self, before: impl Fn(&str) -> bool) -> usize {
        self.partition_point_from(0, before)
    }

    fn partition_point_from(&self, from: usize, before: impl Fn(&str) -> bool) -> usize {
        let (mut low, mut high) = (from, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if self.get(middle).is_some_and(&before) {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        low - from
    }

    /// This list without the paths at the `removed` indices (ranges in any order, may overlap),
    /// and with the `added` paths (in any order; ones already listed are not repeated).
    pub fn edited(&self, mut removed: Vec<Range<usize>>, mut added: Vec<Box<str>>) -> Self {
        removed.sort_unstable_by_key(|range| range.start);
        added.sort_unstable();
        added.dedup();
        let mut list = Self::with_capacity(
            self.text.len() + added.iter().map(|p| p.len()).sum::<usize>(),
            self.len() + added.len(),
        );
        let mut removed = removed.into_iter().peekable();
        let mut added = added.iter().map(|p| &**p).peekable();
        for (index, path) in self.iter().enumerate() {
            while removed.peek().is_some_and(|range| range.end <= index) {
                removed.next();
            }
            if removed.peek().is_some_and(|range| range.contains(&index)) {
                continue;
            }
            while let Some(new) = added.next_if(|new| *new <= path) {
                if new != path && list.last() != Some(new) {
                    list.push(new);
                }
            }
            list.push(path);
        }
        for new in added {
            if list.last() != Some(new) {
                list.push(new);
            }
        }
        list
    }

    fn last(&self) -> Option<&str> {
        self.len().checked_sub(1).and_then(|index| self.get(index))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn list(paths: &[&str]) -> PathList {
        PathList::new(paths.iter().map(|p| (*p).into()).collect())
    }

    fn all(list: &PathList) -> Vec<&str> {
        list.iter().collect()
    }

    #[test]
    fn paths_are_sorted_distinct_and_read_back_whole() {
        let paths = list(&["src/b.rs", "a.txt", "src/a/x.rs", "src/b.rs", "src/a.rs"]);
        assert_eq!(all(&paths), ["a.txt", "src/a.rs", "src/a/x.rs", "src/b.rs"]);
        assert_eq!(paths.len(), 4);
        assert_eq!((paths.get(1), paths.get(4)), (Some("src/a.rs"), None));
        assert_eq!((paths.len_of(2), paths.len_of(9)), ("src/a/x.rs".len(), 0));
        assert_eq!(all(&PathList::default()), Vec::<&str>::new());
    }

    #[test]
    fn a_folder_is_one_run_and_a_path_is_found_by_name() {
        let paths = list(&["a.txt", "src/a.rs", "src/a/x.rs", "src/ab.rs", "srcs/c.rs", "z"]);
        assert_eq!(paths.starting_with("src/"), 1..4);
        assert_eq!(paths.starting_with("src/a/"), 2..3);
        assert_eq!(paths.starting_with(""), 0..6);
        assert_eq!(paths.starting_with("nope/"), 1..1);
        assert_eq!(paths.starting_with("zz/"), 6..6);
        assert_eq!(paths.position("src/ab.rs"), Some(3));
        assert_eq!(paths.position("src/a"), None);
        assert_eq!(paths.position("zz"), None);
    }

    #[test]
    fn edits_remove_ranges_and_merge_new_paths_in_order() {
        let paths = list(&["a", "c", "e", "g", "i"]);
        assert_eq!(
            all(&paths.edited(
                vec![3..4, 0..1, 0..1],
                vec!["h".into(), "b".into(), "c".into(), "j".into(), "b".into()]
            )),
            ["b", "c", "e", "h", "i", "j"]
        );
        assert_eq!(all(&paths.edited(vec![0..2, 2..5], vec!["x".into()])), ["x"]);
        assert_eq!(all(&paths.edited(Vec::new(), Vec::new())), all(&paths));
        assert_eq!(
            all(&PathList::default().edited(Vec::new(), vec!["b".into(), "a".into()])),
            ["a", "b"]
        );
    }
}
