//! The Anthropic API key: kept in the OS keyring (service `nerve`, user `anthropic-api-key`)
//! whenever it answers; on a machine without one (no Secret Service, a container) in
//! `<config dir>/nerve/credentials`, readable only by the user; `ANTHROPIC_API_KEY` as the
//! fallback.
//!
//! The key only ever travels as an [`ApiKey`], whose `Debug` and `Display` are redacted; it is
//! never written to a transcript, a settings file or a log. [`mask`] is the one way to show it.
//!
//! Environment (as the front-end's [`EngineEnv`] has it): `NERVE_KEYRING=off` leaves the keyring alone
//! (machines without one, tests);
//! `NERVE_KEYRING_SERVICE` names another keyring service (separate profiles).

mod store;

use thiserror::Error;

pub use crate::model::api_key::ApiKey;
pub use store::{FileStore, KeyringStore, SecretStore, StoreError};

/// The keyring service the key is stored under.
pub const KEYRING_SERVICE: &str = "nerve";
/// The keyring user the key is stored under.
pub const KEYRING_USER: &str = "anthropic-api-key";
/// The keyring user a gateway's bearer token is stored under (sent as `Authorization: Bearer`,
/// as `ANTHROPIC_AUTH_TOKEN` is).
pub const AUTH_TOKEN_KEYRING_USER: &str = "anthropic-auth-token";
/// The keyring user an OpenAI-compatible server's key is stored under (each provider has its own
/// entry, so switching providers never sends one's key to the other).
pub const OPENAI_KEYRING_USER: &str = "openai-api-key";
use crate::engine_env::EngineEnv;
pub use crate::engine_env::{API_KEY_ENV, KEYRING_SERVICE_ENV, KEYRING_SWITCH_ENV};

pub use nerve_protocol::settings::{CredentialStatus, KeySource};

/// Where a stored key went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoredIn {
    /// The OS keyring.
    Keyring,
    /// The private credentials file, because the keyring could not be reached (why, for details).
    File {
        /// The file.
        path: std::path::PathBuf,
        /// Why the keyring was not used.
        keyring_problem: StoreError,
    },
}

/// A key and where it came from.
#[derive(Debug, Clone)]
pub struct LoadedKey {
    /// The key (redacted when formatted).
    pub key: ApiKey,
    /// Where it came from.
    pub source: KeySource,
    /// Why the keyring was passed over, when it could not be read.
    pub keyring_problem: Option<StoreError>,
}

/// Why no key could be loaded, stored or deleted.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum CredentialError {
    /// Neither the keyring nor the environment has a key.
    #[error(
        "no Anthropic API key: store one in the OS keyring with `nerve auth set` (it reads the key from standard input, for example `printf %s \"$KEY\" | nerve auth set`), or set the {API_KEY_ENV} environment variable"
    )]
    Missing,
    /// The keyring could not be read and the environment has no key.
    #[error(
        "no Anthropic API key: {0}, and {API_KEY_ENV} is not set. Set {API_KEY_ENV}, or start a Secret Service (gnome-keyring, KeePassXC) and store the key with `nerve auth set`"
    )]
    MissingKeyringUnavailable(StoreError),
    /// The keyring failed while storing or deleting.
    #[error("{0}")]
    Keyring(StoreError),
    /// `NERVE_KEYRING=off` forbids touching the keyring.
    #[error("the OS keyring is turned off by {KEYRING_SWITCH_ENV}=off; unset it to store or delete the key")]
    KeyringOff,
    /// No key for an OpenAI-compatible server that is not on this machine.
    #[error(
        "no API key for the OpenAI-compatible server: set OPENAI_API_KEY, or store one with `nerve auth set --provider openai-chat`"
    )]
    MissingOpenAi,
    /// An empty key was given to store.
    #[error(
        "the API key is empty: pass it on standard input, for example `printf %s \"$KEY\" | nerve auth set`"
    )]
    EmptyKey,
}

/// The OS keyring entry of the key, unless `NERVE_KEYRING=off`.
pub fn os_store(env: &EngineEnv) -> Option<KeyringStore> {
    os_store_for(env, KEYRING_USER)
}

/// The credentials file of the stored bearer token (beside the key's).
fn token_file() -> Option<FileStore> {
    Some(FileStore::new(
        dirs::config_dir()?.join("nerve").join("auth-token"),
    ))
}

/// The OS keyring entry `user` of Nerve's service, unless `NERVE_KEYRING=off`.
fn os_store_for(env: &EngineEnv, user: &str) -> Option<KeyringStore> {
    if env.keyring_off {
        return None;
    }
    let service = env
        .keyring_service
        .clone()
        .unwrap_or_else(|| KEYRING_SERVICE.to_owned());
    Some(KeyringStore::new(service, user))
}

