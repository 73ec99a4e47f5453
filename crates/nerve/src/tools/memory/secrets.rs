//! A small check for text that looks like a credential, so memory never stores one. It looks for
//! the shapes of common keys and tokens and for `password = ...` style assignments; it is a guard
//! against an honest mistake (the user pastes a key and says "remember this"), not a scanner that
//! finds every secret.

use std::sync::LazyLock;

use regex::Regex;

/// Each pattern with the kind of secret it names.
const PATTERNS: &[(&str, &str)] = &[
    ("a private key", r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),
    ("an Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{16,}"),
    ("an OpenAI-style API key", r"\bsk-(?:proj-)?[A-Za-z0-9_-]{20,}"),
    ("an AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    (
        "a GitHub token",
        r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})",
    ),
    ("a GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}"),
    ("a Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    ("a Google API key", r"\bAIza[0-9A-Za-z_-]{35}"),
    ("a Stripe key", r"\b[sr]k_(?:live|test)_[0-9A-Za-z]{16,}"),
    (
        "a JSON web token",
        r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    ),
    (
        "a URL with a password",
        r"[a-zA-Z][a-zA-Z0-9+.-]*://[^/\s:@]+:[^/\s@]{3,}@",
    ),
    (
        "a password or key assignment",
        r#"(?i)\b(?:password|passwd|pwd|secret|api[_-]?key|access[_-]?key|auth[_-]?token|token|client[_-]?secret)\b\s*[:=]\s*["']?[^\s"']{8,}"#,
    ),
];

#[allow(clippy::expect_used)] // literal patterns, each exercised by the tests
static COMPILED: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    PATTERNS
        .iter()
        .map(|(kind, pattern)| (*kind, Regex::new(pattern).expect("valid secret pattern")))
        .collect()
});

/// The kind of secret `text` seems to hold, if any.
pub fn looks_like_secret(text: &str) -> Option<&'static str> {
    COMPILED
        .iter()
        .find(|(_, re)| re.is_match(text))
        .map(|(kind, _)| *kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_credentials_are_recognised_and_ordinary_facts_are_not() {
        let secrets = [
            "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk=",
            "-----BEGIN RSA PRIVATE KEY-----",
            "my key is sk-ant-api03-AbCdEfGhIjKlMnOpQrStUv",
            "OPENAI_API_KEY sk-proj-abcdefghijklmnopqrstuvwx",
            "aws AKIAIOSFODNN7EXAMPLE",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789",
            "github_pat_11ABCDEFG0123456789_abcdefghij",
            "glpat-abcdefghijklmnopqrstu",
            "xoxb-1234567890-abcdefghij",
            "AIzaSyA-abcdefghijklmnopqrstuvwxyz012345",
            "sk_live_abcdefghijklmnop1234",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "postgres://admin:hunter22@db.internal:5432/app",
            "password = correct-horse-battery",
            "API_KEY: \"abcd1234efgh5678\"",
            "client_secret=0123456789abcdef",
        ];
        for text in secrets {
            assert!(looks_like_secret(text).is_some(), "missed: {text}");
        }
        let facts = [
            "Run the tests with `make check`.",
            "The user prefers tabs over spaces.",
            "Deploys go through the staging branch first.",
            "The password reset flow lives in src/auth/reset.rs.",
            "Use the token bucket in src/rate.rs for rate limits.",
            "Docs are at https://example.com/guide.",
            "The API key is read from the ANTHROPIC_API_KEY environment variable.",
            "sk- prefixes mark secret keys; never log them.",
        ];
        for text in facts {
            assert_eq!(looks_like_secret(text), None, "false alarm: {text}");
        }
        println!(
            "checked {} secrets and {} ordinary facts",
            secrets.len(),
            facts.len()
        );
    }
}
