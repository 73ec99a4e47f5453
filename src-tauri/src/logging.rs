//! The app's log: a file a day in the log folder (the last seven kept), which is what a bug report
//! attaches; the engine's warnings land there too. A panic is written there with its backtrace
//! before the process goes. `NERVE_LOG` sets the level (`info` by default; `NERVE_LOG=debug`,
//! `NERVE_LOG=nerve::mcp=trace`); a terminal that started the app sees the same lines.

use std::io::IsTerminal as _;
use std::path::{Path, PathBuf};

use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// Log files kept: a week of days the app ran.
const KEPT_FILES: usize = 7;

/// The log folder: the data folder's `logs/` when `NERVE_DATA_DIR` moves the data (tests, a
/// portable setup), else the platform's place for this app's logs (`~/.local/share/<id>/logs`,
/// where Tauri's `app_log_dir` points).
pub fn log_dir(env: &nerve::EngineEnv, identifier: &str) -> PathBuf {
    if std::env::var_os("NERVE_DATA_DIR").is_some() {
        return nerve::project::data_root(env).join("logs");
    }
    dirs::data_local_dir()
        .map(|d| d.join(identifier).join("logs"))
        .unwrap_or_else(|| nerve::project::data_root(env).join("logs"))
}

/// Starts logging to `dir` (and to stderr when it is a terminal) and installs the panic hook. A
/// folder that cannot be made leaves only stderr, said there.
pub fn init(dir: &Path) {
    let filter = || {
        EnvFilter::builder()
            .with_default_directive(tracing_subscriber::filter::LevelFilter::INFO.into())
            .with_env_var("NERVE_LOG")
            .from_env_lossy()
    };
    let file = std::fs::create_dir_all(dir)
        .map_err(|e| e.to_string())
        .and_then(|()| {
            tracing_appender::rolling::Builder::new()
                .rotation(tracing_appender::rolling::Rotation::DAILY)
                .filename_prefix("nerve-desktop")
                .filename_suffix("log")
                .max_log_files(KEPT_FILES)
                .build(dir)
                .map_err(|e| e.to_string())
        });
    let (file_layer, problem) = match file {
        Ok(appender) => (
            Some(
                tracing_subscriber::fmt::layer()
                    .with_ansi(false)
                    .with_writer(std::sync::Mutex::new(appender))
                    .with_filter(filter()),
            ),
            None,
        ),
        Err(e) => (None, Some(e)),
    };
    let terminal = std::io::stderr().is_terminal();
    let stderr_layer = terminal.then(|| {
        tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()))
            .with_filter(filter())
    });
    // A second init (never in the app) would fail; nothing to do then.
    let _ = tracing_subscriber::registry()
        .with(file_layer)
        .with(stderr_layer)
        .try_init();
    if let Some(problem) = problem {
        eprintln!("nerve-desktop: no log file in {}: {problem}", dir.display());
    }
    log_panics();
    tracing::info!(version = env!("NERVE_VERSION"), "nerve-desktop started");
}

/// A panic goes to the log with its backtrace (and to stderr, as before).
fn log_panics() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let backtrace = std::backtrace::Backtrace::force_capture();
        tracing::error!("panic: {info}\n{backtrace}");
        previous(info);
    }));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    #[test]
    fn a_panic_is_written_to_the_log_with_its_backtrace() {
        let dir = tempfile::tempdir().unwrap();
        init(dir.path());
        let panicked = std::thread::spawn(|| panic!("the test's own panic")).join();
        assert!(panicked.is_err());
        let text: String = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        assert!(text.contains("nerve-desktop started"), "{text}");
        assert!(
            text.contains("panic: ") && text.contains("the test's own panic"),
            "{text}"
        );
        // The backtrace names where it happened.
        assert!(text.contains("logging.rs"), "{text}");
    }
}
