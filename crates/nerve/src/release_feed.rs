//! Whether a newer Nerve exists: a release feed the user names (a URL in the app's settings) is
//! read and its version compared with the running one. Nothing is downloaded or installed: Linux
//! users update through their package manager, and the answer says how.
//!
//! The feed is a small JSON document: `{"version": "0.2.0", "url": "https://…", "notes": "…"}`.
//! Everything in it is untrusted: the version must parse, the link must be https, the notes are
//! plain text and cut short.

use std::time::Duration;

use nerve_protocol::release::UpdateStatus;
use serde::Deserialize;

/// How long a check may take: a slow feed must not hold anything up.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// The most of a feed read (it is a few hundred bytes).
const MAX_FEED_BYTES: usize = 64 * 1024;

/// The most of the notes kept.
const MAX_NOTES_CHARS: usize = 2_000;

/// How this copy of Nerve was installed, which decides how to update it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Install {
    /// From a .deb (apt).
    Apt,
    /// From an .rpm (dnf).
    Dnf,
    /// Built from source, or anything else.
    Other,
}

impl Install {
    /// How the running program was installed: a file of the dpkg or rpm database that lists it.
    pub fn detect() -> Install {
        let Ok(exe) = std::env::current_exe() else {
            return Install::Other;
        };
        let exe = exe.to_string_lossy().into_owned();
        if !exe.starts_with("/usr/") {
            return Install::Other;
        }
        let listed_by_dpkg = std::fs::read_dir("/var/lib/dpkg/info")
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().ends_with(".list"))
            .any(|e| std::fs::read_to_string(e.path()).is_ok_and(|list| list.lines().any(|l| l == exe)));
        if listed_by_dpkg {
            Install::Apt
        } else if std::path::Path::new("/var/lib/rpm").is_dir() {
            Install::Dnf
        } else {
            Install::Other
        }
    }

    /// What to run (or do) to get `latest`.
    pub fn how(self, package: &str) -> String {
        match self {
            Install::Apt => format!("sudo apt update && sudo apt install --only-upgrade {package}"),
            Install::Dnf => format!("sudo dnf upgrade {package}"),
            Install::Other => {
                "Download it from the release page, or update your copy of the source and build it again."
                    .to_string()
            }
        }
    }
}

/// The feed's document.
#[derive(Debug, Deserialize)]
struct Feed {
    version: String,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    notes: Option<String>,
}

/// Reads the feed at `url` and compares its version with `current`. Never fails: a feed that
/// cannot be read or makes no sense is [`UpdateStatus::Failed`] with the reason.
pub async fn check(url: Option<&str>, current: &str, install: Install, package: &str) -> UpdateStatus {
    let Some(url) = url.map(str::trim).filter(|u| !u.is_empty()) else {
        return UpdateStatus::Off;
    };
    match fetch(url).await {
        Ok(body) => judge(&body, current, install, package),
        Err(message) => UpdateStatus::Failed { message },
    }
}

async fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let client = crate::http::client_builder()
        .timeout(CHECK_TIMEOUT)
        .build()
        .map_err(|e| format!("could not set up HTTP: {e}"))?;
    let mut response = client
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| format!("could not reach the release feed {url}: {e}"))?;
    if !response.status().is_success() {
        return Err(format!("the release feed {url} answered {}", response.status()));
    }
    let mut body = Vec::new();
    while let Some(chunk) = response
        .chunk()
        .await
        .map_err(|e| format!("reading the release feed {url} failed: {e}"))?
    {
        body.extend_from_slice(&chunk);
        if body.len() > MAX_FEED_BYTES {
            return Err(format!(
                "the release feed {url} is larger than {MAX_FEED_BYTES} bytes"
            ));
        }
    }
    Ok(body)
}

