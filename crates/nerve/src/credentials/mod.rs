//! The Anthropic API key: kept in the OS keyring (service `nerve`, user `anthropic-api-key`),
//! with `ANTHROPIC_API_KEY` as the fallback.
//!
//! The key only ever travels as an [`ApiKey`], whose `Debug` and `Display` are redacted; it is
//! never written to a transcript, a settings file or a log. [`mask`] is the one way to show it.
//!
//! Environment: `NERVE_KEYRING=off` leaves the keyring alone (machines without one, tests);
//! `NERVE_KEYRING_SERVICE` names another keyring service (separate profiles).

mod store;

use thiserror::Error;

use crate::model::api_key::ApiKey;

pub use store::{KeyringStore, SecretStore, StoreError};

/// The keyring service the key is stored under.
pub const KEYRING_SERVICE: &str = "nerve";
/// The keyring user the key is stored under.
pub const KEYRING_USER: &str = "anthropic-api-key";
/// The environment variable read when the keyring has no key.
pub const API_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// Set to `off` to never touch the keyring.
pub const KEYRING_SWITCH_ENV: &str = "NERVE_KEYRING";
/// Overrides [`KEYRING_SERVICE`].
pub const KEYRING_SERVICE_ENV: &str = "NERVE_KEYRING_SERVICE";

/// Where the key in use came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeySource {
    /// The OS keyring.
    Keyring,
    /// `ANTHROPIC_API_KEY`.
    Environment,
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
    /// An empty key was given to store.
    #[error(
        "the API key is empty: pass it on standard input, for example `printf %s \"$KEY\" | nerve auth set`"
    )]
    EmptyKey,
}

/// The OS keyring entry of the key, unless `NERVE_KEYRING=off`.
pub fn os_store() -> Option<KeyringStore> {
    if std::env::var(KEYRING_SWITCH_ENV).is_ok_and(|v| v.trim().eq_ignore_ascii_case("off")) {
        return None;
    }
    let service = std::env::var(KEYRING_SERVICE_ENV)
        .ok()
        .filter(|s| !s.trim().is_empty())
        .unwrap_or_else(|| KEYRING_SERVICE.to_owned());
    Some(KeyringStore::new(service, KEYRING_USER))
}

fn env_key() -> Option<String> {
    std::env::var(API_KEY_ENV).ok()
}

/// The key: the OS keyring first, then `ANTHROPIC_API_KEY`. Blocks (the keyring is a D-Bus
/// call away); async callers run it on a blocking thread.
pub fn load_api_key() -> Result<LoadedKey, CredentialError> {
    let store = os_store();
    load_from(store.as_ref().map(|s| s as &dyn SecretStore), env_key())
}

/// Stores `key` in the OS keyring.
pub fn store_api_key(key: &ApiKey) -> Result<(), CredentialError> {
    let store = os_store().ok_or(CredentialError::KeyringOff)?;
    store_in(&store, key)
}

/// Removes the key from the OS keyring; `false` when none was stored.
pub fn delete_api_key() -> Result<bool, CredentialError> {
    let store = os_store().ok_or(CredentialError::KeyringOff)?;
    store.remove().map_err(CredentialError::Keyring)
}

/// [`load_api_key`] over any store and environment value.
pub fn load_from(store: Option<&dyn SecretStore>, env: Option<String>) -> Result<LoadedKey, CredentialError> {
    let mut keyring_problem = None;
    if let Some(store) = store {
        match store.read() {
            Ok(Some(secret)) if !secret.trim().is_empty() => {
                return Ok(LoadedKey {
                    key: ApiKey::new(secret),
                    source: KeySource::Keyring,
                    keyring_problem: None,
                });
            }
            Ok(_) => {}
            Err(e) => keyring_problem = Some(e),
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
