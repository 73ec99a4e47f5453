//! Host patterns of `sandbox.network.allowedDomains` and `deniedDomains`: `example.com` (that host),
//! `*.example.com` (its subdomains at any depth, not `example.com` itself), `*` (every host), each
//! optionally with `:port` (only that port; without one, every port). Comparison ignores case and a
//! trailing dot. A pattern that is none of these matches nothing (and is reported by the settings
//! check); for a deny list that would be a silent hole, so [`DomainList::invalid`] lists them.

/// What the settings say about one host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DomainVerdict {
    /// `deniedDomains` names it (this pattern).
    Denied(String),
    /// `allowedDomains` names it (this pattern).
    Allowed(String),
    /// Neither list names it.
    Unlisted,
}

/// A parsed host pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
struct DomainPattern {
    /// As written.
    text: String,
    /// Lowercase host without a trailing dot; `*.` kept for subdomain patterns; `*` for any.
    host: String,
    /// Only this port.
    port: Option<u16>,
}

impl DomainPattern {
    fn parse(text: &str) -> Option<Self> {
        let trimmed = text.trim();
        let (host, port) = match trimmed.rsplit_once(':') {
            Some((host, port)) if !host.contains(':') || host.ends_with(']') => {
                (host, Some(port.parse().ok()?))
            }
            _ => (trimmed, None),
        };
        if host.ends_with("*.") {
            return None;
        }
        let host = normalise(host);
        let name = host.strip_prefix("*.").unwrap_or(&host);
        let valid = host == "*"
            || (!name.is_empty()
                && name.split('.').all(|label| {
                    !label.is_empty()
                        && label
                            .chars()
                            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                }))
            || (host.starts_with('[') && host.ends_with(']'));
        valid.then(|| Self {
            text: text.to_string(),
            host,
            port,
        })
    }

    fn matches(&self, host: &str, port: u16) -> bool {
        if self.port.is_some_and(|p| p != port) {
            return false;
        }
        if self.host == "*" {
            return true;
        }
        match self.host.strip_prefix("*.") {
            Some(parent) => host
                .strip_suffix(parent)
                .is_some_and(|sub| sub.len() > 1 && sub.ends_with('.')),
            None => host == self.host,
        }
    }
}

fn normalise(host: &str) -> String {
    host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase()
}

/// The allowed and denied host patterns in effect.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DomainList {
    allowed: Vec<DomainPattern>,
    denied: Vec<DomainPattern>,
    invalid: Vec<String>,
}

impl DomainList {
    /// Parses both lists.
    pub fn new(allowed: &[String], denied: &[String]) -> Self {
        let mut list = Self::default();
        for (texts, into) in [(allowed, &mut list.allowed), (denied, &mut list.denied)] {
            for text in texts {
                match DomainPattern::parse(text) {
                    Some(p) => into.push(p),
                    None => list.invalid.push(text.clone()),
                }
            }
        }
        list
    }

    /// Patterns that are not host patterns (they match nothing).
    pub fn invalid(&self) -> &[String] {
        &self.invalid
    }

    /// What the lists say about `host:port`. Deny wins.
    pub fn verdict(&self, host: &str, port: u16) -> DomainVerdict {
        let host = normalise(host);
        if let Some(p) = self.denied.iter().find(|p| p.matches(&host, port)) {
            return DomainVerdict::Denied(p.text.clone());
        }
        if let Some(p) = self.allowed.iter().find(|p| p.matches(&host, port)) {
            return DomainVerdict::Allowed(p.text.clone());
        }
        DomainVerdict::Unlisted
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn list(allowed: &[&str], denied: &[&str]) -> DomainList {
        let owned = |l: &[&str]| l.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
        DomainList::new(&owned(allowed), &owned(denied))
    }

    #[test]
    fn patterns_match_hosts_ports_and_subdomains_and_deny_wins() {
        use DomainVerdict::{Allowed, Denied, Unlisted};
        let l = list(
            &[
                "pypi.org",
                "*.pythonhosted.org",
                "registry.local:8080",
                "Example.COM.",
            ],
            &["evil.pypi.org", "*.tracker.net", "pypi.org:25"],
        );
        let cases: &[(&str, u16, DomainVerdict)] = &[
            ("pypi.org", 443, Allowed("pypi.org".into())),
            ("PYPI.ORG.", 80, Allowed("pypi.org".into())),
            ("pypi.org", 25, Denied("pypi.org:25".into())),
            (
                "files.pythonhosted.org",
                443,
                Allowed("*.pythonhosted.org".into()),
            ),
            ("a.b.pythonhosted.org", 443, Allowed("*.pythonhosted.org".into())),
            ("pythonhosted.org", 443, Unlisted),
            ("evilpythonhosted.org", 443, Unlisted),
            ("registry.local", 8080, Allowed("registry.local:8080".into())),
            ("registry.local", 443, Unlisted),
            ("example.com", 443, Allowed("Example.COM.".into())),
            ("evil.pypi.org", 443, Denied("evil.pypi.org".into())),
            ("x.tracker.net", 443, Denied("*.tracker.net".into())),
            ("tracker.net", 443, Unlisted),
            ("pypi.org.evil.com", 443, Unlisted),
            ("", 443, Unlisted),
        ];
        for (host, port, want) in cases {
            assert_eq!(&l.verdict(host, *port), want, "{host}:{port}");
        }
        println!("checked {} host/port cases", cases.len());
        let everything = list(&[], &["*"]);
        assert_eq!(everything.verdict("a.b", 1), Denied("*".into()));
    }

    #[test]
    fn malformed_patterns_are_reported_and_match_nothing() {
        let bad = [
            "https://x.com/",
            "x.com:port",
            "a..b",
            "*.",
            "x.com:99999",
            "ex ample.com",
        ];
        let l = list(&bad, &bad);
        assert_eq!(l.invalid().len(), bad.len() * 2);
        assert_eq!(l.verdict("x.com", 443), DomainVerdict::Unlisted);
    }
}
