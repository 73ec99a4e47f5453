//! The project's files for a composer's `@` picker: an index built once per project by one walk
//! that honours `.gitignore` and the other ignore files as Glob and Grep do (ripgrep's `ignore`
//! crate, hidden files left out), kept fresh by a file watcher (`notify`), and fuzzy matching as the
//! user types (nucleo's matcher, scored for paths, with the matched characters' positions for
//! highlighting).
//!
//! Typing narrows: when a query extends the previous one, only the previous matches are scored
//! again, so the cost of a keystroke falls as the query grows; the first character scores every
//! file, on every core.

mod index;
mod matching;
mod path_list;
mod scan;

pub use index::FileIndex;
pub use matching::FileMatch;

/// Most files an index holds (a picker over more would not help anyone, and each costs memory).
pub const MAX_FILES: usize = 5_000_000;
