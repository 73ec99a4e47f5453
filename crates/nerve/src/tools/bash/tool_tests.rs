//! Behaviour of the Bash tool called directly (the pipeline's part is in `tests/suite/bash_tool.rs`).

#![allow(clippy::unwrap_used, clippy::panic)]

use std::time::Duration;

use pretty_assertions::assert_eq;

use crate::tool::{ProgressSink, ResultBlock, Tool, ToolError, ToolOutput, ToolUseContext};
use crate::tools::bash::test_util::{context, process_gone, read_pid, text};
use crate::tools::bash::{BashInput, BashTool};

fn input(command: &str) -> BashInput {
    BashInput {
        command: command.into(),
        timeout: None,
        description: None,
        run_in_background: None,
        dangerously_disable_sandbox: None,
        simulated_sed_edit: None,
    }
}

async fn run(ctx: &ToolUseContext, input: BashInput) -> Result<ToolOutput, ToolError> {
    BashTool.call(input, ctx, &ProgressSink::discard("t")).await
}

fn error_text(result: Result<ToolOutput, ToolError>) -> String {
    match result {
        Err(ToolError::WithContent(blocks) | ToolError::WithSavedOutput { content: blocks, .. }) => {
            text(&blocks)
        }
        other => panic!("expected an error with content, got {other:?}"),
    }
}

struct Fixture {
    _dir: tempfile::TempDir,
    ctx: ToolUseContext,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project/sub")).unwrap();
    let ctx = context(&dir.path().join("project"), &dir.path().join("data"));
    Fixture { _dir: dir, ctx }
}

#[tokio::test]
async fn stdout_and_stderr_are_returned() {
    let f = fixture();
    let out = run(&f.ctx, input("echo out; echo err >&2")).await.unwrap();
    let t = text(&out.content);
    assert!(t.contains("out") && t.contains("err"), "{t}");
    assert!(out.context_modifier.is_none(), "no cd, no context change");
}

#[tokio::test]
async fn coloured_output_reaches_the_model_plain_and_the_user_in_colour() {
    let f = fixture();
    let command = r"printf '\033[1m\033[32mok\033[0m 1/2\r\033[Kok 2/2\n\033[31merror\033[0m: it broke\n'";
    let out = run(&f.ctx, input(command)).await.unwrap();
    assert_eq!(text(&out.content), "ok 2/2\nerror: it broke");
    assert_eq!(
        out.display,
        Some(serde_json::json!({
            "terminal": "\u{1b}[Kok 2/2\n\u{1b}[31merror\u{1b}[0m: it broke"
        }))
    );
    // Failing, it keeps its colours for the user too.
    let failed = run(&f.ctx, input(&format!("{command}; exit 1"))).await;
    match failed {
        Err(ToolError::WithSavedOutput { content, display, .. }) => {
            assert_eq!(text(&content), "ok 2/2\nerror: it broke\nExit code 1");
            assert!(display.is_some_and(|d| d["terminal"].as_str().unwrap().contains("\u{1b}[31m")));
        }
        other => panic!("expected an error with its display, got {other:?}"),
    }
    // Plain output has no display.
    assert_eq!(run(&f.ctx, input("echo plain")).await.unwrap().display, None);
}

#[tokio::test]
async fn a_non_zero_exit_is_an_error_that_states_the_code() {
    let f = fixture();
    let t = error_text(run(&f.ctx, input("echo failing >&2; exit 2")).await);
    assert_eq!(t, "failing\nExit code 2");
}

#[tokio::test]
async fn timeout_kills_the_whole_group() {
    let f = fixture();
    let pidfile = f.ctx.exec.cwd.join("pid");
    let mut i = input(&format!(
        "sleep 1000 & echo $! > '{}'; echo started; wait",
        pidfile.display()
    ));
    i.timeout = Some(500);
    let t = error_text(run(&f.ctx, i).await);
    assert!(t.starts_with("started"), "output so far is kept: {t}");
    assert!(t.ends_with("Command timed out after 500 ms"), "{t}");
    let pid = read_pid(&pidfile).await;
    assert!(
        process_gone(pid, Duration::from_secs(3)).await,
        "sleep {pid} survived"
    );
}

#[tokio::test]
async fn abort_kills_the_whole_group() {
    let f = fixture();
    let pidfile = f.ctx.exec.cwd.join("pid");
    let cancel = f.ctx.exec.cancel.clone();
    let pf = pidfile.clone();
    tokio::spawn(async move {
        read_pid(&pf).await;
        cancel.cancel();
    });
    let t = error_text(
        run(
            &f.ctx,
            input(&format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display())),
        )
        .await,
    );
    assert!(t.ends_with("Command was interrupted"), "{t}");
    let pid = read_pid(&pidfile).await;
    assert!(
        process_gone(pid, Duration::from_secs(3)).await,
        "sleep {pid} survived"
    );
}

