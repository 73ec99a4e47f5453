//! Generated tests for the third review's holes about writes, wrappers and what counts as
//! destructive: every class is checked over many spellings, modes and rules, and each test prints how
//! many cases it checked.

use nerve::permissions::{PermissionMode, RuleBehavior, Verdict};

use super::{context, evaluation};

mod destructive;
mod protected_writes;
mod wrappers;

/// What a case expects.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Want {
    /// Exactly this verdict.
    Is(Verdict),
    /// Ask or deny: never allowed silently.
    NotAllowed,
}

struct Case {
    command: String,
    mode: PermissionMode,
    rules: Vec<(RuleBehavior, String)>,
    want: Want,
}

fn case(
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

/// Runs every case and fails with the list of mismatches.
fn check_all(class: &str, cases: &[Case]) {
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
}
