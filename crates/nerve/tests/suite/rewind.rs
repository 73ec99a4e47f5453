//! Checkpoints and rewinds, end to end: the agent loop against the scripted Messages API mock,
//! real Edit, Write and Bash tools on a project folder that is a git work tree.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crate::support::{ScriptedPrompter, TestProject, assert_valid_history, client, mock};
use nerve::agent::{Agent, AgentConfig, RewindError, RewindRequest, SessionFiles};
use nerve::checkpoint::{
    CallRef, ChangeScope, ChangeSet, FileChange, FileStatus, RefusalReason, RefusedRestore, Seen, TurnRunning,
};
use nerve::events::{Event, TurnEnd};
use nerve::model::types::{ContentBlock, Role};
use nerve::permissions::{PermissionMode, PermissionPrompter, UserAnswer};
use nerve::tools::fs::{DiffHunk, DiffLine, DiffTag};
use nerve::transcripts::Transcript;
use nerve_mock_model::MockServer;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

/// How the project's folder is a git work tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Tree {
    /// A real repository: git says what is dirty and what changed.
    Git,
    /// A `.git` folder git cannot read: the engine hashes the whole tree instead.
    Unreadable,
}

/// A project that is a git work tree with `.gitignore` (ignoring `ignored/`) committed.
fn git_project() -> TestProject {
    project_in(Tree::Git, &[])
}

/// A project of `kind` with `files` (and `.gitignore`) committed.
fn project_in(kind: Tree, files: &[(&str, &str)]) -> TestProject {
    let p = TestProject::new();
    std::fs::write(p.project_dir().join(".gitignore"), "ignored/\n").unwrap();
    for (rel, text) in files {
        p.write(rel, text);
    }
    match kind {
        Tree::Unreadable => std::fs::create_dir_all(p.project_dir().join(".git")).unwrap(),
        Tree::Git => {
            for args in [
                &["init", "-q"][..],
                &["add", "-A"],
                &["commit", "-q", "-m", "start"],
            ] {
                git(&p, args);
            }
        }
    }
    p
}

fn git(p: &TestProject, args: &[&str]) {
    nerve_test_support::git::git(&p.project_dir(), args);
}

/// The project's folder in the data dir, as a front-end finds it.
fn project_data_dir(p: &TestProject) -> PathBuf {
    nerve::project::Project::open(p.options()).unwrap().data_dir()
}

fn runtime(
    p: &TestProject,
    mode: PermissionMode,
    prompter: Option<Arc<dyn PermissionPrompter>>,
) -> nerve::project::SessionRuntime {
    let mut tools = nerve::registry::all_builtin_tools();
    tools.extend(nerve::tools::testing::all_test_tools());
    let headless = prompter.is_none();
    p.session_over(tools, mode, &[], prompter, headless)
}

fn agent(p: &TestProject, server: &MockServer) -> Agent {
    agent_with(p, server, PermissionMode::BypassPermissions, None)
}

fn agent_with(
    p: &TestProject,
    server: &MockServer,
    mode: PermissionMode,
    prompter: Option<Arc<dyn PermissionPrompter>>,
) -> Agent {
    let runtime = runtime(p, mode, prompter);
    let path = runtime.context.config.transcript_path.clone();
    Agent::new(
        client(server),
        runtime,
        AgentConfig::new("claude-test"),
        vec!["You are Nerve.".into()],
        Some(Transcript::open(&path).unwrap()),
    )
}

/// A new agent resuming `a`'s session from its transcript, with the same checkpoints.
fn resume(p: &TestProject, server: &MockServer, a: &Agent) -> Agent {
    let mut runtime = runtime(p, PermissionMode::BypassPermissions, None);
    let files = a.session_files().unwrap();
    let mut config = (*runtime.context.config).clone();
    config.session_id = session_id(a);
    config.checkpoints = Some(files.checkpoints);
    runtime.context.config = Arc::new(config);
    Agent::resume(
        client(server),
        runtime,
        AgentConfig::new("claude-test"),
        vec!["You are Nerve.".into()],
        &files.transcript,
    )
    .unwrap()
    .0
}

fn session_id(a: &Agent) -> String {
    a.runtime().context.config.session_id.clone()
}

fn read(p: &TestProject, rel: &str) -> Option<String> {
    std::fs::read_to_string(p.project_dir().join(rel)).ok()
}

fn path(p: &TestProject, rel: &str) -> String {
    p.project_dir().join(rel).to_string_lossy().into_owned()
}

fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

