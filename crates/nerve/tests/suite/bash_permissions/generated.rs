//! The harness of the generated permission tests (`holes*`): a case is a command, a mode, the rules
//! in effect and the verdict wanted; `check_all` runs a class of them and fails with every mismatch.

use nerve::permissions::{PermissionMode, RuleBehavior, Verdict};

use super::{context, evaluation};

/// What a case expects.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Want {
    /// Exactly this verdict.
    Is(Verdict),
    /// Ask or deny: never allowed silently.
    NotAllowed,
}

/// One generated case.
pub(super) struct Case {
    pub(super) command: String,
    pub(super) mode: PermissionMode,
    pub(super) rules: Vec<(RuleBehavior, String)>,
    pub(super) want: Want,
}

/// A case of `command` in `mode` under `rules`.
pub(super) fn case(
    command: impl Into<String>,
    mode: PermissionMode,
    rules: &[(RuleBehavior, &str)],
    want: Want,
) -> Case {
    Case {
        command: command.into(),
        mode,
        rules: rules.iter().map(|(b, r)| (*b, r.to_string())).collect(),
        want,
    }
}

/// Runs every case and fails with the list of mismatches; returns how many cases ran.
pub(super) fn check_all(class: &str, cases: &[Case]) -> usize {
    let mut failures = Vec::new();
    for case in cases {
        let rules: Vec<(RuleBehavior, &str)> = case.rules.iter().map(|(b, r)| (*b, r.as_str())).collect();
        let got = evaluation(&case.command, &context(case.mode, &rules));
        let ok = match case.want {
            Want::Is(v) => got.decision == v,
            Want::NotAllowed => got.decision != Verdict::Allow,
        };
        if !ok {
            failures.push(format!(
                "{:?} in {:?} with {:?}: want {:?}, got {:?} ({})",
                case.command, case.mode, case.rules, case.want, got.decision, got.reason
            ));
        }
    }
    println!("{class}: {} generated cases", cases.len());
    assert!(
        failures.is_empty(),
        "{class}: {} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
    cases.len()
}
