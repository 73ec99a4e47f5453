use std::sync::Mutex;

use pretty_assertions::assert_eq;

use super::*;

/// A store in memory, or one that always fails.
#[derive(Default)]
struct Memory {
    secret: Mutex<Option<String>>,
    fail: Option<StoreError>,
}

impl Memory {
    fn with(secret: &str) -> Self {
        Self {
            secret: Mutex::new(Some(secret.to_owned())),
            fail: None,
        }
    }
    fn failing(e: StoreError) -> Self {
        Self {
            secret: Mutex::new(None),
            fail: Some(e),
        }
    }
}

impl SecretStore for Memory {
    fn read(&self) -> Result<Option<String>, StoreError> {
        match &self.fail {
            Some(e) => Err(e.clone()),
            None => Ok(self.secret.lock().unwrap().clone()),
        }
    }
    fn write(&self, secret: &str) -> Result<(), StoreError> {
        match &self.fail {
            Some(e) => Err(e.clone()),
            None => {
                *self.secret.lock().unwrap() = Some(secret.to_owned());
                Ok(())
            }
        }
    }
    fn remove(&self) -> Result<bool, StoreError> {
        match &self.fail {
            Some(e) => Err(e.clone()),
            None => Ok(self.secret.lock().unwrap().take().is_some()),
        }
    }
}

fn unavailable() -> StoreError {
    StoreError::Unavailable("no Secret Service is running on the D-Bus session bus".into())
}

#[test]
fn the_keyring_comes_first() {
    let store = Memory::with("sk-ant-from-keyring");
    let loaded = load_from(Some(&store), Some("sk-ant-from-env".into())).unwrap();
    assert_eq!(loaded.key.expose(), "sk-ant-from-keyring");
    assert_eq!(loaded.source, KeySource::Keyring);
    assert_eq!(loaded.keyring_problem, None);
}

#[test]
fn the_environment_is_the_fallback() {
    let empty = Memory::default();
    let loaded = load_from(Some(&empty), Some(" sk-ant-env \n".into())).unwrap();
    assert_eq!(loaded.key.expose(), "sk-ant-env");
    assert_eq!(loaded.source, KeySource::Environment);
    assert_eq!(loaded.keyring_problem, None);

    let blank = Memory::with("  ");
    assert_eq!(
        load_from(Some(&blank), Some("k".into())).unwrap().source,
        KeySource::Environment
    );
    assert_eq!(
        load_from(None, Some("k".into())).unwrap().source,
        KeySource::Environment
    );
}

#[test]
fn an_unavailable_keyring_is_reported_and_passed_over() {
    let broken = Memory::failing(unavailable());
    let loaded = load_from(Some(&broken), Some("sk-ant-env".into())).unwrap();
    assert_eq!(loaded.source, KeySource::Environment);
    assert_eq!(loaded.keyring_problem, Some(unavailable()));

    let err = load_from(Some(&broken), None).unwrap_err();
    assert_eq!(err, CredentialError::MissingKeyringUnavailable(unavailable()));
    let text = err.to_string();
    assert!(text.contains("no Secret Service is running"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY is not set"), "{text}");
}

#[test]
fn no_key_anywhere_says_how_to_set_one() {
    let text = load_from(Some(&Memory::default()), Some("   ".into()))
        .unwrap_err()
        .to_string();
    assert!(text.contains("nerve auth set"), "{text}");
    assert!(text.contains("ANTHROPIC_API_KEY"), "{text}");
}

#[test]
fn storing_rejects_an_empty_key_and_reports_keyring_failures() {
    let store = Memory::default();
    assert_eq!(
        store_in(&store, &ApiKey::new(" \n")),
        Err(CredentialError::EmptyKey)
    );
    store_in(&store, &ApiKey::new("sk-ant-new\n")).unwrap();
    assert_eq!(store.read().unwrap().as_deref(), Some("sk-ant-new"));
    let broken = Memory::failing(unavailable());
    assert_eq!(
        store_in(&broken, &ApiKey::new("k")),
        Err(CredentialError::Keyring(unavailable()))
    );
}

#[test]
fn masks_show_only_the_prefix() {
    let key = ApiKey::new("sk-ant-api03-abcdefghijklmnopqrstuvwxyz");
    assert_eq!(mask(&key), "sk-ant-…");
    assert_eq!(mask(&ApiKey::new("short-key")), "…");
}

#[test]
fn a_loaded_key_never_shows_in_debug_output() {
    let store = Memory::with("sk-ant-secret-value-1234567890");
    let loaded = load_from(Some(&store), None).unwrap();
    let shown = format!("{loaded:?}");
    assert!(!shown.contains("secret-value"), "{shown}");
}

#[test]
fn without_a_keyring_the_key_goes_to_the_private_file_and_is_found_there() {
    let dir = tempfile::tempdir().unwrap();
    let file = FileStore::new(dir.path().join("nerve/credentials"));
    let broken = Memory::failing(unavailable());
    let stored = store_in_either(&broken, Some(&file), &ApiKey::new("sk-ant-in-file")).unwrap();
    assert_eq!(
        stored,
        StoredIn::File {
            path: file.path().to_path_buf(),
            keyring_problem: unavailable(),
        }
    );
    let loaded = load_from_stores(Some(&broken), Some(&file), Some("sk-ant-env".into())).unwrap();
    assert_eq!(loaded.key.expose(), "sk-ant-in-file");
    assert_eq!(loaded.source, KeySource::File);
    assert!(
        loaded.keyring_problem.is_none(),
        "the file is the answer, not a problem"
    );

    // Once the keyring answers, the key goes there and the file copy is removed.
    let keyring = Memory::default();
    assert_eq!(
        store_in_either(&keyring, Some(&file), &ApiKey::new("sk-ant-keyring")),
        Ok(StoredIn::Keyring)
    );
    assert!(!file.path().exists());
    assert_eq!(
        load_from_stores(Some(&keyring), Some(&file), None)
            .unwrap()
            .source,
        KeySource::Keyring
    );
}

#[test]
fn a_locked_keyring_is_an_error_not_a_reason_to_write_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = FileStore::new(dir.path().join("nerve/credentials"));
    let locked = Memory::failing(StoreError::Refused("locked".into()));
    assert!(matches!(
        store_in_either(&locked, Some(&file), &ApiKey::new("k")),
        Err(CredentialError::Keyring(StoreError::Refused(_)))
    ));
    assert!(!file.path().exists());
}
