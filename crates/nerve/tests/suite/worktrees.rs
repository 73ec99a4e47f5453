//! A session's own worktree, on real repositories: what each awkward repository answers, the
//! ignored files a build needs, landing by merge, squash and cherry-pick, conflicts that leave the
//! main checkout as it was, and throwing a worktree away after saying what is lost.

use std::path::PathBuf;

use nerve::worktree::{LandStrategy, NewWorktree, Workspaces, WorktreeError};
use pretty_assertions::assert_eq;

use nerve_test_support::git::{git, init_with_commit};

struct Repo {
    _tmp: tempfile::TempDir,
    dir: PathBuf,
    data: PathBuf,
}

impl Repo {
    /// A repository with one commit (`a.txt`, `src/lib.rs`, a binary `logo.bin`) on `main`.
    fn new() -> Self {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("repo");
        std::fs::create_dir_all(dir.join("src")).unwrap();
        git(&dir, &["init", "-q", "-b", "main"]);
        std::fs::write(dir.join("a.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(dir.join("src/lib.rs"), "pub fn f() {}\n").unwrap();
        std::fs::write(dir.join("logo.bin"), [0u8, 159, 146, 150, 0, 1]).unwrap();
        std::fs::write(
            dir.join(".gitignore"),
            ".env\ntarget/\n.nerve/settings.local.json\n",
        )
        .unwrap();
        git(&dir, &["add", "."]);
        git(&dir, &["commit", "-qm", "first"]);
        let dir = std::fs::canonicalize(dir).unwrap();
        let data = tmp.path().join("data");
        Self { _tmp: tmp, dir, data }
    }

    fn workspaces(&self) -> Workspaces {
        Workspaces::new(&self.dir, &self.data)
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.dir.join(rel), text).unwrap();
    }

    fn commit_all(&self, message: &str) {
        git(&self.dir, &["add", "-A"]);
        git(&self.dir, &["commit", "-qm", message]);
    }

    fn head(&self) -> String {
        git(&self.dir, &["rev-parse", "HEAD"])
    }

    fn status(&self) -> String {
        git(&self.dir, &["status", "--porcelain"])
    }
}

fn new(name: &str) -> NewWorktree {
    NewWorktree {
        base: None,
        name: Some(name.into()),
    }
}

#[test]
fn a_worktree_is_a_new_branch_outside_the_project_with_the_ignored_files_a_build_needs() {
    let r = Repo::new();
    r.write(".env", "SECRET=1\n");
    std::fs::create_dir_all(r.dir.join(".nerve")).unwrap();
    r.write(
        ".nerve/settings.local.json",
        r#"{"permissions":{"allow":["Bash(cargo test)"]}}"#,
    );
    std::fs::create_dir_all(r.dir.join("target/debug")).unwrap();
    r.write("target/debug/big", "not wanted");
    r.write(".worktreeinclude", ".env\n");
    r.commit_all("include list");

    let created = r.workspaces().create("s-1", &new("Fix the login bug")).unwrap();
    let info = &created.info;
    assert_eq!(info.branch, "nerve/fix-the-login-bug");
    assert!(
        info.path.starts_with(std::fs::canonicalize(&r.data).unwrap()),
        "{info:?}"
    );
    assert_eq!(info.work_dir, info.path);
    assert_eq!(info.base_commit, r.head());
    assert_eq!(info.base_branch.as_deref(), Some("main"));
    assert_eq!(
        created.copied,
        vec![".env".to_string(), ".nerve/settings.local.json".to_string()]
    );
    assert_eq!(
        std::fs::read_to_string(info.path.join(".env")).unwrap(),
        "SECRET=1\n"
    );
    assert!(
        !info.path.join("target").exists(),
        "only what .worktreeinclude names is copied"
    );
    assert_eq!(
        git(&info.path, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "nerve/fix-the-login-bug"
    );
    assert!(created.notes.is_empty(), "{:?}", created.notes);

    // The same name again gets its own branch; the same session gets its worktree back.
    let second = r.workspaces().create("s-2", &new("Fix the login bug")).unwrap();
    assert_eq!(second.info.branch, "nerve/fix-the-login-bug-2");
    let again = r.workspaces().create("s-1", &new("other")).unwrap();
    assert_eq!(again.info, created.info);
    let listed: Vec<String> = r
        .workspaces()
        .list(|_| true)
        .unwrap()
        .into_iter()
        .map(|s| s.info.session_id)
        .collect();
    assert_eq!(listed, vec!["s-1", "s-2"]);
}

#[test]
fn a_project_below_the_repository_top_works_in_the_same_subfolder_of_its_worktree() {
    let r = Repo::new();
    let sub = r.dir.join("src");
    let created = Workspaces::new(&sub, &r.data).create("s", &new("sub")).unwrap();
    assert_eq!(created.info.work_dir, created.info.path.join("src/"));
    assert!(created.info.work_dir.join("lib.rs").is_file());
}

#[test]
fn each_awkward_repository_gets_a_clear_answer() {
    let tmp = tempfile::tempdir().unwrap();
    let plain = tmp.path().join("plain");
    std::fs::create_dir_all(&plain).unwrap();
    let err = Workspaces::new(&plain, &tmp.path().join("d"))
        .create("s", &new("x"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NotARepository { .. }), "{err}");
    assert!(err.to_string().contains("works in the folder itself"), "{err}");

    let bare = tmp.path().join("bare.git");
    git(tmp.path(), &["init", "-q", "--bare", bare.to_str().unwrap()]);
    let err = Workspaces::new(&bare, &tmp.path().join("d"))
        .create("s", &new("x"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::Bare { .. }), "{err}");

    let empty = tmp.path().join("empty");
    git(tmp.path(), &["init", "-q", empty.to_str().unwrap()]);
    let err = Workspaces::new(&empty, &tmp.path().join("d"))
        .create("s", &new("x"))
        .unwrap_err();
    assert!(matches!(err, WorktreeError::NoCommit { .. }), "{err}");

    let r = Repo::new();
    let err = r
        .workspaces()
        .create(
            "s",
            &NewWorktree {
                base: Some("no-such-branch".into()),
                name: None,
            },
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "`no-such-branch` is not a branch, tag or commit of this repository"
    );
    let err = r
        .workspaces()
        .create(
            "s",
            &NewWorktree {
                base: Some("--orphan".into()),
                name: None,
            },
        )
        .unwrap_err();
    assert!(
        matches!(err, WorktreeError::UnknownBase { .. }),
        "an option is not a base: {err}"
    );

    // A dirty tree and a detached HEAD start anyway, and say what that means.
    r.write("a.txt", "changed but not committed\n");
    git(&r.dir, &["checkout", "-q", "--detach"]);
    let created = r.workspaces().create("s", &new("x")).unwrap();
    assert_eq!(created.info.base_branch, None);
    assert_eq!(created.notes.len(), 2, "{:?}", created.notes);
    assert!(created.notes[0].contains("detached HEAD"), "{:?}", created.notes);
    assert!(
        created.notes[1].contains("1 uncommitted change(s)"),
        "{:?}",
        created.notes
    );
    assert_eq!(
        std::fs::read_to_string(created.info.path.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
}

#[test]
fn a_repository_with_a_submodule_says_it_is_not_checked_out() {
    let r = Repo::new();
    let tmp = tempfile::tempdir().unwrap();
    let lib = tmp.path().join("lib");
    git(tmp.path(), &["init", "-q", "-b", "main", lib.to_str().unwrap()]);
    std::fs::write(lib.join("x"), "x").unwrap();
    git(&lib, &["add", "."]);
    git(&lib, &["commit", "-qm", "lib"]);
    git(
        &r.dir,
        &[
            "-c",
            "protocol.file.allow=always",
            "submodule",
            "add",
            "-q",
            lib.to_str().unwrap(),
            "vendor/lib",
        ],
    );
    r.commit_all("submodule");
    let created = r.workspaces().create("s", &new("x")).unwrap();
    assert!(
        created.notes.iter().any(|n| n.contains("submodules")),
        "{:?}",
        created.notes
    );
    assert!(created.info.path.join("vendor/lib").is_dir());
}

#[test]
fn landing_commits_what_the_session_left_and_merges_it_into_the_main_checkout() {
    let r = Repo::new();
    let created = r.workspaces().create("s", &new("feature")).unwrap();
    let wt = &created.info.path;
    // The agent's work: an edit, a rename and a changed binary, left uncommitted.
    std::fs::write(wt.join("a.txt"), "one\nTWO\nthree\n").unwrap();
    git(wt, &["mv", "src/lib.rs", "src/core.rs"]);
    std::fs::write(wt.join("logo.bin"), [0u8, 1, 2, 3, 255]).unwrap();

    let status = &r.workspaces().list(|_| true).unwrap()[0];
    assert_eq!((status.ahead, status.behind, status.uncommitted), (0, 0, 3));

    let landed = r.workspaces().land("s", LandStrategy::Merge, None).unwrap();
    assert!(landed.committed_first.is_some());
    assert_eq!(landed.head, r.head());
    let mut files = landed.files;
    files.sort();
    assert_eq!(files, vec!["a.txt", "logo.bin", "src/core.rs", "src/lib.rs"]);
    assert_eq!(
        std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
        "one\nTWO\nthree\n"
    );
    assert!(r.dir.join("src/core.rs").is_file() && !r.dir.join("src/lib.rs").exists());
    assert_eq!(
        std::fs::read(r.dir.join("logo.bin")).unwrap(),
        vec![0u8, 1, 2, 3, 255]
    );
    assert_eq!(
        git(&r.dir, &["rev-list", "--count", "--merges", "HEAD"]),
        "1",
        "a merge commit"
    );
    assert_eq!(r.status(), "");

    // Nothing more to land.
    let err = r.workspaces().land("s", LandStrategy::Merge, None).unwrap_err();
    assert!(matches!(err, WorktreeError::NothingToLand { .. }), "{err}");
}

#[test]
fn squash_makes_one_commit_and_cherry_pick_copies_each() {
    let r = Repo::new();
    let wt = r.workspaces().create("s", &new("two steps")).unwrap().info.path;
    std::fs::write(wt.join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    git(&wt, &["commit", "-qam", "step one"]);
    std::fs::write(wt.join("b.txt"), "new\n").unwrap();
    git(&wt, &["add", "b.txt"]);
    git(&wt, &["commit", "-qm", "step two"]);
    let before = r.head();
    let landed = r
        .workspaces()
        .land("s", LandStrategy::Squash, Some("The feature"))
        .unwrap();
    assert_eq!(landed.committed_first, None);
    assert_eq!(
        git(&r.dir, &["rev-list", "--count", &format!("{before}..HEAD")]),
        "1"
    );
    assert_eq!(git(&r.dir, &["log", "-1", "--format=%s"]), "The feature");
    assert!(r.dir.join("b.txt").is_file());

    let r = Repo::new();
    let wt = r.workspaces().create("s", &new("picks")).unwrap().info.path;
    std::fs::write(wt.join("a.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    git(&wt, &["commit", "-qam", "step one"]);
    std::fs::write(wt.join("b.txt"), "new\n").unwrap();
    git(&wt, &["add", "b.txt"]);
    git(&wt, &["commit", "-qm", "step two"]);
    // The main branch moved on meanwhile, elsewhere in the tree.
    r.write("c.txt", "main's own\n");
    r.commit_all("main moves");
    assert_eq!(r.workspaces().list(|_| true).unwrap()[0].behind, 1);
    let landed = r.workspaces().land("s", LandStrategy::CherryPick, None).unwrap();
    assert_eq!(landed.files, vec!["a.txt", "b.txt"]);
    assert_eq!(git(&r.dir, &["log", "-2", "--format=%s"]), "step two\nstep one");
}

#[test]
fn a_conflict_is_shown_with_both_sides_and_leaves_the_main_checkout_as_it_was() {
    for strategy in [
        LandStrategy::Merge,
        LandStrategy::Squash,
        LandStrategy::CherryPick,
    ] {
        let r = Repo::new();
        let wt = r.workspaces().create("s", &new("clash")).unwrap().info.path;
        std::fs::write(wt.join("a.txt"), "one\nsession's two\nthree\n").unwrap();
        std::fs::write(wt.join("b.txt"), "only the session's\n").unwrap();
        r.write("a.txt", "one\nmain's two\nthree\n");
        r.commit_all("main edits the same line");
        let before = r.head();

        let err = r.workspaces().land("s", strategy, None).unwrap_err();
        let WorktreeError::Conflict { branch, files } = &err else {
            panic!("{strategy:?}: {err}");
        };
        assert_eq!(branch, "nerve/clash");
        assert_eq!(files.len(), 1, "{strategy:?}");
        assert_eq!(files[0].path, "a.txt");
        assert_eq!(files[0].ours.as_deref(), Some("one\nmain's two\nthree\n"));
        assert_eq!(files[0].theirs.as_deref(), Some("one\nsession's two\nthree\n"));
        assert!(err.to_string().contains("left as it was"), "{err}");
        // Nothing half-merged: same HEAD, clean tree, no operation in progress.
        assert_eq!(r.head(), before, "{strategy:?}");
        assert_eq!(r.status(), "", "{strategy:?}");
        assert!(!r.dir.join(".git/MERGE_HEAD").exists() && !r.dir.join(".git/CHERRY_PICK_HEAD").exists());
        assert_eq!(
            std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
            "one\nmain's two\nthree\n"
        );
    }
}

#[test]
fn two_sessions_editing_one_file_work_apart_and_the_second_to_land_meets_the_first() {
    let r = Repo::new();
    let one = r.workspaces().create("one", &new("one")).unwrap().info.path;
    let two = r.workspaces().create("two", &new("two")).unwrap().info.path;
    std::fs::write(one.join("a.txt"), "one\nfrom one\nthree\n").unwrap();
    std::fs::write(two.join("a.txt"), "one\nfrom two\nthree\n").unwrap();
    // Neither sees the other's half-made change, and the main checkout sees neither.
    assert_eq!(
        std::fs::read_to_string(one.join("a.txt")).unwrap(),
        "one\nfrom one\nthree\n"
    );
    assert_eq!(
        std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );

    r.workspaces().land("one", LandStrategy::Merge, None).unwrap();
    let err = r.workspaces().land("two", LandStrategy::Merge, None).unwrap_err();
    assert!(matches!(err, WorktreeError::Conflict { .. }), "{err}");
    assert_eq!(
        std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
        "one\nfrom one\nthree\n"
    );
}

#[test]
fn a_busy_or_dirty_main_checkout_is_refused_before_anything_changes() {
    let r = Repo::new();
    let wt = r.workspaces().create("s", &new("x")).unwrap().info.path;
    std::fs::write(wt.join("a.txt"), "session\n").unwrap();
    // The user is editing the same file in the main checkout: git refuses to overwrite it.
    r.write("a.txt", "the user's unsaved work\n");
    let err = r.workspaces().land("s", LandStrategy::Merge, None).unwrap_err();
    assert!(matches!(err, WorktreeError::Git { .. }), "{err}");
    assert!(err.to_string().contains("a.txt"), "{err}");
    assert_eq!(
        std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
        "the user's unsaved work\n"
    );

    std::fs::write(r.dir.join(".git/MERGE_HEAD"), r.head()).unwrap();
    let err = r.workspaces().land("s", LandStrategy::Merge, None).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the main checkout is in the middle of a merge: finish or abort it first, then land the session"
    );
}

#[test]
fn discarding_says_what_is_lost_then_removes_the_worktree_and_its_branch() {
    let r = Repo::new();
    let wt = r.workspaces().create("s", &new("throwaway")).unwrap().info.path;
    std::fs::write(wt.join("b.txt"), "kept in a commit\n").unwrap();
    git(&wt, &["add", "b.txt"]);
    git(&wt, &["commit", "-qm", "a commit only this branch has"]);
    std::fs::write(wt.join("a.txt"), "not committed\n").unwrap();

    let preview = r.workspaces().discard_preview("s").unwrap();
    assert_eq!(preview.uncommitted, vec![" M a.txt"]);
    assert_eq!(preview.unmerged_commits.len(), 1);
    assert!(preview.unmerged_commits[0].ends_with("a commit only this branch has"));

    r.workspaces().discard("s", false).unwrap();
    assert!(!wt.exists());
    assert!(!git(&r.dir, &["branch", "--list"]).contains("nerve/"));
    assert!(r.workspaces().list(|_| true).unwrap().is_empty());
    let err = r.workspaces().discard("s", false).unwrap_err();
    assert_eq!(err.to_string(), "session s has no worktree");
}

#[test]
fn clean_removes_worktrees_whose_session_or_folder_is_gone_and_never_loses_uncommitted_work() {
    let r = Repo::new();
    let gone = r.workspaces().create("gone", &new("gone")).unwrap().info;
    let busy = r.workspaces().create("busy", &new("busy")).unwrap().info;
    let live = r.workspaces().create("live", &new("live")).unwrap().info;
    let removed_by_hand = r.workspaces().create("by-hand", &new("by hand")).unwrap().info;
    std::fs::write(busy.path.join("a.txt"), "unsaved\n").unwrap();
    std::fs::write(gone.path.join("new.txt"), "committed\n").unwrap();
    git(&gone.path, &["add", "."]);
    git(&gone.path, &["commit", "-qm", "work"]);
    std::fs::remove_dir_all(&removed_by_hand.path).unwrap();

    let exists = |id: &str| id == "live" || id == "by-hand";
    let listed: Vec<(String, bool, bool)> = r
        .workspaces()
        .list(exists)
        .unwrap()
        .into_iter()
        .map(|s| (s.info.session_id, s.orphaned, s.missing))
        .collect();
    assert_eq!(
        listed,
        vec![
            ("gone".into(), true, false),
            ("busy".into(), true, false),
            ("live".into(), false, false),
            ("by-hand".into(), false, true),
        ]
    );
    let report = r.workspaces().clean(exists).unwrap();
    let removed: Vec<&str> = report.removed.iter().map(|i| i.session_id.as_str()).collect();
    assert_eq!(removed, vec!["gone", "by-hand"]);
    assert_eq!(
        report.kept_branches,
        vec!["nerve/gone"],
        "its commit is on no other branch"
    );
    assert_eq!(report.kept.len(), 1);
    assert_eq!(report.kept[0].info.session_id, "busy");
    assert!(busy.path.join("a.txt").is_file());
    assert!(live.path.is_dir());
    assert!(!gone.path.exists());
}

/// Through the front door: a session asked to work in a worktree edits there (the main checkout
/// untouched), is listed with the project's sessions, resumes in the same worktree, and deleting
/// it removes the worktree but keeps its work on the branch.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_in_a_worktree_edits_there_resumes_there_and_keeps_its_work_when_deleted() {
    use crate::support::{TestProject, mock};
    use nerve::events::EventSink;

    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "main\n");
    init_with_commit(&dir);
    let model = mock(serde_json::json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "w1", "name": "Write",
             "input": {"file_path": "notes.txt", "content": "from the session\n"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "written"}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "still here"}]}}
    ]))
    .await;
    let options = |resume: Option<String>| {
        let mut o = crate::support::mock_session_options(&model);
        o.resume = resume;
        o.worktree = Some(NewWorktree {
            base: None,
            name: Some("Write notes".into()),
        });
        o
    };
    let mut project_options = p.options();
    project_options.mode = Some(nerve::permissions::PermissionMode::AcceptEdits);
    let project = nerve::Project::open(project_options.clone()).unwrap();
    let session = nerve::Session::start(project, options(None)).await.unwrap();
    let state = session.state().unwrap();
    let worktree = state.worktree.clone().expect("the session has its worktree");
    assert_eq!(worktree.branch, "nerve/write-notes");
    assert_eq!(
        state.project_path,
        dir.display().to_string(),
        "listed under the project"
    );
    assert_eq!(state.warnings, Vec::<String>::new());
    let done = session
        .send("write the notes", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "written", "{:?}", done.error);
    assert_eq!(
        std::fs::read_to_string(worktree.path.join("notes.txt")).unwrap(),
        "from the session\n"
    );
    assert!(!dir.join("notes.txt").exists(), "the main checkout is untouched");
    let id = session.id().to_string();
    session.close().await;

    let project = nerve::Project::open(project_options.clone()).unwrap();
    let listed: Vec<String> = project
        .sessions("")
        .unwrap()
        .into_iter()
        .map(|s| s.session_id)
        .collect();
    assert_eq!(listed, vec![id.clone()]);
    let resumed = nerve::Session::start(project, options(Some(id.clone())))
        .await
        .unwrap();
    assert_eq!(
        resumed.state().unwrap().worktree,
        Some(worktree.clone()),
        "back in the same worktree"
    );
    let again = resumed
        .send("still there?", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(again.final_text, "still here", "{:?}", again.error);
    resumed.close().await;

    let project = nerve::Project::open(project_options).unwrap();
    let deleted = project.delete(&id).unwrap();
    assert_eq!(deleted.kept_branch.as_deref(), Some("nerve/write-notes"));
    assert!(!worktree.path.exists());
    assert_eq!(
        git(&dir, &["show", "nerve/write-notes:notes.txt"]),
        "from the session"
    );
    assert!(project.worktrees().unwrap().is_empty());
}

