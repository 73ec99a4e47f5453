//! `nerve -p --worktree` and `nerve worktree`: two sessions of one project write the same new file,
//! each in its own worktree; the first lands, the second conflicts (both sides printed, the main
//! checkout left as it was), is discarded only when told so, and nothing is left to clean.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::{TestProject, mock, nerve};
use nerve_test_support::git::{git, init_with_commit};

fn write_step(id: &str, text: &str) -> Value {
    json!({"response": {"type": "stream", "blocks": [
        {"type": "tool_use", "id": id, "name": "Write",
         "input": {"file_path": "notes.txt", "content": text}}]}})
}

fn done_step() -> Value {
    json!({"response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_sessions_in_worktrees_land_one_conflict_and_discard_the_other() {
    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "main\n");
    init_with_commit(&dir);
    let server = mock(json!([
        write_step("w1", "from the first session\n"),
        done_step(),
        write_step("w2", "from the second session\n"),
        done_step()
    ]))
    .await;

    let mut sessions = Vec::new();
    for (prompt, branch) in [
        ("First change", "nerve/first-change"),
        ("Second change", "nerve/second-change"),
    ] {
        let out = nerve(
            p.dir.path(),
            &server,
            &[
                "-p",
                prompt,
                "--worktree",
                "--permission-mode",
                "acceptEdits",
                "--output-format",
                "stream-json",
            ],
        )
        .output()
        .await
        .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{stderr}");
        let init: Value =
            serde_json::from_str(String::from_utf8_lossy(&out.stdout).lines().next().unwrap()).unwrap();
        assert_eq!(init["subtype"], "init");
        assert_eq!(init["worktree"]["branch"], branch);
        let path = init["worktree"]["path"].as_str().unwrap().to_string();
        assert_eq!(init["cwd"], path.as_str(), "the session works in its worktree");
        assert!(
            stderr.contains(&format!(
                "note: working in the worktree {path} on branch {branch}"
            )),
            "{stderr}"
        );
        sessions.push((init["session_id"].as_str().unwrap().to_string(), path));
    }
    assert!(
        !dir.join("notes.txt").exists(),
        "the main checkout sees neither session's work"
    );

    let run = |args: Vec<String>| {
        let server = &server;
        let p = &p;
        async move {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = nerve(p.dir.path(), server, &args).output().await.unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).into_owned(),
                String::from_utf8_lossy(&out.stderr).into_owned(),
            )
        }
    };
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();

    let (code, stdout, stderr) = run(args(&["worktree", "list"])).await;
    assert_eq!(code, Some(0), "{stderr}");
    let listed: Value = serde_json::from_str(&stdout).unwrap();
    let summary: Vec<(String, u64, u64, bool)> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|w| {
            (
                w["info"]["session_id"].as_str().unwrap().to_string(),
                w["ahead"].as_u64().unwrap(),
                w["uncommitted"].as_u64().unwrap(),
                w["orphaned"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        vec![
            (sessions[0].0.clone(), 0, 1, false),
            (sessions[1].0.clone(), 0, 1, false)
        ]
    );

    let (code, stdout, stderr) = run(args(&["worktree", "apply", &sessions[0].0])).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("landed (merge): 1 file(s) changed"), "{stdout}");
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "from the first session\n"
    );

    let (code, _, stderr) = run(args(&["worktree", "apply", "--squash", &sessions[1].0])).await;
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains(
            "notes.txt\n<<<<<<< main checkout\nfrom the first session\n=======\nfrom the second session\n>>>>>>> nerve/second-change"
        ),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("notes.txt")).unwrap(),
        "from the first session\n"
    );
    assert_eq!(git(&dir, &["status", "--porcelain"]), "", "nothing half-merged");

    // Its work was committed on its branch before the attempt: discarding would lose that commit.
    let (code, _, stderr) = run(args(&["worktree", "discard", &sessions[1].0])).await;
    assert_eq!(code, Some(4), "{stderr}");
    assert!(stderr.contains("commit on nerve/second-change only"), "{stderr}");
    assert!(Path::new(&sessions[1].1).is_dir());
    let (code, stdout, stderr) = run(args(&["worktree", "discard", "--yes", &sessions[1].0])).await;
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.starts_with("removed "), "{stdout}");
    assert!(!Path::new(&sessions[1].1).exists());

    let (code, stdout, _) = run(args(&["worktree", "clean"])).await;
    assert_eq!((code, stdout.trim()), (Some(0), "nothing to clean"));
    assert_eq!(server.remaining_steps(), 0);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn changes_git_prints_what_git_sees_uncommitted_staged_and_against_a_base() {
    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "one\n");
    p.write("mode.sh", "echo\n");
    init_with_commit(&dir);
    p.write("a.txt", "one\ntwo\n");
    p.write("staged.txt", "s\n");
    git(&dir, &["add", "staged.txt"]);
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(dir.join("mode.sh"))
        .status()
        .unwrap();
    let server = mock(json!([])).await;
    let run = |args: &'static [&'static str]| {
        let server = &server;
        let p = &p;
        async move {
            let out = nerve(p.dir.path(), server, args).output().await.unwrap();
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            String::from_utf8_lossy(&out.stdout).replace(&format!("{}/", p.project_dir().display()), "")
        }
    };
    let uncommitted = run(&["changes", "--git"]).await;
    assert!(
        uncommitted.starts_with("3 files changed, +2 −0\n"),
        "{uncommitted}"
    );
    assert!(
        uncommitted.contains("\na.txt (modified, +1 −0)\n"),
        "{uncommitted}"
    );
    assert!(
        uncommitted.contains("\nmode.sh (modified, no textual change: its mode or type only)\n"),
        "{uncommitted}"
    );
    assert!(
        uncommitted.contains("\nstaged.txt (created, +1 −0)\n"),
        "{uncommitted}"
    );
    let staged = run(&["changes", "--git", "--staged"]).await;
    assert!(
        staged.starts_with("1 files changed, +1 −0\n\nstaged.txt (created, +1 −0)"),
        "{staged}"
    );
    let base = run(&["changes", "--git", "--base", "main"]).await;
    assert_eq!(
        base, uncommitted,
        "against its own branch: the same as uncommitted"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn review_sends_comments_quoting_each_place_back_to_the_session() {
    let p = TestProject::new();
    p.write("a.txt", "first line\nsecond line\n");
    let server = mock(json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "Looked."}]}},
        {"expect": {"last_user_text_contains": "1. a.txt:2\n   > second line\n   Say why."},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Because."}]}}
    ]))
    .await;
    let out = nerve(p.dir.path(), &server, &["-p", "look", "--output-format", "json"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let result: Value = serde_json::from_slice(&out.stdout).unwrap();
    let id = result["session_id"].as_str().unwrap().to_string();

    let args = [
        "review",
        "--session",
        &id,
        "--comment",
        "a.txt:2",
        "Say why.",
        "--dry-run",
    ];
    let out = nerve(p.dir.path(), &server, &args).output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "Review of your changes. Address each comment below (each quotes the lines as they are now), then say what you changed.\n\n1. a.txt:2\n   > second line\n   Say why.\n"
    );
    let out = nerve(p.dir.path(), &server, &args[..6]).output().await.unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "Because.");

    let bad = nerve(
        p.dir.path(),
        &server,
        &["review", "--session", &id, "--comment", "a.txt", "x"],
    )
    .output()
    .await
    .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&bad.stderr).trim(),
        "error: `a.txt` is not FILE:LINE"
    );
    assert_eq!(server.remaining_steps(), 0);
}
