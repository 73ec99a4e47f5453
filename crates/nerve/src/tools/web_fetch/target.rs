//! Which URLs WebFetch accepts, and the URL it actually requests.
//!
//! Only http and https. Plain http is upgraded to https, except for the loopback host names
//! (`localhost`, `127.0.0.1`, `[::1]`), where local servers rarely speak TLS. The host the request
//! goes to must be the host the permission rules judged ([`url_host`]): a URL that a rule matcher
//! and the HTTP client would read differently is refused rather than guessed at.

use reqwest::Url;

use crate::permissions::matching::domain::url_host;

/// Longest URL accepted, in bytes.
pub const MAX_URL_LEN: usize = 2_000;

/// Why WebFetch will not request a URL; the message is for the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UrlRefusal {
    /// Longer than [`MAX_URL_LEN`].
    #[error("The URL is {len} bytes long; WebFetch accepts at most {MAX_URL_LEN}.")]
    TooLong {
        /// Its length in bytes.
        len: usize,
    },
    /// Not a URL.
    #[error("`{raw}` is not a valid URL ({reason}). Give a full URL such as https://example.com/page.")]
    Invalid {
        /// The URL as given.
        raw: String,
        /// The parser's complaint.
        reason: String,
    },
    /// Neither http nor https.
    #[error("WebFetch only fetches http and https URLs, not `{scheme}:`.")]
    Scheme {
        /// The scheme given.
        scheme: String,
    },
    /// A user name or password in the URL.
    #[error("URLs with a user name or password are not fetched: credentials must not go into a URL.")]
    Credentials,
    /// No host.
    #[error("`{raw}` has no host name.")]
    NoHost {
        /// The URL as given.
        raw: String,
    },
    /// The permission rules and the HTTP client would read different hosts.
    #[error(
        "The URL's host is ambiguous (`{judged}` or `{host}`), so it is not fetched. Write the URL plainly."
    )]
    AmbiguousHost {
        /// The host the permission rules judged.
        judged: String,
        /// The host the request would go to.
        host: String,
    },
    /// The upgrade to https failed.
    #[error("could not switch `{raw}` to https")]
    Upgrade {
        /// The URL as given.
        raw: String,
    },
}

/// Parses and checks `raw`; returns the URL to request.
pub fn request_url(raw: &str) -> Result<Url, UrlRefusal> {
    let raw = raw.trim();
    if raw.len() > MAX_URL_LEN {
        return Err(UrlRefusal::TooLong { len: raw.len() });
    }
    let mut url = Url::parse(raw).map_err(|e| UrlRefusal::Invalid {
        raw: raw.to_string(),
        reason: e.to_string(),
    })?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(UrlRefusal::Scheme {
                scheme: other.to_string(),
            });
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(UrlRefusal::Credentials);
    }
    let Some(host) = url.host_str().map(str::to_ascii_lowercase) else {
        return Err(UrlRefusal::NoHost { raw: raw.to_string() });
    };
    // The permission system matched `raw`; the request must go where it looked.
    if let Some(judged) = url_host(raw)
        && judged != host
    {
        return Err(UrlRefusal::AmbiguousHost { judged, host });
    }
    if url.scheme() == "http" && !is_loopback_name(&host) {
        url.set_scheme("https")
            .map_err(|()| UrlRefusal::Upgrade { raw: raw.to_string() })?;
    }
    Ok(url)
}

/// Hosts reached over plain http without an upgrade.
pub fn is_loopback_name(host: &str) -> bool {
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

/// Whether a redirect from `from` to `to` stays on the same site and may be followed: same scheme
/// and port, no credentials, and the same host once a leading `www.` is ignored.
pub fn is_same_site_redirect(from: &Url, to: &Url) -> bool {
    fn bare(url: &Url) -> Option<String> {
        let host = url.host_str()?.to_ascii_lowercase();
        Some(host.strip_prefix("www.").map(str::to_string).unwrap_or(host))
    }
    from.scheme() == to.scheme()
        && from.port_or_known_default() == to.port_or_known_default()
        && to.username().is_empty()
        && to.password().is_none()
        && bare(from).is_some()
        && bare(from) == bare(to)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn http_is_upgraded_except_on_loopback() {
        assert_eq!(
            request_url("http://example.com/a?b=1").unwrap().as_str(),
            "https://example.com/a?b=1"
        );
        assert_eq!(
            request_url("https://example.com").unwrap().as_str(),
            "https://example.com/"
        );
        assert_eq!(
            request_url("http://127.0.0.1:8080/x").unwrap().as_str(),
            "http://127.0.0.1:8080/x"
        );
        assert_eq!(
            request_url("http://localhost/").unwrap().as_str(),
            "http://localhost/"
        );
        assert_eq!(
            request_url("http://[::1]:9/").unwrap().as_str(),
            "http://[::1]:9/"
        );
    }

    #[test]
    fn other_schemes_credentials_and_long_urls_are_refused() {
        let scheme = |s: &str| Err(UrlRefusal::Scheme { scheme: s.into() });
        assert_eq!(request_url("file:///etc/passwd"), scheme("file"));
        assert_eq!(request_url("ftp://example.com/"), scheme("ftp"));
        assert_eq!(
            request_url("https://user:pw@example.com/"),
            Err(UrlRefusal::Credentials)
        );
        assert!(matches!(
            request_url("not a url"),
            Err(UrlRefusal::Invalid { raw, .. }) if raw == "not a url"
        ));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_LEN));
        assert_eq!(request_url(&long), Err(UrlRefusal::TooLong { len: long.len() }));
        // What the model reads.
        assert_eq!(
            request_url("ftp://example.com/").unwrap_err().to_string(),
            "WebFetch only fetches http and https URLs, not `ftp:`."
        );
    }

    #[test]
    fn a_host_read_differently_by_the_rules_is_refused() {
        // The rule matcher drops the trailing dot, the HTTP client keeps it.
        assert_eq!(
            request_url("https://example.com./"),
            Err(UrlRefusal::AmbiguousHost {
                judged: "example.com".into(),
                host: "example.com.".into()
            })
        );
        // Both read `evil.com` here (the backslash ends the authority): consistent, accepted.
        let url = request_url("https://evil.com\\@good.com/").unwrap();
        assert_eq!(url.host_str(), Some("evil.com"));
        // Non-canonical numeric hosts give no rule host at all: no rule matches them, so they are
        // judged by asking, and fetched only after approval.
        assert!(request_url("http://0x7f.1/").is_ok());
    }

    #[test]
    fn same_site_redirects_ignore_www_only() {
        let from = url("https://example.com/a");
        assert!(is_same_site_redirect(&from, &url("https://www.example.com/b")));
        assert!(is_same_site_redirect(
            &url("https://www.example.com/"),
            &url("https://example.com/b")
        ));
        assert!(is_same_site_redirect(&from, &url("https://EXAMPLE.com:443/c")));
        assert!(!is_same_site_redirect(&from, &url("https://other.com/")));
        assert!(!is_same_site_redirect(&from, &url("https://docs.example.com/")));
        assert!(
            !is_same_site_redirect(&from, &url("http://example.com/")),
            "scheme change"
        );
        assert!(
            !is_same_site_redirect(&from, &url("https://example.com:8443/")),
            "port change"
        );
        assert!(
            !is_same_site_redirect(&from, &url("https://u:p@example.com/")),
            "credentials"
        );
    }
}
