//! Read, Edit and Write through the full pipeline: validation, permissions (modes, rules, headless
//! asks) and the calls themselves, on a temporary project.

use std::sync::Arc;

use crate::support::{ScriptedPrompter, TestProject, results_as_the_model_reads_them, single_call, text_of};
use nerve::errors::ErrorClass;
use nerve::permissions::{PermissionMode, PermissionPrompter, RuleBehavior, UserAnswer};
use nerve::pipeline::ToolCall;
use nerve::project::{Project, SessionRuntime, SessionSetup};
use nerve::registry::{ToolPool, all_builtin_tools};
use nerve::tool::{FileReadRecord, ToolRef};
use nerve::tools::fs::hash_bytes;
use pretty_assertions::assert_eq;
use serde_json::json;

fn file_tools() -> Vec<ToolRef> {
    all_builtin_tools()
        .into_iter()
        .filter(|t| ["Read", "Edit", "Write"].contains(&t.name()))
        .collect()
}

fn session(
    p: &TestProject,
    mode: PermissionMode,
    rules: &[(RuleBehavior, &str)],
    prompter: Option<Arc<dyn PermissionPrompter>>,
) -> SessionRuntime {
    let mut o = p.options();
    o.mode = Some(mode);
    o.cli_rules = rules.iter().map(|(b, r)| (*b, (*r).to_string())).collect();
    let project = Project::open(o).unwrap();
    let pool = ToolPool::new(file_tools(), false).unwrap();
    project.session(
        pool,
        SessionSetup {
            headless: prompter.is_none(),
            prompter,
            events: p.recorder.sink(),
            ..SessionSetup::default()
        },
    )
}

#[test]
fn the_registry_lists_the_file_tools() {
    let names: Vec<String> = file_tools().iter().map(|t| t.name().to_string()).collect();
    assert_eq!(names, vec!["Read", "Edit", "Write"]);
}