/// The answer for a feed's `body`.
fn judge(body: &[u8], current: &str, install: Install, package: &str) -> UpdateStatus {
    let failed = |message: String| UpdateStatus::Failed { message };
    let feed: Feed = match serde_json::from_slice(body) {
        Ok(feed) => feed,
        Err(e) => return failed(format!("the release feed is not the expected JSON ({e})")),
    };
    let latest = match semver::Version::parse(feed.version.trim()) {
        Ok(v) => v,
        Err(e) => {
            return failed(format!(
                "the release feed's version `{}` is not a version ({e})",
                feed.version
            ));
        }
    };
    let running = match semver::Version::parse(current) {
        Ok(v) => v,
        Err(e) => return failed(format!("the running version `{current}` is not a version ({e})")),
    };
    if latest <= running {
        return UpdateStatus::Current {
            version: current.to_string(),
        };
    }
    UpdateStatus::Newer {
        current: current.to_string(),
        latest: latest.to_string(),
        url: feed
            .url
            .filter(|u| reqwest::Url::parse(u).is_ok_and(|u| u.scheme() == "https")),
        notes: feed.notes.map(|n| {
            n.chars()
                .filter(|c| !c.is_control() || *c == '\n')
                .take(MAX_NOTES_CHARS)
                .collect()
        }),
        how: install.how(package),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_newer_version_says_how_to_get_it() {
        let feed = br#"{"version": "0.2.0", "url": "https://nerve.example/releases/0.2.0", "notes": "Faster.\u001b[31m"}"#;
        assert_eq!(
            judge(feed, "0.1.0", Install::Apt, "nerve"),
            UpdateStatus::Newer {
                current: "0.1.0".into(),
                latest: "0.2.0".into(),
                url: Some("https://nerve.example/releases/0.2.0".into()),
                notes: Some("Faster.[31m".into()),
                how: "sudo apt update && sudo apt install --only-upgrade nerve".into(),
            }
        );
    }

    #[test]
    fn the_same_or_an_older_version_is_current() {
        for version in ["0.1.0", "0.0.9", "0.1.0-rc.1"] {
            let feed = format!(r#"{{"version": "{version}"}}"#);
            assert_eq!(
                judge(feed.as_bytes(), "0.1.0", Install::Other, "nerve"),
                UpdateStatus::Current {
                    version: "0.1.0".into()
                },
                "{version}"
            );
        }
    }

    #[test]
    fn a_bad_feed_is_a_failure_in_words_and_a_plain_http_link_is_dropped() {
        let not_json = judge(b"<html>", "0.1.0", Install::Other, "nerve");
        assert!(
            matches!(&not_json, UpdateStatus::Failed { message } if message.starts_with("the release feed is not the expected JSON")),
            "{not_json:?}"
        );
        let bad_version = judge(br#"{"version": "latest"}"#, "0.1.0", Install::Other, "nerve");
        assert!(
            matches!(&bad_version, UpdateStatus::Failed { message } if message.contains("`latest` is not a version")),
            "{bad_version:?}"
        );
        let http = judge(
            br#"{"version": "1.0.0", "url": "http://evil.example"}"#,
            "0.1.0",
            Install::Dnf,
            "nerve",
        );
        assert!(
            matches!(&http, UpdateStatus::Newer { url: None, how, .. } if how == "sudo dnf upgrade nerve"),
            "{http:?}"
        );
    }

    #[tokio::test]
    async fn no_feed_is_off_and_an_unreachable_one_fails_in_words() {
        assert_eq!(
            check(None, "0.1.0", Install::Other, "nerve").await,
            UpdateStatus::Off
        );
        assert_eq!(
            check(Some("  "), "0.1.0", Install::Other, "nerve").await,
            UpdateStatus::Off
        );
        let refused = check(
            Some("http://127.0.0.1:9/feed.json"),
            "0.1.0",
            Install::Other,
            "nerve",
        )
        .await;
        assert!(
            matches!(&refused, UpdateStatus::Failed { message } if message.starts_with("could not reach the release feed http://127.0.0.1:9/feed.json")),
            "{refused:?}"
        );
    }
}
