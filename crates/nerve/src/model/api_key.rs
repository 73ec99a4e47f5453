//! The API key as a secret that never reaches logs.

use std::fmt;

/// An Anthropic API key. `Debug` and `Display` print a placeholder, never the key, so the key
/// cannot leak through `tracing`, error messages or panics that format the client config.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key; surrounding whitespace (a common copy-paste accident) is removed.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into().trim().to_owned())
    }

    /// The key itself, for the one place that writes the `x-api-key` header.
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// True when no key was given.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

impl fmt::Display for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("<redacted>")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_is_never_formatted() {
        let key = ApiKey::new("  sk-ant-secret-123 \n");
        assert_eq!(key.expose(), "sk-ant-secret-123");
        for shown in [
            format!("{key}"),
            format!("{key:?}"),
            format!("{key:#?}"),
            format!("{:?}", Some(&key)),
        ] {
            assert!(!shown.contains("secret"), "leaked: {shown}");
            assert!(shown.contains("redacted"), "{shown}");
        }
    }
}
