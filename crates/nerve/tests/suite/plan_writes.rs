//! Plan mode changes nothing until the plan is approved, whatever allow rules, hooks or the tools
//! themselves say: a table over the calls that change files × allow rules that cover them × modes.
//! Reads and read-only checks still follow the rules in plan mode.

use crate::support::{TestProject, single_call, text_of};
use nerve::permissions::{DecidedBy, PermissionMode, RuleBehavior, Verdict};
use serde_json::{Value, json};

/// Calls that change something, `{abs}` standing for the project folder.
fn writes() -> Vec<(&'static str, Value)> {
    vec![
        (
            "Write",
            json!({"file_path": "{abs}/src/a.rs", "content": "changed"}),
        ),
        (
            "Write",
            json!({"file_path": "{abs}/src/new.rs", "content": "new"}),
        ),
        (
            "Edit",
            json!({"file_path": "{abs}/src/a.rs", "old_string": "x", "new_string": "changed"}),
        ),
        (
            "NotebookEdit",
            json!({"notebook_path": "{abs}/src/n.ipynb", "new_source": "changed", "cell_id": "c1"}),
        ),
        ("Bash", json!({"command": "touch src/new.rs"})),
        ("Bash", json!({"command": "rm src/a.rs"})),
        ("Bash", json!({"command": "echo changed > src/a.rs"})),
        ("Bash", json!({"command": "git init"})),
    ]
}

const ALLOW_RULES: [&str; 9] = [
    "Edit(/src/**)",
    "Edit(./src/**)",
    "Edit",
    "Write",
    "NotebookEdit",
    "Bash",
    "Bash(*)",
    "Bash(touch *)",
    "Bash(rm *)",
];

const MODES: [PermissionMode; 6] = [
    PermissionMode::Plan,
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::DontAsk,
    PermissionMode::Auto,
    PermissionMode::BypassPermissions,
];

fn with_project(input: &Value, abs: &str) -> Value {
    serde_json::from_str(&input.to_string().replace("{abs}", abs)).unwrap()
}

fn project() -> TestProject {
    let p = TestProject::new();
    p.write("src/a.rs", "x\n");
    p.write(
        "src/n.ipynb",
        r#"{"cells": [{"id": "c1", "cell_type": "code", "source": "x", "metadata": {}, "outputs": [], "execution_count": null}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}"#,
    );
    p
}

#[tokio::test]
async fn plan_mode_refuses_every_change_whatever_the_allow_rules_say() {
    let p = project();
    let abs = p.project_dir().display().to_string();
    let mut checked = 0;
    let mut allowed_outside_plan = 0;
    let mut failures = Vec::new();
    for rule in ALLOW_RULES {
        for mode in MODES {
            let s = p.builtin_session(mode, &[(RuleBehavior::Allow, rule)]);
            for (tool, input) in writes() {
                let call = single_call(tool, with_project(&input, &abs));
                let eval = s
                    .pipeline
                    .check(&call, &s.context, None)
                    .await
                    .unwrap()
                    .evaluation;
                checked += 1;
                if mode == PermissionMode::Plan {
                    let refused = eval.decision == Verdict::Deny
                        && eval.decided_by == DecidedBy::Mode
                        && eval.reason.contains("plan mode refuses")
                        && eval.reason.contains("ExitPlanMode");
                    if !refused {
                        failures.push(format!(
                            "{rule} {tool} {input}: {:?} ({})",
                            eval.decision, eval.reason
                        ));
                    }
                } else if eval.decision == Verdict::Allow {
                    allowed_outside_plan += 1;
                }
            }
        }
    }
    // The same rules do allow these calls outside plan mode, so plan mode is what refuses them.
    let s = p.builtin_session(PermissionMode::Default, &[(RuleBehavior::Allow, "Edit(/src/**)")]);
    let call = single_call("Write", with_project(&writes()[0].1, &abs));
    let eval = s
        .pipeline
        .check(&call, &s.context, None)
        .await
        .unwrap()
        .evaluation;
    assert_eq!(
        (eval.decision, eval.reason.as_str()),
        (Verdict::Allow, "allowed by rule Edit(/src/**)")
    );
    println!(
        "plan writes: {checked} decisions checked ({} writes x {} allow rules x {} modes); {} in plan mode all \
         refused, {allowed_outside_plan} of the others allowed",
        writes().len(),
        ALLOW_RULES.len(),
        MODES.len(),
        writes().len() * ALLOW_RULES.len()
    );
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        allowed_outside_plan > writes().len() * ALLOW_RULES.len(),
        "{allowed_outside_plan}"
    );
}

#[tokio::test]
async fn reads_and_read_only_checks_follow_the_rules_in_plan_mode() {
    let p = project();
    let abs = p.project_dir().display().to_string();
    let outside = tempfile::tempdir().unwrap();
    let outside_file = outside.path().join("notes.txt");
    std::fs::write(&outside_file, "x").unwrap();
    let allow_outside = format!("Read(/{}/**)", outside.path().display());
    let rules = [
        (RuleBehavior::Deny, "Read(./src/secret.rs)"),
        (RuleBehavior::Allow, allow_outside.as_str()),
        (RuleBehavior::Allow, "Bash(cargo check *)"),
    ];
    let s = p.builtin_session(PermissionMode::Plan, &rules);
    let cases = [
        ("Read", json!({"file_path": "{abs}/src/a.rs"}), Verdict::Allow),
        ("Read", json!({"file_path": "{abs}/src/secret.rs"}), Verdict::Deny),
        (
            "Read",
            json!({"file_path": outside_file.display().to_string()}),
            Verdict::Allow,
        ),
        ("Read", json!({"file_path": "/etc/hostname"}), Verdict::Ask),
        ("Grep", json!({"pattern": "x"}), Verdict::Allow),
        ("Glob", json!({"pattern": "**/*.rs"}), Verdict::Allow),
        ("Bash", json!({"command": "ls src"}), Verdict::Allow),
        ("Bash", json!({"command": "git status"}), Verdict::Allow),
        // Building writes `target/`: allowed by its rule only once the plan is approved.
        ("Bash", json!({"command": "cargo check --all"}), Verdict::Deny),
        ("Bash", json!({"command": "cat src/secret.rs"}), Verdict::Deny),
    ];
    for (tool, input, want) in &cases {
        let call = single_call(tool, with_project(input, &abs));
        let eval = s
            .pipeline
            .check(&call, &s.context, None)
            .await
            .unwrap()
            .evaluation;
        assert_eq!(eval.decision, *want, "{tool} {input}: {}", eval.reason);
    }
    println!(
        "plan writes: {} reads and read-only checks follow the rules in plan mode",
        cases.len()
    );
}

#[tokio::test]
async fn a_hook_that_allows_does_not_make_a_write_run_in_plan_mode() {
    let p = project();
    let hook = p.script(
        "allow.sh",
        "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}'",
    );
    p.write(
        ".nerve/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let file = p.project_dir().join("src/new.rs");
    let write = single_call(
        "Write",
        json!({"file_path": file.display().to_string(), "content": "new"}),
    );
    let s = p.builtin_session(PermissionMode::Plan, &[(RuleBehavior::Allow, "Edit(/src/**)")]);
    let out = s.run_one(&write).await;
    assert!(out.denied, "{}", text_of(&out.content));
    assert!(
        text_of(&out.content).contains("plan mode refuses Write"),
        "{}",
        text_of(&out.content)
    );
    assert!(!file.exists(), "nothing was written in plan mode");

    // Outside plan mode the same hook lets it run.
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let out = s.run_one(&write).await;
    assert!(!out.is_error, "{}", text_of(&out.content));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "new");
}
