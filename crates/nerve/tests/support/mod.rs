//! Helpers shared by the engine's integration tests: a temporary project with a session runtime
//! over the test tools, the scripted model and a client for it, an event recorder, a scripted
//! prompter, tool calls, the conversation's invariant, and watching processes.

#![allow(dead_code)]

use nerve_test_support::folder::ProjectFolder;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nerve::agent::Agent;
use nerve::events::{Event, EventSink};
use nerve::model::types::{ContentBlock, Role};
use nerve::permissions::{PermissionMode, PermissionPrompter, PermissionRequest, RuleBehavior, UserAnswer};
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionRuntime, SessionSetup};
use nerve::registry::ToolPool;
use nerve::tools::testing::all_test_tools;

/// The scripted mock of the Messages API serving `steps` (a real HTTP server speaking SSE).
pub async fn mock(steps: serde_json::Value) -> nerve_mock_model::MockServer {
    let scenario = serde_json::json!({ "steps": steps }).to_string();
    nerve_mock_model::MockServer::start(nerve_mock_model::Scenario::from_json(&scenario).unwrap())
        .await
        .unwrap()
}

/// A model client for `server`, retrying quickly.
pub fn client(server: &nerve_mock_model::MockServer) -> nerve::model::client::ModelClient {
    let mut config = nerve::model::client::ModelConfig::with_base_url_override(
        nerve::model::api_key::ApiKey::new("test-key"),
        Some(server.url()),
    );
    config.retry.base_delay = std::time::Duration::from_millis(10);
    config.retry.max_delay = std::time::Duration::from_millis(50);
    nerve::model::client::ModelClient::new(config).unwrap()
}

/// Records every event in order.
#[derive(Clone, Default)]
pub struct Recorder(pub Arc<Mutex<Vec<Event>>>);

impl Recorder {
    pub fn sink(&self) -> EventSink {
        let inner = Arc::clone(&self.0);
        EventSink::new(move |e| inner.lock().unwrap().push(e))
    }
    pub fn events(&self) -> Vec<Event> {
        self.0.lock().unwrap().clone()
    }
}

/// Answers permission requests from a script, recording what was asked.
pub struct ScriptedPrompter {
    pub answers: Mutex<Vec<UserAnswer>>,
    pub asked: Mutex<Vec<PermissionRequest>>,
}

impl ScriptedPrompter {
    pub fn new(answers: Vec<UserAnswer>) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers),
            asked: Mutex::new(Vec::new()),
        })
    }
    pub fn asked(&self) -> Vec<PermissionRequest> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait]
impl PermissionPrompter for ScriptedPrompter {
    async fn ask(&self, request: PermissionRequest) -> UserAnswer {
        self.asked.lock().unwrap().push(request);
        let mut answers = self.answers.lock().unwrap();
        if answers.is_empty() {
            UserAnswer::Deny {
                message: Some("no scripted answer left".into()),
            }
        } else {
            answers.remove(0)
        }
    }
}

/// Options for a session through the front door on the scripted `model` (main and fast model
/// `claude-test`, a test key), its events between turns discarded.
pub fn mock_session_options(model: &nerve_mock_model::MockServer) -> nerve::session::SessionOptions {
    let mut o = nerve::session::SessionOptions::new(EventSink::discard());
    o.server = nerve::session::ModelServer::Fixed {
        base_url: model.url(),
        auth: nerve::session::ModelAuth::ApiKey(nerve::credentials::ApiKey::new("test-key".to_string())),
        extra_headers: Vec::new(),
        provider: nerve::session::ModelProvider::Anthropic,
    };
    o.model = Some("claude-test".into());
    o.fast_model = Some("claude-test".into());
    o
}

/// A temporary project folder (the shared layout, [`ProjectFolder`]) with its own data dir and
/// settings locations, and a recorder of the events its sessions send.
pub struct TestProject {
    pub folder: ProjectFolder,
    pub recorder: Recorder,
}

