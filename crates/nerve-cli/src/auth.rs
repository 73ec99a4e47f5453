//! `nerve auth set|status|delete`: the API key in the OS keyring (or, when no keyring answers, in
//! a credentials file only the user can read).

use std::io::{BufRead, IsTerminal};

use crate::exit::Exit;
use anyhow::{Context, Result};
use clap::Subcommand;
use nerve::credentials::{
    API_KEY_ENV, ApiKey, FileStore, KEYRING_USER, KeySource, OPENAI_KEYRING_USER, SecretStore, StoredIn,
    delete_api_key, load_api_key, load_provider_auth, mask, os_store, provider_store, store_api_key,
    store_provider_key,
};
use nerve::session::ModelProvider;

/// What `nerve auth` does.
#[derive(Subcommand, Clone, Debug)]
pub enum AuthCommand {
    /// Store the API key in the OS keyring, read from standard input (`printf %s "$KEY" | nerve auth set`).
    Set {
        /// Whose key: anthropic (the default) or openai-chat (an OpenAI-compatible server's, kept
        /// under its own keyring entry).
        #[arg(long, value_parser = parse_provider)]
        provider: Option<ModelProvider>,
    },
    /// Say which API key would be used and where it comes from (masked).
    Status {
        /// Whose key.
        #[arg(long, value_parser = parse_provider)]
        provider: Option<ModelProvider>,
    },
    /// Remove the API key from the OS keyring.
    Delete {
        /// Whose key.
        #[arg(long, value_parser = parse_provider)]
        provider: Option<ModelProvider>,
    },
}

fn parse_provider(text: &str) -> Result<ModelProvider, String> {
    text.parse()
}

/// `nerve auth` for an OpenAI-compatible server's key: its own keyring entry, `OPENAI_API_KEY`.
fn run_openai(command: AuthCommand) -> Result<Exit> {
    let env = nerve::EngineEnv::process();
    let provider = ModelProvider::OpenaiChat;
    let entry = provider_store(&env, provider)
        .map(|s| format!(" (service \"{}\", user \"{OPENAI_KEYRING_USER}\")", s.service()))
        .unwrap_or_default();
    match command {
        AuthCommand::Set { .. } => {
            let key = read_key("Paste the OpenAI-compatible server's API key and press Enter: ")?;
            store_provider_key(&env, provider, &key)?;
            println!(
                "Stored the OpenAI-compatible API key ({}) in the OS keyring{entry}.",
                mask(&key)
            );
            Ok(Exit::Success)
        }
        AuthCommand::Status { .. } => match load_provider_auth(&env, provider, None) {
            Ok(loaded) => {
                println!("OpenAI-compatible API key from {}.", loaded.source);
                Ok(Exit::Success)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(Exit::Failure)
            }
        },
        AuthCommand::Delete { .. } => {
            let store =
                provider_store(&env, provider).ok_or(nerve::credentials::CredentialError::KeyringOff)?;
            if store
                .remove()
                .map_err(nerve::credentials::CredentialError::Keyring)?
            {
                println!("Removed the stored OpenAI-compatible API key{entry}.");
            } else {
                println!("No OpenAI-compatible API key was stored{entry}.");
            }
            Ok(Exit::Success)
        }
    }
}

/// Runs a `nerve auth` command; returns the exit code.
pub fn run(command: AuthCommand) -> Result<Exit> {
    let provider = match &command {
        AuthCommand::Set { provider }
        | AuthCommand::Status { provider }
        | AuthCommand::Delete { provider } => *provider,
    };
    if provider.is_some_and(ModelProvider::is_openai) {
        return run_openai(command);
    }
    match command {
        AuthCommand::Set { .. } => {
            let key = read_key("Paste your Anthropic API key and press Enter: ")?;
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
            Ok(Exit::Success)
        }
        AuthCommand::Status { .. } => match load_api_key(&nerve::EngineEnv::process()) {
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
                Ok(Exit::Success)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(Exit::Failure)
            }
        },
        AuthCommand::Delete { .. } => {
            if delete_api_key(&nerve::EngineEnv::process())? {
                println!("Removed the stored API key{}.", entry_name());
            } else {
                println!("No API key was stored{}.", entry_name());
            }
            Ok(Exit::Success)
        }
    }
}

fn entry_name() -> String {
    os_store(&nerve::EngineEnv::process())
        .map(|s| format!(" (service \"{}\", user \"{KEYRING_USER}\")", s.service()))
        .unwrap_or_default()
}

/// One line from standard input; on a terminal, prompted and not echoed (`rpassword` turns echo
/// off through termios and back on, even when reading fails).
fn read_key(prompt: &str) -> Result<ApiKey> {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        let key =
            rpassword::prompt_password(prompt).context("could not read the API key from the terminal")?;
        return Ok(ApiKey::new(key));
    }
    let mut line = String::new();
    stdin
        .lock()
        .read_line(&mut line)
        .context("could not read the API key from standard input")?;
    Ok(ApiKey::new(line))
}
