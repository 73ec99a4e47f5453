//! Where a secret is kept: the OS keyring (the Secret Service on Linux, the Keychain on macOS,
//! the Credential Manager on Windows) behind a small trait, so the loading rules can be tested
//! without one.

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

    fn entry(&self) -> Result<keyring::Entry, StoreError> {
        keyring::Entry::new(&self.service, &self.user).map_err(store_error)
    }
}

impl SecretStore for KeyringStore {
    fn read(&self) -> Result<Option<String>, StoreError> {
        match self.entry()?.get_password() {
            Ok(secret) => Ok(Some(secret)),
            Err(keyring::Error::NoEntry) => Ok(None),
            Err(e) => Err(store_error(e)),
        }
    }

    fn write(&self, secret: &str) -> Result<(), StoreError> {
        self.entry()?.set_password(secret).map_err(store_error)
    }

    fn remove(&self) -> Result<bool, StoreError> {
        match self.entry()?.delete_credential() {
            Ok(()) => Ok(true),
            Err(keyring::Error::NoEntry) => Ok(false),
            Err(e) => Err(store_error(e)),
        }
    }
}

fn store_error(e: keyring::Error) -> StoreError {
    match e {
        keyring::Error::PlatformFailure(inner) => StoreError::Unavailable(explain(&inner.to_string())),
        keyring::Error::NoStorageAccess(inner) => StoreError::Refused(inner.to_string()),
        keyring::Error::BadEncoding(_) => StoreError::NotText,
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
    fn keyring_errors_map_to_store_errors() {
        assert_eq!(
            store_error(keyring::Error::BadEncoding(vec![0xff])),
            StoreError::NotText
        );
        assert!(matches!(
            store_error(keyring::Error::Invalid("user".into(), "empty".into())),
            StoreError::Rejected(_)
        ));
    }
}
