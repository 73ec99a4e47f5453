//! Running one command in the foreground: spawn, stream, stop on timeout or abort, and turn what
//! happened into the model's result.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::process_group::kill_group_in_background;
use crate::tool::{ContextModifier, ProgressSink, ResultBlock, ToolError, ToolOutput, ToolUseContext};
use crate::tools::bash::cwd::{CwdChange, judge_cwd, refused_note, tracking_script};
use crate::tools::bash::image::{IMAGE_MAX_BYTES, ends_like, image_block, image_media_type, is_whole_image};
use crate::tools::bash::process::{spawn_bash, terminate_group};
use crate::tools::bash::render::{Ending, render_output, render_result};
use crate::tools::bash::sandbox_notes;
use crate::tools::bash::spool::Spool;
use crate::tools::bash::stream::pump;
use nerve_protocol::tool::CommandDisplay;

/// How long output may keep coming after the shell exited (a background `&` child holding the
/// pipes); after that the group is stopped and the result returned.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// Where command output files go: the session's tool-results folder, or the temp dir if that cannot
/// be created.
pub(crate) fn output_dir(ctx: &ToolUseContext) -> PathBuf {
    let dir = ctx.config.tool_results_dir.clone();
    match std::fs::create_dir_all(&dir) {
        Ok(()) => dir,
        Err(e) => {
            tracing::warn!(error_kind = ?e.kind(), "tool results folder unavailable; spooling command output to the temp dir");
            std::env::temp_dir().join("nerve-bash-output")
        }
    }
}

/// How to run a command of this session through the sandbox helper: sandboxed when `sandboxed`
/// and the session sandboxes commands, else only supervised (so it dies with the engine). `None`
/// when the session has no sandbox setup or no working helper: the command then runs directly.
/// `extra_writable` are files the engine has the command write.
pub(crate) fn sandbox_launch(
    ctx: &ToolUseContext,
    command: &str,
    sandboxed: bool,
    extra_writable: &[PathBuf],
) -> Option<crate::tools::bash::process::SandboxLaunch> {
    let sandbox = ctx.config.sandbox.as_ref()?;
    let helper = crate::sandbox::helper_binary(sandbox.helper.as_deref()).ok()?;
    let restricted = sandboxed
        && matches!(
            sandbox.state(false),
            crate::sandbox::SandboxState::Sandboxed { .. }
        );
    // A proxy that cannot start leaves the command without network (fail closed).
    let proxy = if restricted {
        sandbox.start_proxy(command).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "the sandbox's network proxy could not start; the command has no network");
            None
        })
    } else {
        None
    };
    Some(crate::tools::bash::process::SandboxLaunch {
        helper,
        policy: restricted.then(|| sandbox.policy(extra_writable, proxy.as_ref().map(|p| p.socket()))),
        temp_dir: sandbox.temp_dir.clone(),
        proxy: proxy.map(std::sync::Arc::new),
    })
}

/// The directory a command starts in: the session's cwd, or the project folder if the cwd was
/// deleted meanwhile (with a note and a context change).
pub(crate) fn start_dir(ctx: &ToolUseContext) -> (PathBuf, Option<String>) {
    let cwd = &ctx.exec.cwd;
    if cwd.is_dir() {
        return (cwd.clone(), None);
    }
    let project = ctx.config.project_dir.clone();
    let note = format!(
        "The working directory {} no longer exists; the command ran in the project folder {} instead.",
        cwd.display(),
        project.display()
    );
    (project, Some(note))
}