/// Stores a gateway's bearer token as [`store_api_key`] stores the key (keyring first, the
/// private file when no keyring answers).
pub fn store_auth_token(env: &EngineEnv, token: &ApiKey) -> Result<StoredIn, CredentialError> {
    let store = os_store_for(env, AUTH_TOKEN_KEYRING_USER).ok_or(CredentialError::KeyringOff)?;
    store_in_either(&store, token_file().as_ref(), token)
}

/// Removes the stored bearer token; `false` when none was stored.
pub fn delete_auth_token(env: &EngineEnv) -> Result<bool, CredentialError> {
    let store = os_store_for(env, AUTH_TOKEN_KEYRING_USER).ok_or(CredentialError::KeyringOff)?;
    remove_from_both(&store, token_file().as_ref())
}

/// Removes a secret from the keyring and its private file; `false` when neither held it.
fn remove_from_both(store: &KeyringStore, file: Option<&FileStore>) -> Result<bool, CredentialError> {
    let from_file = match file {
        Some(file) => file.remove().map_err(CredentialError::Keyring)?,
        None => false,
    };
    match store.remove() {
        Ok(removed) => Ok(removed || from_file),
        // No keyring to remove from: what the file held is gone, and that is all there was.
        Err(StoreError::Unavailable(_)) => Ok(from_file),
        Err(e) => Err(CredentialError::Keyring(e)),
    }
}

/// The stored bearer token, if any (keyring, then file); unreadable stores count as none.
pub fn load_auth_token(env: &EngineEnv) -> Option<LoadedKey> {
    let store = os_store_for(env, AUTH_TOKEN_KEYRING_USER);
    let file = token_file();
    load_from_stores(
        store.as_ref().map(|s| s as &dyn SecretStore),
        file.as_ref().map(|s| s as &dyn SecretStore),
        None,
    )
    .ok()
}

/// The key: the OS keyring first, then the private credentials file, then `ANTHROPIC_API_KEY`.
/// Blocks (the keyring is a D-Bus call away); async callers run it on a blocking thread.
pub fn load_api_key(env: &EngineEnv) -> Result<LoadedKey, CredentialError> {
    let store = os_store(env);
    let file = FileStore::in_config_dir();
    load_from_stores(
        store.as_ref().map(|s| s as &dyn SecretStore),
        file.as_ref().map(|s| s as &dyn SecretStore),
        env.api_key.clone(),
    )
}

/// How the model server is reached, and where the credentials came from.
#[derive(Debug, Clone)]
pub struct LoadedAuth {
    /// What requests carry.
    pub auth: crate::model::client::ModelAuth,
    /// Where it came from, in words for the user ("the OS keyring", "ANTHROPIC_AUTH_TOKEN"...).
    pub source: String,
    /// Why the keyring was passed over, when it could not be read.
    pub keyring_problem: Option<StoreError>,
}

/// The credentials for `base_url` (the default API when `None`), in Claude Code's order:
/// `ANTHROPIC_AUTH_TOKEN` (sent as a bearer token), then a stored bearer token
/// ([`store_auth_token`]), then the API key ([`load_api_key`]); with none, a server on this
/// machine (a local model server) is reached without any.
pub fn load_model_auth(env: &EngineEnv, base_url: Option<&str>) -> Result<LoadedAuth, CredentialError> {
    use crate::model::client::{AUTH_TOKEN_ENV, ModelAuth, is_local_server};
    if let Some(token) = &env.auth_token {
        return Ok(LoadedAuth {
            auth: ModelAuth::Bearer(ApiKey::new(token.clone())),
            source: AUTH_TOKEN_ENV.to_owned(),
            keyring_problem: None,
        });
    }
    if let Some(stored) = load_auth_token(env) {
        return Ok(LoadedAuth {
            auth: ModelAuth::Bearer(stored.key),
            source: match stored.source {
                KeySource::File => "the stored auth token (credentials file)".to_owned(),
                KeySource::Keyring | KeySource::Environment => {
                    "the stored auth token (OS keyring)".to_owned()
                }
            },
            keyring_problem: None,
        });
    }
    match load_api_key(env) {
        Ok(loaded) => Ok(LoadedAuth {
            auth: ModelAuth::ApiKey(loaded.key),
            source: match loaded.source {
                KeySource::Keyring => "the OS keyring".to_owned(),
                KeySource::File => "the credentials file".to_owned(),
                KeySource::Environment => API_KEY_ENV.to_owned(),
            },
            keyring_problem: loaded.keyring_problem,
        }),
        Err(_) if base_url.is_some_and(is_local_server) => Ok(LoadedAuth {
            auth: ModelAuth::None,
            source: "none (a local model server)".to_owned(),
            keyring_problem: None,
        }),
        Err(e) => Err(e),
    }
}

