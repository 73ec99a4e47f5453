//! `WebFetch(domain:...)` rules against a URL's host.
//!
//! A URL whose host cannot be extracted with confidence (no scheme, empty host, percent-encoding,
//! non-ASCII, whitespace, a numeric host in a non-canonical form such as `0x7f.1`) matches no rule.
//! The resolver should treat such a URL as "ask": it can tell the cases apart with [`url_host`],
//! which returns `None` for exactly those URLs.

/// The lowercase host of `url`, or `None` if it cannot be extracted unambiguously.
///
/// Follows the WHATWG reading where it matters for spoofing: the authority ends at `/`, `\`, `?` or
/// `#`; user info before the last `@` is dropped (`http://good.com@evil.com/` is `evil.com`); a
/// port must be digits. Anything a browser would rewrite (percent-escapes, Unicode, tabs, exotic
/// IPv4 forms) gives `None` instead of a guess.
pub fn url_host(url: &str) -> Option<String> {
    let url = url.trim();
    let (scheme, rest) = url.split_once("://")?;
    let mut scheme_chars = scheme.chars();
    let starts_with_letter = scheme_chars.next().is_some_and(|c| c.is_ascii_alphabetic());
    if !starts_with_letter || !scheme_chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    {
        return None;
    }
    let authority_end = rest.find(['/', '\\', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let host_port = match authority.rfind('@') {
        Some(at) => &authority[at + 1..],
        None => authority,
    };
    let host = if let Some(bracketed) = host_port.strip_prefix('[') {
        let (inside, after) = bracketed.split_once(']')?;
        if !inside
            .chars()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'))
        {
            return None;
        }
        if !is_valid_port_suffix(after) {
            return None;
        }
        return Some(format!("[{}]", inside.to_ascii_lowercase()));
    } else {
        match host_port.rsplit_once(':') {
            Some((host, port)) => {
                if !is_valid_port_suffix(&format!(":{port}")) {
                    return None;
                }
                host
            }
            None => host_port,
        }
    };
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    let valid_chars = host
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_'));
    if host.is_empty() || !valid_chars || host.split('.').any(str::is_empty) {
        return None;
    }
    if looks_numeric(&host) && !is_canonical_ipv4(&host) {
        return None;
    }
    Some(host)
}

fn is_valid_port_suffix(after: &str) -> bool {
    match after.strip_prefix(':') {
        None => after.is_empty(),
        Some(port) => port.chars().all(|c| c.is_ascii_digit()),
    }
}

/// WHATWG parses a host whose last label is a number as IPv4, in decimal, octal or hex.
fn looks_numeric(host: &str) -> bool {
    host.rsplit('.').next().is_some_and(|last| {
        !last.is_empty()
            && (last.chars().all(|c| c.is_ascii_digit())
                || last
                    .strip_prefix("0x")
                    .is_some_and(|hex| hex.chars().all(|c| c.is_ascii_hexdigit())))
    })
}

fn is_canonical_ipv4(host: &str) -> bool {
    let parts: Vec<&str> = host.split('.').collect();
    parts.len() == 4
        && parts
            .iter()
            .all(|part| part.parse::<u8>().is_ok() && (part.len() == 1 || !part.starts_with('0')))
}

/// Whether a `domain:` rule's host pattern is well formed: `*`, a host name, `*.` followed by a host
/// name, or a bracketed IPv6 address. A malformed one could never match, so a deny written with it
/// would silently do nothing; the rule parser rejects it instead.
pub fn is_valid_host_pattern(host_pattern: &str) -> bool {
    if host_pattern == "*" {
        return true;
    }
    if let Some(inside) = host_pattern.strip_prefix('[').and_then(|p| p.strip_suffix(']')) {
        return !inside.is_empty()
            && inside
                .chars()
                .all(|c| c.is_ascii_hexdigit() || matches!(c, ':' | '.'));
    }
    let host = host_pattern.strip_prefix("*.").unwrap_or(host_pattern);
    let host = host.strip_suffix('.').unwrap_or(host);
    !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
        })
}

