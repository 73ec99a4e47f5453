use super::*;

struct Folders {
    _root: tempfile::TempDir,
    project: PathBuf,
    home: PathBuf,
    config: PathBuf,
}

fn folders() -> Folders {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("project");
    let home = root.path().join("home");
    let config = root.path().join("config");
    for d in [&project, &home, &config] {
        std::fs::create_dir_all(d).unwrap();
    }
    Folders {
        project,
        home,
        config,
        _root: root,
    }
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn agent_file(name: &str, description: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: {description}\ntools: Read, Grep\nmodel: haiku\n---\nYou are {name}.\n"
    )
}

fn load(f: &Folders) -> Definitions {
    Definitions::load(&f.project, &f.home, &f.config)
}

#[test]
fn agents_from_every_folder_with_the_project_nerve_folder_winning() {
    let f = folders();
    write(
        &f.home.join(".claude/agents/reviewer.md"),
        &agent_file("reviewer", "the user's"),
    );
    write(
        &f.project.join(".claude/agents/reviewer.md"),
        &agent_file("reviewer", "the project's Claude Code one"),
    );
    write(
        &f.project.join(".nerve/agents/reviewer.md"),
        &agent_file("reviewer", "the project's Nerve one"),
    );
    write(
        &f.config.join("nerve/agents/team/tester.md"),
        &agent_file("tester", "runs tests"),
    );
    let found = load(&f);
    let view = found.view();
    assert_eq!(
        view.agents,
        vec![
            AgentDefinitionView {
                name: "reviewer".into(),
                description: "the project's Nerve one".into(),
                tools: Some(vec!["Read".into(), "Grep".into()]),
                model: Some("haiku".into()),
                source: DefinitionSource::ProjectNerve,
                path: f.project.join(".nerve/agents/reviewer.md").display().to_string(),
                overrides: vec![
                    f.home.join(".claude/agents/reviewer.md").display().to_string(),
                    f.project.join(".claude/agents/reviewer.md").display().to_string(),
                ],
            },
            AgentDefinitionView {
                name: "tester".into(),
                description: "runs tests".into(),
                tools: Some(vec!["Read".into(), "Grep".into()]),
                model: Some("haiku".into()),
                source: DefinitionSource::UserNerve,
                path: f.config.join("nerve/agents/team/tester.md").display().to_string(),
                overrides: vec![],
            },
        ]
    );
    assert!(view.problems.is_empty(), "{:?}", view.problems);
    assert_eq!(found.agents()[0].system_prompt, "You are reviewer.");
}

#[test]
fn malformed_files_are_problems_naming_file_and_line_and_the_rest_still_load() {
    let f = folders();
    let dir = f.project.join(".claude/agents");
    write(&dir.join("good.md"), &agent_file("good", "works"));
    write(&dir.join("no-front.md"), "Just a prompt.\n");
    write(&dir.join("no-name.md"), "---\ndescription: x\n---\nbody\n");
    write(
        &dir.join("bad-yaml.md"),
        "---\nname: bad\ndescription: x\ntools: [Read,\n  oops: {\n---\nbody\n",
    );
    write(
        &dir.join("builtin.md"),
        "---\nname: Explore\ndescription: x\n---\nbody\n",
    );
    write(
        &dir.join("empty-body.md"),
        "---\nname: empty\ndescription: x\n---\n\n",
    );
    write(
        &dir.join("spaces.md"),
        "---\nname: two words\ndescription: x\n---\nbody\n",
    );
    write(
        &dir.join("twin.md"),
        &agent_file("good", "a second file with the same name"),
    );
    std::fs::write(dir.join("binary.md"), [0xff, 0xfe, 0x00]).unwrap();
    let found = load(&f);
    assert_eq!(
        found.agents().iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        ["good"]
    );
    let lines = found.problem_lines();
    let at = |file: &str| dir.join(file).display().to_string();
    assert_eq!(lines.len(), 8, "{lines:#?}");
    let bad_yaml = lines.iter().find(|l| l.starts_with(&at("bad-yaml.md"))).unwrap();
    assert!(
        bad_yaml.contains("the front matter is not valid YAML"),
        "{bad_yaml}"
    );
    let expected = [
        format!("{}: is not UTF-8 text", at("binary.md")),
        format!(
            "{}:2: `Explore` is a built-in sub-agent type; give this one another name",
            at("builtin.md")
        ),
        format!(
            "{}:1: the body is empty: it is the sub-agent's system prompt, write its instructions after the front matter",
            at("empty-body.md")
        ),
        format!(
            "{}:1: no front matter: the file must start with a `---` line, then `name:` and `description:`, then `---`",
            at("no-front.md")
        ),
        format!("{}:1: the front matter has no `name`", at("no-name.md")),
        format!(
            "{}:2: `two words` is not a usable name: use letters, digits, `-`, `_`, `.` or `:` (64 at most)",
            at("spaces.md")
        ),
        format!(
            "{}: `good` is already defined by {} in the same folder",
            at("twin.md"),
            at("good.md")
        ),
    ];
    for line in expected {
        assert!(lines.contains(&line), "missing {line}\nin {lines:#?}");
    }
}

