//! Greedy partitioning of tool calls into batches.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::pipeline::{ToolCall, prepare_input};
use crate::tool::{DynTool, PreparedInput, ToolPool};

/// A run of calls executed together (concurrent) or one call alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// Whether the calls run in parallel.
    pub concurrent: bool,
    /// Indices into the call list, in request order.
    pub calls: Vec<usize>,
}

/// Whether a call may run in parallel with other safe calls. Fails closed: an unknown tool, input
/// that does not validate, or a safety predicate that panics all mean "not safe".
pub fn call_is_concurrency_safe(pool: &ToolPool, call: &ToolCall) -> bool {
    let Some(tool) = pool.find(&call.name) else {
        return false;
    };
    match prepare_input(pool, tool.as_ref(), call.input.clone()) {
        Ok(input) => input_is_concurrency_safe(tool.as_ref(), &input),
        Err(_) => false,
    }
}

/// Whether an input already prepared for `tool` may run in parallel with other safe calls; a
/// safety predicate that panics means "not safe".
pub fn input_is_concurrency_safe(tool: &dyn DynTool, input: &PreparedInput) -> bool {
    // A predicate that panics (a parser bug on odd input) must not take the turn down with it.
    catch_unwind(AssertUnwindSafe(|| tool.is_concurrency_safe(input))).unwrap_or(false)
}

/// Splits calls into batches: consecutive safe calls share a batch; every unsafe call is alone.
/// Batch order is request order.
pub fn partition(safe: &[bool]) -> Vec<Batch> {
    let mut batches: Vec<Batch> = Vec::new();
    for (i, &is_safe) in safe.iter().enumerate() {
        match batches.last_mut() {
            Some(last) if is_safe && last.concurrent => last.calls.push(i),
            _ => batches.push(Batch {
                concurrent: is_safe,
                calls: vec![i],
            }),
        }
    }
    batches
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    #[test]
    fn groups_consecutive_safe_calls() {
        let b = partition(&[true, true, false, true, false, false, true, true, true]);
        assert_eq!(
            b,
            vec![
                Batch {
                    concurrent: true,
                    calls: vec![0, 1]
                },
                Batch {
                    concurrent: false,
                    calls: vec![2]
                },
                Batch {
                    concurrent: true,
                    calls: vec![3]
                },
                Batch {
                    concurrent: false,
                    calls: vec![4]
                },
                Batch {
                    concurrent: false,
                    calls: vec![5]
                },
                Batch {
                    concurrent: true,
                    calls: vec![6, 7, 8]
                },
            ]
        );
    }

    proptest! {
        #[test]
        fn partition_preserves_order_and_rules(safe in proptest::collection::vec(any::<bool>(), 0..40)) {
            let batches = partition(&safe);
            // Every call appears exactly once, in order.
            let flat: Vec<usize> = batches.iter().flat_map(|b| b.calls.clone()).collect();
            prop_assert_eq!(flat, (0..safe.len()).collect::<Vec<_>>());
            for b in &batches {
                // Unsafe calls are alone; a batch's calls share its safety.
                if !b.concurrent { prop_assert_eq!(b.calls.len(), 1); }
                for &i in &b.calls { prop_assert_eq!(safe[i], b.concurrent); }
            }
            // Two neighbouring concurrent batches would have been one.
            for w in batches.windows(2) {
                prop_assert!(!(w[0].concurrent && w[1].concurrent));
            }
        }
    }
}
