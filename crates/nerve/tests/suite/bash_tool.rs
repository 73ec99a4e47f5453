//! The Bash tool (with TaskOutput and TaskStop) through the full pipeline and executor: timeouts and
//! aborts that leave no process behind, bounded memory for huge output, images, the persistent
//! working directory, background tasks, and the previewed `sed -i` flow.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::support::{ScriptedPrompter, TestProject, call, process_gone, read_pid, run_test_alone, text_of};
use async_trait::async_trait;
use nerve::executor::ExecutorOptions;
use nerve::permissions::{PermissionMode, PermissionPrompter, PermissionRequest, UserAnswer};
use nerve::pipeline::{CallOutcome, ToolCall};
use nerve::tool::PermissionPreview;
use nerve::tool::ResultBlock;
use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn bash(id: &str, input: Value) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "Bash".into(),
        input,
    }
}

fn sleeper(pidfile: &Path) -> String {
    format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display())
}

fn vm_hwm_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn the_three_tools_are_built_in() {
    let names: Vec<String> = nerve::registry::all_builtin_tools()
        .iter()
        .map(|t| t.name().to_string())
        .collect();
    for name in ["Bash", "TaskOutput", "TaskStop"] {
        assert!(names.contains(&name.to_string()), "{names:?}");
    }
}

#[tokio::test]
async fn exit_code_and_stderr_reach_the_model_as_an_error() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let out = s
        .run_one(&bash(
            "t1",
            json!({"command": "echo to-out; echo to-err >&2; exit 3"}),
        ))
        .await;
    assert!(out.is_error);
    // Two pipes: the order between them is the order of arrival, which the OS may swap.
    let text = text_of(&out.content);
    let mut lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.pop(), Some("Exit code 3"));
    lines.sort_unstable();
    assert_eq!(lines, vec!["to-err", "to-out"]);
}

#[tokio::test]
async fn read_only_commands_run_without_asking_in_default_mode() {
    let p = TestProject::new();
    p.write("hello.txt", "hi there\n");
    let s = p.builtin_session_asking(PermissionMode::Default, None, true);
    let out = s
        .run_one(&bash("t1", json!({"command": "cat hello.txt | grep hi"})))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(text_of(&out.content), "hi there");
    let denied = s.run_one(&bash("t2", json!({"command": "rm hello.txt"}))).await;
    assert!(denied.denied, "headless: a write is denied, not run");
    assert!(p.project_dir().join("hello.txt").exists());
}

/// A command whose process is killed from outside (`kill`, a logout, the OOM killer; here it kills
/// the process the engine waits on, the sandbox's helper or the shell) takes what it started with
/// it: nothing it left in the background outlives it, even when it no longer holds the call's
/// output open. A command that exits normally keeps its background children (its own business).
#[tokio::test]
async fn a_command_killed_from_outside_leaves_nothing_running() {
    let p = TestProject::new();
    // The command reads its group from /proc at run time, which is asked about: the user allows it.
    let prompter = ScriptedPrompter::new(vec![allow_once()]);
    let s = p.builtin_session_asking(PermissionMode::Default, Some(prompter), false);
    let pidfile = p.project_dir().join("pid");
    // The group's leader is the process the engine started (field 5 of /proc/self/stat is the
    // group). Nothing holds the call's output open afterwards, so the call ends at once.
    let command = format!(
        "sleep 297.77 > /dev/null 2>&1 & echo $! > {}; exec > /dev/null 2>&1; read -r _ _ _ _ leader _ < /proc/self/stat; kill -KILL \"$leader\"",
        pidfile.display()
    );
    let out = s.run_one(&bash("t1", json!({ "command": command }))).await;
    assert!(out.is_error, "{:?}", out.content);
    let pid = read_pid(&pidfile).await;
    assert!(process_gone(pid).await, "sleep {pid} outlived the killed command");
}

