//! Write through its `Tool` methods, on real files in a temporary folder.

use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;

use pretty_assertions::assert_eq;

use super::*;
use crate::tools::fs::test_support::{context, no_progress};
use crate::tools::read::{ReadInput, ReadTool};

fn write(path: &Path, content: &str) -> WriteInput {
    WriteInput {
        file_path: path.display().to_string(),
        content: content.into(),
    }
}

async fn run(ctx: &ToolUseContext, input: WriteInput) -> Result<ToolOutput, String> {
    WriteTool.validate_input(&input, ctx).await?;
    WriteTool
        .call(input, ctx, &no_progress())
        .await
        .map_err(|e| e.to_string())
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

use crate::tools::test_support::text as text_of;

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[tokio::test]
async fn creates_files_and_parent_folders() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("a/b/new.md");
    let out = run(&ctx, write(Path::new("a/b/new.md"), "# Title\n"))
        .await
        .unwrap();
    assert_eq!(
        text_of(&out),
        format!("File created successfully at: {}", path.display())
    );
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Title\n");
    let display = out.display.unwrap();
    assert_eq!(display["kind"], "create");
    assert_eq!(
        display["hunks"][0]["lines"][0],
        serde_json::json!({"tag": "insert", "text": "# Title"})
    );
    assert_eq!(
        entries(path.parent().unwrap()),
        vec!["new.md"],
        "no temp file left"
    );
    // Writing recorded the content: overwriting it needs no Read.
    run(&ctx, write(&path, "# Other\n")).await.unwrap();
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "# Other\n");
}

#[tokio::test]
async fn overwriting_requires_a_fresh_read() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("x.txt");
    std::fs::write(&path, "old\n").unwrap();
    let err = run(&ctx, write(&path, "new\n")).await.unwrap_err();
    assert!(err.contains("has not been read yet"), "{err}");
    read_it(&ctx, &path).await;
    std::fs::write(&path, "changed\n").unwrap();
    let err = run(&ctx, write(&path, "new\n")).await.unwrap_err();
    assert!(err.contains("modified since it was last read"), "{err}");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "changed\n");
    read_it(&ctx, &path).await;
    let out = run(&ctx, write(&path, "new\n")).await.unwrap();
    assert_eq!(
        text_of(&out),
        format!("The file {} has been updated successfully.", path.display())
    );
    assert_eq!(out.display.unwrap()["kind"], "update");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), "new\n");
}

#[tokio::test]
async fn overwrite_keeps_crlf_bom_and_mode() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("run.bat");
    std::fs::write(&path, "\u{feff}@echo off\r\nexit\r\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    read_it(&ctx, &path).await;
    run(&ctx, write(&path, "@echo on\nexit 1\n")).await.unwrap();
    assert_eq!(
        std::fs::read(&path).unwrap(),
        "\u{feff}@echo on\r\nexit 1\r\n".as_bytes()
    );
    assert_eq!(
        std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[tokio::test]
async fn directories_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    std::fs::create_dir(ctx.exec.cwd.join("d")).unwrap();
    let err = run(&ctx, write(Path::new("d"), "x")).await.unwrap_err();
    assert!(err.contains("is a directory"), "{err}");
}

#[test]
fn destructive_only_when_the_file_exists() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("e.txt");
    let cwd = &ctx.exec.cwd;
    assert!(!WriteTool.is_destructive(&write(&path, ""), cwd));
    assert!(!WriteTool.is_destructive(&write(Path::new("e.txt"), ""), cwd));
    std::fs::write(&path, "").unwrap();
    assert!(WriteTool.is_destructive(&write(&path, ""), cwd));
    assert!(WriteTool.is_destructive(&write(Path::new("e.txt"), ""), cwd));
    let i = write(&path, "");
    assert!(!WriteTool.is_read_only(&i) && !WriteTool.is_concurrency_safe(&i));
    assert_eq!(
        WriteTool.permission_subject(&write(Path::new("../out.txt"), ""), &ctx),
        PermissionSubject::Paths {
            access: Access::Edit,
            paths: vec![ctx.exec.cwd.parent().unwrap().join("out.txt")]
        }
    );
    let schema = WriteTool.input_schema();
    let props = schema["properties"].as_object().unwrap();
    assert_eq!(props.keys().collect::<Vec<_>>(), vec!["file_path", "content"]);
}

#[tokio::test]
async fn the_permission_preview_marks_new_files_and_diffs_existing_ones() {
    let dir = tempfile::tempdir().unwrap();
    let ctx = context(dir.path());
    let path = ctx.exec.cwd.join("new.md");
    let file_change = |p: crate::tool::PermissionPreview| match p {
        crate::tool::PermissionPreview::FileChange {
            diff,
            old_text,
            new_text,
        } => (diff, old_text, new_text),
        other => panic!("a file change: {other:?}"),
    };
    let (diff, old_text, new_text) = file_change(
        WriteTool
            .permission_preview(&write(&path, "hello\n"), &ctx)
            .await
            .unwrap()
            .display,
    );
    assert_eq!(diff.kind, crate::files::ChangeKind::Create);
    assert_eq!(old_text.as_deref(), Some(""));
    assert_eq!(new_text.as_deref(), Some("hello\n"));
    assert!(!path.exists(), "a preview writes nothing");

    std::fs::write(&path, "hello\n").unwrap();
    read_it(&ctx, &path).await;
    let (diff, old_text, _) = file_change(
        WriteTool
            .permission_preview(&write(&path, "bye\n"), &ctx)
            .await
            .unwrap()
            .display,
    );
    assert_eq!(diff.kind, crate::files::ChangeKind::Update);
    assert_eq!(old_text.as_deref(), Some("hello\n"));
    assert!(diff.unified.contains("-hello\n+bye"));
}