/// A new worktree runs the settings' setup command once, before the first prompt reaches the
/// model: as a Bash call through the pipeline (a rule allows this one; a deny rule refuses the
/// other), its effect in the worktree, and the model told what it did with that prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_worktree_runs_the_setup_command_from_the_settings_as_a_checked_call() {
    use crate::support::{TestProject, mock};
    use nerve::events::EventSink;

    let p = TestProject::new();
    let dir = p.project_dir();
    p.write(
        ".nerve/settings.json",
        r#"{"worktree": {"setupCommand": "touch prepared.txt"},
            "permissions": {"allow": ["Bash(touch prepared.txt)"], "deny": ["Bash(rm *)"]}}"#,
    );
    init_with_commit(&dir);
    let model = mock(serde_json::json!([
        {"expect": {"last_user_text_contains": "its setup command from the settings ran: `touch prepared.txt`"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "ready"}]}},
        {"expect": {"no_message_contains": "was not run"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "again"}]}},
        {"expect": {"last_user_text_contains": "its setup command from the settings was not run (the user or a rule refused it): `rm -rf build`"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "refused"}]}}
    ]))
    .await;
    let options = || {
        let mut o = crate::support::mock_session_options(&model);
        o.worktree = Some(NewWorktree::default());
        o
    };
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), options())
        .await
        .unwrap();
    let worktree = session.worktree().unwrap();
    assert!(
        !worktree.path.join("prepared.txt").exists(),
        "nothing runs before the first prompt"
    );
    let done = session.send("hello", &[], EventSink::discard()).await.unwrap();
    assert_eq!(done.final_text, "ready", "{:?}", done.error);
    assert!(worktree.path.join("prepared.txt").exists());
    assert!(!dir.join("prepared.txt").exists(), "it ran in the worktree");
    // Once only.
    std::fs::remove_file(worktree.path.join("prepared.txt")).unwrap();
    let again = session.send("more", &[], EventSink::discard()).await.unwrap();
    assert_eq!(again.final_text, "again", "{:?}", again.error);
    assert!(!worktree.path.join("prepared.txt").exists());
    session.close().await;

    // A command a rule denies is refused like the model's own, and the model hears so.
    p.write(
        ".nerve/settings.local.json",
        r#"{"worktree": {"setupCommand": "rm -rf build"}}"#,
    );
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), options())
        .await
        .unwrap();
    let done = session.send("hello", &[], EventSink::discard()).await.unwrap();
    assert_eq!(done.final_text, "refused", "{:?}", done.error);
    session.close().await;
}

