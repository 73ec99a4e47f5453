//! Where a secret is kept: the OS keyring (the Secret Service on Linux, the Keychain on macOS,
//! the Credential Manager on Windows) behind a small trait, so the loading rules can be tested
//! without one.

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why the keyring could not answer.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// No keyring service could be reached.
    #[error("the OS keyring is not available: {0}")]
    Unavailable(String),
    /// The keyring is there but locked, or the user declined access.
    #[error("the OS keyring is locked or refused access ({0}); unlock it and try again")]
    Refused(String),
    /// The stored secret is not UTF-8 text.
    #[error("the secret stored in the OS keyring is not text; replace it with `nerve auth set`")]
    NotText,
    /// The keyring rejected the entry itself.
    #[error("the OS keyring rejected the entry: {0}")]
    Rejected(String),
}

/// One secret in a store.
pub trait SecretStore: Send + Sync {
    /// The secret, or `None` when nothing is stored.
    fn read(&self) -> Result<Option<String>, StoreError>;
    /// Stores (or replaces) the secret.
    fn write(&self, secret: &str) -> Result<(), StoreError>;
    /// Removes the secret; `false` when there was none.
    fn remove(&self) -> Result<bool, StoreError>;
}

/// A secret in the OS keyring, named by service and user.
#[derive(Debug, Clone)]
pub struct KeyringStore {
    service: String,
    user: String,
}

impl KeyringStore {
    /// The entry `service` / `user`.
    pub fn new(service: impl Into<String>, user: impl Into<String>) -> Self {
        Self {
            service: service.into(),
            user: user.into(),
        }
    }

    /// The service name.
    pub fn service(&self) -> &str {
        &self.service
    }

    /// The entry, through a Secret Service connection of its own: a keyring daemon restarted
    /// since the last call is found again.
    #[cfg(target_os = "linux")]
    fn entry(&self) -> Result<keyring_core::Entry, StoreError> {
        use keyring_core::api::CredentialStoreApi as _;
        dbus_secret_service_keyring_store::Store::new()
            .and_then(|store| store.build(&self.service, &self.user, None))
            .map_err(store_error)
    }

    /// Elsewhere, the platform's default store (none is built in on other systems yet).
    #[cfg(not(target_os = "linux"))]
    fn entry(&self) -> Result<keyring_core::Entry, StoreError> {
        keyring_core::Entry::new(&self.service, &self.user).map_err(store_error)
    }
}

impl SecretStore for KeyringStore {
    fn read(&self) -> Result<Option<String>, StoreError> {
        let entry = self.entry()?;
        match again_if_vanished(|| entry.get_password()) {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring_core::Error::NoEntry) => Ok(None),
            Err(e) => Err(store_error(e)),
        }
    }

    fn write(&self, secret: &str) -> Result<(), StoreError> {
        let entry = self.entry()?;
        again_if_vanished(|| entry.set_password(secret)).map_err(store_error)
    }

    fn remove(&self) -> Result<bool, StoreError> {
        let entry = self.entry()?;
        match again_if_vanished(|| entry.delete_credential()) {
            Ok(()) => Ok(true),
            Err(keyring_core::Error::NoEntry) => Ok(false),
            Err(e) => Err(store_error(e)),
        }
    }
}

/// A secret in a file only its owner can read (mode 0600, in a 0700 folder): where the key goes
/// when no keyring answers (a machine without a desktop keyring, a container), as Claude Code
/// keeps its credentials on Linux.
#[derive(Debug, Clone)]
pub struct FileStore {
    path: PathBuf,
}

impl FileStore {
    /// The secret at `path`.
    pub fn new(path: impl Into<PathBuf>) -> Self {
        Self { path: path.into() }
    }

    /// `<config dir>/nerve/credentials`, when the configuration folder is known.
    pub fn in_config_dir() -> Option<Self> {
        Some(Self::new(dirs::config_dir()?.join("nerve").join("credentials")))
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl SecretStore for FileStore {
    fn read(&self) -> Result<Option<String>, StoreError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => Ok(Some(text.trim().to_owned()).filter(|t| !t.is_empty())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(StoreError::Unavailable(format!("{}: {e}", self.path.display()))),
        }
    }

    fn write(&self, secret: &str) -> Result<(), StoreError> {
        use std::os::unix::fs::DirBuilderExt as _;
        let failed = |e: std::io::Error| StoreError::Rejected(format!("{}: {e}", self.path.display()));
        let folder = self.path.parent().unwrap_or(Path::new("."));
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(folder)
            .map_err(failed)?;
        // The project's atomic write (a temporary file of its own name, private from its first
        // byte, renamed over the key), so a full disk never leaves half a key and two writers never
        // share a temporary file.
        crate::files::write_private(&self.path, secret.as_bytes()).map_err(failed)?;
        Ok(())
    }

    fn remove(&self) -> Result<bool, StoreError> {
        match std::fs::remove_file(&self.path) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(StoreError::Rejected(format!("{}: {e}", self.path.display()))),
        }
    }
}

