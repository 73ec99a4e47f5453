use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;

use pretty_assertions::assert_eq;

use super::*;

/// Every built-in tool a session may be offered, Memory included.
fn all_tool_names() -> Vec<String> {
    let mut names: Vec<String> = crate::registry::all_builtin_tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    names.push(crate::tools::memory::NAME.to_string());
    names.sort();
    names
}

/// The main agent's tools in a launched session (ToolSearch only comes with deferred MCP tools).
fn main_tools() -> Vec<String> {
    all_tool_names()
        .into_iter()
        .filter(|n| n != crate::tools::tool_search::NAME)
        .collect()
}

fn general_subagent_tools() -> Vec<String> {
    main_tools()
        .into_iter()
        .filter(|n| n != "Agent" && n != crate::tools::memory::NAME)
        .collect()
}

fn ctx(tools: &[String], front_end: FrontEnd, role: AgentRole) -> PromptContext {
    PromptContext::new(tools, front_end, role, true)
}

/// Whether `text` names `tool` as a word (not as part of a longer name such as `TodoWrite`).
fn names_tool(text: &str, tool: &str) -> bool {
    text.match_indices(tool).any(|(at, _)| {
        let before = text[..at].chars().next_back();
        let after = text[at + tool.len()..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && !after.is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

/// A small deterministic generator, so the generated tool sets are the same on every run.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

/// No section, in any role, front-end or sandbox setting, names a tool that is not offered; and
/// each offered tool the guidance teaches about is named.
#[test]
fn no_section_names_a_tool_the_session_does_not_offer() {
    let all = all_tool_names();
    let mut sets: Vec<Vec<String>> = vec![Vec::new(), all.clone(), main_tools(), general_subagent_tools()];
    sets.push(
        crate::agent::EXPLORE_TOOLS
            .iter()
            .map(|t| t.to_string())
            .collect(),
    );
    for tool in &all {
        sets.push(vec![tool.clone()]);
        sets.push(all.iter().filter(|t| *t != tool).cloned().collect());
    }
    let mut rng = Lcg(44);
    for _ in 0..1_500 {
        let mask = rng.next();
        sets.push(
            all.iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << i) != 0)
                .map(|(_, t)| t.clone())
                .collect(),
        );
    }
    let mut cases = 0;
    for tools in &sets {
        let offered: BTreeSet<&str> = tools.iter().map(String::as_str).collect();
        for front_end in [FrontEnd::Desktop, FrontEnd::Print] {
            for role in [AgentRole::Main, AgentRole::SubAgent] {
                for sandbox in [true, false] {
                    let context = PromptContext::new(tools, front_end, role, sandbox);
                    for section in guidance_sections(&context) {
                        cases += 1;
                        for tool in &all {
                            if !offered.contains(tool.as_str()) {
                                assert!(
                                    !names_tool(&section.text, tool),
                                    "section {} names {tool}, which is not offered ({tools:?}, {front_end:?}, {role:?}):\n{}",
                                    section.name,
                                    section.text
                                );
                            }
                        }
                    }
                }
            }
        }
    }
    // With every tool offered, the guidance teaches the tools it is about.
    let full = guidance_text(&ctx(&main_tools(), FrontEnd::Desktop, AgentRole::Main));
    for tool in [
        "Read",
        "Edit",
        "Write",
        "Grep",
        "Glob",
        "Bash",
        "Agent",
        "TodoWrite",
        "EnterPlanMode",
        "ExitPlanMode",
        "TaskOutput",
        "TaskStop",
        "WebFetch",
    ] {
        assert!(names_tool(&full, tool), "the full guidance never mentions {tool}");
    }
    println!(
        "checked {cases} sections over {} tool sets x 2 front-ends x 2 roles x 2 sandbox settings",
        sets.len()
    );
}

/// Each section is present where it belongs: the main agent gets all six in either front-end,
/// a sub-agent gets its own identity and no section about talking to the user.
#[test]
fn each_role_and_front_end_gets_its_sections() {
    let names = |c: &PromptContext| guidance_sections(c).iter().map(|s| s.name).collect::<Vec<_>>();
    let main = [
        "identity",
        "harness",
        "tool_use",
        "code_changes",
        "safety",
        "reporting",
    ];
    for front_end in [FrontEnd::Desktop, FrontEnd::Print] {
        assert_eq!(
            names(&ctx(&main_tools(), front_end, AgentRole::Main)),
            main.to_vec()
        );
    }
    assert_eq!(
        names(&ctx(
            &general_subagent_tools(),
            FrontEnd::Desktop,
            AgentRole::SubAgent
        )),
        vec!["identity", "harness", "tool_use", "code_changes", "safety"]
    );
    let explore: Vec<String> = crate::agent::EXPLORE_TOOLS
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(
        names(&ctx(&explore, FrontEnd::Desktop, AgentRole::SubAgent)),
        vec!["identity", "harness", "tool_use", "safety"],
        "an agent that cannot change files is not told how to change code"
    );
}

/// What the model reads, section by section (snapshots: `cargo insta review` to accept a change).
#[test]
fn the_guidance_as_the_model_reads_it() {
    let desktop = ctx(&main_tools(), FrontEnd::Desktop, AgentRole::Main);
    for section in guidance_sections(&desktop) {
        insta::assert_snapshot!(format!("main_desktop_{}", section.name), section.text);
    }
    let print = ctx(&main_tools(), FrontEnd::Print, AgentRole::Main);
    for section in guidance_sections(&print)
        .into_iter()
        .filter(|s| ["identity", "reporting"].contains(&s.name))
    {
        insta::assert_snapshot!(format!("main_print_{}", section.name), section.text);
    }
    let sub = ctx(&general_subagent_tools(), FrontEnd::Desktop, AgentRole::SubAgent);
    insta::assert_snapshot!("subagent_general", guidance_text(&sub));
    let explore: Vec<String> = crate::agent::EXPLORE_TOOLS
        .iter()
        .map(|t| t.to_string())
        .collect();
    insta::assert_snapshot!(
        "subagent_explore",
        guidance_text(&ctx(&explore, FrontEnd::Print, AgentRole::SubAgent))
    );
    let no_sandbox = PromptContext::new(main_tools(), FrontEnd::Desktop, AgentRole::Main, false);
    let harness = guidance_sections(&no_sandbox)
        .into_iter()
        .find(|s| s.name == "harness")
        .map(|s| s.text)
        .unwrap_or_default();
    insta::assert_snapshot!("main_desktop_harness_without_sandbox", harness);
}

/// The guidance's size per section and setup (printed for the docs), within its budget: a main
/// prompt long enough to teach the lessons, a sub-agent's clearly shorter.
#[test]
fn guidance_sizes_per_section_and_setup() {
    let explore: Vec<String> = crate::agent::EXPLORE_TOOLS
        .iter()
        .map(|t| t.to_string())
        .collect();
    let setups = [
        (
            "main, desktop",
            ctx(&main_tools(), FrontEnd::Desktop, AgentRole::Main),
        ),
        ("main, -p", ctx(&main_tools(), FrontEnd::Print, AgentRole::Main)),
        (
            "sub-agent (general)",
            ctx(&general_subagent_tools(), FrontEnd::Desktop, AgentRole::SubAgent),
        ),
        (
            "sub-agent (Explore)",
            ctx(&explore, FrontEnd::Desktop, AgentRole::SubAgent),
        ),
    ];
    let mut totals = Vec::new();
    for (name, context) in &setups {
        let sections = guidance_sections(context);
        let row: Vec<String> = sections
            .iter()
            .map(|s| format!("{} {}", s.name, s.text.chars().count()))
            .collect();
        let total = guidance_text(context).chars().count();
        println!("{name}: {total} characters ({})", row.join(", "));
        totals.push(total);
    }
    for main in &totals[..2] {
        assert!(
            (5_000..=8_000).contains(main),
            "main guidance is {main} characters"
        );
    }
    for sub in &totals[2..] {
        assert!(
            *sub < totals[0] * 17 / 20,
            "a sub-agent's guidance ({sub}) is not clearly shorter"
        );
    }
}

/// The guidance depends on nothing that changes within a session or between sessions of a
/// setup: not the project, the date, the git status or the mode (the mode is told in the
/// conversation). So a mode switch or a resume leaves the cached prefix byte-identical.
#[test]
fn the_first_block_is_the_same_for_every_session_with_the_same_setup() {
    let a = tempfile::tempdir().unwrap();
    let b = tempfile::tempdir().unwrap();
    std::fs::write(b.path().join("NERVE.md"), "Use tabs.").unwrap();
    let context = ctx(&main_tools(), FrontEnd::Desktop, AgentRole::Main);
    let build = |dir: &std::path::Path, date: &str| {
        build_system_prompt(
            &SystemPromptInputs {
                project_dir: dir,
                cwd: dir,
                date: date.into(),
                model: "m",
                memory_dir: None,
                user_instructions: None,
            },
            &context,
        )
    };
    let first = build(a.path(), "2026-12-01");
    let resumed = build(a.path(), "2026-12-01");
    let other = build(b.path(), "2026-12-24");
    assert_eq!(first, resumed, "the same inputs give the same bytes");
    assert_eq!(
        first[0], other[0],
        "the guidance is shared across projects and days"
    );
    assert_eq!(first.len(), 2, "no instruction files: guidance and environment");
    assert_eq!(other.len(), 3);
    assert!(other[1].contains("Use tabs."));
    assert!(other[2].starts_with("<env>") && other[2].contains("2026-12-24"));
    for block in &first {
        for mode in ["acceptEdits", "bypassPermissions", "dontAsk"] {
            assert!(
                !block.contains(&format!("mode is now {mode}")),
                "the mode is not in the prompt"
            );
        }
    }
}

fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn instruction_files_in_order_with_their_imports_inside_the_project() {
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "secret.md", "OUTSIDE");
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "NERVE.md",
        &format!(
            "Use tabs. See @docs/style.md and @docs/style.md again.\n`@docs/code.md` is code.\n```\n@docs/fenced.md\n```\nNot @../{}/secret.md, mail me@example.com.",
            outside.path().file_name().unwrap().to_string_lossy()
        ),
    );
    write(root, "docs/style.md", "Wrap at 100. @nested.md");
    write(root, "docs/nested.md", "Nested rule.");
    write(root, "docs/code.md", "CODE");
    write(root, "docs/fenced.md", "FENCED");
    write(root, "AGENTS.md", "Run make test.");
    let block = instructions_block(root);
    let nerve = root.join("NERVE.md").display().to_string();
    let style = root.join("docs/style.md").display().to_string();
    let nested = root.join("docs").join("nested.md").display().to_string();
    let agents = root.join("AGENTS.md").display().to_string();
    let expected_files = format!(
        "## {nerve}\n\nUse tabs. See @docs/style.md and @docs/style.md again.\n`@docs/code.md` is code.\n```\n@docs/fenced.md\n```\nNot @../{}/secret.md, mail me@example.com.\n\n## {style} (imported by {nerve})\n\nWrap at 100. @nested.md\n\n## {nested} (imported by {style})\n\nNested rule.\n\n## {agents}\n\nRun make test.",
        outside.path().file_name().unwrap().to_string_lossy()
    );
    assert!(block.starts_with("# Project instructions\n\n"), "{block}");
    assert!(block.ends_with(&expected_files), "{block}");
    for absent in ["OUTSIDE", "CODE", "FENCED"] {
        assert!(!block.contains(absent), "{absent} was imported");
    }
    assert_eq!(instructions_block(outside.path()), "");
}