/// When the engine dies, the sandbox's helper kills what it started, and nothing else: the group it
/// leads, or, when it leads none (here: started by a shell that plays the engine, in that shell's
/// group), only its own program. A bystander in the engine's group (the shell or test runner that
/// started the engine) is left alone.
#[tokio::test]
async fn an_orphaned_helper_kills_its_program_and_never_its_engines_group() {
    let dir = tempfile::tempdir().unwrap();
    let script = r#"
        sleep 296.66 & echo $! > "$1/bystander"
        "$2" __nerve-sandbox-exec $$ - -- sh -c 'echo $$ > "$1/program"; exec sleep 296.67' program "$1" &
        while [ ! -s "$1/program" ]; do sleep 0.05; done
        kill -KILL $$
    "#;
    let status = tokio::process::Command::new("sh")
        .arg("-c")
        .arg(script)
        .arg("engine")
        .arg(dir.path())
        .arg(env!("CARGO_BIN_EXE_nerve-test-sandbox-helper"))
        // The engine leads a group of its own, so what the helper does to it stays in this test.
        .process_group(0)
        .status()
        .await
        .unwrap();
    assert_eq!(
        std::os::unix::process::ExitStatusExt::signal(&status),
        Some(9),
        "the engine was killed"
    );
    let program = read_pid(&dir.path().join("program")).await;
    let bystander = read_pid(&dir.path().join("bystander")).await;
    assert!(
        process_gone(program).await,
        "the helper's program {program} outlived the engine"
    );
    // The helper has acted by now (it kills, then exits): a bystander still running stays so.
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    let alive = std::fs::read_to_string(format!("/proc/{bystander}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|s| s.trim_start().starts_with('Z'))
    });
    let _ = nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(i32::try_from(bystander).unwrap()),
        nix::sys::signal::Signal::SIGKILL,
    );
    assert!(alive, "the helper killed {bystander}, in the engine's group");
}

#[tokio::test]
async fn a_timeout_kills_the_process_group() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let pidfile = p.project_dir().join("pid");
    let out = s
        .run_one(&bash("t1", json!({"command": sleeper(&pidfile), "timeout": 500})))
        .await;
    assert!(out.is_error);
    assert!(
        text_of(&out.content).contains("Command timed out after 500 ms"),
        "{:?}",
        out.content
    );
    let pid = read_pid(&pidfile).await;
    assert!(process_gone(pid).await, "sleep {pid} outlived the timeout");
}

#[tokio::test]
async fn an_abort_kills_the_process_group() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let pidfile = p.project_dir().join("pid");
    let cancel = s.context.exec.cancel.clone();
    let pf = pidfile.clone();
    tokio::spawn(async move {
        read_pid(&pf).await;
        cancel.cancel();
    });
    let out = s
        .run_one(&bash("t1", json!({"command": sleeper(&pidfile)})))
        .await;
    assert!(out.is_error);
    assert!(text_of(&out.content).contains("interrupted"), "{:?}", out.content);
    let pid = read_pid(&pidfile).await;
    assert!(process_gone(pid).await, "sleep {pid} outlived the abort");
}

/// Set in the process [`a_gigabyte_of_output_keeps_memory_bounded`] measures in.
const MEMORY_PROBE: &str = "NERVE_TEST_MEMORY_PROBE";