/// How many times one keyring call is made when items keep vanishing under it.
const VANISHED_ATTEMPTS: usize = 4;

/// Runs `call` again when the keyring found the item and then lost it: another process (the
/// desktop app signing out of a server, a second `nerve auth delete`) deleted it between the
/// Secret Service's search and the call on the item. Searching again answers from what is there
/// now, usually "no entry". Any other failure is returned at once.
fn again_if_vanished<T>(call: impl Fn() -> keyring_core::Result<T>) -> keyring_core::Result<T> {
    let mut attempt = 1;
    loop {
        match call() {
            Err(e) if attempt < VANISHED_ATTEMPTS && item_vanished(&e) => attempt += 1,
            result => return result,
        }
    }
}

/// Whether the failure says the item's D-Bus object is gone. Services answer a call on a deleted
/// item with one of these names (GLib-based ones, like gnome-keyring, used `UnknownMethod` before
/// `UnknownInterface` and `UnknownObject` existed).
#[cfg(target_os = "linux")]
fn item_vanished(e: &keyring_core::Error) -> bool {
    let keyring_core::Error::PlatformFailure(inner) = e else {
        return false;
    };
    let Some(dbus_secret_service::Error::Dbus(dbus)) = inner.downcast_ref() else {
        return false;
    };
    matches!(
        dbus.name(),
        Some(
            "org.freedesktop.DBus.Error.UnknownObject"
                | "org.freedesktop.DBus.Error.UnknownInterface"
                | "org.freedesktop.DBus.Error.UnknownMethod"
        )
    )
}

/// Elsewhere the keyring is not reached over D-Bus, and its items do not vanish mid-call.
#[cfg(not(target_os = "linux"))]
fn item_vanished(_: &keyring_core::Error) -> bool {
    false
}

fn store_error(e: keyring_core::Error) -> StoreError {
    match e {
        keyring_core::Error::PlatformFailure(inner) => StoreError::Unavailable(explain(&inner.to_string())),
        keyring_core::Error::NoStorageAccess(inner) => StoreError::Refused(inner.to_string()),
        keyring_core::Error::BadEncoding(_) => StoreError::NotText,
        other => StoreError::Rejected(other.to_string()),
    }
}