impl std::ops::Deref for TestProject {
    type Target = ProjectFolder;

    fn deref(&self) -> &ProjectFolder {
        &self.folder
    }
}

impl TestProject {
    pub fn new() -> Self {
        Self {
            folder: ProjectFolder::new(),
            recorder: Recorder::default(),
        }
    }

    /// An executable shell script `hooks/NAME` in the project running `body`; its path.
    pub fn script(&self, name: &str, body: &str) -> String {
        let path = self.write(&format!("hooks/{name}"), &format!("#!/bin/sh\n{body}\n"));
        std::process::Command::new("chmod")
            .arg("+x")
            .arg(&path)
            .status()
            .unwrap();
        path.display().to_string()
    }

    pub fn options(&self) -> ProjectOptions {
        // The engine's environment variables as values: nothing from the shell running the tests.
        let mut o = ProjectOptions::with_env(self.project_dir(), Arc::new(nerve::EngineEnv::default()));
        // Bash commands run sandboxed, through this crate's test helper binary (a test harness
        // cannot be the sandbox's helper).
        o.sandbox_helper = Some(PathBuf::from(env!("CARGO_BIN_EXE_nerve-test-sandbox-helper")));
        o.data_dir = self.dir.path().join("data");
        o.locations = nerve::settings::SettingsLocations {
            managed_file: self.dir.path().join("etc/managed-settings.json"),
            config_dir: self.home().join(".config"),
            home: self.home(),
        };
        o
    }

    pub fn session_with(
        &self,
        mode: PermissionMode,
        rules: &[(RuleBehavior, &str)],
        prompter: Option<Arc<dyn PermissionPrompter>>,
        headless: bool,
    ) -> SessionRuntime {
        self.session_over(all_test_tools(), mode, rules, prompter, headless)
    }

    /// A headless session over the engine's built-in tools.
    pub fn builtin_session(&self, mode: PermissionMode, rules: &[(RuleBehavior, &str)]) -> SessionRuntime {
        self.session_over(nerve::registry::all_builtin_tools(), mode, rules, None, true)
    }

    pub fn session_over(
        &self,
        tools: Vec<nerve::tool::ToolRef>,
        mode: PermissionMode,
        rules: &[(RuleBehavior, &str)],
        prompter: Option<Arc<dyn PermissionPrompter>>,
        headless: bool,
    ) -> SessionRuntime {
        let mut o = self.options();
        o.mode = Some(mode);
        o.cli_rules = rules.iter().map(|(b, r)| (*b, (*r).to_string())).collect();
        let project = Project::open(o).unwrap();
        let pool = ToolPool::new(tools, false).unwrap();
        project.session(
            pool,
            SessionSetup {
                prompter,
                events: self.recorder.sink(),
                headless,
                ..SessionSetup::default()
            },
        )
    }

    /// A session over the real built-in tools (Bash, TaskOutput, TaskStop...) with a prompter.
    pub fn builtin_session_asking(
        &self,
        mode: PermissionMode,
        prompter: Option<Arc<dyn PermissionPrompter>>,
        headless: bool,
    ) -> SessionRuntime {
        self.session_over(
            nerve::registry::all_builtin_tools(),
            mode,
            &[],
            prompter,
            headless,
        )
    }

    pub fn session(&self) -> SessionRuntime {
        self.session_with(PermissionMode::Default, &[], None, true)
    }

    /// A session over every built-in tool in a project opened with `options` (a test's own mode,
    /// rules, host overrides...), asking `prompter`; headless when there is none.
    pub fn builtin_session_opened(
        &self,
        options: ProjectOptions,
        prompter: Option<Arc<dyn PermissionPrompter>>,
    ) -> SessionRuntime {
        let project = Project::open(options).unwrap();
        project.session(
            ToolPool::new(nerve::registry::all_builtin_tools(), false).unwrap(),
            SessionSetup {
                headless: prompter.is_none(),
                prompter,
                events: self.recorder.sink(),
                ..SessionSetup::default()
            },
        )
    }
}

