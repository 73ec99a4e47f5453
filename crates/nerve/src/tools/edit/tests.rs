//! Edit through its `Tool` methods, on real files in a temporary folder.

use std::os::unix::fs::PermissionsExt as _;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;

use super::*;
use crate::tools::fs::test_support::{context, no_progress};
use crate::tools::read::{ReadInput, ReadTool};

fn edit(path: &Path, old: &str, new: &str) -> EditInput {
    EditInput {
        file_path: path.display().to_string(),
        old_string: old.into(),
        new_string: new.into(),
        replace_all: false,
    }
}

async fn read_it(ctx: &ToolUseContext, path: &Path) {
    let input = ReadInput {
        file_path: path.display().to_string(),
        offset: None,
        limit: None,
        pages: None,
    };
    ReadTool.call(input, ctx, &no_progress()).await.unwrap();
}

/// validate_input then call, as the pipeline does.
async fn run(ctx: &ToolUseContext, input: EditInput) -> Result<ToolOutput, String> {
    EditTool.validate_input(&input, ctx).await?;
    EditTool
        .call(input, ctx, &no_progress())
        .await
        .map_err(|e| e.to_string())
}

fn setup(content: &[u8]) -> (tempfile::TempDir, ToolUseContext, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("f.txt");
    std::fs::write(&path, content).unwrap();
    (dir, ctx, path)
}

use crate::tools::test_support::text as text_of;

#[tokio::test]
async fn edits_after_read_and_returns_snippet_and_diff() {
    let (_d, ctx, path) = setup(b"one\ntwo\nthree\n");
    read_it(&ctx, &path).await;
    let out = run(&ctx, edit(&path, "two", "TWO")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "one\nTWO\nthree\n");
    let text = text_of(&out);
    assert!(
        text.starts_with(&format!("The file {} has been updated.", path.display())),
        "{text}"
    );
    assert!(text.contains("     2\tTWO\n"), "{text}");
    let display = out.display.unwrap();
    assert_eq!(display["kind"], "update");
    assert_eq!(display["path"], path.display().to_string());
    assert_eq!(
        display["hunks"][0]["lines"][1],
        serde_json::json!({"tag": "delete", "text": "two"})
    );
    assert_eq!(
        display["hunks"][0]["lines"][2],
        serde_json::json!({"tag": "insert", "text": "TWO"})
    );
    assert!(display["unified"].as_str().unwrap().contains("-two\n+TWO\n"));
    // The model knows the new content: a second edit needs no new Read.
    run(&ctx, edit(&path, "one", "ONE")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "ONE\nTWO\nthree\n");
}

