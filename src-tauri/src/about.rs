//! What the app says about itself: its version (`nerve-desktop --version`), the diagnostics a bug
//! report needs, its log folder, and whether the release feed names a newer version.

use std::path::PathBuf;

use nerve::release_feed::{self, Install};
use nerve_protocol::release::UpdateStatus;
use tauri::State;

use crate::commands::{Shell, blocking};
use crate::dto::Diagnostics;
use crate::error::ShellError;

/// The version both binaries report (`NERVE_VERSION` at build time, else the crate's).
pub const VERSION: &str = env!("NERVE_VERSION");

/// The packages' name (the apt and dnf package).
const PACKAGE: &str = "nerve";

/// The log folder, as the app was started with.
pub struct LogDir(pub PathBuf);

/// Answers `--version` / `-V` before anything else starts (no display needed); true when it did.
pub fn answered_version(args: &[String]) -> bool {
    if args.iter().skip(1).any(|a| a == "--version" || a == "-V") {
        println!("nerve-desktop {VERSION}");
        return true;
    }
    false
}

/// The folder named on the command line (`nerve-desktop PATH`, the desktop entry's `%F`), made
/// absolute against `cwd`; `None` when there is none, or it is not a folder.
pub fn folder_argument(args: &[String], cwd: &std::path::Path) -> Option<String> {
    let arg = args.iter().skip(1).find(|a| !a.starts_with('-'))?;
    let arg = arg.strip_prefix("file://").unwrap_or(arg);
    let path = cwd.join(arg);
    let path = std::fs::canonicalize(&path).ok().filter(|p| p.is_dir())?;
    Some(path.to_string_lossy().into_owned())
}

/// What a bug report needs; never a key or a token.
#[tauri::command]
pub async fn diagnostics(
    shell: State<'_, Shell>,
    logs: State<'_, LogDir>,
) -> Result<Diagnostics, ShellError> {
    let log_dir = logs.0.clone();
    let desktop_settings = shell.settings.path().to_path_buf();
    blocking(move || Ok(gather(&log_dir, &desktop_settings))).await
}

fn gather(log_dir: &std::path::Path, desktop_settings: &std::path::Path) -> Diagnostics {
    let os = os_description();
    let webkitgtk = webkitgtk_version();
    let sandbox = match nerve::sandbox::availability() {
        nerve::sandbox::Availability::Available { abi, network } => format!(
            "available (Landlock ABI {abi}; network {})",
            if *network {
                "enforced by Landlock and seccomp"
            } else {
                "enforced by seccomp"
            }
        ),
        nerve::sandbox::Availability::Unavailable { reason } => format!("unavailable: {reason}"),
    };
    let mut settings_sources = Vec::new();
    let mut note = |name: &str, path: PathBuf| {
        let state = if path.is_file() { "present" } else { "absent" };
        settings_sources.push(format!("{name}: {} ({state})", path.display()));
    };
    note("app settings", desktop_settings.to_path_buf());
    for (name, path) in nerve::settings_view::machine_settings_files().unwrap_or_default() {
        note(name, path);
    }
    let log_dir = log_dir.display().to_string();
    let mut report = format!(
        "Nerve {VERSION}\nOS: {os}\nWebKitGTK: {webkitgtk}\nSandbox: {sandbox}\nLog folder: {log_dir}\nSettings files:\n"
    );
    for source in &settings_sources {
        report.push_str(&format!("  {source}\n"));
    }
    Diagnostics {
        version: VERSION.to_string(),
        os,
        webkitgtk,
        sandbox,
        settings_sources,
        log_dir,
        report,
    }
}

/// `PRETTY_NAME` of os-release, the kernel and the architecture.
fn os_description() -> String {
    let name = std::fs::read_to_string("/etc/os-release")
        .ok()
        .and_then(|text| {
            text.lines()
                .find_map(|l| l.strip_prefix("PRETTY_NAME="))
                .map(|v| v.trim_matches('"').to_string())
        })
        .unwrap_or_else(|| std::env::consts::OS.to_string());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_string())
        .unwrap_or_else(|_| "unknown".to_string());
    format!("{name}, Linux {kernel}, {}", std::env::consts::ARCH)
}

