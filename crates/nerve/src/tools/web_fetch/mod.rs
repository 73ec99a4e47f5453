//! WebFetch: fetches a URL, converts it to Markdown and answers a prompt about it with the small
//! model.
//!
//! Safety: only http(s); http upgraded to https except on loopback; redirects are not followed
//! automatically: a same-site one is (at most 10), another site is reported to the model, which
//! must call again with the new URL (and so go through the permission check for that host).
//! Permission rules see the URL (`WebFetch(domain:example.com)`); without an allow rule a fetch
//! asks. Bodies are read up to 10 MB, binary content is refused, everything runs under a connect
//! and a total timeout.
//!
//! The page cache (15 minutes) belongs to the tool instance: [`crate::registry::all_builtin_tools`]
//! creates one per call, so each session's pool has its own cache.

mod cache;
pub mod content;
pub mod fetch;
mod summarize;
pub mod target;

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::permissions::PermissionSubject;
use crate::tool::{InterruptBehavior, ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};

pub use cache::{CachedPage, PageCache};
pub use content::{ContentKind, classify_content_type, html_to_markdown};
pub use fetch::{FetchLimits, Fetched};
pub use summarize::{SYSTEM_PROMPT, summary_request};

use fetch::FetchError;

/// The tool's name.
pub const NAME: &str = "WebFetch";

/// Limits and cache settings.
#[derive(Debug, Clone)]
pub struct WebFetchOptions {
    /// Connect and total timeouts, body size cap, redirect cap.
    pub limits: FetchLimits,
    /// Page text kept (and handed on) at most, in bytes.
    pub max_content_bytes: usize,
    /// How long a fetched page is reused.
    pub cache_ttl: Duration,
    /// Pages kept at most.
    pub cache_capacity: NonZeroUsize,
}

impl Default for WebFetchOptions {
    fn default() -> Self {
        Self {
            limits: FetchLimits {
                connect_timeout: Duration::from_secs(10),
                total_timeout: Duration::from_secs(30),
                max_bytes: 10 * 1024 * 1024,
                max_redirects: 10,
            },
            max_content_bytes: 100_000,
            cache_ttl: Duration::from_secs(15 * 60),
            cache_capacity: NonZeroUsize::MIN.saturating_add(63),
        }
    }
}

/// Input of [`WebFetchTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WebFetchInput {
    /// The full URL to fetch, with scheme (`https://docs.rs/serde`). http is upgraded to https.
    pub url: String,
    /// What to find out from the page ("What does the `deny_unknown_fields` attribute do?").
    pub prompt: String,
}

/// What a fetch found: a page, or a redirect to another site (whose text tells the model the new
/// URL to fetch, if it wants to).
enum PageOrRedirect {
    Page(CachedPage),
    Redirect(String),
}

/// Fetches a web page and answers a prompt about it. Named `WebFetch`.
#[derive(Debug)]
pub struct WebFetchTool {
    options: WebFetchOptions,
    cache: Arc<PageCache>,
    /// One HTTP client for the session's fetches (its connections and TLS sessions are reused),
    /// built on the first fetch.
    client: std::sync::OnceLock<reqwest::Client>,
}

impl Default for WebFetchTool {
    fn default() -> Self {
        Self::new(WebFetchOptions::default())
    }
}

impl WebFetchTool {
    /// A tool with these limits and its own cache.
    pub fn new(options: WebFetchOptions) -> Self {
        let cache = Arc::new(PageCache::new(options.cache_capacity, options.cache_ttl));
        Self {
            options,
            cache,
            client: std::sync::OnceLock::new(),
        }
    }

    fn client(&self) -> Result<&reqwest::Client, ToolError> {
        if let Some(client) = self.client.get() {
            return Ok(client);
        }
        let client = fetch::build_client(self.options.limits.connect_timeout)
            .map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(self.client.get_or_init(|| client))
    }

    /// The page for `url`: from the cache, or fetched and converted (and then cached); or the
    /// other site a redirect points to.
    async fn page(&self, url: reqwest::Url, progress: &ProgressSink) -> Result<PageOrRedirect, ToolError> {
        let key = url.to_string();
        if let Some(page) = self.cache.get(&key) {
            return Ok(PageOrRedirect::Page(page));
        }
        progress.status(format!("fetching {key}"));
        let fetched = fetch::fetch(self.client()?, url, &self.options.limits)
            .await
            .map_err(|e: FetchError| ToolError::Failed(e.to_string()))?;
        let page = match fetched {
            Fetched::CrossSiteRedirect { from, to, status } => {
                return Ok(PageOrRedirect::Redirect(redirect_text(
                    from.as_str(),
                    to.as_str(),
                    status,
                )));
            }
            Fetched::Page(page) => page,
        };
        let mut text = content::to_text(page.kind, &page.body)
            .map_err(|e| ToolError::Failed(format!("{}: {e}", page.final_url)))?;
        let text_truncated = content::truncate_at_boundary(&mut text, self.options.max_content_bytes);
        let cached = CachedPage {
            final_url: page.final_url.to_string(),
            status: page.status,
            content_type: page.content_type,
            bytes: page.body.len(),
            body_truncated: page.truncated,
            text,
            text_truncated,
        };
        self.cache.put(&key, cached.clone());
        Ok(PageOrRedirect::Page(cached))
    }

