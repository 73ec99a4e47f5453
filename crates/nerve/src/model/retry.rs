//! When and how long to wait before sending a failed request again.
//!
//! Retried: HTTP 429, 529 and 500-599, connection failures, and streams that fail before any
//! content block arrived (nothing has been shown to the caller, so a retry is invisible). Not
//! retried: a stream that fails after content was delivered — the client reports
//! [`ModelError::StreamInterrupted`](crate::model::error::ModelError::StreamInterrupted) and the
//! agent loop decides whether to resend the whole request, discarding the partial message.

use std::time::{Duration, SystemTime};

use reqwest::header::HeaderMap;

/// Backoff settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Retries after the first attempt (0 disables retrying).
    pub max_retries: u32,
    /// Delay before the first retry; doubled for each further retry.
    pub base_delay: Duration,
    /// Upper bound of the computed backoff.
    pub max_delay: Duration,
    /// Longest server-requested wait (`retry-after`) that is honoured; a server asking for
    /// more ends the retries, so the user hears about the rate limit instead of a silent hang.
    pub max_server_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: 5,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(30),
            max_server_delay: Duration::from_secs(60),
        }
    }
}

impl RetryPolicy {
    /// Exponential backoff for the `retry_number`-th retry (1-based), capped at `max_delay`, then
    /// reduced by up to 25% by `jitter` (a value in `[0, 1)`), so clients that failed together
    /// do not come back together. Jitter only shortens, so the cap holds.
    pub fn backoff(&self, retry_number: u32, jitter: f64) -> Duration {
        let exponent = retry_number.saturating_sub(1).min(31);
        let raw = self.base_delay.saturating_mul(1u32 << exponent);
        let capped = raw.min(self.max_delay);
        capped.mul_f64(1.0 - 0.25 * jitter.clamp(0.0, 1.0))
    }

    /// Delay before the `retry_number`-th retry: the server's request when it gave one (and it is
    /// not longer than `max_server_delay`), else [`Self::backoff`]. `None` means do not retry.
    pub fn delay_for(
        &self,
        retry_number: u32,
        server_delay: Option<Duration>,
        jitter: f64,
    ) -> Option<Duration> {
        if retry_number == 0 || retry_number > self.max_retries {
            return None;
        }
        match server_delay {
            Some(delay) if delay > self.max_server_delay => None,
            Some(delay) => Some(delay),
            None => Some(self.backoff(retry_number, jitter)),
        }
    }
}

/// Statuses the API documents as temporary: rate limit (429), overload (529), server errors.
pub fn is_retryable_status(status: u16) -> bool {
    status == 429 || (500..=599).contains(&status)
}

/// The wait the server asked for: `retry-after-ms` (milliseconds), else `retry-after` as
/// seconds or as an HTTP date (relative to `now`; a date in the past means no wait).
pub fn server_retry_delay(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok()).map(str::trim);
    if let Some(ms) = header("retry-after-ms").and_then(|v| v.parse::<f64>().ok())
        && ms.is_finite()
        && ms >= 0.0
    {
        return Some(Duration::from_secs_f64(ms / 1000.0));
    }
    let value = header("retry-after")?;
    if let Ok(seconds) = value.parse::<f64>() {
        return (seconds.is_finite() && seconds >= 0.0).then(|| Duration::from_secs_f64(seconds));
    }
    let date = httpdate::parse_http_date(value).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// Why a request is being sent again: the protocol's type, which front-ends word themselves.
pub use nerve_protocol::RetryReason;

/// One retry, reported to the caller before waiting, so the UI can say
/// "overloaded, retrying in 2 s (attempt 2 of 5)".
#[derive(Debug, Clone, PartialEq)]
pub struct RetryNotice {
    /// Which retry this is (1-based).
    pub attempt: u32,
    /// The policy's maximum.
    pub max_retries: u32,
    /// How long the client waits before sending again.
    pub delay: Duration,
    /// What failed.
    pub reason: RetryReason,
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut map = HeaderMap::new();
        for (name, value) in pairs {
            map.insert(*name, HeaderValue::from_str(value).unwrap());
        }
        map
    }

    #[test]
    fn backoff_doubles_from_base_and_caps() {
        let policy = RetryPolicy::default();
        let delays: Vec<Duration> = (1..=8).map(|n| policy.backoff(n, 0.0)).collect();
        assert_eq!(
            delays,
            [500, 1000, 2000, 4000, 8000, 16000, 30000, 30000]
                .map(Duration::from_millis)
                .to_vec()
        );
        assert_eq!(policy.backoff(1, 1.0), Duration::from_millis(375));
        assert_eq!(policy.backoff(400, 0.0), Duration::from_secs(30));
    }

    #[test]
    fn delay_for_respects_max_retries_and_server_requests() {
        let policy = RetryPolicy::default();
        assert_eq!(policy.delay_for(1, None, 0.0), Some(Duration::from_millis(500)));
        assert_eq!(
            policy.delay_for(5, Some(Duration::from_secs(3)), 0.5),
            Some(Duration::from_secs(3))
        );
        assert_eq!(policy.delay_for(6, None, 0.0), None);
        assert_eq!(policy.delay_for(0, None, 0.0), None);
        assert_eq!(policy.delay_for(1, Some(Duration::from_secs(61)), 0.0), None);
    }

    #[test]
    fn retryable_statuses() {
        for status in [429, 500, 502, 503, 529, 599] {
            assert!(is_retryable_status(status), "{status}");
        }
        for status in [200, 400, 401, 403, 404, 408, 413, 600] {
            assert!(!is_retryable_status(status), "{status}");
        }
    }

    #[test]
    fn server_delay_headers() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
        assert_eq!(
            server_retry_delay(&headers(&[("retry-after", "7")]), now),
            Some(Duration::from_secs(7))
        );
        assert_eq!(
            server_retry_delay(&headers(&[("retry-after", "2"), ("retry-after-ms", "1500")]), now),
            Some(Duration::from_millis(1500))
        );
        let date = httpdate::fmt_http_date(now + Duration::from_secs(12));
        assert_eq!(
            server_retry_delay(&headers(&[("retry-after", &date)]), now),
            Some(Duration::from_secs(12))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(12));
        assert_eq!(
            server_retry_delay(&headers(&[("retry-after", &past)]), now),
            Some(Duration::ZERO)
        );
        assert_eq!(
            server_retry_delay(&headers(&[("retry-after", "soon")]), now),
            None
        );
        assert_eq!(server_retry_delay(&headers(&[("retry-after", "-3")]), now), None);
        assert_eq!(server_retry_delay(&HeaderMap::new(), now), None);
    }

    proptest! {
        #[test]
        fn backoff_never_exceeds_cap_nor_drops_below_three_quarters(n in 1u32..100, jitter in 0.0f64..1.0) {
            let policy = RetryPolicy::default();
            let delay = policy.backoff(n, jitter);
            let undithered = policy.backoff(n, 0.0);
            prop_assert!(delay <= policy.max_delay);
            prop_assert!(delay >= undithered.mul_f64(0.75));
        }
    }
}