#[tokio::test]
async fn dropping_the_call_kills_the_group() {
    let f = fixture();
    let pidfile = f.ctx.exec.cwd.join("pid");
    let cmd = format!("sleep 1000 & echo $! > '{}'; wait", pidfile.display());
    let ctx = f.ctx.clone();
    let call = tokio::spawn(async move { run(&ctx, input(&cmd)).await.map(|_| ()) });
    let pid = read_pid(&pidfile).await;
    call.abort();
    assert!(
        process_gone(pid, Duration::from_secs(4)).await,
        "sleep {pid} survived"
    );
}

#[tokio::test]
async fn background_children_holding_the_output_are_stopped() {
    let f = fixture();
    let pidfile = f.ctx.exec.cwd.join("pid");
    let out = run(
        &f.ctx,
        input(&format!(
            "sleep 1000 & echo $! > '{}'; echo hi",
            pidfile.display()
        )),
    )
    .await
    .unwrap();
    let t = text(&out.content);
    assert!(
        t.starts_with("hi\nThe command left processes running in the background"),
        "{t}"
    );
    let pid = read_pid(&pidfile).await;
    assert!(
        process_gone(pid, Duration::from_secs(4)).await,
        "sleep {pid} survived"
    );
}

#[tokio::test]
async fn background_children_with_redirected_output_keep_running() {
    let f = fixture();
    let pidfile = f.ctx.exec.cwd.join("pid");
    let out = run(
        &f.ctx,
        input(&format!(
            "sleep 1000 > /dev/null 2>&1 & echo $! > '{}'; echo hi",
            pidfile.display()
        )),
    )
    .await
    .unwrap();
    assert_eq!(text(&out.content), "hi");
    let pid = read_pid(&pidfile).await;
    assert!(
        !process_gone(pid, Duration::from_millis(300)).await,
        "the detached child was killed"
    );
    let _ = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .status();
    assert!(process_gone(pid, Duration::from_secs(4)).await);
}

#[tokio::test]
async fn cd_inside_the_project_moves_the_cwd() {
    let f = fixture();
    let out = run(&f.ctx, input("cd sub && pwd")).await.unwrap();
    let next = out.context_modifier.unwrap().apply(f.ctx.clone());
    assert_eq!(next.exec.cwd, f.ctx.exec.cwd.join("sub"));
    let out = run(&next, input("pwd")).await.unwrap();
    assert_eq!(
        text(&out.content),
        f.ctx.exec.cwd.join("sub").display().to_string()
    );
}

#[tokio::test]
async fn cd_outside_the_project_is_refused() {
    let f = fixture();
    let out = run(&f.ctx, input("cd / && echo moved")).await.unwrap();
    let t = text(&out.content);
    assert!(t.starts_with("moved\nShell cwd was reset to "), "{t}");
    assert!(out.context_modifier.is_none());
}

#[tokio::test]
async fn a_deleted_cwd_falls_back_to_the_project() {
    let f = fixture();
    let mut ctx = f.ctx.clone();
    ctx.exec.cwd = ctx.exec.cwd.join("gone");
    let out = run(&ctx, input("pwd")).await.unwrap();
    let t = text(&out.content);
    assert!(t.contains("no longer exists"), "{t}");
    let next = out.context_modifier.unwrap().apply(ctx);
    assert_eq!(next.exec.cwd, f.ctx.exec.cwd);
}

/// A PNG of noise (it does not compress, so its size follows its pixel count).
fn noise_png(width: u32, height: u32) -> Vec<u8> {
    let mut state = 0x2545_f491_u32;
    let image = image::RgbImage::from_fn(width, height, |_, _| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        let [r, g, b, _] = state.to_le_bytes();
        image::Rgb([r, g, b])
    });
    let mut bytes = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut bytes), image::ImageFormat::Png)
        .unwrap();
    bytes
}

#[tokio::test]
async fn png_output_becomes_an_image() {
    let f = fixture();
    let png = noise_png(4, 4);
    std::fs::write(f.ctx.exec.cwd.join("dot.png"), &png).unwrap();
    let out = run(&f.ctx, input("cat dot.png")).await.unwrap();
    match &out.content[..] {
        [ResultBlock::Image { media_type, data }] => {
            assert_eq!(media_type, "image/png");
            use base64::Engine;
            assert_eq!(
                base64::engine::general_purpose::STANDARD.decode(data).unwrap(),
                png
            );
        }
        other => panic!("not an image: {other:?}"),
    }
}

#[tokio::test]
async fn an_image_too_large_to_inline_is_saved_and_named() {
    let f = fixture();
    let png = noise_png(200, 200);
    std::fs::write(f.ctx.exec.cwd.join("big.png"), &png).unwrap();
    let out = run(&f.ctx, input("cat big.png")).await.unwrap();
    let t = text(&out.content);
    let said = format!("The command printed an image (image/png, {} bytes)", png.len());
    assert!(t.starts_with(&said), "{t}");
    let path = t.split("saved to: ").nth(1).unwrap();
    assert_eq!(std::fs::read(path).unwrap(), png);
}