/// The WebKitGTK the window runs on: the library loaded in this process and the package that
/// installed it, beside the version the app was built against.
fn webkitgtk_version() -> String {
    let built = option_env!("NERVE_WEBKITGTK_BUILD_VERSION").unwrap_or("unknown");
    let loaded = std::fs::read_to_string("/proc/self/maps").ok().and_then(|maps| {
        maps.lines()
            .filter_map(|l| l.split_whitespace().nth(5))
            .find(|path| path.contains("libwebkit2gtk-"))
            .map(str::to_string)
    });
    let Some(library) = loaded else {
        return format!("built against {built} (the library is not loaded yet)");
    };
    let package = std::process::Command::new("dpkg-query")
        .args(["--search", &library])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| {
            let owner = String::from_utf8_lossy(&o.stdout);
            let name = owner.split(':').next()?.trim().to_string();
            let version = std::process::Command::new("dpkg-query")
                .args(["--show", "--showformat=${Version}", &name])
                .output()
                .ok()?;
            Some(format!(
                "{name} {}",
                String::from_utf8_lossy(&version.stdout).trim()
            ))
        });
    match package {
        Some(package) => format!("{package} ({library}; built against {built})"),
        None => format!("{library} (built against {built})"),
    }
}

/// Opens the log folder in the file manager.
#[tauri::command]
pub async fn open_log_folder(app: tauri::AppHandle, logs: State<'_, LogDir>) -> Result<(), ShellError> {
    use tauri_plugin_opener::OpenerExt;
    let dir = logs.0.clone();
    std::fs::create_dir_all(&dir)
        .map_err(|e| ShellError::new(format!("could not make {}: {e}", dir.display())))?;
    app.opener()
        .open_path(dir.to_string_lossy(), None::<&str>)
        .map_err(|e| ShellError::new(format!("could not open {}: {e}", dir.display())))
}

/// Reads the release feed of the settings.
#[tauri::command]
pub async fn check_for_update(shell: State<'_, Shell>) -> Result<UpdateStatus, ShellError> {
    let settings = shell.settings.load()?.settings;
    let install = blocking(|| Ok(Install::detect())).await?;
    Ok(release_feed::check(settings.update_feed_url.as_deref(), VERSION, install, PACKAGE).await)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn a_folder_argument_is_made_absolute_and_anything_else_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("project")).unwrap();
        std::fs::write(dir.path().join("file.txt"), "").unwrap();
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let project = std::fs::canonicalize(dir.path().join("project")).unwrap();
        assert_eq!(
            folder_argument(&args(&["nerve-desktop", "project"]), dir.path()),
            Some(project.to_string_lossy().into_owned())
        );
        let uri = format!("file://{}", project.display());
        assert_eq!(
            folder_argument(&args(&["nerve-desktop", &uri]), Path::new("/")),
            Some(project.to_string_lossy().into_owned())
        );
        assert_eq!(
            folder_argument(&args(&["nerve-desktop", "file.txt"]), dir.path()),
            None
        );
        assert_eq!(
            folder_argument(&args(&["nerve-desktop", "missing"]), dir.path()),
            None
        );
        assert_eq!(folder_argument(&args(&["nerve-desktop"]), dir.path()), None);
    }

    #[test]
    fn diagnostics_name_the_files_and_never_a_key() {
        let dir = tempfile::tempdir().unwrap();
        let d = gather(&dir.path().join("logs"), &dir.path().join("desktop.json"));
        assert_eq!(d.version, VERSION);
        assert!(
            d.report.starts_with(&format!("Nerve {VERSION}\nOS: ")),
            "{}",
            d.report
        );
        assert!(
            d.settings_sources[0].starts_with("app settings: "),
            "{:?}",
            d.settings_sources
        );
        assert!(d.settings_sources[0].ends_with("(absent)"));
        assert!(!d.report.to_lowercase().contains("sk-ant"));
    }

    use std::path::Path;
}