#[test]
fn skills_are_read_from_their_folders_and_their_body_when_loaded() {
    let f = folders();
    let skill_dir = f.project.join(".claude/skills/release-notes");
    write(
        &skill_dir.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nRead template.md, then write the notes.\n",
    );
    write(&skill_dir.join("template.md"), "## Added\n");
    write(
        &f.home.join(".claude/skills/manual-only/SKILL.md"),
        "---\ndescription: Deploys\ndisable-model-invocation: true\n---\nDeploy.\n",
    );
    // A folder without SKILL.md is not a skill (shared files), and says nothing.
    write(&f.project.join(".claude/skills/shared/helpers.md"), "x");
    write(
        &f.project.join(".nerve/skills/broken/SKILL.md"),
        "---\nname: broken\n---\nno description\n",
    );
    let found = load(&f);
    let view = found.view();
    assert_eq!(
        view.skills,
        vec![
            SkillView {
                name: "manual-only".into(),
                description: "Deploys".into(),
                offered_to_model: false,
                source: DefinitionSource::UserClaude,
                path: f
                    .home
                    .join(".claude/skills/manual-only/SKILL.md")
                    .display()
                    .to_string(),
                overrides: vec![],
            },
            SkillView {
                name: "release-notes".into(),
                description: "Write release notes from the git log".into(),
                offered_to_model: true,
                source: DefinitionSource::ProjectClaude,
                path: skill_dir.join("SKILL.md").display().to_string(),
                overrides: vec![],
            },
        ]
    );
    assert_eq!(
        found.problem_lines(),
        vec![format!(
            "{}:1: the front matter has no `description`",
            f.project.join(".nerve/skills/broken/SKILL.md").display()
        )]
    );
    let skill = found
        .skills()
        .into_iter()
        .find(|s| s.name == "release-notes")
        .unwrap();
    assert_eq!(
        skill.load_body().unwrap(),
        "Read template.md, then write the notes."
    );
    // Edited during the session: the model gets what the file says now.
    write(
        &skill_dir.join("SKILL.md"),
        "---\ndescription: d\n---\nNew steps.\n",
    );
    assert_eq!(skill.load_body().unwrap(), "New steps.");
    std::fs::remove_file(skill_dir.join("SKILL.md")).unwrap();
    assert!(
        skill
            .load_body()
            .unwrap_err()
            .to_string()
            .starts_with("cannot be read")
    );
    assert_eq!(found.skill_dirs().len(), 2);
}

#[test]
fn an_agents_tool_list_admits_listed_tools_and_whole_mcp_servers() {
    let f = folders();
    write(
        &f.project.join(".claude/agents/a.md"),
        "---\nname: a\ndescription: d\ntools:\n  - Read\n  - mcp__github\n---\nbody\n",
    );
    write(
        &f.project.join(".claude/agents/all.md"),
        "---\nname: all\ndescription: d\ntools: \"*\"\nmodel: inherit\n---\nbody\n",
    );
    let found = load(&f);
    let agents = found.agents();
    let a = &agents[0];
    assert!(a.allows_tool("Read"));
    assert!(a.allows_tool("mcp__github__create_issue"));
    assert!(!a.allows_tool("mcp__githubber__x"));
    assert!(!a.allows_tool("Bash"));
    let all = &agents[1];
    assert_eq!((all.tools.clone(), all.model.clone()), (None, None));
    assert!(all.allows_tool("Bash"));
}