fn calls(blocks: Vec<Value>) -> Value {
    json!({"response": {"type": "stream", "blocks": blocks}})
}

fn says(text: &str) -> Value {
    json!({"response": {"type": "stream", "blocks": [{"type": "text", "text": text}]}})
}

async fn send(a: &mut Agent, prompt: &str) {
    let out = a.send(prompt, CancellationToken::new()).await;
    assert_eq!(out.end, TurnEnd::EndTurn, "{:?}", out.error);
}

fn both(to_turn: u32) -> RewindRequest {
    RewindRequest {
        to_turn,
        code: true,
        conversation: true,
        confirmed: Vec::new(),
    }
}

fn code_only(to_turn: u32) -> RewindRequest {
    RewindRequest {
        conversation: false,
        ..both(to_turn)
    }
}

#[tokio::test]
async fn rewinding_code_and_conversation_restores_files_and_the_next_request_no_longer_holds_the_later_turns()
{
    let p = git_project();
    let a_txt = path(&p, "a.txt");
    let server = mock(json!([
        calls(vec![tool_use("w1", "Write", json!({"file_path": a_txt, "content": "one\n"}))]),
        says("wrote it"),
        calls(vec![
            tool_use("r1", "Read", json!({"file_path": a_txt})),
            tool_use("e1", "Edit", json!({"file_path": a_txt, "old_string": "one", "new_string": "two"})),
        ]),
        calls(vec![tool_use("b1", "Bash", json!({"command": "echo made > b.txt"}))]),
        says("SECOND-ANSWER"),
        {"expect": {"message_count": 5, "last_user_text_contains": "third",
                    "no_message_contains": "SECOND"},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "first").await;
    send(&mut a, "SECOND prompt").await;
    assert_eq!(read(&p, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(read(&p, "b.txt").as_deref(), Some("made\n"));

    let report = a.rewind(&both(2)).unwrap();
    let code = report.code.unwrap();
    assert_eq!(code.refused, Vec::<RefusedRestore>::new());
    assert_eq!(code.restored.len(), 2);
    assert_eq!(report.conversation.unwrap().prompt.text, "SECOND prompt");
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(
        read(&p, "b.txt"),
        None,
        "the command created it after that prompt"
    );
    assert_valid_history(&a);

    send(&mut a, "third").await;
    let prompts: Vec<(u32, String)> = a
        .prompts()
        .unwrap()
        .into_iter()
        .map(|p| (p.turn, p.text))
        .collect();
    assert_eq!(prompts, vec![(1, "first".into()), (3, "third".into())]);

    // The transcript keeps the rewound turn for the record; a resume continues the rewound one.
    let transcript = std::fs::read_to_string(a.transcript_path().unwrap()).unwrap();
    assert!(transcript.contains("SECOND-ANSWER"));
    let resumed = resume(&p, &server, &a);
    assert_eq!(resumed.messages(), a.messages());
}

#[tokio::test]
async fn a_turns_change_set_is_the_net_diff_of_each_file_with_how_it_was_seen() {
    let p = git_project();
    p.write("a.txt", "keep\nold\n");
    let a_txt = path(&p, "a.txt");
    let c_txt = path(&p, "c.txt");
    let server = mock(json!([
        calls(vec![
            tool_use("r1", "Read", json!({"file_path": a_txt})),
            tool_use(
                "e1",
                "Edit",
                json!({"file_path": a_txt, "old_string": "old", "new_string": "new"})
            ),
        ]),
        calls(vec![tool_use(
            "w1",
            "Write",
            json!({"file_path": c_txt, "content": "temp\n"})
        )]),
        calls(vec![tool_use(
            "b1",
            "Bash",
            json!({"command": "rm c.txt && printf 'x\\n' > ignored/out.txt; true"})
        )]),
        says("done"),
    ]))
    .await;
    std::fs::create_dir_all(p.project_dir().join("ignored")).unwrap();
    let mut a = agent(&p, &server);
    send(&mut a, "go").await;

    let changes = a.changes(ChangeScope::Turn { turn: 1 }).unwrap();
    let expected = ChangeSet {
        scope: ChangeScope::Turn { turn: 1 },
        files: vec![FileChange {
            path: PathBuf::from(&a_txt),
            status: FileStatus::Modified,
            added: 1,
            removed: 1,
            binary: false,
            renamed_from: None,
            hunks: vec![DiffHunk {
                old_start: 1,
                old_lines: 2,
                new_start: 1,
                new_lines: 2,
                lines: vec![
                    DiffLine::new(DiffTag::Context, "keep"),
                    DiffLine::new(DiffTag::Delete, "old"),
                    DiffLine::new(DiffTag::Insert, "new"),
                ],
            }],
            seen: Seen::Tool,
            calls: vec![CallRef {
                tool_use_id: "e1".into(),
                tool_name: "Edit".into(),
            }],
        }],
        unseen: vec![nerve::checkpoint::UnseenCall {
            turn: 1,
            call: CallRef {
                tool_use_id: "b1".into(),
                tool_name: "Bash".into(),
            },
            reason: nerve::checkpoint::UnseenReason::OutsideWorkTree {
                root: p.project_dir(),
            },
            message: format!(
                "changes inside {} (tracked and untracked, not ignored) are restorable; ignored files and files elsewhere are not",
                p.project_dir().display()
            ),
        }],
    };
    // c.txt was created and deleted within the turn: no net change. The ignored file is not seen.
    assert_eq!(changes, expected);
    assert_eq!(a.changes(ChangeScope::Session).unwrap().files, expected.files);
}

#[tokio::test]
async fn a_file_someone_else_changed_after_the_agent_is_refused_unless_confirmed() {
    let p = git_project();
    let a_txt = path(&p, "a.txt");
    let server = mock(json!([
        calls(vec![tool_use(
            "w1",
            "Write",
            json!({"file_path": a_txt, "content": "agent\n"})
        )]),
        says("done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "write it").await;
    std::fs::write(&a_txt, "human\n").unwrap();

    let plan = a.session_files().unwrap().plan_code_rewind(1).unwrap();
    assert!(plan.files[0].changed_on_disk);
    let report = a.rewind(&code_only(1)).unwrap().code.unwrap();
    assert_eq!(
        report.refused,
        vec![RefusedRestore {
            path: PathBuf::from(&a_txt),
            reason: RefusalReason::ChangedOnDisk,
        }]
    );
    assert_eq!(read(&p, "a.txt").as_deref(), Some("human\n"));

    let confirmed = RewindRequest {
        confirmed: vec![PathBuf::from(&a_txt)],
        ..code_only(1)
    };
    let report = a.rewind(&confirmed).unwrap().code.unwrap();
    assert_eq!(report.refused, Vec::<RefusedRestore>::new());
    assert_eq!(
        read(&p, "a.txt"),
        None,
        "the agent created it, so going back removes it"
    );
}

#[tokio::test]
async fn a_binary_file_a_command_changed_is_restored_byte_for_byte() {
    let p = git_project();
    let bin = p.project_dir().join("blob.bin");
    std::fs::write(&bin, [0u8, 159, 146, 150, 0]).unwrap();
    let server = mock(json!([
        calls(vec![tool_use(
            "b1",
            "Bash",
            json!({"command": "printf '\\001\\000\\377' > blob.bin"})
        )]),
        says("done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "change it").await;
    let changes = a.changes(ChangeScope::Turn { turn: 1 }).unwrap();
    assert_eq!(
        changes
            .files
            .iter()
            .map(|f| (f.path.clone(), f.status, f.binary, f.seen))
            .collect::<Vec<_>>(),
        vec![(bin.clone(), FileStatus::Modified, true, Seen::WorkTree)]
    );
    a.rewind(&code_only(1)).unwrap();
    assert_eq!(std::fs::read(&bin).unwrap(), vec![0u8, 159, 146, 150, 0]);
}

#[tokio::test]
async fn an_approved_sed_edit_is_checkpointed_by_the_files_it_names() {
    let p = TestProject::new(); // not a git repository: only what tools name can be restored
    p.write("conf.txt", "port=1\n");
    let server = mock(json!([
        calls(vec![tool_use(
            "s1",
            "Bash",
            json!({"command": "sed -i 's/1/2/' conf.txt"})
        )]),
        calls(vec![tool_use(
            "b1",
            "Bash",
            json!({"command": "echo x > other.txt"})
        )]),
        says("done"),
    ]))
    .await;
    let allow = || UserAnswer::AllowOnce { updated_input: None };
    let prompter: Arc<dyn PermissionPrompter> = ScriptedPrompter::new(vec![allow(), allow()]);
    let mut a = agent_with(&p, &server, PermissionMode::Default, Some(prompter));
    send(&mut a, "bump the port").await;
    assert_eq!(read(&p, "conf.txt").as_deref(), Some("port=2\n"));
    let changes = a.changes(ChangeScope::Turn { turn: 1 }).unwrap();
    assert_eq!(changes.files.len(), 1);
    assert_eq!(changes.files[0].seen, Seen::Tool);
    assert_eq!(
        changes
            .unseen
            .iter()
            .map(|u| u.reason.clone())
            .collect::<Vec<_>>(),
        vec![nerve::checkpoint::UnseenReason::NotGitRepository]
    );
    let report = a.rewind(&code_only(1)).unwrap().code.unwrap();
    assert_eq!(
        report.unseen.len(),
        1,
        "the rewind says what it could not restore"
    );
    assert_eq!(read(&p, "conf.txt").as_deref(), Some("port=1\n"));
    assert_eq!(
        read(&p, "other.txt").as_deref(),
        Some("x\n"),
        "never seen, never deleted"
    );
}

#[tokio::test]
async fn a_rewind_while_a_turn_runs_is_refused_with_a_clear_message() {
    let p = git_project();
    let server = mock(json!([
        calls(vec![tool_use(
            "s1",
            "TestSleep",
            json!({"ms": 60_000, "safe": false})
        )]),
        says("done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    // As `nerve rewind` finds the session: by the project and the session id.
    let files = SessionFiles::of(&project_data_dir(&p), &session_id(&a));
    let cancel = CancellationToken::new();
    let turn_cancel = cancel.clone();
    let running = tokio::spawn(async move {
        a.send("sleep", turn_cancel).await;
        a
    });
    while !p
        .recorder
        .events()
        .iter()
        .any(|e| matches!(e, Event::ToolStarted { .. }))
    {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    let err = files.rewind(&both(1)).unwrap_err();
    assert!(
        matches!(err, RewindError::TurnRunning(TurnRunning::Busy { .. })),
        "{err}"
    );
    assert!(
        err.to_string()
            .starts_with("a turn of this session is running; wait for it to end or abort it")
    );
    cancel.cancel();
    let mut a = running.await.unwrap();
    a.rewind(&both(1)).unwrap();
    assert_eq!(a.messages(), &[]);
}

#[tokio::test]
async fn rewinding_to_a_prompt_that_is_not_in_the_conversation_names_the_ones_that_are() {
    let p = git_project();
    let server = mock(json!([says("one")])).await;
    let mut a = agent(&p, &server);
    send(&mut a, "hello").await;
    let err = a.rewind(&both(7)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "there is no prompt 7 in this conversation (its prompts are: [1]); `nerve changes` lists them"
    );
}

mod property {
    //! Random sequences of Edit, Write, sed and Bash changes over a few files, prompt after prompt;
    //! then a rewind to a random prompt puts every file back as it was just before that prompt,
    //! and the conversation (live and resumed) is a valid history.

    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    const FILES: [&str; 3] = ["f0.txt", "f1.txt", "f2.txt"];

    #[derive(Debug, Clone)]
    enum Op {
        Write(usize, String),
        Edit(usize),
        Sed(usize),
        BashAppend(usize, String),
        BashRemove(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        let word = "[a-z]{1,6}";
        prop_oneof![
            (0..3usize, word).prop_map(|(f, w)| Op::Write(f, w)),
            (0..3usize).prop_map(Op::Edit),
            (0..3usize).prop_map(Op::Sed),
            (0..3usize, word).prop_map(|(f, w)| Op::BashAppend(f, w)),
            (0..3usize).prop_map(Op::BashRemove),
        ]
    }

    /// The model's answer for one op, written against `files` (what the test expects the files to
    /// hold), which it then updates. Writes and edits read the file first, as a model does.
    fn step(p: &TestProject, id: &str, op: &Op, files: &mut [Option<String>; 3]) -> Value {
        let at = |f: usize| path(p, FILES[f]);
        let read_first = |f: usize| tool_use(&format!("{id}r"), "Read", json!({"file_path": at(f)}));
        let blocks = match op {
            Op::Write(f, w) => {
                files[*f] = Some(format!("{w}\n"));
                vec![
                    read_first(*f),
                    tool_use(
                        id,
                        "Write",
                        json!({"file_path": at(*f), "content": format!("{w}\n")}),
                    ),
                ]
            }
            Op::Edit(f) => match files[*f].clone() {
                Some(text) => {
                    files[*f] = Some(format!("{text}edited\n"));
                    let input = json!({"file_path": at(*f), "old_string": text, "new_string": format!("{text}edited\n")});
                    vec![read_first(*f), tool_use(id, "Edit", input)]
                }
                None => {
                    files[*f] = Some("fresh\n".into());
                    vec![
                        read_first(*f),
                        tool_use(id, "Write", json!({"file_path": at(*f), "content": "fresh\n"})),
                    ]
                }
            },
            Op::Sed(f) => {
                if let Some(text) = &files[*f] {
                    files[*f] = Some(text.lines().map(|l| format!("s{l}\n")).collect());
                }
                let command = format!("test -e {0} && sed -i 's/^/s/' {0}; true", FILES[*f]);
                vec![tool_use(id, "Bash", json!({"command": command}))]
            }
            Op::BashAppend(f, w) => {
                files[*f] = Some(format!("{}{w}\n", files[*f].clone().unwrap_or_default()));
                vec![tool_use(
                    id,
                    "Bash",
                    json!({"command": format!("echo {w} >> {}", FILES[*f])}),
                )]
            }
            Op::BashRemove(f) => {
                files[*f] = None;
                vec![tool_use(
                    id,
                    "Bash",
                    json!({"command": format!("rm -f {}", FILES[*f])}),
                )]
            }
        };
        calls(blocks)
    }

    fn on_disk(p: &TestProject) -> [Option<String>; 3] {
        FILES.map(|f| read(p, f))
    }

    /// `committed`: the files start committed (clean in git), else absent.
    async fn scenario(kind: Tree, committed: bool, prompts: Vec<Vec<Op>>, to: usize) {
        let start: Vec<(&str, String)> = if committed {
            FILES.iter().map(|f| (*f, format!("committed {f}\n"))).collect()
        } else {
            Vec::new()
        };
        let start: Vec<(&str, &str)> = start.iter().map(|(f, t)| (*f, t.as_str())).collect();
        let p = project_in(kind, &start);
        let mut files: [Option<String>; 3] = on_disk(&p);
        let mut before_each = Vec::new();
        let mut steps = Vec::new();
        for (n, ops) in prompts.iter().enumerate() {
            before_each.push(files.clone());
            for (k, op) in ops.iter().enumerate() {
                steps.push(step(&p, &format!("t{n}_{k}"), op, &mut files));
            }
            steps.push(says("done"));
        }
        // The request after the rewind holds none of the rewound prompts.
        steps.push(
            json!({"expect": {"no_message_contains": format!("prompt number {}", to + 1)},
                          "response": {"type": "stream", "blocks": [{"type": "text", "text": "ok"}]}}),
        );
        let server = mock(Value::Array(steps)).await;
        let mut a = agent(&p, &server);
        for n in 0..prompts.len() {
            send(&mut a, &format!("prompt number {}", n + 1)).await;
        }
        assert_eq!(
            on_disk(&p),
            files,
            "the test's model of the files matches the tools"
        );

        let turn = (to + 1) as u32;
        let report = a.rewind(&both(turn)).unwrap();
        assert_eq!(report.code.unwrap().refused, Vec::<RefusedRestore>::new());
        assert_eq!(
            on_disk(&p),
            before_each[to],
            "rewound to just before prompt {turn}"
        );
        assert_valid_history(&a);
        let resumed = resume(&p, &server, &a);
        assert_eq!(resumed.messages(), a.messages());
        send(&mut a, "after the rewind").await;
        assert_valid_history(&a);
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]
        #[test]
        fn a_rewind_restores_every_file_as_it_was_before_the_prompt(
            prompts in proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..4),
            to in 0..4usize,
        ) {
            let to = to % prompts.len();
            tokio::runtime::Runtime::new().unwrap().block_on(scenario(Tree::Git, false, prompts, to));
        }

        #[test]
        fn a_rewind_restores_files_that_were_committed_and_clean_before_the_prompt(
            prompts in proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..4),
            to in 0..4usize,
        ) {
            let to = to % prompts.len();
            tokio::runtime::Runtime::new().unwrap().block_on(scenario(Tree::Git, true, prompts, to));
        }

        #[test]
        fn a_rewind_restores_every_file_where_git_cannot_read_the_repository(
            prompts in proptest::collection::vec(proptest::collection::vec(op(), 1..4), 1..4),
            to in 0..4usize,
        ) {
            let to = to % prompts.len();
            tokio::runtime::Runtime::new().unwrap().block_on(scenario(Tree::Unreadable, true, prompts, to));
        }
    }
}

#[tokio::test]
async fn each_call_shows_its_own_diff_live_and_after_resume_and_one_file_can_be_reverted() {
    let p = git_project();
    p.write("a.txt", "one\ntwo\nthree\n");
    let a_txt = path(&p, "a.txt");
    let b_txt = path(&p, "b.txt");
    let new_txt = path(&p, "new.txt");
    let server = mock(json!([
        calls(vec![
            tool_use("r1", "Read", json!({"file_path": a_txt})),
            tool_use(
                "e1",
                "Edit",
                json!({"file_path": a_txt, "old_string": "one", "new_string": "ONE"})
            ),
        ]),
        calls(vec![tool_use(
            "e2",
            "Edit",
            json!({"file_path": a_txt, "old_string": "three", "new_string": "THREE"})
        )]),
        calls(vec![tool_use(
            "b1",
            "Bash",
            json!({"command": "echo x > new.txt"})
        )]),
        says("first done"),
        calls(vec![tool_use(
            "w1",
            "Write",
            json!({"file_path": b_txt, "content": "bee\n"})
        )]),
        says("second done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "first").await;
    send(&mut a, "second").await;

    // Live: each completed call names the files it changed, and turns announce their numbers.
    let events = p.recorder.events();
    let changed: Vec<(String, Vec<PathBuf>)> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolCompleted {
                tool_use_id,
                changed_files,
                ..
            } => Some((tool_use_id.clone(), changed_files.clone())),
            _ => None,
        })
        .collect();
    let expected_changed = vec![
        ("r1".to_string(), vec![]),
        ("e1".to_string(), vec![PathBuf::from(&a_txt)]),
        ("e2".to_string(), vec![PathBuf::from(&a_txt)]),
        ("b1".to_string(), vec![PathBuf::from(&new_txt)]),
        ("w1".to_string(), vec![PathBuf::from(&b_txt)]),
    ];
    assert_eq!(changed, expected_changed);
    let turns: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::TurnStarted { turn } => Some(*turn),
            _ => None,
        })
        .collect();
    assert_eq!(turns, vec![1, 2]);

    // A call's diff is its own change: e2 starts from what e1 left.
    let e2 = a
        .changes(ChangeScope::Call {
            tool_use_id: "e2".into(),
        })
        .unwrap();
    assert_eq!(
        e2.files
            .iter()
            .map(|f| (f.path.clone(), f.status, f.added, f.removed, f.calls.len()))
            .collect::<Vec<_>>(),
        vec![(PathBuf::from(&a_txt), FileStatus::Modified, 1, 1, 1)]
    );
    let lines: Vec<(DiffTag, String)> = e2.files[0]
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter(|l| l.tag != DiffTag::Context)
        .map(|l| (l.tag, l.text.clone()))
        .collect();
    assert_eq!(
        lines,
        vec![
            (DiffTag::Delete, "three".to_string()),
            (DiffTag::Insert, "THREE".to_string())
        ]
    );
    let b1 = a
        .changes(ChangeScope::Call {
            tool_use_id: "b1".into(),
        })
        .unwrap();
    assert_eq!(
        (b1.files.len(), b1.files[0].status, b1.files[0].seen),
        (1, FileStatus::Created, Seen::WorkTree)
    );
    assert!(
        a.changes(ChangeScope::Call {
            tool_use_id: "r1".into()
        })
        .unwrap()
        .files
        .is_empty()
    );

    // After a resume, the cards get the same files.
    let resumed = resume(&p, &server, &a);
    let past: Vec<(String, Vec<PathBuf>)> = resumed
        .past_calls()
        .into_iter()
        .map(|c| (c.tool_use_id, c.changed_files))
        .collect();
    assert_eq!(past, expected_changed);
    // Each prompt names the message that holds it, so a front-end can put the rewind on it.
    let held: Vec<(u32, String)> = resumed
        .prompts()
        .unwrap()
        .into_iter()
        .map(|p| {
            let message = &resumed.messages()[p.message_index.unwrap() as usize];
            assert_eq!(message.role, Role::User);
            let text = message
                .content
                .iter()
                .find_map(|b| match b {
                    ContentBlock::Text(t) => Some(t.text.clone()),
                    _ => None,
                })
                .unwrap();
            (p.turn, text)
        })
        .collect();
    assert_eq!(held, vec![(1, "first".to_string()), (2, "second".to_string())]);

    // Reverting one file: back to before the session, the others untouched.
    let files = a.session_files().unwrap();
    let report = files.revert_file(Path::new(&a_txt), None, false).unwrap();
    assert_eq!(report.restored.len(), 1);
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\ntwo\nthree\n"));
    assert_eq!(read(&p, "b.txt").as_deref(), Some("bee\n"));
    assert_eq!(read(&p, "new.txt").as_deref(), Some("x\n"));

    // A file someone edited after the agent is only overwritten once confirmed; one the agent
    // created is removed.
    std::fs::write(&b_txt, "human\n").unwrap();
    let plan = files.plan_file_revert(Path::new(&b_txt), Some(2)).unwrap();
    assert!(plan.files[0].changed_on_disk);
    let refused = files.revert_file(Path::new(&b_txt), Some(2), false).unwrap();
    assert_eq!(
        refused.refused,
        vec![RefusedRestore {
            path: PathBuf::from(&b_txt),
            reason: RefusalReason::ChangedOnDisk,
        }]
    );
    assert_eq!(read(&p, "b.txt").as_deref(), Some("human\n"));
    files.revert_file(Path::new(&b_txt), Some(2), true).unwrap();
    assert_eq!(read(&p, "b.txt"), None);
    files.revert_file(Path::new(&new_txt), None, false).unwrap();
    assert_eq!(read(&p, "new.txt"), None);
    assert!(
        files
            .plan_file_revert(Path::new(&path(&p, "unknown.txt")), None)
            .unwrap()
            .files
            .is_empty(),
        "a file the session never changed has nothing to revert"
    );
}

#[tokio::test]
async fn a_command_that_rewrites_ten_thousand_committed_files_is_rewound_exactly() {
    // 10,000 committed files, one of them dirty and one untracked file beside them before the
    // command; the command rewrites them all, deletes one, creates one.
    let names: Vec<String> = (0..10_000)
        .map(|i| format!("src/m{:02}/f{i:05}.txt", i / 500))
        .collect();
    let texts: Vec<String> = (0..10_000).map(|i| format!("file {i}\n")).collect();
    let files: Vec<(&str, &str)> = names
        .iter()
        .map(String::as_str)
        .zip(texts.iter().map(String::as_str))
        .collect();
    let p = project_in(Tree::Git, &files);
    p.write("src/m00/f00000.txt", "dirty before the command\n");
    p.write("notes.txt", "untracked before the command\n");
    let before: Vec<(String, Option<String>)> = names
        .iter()
        .map(String::as_str)
        .chain(["notes.txt", "made.txt"])
        .map(|n| (n.to_string(), read(&p, n)))
        .collect();
    // `find -exec sed -i` would ask even in bypass mode (the files it edits are known only when it
    // runs); perl edits the same files as a program the analysis does not know, which bypass allows.
    let command = "find src -type f -exec perl -pi -e 's/^/changed /' {} + && rm src/m19/f09999.txt && echo more >> notes.txt && echo new > made.txt";
    let server = mock(json!([
        calls(vec![tool_use("b1", "Bash", json!({"command": command}))]),
        says("done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "rewrite everything").await;
    assert_eq!(
        read(&p, "src/m00/f00001.txt").as_deref(),
        Some("changed file 1\n")
    );
    let changes = a.changes(ChangeScope::Turn { turn: 1 }).unwrap();
    let count = |status| changes.files.iter().filter(|f| f.status == status).count();
    assert_eq!(
        (
            count(FileStatus::Modified),
            count(FileStatus::Deleted),
            count(FileStatus::Created)
        ),
        (10_000, 1, 1),
        "9,999 rewritten files and notes.txt; one deleted; one made"
    );

    let report = a.rewind(&code_only(1)).unwrap().code.unwrap();
    assert_eq!(report.refused, Vec::<RefusedRestore>::new());
    assert_eq!(report.restored.len(), 10_002);
    let after: Vec<(String, Option<String>)> = before.iter().map(|(n, _)| (n.clone(), read(&p, n))).collect();
    assert_eq!(after, before, "every file as it was before the prompt");
}

/// A rewind of the code can be undone: the files it put back (one rewritten, one deleted) hold
/// again what they held just before it; a file changed since the rewind is left as it is; the undo
/// is itself recorded, so there is nothing left to undo and a later rewind plans from the files
/// as they now are.
#[tokio::test]
async fn a_rewind_of_the_code_is_undone_and_a_file_changed_since_is_left_alone() {
    let p = git_project();
    let a_txt = path(&p, "a.txt");
    let c_txt = path(&p, "c.txt");
    let server = mock(json!([
        calls(vec![tool_use(
            "w1",
            "Write",
            json!({"file_path": a_txt, "content": "one\n"})
        )]),
        says("wrote it"),
        calls(vec![
            tool_use("w2", "Write", json!({"file_path": c_txt, "content": "sea\n"})),
            tool_use(
                "b1",
                "Bash",
                json!({"command": "echo made > b.txt && echo more >> a.txt"})
            ),
        ]),
        says("done"),
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "first").await;
    send(&mut a, "second").await;
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\nmore\n"));
    let files = a.session_files().unwrap();
    assert_eq!(
        files.undo_rewind().unwrap_err().to_string(),
        "there is no rewind of the code to undo in this session"
    );

    let report = a.rewind(&code_only(2)).unwrap().code.unwrap();
    assert_eq!(report.restored.len(), 3);
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\n"));
    assert_eq!((read(&p, "b.txt"), read(&p, "c.txt")), (None, None));
    // The user writes c.txt again after the rewind: the undo leaves it alone.
    std::fs::write(p.project_dir().join("c.txt"), "mine\n").unwrap();

    let undone = files.undo_rewind().unwrap();
    assert_eq!(
        undone.prompts_back, None,
        "a code-only rewind left the conversation alone"
    );
    let undone = undone.code.unwrap();
    let mut back: Vec<String> = undone
        .restored
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    back.sort();
    assert_eq!(back, vec!["a.txt", "b.txt"]);
    assert_eq!(undone.refused.len(), 1);
    assert_eq!(undone.refused[0].reason, RefusalReason::ChangedSincePlan);
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\nmore\n"));
    assert_eq!(read(&p, "b.txt").as_deref(), Some("made\n"));
    assert_eq!(read(&p, "c.txt").as_deref(), Some("mine\n"));
    assert!(matches!(
        files.undo_rewind().unwrap_err(),
        RewindError::Checkpoint(nerve::checkpoint::CheckpointError::NothingToUndo)
    ));
    // Rewinding again plans from what the files hold after the undo.
    let plan = files.plan_code_rewind(2).unwrap();
    let mut planned: Vec<String> = plan
        .files
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    planned.sort();
    assert_eq!(planned, vec!["a.txt", "b.txt", "c.txt"]);
    let changed: Vec<bool> = plan.files.iter().map(|f| f.changed_on_disk).collect();
    assert_eq!(
        changed.iter().filter(|c| **c).count(),
        1,
        "only c.txt changed outside the agent: {plan:?}"
    );
}

/// A rewind of the code and the conversation is undone as one: the prompts it cut come back (the
/// next request holds them again, and so does a resume) and the files are brought forward. Once
/// something is said after a rewind, the conversation goes on from there: an undo then brings
/// back only the files.
#[tokio::test]
async fn a_rewind_of_the_conversation_is_undone_until_something_is_said_after_it() {
    let p = git_project();
    let a_txt = path(&p, "a.txt");
    let server = mock(json!([
        calls(vec![tool_use("w1", "Write", json!({"file_path": a_txt, "content": "one\n"}))]),
        says("FIRST-ANSWER"),
        calls(vec![tool_use("w2", "Write", json!({"file_path": a_txt, "content": "two\n"}))]),
        says("SECOND-ANSWER"),
        {"expect": {"last_user_text_contains": "third", "message_count": 9},
         "response": {"type": "stream", "blocks": [{"type": "text", "text": "THIRD-ANSWER"}]}},
        says("after the second rewind")
    ]))
    .await;
    let mut a = agent(&p, &server);
    send(&mut a, "first").await;
    send(&mut a, "second").await;
    let before = a.messages().to_vec();

    let rewound = a.rewind(&both(2)).unwrap();
    assert_eq!(rewound.conversation.unwrap().prompts_removed, 1);
    assert_eq!(read(&p, "a.txt").as_deref(), Some("one\n"));
    assert_eq!(a.messages().len(), 4);

    let undone = a.undo_rewind().unwrap();
    assert_eq!(undone.prompts_back, Some(1));
    assert_eq!(undone.code.unwrap().restored.len(), 1);
    assert_eq!(read(&p, "a.txt").as_deref(), Some("two\n"));
    assert_eq!(a.messages(), &before[..], "the conversation is as it was");
    let files = a.session_files().unwrap();
    let turns = || {
        files
            .prompts()
            .unwrap()
            .iter()
            .map(|p| p.turn)
            .collect::<Vec<_>>()
    };
    assert_eq!(turns(), vec![1, 2]);
    // The next request holds the prompts that came back (the mock checks the message count).
    send(&mut a, "third").await;

    // Rewound, then a prompt: the new branch stays; an undo brings back the files only.
    a.rewind(&both(3)).unwrap();
    send(&mut a, "fourth").await;
    let undone = a.undo_rewind();
    assert!(
        matches!(
            undone,
            Err(RewindError::Checkpoint(
                nerve::checkpoint::CheckpointError::NothingToUndo
            ))
        ),
        "the third prompt changed no file, so its rewind put nothing back: {undone:?}"
    );
    assert_eq!(turns(), vec![1, 2, 4]);
}
