//! The system prompt a launched session sends, checked against the scripted model: every section
//! in every mode and front-end, the mode told in the conversation (so the prompt, and with it the
//! cached prefix, is the same in every mode), a sub-agent's own shorter prompt for its tools, and
//! no tool named that the request does not offer.

use std::sync::Arc;

use nerve::agent::{FrontEnd, LaunchOptions, launch};
use nerve::model::api_key::ApiKey;
use nerve::model::client::ModelAuth;
use nerve::permissions::{PermissionMode, PermissionPrompter};
use nerve::project::Project;
use nerve_mock_model::MockServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

use crate::support::{ScriptedPrompter, TestProject};

/// The headings of the main agent's sections, in order.
const MAIN_SECTIONS: [&str; 6] = [
    "# Nerve\n",
    "# How your tools behave",
    "# Using your tools",
    "# Changing code",
    "# Acting safely",
    "# Reporting back",
];

async fn scripted(steps: Value) -> MockServer {
    let scenario = json!({ "steps": steps }).to_string();
    MockServer::start(nerve_mock_model::Scenario::from_json(&scenario).unwrap())
        .await
        .unwrap()
}

/// Launches a session of `p` in `mode` for `front_end` (the desktop with someone to ask, `-p`
/// without) against `server`, sends `prompt`, and returns the final text.
async fn run(
    p: &TestProject,
    server: &MockServer,
    mode: PermissionMode,
    front_end: FrontEnd,
    prompt: &str,
) -> String {
    let mut options = p.options();
    options.mode = Some(mode);
    let project = Project::open(options).unwrap();
    let prompter: Option<Arc<dyn PermissionPrompter>> = match front_end {
        FrontEnd::Desktop => Some(ScriptedPrompter::new(Vec::new())),
        FrontEnd::Print => None,
    };
    let launched = launch(
        &project,
        LaunchOptions {
            session_id: format!("s-{}", uuid_like(prompt)),
            resume: false,
            model: "claude-test".into(),
            fast_model: "claude-test-fast".into(),
            auth: ModelAuth::ApiKey(ApiKey::new("test-key")),
            extra_headers: Vec::new(),
            base_url: Some(server.url()),
            provider: Default::default(),
            max_turns: None,
            effort: Default::default(),
            max_concurrency: None,
            prompter,
            events: p.recorder.sink(),
            external_tools: Vec::new(),
            date: "2026-12-06".into(),
            front_end,
            editor: None,
        },
    )
    .unwrap();
    let mut agent = launched.agent;
    let outcome = agent.send(prompt, CancellationToken::new()).await;
    assert_eq!(outcome.error, None);
    outcome.final_text
}

fn uuid_like(text: &str) -> String {
    text.chars().filter(char::is_ascii_alphanumeric).collect()
}

