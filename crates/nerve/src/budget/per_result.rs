//! The per-result budget (the pipeline's step 11): an empty result gets a placeholder, a result over
//! its tool's limit is persisted and replaced by a preview, and a file the tool saved its whole
//! output to is listed among the session's persisted outputs. The per-message budget
//! ([`super::enforce_message_budget`]) then caps a turn's results together; both live here so the
//! rules of what the model gets inline are read in one place.

use std::path::Path;

use crate::budget::{PersistedOutput, ResultStore, empty_result_text, persisted_wrapper, result_chars};
use crate::tool::ResultBlock;

/// A successful result after its own budget.
#[derive(Debug)]
pub struct FittedResult {
    /// What the model gets: the content, a placeholder, or the persisted output's wrapper.
    pub content: Vec<ResultBlock>,
    /// The file holding the whole output, when it went to one (the store's answer, kept so nobody
    /// reads the file or the index again for its size).
    pub persisted: Option<PersistedOutput>,
}

/// Fits one successful result of `tool_name` to its limit (`None`: the tool bounds itself and is
/// never persisted). A full disk keeps the output inline: nothing a tool returned is lost.
pub fn fit_result(
    store: &ResultStore,
    tool_name: &str,
    call_id: &str,
    mut content: Vec<ResultBlock>,
    limit: Option<usize>,
    saved_output: Option<&Path>,
) -> FittedResult {
    if content.is_empty()
        || (result_chars(&content) == 0 && content.iter().all(|b| matches!(b, ResultBlock::Text { .. })))
    {
        content = vec![ResultBlock::text(empty_result_text(tool_name))];
    }
    let mut persisted = None;
    if let Some(limit) = limit
        && result_chars(&content) > limit
    {
        match store.persist(tool_name, call_id, &content) {
            Ok(p) => {
                content = vec![ResultBlock::text(persisted_wrapper(&p))];
                persisted = Some(p);
            }
            Err(e) => {
                tracing::warn!(error_kind = ?e.kind(), "could not persist a large tool result; keeping it inline");
            }
        }
    }
    if persisted.is_none()
        && let Some(path) = saved_output
    {
        persisted = list_saved_output(store, tool_name, call_id, path);
    }
    FittedResult { content, persisted }
}

/// Lists a file a tool saved its whole output to (a Bash log) among the session's persisted
/// outputs. A file outside the session's results folder, or an index that cannot be written, only
/// costs the card its link.
pub fn list_saved_output(
    store: &ResultStore,
    tool_name: &str,
    call_id: &str,
    path: &Path,
) -> Option<PersistedOutput> {
    match store.index_saved(tool_name, call_id, path) {
        Ok(p) => Some(p),
        Err(e) => {
            tracing::warn!(error_kind = ?e.kind(), "could not list a tool's saved output");
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn an_empty_result_gets_the_placeholder_and_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let fitted = fit_result(
            &store,
            "Bash",
            "t1",
            vec![ResultBlock::text("")],
            Some(1_000),
            None,
        );
        assert_eq!(fitted.content, vec![ResultBlock::text(empty_result_text("Bash"))]);
        assert_eq!(fitted.persisted, None);
    }

    #[test]
    fn a_result_over_its_limit_is_persisted_and_the_store_answer_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let big = "x".repeat(100);
        let fitted = fit_result(
            &store,
            "Grep",
            "t1",
            vec![ResultBlock::text(big.clone())],
            Some(50),
            None,
        );
        let p = fitted.persisted.unwrap();
        assert_eq!(p.size_bytes, 100);
        assert_eq!(std::fs::read_to_string(&p.path).unwrap(), big);
        assert_eq!(fitted.content, vec![ResultBlock::text(persisted_wrapper(&p))]);
    }

    #[test]
    fn a_tool_without_a_limit_is_never_persisted() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        let big = "x".repeat(100);
        let fitted = fit_result(
            &store,
            "Read",
            "t1",
            vec![ResultBlock::text(big.clone())],
            None,
            None,
        );
        assert_eq!(
            (fitted.content, fitted.persisted),
            (vec![ResultBlock::text(big)], None)
        );
    }

    #[test]
    fn a_full_disk_keeps_the_output_inline() {
        let dir = tempfile::tempdir().unwrap();
        let blocker = dir.path().join("file");
        std::fs::write(&blocker, "x").unwrap();
        let store = ResultStore::new(&blocker, "s");
        let big = "x".repeat(100);
        let fitted = fit_result(
            &store,
            "Grep",
            "t1",
            vec![ResultBlock::text(big.clone())],
            Some(50),
            None,
        );
        assert_eq!(
            (fitted.content, fitted.persisted),
            (vec![ResultBlock::text(big)], None)
        );
    }

    #[test]
    fn a_saved_log_is_listed_with_its_size() {
        let dir = tempfile::tempdir().unwrap();
        let store = ResultStore::new(dir.path(), "s");
        std::fs::create_dir_all(store.results_dir()).unwrap();
        let log = store.results_dir().join("bash-1.log");
        std::fs::write(&log, "12345").unwrap();
        let fitted = fit_result(
            &store,
            "Bash",
            "t1",
            vec![ResultBlock::text("tail")],
            Some(50),
            Some(&log),
        );
        let p = fitted.persisted.unwrap();
        assert_eq!((p.path, p.size_bytes), (log, 5));
    }
}