/// The text blocks of a result, one per line (the engine's own helper).
pub use nerve::tool::text_of;

impl TestProject {
    /// A session over exactly `tools` (deferred loading as given), with `setup` (its events are
    /// replaced by the recorder's).
    pub fn session_with_setup(
        &self,
        tools: Vec<nerve::tool::ToolRef>,
        defer_loading: bool,
        mode: PermissionMode,
        rules: &[(RuleBehavior, &str)],
        setup: SessionSetup,
    ) -> SessionRuntime {
        let mut o = self.options();
        o.mode = Some(mode);
        o.cli_rules = rules.iter().map(|(b, r)| (*b, (*r).to_string())).collect();
        let project = Project::open(o).unwrap();
        let pool = ToolPool::new(tools, defer_loading).unwrap();
        project.session(
            pool,
            SessionSetup {
                events: self.recorder.sink(),
                ..setup
            },
        )
    }
}

/// A call of tool `name` with this id and input.
pub fn call(id: &str, name: &str, input: serde_json::Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        input,
    }
}

/// The one call of its turn (id `toolu_1`).
pub fn single_call(name: &str, input: serde_json::Value) -> ToolCall {
    call("toolu_1", name, input)
}

/// The conversation holds what the API requires: every assistant message with tool calls is followed
/// by a user message answering each of them, in the same order.
pub fn assert_valid_history(agent: &Agent) {
    let msgs = agent.messages();
    for (i, m) in msgs.iter().enumerate() {
        if m.role != Role::Assistant {
            continue;
        }
        let uses: Vec<&str> = m
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolUse(t) => Some(t.id.as_str()),
                _ => None,
            })
            .collect();
        if uses.is_empty() {
            continue;
        }
        let next = msgs.get(i + 1).expect("a user message answers the tool calls");
        let results: Vec<&str> = next
            .content
            .iter()
            .filter_map(|b| match b {
                ContentBlock::ToolResult(r) => Some(r.tool_use_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(results, uses, "message {i}");
    }
}

/// Whether `pid` is gone or a zombie within a few seconds.
pub async fn process_gone(pid: u32) -> bool {
    nerve_test_support::process::process_gone(pid, Duration::from_secs(4)).await
}

/// The process id a command wrote to `path`, once it is there (at most 10 s).
pub async fn read_pid(path: &Path) -> u32 {
    nerve_test_support::process::read_pid(path, Duration::from_secs(10)).await
}

/// Runs each call in turn and shows its result as the model reads it, headed by the call and
/// whether it failed, with the project folder written `<project>`: the text snapshot tests pin.
pub async fn results_as_the_model_reads_them(
    session: &nerve::project::SessionRuntime,
    project: &Path,
    calls: &[(&str, serde_json::Value)],
) -> String {
    let root = project.display().to_string();
    let mut shown = Vec::new();
    for (tool, input) in calls {
        let out = session.run_one(&single_call(tool, input.clone())).await;
        let mark = if out.is_error { "error" } else { "ok" };
        shown.push(format!(
            "== {tool} {input} ({mark})\n{}",
            text_of(&out.content).replace(&root, "<project>")
        ));
    }
    shown.join("\n")
}

/// Runs the test `name` (its module path in the suite, as the harness names it: without the
/// crate's name) alone in a process of its own, with `env` added: for what belongs to a whole
/// process (its peak memory, what the engine is told once per process). Returns whether it passed
/// and what it printed, after checking that it did run.
pub fn run_test_alone(name: &str, env: &[(&str, &str)]) -> (bool, String) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", name, "--nocapture", "--test-threads=1"])
        .envs(env.iter().copied())
        .output()
        .unwrap();
    let printed = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        printed.contains("1 passed") || !out.status.success(),
        "{name} did not run: {printed}"
    );
    (out.status.success(), printed)
}

// Shared with the CLI's tests (which include the file by path).
mod sandbox;
pub use sandbox::sandbox_available;
