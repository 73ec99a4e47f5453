//! The front-door check: what each front-end (the desktop shell, the `nerve` CLI) may name of the
//! engine. A front-end holds a [`crate::Project`] and a [`crate::Session`] and speaks in
//! `nerve-protocol`'s types; each other engine module it names is listed here with the reason, so
//! reaching past the door is a change to this list that a review sees, never an accident. A module
//! listed but no longer named fails too, so the lists only shrink.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What the desktop shell (`src-tauri/src`) may name, and why.
const DESKTOP_MAY_NAME: &[(&str, &str)] = &[
    (
        "EngineEnv",
        "the engine's environment variables, read once at start",
    ),
    ("Session", "the front door: a live session"),
    ("project", "ProjectOptions and the data folders"),
    (
        "session",
        "what starting a session takes: options, the model server, the event sink",
    ),
    (
        "credentials",
        "the key and the gateway token the Settings screen stores",
    ),
    ("settings_view", "the Settings screen's views and edits"),
    ("outputs", "the Outputs browser"),
    ("mcp", "signing in to an MCP server from Settings"),
    ("sandbox", "the app's binary is also the sandbox helper (main)"),
    ("http", "one TLS provider for the whole process (main)"),
    (
        "child_env",
        "the user's environment for the processes the engine starts, kept before the web view's tunables change it",
    ),
    ("files", "atomic writes of the app's settings file"),
    ("release_feed", "the About section's check for a newer version"),
];

/// What the CLI (`crates/nerve-cli/src`) may name, and why.
const CLI_MAY_NAME: &[(&str, &str)] = &[
    (
        "EngineEnv",
        "the engine's environment variables, read once at start",
    ),
    ("Project", "the front door: a project folder"),
    ("Session", "the front door: a live session (`-p`)"),
    (
        "project",
        "ProjectOptions, the data folders, and SessionSetup for `run-tool`",
    ),
    (
        "session",
        "what starting a session takes: options, the model server, the event sink",
    ),
    ("credentials", "`nerve auth`"),
    ("settings_view", "`nerve check-permission` and `nerve mcp list`"),
    ("outputs", "`nerve outputs`"),
    ("mcp", "`nerve mcp` and the servers `run-tool` and `tools` start"),
    ("sandbox", "the `nerve` binary is also the sandbox helper (main)"),
    (
        "agent",
        "`nerve changes` and `nerve rewind` on saved sessions (SessionFiles)",
    ),
    ("tools", "`nerve memory` (the memory store)"),
    (
        "registry",
        "`nerve tools` and `run-tool`: the tool pool, below the session on purpose",
    ),
    (
        "pipeline",
        "`run-tool`: one call through the pipeline, below the session on purpose",
    ),
    ("permissions", "`run-tool`'s terminal prompter"),
    ("settings", "`-p --settings FILE`"),
];

/// The first segment of every `nerve::` path in `code` (comments and doc links ignored).
fn engine_names(code: &str) -> Result<BTreeSet<String>, String> {
    let mut names = BTreeSet::new();
    for line in code.lines() {
        let code = line.split("//").next().unwrap_or("");
        let mut rest = code;
        while let Some(i) = rest.find("nerve::") {
            let preceded_by_ident = rest[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_');
            let after = &rest[i + "nerve::".len()..];
            if !preceded_by_ident {
                if after.starts_with('{') {
                    return Err(format!("name engine items one path at a time: {}", line.trim()));
                }
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                names.insert(name);
            }
            rest = after;
        }
    }
    Ok(names)
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let entries = std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{}: {e}", d.display()));
        for entry in entries {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The engine names a front-end's sources use, each with the first file that names it.
fn named_by(src: &Path) -> std::collections::BTreeMap<String, PathBuf> {
    let mut named = std::collections::BTreeMap::new();
    for file in rust_files(src) {
        let code = std::fs::read_to_string(&file).unwrap();
        let names = engine_names(&code).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        for name in names {
            named.entry(name).or_insert_with(|| file.clone());
        }
    }
    named
}

fn check(front_end: &str, src: &Path, allowed: &[(&str, &str)]) {
    let named = named_by(src);
    assert!(
        named.contains_key("Session") || named.contains_key("session"),
        "{front_end}: read no engine names from {} (wrong folder?)",
        src.display()
    );
    let allowed_names: BTreeSet<&str> = allowed.iter().map(|(name, _)| *name).collect();
    let beyond: Vec<String> = named
        .iter()
        .filter(|(name, _)| !allowed_names.contains(name.as_str()))
        .map(|(name, file)| format!("nerve::{name} (in {})", file.display()))
        .collect();
    assert!(
        beyond.is_empty(),
        "{front_end} names engine modules past the front door: {beyond:?}. Use nerve::Project, \
         nerve::Session and nerve-protocol's types, or add the module to the list in \
         front_door.rs with the reason"
    );
    let unused: Vec<&str> = allowed_names
        .iter()
        .filter(|name| !named.contains_key(**name))
        .copied()
        .collect();
    assert!(
        unused.is_empty(),
        "{front_end} no longer names {unused:?}: remove them from its list in front_door.rs"
    );
}

#[test]
fn the_desktop_shell_names_only_the_front_door_and_what_its_list_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    check("the desktop shell", &root.join("src-tauri/src"), DESKTOP_MAY_NAME);
}

#[test]
fn the_cli_names_only_the_front_door_and_what_its_list_allows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    check("the CLI", &root.join("crates/nerve-cli/src"), CLI_MAY_NAME);
}

#[test]
fn engine_names_are_read_from_paths_and_imports_but_not_comments() {
    let code = "use nerve::session::{A, B};\nlet x = nerve::Project::open(o); // nerve::agent\n\
                use nerve_protocol::Event;\nmy_nerve::x();\n";
    let names: Vec<String> = engine_names(code).unwrap().into_iter().collect();
    assert_eq!(names, ["Project", "session"]);
    assert!(engine_names("use nerve::{agent, tools};").is_err());
}
