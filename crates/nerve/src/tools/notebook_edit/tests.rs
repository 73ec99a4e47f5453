//! The tool end to end on files: staleness, layout, errors.

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::tools::test_support::{context_in, no_progress, text};

const NB: &str = "{\n \"cells\": [\n  {\n   \"cell_type\": \"code\",\n   \"execution_count\": 1,\n   \"id\": \"a1\",\n   \"metadata\": {},\n   \"outputs\": [],\n   \"source\": [\n    \"print(1)\"\n   ]\n  }\n ],\n \"metadata\": {},\n \"nbformat\": 4,\n \"nbformat_minor\": 5\n}\n";

fn setup(content: &str) -> (tempfile::TempDir, PathBuf, ToolUseContext) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n.ipynb");
    std::fs::write(&path, content).unwrap();
    let ctx = context_in(dir.path());
    (dir, path, ctx)
}

fn mark_read(ctx: &ToolUseContext, path: &Path) {
    let bytes = std::fs::read(path).unwrap();
    crate::tools::fs::record_known_content(ctx, path, &bytes);
}

fn input(v: serde_json::Value) -> NotebookEditInput {
    serde_json::from_value(v).unwrap()
}

async fn run(ctx: &ToolUseContext, v: serde_json::Value) -> Result<ToolOutput, ToolError> {
    NotebookEditTool.call(input(v), ctx, &no_progress()).await
}

#[tokio::test]
async fn replace_keeps_the_layout_and_returns_a_diff() {
    let (_d, path, ctx) = setup(NB);
    mark_read(&ctx, &path);
    let out = run(
        &ctx,
        json!({"notebook_path": "n.ipynb", "cell_id": "a1", "new_source": "print(2)"}),
    )
    .await
    .unwrap();
    assert_eq!(text(&out), "Updated cell a1 with print(2)");
    let display = out.display.unwrap();
    assert_eq!(display["old_source"], "print(1)");
    assert_eq!(display["new_source"], "print(2)");
    let after = std::fs::read_to_string(&path).unwrap();
    let expected = NB
        .replace("print(1)", "print(2)")
        .replace("\"execution_count\": 1", "\"execution_count\": null");
    assert_eq!(after, expected);
}

#[tokio::test]
async fn insert_then_delete_without_reading_again() {
    let (_d, path, ctx) = setup(NB);
    mark_read(&ctx, &path);
    let out = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": "a1", "new_source": "# Notes", "cell_type": "markdown", "edit_mode": "insert"}),
    )
    .await
    .unwrap();
    let new_id = out.display.unwrap()["cell_id"].as_str().unwrap().to_string();
    let nb: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(nb["cells"][1]["id"], new_id.as_str());
    assert_eq!(nb["cells"][1]["source"], json!(["# Notes"]));
    // The write was recorded: a second edit needs no new read.
    let out = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": new_id, "edit_mode": "delete"}),
    )
    .await
    .unwrap();
    assert!(text(&out).starts_with("Deleted cell"));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), NB);
}

#[tokio::test]
async fn stale_or_unread_notebooks_are_refused() {
    let (_d, path, ctx) = setup(NB);
    let err = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": "a1", "new_source": "x"}),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("has not been read yet"), "{err}");
    mark_read(&ctx, &path);
    std::fs::write(&path, NB.replace("print(1)", "print(99)")).unwrap();
    let err = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": "a1", "new_source": "x"}),
    )
    .await
    .unwrap_err();
    assert!(
        err.to_string().contains("modified since it was last read"),
        "{err}"
    );
    assert!(
        std::fs::read_to_string(&path).unwrap().contains("print(99)"),
        "nothing written"
    );
}

#[tokio::test]
async fn invalid_json_and_unknown_cells_are_clear_errors() {
    let (_d, path, ctx) = setup("{\"cells\": [");
    mark_read(&ctx, &path);
    let err = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": "a1", "new_source": "x"}),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("is not valid notebook JSON"), "{err}");

    let (_d, path, ctx) = setup(NB);
    mark_read(&ctx, &path);
    let err = run(
        &ctx,
        json!({"notebook_path": path, "cell_id": "zz", "new_source": "x"}),
    )
    .await
    .unwrap_err();
    assert!(err.to_string().contains("cell `zz` not found"), "{err}");
    assert!(err.to_string().contains("a1"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), NB);
}

#[tokio::test]
async fn validation_catches_missing_type_id_and_extension() {
    let (_d, _path, ctx) = setup(NB);
    let check = |v| {
        let ctx = ctx.clone();
        async move { NotebookEditTool.validate_input(&input(v), &ctx).await }
    };
    let err = check(json!({"notebook_path": "n.ipynb", "new_source": "x", "edit_mode": "insert"}))
        .await
        .unwrap_err();
    assert!(err.contains("`cell_type`"), "{err}");
    let err = check(json!({"notebook_path": "n.ipynb", "new_source": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("`cell_id` is required to replace"), "{err}");
    let err = check(json!({"notebook_path": "n.py", "cell_id": "a1", "new_source": "x"}))
        .await
        .unwrap_err();
    assert!(err.contains("not a Jupyter notebook"), "{err}");
}

#[test]
fn asks_for_edit_permission_on_the_resolved_path() {
    let (dir, _path, ctx) = setup(NB);
    let i = input(json!({"notebook_path": "n.ipynb", "cell_id": "a1", "new_source": "x"}));
    assert_eq!(
        NotebookEditTool.permission_subject(&i, &ctx),
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: vec![dir.path().join("n.ipynb")],
        }
    );
    assert!(!NotebookEditTool.is_read_only(&i));
    assert!(!NotebookEditTool.is_concurrency_safe(&i));
    let mut observed = i;
    NotebookEditTool.backfill_observable_input(&mut observed, &ctx);
    assert_eq!(
        observed.notebook_path,
        dir.path().join("n.ipynb").display().to_string()
    );
}
