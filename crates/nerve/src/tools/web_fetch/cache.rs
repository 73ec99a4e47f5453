//! A short-lived cache of converted pages, keyed by the requested URL: asking several questions
//! about one page fetches it once. Entries expire after a fixed time (pages change) and the least
//! recently used go first when the cache is full. It caches the page's text, not the answer: the
//! answer depends on the prompt.

use std::num::NonZeroUsize;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use lru::LruCache;

/// A converted page.
#[derive(Debug, Clone, PartialEq)]
pub struct CachedPage {
    /// Where the content came from (after same-site redirects).
    pub final_url: String,
    /// HTTP status code.
    pub status: u16,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// Bytes received.
    pub bytes: usize,
    /// Whether the body was cut at the size limit.
    pub body_truncated: bool,
    /// The page as Markdown or text, already cut to the content limit.
    pub text: String,
    /// Whether `text` was cut to the content limit.
    pub text_truncated: bool,
}

/// The cache. Shared by the calls of one tool instance (one per session's tool pool).
#[derive(Debug)]
pub struct PageCache {
    ttl: Duration,
    entries: Mutex<LruCache<String, (Instant, CachedPage)>>,
}

impl PageCache {
    /// A cache of at most `capacity` pages, each kept for `ttl`.
    pub fn new(capacity: NonZeroUsize, ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::new(LruCache::new(capacity)),
        }
    }

    /// The page for `url` if it was stored less than `ttl` ago.
    pub fn get(&self, url: &str) -> Option<CachedPage> {
        self.get_at(url, Instant::now())
    }

    fn get_at(&self, url: &str, now: Instant) -> Option<CachedPage> {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        match entries.get(url) {
            Some((stored, page)) if now.saturating_duration_since(*stored) < self.ttl => Some(page.clone()),
            Some(_) => {
                entries.pop(url);
                None
            }
            None => None,
        }
    }

    /// Stores the page for `url`.
    pub fn put(&self, url: &str, page: CachedPage) {
        self.put_at(url, page, Instant::now());
    }

    fn put_at(&self, url: &str, page: CachedPage, now: Instant) {
        let mut entries = self
            .entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        entries.put(url.to_string(), (now, page));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn page(text: &str) -> CachedPage {
        CachedPage {
            final_url: "https://x.test/".into(),
            status: 200,
            content_type: Some("text/plain".into()),
            bytes: text.len(),
            body_truncated: false,
            text: text.into(),
            text_truncated: false,
        }
    }

    fn cache(capacity: usize) -> PageCache {
        PageCache::new(NonZeroUsize::new(capacity).unwrap(), Duration::from_secs(900))
    }

    #[test]
    fn entries_expire_after_the_ttl() {
        let c = cache(4);
        let t0 = Instant::now();
        c.put_at("u", page("a"), t0);
        assert_eq!(c.get_at("u", t0 + Duration::from_secs(899)), Some(page("a")));
        assert_eq!(c.get_at("u", t0 + Duration::from_secs(900)), None);
        assert_eq!(c.get_at("u", t0), None, "an expired entry is removed");
    }

    #[test]
    fn least_recently_used_is_evicted() {
        let c = cache(2);
        c.put("a", page("a"));
        c.put("b", page("b"));
        assert!(c.get("a").is_some());
        c.put("c", page("c"));
        assert!(c.get("b").is_none());
        assert!(c.get("a").is_some() && c.get("c").is_some());
    }
}
