//! Real Bash calls through the pipeline, timed from the moment the call is handed to the pipeline
//! (a streamed block's end) to the moment its command starts (the shell's own `$EPOCHREALTIME`),
//! and in all. Shared by the `pipeline` and `big_tree` benchmarks.
#![allow(dead_code)] // each benchmark uses the part it needs

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use nerve::permissions::RuleBehavior;
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionRuntime, SessionSetup};
use nerve::registry::ToolPool;
use serde_json::json;

/// How a Bash call's command is started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Launch {
    /// `bash` spawned by the engine itself (no sandbox setup at all).
    Direct,
    /// Through the sandbox helper (the engine's binary re-executed), which supervises it but does
    /// not restrict it (the sandbox turned off in the settings).
    Supervised,
    /// Through the sandbox helper with the policy applied (Landlock, seccomp), as by default.
    Sandboxed,
}

/// A session over `project_dir` that allows every Bash call, its command started as `launch`
/// says, with checkpoints (in turn 1) or without.
pub fn session(project_dir: &Path, data_dir: &Path, launch: Launch, checkpoints: bool) -> SessionRuntime {
    let mut options = ProjectOptions::new(project_dir);
    options.bare = true;
    options.data_dir = data_dir.to_path_buf();
    options.cli_rules.push((RuleBehavior::Allow, "Bash".to_string()));
    let project = Project::open(options).expect("project opens");
    let pool = ToolPool::new(vec![Arc::new(nerve::tools::bash::BashTool)], false).expect("schemas compile");
    let mut runtime = project.session(pool, SessionSetup::default());
    let mut config = (*runtime.context.config).clone();
    match launch {
        Launch::Direct => config.sandbox = None,
        Launch::Supervised => {
            if let Some(sandbox) = &config.sandbox {
                let mut sandbox = (**sandbox).clone();
                sandbox.config.enabled = false;
                config.sandbox = Some(Arc::new(sandbox));
            }
        }
        Launch::Sandboxed => {}
    }
    if checkpoints {
        config
            .checkpoints
            .as_ref()
            .expect("sessions have checkpoints")
            .begin_turn(1);
    } else {
        config.checkpoints = None;
    }
    runtime.context.config = Arc::new(config);
    runtime
}

/// A trivial command that changes a file (so it is not read-only and is checkpointed): it writes
/// the time it started to `stamp`.
pub fn stamp_command(stamp: &Path) -> String {
    format!("echo $EPOCHREALTIME > '{}'", stamp.display())
}

fn now_epoch() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("after 1970")
        .as_secs_f64()
}

fn started_at(stamp: &Path) -> f64 {
    let text = std::fs::read_to_string(stamp).expect("the command wrote its start time");
    text.trim().parse().expect("a time in seconds")
}

/// One timed call: (from the call to its command's start, the whole call).
pub async fn one_call(session: &SessionRuntime, id: &str, stamp: &Path) -> (Duration, Duration) {
    let call = ToolCall {
        id: id.to_string(),
        name: "Bash".into(),
        input: json!({"command": stamp_command(stamp), "description": "Note the time"}),
    };
    let _ = std::fs::remove_file(stamp);
    let handed = now_epoch();
    let start = Instant::now();
    let outcome = session.run_one(&call).await;
    let total = start.elapsed();
    assert!(!outcome.is_error, "the call ran: {outcome:?}");
    let to_start = Duration::from_secs_f64((started_at(stamp) - handed).max(0.0));
    (to_start, total)
}

/// A command that does nothing, spawned as the engine would without a sandbox: the floor.
pub fn plain_spawn(dir: &Path, stamp: &Path) -> Duration {
    let _ = std::fs::remove_file(stamp);
    let handed = now_epoch();
    let status = std::process::Command::new("bash")
        .args(["--noprofile", "--norc", "-c"])
        .arg(stamp_command(stamp))
        .current_dir(dir)
        .status()
        .expect("bash runs");
    assert!(status.success());
    Duration::from_secs_f64((started_at(stamp) - handed).max(0.0))
}

/// Medians of several sides measured in turn, call by call, so the machine's moods fall on all
/// alike.
pub struct Sides {
    pub to_start: Vec<Vec<Duration>>,
    pub total: Vec<Vec<Duration>>,
}

/// `calls` rounds, each one call of every session in turn (after one untimed call each).
pub async fn side_by_side(sessions: &[&SessionRuntime], calls: usize, stamp: &Path) -> Sides {
    let mut sides = Sides {
        to_start: vec![Vec::new(); sessions.len()],
        total: vec![Vec::new(); sessions.len()],
    };
    for (s, session) in sessions.iter().enumerate() {
        one_call(session, &format!("toolu_warm_{s}"), stamp).await;
    }
    for i in 0..calls {
        for (s, session) in sessions.iter().enumerate() {
            let (to_start, total) = one_call(session, &format!("toolu_{s}_{i}"), stamp).await;
            sides.to_start[s].push(to_start);
            sides.total[s].push(total);
        }
    }
    sides
}

pub fn median(xs: &[Duration]) -> Duration {
    let mut xs = xs.to_vec();
    xs.sort();
    xs[xs.len() / 2]
}

pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// A file in the session's own temp folder is not the project's: where stamps go by default.
pub fn stamp_in(dir: &Path) -> PathBuf {
    dir.join("stamp")
}