#[tokio::test]
async fn a_gigabyte_of_output_keeps_memory_bounded() {
    if std::env::var_os(MEMORY_PROBE).is_none() {
        // Peak RSS belongs to the whole process: measured here, it would count whatever the tests
        // running beside this one allocate. The test binary runs just this test in a process of
        // its own, named as the harness names it (its module path without the crate's name).
        let (_, module) = module_path!().split_once("::").unwrap();
        let name = format!("{module}::a_gigabyte_of_output_keeps_memory_bounded");
        let (passed, printed) = run_test_alone(&name, &[(MEMORY_PROBE, "1")]);
        println!("{printed}");
        assert!(passed, "the measuring process failed:\n{printed}");
        assert!(
            printed.contains("1 GB of output:"),
            "the test did not run: {printed}"
        );
        return;
    }
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let before = vm_hwm_kb();
    let start = Instant::now();
    let out = s
        .run_one(&bash(
            "big",
            json!({"command": "head -c 1000000000 /dev/zero | tr '\\0' 'x'; echo; echo THE-END"}),
        ))
        .await;
    let elapsed = start.elapsed();
    let after = vm_hwm_kb();
    assert!(!out.is_error, "{:?}", &text_of(&out.content)[..200]);
    let text = text_of(&out.content);
    assert!(text.len() < 30_000, "{}", text.len());
    assert!(text.starts_with("xxxxxxxx"));
    assert!(text.contains("bytes omitted] ..."));
    assert!(text.contains("THE-END\n\n<persisted-output>"), "the tail is kept");
    let path = text
        .split("Full output saved to: ")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(
        out.persisted_path.as_deref(),
        Some(std::path::Path::new(&path)),
        "the spooled file is listed as the persisted output, not persisted again"
    );
    let size = std::fs::metadata(&path).unwrap().len();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(size, 1_000_000_000 + "\nTHE-END\n".len() as u64);
    let growth_mb = (after.saturating_sub(before)) / 1024;
    println!(
        "1 GB of output: {elapsed:?}, peak RSS {} MB -> {} MB (growth {growth_mb} MB)",
        before / 1024,
        after / 1024
    );
    assert!(growth_mb < 100, "peak RSS grew by {growth_mb} MB");
}

#[tokio::test]
async fn a_failing_command_with_long_output_lists_its_saved_output() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let out = s
        .run_one(&bash(
            "fail",
            json!({"command": "seq 1 200000; echo 'test failed: expected 3' >&2; exit 101"}),
        ))
        .await;
    assert!(out.is_error);
    let text = text_of(&out.content);
    assert!(text.contains("test failed: expected 3"), "the tail stays inline");
    assert!(
        text.contains("Exit code 101"),
        "{}",
        &text[text.len().saturating_sub(300)..]
    );
    let saved = out.persisted_path.as_deref().expect("the whole output is listed");
    assert!(
        text.contains(&saved.display().to_string()),
        "the model is told where it is"
    );
    let whole = std::fs::read_to_string(saved).unwrap();
    assert!(whole.starts_with("1\n2\n3\n") && whole.contains("\n200000\n"));
    // <project data dir>/<session>/tool-results/
    let project_data = s.pipeline.store().results_dir().ancestors().nth(2).unwrap();
    let listed = nerve::budget::ResultStore::list(project_data).unwrap();
    assert!(
        listed.iter().any(|o| o.tool_use_id == "fail" && o.path == saved),
        "the session's output list has it: {listed:?}"
    );
}

#[tokio::test]
async fn png_on_stdout_becomes_an_image_block() {
    let p = TestProject::new();
    let mut png = Vec::new();
    image::RgbImage::new(3, 2)
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    std::fs::write(p.dir.path().join("project/plot.png"), &png).unwrap();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let out = s.run_one(&bash("img", json!({"command": "cat plot.png"}))).await;
    assert!(!out.is_error);
    match &out.content[..] {
        [ResultBlock::Image { media_type, data }] => {
            assert_eq!(media_type, "image/png");
            assert_eq!(
                data,
                &base64::Engine::encode(&base64::engine::general_purpose::STANDARD, &png)
            );
        }
        other => panic!("not an image: {other:?}"),
    }

    // A warning on stderr shares the output: the bytes are no longer one image, and the API would
    // refuse them as one.
    for command in [
        "cat plot.png; echo warning >&2",
        "printf '\\x89PNG\\r\\n\\x1a\\n\\0\\0\\0\\rIHDR'",
    ] {
        let out = s.run_one(&bash("img2", json!({"command": command}))).await;
        assert!(
            matches!(&out.content[..], [ResultBlock::Text { .. }]),
            "{command}: {:?}",
            out.content
        );
    }
}

async fn run_turn(s: &nerve::project::SessionRuntime, calls: Vec<ToolCall>) -> Vec<CallOutcome> {
    let exec = s.executor(CancellationToken::new(), ExecutorOptions::default());
    for c in calls {
        exec.add(c);
    }
    exec.finish().await.0
}

