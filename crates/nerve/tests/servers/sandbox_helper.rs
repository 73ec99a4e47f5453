//! `nerve-test-sandbox-helper`: the Bash sandbox's helper for the engine's integration tests (built
//! with the `test-tools` feature). The engine starts every Bash command through a binary that hosts
//! the helper (`<exe> __nerve-sandbox-exec ...`, see `nerve::sandbox::helper`); the shipped ones are
//! `nerve` and the desktop app, and a test harness cannot be one, so the tests point
//! `ProjectOptions::sandbox_helper` here.

fn main() -> std::process::ExitCode {
    // Started as the helper: restrict, then become the command (never returns).
    nerve::sandbox::helper::run_if_asked();
    eprintln!(
        "nerve-test-sandbox-helper: only the engine starts this program, as `{} ...` (see nerve::sandbox::helper)",
        nerve::sandbox::helper::HELPER_ARG
    );
    std::process::ExitCode::from(2)
}
