//! The HTTP side of WebFetch: one GET per hop, redirects handled by hand (automatic following is
//! off), a cap on the bytes read, and a refusal of binary content before its body is downloaded.

use std::time::Duration;

use reqwest::Url;
use reqwest::header::{ACCEPT, CONTENT_TYPE, LOCATION, USER_AGENT};

use crate::tools::web_fetch::content::{ContentKind, classify_content_type};
use crate::tools::web_fetch::target::is_same_site_redirect;

/// Limits of one fetch.
#[derive(Debug, Clone)]
pub struct FetchLimits {
    /// Time allowed to establish a connection.
    pub connect_timeout: Duration,
    /// Time allowed for the whole fetch, redirects included.
    pub total_timeout: Duration,
    /// Bytes of body read at most; the rest is not downloaded.
    pub max_bytes: usize,
    /// Same-site redirects followed at most.
    pub max_redirects: usize,
}

/// A page that was read.
#[derive(Debug, Clone, PartialEq)]
pub struct Page {
    /// Where the body came from (after same-site redirects).
    pub final_url: Url,
    /// HTTP status code.
    pub status: u16,
    /// The `Content-Type` header, if any.
    pub content_type: Option<String>,
    /// How the body should be read.
    pub kind: ContentKind,
    /// The body, at most `max_bytes` long.
    pub body: Vec<u8>,
    /// Whether the body was cut at `max_bytes`.
    pub truncated: bool,
}

/// What a fetch ended with.
#[derive(Debug, Clone, PartialEq)]
pub enum Fetched {
    /// A page (2xx).
    Page(Page),
    /// A redirect to another site, not followed: the model decides whether to fetch it.
    CrossSiteRedirect {
        /// The URL that redirected.
        from: Url,
        /// Where it points.
        to: Url,
        /// The redirect status (301, 302, 303, 307, 308).
        status: u16,
    },
}

/// Why a fetch failed. Messages are for the model.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// The whole fetch took longer than allowed.
    #[error(
        "fetching {url} took longer than {} s and was stopped; the server may be slow or unreachable, try again later or another URL",
        .limit.as_secs_f64()
    )]
    Timeout {
        /// The URL asked for.
        url: String,
        /// The limit.
        limit: Duration,
    },
    /// The request failed (DNS, connection, TLS).
    #[error("could not fetch {url}: {message}")]
    Request {
        /// The URL of the failing hop.
        url: String,
        /// What went wrong.
        message: String,
    },
    /// The server answered with an error status.
    #[error("{url} answered HTTP {status}{}", reason.map(|r| format!(" {r}")).unwrap_or_default())]
    Status {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
        /// The canonical reason phrase.
        reason: Option<&'static str>,
    },
    /// A redirect without a usable `Location`.
    #[error("{url} answered a redirect ({status}) without a valid Location header")]
    BadRedirect {
        /// The URL.
        url: String,
        /// The status code.
        status: u16,
    },
    /// Same-site redirects went on longer than allowed.
    #[error("{url} redirected more than {max} times; stopped (a redirect loop?)")]
    TooManyRedirects {
        /// The URL asked for.
        url: String,
        /// The limit.
        max: usize,
    },
    /// The HTTP client could not be set up (no TLS backend...).
    #[error("could not set up the HTTP client: {0}")]
    Client(#[source] reqwest::Error),
    /// The content is binary.
    #[error(
        "{url} returned {content_type}, which is binary content WebFetch cannot read; it reads HTML, plain text, Markdown, JSON and XML"
    )]
    Binary {
        /// The URL.
        url: String,
        /// The content type.
        content_type: String,
    },
}

/// Fetches `url`, following same-site redirects, within `limits`.
pub async fn fetch(client: &reqwest::Client, url: Url, limits: &FetchLimits) -> Result<Fetched, FetchError> {
    let asked = url.to_string();
    match tokio::time::timeout(limits.total_timeout, follow(client, url, limits)).await {
        Ok(result) => result,
        Err(_) => Err(FetchError::Timeout {
            url: asked,
            limit: limits.total_timeout,
        }),
    }
}

/// A client that never follows redirects itself (each hop is checked here).
pub fn build_client(connect_timeout: Duration) -> Result<reqwest::Client, FetchError> {
    crate::http::client_builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(connect_timeout)
        .build()
        .map_err(FetchError::Client)
}

async fn follow(client: &reqwest::Client, mut url: Url, limits: &FetchLimits) -> Result<Fetched, FetchError> {
    let asked = url.to_string();
    let mut redirects = 0;
    loop {
        let response = client
            .get(url.clone())
            .header(USER_AGENT, concat!("Nerve-WebFetch/", env!("CARGO_PKG_VERSION")))
            .header(
                ACCEPT,
                "text/markdown, text/html;q=0.9, text/plain;q=0.8, */*;q=0.5",
            )
            .send()
            .await
            .map_err(|e| FetchError::Request {
                url: url.to_string(),
                message: describe_reqwest(&e),
            })?;
        let status = response.status();
        if status.is_redirection() && status.as_u16() != 304 {
            let to = response
                .headers()
                .get(LOCATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|loc| url.join(loc).ok())
                .ok_or_else(|| FetchError::BadRedirect {
                    url: url.to_string(),
                    status: status.as_u16(),
                })?;
            if !is_same_site_redirect(&url, &to) {
                return Ok(Fetched::CrossSiteRedirect {
                    from: url,
                    to,
                    status: status.as_u16(),
                });
            }
            redirects += 1;
            if redirects > limits.max_redirects {
                return Err(FetchError::TooManyRedirects {
                    url: asked,
                    max: limits.max_redirects,
                });
            }
            url = to;
            continue;
        }
        if !status.is_success() {
            return Err(FetchError::Status {
                url: url.to_string(),
                status: status.as_u16(),
                reason: status.canonical_reason(),
            });
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let kind = classify_content_type(content_type.as_deref());
        if kind == ContentKind::Binary {
            return Err(FetchError::Binary {
                url: url.to_string(),
                content_type: content_type.unwrap_or_default(),
            });
        }
        let (body, truncated) = read_capped(response, limits.max_bytes, &url).await?;
        return Ok(Fetched::Page(Page {
            final_url: url,
            status: status.as_u16(),
            content_type,
            kind,
            body,
            truncated,
        }));
    }
}

/// Reads at most `max` bytes; stops downloading as soon as the cap is passed.
async fn read_capped(
    mut response: reqwest::Response,
    max: usize,
    url: &Url,
) -> Result<(Vec<u8>, bool), FetchError> {
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| FetchError::Request {
        url: url.to_string(),
        message: describe_reqwest(&e),
    })? {
        let room = max - body.len();
        if chunk.len() > room {
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, true));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((body, false))
}

/// reqwest's top-level message hides the cause ("error sending request"); the source says it.
fn describe_reqwest(e: &reqwest::Error) -> String {
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    if e.is_connect() {
        message.push_str(" (the host could not be reached)");
    }
    message
}