#[tokio::test]
async fn a_cd_inside_the_project_carries_over_and_one_outside_is_refused() {
    let p = TestProject::new();
    std::fs::create_dir_all(p.project_dir().join("sub/deeper")).unwrap();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let out = run_turn(
        &s,
        vec![
            bash("a", json!({"command": "cd sub"})),
            bash("b", json!({"command": "pwd"})),
            bash("c", json!({"command": "cd / && pwd"})),
            bash("d", json!({"command": "pwd"})),
        ],
    )
    .await;
    let sub = p.project_dir().join("sub").display().to_string();
    assert_eq!(text_of(&out[1].content), sub);
    let refused = text_of(&out[2].content);
    assert!(
        refused.starts_with(&format!("/\nShell cwd was reset to {sub}")),
        "{refused}"
    );
    assert_eq!(text_of(&out[3].content), sub);
}

#[tokio::test]
async fn a_failing_bash_call_cancels_its_parallel_siblings() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    // Only read-only commands share a batch; a long `sleep` stands in for a slow read (`tail -f`
    // never ends by itself, so it is not read-only and would run alone).
    let out = run_turn(
        &s,
        vec![
            bash("slow1", json!({"command": "sleep 600"})),
            bash("fail", json!({"command": "ls /definitely/not/here"})),
            bash("slow2", json!({"command": "sleep 600"})),
        ],
    )
    .await;
    assert!(out[1].is_error);
    for o in [&out[0], &out[2]] {
        assert!(o.is_error, "{:?}", o.content);
        assert!(
            text_of(&o.content).contains("parallel tool call"),
            "{}",
            text_of(&o.content)
        );
    }
}

#[tokio::test]
async fn background_task_output_and_stop() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let out = s
        .run_one(&bash(
            "bg",
            json!({"command": "echo started; sleep 0.3; echo finished; exit 4", "run_in_background": true}),
        ))
        .await;
    assert!(
        text_of(&out.content).starts_with("Command running in background with ID: bash_1."),
        "{:?}",
        out.content
    );
    let waited = s
        .run_one(&call("o1", "TaskOutput", json!({"task_id": "bash_1"})))
        .await;
    assert!(!waited.is_error, "{:?}", waited.content);
    let text = text_of(&waited.content);
    assert!(text.contains("failed (exit code 4)"), "{text}");
    assert!(text.contains("started\nfinished"), "{text}");

    let pidfile = p.project_dir().join("pid");
    s.run_one(&bash(
        "bg2",
        json!({"command": sleeper(&pidfile), "run_in_background": true}),
    ))
    .await;
    let pid = read_pid(&pidfile).await;
    let now = s
        .run_one(&call(
            "o2",
            "TaskOutput",
            json!({"task_id": "bash_2", "block": false}),
        ))
        .await;
    assert!(text_of(&now.content).contains("running"), "{:?}", now.content);
    let stopped = s
        .run_one(&call("s", "TaskStop", json!({"task_id": "bash_2"})))
        .await;
    assert!(
        text_of(&stopped.content).contains("killed"),
        "{:?}",
        stopped.content
    );
    assert!(process_gone(pid).await);

    let unknown = s
        .run_one(&call("u", "TaskStop", json!({"task_id": "bash_9"})))
        .await;
    assert!(unknown.is_error);
    assert!(
        text_of(&unknown.content).contains("bash_1, bash_2"),
        "{:?}",
        unknown.content
    );
    assert_eq!(
        nerve::tools::bash::BackgroundTasks::of(&s.context).list().len(),
        2
    );
}

#[tokio::test]
async fn background_tasks_die_with_the_session() {
    let p = TestProject::new();
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let pidfile = p.project_dir().join("pid");
    s.run_one(&bash(
        "bg",
        json!({"command": sleeper(&pidfile), "run_in_background": true}),
    ))
    .await;
    let pid = read_pid(&pidfile).await;
    drop(s);
    assert!(process_gone(pid).await, "sleep {pid} outlived its session");
}

fn allow_once() -> UserAnswer {
    UserAnswer::AllowOnce { updated_input: None }
}