/// A file the agent moves with a plain `mv` (git is not told) shows in the git scope as one
/// rename with its edit, not as a deletion and an unrelated new file; reverting it brings the old
/// name back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_file_the_agent_renamed_shows_as_a_rename_in_the_git_scope() {
    use crate::support::{TestProject, mock};
    use nerve::checkpoint::{ChangeScope, FileStatus};
    use nerve::events::EventSink;

    let p = TestProject::new();
    let dir = p.project_dir();
    let body: String = (1..=12).map(|i| format!("pub fn f{i}() {{}}\n")).collect();
    p.write("old_name.rs", &body);
    p.write(
        ".nerve/settings.json",
        r#"{"permissions": {"allow": ["Bash(mv old_name.rs new_name.rs)"]}}"#,
    );
    init_with_commit(&dir);
    let new_name = dir.join("new_name.rs");
    let model = mock(serde_json::json!([
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "b1", "name": "Bash",
             "input": {"command": "mv old_name.rs new_name.rs", "description": "Rename"}}]}},
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "r1", "name": "Read", "input": {"file_path": new_name}}]}},
        {"response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "e1", "name": "Edit",
             "input": {"file_path": new_name, "old_string": "pub fn f3() {}", "new_string": "pub fn f3_renamed() {}"}}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "renamed"}]}}
    ]))
    .await;
    let mut options = p.options();
    options.mode = Some(nerve::permissions::PermissionMode::AcceptEdits);
    let session = nerve::Session::start(
        nerve::Project::open(options).unwrap(),
        crate::support::mock_session_options(&model),
    )
    .await
    .unwrap();
    let done = session
        .send("rename it", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "renamed", "{:?}", done.error);
    let set = session.changes(ChangeScope::GitUncommitted).unwrap();
    let seen: Vec<_> = set
        .files
        .iter()
        .map(|f| {
            (
                f.path.clone(),
                f.status,
                f.renamed_from.clone(),
                f.added,
                f.removed,
            )
        })
        .collect();
    assert_eq!(
        seen,
        vec![(
            new_name.clone(),
            FileStatus::Renamed,
            Some(dir.join("old_name.rs")),
            1,
            1
        )]
    );
    session
        .git_revert_file(&new_name, Some(&dir.join("old_name.rs")))
        .unwrap();
    assert!(!new_name.exists());
    assert_eq!(std::fs::read_to_string(dir.join("old_name.rs")).unwrap(), body);
    assert_eq!(git(&dir, &["status", "--porcelain"]), "");
    session.close().await;
}

