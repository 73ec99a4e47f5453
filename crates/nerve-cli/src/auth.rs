//! `nerve auth set|status|delete`: the API key in the OS keyring (or, when no keyring answers, in
//! a credentials file only the user can read).

use std::io::{BufRead, IsTerminal, Write};
use std::process::{Command, Stdio};

use anyhow::{Context, Result};
use clap::Subcommand;
use nerve::credentials::{
    API_KEY_ENV, ApiKey, FileStore, KEYRING_USER, KeySource, StoredIn, delete_api_key, load_api_key, mask,
    os_store, store_api_key,
};

/// What `nerve auth` does.
#[derive(Subcommand, Clone, Debug)]
pub enum AuthCommand {
    /// Store the API key in the OS keyring, read from standard input (`printf %s "$KEY" | nerve auth set`).
    Set,
    /// Say which API key would be used and where it comes from (masked).
    Status,
    /// Remove the API key from the OS keyring.
    Delete,
}

/// Runs a `nerve auth` command; returns the exit code.
pub fn run(command: AuthCommand) -> Result<i32> {
    match command {
        AuthCommand::Set => {
            let key = read_key()?;
            match store_api_key(&nerve::EngineEnv::process(), &key)? {
                StoredIn::Keyring => println!(
                    "Stored the API key ({}) in the OS keyring{}.",
                    mask(&key),
                    entry_name()
                ),
                StoredIn::File {
                    path,
                    keyring_problem,
                } => {
                    println!(
                        "No OS keyring answered, so the API key ({}) is stored in {}, readable only by you.",
                        mask(&key),
                        path.display()
                    );
                    println!("(The keyring: {keyring_problem}.)");
                }
            }
            Ok(0)
        }
        AuthCommand::Status => match load_api_key(&nerve::EngineEnv::process()) {
            Ok(loaded) => {
                match loaded.source {
                    KeySource::Keyring => {
                        println!(
                            "API key {} from the OS keyring{}.",
                            mask(&loaded.key),
                            entry_name()
                        );
                        if std::env::var(API_KEY_ENV).is_ok_and(|v| !v.trim().is_empty()) {
                            println!("{API_KEY_ENV} is also set; the keyring's key takes precedence.");
                        }
                    }
                    KeySource::File => {
                        let path = FileStore::in_config_dir()
                            .map(|f| f.path().display().to_string())
                            .unwrap_or_default();
                        println!(
                            "API key {} from {path} (no OS keyring answered when it was stored).",
                            mask(&loaded.key)
                        );
                    }
                    KeySource::Environment => {
                        println!("API key {} from {API_KEY_ENV}.", mask(&loaded.key));
                    }
                }
                if let Some(problem) = loaded.keyring_problem {
                    println!("Note: {problem}.");
                }
                Ok(0)
            }
            Err(e) => {
                eprintln!("{e}");
                Ok(1)
            }
        },
        AuthCommand::Delete => {
            if delete_api_key(&nerve::EngineEnv::process())? {
                println!("Removed the stored API key{}.", entry_name());
            } else {
                println!("No API key was stored{}.", entry_name());
            }
            Ok(0)
        }
    }
}

fn entry_name() -> String {
    os_store(&nerve::EngineEnv::process())
        .map(|s| format!(" (service \"{}\", user \"{KEYRING_USER}\")", s.service()))
        .unwrap_or_default()
}

/// One line from standard input; on a terminal, prompted and not echoed.
fn read_key() -> Result<ApiKey> {
    let stdin = std::io::stdin();
    let terminal = stdin.is_terminal();
    let _echo = terminal.then(EchoOff::new);
    if terminal {
        eprint!("Paste your Anthropic API key and press Enter: ");
        let _ = std::io::stderr().flush();
    }
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .context("could not read the API key from standard input")?;
    if terminal {
        eprintln!();
    }
    Ok(ApiKey::new(line))
}

/// Turns terminal echo off (`stty -echo`) and back on when dropped.
struct EchoOff;

impl EchoOff {
    fn new() -> Self {
        stty("-echo");
        Self
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        stty("echo");
    }
}

fn stty(setting: &str) {
    // Without stty the key is echoed, which is no worse than pasting it into a shell.
    let _ = Command::new("stty")
        .arg(setting)
        .stdin(Stdio::inherit())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
}