/// Runs `command` with a timeout, streaming its output to `progress` (in the editor's terminal when
/// the session runs inside an editor that offered one).
pub(crate) async fn run_foreground(
    command: &str,
    timeout: Duration,
    ctx: &ToolUseContext,
    progress: &ProgressSink,
    sandboxed: bool,
) -> Result<ToolOutput, ToolError> {
    // A sub-agent's calls have no card of their own in the editor to show a terminal in.
    let editor = ctx
        .config
        .editor
        .as_ref()
        .filter(|e| e.can_run_commands() && ctx.agent.agent_id.is_none());
    if let Some(editor) = editor {
        return crate::tools::bash::editor_terminal::run_in_editor(
            editor, command, timeout, ctx, progress, sandboxed,
        )
        .await;
    }
    let (cwd, mut notes) = {
        let (dir, note) = start_dir(ctx);
        (dir, note.into_iter().collect::<Vec<_>>())
    };
    let out_dir = output_dir(ctx);
    let spool = Spool::create(out_dir.join(format!("bash-{}.log", uuid::Uuid::new_v4())))
        .map_err(|e| ToolError::io("could not create the command output file", e))?;
    let cwd_file = tempfile::NamedTempFile::new()
        .map_err(|e| ToolError::io("could not create the working-directory file", e))?;
    // The shell writes its final directory to the tracking file: the sandbox lets it.
    let launch = sandbox_launch(ctx, command, sandboxed, &[cwd_file.path().to_path_buf()]);
    let mut shell = spawn_bash(
        &tracking_script(cwd_file.path()),
        &[command],
        &cwd,
        launch.as_ref(),
    )
    .map_err(|e| ToolError::io(format!("could not start bash in {}", cwd.display()), e))?;

    let pgid = shell.guard.pgid();
    let stop = CancellationToken::new();
    // If this future is dropped (the pipeline raced it against an abort), the reader stops too.
    let _stop_on_drop = stop.clone().drop_guard();
    let reader = tokio::spawn(pump(shell.output, spool, Some(progress.clone()), stop.clone()));

    let waited = tokio::select! {
        status = shell.child.wait() => Some(status),
        () = tokio::time::sleep(timeout) => None,
        () = ctx.exec.cancel.cancelled() => None,
    };
    let ending = match waited {
        Some(Ok(status)) => {
            use std::os::unix::process::ExitStatusExt as _;
            if status.signal().is_some()
                && let Some(pgid) = pgid
            {
                // Killed from outside (`kill`, a logout, the OOM killer): what it started goes with
                // it. A killed sandbox helper would otherwise leave the command it supervised running.
                crate::process_group::signal_group(pgid, crate::process_group::GroupSignal::Kill);
            }
            // Processes a command that exited left running in the background (`server > log &`)
            // are its business.
            shell.guard.disarm();
            Ending::Exited(status)
        }
        Some(Err(e)) => {
            terminate_group(&mut shell.child, &mut shell.guard).await;
            return Err(ToolError::io("could not wait for bash", e));
        }
        None => {
            terminate_group(&mut shell.child, &mut shell.guard).await;
            if ctx.is_cancelled() {
                Ending::Interrupted
            } else {
                Ending::TimedOut(u64::try_from(timeout.as_millis()).unwrap_or(u64::MAX))
            }
        }
    };

    let mut reader = reader;
    let spool = match tokio::time::timeout(DRAIN_GRACE, &mut reader).await {
        Ok(joined) => joined,
        Err(_) => {
            // Background children holding our pipes would otherwise outlive the call writing into
            // a pipe nobody reads. Children that redirected their output are not waited for and
            // keep running (`server > log 2>&1 &`).
            if let Some(pgid) = pgid {
                kill_group_in_background(pgid);
            }
            notes.push("The command left processes running in the background that kept its output open; they were stopped. Start long-running processes with run_in_background instead (or redirect their output to a file).".to_string());
            stop.cancel();
            reader.await
        }
    }
    .map_err(|e| ToolError::Failed(format!("reading the command's output failed: {e}")))?;

    conclude(
        Ran {
            spool,
            ending,
            cwd: &cwd,
            cwd_file: cwd_file.path(),
            launch: launch.as_ref(),
            notes,
        },
        ctx,
        progress,
    )
}

/// A foreground command that ended, and what the engine gave it.
pub(crate) struct Ran<'a> {
    /// Its output.
    pub spool: Spool,
    /// How it ended.
    pub ending: Ending,
    /// The folder it started in.
    pub cwd: &'a Path,
    /// Where its shell wrote the folder it ended in.
    pub cwd_file: &'a Path,
    /// How it was sandboxed.
    pub launch: Option<&'a crate::tools::bash::process::SandboxLaunch>,
    /// What the model is told beside the output.
    pub notes: Vec<String>,
}

/// The model's result of a command that ran: its new working folder, what the sandbox refused it
/// (also offered on the card) and its output.
pub(crate) fn conclude(
    ran: Ran<'_>,
    ctx: &ToolUseContext,
    progress: &ProgressSink,
) -> Result<ToolOutput, ToolError> {
    let Ran {
        spool,
        ending,
        cwd,
        cwd_file,
        launch,
        mut notes,
    } = ran;
    let cwd_change = match ending {
        Ending::Exited(_) => judge_cwd(
            std::fs::read_to_string(cwd_file).ok().as_deref(),
            cwd,
            &ctx.permissions.working_dirs,
        ),
        Ending::TimedOut(_) | Ending::Interrupted => CwdChange::Unchanged,
    };
    let moved_from_deleted_cwd = cwd != ctx.exec.cwd;
    let (explanations, refusals) = sandbox_explanations(launch, &spool, &ending, ctx);
    notes.extend(explanations);
    for refusal in refusals {
        // The card offers to allow it for the project in one click.
        progress.emit(crate::tool::Progress::SandboxRefused { refusal });
    }
    finish(spool, ending, cwd_change, cwd, moved_from_deleted_cwd, notes)
}