#[test]
fn import_targets_are_relative_paths_outside_code() {
    let cases: [(&str, &[&str]); 6] = [
        ("see @a/b.md", &["a/b.md"]),
        ("@README.md, then @docs/x.md.", &["README.md", "docs/x.md"]),
        ("`@x.md` and ```", &[]),
        ("write to me@example.com or @someone", &[]),
        ("absolute @/etc/passwd or home @~/notes.md", &[]),
        ("twice @a.md @a.md", &["a.md"]),
    ];
    for (text, expected) in cases {
        assert_eq!(project::import_targets(text), expected.to_vec(), "{text}");
    }
}

#[test]
fn the_memory_index_lists_names_and_descriptions() {
    let dir = tempfile::tempdir().unwrap();
    let memory = dir.path().join("memory");
    let empty = memory_block(&memory);
    assert!(empty.ends_with("No entries yet."), "{empty}");
    let store = crate::tools::memory::MemoryStore::new(&memory);
    store
        .save("test-command", "How to run the tests", "make check")
        .unwrap();
    store
        .save("style", "Indentation the user prefers", "tabs")
        .unwrap();
    let listed = memory_block(&memory);
    assert!(
        listed
            .ends_with("\n\n- `style`: Indentation the user prefers\n- `test-command`: How to run the tests"),
        "{listed}"
    );
    assert!(
        !listed.contains("make check"),
        "entries are read on demand, not listed"
    );
    let prompt = build_system_prompt(
        &SystemPromptInputs {
            project_dir: dir.path(),
            cwd: dir.path(),
            date: "d".into(),
            model: "m",
            memory_dir: Some(&memory),
            user_instructions: None,
        },
        &ctx(&main_tools(), FrontEnd::Desktop, AgentRole::Main),
    );
    assert_eq!(prompt[1], listed, "the memory index is the project block");
    let without = build_system_prompt(
        &SystemPromptInputs {
            project_dir: dir.path(),
            cwd: dir.path(),
            date: "d".into(),
            model: "m",
            memory_dir: Some(&memory),
            user_instructions: None,
        },
        &ctx(&general_subagent_tools(), FrontEnd::Desktop, AgentRole::Main),
    );
    assert!(
        without.iter().all(|b| !b.contains("# Project memory")),
        "no Memory tool, no memory index"
    );
}

