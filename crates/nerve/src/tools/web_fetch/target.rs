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

/// Parses and checks `raw`; returns the URL to request. The error is for the model.
pub fn request_url(raw: &str) -> Result<Url, String> {
    let raw = raw.trim();
    if raw.len() > MAX_URL_LEN {
        return Err(format!(
            "The URL is {} bytes long; WebFetch accepts at most {MAX_URL_LEN}.",
            raw.len()
        ));
    }
    let mut url = Url::parse(raw).map_err(|e| {
        format!("`{raw}` is not a valid URL ({e}). Give a full URL such as https://example.com/page.")
    })?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(format!(
                "WebFetch only fetches http and https URLs, not `{other}:`."
            ));
        }
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(
            "URLs with a user name or password are not fetched: credentials must not go into a URL.".into(),
        );
    }
    let Some(host) = url.host_str().map(str::to_ascii_lowercase) else {
        return Err(format!("`{raw}` has no host name."));
    };
    // The permission system matched `raw`; the request must go where it looked.
    if let Some(judged) = url_host(raw)
        && judged != host
    {
        return Err(format!(
            "The URL's host is ambiguous (`{judged}` or `{host}`), so it is not fetched. Write the URL plainly."
        ));
    }
    if url.scheme() == "http" && !is_loopback_name(&host) {
        url.set_scheme("https")
            .map_err(|()| format!("could not switch `{raw}` to https"))?;
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
        assert!(
            request_url("file:///etc/passwd")
                .unwrap_err()
                .contains("only fetches http and https")
        );
        assert!(request_url("ftp://example.com/").unwrap_err().contains("`ftp:`"));
        assert!(
            request_url("https://user:pw@example.com/")
                .unwrap_err()
                .contains("password")
        );
        assert!(request_url("not a url").unwrap_err().contains("not a valid URL"));
        let long = format!("https://example.com/{}", "a".repeat(MAX_URL_LEN));
        assert!(request_url(&long).unwrap_err().contains("at most 2000"));
    }

    #[test]
    fn a_host_read_differently_by_the_rules_is_refused() {
        // The rule matcher drops the trailing dot, the HTTP client keeps it.
        let err = request_url("https://example.com./").unwrap_err();
        assert!(err.contains("ambiguous"), "{err}");
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