#[tokio::test]
async fn read_then_edit_is_allowed_in_accept_edits() {
    let p = TestProject::new();
    let file = p.write("src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n");
    let s = session(&p, PermissionMode::AcceptEdits, &[], None);
    let out = s
        .run_one(&single_call("Read", json!({"file_path": "src/lib.rs"})))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(
        text_of(&out.content),
        "     1\tpub fn answer() -> u32 {\n     2\t    41\n     3\t}\n"
    );
    let out = s
        .run_one(&single_call(
            "Edit",
            json!({"file_path": file.display().to_string(), "old_string": "    41", "new_string": "    42"}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert!(
        text_of(&out.content).contains("     2\t    42"),
        "{}",
        text_of(&out.content)
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "pub fn answer() -> u32 {\n    42\n}\n"
    );
    let display = out.display.expect("a diff for the UI");
    assert_eq!(display["kind"], "update");
    assert!(
        display["unified"]
            .as_str()
            .unwrap()
            .contains("-    41\n+    42\n")
    );
    // Edit results are normal results: nothing was persisted.
    assert_eq!(out.persisted_path, None);
}

#[tokio::test]
async fn edit_is_denied_by_a_read_deny_rule() {
    let p = TestProject::new();
    let secret = p.write("secret/key.txt", "hunter2\n");
    let s = session(
        &p,
        PermissionMode::AcceptEdits,
        &[(RuleBehavior::Deny, "Read(./secret/**)")],
        None,
    );
    // Reading is denied outright.
    let out = s
        .run_one(&single_call("Read", json!({"file_path": "secret/key.txt"})))
        .await;
    assert!(out.is_error && out.denied, "{:?}", out.content);
    // Even with the content known (as if read before the rule existed), the edit is denied by the rule.
    let bytes = std::fs::read(&secret).unwrap();
    s.context.exec.read_files.record(
        &secret,
        FileReadRecord {
            content: nerve::tool::SeenContent::Hash(hash_bytes(&bytes)),
            modified: None,
            offset: None,
            limit: None,
        },
    );
    let out = s
        .run_one(&single_call(
            "Edit",
            json!({"file_path": "secret/key.txt", "old_string": "hunter2", "new_string": "x"}),
        ))
        .await;
    assert!(out.is_error && out.denied, "{:?}", out.content);
    assert_eq!(out.error_class, Some(ErrorClass::Permission));
    assert!(
        text_of(&out.content).contains("Read(./secret/**)"),
        "{}",
        text_of(&out.content)
    );
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "hunter2\n");
    // Creating a new file there is denied too.
    let out = s
        .run_one(&single_call(
            "Write",
            json!({"file_path": "secret/new.txt", "content": "x"}),
        ))
        .await;
    assert!(out.denied, "{:?}", out.content);
    assert!(!p.project_dir().join("secret/new.txt").exists());
}

#[tokio::test]
async fn edit_of_an_unread_file_is_refused_before_permissions() {
    let p = TestProject::new();
    let file = p.write("notes.txt", "draft\n");
    let prompter = ScriptedPrompter::new(vec![]);
    let s = session(&p, PermissionMode::Default, &[], Some(prompter.clone()));
    let out = s
        .run_one(&single_call(
            "Edit",
            json!({"file_path": "notes.txt", "old_string": "draft", "new_string": "final"}),
        ))
        .await;
    assert!(out.is_error && !out.denied, "{:?}", out.content);
    assert_eq!(out.error_class, Some(ErrorClass::Validation));
    assert!(
        text_of(&out.content).contains("has not been read yet"),
        "{}",
        text_of(&out.content)
    );
    assert!(
        prompter.asked().is_empty(),
        "the user is not asked about an edit that cannot apply"
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "draft\n");
}

#[tokio::test]
async fn write_outside_the_project_asks_and_headless_denies() {
    let p = TestProject::new();
    let outside = p.dir.path().join("outside/out.txt");
    let input = json!({"file_path": outside.display().to_string(), "content": "hello\n"});
    let s = session(&p, PermissionMode::AcceptEdits, &[], None);
    let out = s.run_one(&single_call("Write", input.clone())).await;
    assert!(out.is_error && out.denied, "{:?}", out.content);
    assert!(
        text_of(&out.content).contains("no one is available to approve it"),
        "{}",
        text_of(&out.content)
    );
    assert!(!outside.exists());

    // With someone to ask, the question is asked, and an approval writes the file.
    let prompter = ScriptedPrompter::new(vec![UserAnswer::AllowOnce { updated_input: None }]);
    let s = session(&p, PermissionMode::AcceptEdits, &[], Some(prompter.clone()));
    let out = s.run_one(&single_call("Write", input)).await;
    assert!(!out.is_error, "{:?}", out.content);
    let asked = prompter.asked();
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].tool_name, "Write");
    assert_eq!(asked[0].input["file_path"], outside.display().to_string());
    assert_eq!(std::fs::read_to_string(&outside).unwrap(), "hello\n");
}