/// What the sandbox refused the command, in a line each for the model (see [`sandbox_notes`]): the
/// hosts its proxy refused or the user allowed, and, when the command failed, the paths it could
/// not write; beside them, those a setting the user owns would allow, for the card.
fn sandbox_explanations(
    launch: Option<&crate::tools::bash::process::SandboxLaunch>,
    spool: &Spool,
    ending: &Ending,
    ctx: &ToolUseContext,
) -> (Vec<String>, Vec<nerve_protocol::SandboxRefusal>) {
    let Some(launch) = launch else {
        return (Vec::new(), Vec::new());
    };
    let log = launch.proxy.as_ref().map(|proxy| proxy.log()).unwrap_or_default();
    let mut notes = sandbox_notes::network_notes(&log);
    let mut refusals = sandbox_notes::network_refusals(&log);
    if let (Some(policy), Some(sandbox), true) = (&launch.policy, &ctx.config.sandbox, ending.is_error()) {
        let excerpt = spool.excerpt();
        let mut text = String::from_utf8_lossy(&excerpt.head).into_owned();
        text.push('\n');
        text.push_str(&String::from_utf8_lossy(&excerpt.tail));
        let writes =
            sandbox_notes::write_refusals(&text, policy, &sandbox.home, sandbox_notes::engine_may_write);
        notes.extend(sandbox_notes::write_notes(&writes));
        refusals.extend(writes);
    }
    (notes, refusals)
}

fn finish(
    mut spool: Spool,
    ending: Ending,
    cwd_change: CwdChange,
    started_in: &Path,
    moved_from_deleted_cwd: bool,
    mut notes: Vec<String>,
) -> Result<ToolOutput, ToolError> {
    let excerpt = spool.excerpt();
    let mut content = Vec::new();
    let mut saved_output = None;
    let mut display = None;
    let output = match image_output(&mut spool, &ending) {
        Some(ImageOutput::Inline(block)) => {
            content.push(block);
            None
        }
        Some(ImageOutput::TooLarge { media_type }) => {
            spool.keep();
            notes.push(format!(
                "The command printed an image ({media_type}, {} bytes), too large to return inline (at most {IMAGE_MAX_BYTES} bytes). It was saved to: {}",
                excerpt.total,
                spool.path().display()
            ));
            Some(String::new())
        }
        None => {
            let full_output = (excerpt.omitted() > 0 && spool.complete()).then(|| {
                spool.keep();
                spool.path().to_path_buf()
            });
            let rendered = render_output(&excerpt, full_output.as_deref());
            saved_output = full_output;
            display = rendered
                .display
                .map(|terminal| serde_json::to_value(CommandDisplay { terminal }).unwrap_or_default());
            Some(rendered.text)
        }
    };
    if let Some(output) = output {
        if let CwdChange::Refused { attempted } = &cwd_change {
            notes.push(refused_note(attempted, started_in));
        }
        let text = render_result(&output, &notes, &ending);
        if !text.is_empty() {
            content.push(ResultBlock::text(text));
        }
    }
    if ending.is_error() {
        return Err(match (saved_output, display) {
            (None, None) => ToolError::WithContent(content),
            (saved_output, display) => ToolError::WithSavedOutput {
                content,
                saved_output,
                display,
            },
        });
    }
    let mut output = ToolOutput {
        content,
        saved_output,
        display,
        ..ToolOutput::default()
    };
    let new_cwd = match cwd_change {
        CwdChange::Moved(dir) => Some(dir),
        // Only a real change gets a modifier: in a concurrent batch, a no-op "set cwd to the old
        // value" applied after a sibling's `cd` would undo it.
        CwdChange::Unchanged | CwdChange::Refused { .. } => {
            moved_from_deleted_cwd.then(|| started_in.to_path_buf())
        }
    };
    if let Some(dir) = new_cwd {
        output.context_modifier = Some(ContextModifier::new(move |mut ctx| {
            ctx.exec.cwd = dir;
            ctx
        }));
    }
    Ok(output)
}

/// Image output: inline, or too large to return (the output file is kept and named instead).
enum ImageOutput {
    Inline(ResultBlock),
    TooLarge { media_type: &'static str },
}

/// The output as an image, when the command succeeded and printed exactly one image and nothing
/// else (stdout and stderr share the output).
fn image_output(spool: &mut Spool, ending: &Ending) -> Option<ImageOutput> {
    if ending.is_error() {
        return None;
    }
    let excerpt = spool.excerpt();
    let media_type = image_media_type(&excerpt.head)?;
    match spool.read_all(IMAGE_MAX_BYTES) {
        Some(bytes) => {
            is_whole_image(media_type, &bytes).then(|| ImageOutput::Inline(image_block(media_type, &bytes)))
        }
        None if spool.complete() => {
            let end = if excerpt.tail.is_empty() {
                &excerpt.head
            } else {
                &excerpt.tail
            };
            ends_like(media_type, &excerpt.head, end, excerpt.total)
                .then_some(ImageOutput::TooLarge { media_type })
        }
        None => None,
    }
}
