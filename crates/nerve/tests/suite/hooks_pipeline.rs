//! Hooks configured in a project's settings file, run by the real pipeline.

use crate::support::{TestProject, text_of};
use nerve::permissions::{PermissionMode, RuleBehavior};
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectError};
use serde_json::json;

fn settings_with_hooks(p: &TestProject, hooks: serde_json::Value) {
    p.write(
        ".nerve/settings.json",
        &serde_json::to_string_pretty(&json!({ "hooks": hooks })).unwrap(),
    );
}

fn touch(file: &str) -> ToolCall {
    ToolCall {
        id: "toolu_h".into(),
        name: "TestTouch".into(),
        input: json!({"file_path": file, "content": "x"}),
    }
}

#[tokio::test]
async fn pre_tool_use_exit_2_blocks_with_stderr_as_reason() {
    let p = TestProject::new();
    let s = p.script(
        "block.sh",
        "cat > /dev/null; echo 'no writes on Fridays' >&2; exit 2",
    );
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"matcher": "TestTouch", "hooks": [{"type": "command", "command": s}]}]}),
    );
    let rt = p.session_with(PermissionMode::BypassPermissions, &[], None, true);
    let out = rt.run_one(&touch("a.txt")).await;
    assert!(out.denied);
    assert!(
        text_of(&out.content).contains("no writes on Fridays"),
        "{}",
        text_of(&out.content)
    );
    assert!(!p.project_dir().join("a.txt").exists());
}

#[tokio::test]
async fn pre_tool_use_sees_the_documented_input_and_can_rewrite_it() {
    let p = TestProject::new();
    let seen = p.project_dir().join("seen.json");
    let s = p.script(
        "rewrite.sh",
        &format!(
            "cat > {}; echo '{{\"hookSpecificOutput\": {{\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\", \"updatedInput\": {{\"file_path\": \"b.txt\", \"content\": \"rewritten\"}}}}}}'",
            seen.display()
        ),
    );
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"matcher": "Test.*", "hooks": [{"type": "command", "command": s}]}]}),
    );
    let rt = p.session_with(PermissionMode::AcceptEdits, &[], None, true);
    let out = rt.run_one(&touch("a.txt")).await;
    assert!(!out.is_error, "{}", text_of(&out.content));
    assert_eq!(
        std::fs::read_to_string(p.project_dir().join("b.txt")).unwrap(),
        "rewritten"
    );
    assert!(!p.project_dir().join("a.txt").exists());
    let input: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["tool_name"], "TestTouch");
    assert_eq!(input["tool_use_id"], "toolu_h");
    assert_eq!(input["permission_mode"], "acceptEdits");
    // Hooks see the backfilled input: an absolute path.
    assert_eq!(
        input["tool_input"]["file_path"],
        p.project_dir().join("a.txt").display().to_string()
    );
}

#[tokio::test]
async fn a_hook_allow_never_overrides_a_deny_rule() {
    let p = TestProject::new();
    let s = p.script(
        "allow.sh",
        "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"allow\"}}'",
    );
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"matcher": "*", "hooks": [{"type": "command", "command": s}]}]}),
    );
    let rt = p.session_with(
        PermissionMode::Default,
        &[(RuleBehavior::Deny, "TestTouch")],
        None,
        true,
    );
    assert!(rt.run_one(&touch("a.txt")).await.denied);
    // Without the deny rule, the hook's allow lets it run without asking (headless would deny an ask).
    let rt = p.session_with(PermissionMode::Default, &[], None, true);
    assert!(!rt.run_one(&touch("a.txt")).await.is_error);
}

#[tokio::test]
async fn post_tool_use_adds_context_and_block_feedback() {
    let p = TestProject::new();
    let s = p.script(
        "post.sh",
        "cat > /dev/null; echo '{\"decision\": \"block\", \"reason\": \"run the linter\", \"hookSpecificOutput\": {\"hookEventName\": \"PostToolUse\", \"additionalContext\": \"lint config at .lint\"}}'",
    );
    settings_with_hooks(
        &p,
        json!({"PostToolUse": [{"matcher": "TestEcho", "hooks": [{"type": "command", "command": s}]}]}),
    );
    let rt = p.session_with(PermissionMode::Default, &[], None, true);
    let out = rt
        .run_one(&ToolCall {
            id: "t".into(),
            name: "TestEcho".into(),
            input: json!({"text": "hi"}),
        })
        .await;
    let text = text_of(&out.content);
    assert!(text.contains("hi") && text.contains("run the linter"), "{text}");
    assert!(
        out.new_messages.iter().any(
            |m| matches!(m, nerve::tool::NewMessage::HookContext { text, .. } if text.contains(".lint"))
        )
    );
}

#[tokio::test]
async fn a_failing_hook_is_a_notice_not_a_block() {
    let p = TestProject::new();
    let s = p.script("broken.sh", "cat > /dev/null; echo oops >&2; exit 1");
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"hooks": [{"type": "command", "command": s}]}]}),
    );
    let rt = p.session_with(PermissionMode::Default, &[], None, true);
    let out = rt
        .run_one(&ToolCall {
            id: "t".into(),
            name: "TestEcho".into(),
            input: json!({"text": "hi"}),
        })
        .await;
    assert!(!out.is_error);
    assert!(
        p.recorder
            .events()
            .iter()
            .any(|e| matches!(e, nerve::events::Event::Notice { message } if message.contains("oops")))
    );
}