/// Turns D-Bus jargon into what the user can act on; the original follows in parentheses.
fn explain(message: &str) -> String {
    let hint = if message.contains("org.freedesktop.secrets") || message.contains("ServiceUnknown") {
        Some("no Secret Service (gnome-keyring, KeePassXC...) is running on the D-Bus session bus")
    } else if message.contains("DISPLAY")
        || message.contains("autolaunch")
        || message.contains("DBUS_SESSION_BUS_ADDRESS")
        || message.contains("Failed to connect to socket")
    {
        Some("there is no D-Bus session bus to reach a Secret Service through")
    } else {
        None
    };
    match hint {
        Some(hint) => format!("{hint} ({message})"),
        None => message.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dbus_failures_are_explained() {
        let no_service = explain(
            "org.freedesktop.DBus.Error.ServiceUnknown: The name org.freedesktop.secrets was not provided by any .service files",
        );
        assert!(no_service.starts_with("no Secret Service"), "{no_service}");
        assert!(no_service.contains("ServiceUnknown"));
        let no_bus = explain("Unable to autolaunch a dbus-daemon without a $DISPLAY for X11");
        assert!(no_bus.starts_with("there is no D-Bus session bus"), "{no_bus}");
        assert_eq!(explain("something else"), "something else");
    }

    #[test]
    fn the_file_store_keeps_the_secret_private_and_replaces_it_whole() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::new(dir.path().join("config/nerve/credentials"));
        assert_eq!(store.read(), Ok(None));
        store.write("sk-ant-first").unwrap();
        store.write("sk-ant-second").unwrap();
        assert_eq!(store.read(), Ok(Some("sk-ant-second".to_owned())));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(store.path()), 0o600);
        assert_eq!(mode(store.path().parent().unwrap()), 0o700);
        let left: Vec<_> = std::fs::read_dir(store.path().parent().unwrap())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(
            left,
            vec![std::ffi::OsString::from("credentials")],
            "no temporary file is left"
        );
        assert_eq!(store.remove(), Ok(true));
        assert_eq!(store.remove(), Ok(false));
    }

    #[test]
    fn writing_the_key_leaves_a_file_named_like_its_temporary_alone_and_concurrent_writes_succeed() {
        let dir = tempfile::tempdir().unwrap();
        let store = std::sync::Arc::new(FileStore::new(dir.path().join("credentials")));
        // The user's own file, named as a fixed temporary name would be.
        std::fs::write(dir.path().join("credentials.tmp"), "mine").unwrap();
        store.write("sk-ant-first").unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("credentials.tmp")).unwrap(),
            "mine"
        );
        let writers: Vec<_> = (0..4)
            .map(|n| {
                let store = std::sync::Arc::clone(&store);
                std::thread::spawn(move || {
                    for i in 0..50 {
                        store.write(&format!("sk-ant-{n}-{i}")).unwrap();
                    }
                })
            })
            .collect();
        for writer in writers {
            writer.join().unwrap();
        }
        let key = store.read().unwrap().unwrap();
        assert!(key.starts_with("sk-ant-") && key.ends_with("-49"), "{key}");
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn only_a_deleted_items_dbus_errors_count_as_vanished() {
        let dbus_failure = |name: &str| {
            keyring_core::Error::PlatformFailure(Box::new(dbus_secret_service::Error::Dbus(
                dbus::Error::new_custom(name, "No such interface on object at path /x/5"),
            )))
        };
        let vanished: Vec<bool> = [
            "org.freedesktop.DBus.Error.UnknownObject",
            "org.freedesktop.DBus.Error.UnknownInterface",
            "org.freedesktop.DBus.Error.UnknownMethod",
            "org.freedesktop.DBus.Error.ServiceUnknown",
            "org.freedesktop.DBus.Error.NoReply",
        ]
        .iter()
        .map(|name| item_vanished(&dbus_failure(name)))
        .collect();
        assert_eq!(vanished, [true, true, true, false, false]);
        assert!(!item_vanished(&keyring_core::Error::NoEntry));
        assert!(!item_vanished(&keyring_core::Error::PlatformFailure(Box::new(
            dbus_secret_service::Error::Locked
        ))));
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_vanished_item_is_looked_up_again_and_other_failures_are_not() {
        let calls = std::cell::Cell::new(0);
        let gone_once: keyring_core::Result<()> = again_if_vanished(|| {
            calls.set(calls.get() + 1);
            match calls.get() {
                1 => Err(keyring_core::Error::PlatformFailure(Box::new(
                    dbus_secret_service::Error::Dbus(dbus::Error::new_custom(
                        "org.freedesktop.DBus.Error.UnknownObject",
                        "gone",
                    )),
                ))),
                _ => Err(keyring_core::Error::NoEntry),
            }
        });
        assert!(matches!(gone_once, Err(keyring_core::Error::NoEntry)));
        assert_eq!(calls.get(), 2);

        calls.set(0);
        let always_gone: keyring_core::Result<()> = again_if_vanished(|| {
            calls.set(calls.get() + 1);
            Err(keyring_core::Error::PlatformFailure(Box::new(
                dbus_secret_service::Error::Dbus(dbus::Error::new_custom(
                    "org.freedesktop.DBus.Error.UnknownInterface",
                    "gone",
                )),
            )))
        });
        assert!(matches!(
            always_gone,
            Err(keyring_core::Error::PlatformFailure(_))
        ));
        assert_eq!(calls.get(), VANISHED_ATTEMPTS);

        calls.set(0);
        let refused: keyring_core::Result<()> = again_if_vanished(|| {
            calls.set(calls.get() + 1);
            Err(keyring_core::Error::NoStorageAccess(Box::new(
                dbus_secret_service::Error::Locked,
            )))
        });
        assert!(matches!(refused, Err(keyring_core::Error::NoStorageAccess(_))));
        assert_eq!(calls.get(), 1);
    }

    #[test]
    fn keyring_errors_map_to_store_errors() {
        assert_eq!(
            store_error(keyring_core::Error::BadEncoding(vec![0xff])),
            StoreError::NotText
        );
        assert!(matches!(
            store_error(keyring_core::Error::Invalid("user".into(), "empty".into())),
            StoreError::Rejected(_)
        ));
    }
}