    fn truncation_note(&self, page: &CachedPage) -> Option<String> {
        let mut notes = Vec::new();
        if page.body_truncated {
            notes.push(format!(
                "The response was larger than {} and was cut there; only that part was read.",
                human_bytes(self.options.limits.max_bytes)
            ));
        }
        if page.text_truncated {
            notes.push(format!(
                "The page's text was cut to its first {}.",
                human_bytes(self.options.max_content_bytes)
            ));
        }
        (!notes.is_empty()).then(|| format!("Note: {}", notes.join(" ")))
    }
}

#[async_trait]
impl Tool for WebFetchTool {
    type Input = WebFetchInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Fetch
    }

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> String {
        "Fetches a URL and answers `prompt` about its content. HTML is converted to Markdown; plain \
         text, Markdown, JSON and XML are read as they are; binary content (images, PDFs, archives) \
         is refused. A small fast model reads the page and answers the prompt, so ask for what you \
         need (\"list the breaking changes in 2.0\"), not for the whole page. Limits: http and \
         https only (http is upgraded to https), 10 MB per response, 30 s per fetch; pages are \
         cached for 15 minutes. A redirect to another host is not followed: the result names the \
         new URL and you call WebFetch again with it. Use it for public pages; it cannot reach \
         pages that need a login. The URL must be complete, e.g. https://docs.rs/tokio/latest/tokio/."
            .into()
    }

    fn should_defer(&self) -> bool {
        true
    }

    fn max_result_size_chars(&self) -> Option<usize> {
        // The page text is capped at 100 KB; the note around it must not push it into persistence.
        Some(self.options.max_content_bytes + 20_000)
    }

    fn is_read_only(&self, _input: &WebFetchInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &WebFetchInput) -> bool {
        true
    }

    fn interrupt_behavior(&self) -> InterruptBehavior {
        InterruptBehavior::Cancel
    }

    fn summary(&self, input: &WebFetchInput, _cwd: &std::path::Path) -> String {
        input.url.clone()
    }

    fn classifier_input(&self, input: &WebFetchInput) -> String {
        input.url.clone()
    }

    fn permission_subject(&self, input: &WebFetchInput, _ctx: &ToolUseContext) -> PermissionSubject {
        PermissionSubject::Url {
            url: input.url.clone(),
        }
    }

    async fn validate_input(&self, input: &WebFetchInput, _ctx: &ToolUseContext) -> Validation {
        if input.prompt.trim().is_empty() {
            return Err("`prompt` is empty: say what to find out from the page.".into());
        }
        target::request_url(&input.url)
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    async fn call(
        &self,
        input: WebFetchInput,
        ctx: &ToolUseContext,
        progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let url = target::request_url(&input.url).map_err(|e| ToolError::InvalidInput(e.to_string()))?;
        let requested = url.to_string();
        let cached_before = self.cache.get(&requested).is_some();
        let page = match self.page(url, progress).await? {
            PageOrRedirect::Page(page) => page,
            PageOrRedirect::Redirect(redirect) => {
                return Ok(ToolOutput::text(redirect).with_display(serde_json::json!({
                    "url": requested, "redirect": true,
                })));
            }
        };
        let note = self.truncation_note(&page);
        let (text, summarised) = match ctx.config.small_model.as_deref() {
            Some(model) => {
                progress.status("reading the page".to_string());
                match summarize::summarise(model, &page.text, &input.prompt).await {
                    Ok(answer) => (answer, true),
                    Err(why) => (
                        summarize::unsummarised(&page.text, &input.prompt, &why.to_string(), note.as_deref()),
                        false,
                    ),
                }
            }
            None => (
                summarize::unsummarised(
                    &page.text,
                    &input.prompt,
                    "No model is available to summarise this page",
                    note.as_deref(),
                ),
                false,
            ),
        };
        let text = match (&note, summarised) {
            (Some(note), true) => format!("{text}\n\n{note}"),
            _ => text,
        };
        let display = serde_json::json!({
            "url": requested,
            "final_url": page.final_url,
            "status": page.status,
            "content_type": page.content_type,
            "bytes": page.bytes,
            "cached": cached_before,
            "summarised": summarised,
        });
        Ok(ToolOutput::text(text).with_display(display))
    }
}

/// What the model is told about a redirect to another host.
fn redirect_text(from: &str, to: &str, status: u16) -> String {
    let reason = reqwest::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    format!(
        "REDIRECT DETECTED: The URL redirects to a different host.\n\nOriginal URL: {from}\nRedirect URL: \
         {to}\nStatus: {status} {reason}\n\nThe redirect was not followed. To fetch the content, call WebFetch \
         again with the new URL:\n- url: \"{to}\"\n(and the same prompt)."
    )
}

fn human_bytes(n: usize) -> String {
    if n >= 1024 * 1024 && n.is_multiple_of(1024 * 1024) {
        format!("{} MB", n / (1024 * 1024))
    } else if n >= 1000 && n.is_multiple_of(1000) {
        format!("{} KB", n / 1000)
    } else {
        format!("{n} bytes")
    }
}

#[cfg(test)]
mod tests;
