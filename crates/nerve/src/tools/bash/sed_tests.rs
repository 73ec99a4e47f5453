//! The sed preview and the approved write.

#![allow(clippy::unwrap_used, clippy::panic)]

use pretty_assertions::assert_eq;
use serde_json::json;

use crate::tool::{ToolError, ToolUseContext};
use crate::tools::bash::sed_edit::{
    SIMULATED_SED_EDIT_FIELD, SimulatedSedEdit, apply_sed_edit, sed_preview, sha256_hex,
};
use crate::tools::bash::test_util::context;

fn fixture() -> (tempfile::TempDir, ToolUseContext) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    let ctx = context(&dir.path().join("project"), &dir.path().join("data"));
    (dir, ctx)
}

fn edit_of(preview: &crate::tool::ApprovalPreview) -> SimulatedSedEdit {
    serde_json::from_value(preview.engine_input[SIMULATED_SED_EDIT_FIELD].clone()).unwrap()
}

#[tokio::test]
async fn preview_shows_a_diff_and_carries_the_new_content() {
    let (_d, ctx) = fixture();
    let file = ctx.exec.cwd.join("a.txt");
    std::fs::write(&file, "one\ntwo\nthree\n").unwrap();
    let p = sed_preview("sed -i 's/two/2/' a.txt", &ctx).await.unwrap();
    let shown = &serde_json::to_value(&p.display).unwrap()["files"][0];
    assert_eq!(shown["path"], file.display().to_string());
    assert_eq!(shown["old_sha256"], sha256_hex(b"one\ntwo\nthree\n"));
    let diff = shown["diff"].as_str().unwrap();
    assert!(diff.contains("-two\n+2\n"), "{diff}");
    // The front-end gets the hunks, the same type Edit's preview and the change sets use.
    assert_eq!(
        shown["hunks"],
        json!([{"old_start": 1, "old_lines": 3, "new_start": 1, "new_lines": 3, "lines": [
            {"tag": "context", "text": "one"},
            {"tag": "delete", "text": "two"},
            {"tag": "insert", "text": "2"},
            {"tag": "context", "text": "three"},
        ]}])
    );
    let edit = edit_of(&p);
    assert_eq!(edit.files[0].new_content, "one\n2\nthree\n");
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "one\ntwo\nthree\n",
        "preview writes nothing"
    );
}

#[tokio::test]
async fn approved_edit_writes_exactly_the_preview_and_keeps_the_mode() {
    use std::os::unix::fs::PermissionsExt;
    let (_d, ctx) = fixture();
    let file = ctx.exec.cwd.join("run.sh");
    std::fs::write(&file, "echo a\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
    let cmd = "sed -i.bak -e 's/a/b/' run.sh";
    let edit = edit_of(&sed_preview(cmd, &ctx).await.unwrap());
    apply_sed_edit(&edit, cmd, &ctx).unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), edit.files[0].new_content);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "echo b\n");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o755
    );
    assert_eq!(
        std::fs::read_to_string(ctx.exec.cwd.join("run.sh.bak")).unwrap(),
        "echo a\n"
    );
}

#[tokio::test]
async fn a_file_changed_after_the_preview_is_not_written() {
    let (_d, ctx) = fixture();
    let (a, b) = (ctx.exec.cwd.join("a"), ctx.exec.cwd.join("b"));
    std::fs::write(&a, "x\n").unwrap();
    std::fs::write(&b, "x\n").unwrap();
    let cmd = "sed -i s/x/y/ a b";
    let edit = edit_of(&sed_preview(cmd, &ctx).await.unwrap());
    std::fs::write(&b, "x changed\n").unwrap();
    let err = apply_sed_edit(&edit, cmd, &ctx).unwrap_err();
    assert!(matches!(err, ToolError::Failed(_)));
    assert!(
        err.to_string().contains("changed after the edit was previewed"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&a).unwrap(), "x\n", "no file is written");
}

#[tokio::test]
async fn an_edit_for_another_command_is_refused() {
    let (_d, ctx) = fixture();
    std::fs::write(ctx.exec.cwd.join("a"), "x\n").unwrap();
    let edit = edit_of(&sed_preview("sed -i s/x/y/ a", &ctx).await.unwrap());
    assert!(apply_sed_edit(&edit, "sed -i s/x/z/ a", &ctx).is_err());
}

#[tokio::test]
async fn what_cannot_be_simulated_gets_no_preview() {
    let (dir, ctx) = fixture();
    std::fs::write(ctx.exec.cwd.join("a"), "x\n").unwrap();
    std::fs::write(dir.path().join("outside"), "x\n").unwrap();
    let outside = dir.path().join("outside");
    for cmd in [
        "sed -i 's/x/y/w /tmp/leak' a".to_string(), // sandbox refuses w
        "sed -i 'e date' a".to_string(),            // and e
        "sed -i 's/x/y' a".to_string(),             // syntax error
        "sed -i s/x/y/ missing".to_string(),
        format!("sed -i s/x/y/ {}", outside.display()),
        "sed -i s/x/y/ a && echo".to_string(),
    ] {
        assert!(sed_preview(&cmd, &ctx).await.is_none(), "{cmd}");
    }
    assert_eq!(std::fs::read_to_string(ctx.exec.cwd.join("a")).unwrap(), "x\n");
}