#[test]
fn a_bad_settings_file_is_an_error_naming_file_and_position() {
    let p = TestProject::new();
    p.write(
        ".nerve/settings.json",
        "{\n  \"permissions\": {\n    \"deny\": [\"Bash(rm *)\",]\n  }\n}\n",
    );
    let err = Project::open(p.options()).unwrap_err();
    let text = err.to_string();
    assert!(matches!(err, ProjectError::Settings(_)));
    assert!(
        text.contains(".nerve/settings.json") && text.contains(":3:"),
        "{text}"
    );
}

#[test]
fn a_bad_hooks_section_is_an_error() {
    let p = TestProject::new();
    p.write(
        ".nerve/settings.json",
        r#"{"hooks": {"PreToolUse": [{"matcher": "(", "hooks": []}]}}"#,
    );
    let err = Project::open(p.options()).unwrap_err();
    assert!(matches!(err, ProjectError::Hooks(_)), "{err}");
}

#[test]
fn claude_settings_are_read_at_lower_priority_and_can_be_turned_off() {
    let p = TestProject::new();
    p.write(
        ".claude/settings.json",
        r#"{"permissions": {"deny": ["TestTouch"]}}"#,
    );
    let project = Project::open(p.options()).unwrap();
    assert!(
        project
            .permission_context(true)
            .rules
            .snapshot()
            .bare_deny_for("TestTouch")
            .is_some()
    );
    let mut options = p.options();
    options.read_claude_settings = false;
    let project = Project::open(options).unwrap();
    assert!(
        project
            .permission_context(true)
            .rules
            .snapshot()
            .bare_deny_for("TestTouch")
            .is_none()
    );
}

/// An auto-mode classifier that takes `delay` to allow anything, and notes when it starts and ends
/// in `log` (shared with the hook scripts, which note their own end there).
struct SlowClassifier {
    delay: std::time::Duration,
    log: std::path::PathBuf,
}

fn note(log: &std::path::Path, line: &str) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(log)
        .unwrap();
    writeln!(f, "{line}").unwrap();
}

#[async_trait::async_trait]
impl nerve::permissions::AutoClassifier for SlowClassifier {
    async fn classify(
        &self,
        request: &nerve::permissions::ClassifierRequest<'_>,
    ) -> nerve::permissions::ClassifierVerdict {
        note(
            &self.log,
            &format!("classifier-start {}", request.classifier_input),
        );
        tokio::time::sleep(self.delay).await;
        note(&self.log, "classifier-end");
        nerve::permissions::ClassifierVerdict::Allow {
            reason: "harmless".into(),
        }
    }
}

fn auto_session(
    p: &TestProject,
    rules: &[(RuleBehavior, &str)],
    classifier_ms: u64,
) -> (nerve::project::SessionRuntime, std::path::PathBuf) {
    let log = p.dir.path().join("order.log");
    let classifier = std::sync::Arc::new(SlowClassifier {
        delay: std::time::Duration::from_millis(classifier_ms),
        log: log.clone(),
    });
    let runtime = p.session_with_setup(
        nerve::registry::all_builtin_tools(),
        false,
        PermissionMode::Auto,
        rules,
        nerve::project::SessionSetup {
            classifier: Some(classifier),
            headless: true,
            ..nerve::project::SessionSetup::default()
        },
    );
    (runtime, log)
}

fn bash(command: &str) -> ToolCall {
    ToolCall {
        id: "toolu_auto".into(),
        name: "Bash".into(),
        input: json!({ "command": command }),
    }
}

fn log_lines(log: &std::path::Path) -> Vec<String> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_classifier_starts_beside_the_pre_tool_use_hooks() {
    let p = TestProject::new();
    let log = p.dir.path().join("order.log");
    let hook = p.script(
        "slow.sh",
        &format!("cat > /dev/null; sleep 0.3; echo hook-end >> {}", log.display()),
    );
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}),
    );
    let (s, log) = auto_session(&p, &[], 100);
    let out = s.run_one(&bash("touch made.txt")).await;
    assert!(!out.is_error, "{}", text_of(&out.content));
    assert!(p.project_dir().join("made.txt").exists());
    // The classification started while the hook still ran, and its answer was used.
    assert_eq!(
        log_lines(&log),
        ["classifier-start touch made.txt", "classifier-end", "hook-end"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hook_that_decides_first_drops_the_classification() {
    let p = TestProject::new();
    let hook = p.script(
        "deny.sh",
        "cat > /dev/null; echo '{\"hookSpecificOutput\": {\"hookEventName\": \"PreToolUse\", \"permissionDecision\": \"deny\", \"permissionDecisionReason\": \"not today\"}}'",
    );
    settings_with_hooks(
        &p,
        json!({"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}),
    );
    let (s, log) = auto_session(&p, &[], 800);
    let out = s.run_one(&bash("touch made.txt")).await;
    assert!(out.denied, "{}", text_of(&out.content));
    assert!(text_of(&out.content).contains("not today"));
    // Long enough for a classification that was not stopped to finish.
    tokio::time::sleep(std::time::Duration::from_millis(1200)).await;
    assert_eq!(log_lines(&log), ["classifier-start touch made.txt"]);
    assert!(!p.project_dir().join("made.txt").exists());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_a_rule_decides_is_never_classified() {
    let p = TestProject::new();
    let (s, log) = auto_session(&p, &[(RuleBehavior::Allow, "Bash(touch *)")], 100);
    let out = s.run_one(&bash("touch made.txt")).await;
    assert!(!out.is_error, "{}", text_of(&out.content));
    assert!(log_lines(&log).is_empty());
}