/// The app's default (a worktree when another session of the project is live) never stops a
/// session in a folder git cannot branch: it starts in the folder and says why. Asked for
/// explicitly, the same folder is an error with the reason.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_default_worktree_falls_back_to_the_folder_and_an_explicit_one_says_why_it_cannot() {
    use crate::support::{TestProject, mock};
    use nerve::events::EventSink;
    use nerve::session::{SessionOptions, StartError};
    use nerve_protocol::workspace::WorktreeWhen;

    let mut choice = SessionOptions::new(EventSink::discard());
    choice.choose_worktree(None, WorktreeWhen::Parallel, 0);
    assert_eq!(
        (choice.worktree.is_some(), choice.worktree_optional),
        (false, false),
        "alone"
    );
    choice.choose_worktree(None, WorktreeWhen::Parallel, 1);
    assert_eq!(
        (choice.worktree.is_some(), choice.worktree_optional),
        (true, true),
        "beside another"
    );
    let mut choice = SessionOptions::new(EventSink::discard());
    choice.choose_worktree(Some(true), WorktreeWhen::Never, 0);
    assert_eq!(
        (choice.worktree.is_some(), choice.worktree_optional),
        (true, false),
        "asked for"
    );
    let mut choice = SessionOptions::new(EventSink::discard());
    choice.resume = Some("old".into());
    choice.choose_worktree(None, WorktreeWhen::Always, 3);
    assert!(choice.worktree.is_none(), "a resumed session keeps what it had");

    let p = TestProject::new();
    let model = mock(serde_json::json!([])).await;
    let options = |asked: Option<bool>| {
        let mut o = crate::support::mock_session_options(&model);
        o.choose_worktree(asked, WorktreeWhen::Always, 1);
        o
    };
    let project = nerve::Project::open(p.options()).unwrap();
    let session = nerve::Session::start(project, options(None)).await.unwrap();
    let state = session.state().unwrap();
    assert_eq!(state.worktree, None);
    assert_eq!(state.warnings.len(), 1, "{:?}", state.warnings);
    assert!(
        state.warnings[0].starts_with("No worktree of its own: "),
        "{:?}",
        state.warnings
    );
    assert!(
        state.warnings[0].contains("is not in a git repository"),
        "{:?}",
        state.warnings
    );
    session.close().await;

    let project = nerve::Project::open(p.options()).unwrap();
    let err = nerve::Session::start(project, options(Some(true)))
        .await
        .unwrap_err();
    assert!(
        matches!(err, StartError::Worktree(WorktreeError::NotARepository { .. })),
        "{err}"
    );
}

