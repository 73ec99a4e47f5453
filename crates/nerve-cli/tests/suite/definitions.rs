//! `nerve agents` and `nerve skills`: what a session in the project is offered, where each comes
//! from and what it replaces; files that cannot be used are named with their line on stderr and
//! make the exit code 1.

use std::path::Path;

use pretty_assertions::assert_eq;

use crate::support::NERVE;

/// `nerve WHAT --cwd DIR/project` with DIR's home: (exit code, stdout, stderr), DIR written `<dir>`.
fn list(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = std::process::Command::new(NERVE)
        .args(args)
        .arg("--cwd")
        .arg(dir.join("project"))
        .env("NERVE_DATA_DIR", dir.join("data"))
        .env("HOME", dir.join("home"))
        .env("XDG_CONFIG_HOME", dir.join("home/.config"))
        .output()
        .unwrap();
    let clean = |b: &[u8]| String::from_utf8_lossy(b).replace(&dir.display().to_string(), "<dir>");
    (
        out.status.code().unwrap_or(-1),
        clean(&out.stdout),
        clean(&out.stderr),
    )
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn agents_and_skills_are_listed_with_their_origin_and_broken_files_with_their_line() {
    let d = tempfile::tempdir().unwrap();
    let (project, home) = (d.path().join("project"), d.path().join("home"));
    std::fs::create_dir_all(&project).unwrap();
    let (code, out, err) = list(d.path(), &["agents"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "No sub-agent types are defined (.claude/agents/*.md, .nerve/agents/*.md, ~/.claude/agents/).\n",
            ""
        )
    );

    write(
        &home.join(".claude/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: The user's reviewer\n---\nReview.\n",
    );
    write(
        &project.join(".nerve/agents/reviewer.md"),
        "---\nname: reviewer\ndescription: The project's reviewer\ntools: [Read, Grep]\nmodel: haiku\n---\nReview here.\n",
    );
    write(
        &project.join(".claude/agents/broken.md"),
        "---\nname: broken\ndescription: fine\n  tools: [Read\n---\nbody\n",
    );
    write(
        &home.join(".config/nerve/skills/pdf/SKILL.md"),
        "---\nname: pdf\ndescription: Fill PDF forms\n---\nUse forms.md.\n",
    );
    write(
        &project.join(".claude/skills/deploy/SKILL.md"),
        "---\ndescription: Deploy to staging\ndisable-model-invocation: true\n---\nDeploy.\n",
    );

    let (code, out, err) = list(d.path(), &["agents"]);
    assert_eq!(code, 1);
    assert_eq!(
        out,
        "reviewer: The project's reviewer\n  tools: Read, Grep; model: haiku; <dir>/project/.nerve/agents/reviewer.md (project, Nerve)\n  replaces <dir>/home/.claude/agents/reviewer.md\n"
    );
    // The line YAML stumbled on (the indented `tools`, which would make `description` a map).
    assert_eq!(
        err,
        "<dir>/project/.claude/agents/broken.md:4: the front matter is not valid YAML: mapping values are not allowed in this context\n"
    );

    let (code, out, err) = list(d.path(), &["skills"]);
    assert_eq!(
        (code, out.as_str(), err.as_str()),
        (
            0,
            "deploy: Deploy to staging\n  not offered to the model; <dir>/project/.claude/skills/deploy/SKILL.md (project, Claude Code)\n\
             pdf: Fill PDF forms\n  <dir>/home/.config/nerve/skills/pdf/SKILL.md (user, Nerve)\n",
            ""
        )
    );

    let (code, out, _) = list(d.path(), &["agents", "--json"]);
    assert_eq!(code, 1);
    let json: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(json["agents"][0]["tools"], serde_json::json!(["Read", "Grep"]));
    assert_eq!(json["agents"][0]["source"], "project_nerve");
    assert_eq!(json["problems"][0]["line"], 4);
}