#[tokio::test]
async fn write_inside_the_project_in_accept_edits_then_read_back() {
    let p = TestProject::new();
    let s = session(&p, PermissionMode::AcceptEdits, &[], None);
    let out = s
        .run_one(&single_call(
            "Write",
            json!({"file_path": "docs/a.md", "content": "# A\n"}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(out.display.unwrap()["kind"], "create");
    let out = s
        .run_one(&single_call("Read", json!({"file_path": "docs/a.md"})))
        .await;
    assert_eq!(text_of(&out.content), "     1\t# A\n");
}

/// A text file of `lines` lines of 80 characters.
fn wide_file(p: &TestProject, name: &str, lines: usize) -> String {
    let line = format!("{}\n", "x".repeat(80));
    p.write(name, &line.repeat(lines)).display().to_string()
}

#[tokio::test]
async fn several_large_reads_in_one_message_stay_within_the_message_budget() {
    use nerve::budget::{ContentReplacementState, MESSAGE_BUDGET_CHARS, Replacement, ResultStore};
    use nerve::model::types::{ContentBlock, ToolResultBlock, ToolResultContent};

    let p = TestProject::new();
    let s = session(&p, PermissionMode::Default, &[], None);
    let mut outcomes = Vec::new();
    for (i, lines) in [1_000, 1_100, 900].into_iter().enumerate() {
        let path = wide_file(&p, &format!("f{i}.txt"), lines);
        let call = ToolCall {
            id: format!("read_{i}"),
            name: "Read".into(),
            input: json!({"file_path": path}),
        };
        let out = s.run_one(&call).await;
        assert!(!out.is_error, "{}", text_of(&out.content));
        assert!(!out.persistable, "Read is never persisted");
        outcomes.push(out);
    }
    let sizes: Vec<usize> = outcomes.iter().map(|o| text_of(&o.content).len()).collect();
    // Each Read is within its own limit, but together they are not.
    assert!(sizes.iter().all(|&n| n < MESSAGE_BUDGET_CHARS), "{sizes:?}");
    assert!(sizes.iter().sum::<usize>() > MESSAGE_BUDGET_CHARS, "{sizes:?}");

    let data = p.dir.path().join("budget-data");
    let store = ResultStore::new(&data, "s");
    let mut state = ContentReplacementState::default();
    let nerve::agent::AnsweredCalls {
        message,
        records,
        persisted,
    } = nerve::agent::outcomes_to_user_message(&outcomes, &mut state, &store, MESSAGE_BUDGET_CHARS);
    assert!(
        persisted.is_empty(),
        "Read results are never persisted: {persisted:?}"
    );

    let texts: Vec<String> = message
        .content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::ToolResult(r) => match &r.content {
                Some(ToolResultContent::Blocks(blocks)) => Some(
                    blocks
                        .iter()
                        .filter_map(|b| match b {
                            ToolResultBlock::Text(t) => Some(t.text.clone()),
                            _ => None,
                        })
                        .collect::<String>(),
                ),
                _ => None,
            },
            _ => None,
        })
        .collect();
    assert!(texts.iter().map(String::len).sum::<usize>() <= MESSAGE_BUDGET_CHARS);
    // Only the largest had to go, and it was withheld, not persisted: there is no file to read back.
    let notice = format!(
        "<withheld-output>\nThis Read result ({} characters) was left out: with the other tool results of this message it went over the 200000-character limit of one message. Its content was not kept. Call Read again on its own, or for a smaller part (offset and limit).\n</withheld-output>",
        sizes[1]
    );
    assert_eq!(
        records
            .iter()
            .map(|r| (r.tool_use_id.as_str(), r.replacement.clone()))
            .collect::<Vec<_>>(),
        vec![
            (
                "read_1",
                Replacement::Withheld {
                    notice: notice.clone()
                }
            ),
            ("read_0", Replacement::Kept),
            ("read_2", Replacement::Kept),
        ]
    );
    assert_eq!(texts[1], notice);
    assert_eq!(texts[0], text_of(&outcomes[0].content));
    assert!(!data.exists(), "nothing was persisted");
}

/// What the model reads back from Edit and Write, in the order a session makes the calls: a write
/// of a new file, edits that succeed and the refusals that tell it what to do instead.
#[tokio::test]
async fn edit_and_write_results_read_as_the_model_reads_them() {
    let p = TestProject::new();
    p.write("src/lib.rs", "pub fn answer() -> u32 {\n    41\n}\n// x\n// x\n");
    p.write("unread.txt", "never read\n");
    let s = session(&p, PermissionMode::AcceptEdits, &[], None);
    let calls = [
        (
            "Write",
            json!({"file_path": "notes/new.md", "content": "# Notes\n\nfirst line\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "41", "new_string": "42"}),
        ),
        ("Read", json!({"file_path": "src/lib.rs"})),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "    41", "new_string": "    42"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "// x", "new_string": "// y"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "// x", "new_string": "// y", "replace_all": true}),
        ),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "absent", "new_string": "z"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/lib.rs", "old_string": "same", "new_string": "same"}),
        ),
        (
            "Write",
            json!({"file_path": "unread.txt", "content": "overwritten\n"}),
        ),
        (
            "Edit",
            json!({"file_path": "src/missing.rs", "old_string": "a", "new_string": "b"}),
        ),
        ("Write", json!({"file_path": "notes/new.md"})),
    ];
    insta::assert_snapshot!(results_as_the_model_reads_them(&s, p.dir.path(), &calls).await);
}
