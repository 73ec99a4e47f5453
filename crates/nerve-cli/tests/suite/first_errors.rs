//! The errors a new user meets first, exactly as `nerve` prints them: one line each, every cause said
//! once, and the exit code that means what happened.

use std::process::Command;

use crate::support::NERVE;

/// Runs `nerve ARGS` in a fresh home and data folder with no key anywhere (the keyring switched
/// off, no key variable) and returns "exit N" and its stderr, with the folder's path replaced.
fn first_run(args: &[&str]) -> String {
    run(args, None)
}

/// [`first_run`] with an API key in the environment.
fn with_key(args: &[&str]) -> String {
    run(args, Some("sk-ant-test"))
}

fn run(args: &[&str], key: Option<&str>) -> String {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("project")).unwrap();
    std::fs::create_dir_all(dir.path().join("home/.config")).unwrap();
    let out = Command::new(NERVE)
        .args(args)
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("ANTHROPIC_AUTH_TOKEN")
        .env("NERVE_KEYRING", "off")
        .env("NERVE_DATA_DIR", dir.path().join("data"))
        .env("HOME", dir.path().join("home"))
        .env("XDG_CONFIG_HOME", dir.path().join("home/.config"))
        .env("NO_COLOR", "1")
        .env_remove("ANTHROPIC_BASE_URL")
        .envs(key.map(|k| ("ANTHROPIC_API_KEY", k)))
        .current_dir(dir.path().join("project"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).replace(&dir.path().display().to_string(), "<dir>");
    format!(
        "$ nerve {}\nexit {}\n{}",
        args.join(" "),
        out.status.code().unwrap_or(-1),
        stderr
    )
}

#[test]
fn the_first_errors_say_what_is_wrong_once_with_their_exit_code() {
    let seen = [
        first_run(&["-p", "hello"]),
        first_run(&["-p", "hello", "--cwd", "/no/such/folder"]),
        first_run(&["-p", "hello", "--effort", "extreme"]),
        first_run(&["--no-such-flag"]),
        with_key(&["-p", "hello", "--resume", "no-such-session"]),
        with_key(&["-p", "hello", "--permission-mode", "yolo"]),
        first_run(&["rewind", "--session", "no-such-session", "--to-prompt", "1"]),
        first_run(&["auth", "status"]),
    ];
    let text = seen.join("\n");
    // The advice about the key is given once per error, not once per cause that repeats it.
    for line in text.lines() {
        assert!(line.matches("nerve auth set` (it reads").count() <= 1, "{line}");
    }
    insta::assert_snapshot!(text);
}

#[test]
fn help_lists_the_exit_codes() {
    let out = Command::new(NERVE).arg("--help").output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(help.contains("Exit codes:\n  0  success\n  1  failure"), "{help}");
    assert!(help.contains("  3  done in part"), "{help}");
}