/// Inside the real sandbox, a session working in a worktree can commit (git writes the worktree's
/// own folder and the shared objects, refs and logs in the main checkout's `.git`), and cannot
/// plant what makes git run a program or read another repository: the worktree's `commondir`,
/// the repository's `config` and hooks stay read-only.
#[tokio::test]
async fn a_sandboxed_session_in_a_worktree_commits_but_plants_nothing_in_the_shared_git_folder() {
    use crate::support::{TestProject, text_of};
    use nerve::permissions::PermissionMode;
    use nerve::pipeline::ToolCall;
    use nerve::project::SessionSetup;

    if !crate::support::sandbox_available("nothing to check here") {
        return;
    }
    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "main\n");
    init_with_commit(&dir);
    let mut options = p.options();
    options.mode = Some(PermissionMode::BypassPermissions);
    let project = nerve::Project::open(options).unwrap();
    let info = project.workspaces().create("s", &new("sandboxed")).unwrap().info;
    let inside = project.in_worktree(&info).unwrap();
    let session = inside.session(
        nerve::registry::ToolPool::new(nerve::registry::all_builtin_tools(), false).unwrap(),
        SessionSetup {
            events: p.recorder.sink(),
            headless: true,
            ..SessionSetup::default()
        },
    );
    let bash = |id: &str, command: &str| ToolCall {
        id: id.into(),
        name: "Bash".into(),
        input: serde_json::json!({ "command": command }),
    };
    let commit = session
        .run_one(&bash(
            "c",
            "echo new > b.txt && git add b.txt && git -c user.name=a -c user.email=a@example.com commit -qm 'from the sandbox' && git log -1 --format=%s",
        ))
        .await;
    assert!(!commit.is_error, "{}", text_of(&commit.content));
    assert!(text_of(&commit.content).contains("from the sandbox"));
    assert_eq!(
        git(&dir, &["log", "-1", "--format=%s", "nerve/sandboxed"]),
        "from the sandbox"
    );

    let common = dir.join(".git");
    let own = common.join("worktrees").join(info.path.file_name().unwrap());
    let commondir_before = std::fs::read_to_string(own.join("commondir")).unwrap();
    let config_before = std::fs::read_to_string(common.join("config")).unwrap();
    for (n, plant) in [
        format!("echo /tmp/evil > {}", own.join("commondir").display()),
        format!(
            "echo '[core] fsmonitor = touch x' >> {}",
            common.join("config").display()
        ),
        format!(
            "mkdir -p {0} && echo '#!/bin/sh' > {0}/pre-commit",
            common.join("hooks").display()
        ),
    ]
    .iter()
    .enumerate()
    {
        let out = session.run_one(&bash(&format!("p{n}"), plant)).await;
        assert!(out.is_error, "{plant}: {}", text_of(&out.content));
    }
    assert_eq!(
        std::fs::read_to_string(own.join("commondir")).unwrap(),
        commondir_before
    );
    assert_eq!(
        std::fs::read_to_string(common.join("config")).unwrap(),
        config_before
    );
    assert!(!common.join("hooks/pre-commit").exists());
}