/// Whether `url`'s host matches the rule's host pattern.
///
/// `host_pattern` may carry the `domain:` prefix or not. `example.com` matches exactly that host
/// (and `example.com.`); `*.example.com` matches any subdomain at any depth but not `example.com`
/// itself; `*` matches any host that could be extracted. Comparison is case-insensitive. An
/// unparsable URL never matches (see the module docs).
pub fn domain_rule_matches(host_pattern: &str, url: &str) -> bool {
    let Some(host) = url_host(url) else {
        return false;
    };
    let pattern = host_pattern.strip_prefix("domain:").unwrap_or(host_pattern);
    let pattern = pattern.trim();
    let pattern = pattern.strip_suffix('.').unwrap_or(pattern).to_ascii_lowercase();
    if pattern == "*" {
        return true;
    }
    match pattern.strip_prefix("*.") {
        Some(parent) => host
            .strip_suffix(parent)
            .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
        None => host == pattern,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn extracts_hosts_like_a_browser_or_refuses() {
        let cases = [
            ("https://example.com/path?q=1", Some("example.com")),
            ("https://EXAMPLE.com:8443/", Some("example.com")),
            ("http://user:pw@example.com/", Some("example.com")),
            ("http://example.com@evil.com/", Some("evil.com")),
            ("http://evil.com\\@example.com/", Some("evil.com")),
            ("http://evil.com#@example.com", Some("evil.com")),
            ("https://example.com./", Some("example.com")),
            ("http://127.0.0.1:3000", Some("127.0.0.1")),
            ("http://[::1]:8080/", Some("[::1]")),
            ("example.com", None),
            ("https://", None),
            ("https://exa%6dple.com/", None),
            ("https://exa mple.com/", None),
            ("https://exämple.com/", None),
            ("http://0x7f.1/", None),
            ("http://2130706433/", None),
            ("http://127.000.0.1/", None),
            ("http://example.com:abc/", None),
            ("http://a..b/", None),
        ];
        for (url, expected) in cases {
            assert_eq!(url_host(url).as_deref(), expected, "{url}");
        }
    }

    #[test]
    fn exact_and_wildcard_domains() {
        assert!(domain_rule_matches("example.com", "https://example.com/x"));
        assert!(domain_rule_matches("domain:example.com", "https://Example.COM"));
        assert!(domain_rule_matches("EXAMPLE.com", "https://example.com"));
        assert!(!domain_rule_matches("example.com", "https://api.example.com"));
        assert!(!domain_rule_matches("example.com", "https://notexample.com"));
        assert!(!domain_rule_matches("example.com", "https://example.com.evil.io"));
        assert!(domain_rule_matches("*.example.com", "https://api.example.com"));
        assert!(domain_rule_matches("*.example.com", "https://a.b.example.com"));
        assert!(!domain_rule_matches("*.example.com", "https://example.com"));
        assert!(!domain_rule_matches("*.example.com", "https://badexample.com"));
        assert!(domain_rule_matches("*", "https://anything.io"));
    }

    #[test]
    fn validates_host_patterns() {
        for good in [
            "example.com",
            "*.example.com",
            "*",
            "localhost",
            "[::1]",
            "EXAMPLE.com.",
        ] {
            assert!(is_valid_host_pattern(good), "{good}");
        }
        for bad in [
            "",
            "*.",
            "exa mple.com",
            "https://example.com",
            "a..b",
            "ex*ample.com",
            "[]",
        ] {
            assert!(!is_valid_host_pattern(bad), "{bad}");
        }
    }

    #[test]
    fn unparsable_urls_match_nothing() {
        assert!(!domain_rule_matches("*", "not a url"));
        assert!(!domain_rule_matches("example.com", "example.com"));
    }
}
