//! The sandbox's write guards: from inside the real sandbox (the Bash tool, bypass mode, nothing
//! asks), every way of planting something a later unsandboxed program runs is refused (git's
//! configuration and hooks, `.git/commondir`, direnv, editor, agent and MCP settings, shell
//! start-up files), directly or through `git config`, `cp`, `ln -s`, renames, symlinks and a
//! Python script; afterwards nothing planted runs, neither in a plain `git status` nor in the
//! engine's own git; and ordinary work (new files, `git add`, `git commit`) still works.

use std::path::Path;

use crate::support::{TestProject, text_of};
use nerve::permissions::PermissionMode;
use nerve::pipeline::ToolCall;
use serde_json::json;

fn bash(id: &str, command: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "Bash".into(),
        input: json!({ "command": command }),
    }
}

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

#[tokio::test]
async fn nothing_planted_from_the_sandbox_runs_afterwards() {
    if !crate::support::sandbox_available("nothing to check here") {
        return;
    }
    let p = TestProject::new();
    let project = p.project_dir();
    let home = std::fs::canonicalize(p.home()).unwrap();
    git(&project, &["init", "-q"]);
    git(&project, &["config", "user.email", "t@example.com"]);
    git(&project, &["config", "user.name", "t"]);
    p.write("a.txt", "one\n");
    git(&project, &["add", "."]);
    git(&project, &["commit", "-qm", "first"]);
    // Existing settings, and the user's own local settings making home writable (so the home
    // guards are exercised: `.bashrc`).
    p.write(".nerve/settings.json", "{}\n");
    p.write(
        ".nerve/settings.local.json",
        r#"{"sandbox": {"writablePaths": ["~"]}}"#,
    );
    std::fs::write(home.join(".profile"), "# mine\n").unwrap();
    let config_before = std::fs::read_to_string(project.join(".git/config")).unwrap();

    // What a planted program would leave behind.
    let marker = home.join("PLANTED-RAN");
    let payload = format!("touch {}; false", marker.display());
    let hook = format!("#!/bin/sh\n{payload}\n");
    p.write("hook.sh", &hook);
    let evil_config = format!("[core]\n\tfsmonitor = {payload}\n");
    p.write("evil.config", &evil_config);

    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let py = |path: &str, text: &str| {
        format!(
            "python3 -c 'import os,sys; os.makedirs(os.path.dirname(sys.argv[1]) or \".\", exist_ok=True); open(sys.argv[1], \"w\").write(sys.argv[2])' {path} '{text}'"
        )
    };
    let bashrc = home.join(".bashrc");
    let profile = home.join(".profile");
    let plants: Vec<(&str, String)> = vec![
        ("git config", format!("git config core.fsmonitor '{payload}'")),
        ("git config core.hooksPath", "git config core.hooksPath .".into()),
        (
            "cp a hook",
            "cp hook.sh .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit".into(),
        ),
        (
            "ln -s a hook",
            "ln -s \"$PWD/hook.sh\" .git/hooks/post-checkout".into(),
        ),
        (
            "replace the hooks folder",
            "mv .git/hooks .git/hooks-old; mkdir -p .git/hooks && cp hook.sh .git/hooks/pre-commit".into(),
        ),
        (
            "rename onto the config",
            "cp evil.config x && mv x .git/config".into(),
        ),
        (
            "rename the config away and back",
            "mv .git/config .git/config-old && cp evil.config .git/config".into(),
        ),
        (
            "write through a symlink",
            "ln -s .git/config link && cat evil.config >> link".into(),
        ),
        (
            "write the config directly",
            "cat evil.config >> .git/config".into(),
        ),
        (
            "remove the config",
            "rm -f .git/config && cp evil.config .git/config".into(),
        ),
        (
            "commondir to a planted repo",
            format!(
                "git init -q \"$TMPDIR/evil\" && git -C \"$TMPDIR/evil\" config core.fsmonitor '{payload}' && echo \"$TMPDIR/evil/.git\" > .git/commondir"
            ),
        ),
        (".envrc", py(".envrc", &payload)),
        (".vscode/tasks.json", py(".vscode/tasks.json", &payload)),
        (".nerve/settings.json", py(".nerve/settings.json", &payload)),
        (".mcp.json", py(".mcp.json", &payload)),
        (".claude/settings.json", py(".claude/settings.json", &payload)),
        (".idea/workspace.xml", py(".idea/workspace.xml", &payload)),
        ("~/.bashrc (missing)", py(&bashrc.display().to_string(), &payload)),
        (
            "~/.profile (existing)",
            py(&profile.display().to_string(), &payload),
        ),
        ("cp onto ~/.profile", format!("cp hook.sh {}", profile.display())),
    ];
    for (n, (what, command)) in plants.iter().enumerate() {
        // From a script: the permission check cannot see what it does, only the sandbox stands
        // in the way.
        p.write(&format!("plant{n}.sh"), &format!("set -e\n{command}\n"));
        let out = s
            .run_one(&bash(&format!("plant{n}"), &format!("bash plant{n}.sh")))
            .await;
        assert!(
            !out.denied,
            "{what}: the permission check stood in the way: {:?}",
            out.content
        );
        assert!(
            out.is_error,
            "{what}: the plant succeeded: {}",
            text_of(&out.content)
        );
    }

    // Nothing was planted, and nothing is left behind by the sandbox.
    assert_eq!(
        std::fs::read_to_string(project.join(".git/config")).unwrap(),
        config_before
    );
    let hooks: Vec<String> = std::fs::read_dir(project.join(".git/hooks"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !name.ends_with(".sample"))
        .collect();
    assert_eq!(hooks, Vec::<String>::new(), "hooks planted");
    assert_eq!(
        std::fs::read_to_string(project.join(".nerve/settings.json")).unwrap(),
        "{}\n"
    );
    assert_eq!(std::fs::read_to_string(&profile).unwrap(), "# mine\n");
    for missing in [
        project.join(".git/commondir"),
        project.join(".git/hooks-old"),
        project.join(".git/config-old"),
        project.join(".envrc"),
        project.join(".vscode"),
        project.join(".mcp.json"),
        project.join(".claude"),
        project.join(".idea"),
        bashrc.clone(),
    ] {
        assert!(!missing.exists(), "{} exists", missing.display());
    }

    // Nothing runs: not in a plain git outside the sandbox, not in the engine's own git.
    let status = git(&project, &["status", "--short"]);
    let engine = nerve::git_command::git(&project)
        .args(["status", "--short", nerve::git_command::STATUS_SUBMODULES])
        .output()
        .unwrap();
    assert!(engine.status.success());
    git(&project, &["commit", "--allow-empty", "-qm", "outside"]);
    assert!(!marker.exists(), "a planted program ran");

    // Ordinary work still works inside the sandbox: new files, git add and commit.
    let ok = s
        .run_one(&bash(
            "work",
            "echo two > new.txt && mkdir -p src && echo x > src/lib.rs && git add -A && git commit -qm sandboxed && git log --format=%s -1",
        ))
        .await;
    assert!(!ok.is_error, "{:?}", ok.content);
    assert_eq!(text_of(&ok.content), "sandboxed");
    assert!(!marker.exists(), "a planted program ran");
    println!(
        "{} ways of planting refused; plain git status was: {}",
        plants.len(),
        String::from_utf8_lossy(&status.stdout).trim()
    );
}