#[tokio::test]
async fn unread_file_is_refused() {
    let (_d, ctx, path) = setup(b"a\n");
    let err = run(&ctx, edit(&path, "a", "b")).await.unwrap_err();
    assert!(err.contains("has not been read yet"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a\n");
}

#[tokio::test]
async fn stale_file_is_refused_and_nothing_written() {
    let (_d, ctx, path) = setup(b"a\n");
    read_it(&ctx, &path).await;
    std::fs::write(&path, "changed behind the model's back\n").unwrap();
    let err = run(&ctx, edit(&path, "changed", "x")).await.unwrap_err();
    assert!(err.contains("modified since it was last read"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "changed behind the model's back\n"
    );
}

#[tokio::test]
async fn change_during_approval_is_caught_in_call() {
    let (_d, ctx, path) = setup(b"a\n");
    read_it(&ctx, &path).await;
    let input = edit(&path, "a", "b");
    EditTool.validate_input(&input, &ctx).await.unwrap();
    // The user edits the file while the permission dialog is open.
    std::fs::write(&path, "a user's edit\n").unwrap();
    let err = EditTool.call(input, &ctx, &no_progress()).await.unwrap_err();
    assert!(
        err.to_string().contains("modified since it was last read"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "a user's edit\n");
}

#[tokio::test]
async fn touched_but_identical_file_is_not_stale() {
    let (_d, ctx, path) = setup(b"a\n");
    read_it(&ctx, &path).await;
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(120);
    std::fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(later)
        .unwrap();
    run(&ctx, edit(&path, "a", "b")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "b\n");
}

#[tokio::test]
async fn non_unique_match_reports_count_unless_replace_all() {
    let (_d, ctx, path) = setup(b"x = 1\nx = 1\nx = 1\n");
    read_it(&ctx, &path).await;
    let err = run(&ctx, edit(&path, "x = 1", "x = 2")).await.unwrap_err();
    assert!(err.contains("Found 3 matches"), "{err}");
    assert!(err.contains("replace_all"), "{err}");
    let mut all = edit(&path, "x = 1", "x = 2");
    all.replace_all = true;
    let out = run(&ctx, all).await.unwrap();
    assert!(text_of(&out).contains("All 3 occurrences"), "{}", text_of(&out));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "x = 2\nx = 2\nx = 2\n");
}

#[tokio::test]
async fn no_op_and_not_found_are_refused() {
    let (_d, ctx, path) = setup(b"abc\n");
    read_it(&ctx, &path).await;
    let err = run(&ctx, edit(&path, "abc", "abc")).await.unwrap_err();
    assert!(err.contains("No changes to make"), "{err}");
    let err = run(&ctx, edit(&path, "xyz", "q")).await.unwrap_err();
    assert!(err.contains("String to replace not found"), "{err}");
}

#[tokio::test]
async fn curly_quotes_match_and_are_kept() {
    let (_d, ctx, path) = setup("msg = \u{201c}Hello\u{201d} // it\u{2019}s\n".as_bytes());
    read_it(&ctx, &path).await;
    run(
        &ctx,
        edit(&path, "msg = \"Hello\" // it's", "msg = \"Bye\" // it's"),
    )
    .await
    .unwrap();
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "msg = \u{201c}Bye\u{201d} // it\u{2019}s\n"
    );
}

#[tokio::test]
async fn trailing_whitespace_is_forgiven() {
    let (_d, ctx, path) = setup(b"fn a() {   \n    1\n}\n");
    read_it(&ctx, &path).await;
    run(&ctx, edit(&path, "fn a() {\n    1\n}", "fn a() {\n    2\n}"))
        .await
        .unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "fn a() {\n    2\n}\n");
}

#[tokio::test]
async fn crlf_bom_and_mode_are_kept() {
    let (_d, ctx, path) = setup("\u{feff}#!/bin/sh\r\necho one\r\n".as_bytes());
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    read_it(&ctx, &path).await;
    run(&ctx, edit(&path, "echo one", "echo one\necho two"))
        .await
        .unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        "\u{feff}#!/bin/sh\r\necho one\r\necho two\r\n".as_bytes()
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[tokio::test]
async fn empty_old_string_creates_missing_files_only() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let new = ctx.exec.cwd.join("sub/new.txt");
    let out = run(&ctx, edit(&new, "", "hello\n")).await.unwrap();
    assert_eq!(
        text_of(&out),
        format!("File created successfully at: {}", new.display())
    );
    assert_eq!(out.display.unwrap()["kind"], "create");
    assert_eq!(std::fs::read_to_string(&new).unwrap(), "hello\n");
    // Now it exists and is not empty.
    let err = run(&ctx, edit(&new, "", "again")).await.unwrap_err();
    assert!(err.contains("already exists and is not empty"), "{err}");
    // A non-empty old_string on a missing file is an error that names near files.
    let err = run(&ctx, edit(&ctx.exec.cwd.join("sub/nwe.txt"), "a", "b"))
        .await
        .unwrap_err();
    assert!(
        err.contains("File does not exist") && err.contains("new.txt"),
        "{err}"
    );
}

#[tokio::test]
async fn binary_files_are_not_edited() {
    let (_d, ctx, path) = setup(&[0xff, 0xfe, 0x41]);
    ctx.exec.read_files.record(
        &path,
        crate::tool::FileReadRecord {
            content: crate::tool::SeenContent::Hash(crate::tools::fs::hash_bytes(&[0xff, 0xfe, 0x41])),
            modified: None,
            offset: None,
            limit: None,
        },
    );
    let err = run(&ctx, edit(&path, "A", "B")).await.unwrap_err();
    assert!(err.contains("not UTF-8"), "{err}");
}

#[test]
fn preview_is_pure_and_matches_the_call() {
    let (_d, ctx, path) = setup(b"alpha\nbeta\n");
    let bytes = std::fs::read(&path).unwrap();
    ctx.exec.read_files.record(
        &path,
        crate::tool::FileReadRecord {
            content: crate::tool::SeenContent::Hash(crate::tools::fs::hash_bytes(&bytes)),
            modified: None,
            offset: None,
            limit: None,
        },
    );
    let p = preview_edit(&edit(Path::new("f.txt"), "beta", "gamma"), &ctx).unwrap();
    assert_eq!(p.path, path);
    assert_eq!(p.new_bytes, b"alpha\ngamma\n");
    assert_eq!(p.kind, ChangeKind::Update);
    assert_eq!(p.first_changed_line, 2);
    assert_eq!(std::fs::read(&path).unwrap(), bytes, "a preview writes nothing");
}

#[test]
fn contract_flags_and_subject() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let i = edit(Path::new("a/./b.txt"), "x", "y");
    assert!(!EditTool.is_read_only(&i));
    assert!(!EditTool.is_concurrency_safe(&i));
    assert!(!EditTool.is_destructive(&i, dir.path()));
    assert_eq!(
        EditTool.permission_subject(&i, &ctx),
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: vec![ctx.exec.cwd.join("a/b.txt")]
        }
    );
    let schema = EditTool.input_schema();
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(
        props.keys().collect::<Vec<_>>(),
        vec!["file_path", "old_string", "new_string", "replace_all"]
    );
}

#[tokio::test]
async fn the_permission_preview_shows_the_diff_and_both_texts_without_writing() {
    let (_d, ctx, path) = setup(b"one\r\ntwo\r\nthree\r\n");
    read_it(&ctx, &path).await;
    let preview = EditTool
        .permission_preview(&edit(&path, "two", "TWO"), &ctx)
        .await
        .unwrap();
    let crate::tool::PermissionPreview::FileChange {
        diff,
        old_text,
        new_text,
    } = preview.display.clone()
    else {
        panic!("a file change: {:?}", preview.display);
    };
    assert_eq!(diff.kind, crate::files::ChangeKind::Update);
    assert_eq!(old_text.as_deref(), Some("one\ntwo\nthree\n"));
    assert_eq!(new_text.as_deref(), Some("one\nTWO\nthree\n"));
    assert!(diff.unified.contains("-two\n+TWO"));
    assert!(preview.engine_input.is_empty());
    assert_eq!(std::fs::read(&path).unwrap(), b"one\r\ntwo\r\nthree\r\n");
    // An edit that cannot apply has no preview; the call reports why.
    assert!(
        EditTool
            .permission_preview(&edit(&path, "absent", "x"), &ctx)
            .await
            .is_none()
    );
}
