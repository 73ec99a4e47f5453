//! The Bash tool's limits, in one place.

/// Timeout when the model gives none, in milliseconds (two minutes).
pub(crate) const DEFAULT_TIMEOUT_MS: u64 = 120_000;
/// Longest timeout the model may ask for, in milliseconds (ten minutes).
pub(crate) const MAX_TIMEOUT_MS: u64 = 600_000;
/// Results longer than this would be persisted by the pipeline; the tool keeps its own results
/// shorter (head and tail of the output plus a pointer to the full output file).
pub const MAX_RESULT_CHARS: usize = 30_000;
