//! Result budgeting: per-tool size limits (the pipeline applies them to each result), the
//! per-message aggregate budget (the loop applies it to a turn's results), and the store of
//! persisted outputs the model (and the UI) can read back.

mod aggregate;
mod per_result;
mod preview;
mod store;

pub use aggregate::{
    BudgetedResult, ContentReplacementState, MESSAGE_BUDGET_CHARS, Replacement, ReplacementRecord,
    enforce_message_budget,
};
pub use per_result::{FittedResult, fit_result, list_saved_output};
pub use preview::{PREVIEW_BYTES, empty_result_text, persisted_wrapper, preview_of};
pub use store::{IndexEntry, PersistedOutput, ResultStore};

use crate::tool::ResultBlock;

/// Total budget characters of a result.
pub fn result_chars(content: &[ResultBlock]) -> usize {
    content.iter().map(ResultBlock::budget_chars).sum()
}