/// Git scopes: what is uncommitted (new files too), what is staged, and what differs from a base;
/// a binary file and a mode change say so (no hunks), and a session's worktree answers against
/// its own base.
#[test]
fn git_scopes_read_uncommitted_staged_and_base_changes_from_git() {
    use nerve::checkpoint::{ChangeScope, FileStatus};
    use std::os::unix::fs::PermissionsExt;

    let r = Repo::new();
    let project = {
        let mut o = nerve::project::ProjectOptions::with_env(
            &r.dir,
            std::sync::Arc::new(nerve::EngineEnv::default()),
        );
        o.bare = true;
        o.data_dir = r.data.clone();
        nerve::Project::open(o).unwrap()
    };
    let summary =
        |scope: ChangeScope, session: Option<&str>| -> Vec<(String, FileStatus, usize, usize, bool, usize)> {
            let set = project.git_changes(session, scope).unwrap();
            set.files
                .iter()
                .map(|f| {
                    (
                        f.path
                            .strip_prefix(&r.dir)
                            .unwrap_or(&f.path)
                            .display()
                            .to_string(),
                        f.status,
                        f.added,
                        f.removed,
                        f.binary,
                        f.hunks.len(),
                    )
                })
                .collect()
        };
    r.write("a.txt", "one\nTWO\nthree\n");
    r.write("new.txt", "brand new\n");
    r.write("staged.txt", "staged\n");
    git(&r.dir, &["add", "staged.txt"]);
    std::fs::write(r.dir.join("logo.bin"), [0u8, 1, 2]).unwrap();
    std::fs::set_permissions(r.dir.join("src/lib.rs"), std::fs::Permissions::from_mode(0o755)).unwrap();

    assert_eq!(
        summary(ChangeScope::GitUncommitted, None),
        vec![
            ("a.txt".into(), FileStatus::Modified, 1, 1, false, 1),
            ("logo.bin".into(), FileStatus::Modified, 0, 0, true, 0),
            ("new.txt".into(), FileStatus::Created, 1, 0, false, 1),
            ("src/lib.rs".into(), FileStatus::Modified, 0, 0, false, 0),
            ("staged.txt".into(), FileStatus::Created, 1, 0, false, 1),
        ]
    );
    assert_eq!(
        summary(ChangeScope::GitStaged, None),
        vec![("staged.txt".into(), FileStatus::Created, 1, 0, false, 1)]
    );
    let err = project
        .git_changes(None, ChangeScope::GitBase { base: None })
        .unwrap_err();
    assert!(err.to_string().starts_with("name a base"), "{err}");

    // A session's worktree: against its base by default, whatever the main checkout does.
    let wt = project.workspaces().create("s", &new("scoped")).unwrap().info;
    std::fs::write(wt.path.join("b.txt"), "in the worktree\n").unwrap();
    git(&wt.path, &["add", "b.txt"]);
    git(&wt.path, &["commit", "-qm", "wt"]);
    std::fs::write(wt.path.join("c.txt"), "uncommitted\n").unwrap();
    let in_wt = |scope| {
        project
            .git_changes(Some("s"), scope)
            .unwrap()
            .files
            .iter()
            .map(|f| f.path.strip_prefix(&wt.path).unwrap().display().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(in_wt(ChangeScope::GitBase { base: None }), vec!["b.txt", "c.txt"]);
    assert_eq!(in_wt(ChangeScope::GitUncommitted), vec!["c.txt"]);
    assert_eq!(
        in_wt(ChangeScope::GitBase {
            base: Some("main".into())
        }),
        vec!["b.txt", "c.txt"]
    );
}

/// The git actions of the Changes panel on a real repository: stage and unstage (a path outside
/// the repository is refused), commit only what is staged (an empty message or nothing staged is
/// a clear error), create a branch (a bad or taken name is refused).
#[test]
fn staging_committing_and_branching_in_the_sessions_folder() {
    use nerve::worktree::stage;

    let r = Repo::new();
    r.write("a.txt", "changed\n");
    r.write("new.txt", "new\n");
    stage::stage(&r.dir, &[r.dir.join("a.txt"), r.dir.join("new.txt")]).unwrap();
    assert_eq!(
        git(&r.dir, &["diff", "--cached", "--name-only"]),
        "a.txt\nnew.txt"
    );
    stage::unstage(&r.dir, &[r.dir.join("new.txt")]).unwrap();
    assert_eq!(git(&r.dir, &["diff", "--cached", "--name-only"]), "a.txt");
    let err = stage::stage(&r.dir, &[PathBuf::from("/etc/passwd")]).unwrap_err();
    assert_eq!(err.to_string(), "/etc/passwd is not inside the repository");
    let err = stage::stage(&r.dir, &[r.dir.join("../outside")]).unwrap_err();
    assert!(matches!(err, WorktreeError::OutsideRepository { .. }), "{err}");

    assert_eq!(
        stage::commit(&r.dir, "  ").unwrap_err().to_string(),
        "a commit needs a message"
    );
    let id = stage::commit(&r.dir, "Change a").unwrap();
    assert_eq!(id, r.head());
    assert_eq!(git(&r.dir, &["log", "-1", "--format=%s"]), "Change a");
    assert_eq!(
        git(&r.dir, &["status", "--porcelain"]),
        "?? new.txt",
        "only what was staged"
    );
    assert_eq!(
        stage::commit(&r.dir, "again").unwrap_err().to_string(),
        "nothing is staged: stage the files to commit first"
    );

    stage::create_branch(&r.dir, "try-it").unwrap();
    assert_eq!(git(&r.dir, &["rev-parse", "try-it"]), r.head());
    assert_eq!(
        git(&r.dir, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "main",
        "the checkout stays"
    );
    assert_eq!(
        stage::create_branch(&r.dir, "try-it").unwrap_err().to_string(),
        "a branch named `try-it` exists already"
    );
    assert_eq!(
        stage::create_branch(&r.dir, "bad..name").unwrap_err().to_string(),
        "`bad..name` is not a valid branch name"
    );
    assert!(matches!(
        stage::create_branch(&r.dir, "--force").unwrap_err(),
        WorktreeError::BadBranchName { .. }
    ));
}

/// One hunk is staged and unstaged on its own, as `git add --patch` does: the index gets exactly
/// that part, the work tree keeps both; a hunk whose lines the index no longer has is refused with
/// the reason, and nothing changes.
#[test]
fn one_hunk_of_a_file_is_staged_and_unstaged_on_its_own() {
    use nerve::checkpoint::ChangeScope;
    use nerve::checkpoint::git_scope::git_change_set;
    use nerve::worktree::stage;

    let r = Repo::new();
    let lines: Vec<String> = (1..=20).map(|i| format!("line {i}")).collect();
    r.write("list.txt", &(lines.join("\n") + "\n"));
    r.commit_all("list");
    let mut changed = lines;
    changed[1] = "line TWO".into();
    changed[17] = "line EIGHTEEN".into();
    r.write("list.txt", &(changed.join("\n") + "\n"));
    let file = r.dir.join("list.txt");
    let hunks = |scope| {
        git_change_set(&r.dir, scope, None).unwrap().files[0]
            .hunks
            .clone()
    };
    let uncommitted = hunks(ChangeScope::GitUncommitted);
    assert_eq!(uncommitted.len(), 2);

    stage::stage_hunk(&r.dir, &file, &uncommitted[1]).unwrap();
    assert_eq!(
        git(&r.dir, &["diff", "--cached", "--unified=0", "--no-color"])
            .lines()
            .filter(|l| l.starts_with('+') || l.starts_with('-'))
            .collect::<Vec<_>>(),
        vec!["--- a/list.txt", "+++ b/list.txt", "-line 18", "+line EIGHTEEN"]
    );
    assert_eq!(
        git(&r.dir, &["diff", "--unified=0"]).matches("line TWO").count(),
        1,
        "the other hunk is still unstaged"
    );
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        changed.join("\n") + "\n",
        "the work tree is untouched"
    );

    // Staged twice: the index no longer has the old lines.
    let err = stage::stage_hunk(&r.dir, &file, &uncommitted[1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot stage this part of {} on its own: the index holds other changes of these lines; stage the whole file instead",
            file.display()
        )
    );

    stage::stage_hunk(&r.dir, &file, &uncommitted[0]).unwrap();
    let staged = hunks(ChangeScope::GitStaged);
    assert_eq!(staged.len(), 2);
    stage::unstage_hunk(&r.dir, &file, &staged[1]).unwrap();
    let left = git(&r.dir, &["diff", "--cached", "--unified=0"]);
    assert!(left.contains("+line TWO") && !left.contains("EIGHTEEN"), "{left}");

    // A new file's hunk stages the file.
    r.write("fresh.sh", "#!/bin/sh\necho hi\n");
    std::fs::set_permissions(
        r.dir.join("fresh.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let set = git_change_set(&r.dir, ChangeScope::GitUncommitted, None).unwrap();
    let fresh = set.files.iter().find(|f| f.path.ends_with("fresh.sh")).unwrap();
    stage::stage_hunk(&r.dir, &fresh.path, &fresh.hunks[0]).unwrap();
    assert!(git(&r.dir, &["ls-files", "--stage", "fresh.sh"]).starts_with("100755 "));
    assert_eq!(git(&r.dir, &["status", "--porcelain", "fresh.sh"]), "A  fresh.sh");

    let err = stage::stage_hunk(&r.dir, std::path::Path::new("/etc/passwd"), &uncommitted[0]).unwrap_err();
    assert!(matches!(err, WorktreeError::OutsideRepository { .. }), "{err}");
}

/// Reverting a file in a git scope puts it back to the last commit in the work tree and the index;
/// a new file is deleted; a renamed file comes back under its old name.
#[test]
fn a_file_is_reverted_to_the_last_commit_and_a_rename_is_undone() {
    use nerve::checkpoint::git_scope::git_change_set;
    use nerve::checkpoint::{ChangeScope, FileStatus};
    use nerve::worktree::stage;

    let r = Repo::new();
    r.write("a.txt", "changed\n");
    git(&r.dir, &["add", "a.txt"]);
    r.write("a.txt", "changed again\n");
    r.write("new.txt", "new\n");
    stage::revert_file(&r.dir, &r.dir.join("a.txt"), None).unwrap();
    stage::revert_file(&r.dir, &r.dir.join("new.txt"), None).unwrap();
    assert_eq!(
        std::fs::read_to_string(r.dir.join("a.txt")).unwrap(),
        "one\ntwo\nthree\n"
    );
    assert!(!r.dir.join("new.txt").exists());
    assert_eq!(r.status(), "");

    // Moved with plain `mv` and edited a little: git scopes show one renamed file.
    let body: String = (1..=10).map(|i| format!("fn f{i}() {{}}\n")).collect();
    r.write("old_name.rs", &body);
    r.commit_all("add old_name.rs");
    std::fs::remove_file(r.dir.join("old_name.rs")).unwrap();
    r.write("new_name.rs", &body.replace("fn f3()", "fn f3_renamed()"));
    let set = git_change_set(&r.dir, ChangeScope::GitUncommitted, None).unwrap();
    assert_eq!(set.files.len(), 1, "{set:#?}");
    let renamed = &set.files[0];
    assert_eq!(
        (
            renamed.status,
            renamed.path.clone(),
            renamed.renamed_from.clone(),
            renamed.added,
            renamed.removed
        ),
        (
            FileStatus::Renamed,
            r.dir.join("new_name.rs"),
            Some(r.dir.join("old_name.rs")),
            1,
            1
        )
    );
    // Staged both ways, it is still one rename.
    stage::stage(&r.dir, &[renamed.path.clone(), r.dir.join("old_name.rs")]).unwrap();
    let staged = git_change_set(&r.dir, ChangeScope::GitStaged, None).unwrap();
    assert_eq!(staged.files.len(), 1);
    assert_eq!(staged.files[0].status, FileStatus::Renamed);
    // An unrelated new file and a deleted one are not paired.
    r.write("unrelated.txt", "nothing alike\n");
    std::fs::remove_file(r.dir.join("src/lib.rs")).unwrap();
    let set = git_change_set(&r.dir, ChangeScope::GitUncommitted, None).unwrap();
    let statuses: Vec<(String, FileStatus)> = set
        .files
        .iter()
        .map(|f| {
            (
                f.path.strip_prefix(&r.dir).unwrap().display().to_string(),
                f.status,
            )
        })
        .collect();
    assert_eq!(
        statuses,
        vec![
            ("new_name.rs".into(), FileStatus::Renamed),
            ("src/lib.rs".into(), FileStatus::Deleted),
            ("unrelated.txt".into(), FileStatus::Created),
        ]
    );

    stage::revert_file(
        &r.dir,
        &r.dir.join("new_name.rs"),
        Some(&r.dir.join("old_name.rs")),
    )
    .unwrap();
    assert!(!r.dir.join("new_name.rs").exists());
    assert_eq!(std::fs::read_to_string(r.dir.join("old_name.rs")).unwrap(), body);
    assert_eq!(
        r.status(),
        "D  src/lib.rs\n?? unrelated.txt".replace("D  ", " D ")
    );
}

/// A suggested commit message comes from the fast model, which is sent the staged diff.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_message_is_suggested_from_the_staged_diff() {
    use crate::support::{TestProject, mock};

    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "one\n");
    init_with_commit(&dir);
    let model = mock(serde_json::json!([
        {"expect": {"last_user_text_contains": "+the staged line"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "Add the staged line\n"}]}}
    ]))
    .await;
    let mut o = crate::support::mock_session_options(&model);
    o.fast_model = Some("claude-fast".into());
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), o)
        .await
        .unwrap();
    let err = session.suggest_commit_message().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "nothing is staged: stage the files to commit first"
    );
    p.write("a.txt", "one\nthe staged line\n");
    session.git_stage(&[dir.join("a.txt")]).unwrap();
    assert_eq!(
        session.suggest_commit_message().await.unwrap(),
        "Add the staged line"
    );
    assert_eq!(model.requests()[0].body["model"], "claude-fast");
    session.close().await;
}

