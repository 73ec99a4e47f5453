//! Claude Code's sub-agent definitions and skills, as a session meets them: the Agent tool offers
//! the defined types and runs each with its own prompt, model and only its listed tools; the Skill
//! tool offers the skills and loads one on demand, whose folder the model then reads without being
//! asked; files that cannot be used are warnings naming file and line, and the session goes on.

use nerve::events::EventSink;
use serde_json::{Value, json};

use crate::support::{TestProject, mock, mock_session_options};

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap().to_string())
        .collect()
}

fn tool_description(body: &Value, name: &str) -> String {
    body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == name)
        .map(|t| t["description"].as_str().unwrap().to_string())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_defined_agent_and_a_users_skill_work_in_a_session_that_asks_nobody() {
    let p = TestProject::new();
    // The user's skill, outside the project; its template beside it.
    let skill_dir = p.home().join(".claude/skills/release-notes");
    std::fs::create_dir_all(&skill_dir).unwrap();
    std::fs::write(
        skill_dir.join("SKILL.md"),
        "---\nname: release-notes\ndescription: Write release notes from the git log\n---\nFill template.md from `git log`.\n",
    )
    .unwrap();
    std::fs::write(skill_dir.join("template.md"), "## Added\n## Fixed\n").unwrap();
    // The project's reviewer, in Claude Code's format (a description YAML alone would refuse).
    p.write(
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews a change. Examples: <example>Context: a diff</example>\ntools: Read, Grep\nmodel: haiku\n---\nYou review diffs and report problems, never fix them.\n",
    );
    p.write(
        ".claude/agents/broken.md",
        "---\nname: broken\ntools: Read\n---\nno description\n",
    );
    let template = skill_dir.join("template.md").display().to_string();

    let model = mock(json!([
        {"expect": {"tools_include": ["Agent", "Skill"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "load", "name": "Skill", "input": {"skill": "release-notes"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "load", "is_error": false, "contains": "Fill template.md from `git log`."}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "template", "name": "Read", "input": {"file_path": template}}]}},
        // Read outside the project, in a session that can ask nobody: allowed, it is the skill's.
        {"expect": {"tool_result": {"tool_use_id": "template", "is_error": false, "contains": "## Fixed"}},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "review", "name": "Agent",
             "input": {"description": "review the notes", "prompt": "Review the release notes.", "subagent_type": "reviewer"}}]}},
        // The reviewer: its model, its prompt, only its tools.
        {"expect": {"model": "claude-haiku-4-5", "tools_include": ["Read", "Grep"], "tool_count": 2,
                    "system_contains": "You review diffs and report problems, never fix them."},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "sneak", "name": "Bash", "input": {"command": "touch fixed"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "sneak", "is_error": true}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "two problems"}]}},
        {"expect": {"tool_result": {"tool_use_id": "review", "is_error": false, "contains": "two problems"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}}
    ]))
    .await;
    let session = nerve::Session::start(
        nerve::Project::open(p.options()).unwrap(),
        mock_session_options(&model),
    )
    .await
    .unwrap();
    let broken = p.project_dir().join(".claude/agents/broken.md");
    assert!(
        session.warnings().contains(&format!(
            "{}:1: the front matter has no `description`",
            broken.display()
        )),
        "{:?}",
        session.warnings()
    );
    let done = session
        .send("write the notes", &[], EventSink::discard())
        .await
        .unwrap();
    assert_eq!(done.final_text, "done", "{:?}", done.error);
    assert_eq!(model.remaining_steps(), 0);
    assert!(!p.project_dir().join("fixed").exists());

    let requests = model.requests();
    let main = &requests[0].body;
    assert!(
        tool_description(main, "Agent").contains(
            "\n- reviewer: Reviews a change. Examples: <example>Context: a diff</example> (tools: Read, Grep)"
        ),
        "{}",
        tool_description(main, "Agent")
    );
    assert!(
        tool_description(main, "Skill").ends_with("\n- release-notes: Write release notes from the git log"),
        "{}",
        tool_description(main, "Skill")
    );
    let child = &requests[3].body;
    assert_eq!(tool_names(child), ["Grep", "Read"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_skills_there_is_no_skill_tool_and_an_unknown_agent_type_names_the_known_ones() {
    let p = TestProject::new();
    p.write(
        ".nerve/agents/tester.md",
        "---\nname: tester\ndescription: Runs tests\n---\nRun the tests.\n",
    );
    let model = mock(json!([
        {"expect": {"tools_include": ["Agent"], "tools_exclude": ["Skill"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "spawn", "name": "Agent",
             "input": {"description": "x", "prompt": "x", "subagent_type": "Tester"}}]}},
        {"expect": {"tool_result": {"tool_use_id": "spawn", "is_error": true,
                    "contains": "Unknown subagent_type `Tester`; the types are \"general-purpose\", \"Explore\", \"tester\"."}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]))
    .await;
    let session = nerve::Session::start(
        nerve::Project::open(p.options()).unwrap(),
        mock_session_options(&model),
    )
    .await
    .unwrap();
    let done = session.send("go", &[], EventSink::discard()).await.unwrap();
    assert_eq!(done.final_text, "ok", "{:?}", done.error);
    assert_eq!(model.remaining_steps(), 0);
}