/// The keyring entry of `provider`'s key, unless `NERVE_KEYRING=off`.
pub fn provider_store(
    env: &EngineEnv,
    provider: crate::model::client::ModelProvider,
) -> Option<KeyringStore> {
    match provider {
        crate::model::client::ModelProvider::Anthropic => os_store(env),
        crate::model::client::ModelProvider::OpenaiChat
        | crate::model::client::ModelProvider::OpenaiResponses => os_store_for(env, OPENAI_KEYRING_USER),
    }
}

/// Stores `provider`'s key in its own keyring entry.
pub fn store_provider_key(
    env: &EngineEnv,
    provider: crate::model::client::ModelProvider,
    key: &ApiKey,
) -> Result<StoredIn, CredentialError> {
    match provider {
        crate::model::client::ModelProvider::Anthropic => store_api_key(env, key),
        crate::model::client::ModelProvider::OpenaiChat
        | crate::model::client::ModelProvider::OpenaiResponses => {
            if key.is_empty() {
                return Err(CredentialError::EmptyKey);
            }
            let store = provider_store(env, provider).ok_or(CredentialError::KeyringOff)?;
            store_in(&store, key)?;
            Ok(StoredIn::Keyring)
        }
    }
}

/// The credentials for `provider` at `base_url`: Anthropic's as [`load_model_auth`] finds them;
/// an OpenAI-compatible server's from `OPENAI_API_KEY`, then its keyring entry, and none for a
/// server on this machine.
pub fn load_provider_auth(
    env: &EngineEnv,
    provider: crate::model::client::ModelProvider,
    base_url: Option<&str>,
) -> Result<LoadedAuth, CredentialError> {
    use crate::model::client::{ModelAuth, ModelProvider, is_local_server};
    if provider == ModelProvider::Anthropic {
        return load_model_auth(env, base_url);
    }
    if let Some(key) = &env.openai_api_key {
        return Ok(LoadedAuth {
            auth: ModelAuth::ApiKey(ApiKey::new(key.clone())),
            source: crate::engine_env::OPENAI_API_KEY_ENV.to_owned(),
            keyring_problem: None,
        });
    }
    let mut keyring_problem = None;
    if let Some(store) = provider_store(env, provider) {
        match store.read() {
            Ok(Some(key)) if !key.trim().is_empty() => {
                return Ok(LoadedAuth {
                    auth: ModelAuth::ApiKey(ApiKey::new(key.trim().to_owned())),
                    source: "the OS keyring (OpenAI-compatible key)".to_owned(),
                    keyring_problem: None,
                });
            }
            Ok(_) => {}
            Err(e) => keyring_problem = Some(e),
        }
    }
    if base_url.is_some_and(is_local_server) {
        return Ok(LoadedAuth {
            auth: ModelAuth::None,
            source: "none (a local model server)".to_owned(),
            keyring_problem,
        });
    }
    Err(CredentialError::MissingOpenAi)
}

/// What a front-end may show about the credentials a session on `base_url` (the configured one:
/// see [`crate::model::client::configured_base_url`]) would use. Blocks, like [`load_api_key`].
pub fn status(env: &EngineEnv, base_url: Option<&str>) -> CredentialStatus {
    status_for(env, crate::model::client::ModelProvider::Anthropic, base_url)
}

/// [`status`] for `provider`: an OpenAI-compatible server's key is its own
/// ([`load_provider_auth`]).
pub fn status_for(
    env: &EngineEnv,
    provider: crate::model::client::ModelProvider,
    base_url: Option<&str>,
) -> CredentialStatus {
    use crate::model::client::is_local_server;
    if provider.is_openai() {
        let loaded = load_provider_auth(env, provider, base_url);
        return CredentialStatus {
            has_api_key: loaded.is_ok(),
            key_source: None,
            keyring_problem: loaded
                .as_ref()
                .ok()
                .and_then(|l| l.keyring_problem.as_ref().map(ToString::to_string)),
            has_auth_token: false,
            credentials_in_use: loaded.ok().map(|l| l.source),
        };
    }
    let key = load_api_key(env);
    let has_auth_token = load_auth_token(env).is_some();
    let credentials_in_use = load_model_auth(env, base_url).ok().map(|loaded| loaded.source);
    // A bearer token (ANTHROPIC_AUTH_TOKEN) or a model server on this machine needs no key.
    let other_credentials =
        has_auth_token || env.auth_token.is_some() || base_url.is_some_and(is_local_server);
    let (has_api_key, key_source, keyring_problem) = match key {
        Ok(k) => (true, Some(k.source), k.keyring_problem.map(|p| p.to_string())),
        Err(_) if other_credentials => (true, None, None),
        // Only a keyring that did not answer is a keyring problem; "no key yet" is a first run.
        Err(CredentialError::MissingKeyringUnavailable(problem)) => (false, None, Some(problem.to_string())),
        Err(_) => (false, None, None),
    };
    CredentialStatus {
        has_api_key,
        key_source,
        keyring_problem,
        has_auth_token,
        credentials_in_use,
    }
}