/// A worktree made before its session had a title is named after the session's id, then renamed
/// after the first prompt (once); the record follows.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unnamed_worktree_is_named_after_the_first_prompt() {
    use crate::support::{TestProject, mock};
    use nerve::events::EventSink;

    let p = TestProject::new();
    let dir = p.project_dir();
    p.write("a.txt", "one\n");
    init_with_commit(&dir);
    let model = mock(serde_json::json!([
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}},
        {"response": {"type": "stream", "blocks": [{"type": "text", "text": "ok again"}]}}
    ]))
    .await;
    let mut o = crate::support::mock_session_options(&model);
    o.session_id = Some("0123456789abcdef".into());
    o.worktree = Some(NewWorktree::default());
    let session = nerve::Session::start(nerve::Project::open(p.options()).unwrap(), o)
        .await
        .unwrap();
    let before = session.worktree().unwrap();
    assert_eq!((before.branch.as_str(), before.named), ("nerve/01234567", false));
    session
        .send("Tidy the parser", &[], EventSink::discard())
        .await
        .unwrap();
    let after = session.worktree().unwrap();
    assert_eq!(
        (after.branch.as_str(), after.named),
        ("nerve/tidy-the-parser", true)
    );
    assert_eq!(
        git(&after.path, &["rev-parse", "--abbrev-ref", "HEAD"]),
        "nerve/tidy-the-parser"
    );
    session
        .send("Something else", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(
        session.state().unwrap().worktree,
        Some(after.clone()),
        "named once"
    );
    let project = nerve::Project::open(p.options()).unwrap();
    assert_eq!(
        project.workspaces().of_session("0123456789abcdef").unwrap(),
        Some(after)
    );
    session.close().await;
}