#[test]
fn subfolder_instructions_are_given_once_when_the_model_works_there() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "NERVE.md", "root");
    let web = write(root, "web/AGENTS.md", "Use pnpm.");
    write(root, "web/src/CLAUDE.md", "Components are PascalCase.");
    write(root, "web/src/app.ts", "");
    let mut nested = NestedInstructions::new(root);
    assert_eq!(nested.new_for(&[root.join("README.md")]), Vec::<String>::new());
    let found = nested.new_for(&[root.join("web/src/app.ts"), root.join("web/src/app.ts")]);
    assert_eq!(
        found,
        vec![
            format!("## {}\n\nUse pnpm.", web.display()),
            format!(
                "## {}\n\nComponents are PascalCase.",
                root.join("web/src/CLAUDE.md").display()
            ),
        ]
    );
    assert_eq!(
        nested.new_for(&[root.join("web/src/app.ts")]),
        Vec::<String>::new(),
        "once"
    );
    assert_eq!(
        nested.new_for(&[PathBuf::from("/elsewhere/web/x")]),
        Vec::<String>::new()
    );
}

#[test]
fn git_status_is_summarised() {
    let dir = tempfile::tempdir().unwrap();
    let ok = Command::new("git")
        .args(["init", "-q"])
        .current_dir(dir.path())
        .status();
    assert!(ok.is_ok_and(|s| s.success()), "git is required for this test");
    std::fs::write(dir.path().join("new.txt"), "x").unwrap();
    let env = environment_block(&SystemPromptInputs {
        project_dir: dir.path(),
        cwd: dir.path(),
        date: "2026-12-02".into(),
        model: "m",
        memory_dir: None,
        user_instructions: None,
    });
    assert!(env.contains("?? new.txt"), "{env}");
    assert!(env.contains("Today's date: 2026-12-02\nModel: m\n"), "{env}");
}

#[test]
fn the_users_own_instructions_come_before_the_projects_and_are_headed_so() {
    let dir = tempfile::tempdir().unwrap();
    let user = user_instructions_path(&dir.path().join("config"));
    assert_eq!(user_instructions_block(&user), "", "no file, no block");
    std::fs::create_dir_all(user.parent().unwrap()).unwrap();
    std::fs::write(&user, "Answer briefly.\n").unwrap();
    let block = user_instructions_block(&user);
    assert!(block.starts_with("# Your user's instructions\n"), "{block}");
    assert!(
        block.ends_with(&format!("## {}\n\nAnswer briefly.", user.display())),
        "{block}"
    );
}