/// Stores `key` in the OS keyring, or, when no keyring can be reached, in the private credentials
/// file. A keyring that is there but locked or refusing is an error (the user can unlock it).
pub fn store_api_key(env: &EngineEnv, key: &ApiKey) -> Result<StoredIn, CredentialError> {
    let store = os_store(env).ok_or(CredentialError::KeyringOff)?;
    let file = FileStore::in_config_dir();
    store_in_either(&store, file.as_ref(), key)
}

/// Removes the key from the OS keyring and the credentials file; `false` when neither held one.
pub fn delete_api_key(env: &EngineEnv) -> Result<bool, CredentialError> {
    let store = os_store(env).ok_or(CredentialError::KeyringOff)?;
    remove_from_both(&store, FileStore::in_config_dir().as_ref())
}

/// [`load_api_key`] over any store and environment value.
pub fn load_from(store: Option<&dyn SecretStore>, env: Option<String>) -> Result<LoadedKey, CredentialError> {
    load_from_stores(store, None, env)
}

/// [`load_api_key`] over any keyring, credentials file and environment value.
pub fn load_from_stores(
    store: Option<&dyn SecretStore>,
    file: Option<&dyn SecretStore>,
    env: Option<String>,
) -> Result<LoadedKey, CredentialError> {
    let mut keyring_problem = None;
    for (store, source) in [(store, KeySource::Keyring), (file, KeySource::File)] {
        let Some(store) = store else { continue };
        match store.read() {
            Ok(Some(secret)) if !secret.trim().is_empty() => {
                return Ok(LoadedKey {
                    key: ApiKey::new(secret),
                    source,
                    // A key in the file is there because the keyring did not answer: no news.
                    keyring_problem: None,
                });
            }
            Ok(_) => {}
            Err(e) if source == KeySource::Keyring => keyring_problem = Some(e),
            Err(e) => tracing::warn!("the credentials file could not be read: {e}"),
        }
    }
    match env.filter(|k| !k.trim().is_empty()) {
        Some(key) => Ok(LoadedKey {
            key: ApiKey::new(key),
            source: KeySource::Environment,
            keyring_problem,
        }),
        None => Err(match keyring_problem {
            Some(e) => CredentialError::MissingKeyringUnavailable(e),
            None => CredentialError::Missing,
        }),
    }
}

/// [`store_api_key`] into any keyring, with `file` for when the keyring cannot be reached.
pub fn store_in_either(
    store: &dyn SecretStore,
    file: Option<&FileStore>,
    key: &ApiKey,
) -> Result<StoredIn, CredentialError> {
    match store_in(store, key) {
        Ok(()) => {
            // The keyring answers now: a copy left in the file from before is not needed.
            if let Some(file) = file
                && let Err(e) = file.remove()
            {
                tracing::warn!("the old credentials file could not be removed: {e}");
            }
            Ok(StoredIn::Keyring)
        }
        Err(CredentialError::Keyring(problem @ StoreError::Unavailable(_))) => {
            let Some(file) = file else {
                return Err(CredentialError::Keyring(problem));
            };
            file.write(key.expose()).map_err(CredentialError::Keyring)?;
            Ok(StoredIn::File {
                path: file.path().to_path_buf(),
                keyring_problem: problem,
            })
        }
        Err(e) => Err(e),
    }
}

/// [`store_api_key`] into any store.
pub fn store_in(store: &dyn SecretStore, key: &ApiKey) -> Result<(), CredentialError> {
    if key.is_empty() {
        return Err(CredentialError::EmptyKey);
    }
    store.write(key.expose()).map_err(CredentialError::Keyring)
}

/// The key as it may be shown: its first 7 characters (`sk-ant-`) and an ellipsis. A key too
/// short to be real shows nothing, since 7 characters would be most of it.
pub fn mask(key: &ApiKey) -> String {
    let text = key.expose();
    if text.chars().count() < 20 {
        return "…".to_owned();
    }
    let head: String = text.chars().take(7).collect();
    format!("{head}…")
}

#[cfg(test)]
mod tests;