#[tokio::test]
async fn long_output_is_cut_to_head_and_tail_with_the_file() {
    let f = fixture();
    let out = run(&f.ctx, input("seq 1 100000")).await.unwrap();
    let t = text(&out.content);
    assert!(t.starts_with("1\n2\n3\n"), "{}", &t[..20]);
    assert!(t.contains("bytes omitted] ..."), "marker");
    let tail_at = t.find("\n\n<persisted-output>").unwrap();
    assert!(t[..tail_at].ends_with("99999\n100000"));
    assert!(t.len() < 30_000, "{}", t.len());
    let path = t
        .split("Full output saved to: ")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap();
    let full = std::fs::read_to_string(path).unwrap();
    assert_eq!(full.lines().count(), 100_000);
}

#[tokio::test]
async fn short_output_leaves_no_file_behind() {
    let f = fixture();
    run(&f.ctx, input("echo hi")).await.unwrap();
    let left: Vec<_> = std::fs::read_dir(&f.ctx.config.tool_results_dir)
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test]
async fn progress_streams_the_output_as_written() {
    use crate::tool::Progress;
    use std::sync::{Arc, Mutex};
    let f = fixture();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let inner = Arc::clone(&seen);
    let sink = ProgressSink::new("t", Arc::new(move |_: &str, p| inner.lock().unwrap().push(p)));
    BashTool
        .call(input("echo one; sleep 0.3; echo two >&2"), &f.ctx, &sink)
        .await
        .unwrap();
    assert_eq!(
        *seen.lock().unwrap(),
        vec![
            Progress::Output { text: "one\n".into() },
            Progress::Output { text: "two\n".into() }
        ]
    );
}

#[tokio::test]
async fn stdout_and_stderr_keep_the_order_they_were_written_in() {
    let f = fixture();
    // Far more stdout than a pipe holds, then the line that matters on stderr, many times over:
    // with one pipe per stream the reader could take the stderr line first.
    let script = "for i in $(seq 1 20); do seq 1 20000; echo \"failure $i\" >&2; done";
    let out = run(&f.ctx, input(script)).await.unwrap();
    let saved = out.saved_output.as_deref().expect("the long output is saved");
    let whole = std::fs::read_to_string(saved).unwrap();
    let lines: Vec<&str> = whole.lines().collect();
    for i in 1..=20 {
        let at = lines.iter().position(|l| *l == format!("failure {i}")).unwrap();
        assert_eq!(lines[at - 1], "20000", "failure {i} follows its stdout");
    }
    assert!(
        text(&out.content).contains("20000\nfailure 20\n"),
        "the tail the model sees"
    );
}

#[tokio::test]
async fn background_start_returns_an_id_while_the_command_still_runs() {
    let f = fixture();
    let mut i = input("echo begun; sleep 1000");
    i.run_in_background = Some(true);
    let out = run(&f.ctx, i).await.unwrap();
    assert!(text(&out.content).starts_with("Command running in background with ID: bash_1."));
    let tasks = &crate::tools::bash::BackgroundTasks::of(&f.ctx);
    assert_eq!(
        tasks.get("bash_1").unwrap().status,
        crate::tools::bash::TaskStatus::Running
    );
    let path = tasks.get("bash_1").unwrap().output_path;
    while std::fs::read_to_string(&path).unwrap() != "begun\n" {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let info = tasks.stop("bash_1").await.unwrap();
    assert_eq!(info.status, crate::tools::bash::TaskStatus::Killed);
    assert_eq!(std::fs::read_to_string(info.output_path).unwrap(), "begun\n");
}

#[tokio::test]
async fn validation() {
    let f = fixture();
    assert!(BashTool.validate_input(&input("  "), &f.ctx).await.is_err());
    let mut i = input("ls");
    i.timeout = Some(600_001);
    assert!(
        BashTool
            .validate_input(&i, &f.ctx)
            .await
            .unwrap_err()
            .contains("600000")
    );
    i.timeout = Some(0);
    assert!(BashTool.validate_input(&i, &f.ctx).await.is_err());
    i.timeout = Some(600_000);
    assert_eq!(BashTool.validate_input(&i, &f.ctx).await, Ok(()));
}

#[test]
fn safety_follows_the_command() {
    assert!(BashTool.is_read_only(&input("ls -la && git status")));
    assert!(BashTool.is_concurrency_safe(&input("cat a | grep b")));
    assert!(!BashTool.is_read_only(&input("rm -rf build")));
    assert!(!BashTool.is_concurrency_safe(&input("echo x > f")));
}

#[test]
fn summary_is_the_first_line_shortened() {
    assert_eq!(
        BashTool.summary(&input("ls -la"), std::path::Path::new("/")),
        "ls -la"
    );
    assert_eq!(
        BashTool.summary(&input("make\nmake test"), std::path::Path::new("/")),
        "make…"
    );
    let long = "x".repeat(150);
    assert_eq!(
        BashTool
            .summary(&input(&long), std::path::Path::new("/"))
            .chars()
            .count(),
        101
    );
    assert_eq!(BashTool.classifier_input(&input("git push")), "git push");
}