fn system_text(body: &Value) -> String {
    body["system"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["text"].as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n\n")
}

fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|t| {
            t.iter()
                .map(|t| t["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Every tool a session can have, Memory included.
fn every_tool() -> Vec<String> {
    let mut names: Vec<String> = nerve::registry::all_builtin_tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    names.push(nerve::tools::memory::NAME.to_string());
    names
}

/// Whether `text` names `tool` as a word.
fn names_tool(text: &str, tool: &str) -> bool {
    text.match_indices(tool).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + tool.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// The request's system prompt names no tool the request does not offer.
fn assert_names_only_offered_tools(body: &Value) {
    let system = system_text(body);
    let offered = tool_names(body);
    for tool in every_tool() {
        if !offered.contains(&tool) {
            assert!(
                !names_tool(&system, &tool),
                "the prompt names {tool}, not offered ({offered:?})"
            );
        }
    }
}

#[tokio::test]
async fn every_mode_and_front_end_gets_every_section_and_the_mode_in_the_conversation() {
    let cases = [
        (PermissionMode::Default, FrontEnd::Desktop, None),
        (
            PermissionMode::Plan,
            FrontEnd::Desktop,
            Some("The permission mode is now plan"),
        ),
        (
            PermissionMode::AcceptEdits,
            FrontEnd::Desktop,
            Some("The permission mode is now acceptEdits"),
        ),
        (PermissionMode::Default, FrontEnd::Print, None),
    ];
    let mut systems = Vec::new();
    for (mode, front_end, note) in cases {
        let p = TestProject::new();
        let shown = match front_end {
            FrontEnd::Desktop => "Nerve's desktop app",
            FrontEnd::Print => "`nerve -p`",
        };
        let mut expect = json!({
            "system_includes": MAIN_SECTIONS.iter().chain(&[shown, "<env>", "# Project memory"]).collect::<Vec<_>>(),
            "system_excludes": ["# Nerve sub-agent", "The permission mode is now"],
            "tools_include": ["Memory", "TodoWrite", "Agent"],
        });
        match note {
            Some(note) => expect["last_user_text_contains"] = json!(note),
            None => expect["no_message_contains"] = json!("The permission mode is now"),
        }
        let server = scripted(json!([
            {"expect": expect, "response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
        ]))
        .await;
        let text = run(&p, &server, mode, front_end, "hello").await;
        assert_eq!(text, "ok", "{mode:?} {front_end:?}");
        let requests = server.requests();
        assert_names_only_offered_tools(&requests[0].body);
        systems.push((front_end, requests[0].body["system"].clone()));
    }
    // The prompt is the same in every mode (the projects differ only in their temporary path,
    // which is in the last block, the environment): the guidance block is byte-identical.
    let desktop: Vec<&Value> = systems
        .iter()
        .filter(|(f, _)| *f == FrontEnd::Desktop)
        .map(|(_, s)| &s[0])
        .collect();
    assert_eq!(desktop.len(), 3);
    assert!(
        desktop.iter().all(|s| *s == desktop[0]),
        "the guidance does not depend on the mode"
    );
    assert_eq!(
        desktop[0]["cache_control"],
        json!({"type": "ephemeral"}),
        "a breakpoint after the guidance"
    );
    println!("checked {} mode and front-end cases", systems.len());
}

#[tokio::test]
async fn a_sub_agent_gets_its_own_shorter_prompt_for_its_own_tools() {
    let p = TestProject::new();
    p.write("NERVE.md", "Project rule: use tabs.");
    let server = scripted(json!([
        {"when": {"system_excludes": ["# Nerve sub-agent"]},
         "response": {"type": "stream", "blocks": [
            {"type": "tool_use", "id": "spawn", "name": "Agent",
             "input": {"description": "find it", "prompt": "Where is main?", "subagent_type": "Explore"}}]}},
        {"when": {"system_includes": ["# Nerve sub-agent"]},
         "expect": {
            "system_includes": ["# How your tools behave", "# Using your tools", "# Acting safely",
                                 "Project rule: use tabs.", "<env>"],
            "system_excludes": ["# Reporting back", "# Changing code", "# Project memory"],
            "tools_include": ["Read", "Grep", "Glob", "WebFetch"],
            "tool_count": 4
         },
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "main is in src/main.rs:1"}]}},
        {"when": {"system_excludes": ["# Nerve sub-agent"]},
         "expect": {"tool_result": {"tool_use_id": "spawn", "contains": "src/main.rs:1"}},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}}
    ]))
    .await;
    let text = run(
        &p,
        &server,
        PermissionMode::Default,
        FrontEnd::Desktop,
        "find main",
    )
    .await;
    assert_eq!(text, "done");
    assert_eq!(server.remaining_steps(), 0);
    let requests = server.requests();
    let (main, child) = (&requests[0].body, &requests[1].body);
    for body in [main, child] {
        assert_names_only_offered_tools(body);
    }
    let (main_len, child_len) = (system_text(main).len(), system_text(child).len());
    assert!(
        child_len * 4 < main_len * 3,
        "sub-agent {child_len} vs main {main_len} characters"
    );
    println!("main prompt {main_len} characters, Explore sub-agent {child_len}");
}

#[tokio::test]
async fn a_mode_switch_keeps_the_whole_prompt_and_is_told_once() {
    let p = TestProject::new();
    let server = scripted(json!([
        {"expect": {"no_message_contains": "The permission mode is now"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "one"}]}},
        {"expect": {"last_user_text_contains": "The permission mode is now acceptEdits"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "two"}]}},
        {"expect": {"message_count": 5},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "three"}]}}
    ]))
    .await;
    let project = Project::open(p.options()).unwrap();
    let launched = launch(
        &project,
        LaunchOptions {
            session_id: "switch".into(),
            resume: false,
            model: "claude-test".into(),
            fast_model: "claude-test-fast".into(),
            auth: ModelAuth::ApiKey(ApiKey::new("test-key")),
            extra_headers: Vec::new(),
            base_url: Some(server.url()),
            provider: Default::default(),
            max_turns: None,
            effort: Default::default(),
            max_concurrency: None,
            prompter: Some(ScriptedPrompter::new(Vec::new())),
            events: p.recorder.sink(),
            external_tools: Vec::new(),
            date: "2026-12-06".into(),
            front_end: FrontEnd::Desktop,
            editor: None,
        },
    )
    .unwrap();
    let mut agent = launched.agent;
    for (prompt, switch) in [("a", None), ("b", Some(PermissionMode::AcceptEdits)), ("c", None)] {
        if let Some(mode) = switch {
            agent.set_permission_mode(mode);
        }
        let outcome = agent.send(prompt, CancellationToken::new()).await;
        assert_eq!(outcome.error, None);
    }
    let requests = server.requests();
    let third = requests[2].body.to_string();
    assert_eq!(
        third.matches("The permission mode is now").count(),
        1,
        "told once"
    );
    for pair in requests.windows(2) {
        assert_eq!(pair[0].body["system"], pair[1].body["system"]);
        assert_eq!(pair[0].body["tools"], pair[1].body["tools"]);
    }
}
