//! Glob, Grep, NotebookEdit and TodoWrite through the full pipeline: permissions, persistence of
//! large results, and context changes applied by the executor.

use crate::support::{TestProject, results_as_the_model_reads_them, single_call, text_of};
use nerve::errors::ErrorClass;
use nerve::events::Event;
use nerve::executor::ExecutorOptions;
use nerve::permissions::{PermissionMode, RuleBehavior};
use nerve::tool::{FileReadRecord, TodoItem, TodoStatus};
use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn grep_inside_a_read_denied_folder_is_refused() {
    let p = TestProject::new();
    p.write("secret/inner/key.txt", "password = hunter2\n");
    p.write("src/main.rs", "fn main() {} // password check\n");
    let s = p.builtin_session(
        PermissionMode::Default,
        &[(RuleBehavior::Deny, "Read(./secret/**)")],
    );

    let out = s
        .run_one(&single_call(
            "Grep",
            json!({"pattern": "password", "path": "secret/inner"}),
        ))
        .await;
    assert!(out.is_error && out.denied, "{:?}", out.content);
    assert_eq!(out.error_class, Some(ErrorClass::Permission));
    assert!(
        text_of(&out.content).contains("Read(./secret/**)"),
        "{}",
        text_of(&out.content)
    );

    // Searching around the denied folder is allowed, but its files are left out.
    let out = s
        .run_one(&single_call(
            "Grep",
            json!({"pattern": "password", "output_mode": "content"}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    assert!(text.contains("src/main.rs:1:fn main()"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
}

#[tokio::test]
async fn glob_is_allowed_in_default_mode_inside_the_project() {
    let p = TestProject::new();
    let a = p.write("src/a.rs", "");
    p.write("README.md", "");
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let out = s
        .run_one(&single_call("Glob", json!({"pattern": "**/*.rs"})))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(text_of(&out.content), a.display().to_string());

    // Outside the working directories a read asks, and headless sessions cannot ask.
    let outside = tempfile::tempdir().unwrap();
    let out = s
        .run_one(&single_call(
            "Glob",
            json!({"pattern": "*", "path": outside.path().display().to_string()}),
        ))
        .await;
    assert!(out.is_error && out.denied, "{:?}", out.content);
}

#[tokio::test]
async fn a_large_grep_result_is_persisted() {
    let p = TestProject::new();
    let body: String = (0..2_000).map(|i| format!("match line number {i}\n")).collect();
    p.write("big.txt", &body);
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let out = s
        .run_one(&single_call(
            "Grep",
            json!({"pattern": "match", "output_mode": "content", "head_limit": 0}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    let text = text_of(&out.content);
    assert!(text.starts_with("<persisted-output>"), "{text}");
    let path = out.persisted_path.expect("persisted");
    let full = std::fs::read_to_string(path).unwrap();
    assert_eq!(full.lines().count(), 2_000);
    assert!(full.contains("big.txt:2000:match line number 1999"));
}

#[tokio::test]
async fn todo_write_updates_the_context_after_the_turn() {
    let p = TestProject::new();
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let todos = json!([
        {"content": "Write tests", "status": "in_progress", "activeForm": "Writing tests"},
        {"content": "Ship", "status": "pending", "activeForm": "Shipping"}
    ]);
    let exec = s.executor(
        CancellationToken::new(),
        ExecutorOptions {
            max_concurrency: 4,
            ..ExecutorOptions::default()
        },
    );
    exec.add(single_call("TodoWrite", json!({ "todos": todos })));
    let (outcomes, ctx) = exec.finish().await;
    assert!(!outcomes[0].is_error, "{:?}", outcomes[0].content);
    assert!(text_of(&outcomes[0].content).starts_with("Todos have been modified successfully"));
    assert_eq!(
        *ctx.exec.todos,
        vec![
            TodoItem {
                content: "Write tests".into(),
                status: TodoStatus::InProgress,
                active_form: "Writing tests".into(),
            },
            TodoItem {
                content: "Ship".into(),
                status: TodoStatus::Pending,
                active_form: "Shipping".into(),
            },
        ]
    );
    // The UI gets the list from the completion event.
    let shown = p.recorder.events().into_iter().find_map(|e| match e {
        Event::ToolCompleted { display, .. } => display,
        _ => None,
    });
    assert_eq!(shown.unwrap()["todos"], todos);
}

#[tokio::test]
async fn notebook_edit_needs_a_read_and_edit_permission() {
    let p = TestProject::new();
    let nb = "{\n \"cells\": [\n  {\n   \"cell_type\": \"markdown\",\n   \"id\": \"t\",\n   \"metadata\": {},\n   \"source\": [\n    \"# Title\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";
    let path = p.write("a.ipynb", nb);
    let input = json!({"notebook_path": "a.ipynb", "cell_id": "t", "new_source": "# New"});

    // Default mode asks for edits; headless, that is a denial.
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let out = s.run_one(&single_call("NotebookEdit", input.clone())).await;
    assert!(out.is_error && out.denied, "{:?}", out.content);

    let s = p.builtin_session(PermissionMode::AcceptEdits, &[]);
    let out = s.run_one(&single_call("NotebookEdit", input.clone())).await;
    assert!(out.is_error && !out.denied);
    assert!(
        text_of(&out.content).contains("has not been read yet"),
        "{}",
        text_of(&out.content)
    );

    let bytes = std::fs::read(&path).unwrap();
    s.context.exec.read_files.record(
        &path,
        FileReadRecord {
            content: nerve::tool::SeenContent::Hash(nerve::tools::fs::hash_bytes(&bytes)),
            modified: None,
            offset: None,
            limit: None,
        },
    );
    let out = s.run_one(&single_call("NotebookEdit", input)).await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        nb.replace("# Title", "# New")
    );
    assert_eq!(out.display.unwrap()["old_source"], "# Title");
}

/// The Search progress reports a session's events carry, in order.
fn search_progress(events: &[Event]) -> Vec<(u64, u64)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolProgress {
                progress:
                    nerve::tool::Progress::Search {
                        files_searched,
                        matches,
                    },
                ..
            } => Some((*files_searched, *matches)),
            _ => None,
        })
        .collect()
}

#[tokio::test]
async fn grep_and_glob_over_many_files_report_paced_progress_ending_with_the_totals() {
    let p = TestProject::new();
    for i in 0..1_000 {
        p.write(
            &format!("src/m{}/f{i}.rs", i % 10),
            "fn needle() {}\nlet x = needle;\n",
        );
    }
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let pacing = nerve::tools::search_progress::SEARCH_PACING;
    for (tool, input, totals) in [
        (
            "Grep",
            json!({"pattern": "needle", "output_mode": "count"}),
            (1_000, 2_000),
        ),
        ("Glob", json!({"pattern": "src/m3/*.rs"}), (1_000, 100)),
    ] {
        let before = p.recorder.events().len();
        let out = s.run_one(&single_call(tool, input)).await;
        assert!(!out.is_error, "{}", text_of(&out.content));
        let reports = search_progress(&p.recorder.events()[before..]);
        // The counts only grow, and the last report gives the totals.
        assert!(
            reports.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 <= w[1].1),
            "{tool}: {reports:?}"
        );
        assert_eq!(reports.last(), Some(&totals), "{tool}: {reports:?}");
        // Paced: never more than one report per `min_files` files, plus the totals.
        assert!(
            reports.len() as u64 <= totals.0 / pacing.min_files + 1,
            "{tool}: {} reports",
            reports.len()
        );
    }
}

#[tokio::test]
async fn tool_results_read_as_the_model_reads_them() {
    let p = TestProject::new();
    p.write(
        "src/main.rs",
        "fn main() {\n    // HINT: parse the arguments\n    run();\n}\n",
    );
    p.write("src/lib.rs", "pub fn run() {} // HINT: say hello\n");
    p.write("notes/empty.txt", "");
    p.write("secret/key.txt", "hunter2\n");
    let s = p.builtin_session(
        PermissionMode::Default,
        &[(RuleBehavior::Deny, "Read(./secret/**)")],
    );
    let calls = [
        ("Read", json!({"file_path": "src/main.rs"})),
        (
            "Read",
            json!({"file_path": "src/main.rs", "offset": 2, "limit": 1}),
        ),
        ("Read", json!({"file_path": "notes/empty.txt"})),
        ("Read", json!({"file_path": "src/missing.rs"})),
        ("Read", json!({"file_path": "secret/key.txt"})),
        (
            "Grep",
            json!({"pattern": "HINT", "output_mode": "content", "-n": true}),
        ),
        ("Grep", json!({"pattern": "HINT"})),
        ("Grep", json!({"pattern": "HINT", "output_mode": "count"})),
        ("Grep", json!({"pattern": "nothing here"})),
        ("Glob", json!({"pattern": "src/*.rs"})),
        ("Glob", json!({"pattern": "**/*.py"})),
        ("Read", json!({"file_path": "src/main.rs", "limit": "ten"})),
    ];
    insta::assert_snapshot!(results_as_the_model_reads_them(&s, p.dir.path(), &calls).await);
}