#[tokio::test]
async fn an_approved_sed_edit_writes_exactly_the_preview() {
    let p = TestProject::new();
    let file = p.write("src/lib.txt", "alpha\nbeta\ngamma\n");
    let prompter = ScriptedPrompter::new(vec![allow_once()]);
    let s = p.builtin_session_asking(PermissionMode::Default, Some(prompter.clone()), false);
    let out = s
        .run_one(&bash(
            "sed",
            json!({"command": "sed -i -e 's/beta/BETA/' src/lib.txt"}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert!(text_of(&out.content).contains("Applied the sed edit the user approved"));
    let asked = prompter.asked();
    let Some(PermissionPreview::SedEdit { files }) = asked[0].preview.clone() else {
        panic!("a sed preview: {:?}", asked[0].preview);
    };
    let shown = &files[0];
    assert_eq!(shown.path, file.display().to_string());
    assert!(shown.diff.contains("-beta\n+BETA\n"));
    assert!(
        asked[0].input.get("_simulatedSedEdit").is_none(),
        "the request shows the model's input"
    );
    let written = std::fs::read(&file).unwrap();
    assert_eq!(written, b"alpha\nBETA\ngamma\n");
    assert_eq!(shown.new_sha256, sha256_hex(&written));
}

/// Approves, but changes the file first: the approved diff no longer applies.
struct ChangeThenApprove {
    file: std::path::PathBuf,
    asked: Mutex<Vec<PermissionRequest>>,
}

#[async_trait]
impl PermissionPrompter for ChangeThenApprove {
    async fn ask(&self, request: PermissionRequest) -> UserAnswer {
        self.asked.lock().unwrap().push(request);
        std::fs::write(&self.file, "changed meanwhile\n").unwrap();
        allow_once()
    }
}

#[tokio::test]
async fn a_file_changed_after_the_preview_is_not_written() {
    let p = TestProject::new();
    let file = p.write("a.txt", "old\n");
    let prompter = Arc::new(ChangeThenApprove {
        file: file.clone(),
        asked: Mutex::new(Vec::new()),
    });
    let s = p.builtin_session_asking(PermissionMode::Default, Some(prompter.clone()), false);
    let out = s
        .run_one(&bash("sed", json!({"command": "sed -i s/old/new/ a.txt"})))
        .await;
    assert!(out.is_error);
    assert!(
        text_of(&out.content).contains("changed after the edit was previewed"),
        "{:?}",
        out.content
    );
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "changed meanwhile\n");
    assert_eq!(prompter.asked.lock().unwrap().len(), 1);
}

fn forged_edit(file: &Path, old: &str) -> Value {
    json!({
        "command": format!("sed -i s/a/b/ {}", file.display()),
        "files": [{"path": file, "old_sha256": sha256_hex(old.as_bytes()), "new_content": "FORGED\n"}]
    })
}

#[tokio::test]
async fn a_model_provided_simulated_edit_is_stripped_and_the_command_really_runs() {
    let p = TestProject::new();
    let file = p.write("f.txt", "a\n");
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let command = format!("sed -i s/a/b/ {}", file.display());
    let out = s
        .run_one(&bash(
            "forged",
            json!({"command": command, "_simulatedSedEdit": forged_edit(&file, "a\n")}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "b\n",
        "sed ran; the forged content was ignored"
    );
}

#[tokio::test]
async fn a_forged_edit_is_replaced_by_a_fresh_preview_when_asking() {
    let p = TestProject::new();
    let file = p.write("f.txt", "a\n");
    let prompter = ScriptedPrompter::new(vec![allow_once()]);
    let s = p.builtin_session_asking(PermissionMode::Default, Some(prompter.clone()), false);
    let command = format!("sed -i s/a/b/ {}", file.display());
    let out = s
        .run_one(&bash(
            "forged",
            json!({"command": command, "_simulatedSedEdit": forged_edit(&file, "a\n")}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    let asked = prompter.asked();
    let Some(PermissionPreview::SedEdit { files }) = asked[0].preview.clone() else {
        panic!("a sed preview: {:?}", asked[0].preview);
    };
    assert!(files[0].diff.contains("+b\n"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "b\n");
}

#[tokio::test]
async fn a_user_edited_command_runs_without_the_stale_preview() {
    let p = TestProject::new();
    let file = p.write("f.txt", "a\n");
    let edited = format!("sed -i s/a/c/ {}", file.display());
    let prompter = ScriptedPrompter::new(vec![UserAnswer::AllowOnce {
        updated_input: Some(json!({
            "command": edited,
            // An answer cannot smuggle an edit in either.
            "_simulatedSedEdit": forged_edit(&file, "a\n"),
        })),
    }]);
    let s = p.builtin_session_asking(PermissionMode::Default, Some(prompter.clone()), false);
    let out = s
        .run_one(&bash(
            "sed",
            json!({"command": format!("sed -i s/a/b/ {}", file.display())}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap(),
        "c\n",
        "the user's command ran"
    );
}

fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes).iter().map(|b| format!("{b:02x}")).collect()
}

#[tokio::test]
async fn task_tools_work_in_default_mode_without_prompts() {
    let p = TestProject::new();
    p.write("data.txt", "payload\n");
    let s = p.builtin_session_asking(PermissionMode::Default, None, true);
    // A read-only command may start in the background without asking.
    let started = s
        .run_one(&bash(
            "bg",
            json!({"command": "cat data.txt", "run_in_background": true}),
        ))
        .await;
    assert!(!started.is_error, "{:?}", started.content);
    let out = s
        .run_one(&call(
            "o",
            "TaskOutput",
            json!({"task_id": "bash_1", "timeout": 5000}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert!(
        text_of(&out.content).ends_with("completed (exit code 0)\n\npayload"),
        "{:?}",
        out.content
    );
    let stop = s
        .run_one(&call("s", "TaskStop", json!({"task_id": "bash_1"})))
        .await;
    assert!(!stop.is_error && !stop.denied, "{:?}", stop.content);
}

/// Whether this kernel sandboxes; when it does not, says so loudly (the tests then check the
/// fallback: every command asks before it runs unsandboxed).
fn sandbox_available() -> bool {
    crate::support::sandbox_available(
        "checking the fallback (commands ask before running unsandboxed) instead",
    )
}

#[tokio::test]
async fn a_sandboxed_command_writes_only_its_folders_reads_no_secrets_and_has_no_network() {
    let p = TestProject::new();
    p.write("src/lib.rs", "pub fn answer() -> u32 { 42 }\n");
    let secret = p.home().join(".ssh/id_rsa");
    std::fs::create_dir_all(secret.parent().unwrap()).unwrap();
    std::fs::write(&secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n").unwrap();
    let outside = p.home().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, p.project_dir().join("escape")).unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    // Everything is allowed by the permission system: only the sandbox stands in the way.
    let s = p.builtin_session_asking(PermissionMode::BypassPermissions, None, true);
    let run = |id: &'static str, command: String| {
        let s = &s;
        async move { s.run_one(&bash(id, json!({"command": command}))).await }
    };

    if !sandbox_available() {
        let out = run("t0", "echo hi".into()).await;
        assert!(out.denied, "headless: asking is refusing; {:?}", out.content);
        assert!(
            text_of(&out.content).contains("runs without the sandbox"),
            "{:?}",
            out.content
        );
        return;
    }

    // Inside the project and the session's temp folder: fine.
    let ok = run("t1", "echo made > made.txt && cat made.txt src/lib.rs".into()).await;
    assert!(!ok.is_error, "{:?}", ok.content);
    assert_eq!(text_of(&ok.content), "made\npub fn answer() -> u32 { 42 }");
    let tmpdir = text_of(&run("t2", "printenv TMPDIR".into()).await.content);
    assert!(
        tmpdir.contains("nerve-"),
        "the session's own temp folder: {tmpdir}"
    );
    let tmp = run("t2b", format!("echo scratch > {tmpdir}/t && cat {tmpdir}/t")).await;
    assert_eq!(
        (tmp.is_error, text_of(&tmp.content)),
        (false, "scratch".to_string())
    );

    // Outside: refused by the kernel.
    let written = run("t3", format!("echo x > {}/planted", outside.display())).await;
    assert!(
        written.is_error && text_of(&written.content).contains("Permission denied"),
        "{:?}",
        written.content
    );
    let escaped = run("t4", "echo x > escape/planted".into()).await;
    assert!(
        escaped.is_error && text_of(&escaped.content).contains("Permission denied"),
        "{:?}",
        escaped.content
    );
    assert!(
        !outside.join("planted").exists(),
        "nothing was written outside the project"
    );
    let key = run("t5", format!("cat {}", secret.display())).await;
    assert!(
        key.is_error && text_of(&key.content).contains("Permission denied"),
        "{:?}",
        key.content
    );
    assert!(!text_of(&key.content).contains("PRIVATE KEY"));
    let tcp = run(
        "t6",
        format!("bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port}' && echo connected"),
    )
    .await;
    assert!(
        tcp.is_error && !text_of(&tcp.content).contains("connected"),
        "{:?}",
        tcp.content
    );
    assert!(
        listener.accept().is_err(),
        "no connection reached the loopback server"
    );
}

#[tokio::test]
async fn running_outside_the_sandbox_always_asks_and_says_why() {
    let p = TestProject::new();
    let outside = p.home().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let prompter = ScriptedPrompter::new(vec![
        UserAnswer::Deny { message: None },
        UserAnswer::AllowOnce { updated_input: None },
    ]);
    // Even in bypass mode with a rule allowing the command.
    let mut o = p.options();
    o.mode = Some(PermissionMode::BypassPermissions);
    o.cli_rules = vec![(nerve::permissions::RuleBehavior::Allow, "Bash(echo:*)".into())];
    let s = p.builtin_session_opened(o, Some(prompter.clone()));
    let command = format!("echo x > {}/planted", outside.display());
    let input = json!({"command": command, "dangerouslyDisableSandbox": true});
    let refused = s.run_one(&bash("t1", input.clone())).await;
    assert!(refused.denied, "{:?}", refused.content);
    let allowed = s.run_one(&bash("t2", input)).await;
    assert!(!allowed.is_error, "{:?}", allowed.content);
    assert!(outside.join("planted").exists(), "approved, it ran unsandboxed");
    let asked = prompter.asked();
    assert_eq!(asked.len(), 2);
    assert!(
        asked[0].reason.contains("runs without the sandbox"),
        "{}",
        asked[0].reason
    );
    assert!(
        matches!(&asked[0].sandbox, Some(nerve::sandbox::SandboxState::Unsandboxed { needs_approval: true, reason }) if reason.contains("dangerouslyDisableSandbox")),
        "{:?}",
        asked[0].sandbox
    );
}

#[tokio::test]
async fn auto_allow_in_the_sandbox_is_the_users_choice_not_the_projects() {
    if !sandbox_available() {
        return;
    }
    let p = TestProject::new();
    let settings = |path: &Path| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, r#"{"sandbox": {"autoAllowBashIfSandboxed": true}}"#).unwrap();
    };
    // The committed project settings cannot turn it on: a write still asks (headless: refused).
    settings(&p.project_dir().join(".nerve/settings.json"));
    let s = p.builtin_session_asking(PermissionMode::Default, None, true);
    let out = s.run_one(&bash("t1", json!({"command": "touch made.txt"}))).await;
    assert!(out.denied, "{:?}", out.content);
    // The user's own local settings can: the sandboxed write runs without asking.
    settings(&p.project_dir().join(".nerve/settings.local.json"));
    let s = p.builtin_session_asking(PermissionMode::Default, None, true);
    let out = s.run_one(&bash("t2", json!({"command": "touch made.txt"}))).await;
    assert!(!out.is_error && !out.denied, "{:?}", out.content);
    assert!(p.project_dir().join("made.txt").exists());
    // A deny rule still wins.
    let s = p.builtin_session(
        PermissionMode::Default,
        &[(nerve::permissions::RuleBehavior::Deny, "Bash(touch:*)")],
    );
    let out = s
        .run_one(&bash("t3", json!({"command": "touch other.txt"})))
        .await;
    assert!(out.denied, "{:?}", out.content);
}

/// What the model reads back from Bash: output, silence, failures with their exit code, a command
/// the rules refuse, a timeout and a background start.
#[tokio::test]
async fn bash_results_read_as_the_model_reads_them() {
    let p = TestProject::new();
    p.write("hello.txt", "hi there\n");
    let s = p.builtin_session_asking(PermissionMode::Default, None, true);
    let calls = [
        json!({"command": "cat hello.txt"}),
        json!({"command": "true"}),
        json!({"command": "ls missing-file"}),
        json!({"command": "grep -c nothing hello.txt"}),
        json!({"command": "rm hello.txt"}),
        json!({"command": "sleep 5", "timeout": 200}),
        json!({"command": "sleep 30", "run_in_background": true}),
        json!({"command": ""}),
    ];
    let root = p.dir.path().display().to_string();
    // A background task's output file is under the session's folder, new each run.
    let session_dir = regex::Regex::new(r"data/projects/[^/]+/[0-9a-f-]{36}/").unwrap();
    let uuid = regex::Regex::new(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}").unwrap();
    let mut shown = Vec::new();
    for (i, input) in calls.into_iter().enumerate() {
        let out = s.run_one(&bash(&format!("t{i}"), input.clone())).await;
        let mark = if out.is_error { "error" } else { "ok" };
        let text = text_of(&out.content).replace(&root, "<project>");
        let text = session_dir.replace_all(&text, "data/projects/<project key>/<session>/");
        let text = uuid.replace_all(&text, "<uuid>");
        shown.push(format!("== Bash {input} ({mark})\n{text}"));
    }
    insta::assert_snapshot!(shown.join("\n"));
}

/// Set in the process that checks what its user processes see: the host's value of two
/// variables, which the test then tells the engine the user had otherwise.
const HOST_ENV_PROBE: &str = "NERVE_TEST_HOST_ENV_PROBE";

/// The desktop app changes its own environment for its web view's processes (glibc's allocator);
/// the user's commands and hooks still get the user's environment: a variable the user had not set
/// is absent, one they had keeps their value.
#[tokio::test]
async fn variables_the_host_set_for_itself_do_not_reach_commands_or_hooks() {
    if std::env::var_os(HOST_ENV_PROBE).is_none() {
        // What the engine is told is process-wide (once per process): this runs in a process of its
        // own, started with the host's values, as the app is after it set them.
        let (_, module) = module_path!().split_once("::").unwrap();
        let name = format!("{module}::variables_the_host_set_for_itself_do_not_reach_commands_or_hooks");
        let (passed, printed) = run_test_alone(
            &name,
            &[
                (HOST_ENV_PROBE, "1"),
                ("NERVE_TEST_HOST_ONLY", "host's"),
                ("NERVE_TEST_HOST_CHANGED", "host's"),
            ],
        );
        assert!(passed, "the probing process failed:\n{printed}");
        return;
    }
    assert!(nerve::child_env::keep_user_values(vec![
        ("NERVE_TEST_HOST_ONLY".into(), None),
        ("NERVE_TEST_HOST_CHANGED".into(), Some("user's".into())),
    ]));
    let p = TestProject::new();
    let seen_by_hook = p.project_dir().join("hook-env.txt");
    let hook = p.script(
        "env.sh",
        &format!(
            "cat > /dev/null; echo \"[${{NERVE_TEST_HOST_ONLY-unset}}] [$NERVE_TEST_HOST_CHANGED]\" > '{}'",
            seen_by_hook.display()
        ),
    );
    p.write(
        ".nerve/settings.json",
        &json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": hook}]}]}})
            .to_string(),
    );
    let s = p.builtin_session(PermissionMode::BypassPermissions, &[]);
    let out = s
        .run_one(&bash(
            "env",
            json!({"command": "echo \"[${NERVE_TEST_HOST_ONLY-unset}] [$NERVE_TEST_HOST_CHANGED]\""}),
        ))
        .await;
    assert!(!out.is_error, "{}", text_of(&out.content));
    assert_eq!(text_of(&out.content).trim(), "[unset] [user's]");
    assert_eq!(
        std::fs::read_to_string(&seen_by_hook).unwrap().trim(),
        "[unset] [user's]"
    );
    // The host's own environment is as it set it.
    assert_eq!(std::env::var("NERVE_TEST_HOST_ONLY").unwrap(), "host's");
}
