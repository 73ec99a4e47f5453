//! WebSearch: searches the web through the Messages API's server-side web search tool, in a side
//! request of its own (the conversation's model never holds the search tool itself), and returns
//! the results' titles and links with a short answer written from them.
//!
//! It reaches the web, so it asks like WebFetch does (allowed by a `WebSearch` rule, refused by a
//! deny rule). The model may keep a search to some domains or away from some; the user's
//! `WebFetch(domain:…)` deny rules also hold here: results from those sites are left out, and said
//! to be. Where the model server does not offer web search, the tool is not offered at all (see
//! [`offered`]).

use std::fmt::Write as _;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

use crate::model::small::DomainFilter;
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext, Validation};

/// The tool's name.
pub const NAME: &str = "WebSearch";

/// Input of the WebSearch tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct WebSearchInput {
    /// The search query.
    pub query: String,
    /// Only include results from these domains (not with `blocked_domains`).
    #[serde(default)]
    pub allowed_domains: Option<Vec<String>>,
    /// Never include results from these domains (not with `allowed_domains`).
    #[serde(default)]
    pub blocked_domains: Option<Vec<String>>,
}

/// Whether WebSearch is offered to the model: `NERVE_WEB_SEARCH` decides when set; otherwise only
/// on Anthropic's own API, whose server-side search other servers (gateways, local servers,
/// OpenAI-compatible ones) generally do not have.
pub fn offered(env: &crate::engine_env::EngineEnv, base_url: &str) -> bool {
    env.web_search.unwrap_or_else(|| {
        reqwest::Url::parse(base_url)
            .ok()
            .and_then(|u| u.host_str().map(str::to_ascii_lowercase))
            .is_some_and(|host| host == "api.anthropic.com")
    })
}

/// The WebSearch tool.
#[derive(Debug, Default)]
pub struct WebSearchTool;

const DESCRIPTION: &str = "Search the web and get the results' titles and links, with a short answer \
written from them. Use it for what is beyond your knowledge or may have changed: current versions, \
recent releases, documentation of a library you do not know, an error message's known causes. \
Give a specific query (name the library and its version, quote an error). Keep a search to \
particular sites with `allowed_domains`, or away from some with `blocked_domains` (not both). Then \
read a promising page with WebFetch when you need more than the answer says. After answering from \
search results, list the links you used under \"Sources:\".";

/// One search result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
struct Hit {
    title: String,
    url: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_age: Option<String>,
}

#[async_trait]
impl Tool for WebSearchTool {
    type Input = WebSearchInput;

    fn name(&self) -> &str {
        NAME
    }

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Fetch
    }

    fn description(&self) -> String {
        DESCRIPTION.to_string()
    }

    fn is_concurrency_safe(&self, _input: &WebSearchInput) -> bool {
        true
    }

    fn summary(&self, input: &WebSearchInput, _cwd: &std::path::Path) -> String {
        input.query.clone()
    }

    fn classifier_input(&self, input: &WebSearchInput) -> String {
        format!("search the web for: {}", input.query)
    }

    async fn validate_input(&self, input: &WebSearchInput, ctx: &ToolUseContext) -> Validation {
        if input.query.trim().chars().count() < 2 {
            return Err("`query` must have at least 2 characters.".into());
        }
        if input.allowed_domains.as_ref().is_some_and(|d| !d.is_empty())
            && input.blocked_domains.as_ref().is_some_and(|d| !d.is_empty())
        {
            return Err("Give `allowed_domains` or `blocked_domains`, not both.".into());
        }
        if ctx.config.small_model.is_none() {
            return Err("Web search is not available in this session (no model server for it).".into());
        }
        Ok(())
    }

    async fn call(
        &self,
        input: WebSearchInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let model = ctx
            .config
            .small_model
            .clone()
            .ok_or_else(|| ToolError::Failed("Web search is not available in this session.".into()))?;
        let denied = denied_domains(ctx);
        let filter = match (input.allowed_domains.clone(), input.blocked_domains.clone()) {
            (Some(only), _) if !only.is_empty() => DomainFilter::Only(only),
            (_, Some(mut not)) if !not.is_empty() => {
                not.extend(denied.iter().cloned());
                DomainFilter::Not(not)
            }
            _ if !denied.is_empty() => DomainFilter::Not(denied.clone()),
            _ => DomainFilter::Any,
        };
        let answer = model
            .web_search(input.query.trim(), &filter)
            .await
            .map_err(|e| ToolError::Failed(format!("The web search failed: {e}")))?;
        let parsed = parse_answer(&answer);
        if let Some(code) = &parsed.error {
            return Err(ToolError::Failed(format!(
                "The web search failed: the server said `{code}`{}.",
                error_advice(code)
            )));
        }
        // The user's deny rules hold whatever the server returned.
        let rules = ctx.permissions.rules.snapshot();
        let (hits, left_out): (Vec<Hit>, Vec<Hit>) = parsed
            .hits
            .into_iter()
            .partition(|h| !rules.denies_domain(&h.url));
        let mut text = format!("Web search results for \"{}\":\n\n", input.query.trim());
        if hits.is_empty() {
            text.push_str("No results.\n");
        }
        for (i, hit) in hits.iter().enumerate() {
            let _ = write!(text, "{}. {} — {}", i + 1, hit.title, hit.url);
            if let Some(age) = &hit.page_age {
                let _ = write!(text, " ({age})");
            }
            text.push('\n');
        }
        if !left_out.is_empty() {
            let _ = writeln!(
                text,
                "({} result(s) left out: the user's rules deny those sites.)",
                left_out.len()
            );
        }
        if !parsed.answer.trim().is_empty() {
            let _ = write!(text, "\nWhat the results say:\n{}\n", parsed.answer.trim());
        }
        text.push_str("\nCite the links you use under \"Sources:\" in your answer.");
        Ok(ToolOutput::text(text).with_display(json!({
            "query": input.query.trim(),
            "results": hits,
            "left_out": left_out.len(),
            "searches": parsed.searches,
        })))
    }
}

/// What the answer message held.
#[derive(Debug, Default, PartialEq)]
struct Parsed {
    hits: Vec<Hit>,
    answer: String,
    searches: usize,
    error: Option<String>,
}

/// Reads the server's answer: `web_search_tool_result` blocks (results, or an error code) and the
/// text written from them. Anything unexpected is skipped: the answer is untrusted input.
fn parse_answer(message: &Value) -> Parsed {
    let mut parsed = Parsed::default();
    let Some(blocks) = message.get("content").and_then(Value::as_array) else {
        return parsed;
    };
    let text_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("server_tool_use") => parsed.searches += 1,
            Some("web_search_tool_result") => match block.get("content") {
                Some(Value::Array(results)) => {
                    for r in results {
                        if r.get("type").and_then(Value::as_str) != Some("web_search_result") {
                            continue;
                        }
                        let (Some(url), title) = (text_of(r, "url"), text_of(r, "title")) else {
                            continue;
                        };
                        if !parsed.hits.iter().any(|h| h.url == url) {
                            parsed.hits.push(Hit {
                                title: title.unwrap_or_else(|| url.clone()),
                                url,
                                page_age: text_of(r, "page_age"),
                            });
                        }
                    }
                }
                Some(error) => {
                    parsed.error = Some(text_of(error, "error_code").unwrap_or_else(|| "unknown".into()));
                }
                None => {}
            },
            Some("text") => {
                if let Some(t) = block.get("text").and_then(Value::as_str) {
                    parsed.answer.push_str(t);
                }
            }
            _ => {}
        }
    }
    parsed
}

/// What the model can do about a search error code.
fn error_advice(code: &str) -> &'static str {
    match code {
        "max_uses_exceeded" => " (too many searches in one call; search again with a narrower query)",
        "too_many_requests" => " (rate limited; wait before searching again)",
        "query_too_long" => " (shorten the query)",
        "invalid_input" => " (the query or domain lists were refused; check them)",
        _ => "",
    }
}

/// The hosts of the user's `WebFetch(domain:…)` deny rules (without `*.`), for the request's
/// blocked list.
fn denied_domains(ctx: &ToolUseContext) -> Vec<String> {
    let rules = ctx.permissions.rules.snapshot();
    rules
        .denied_domains()
        .map(|host| host.trim_start_matches("*.").to_string())
        .filter(|host| !host.is_empty() && host != "*")
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_gives_deduplicated_results_the_text_and_error_codes() {
        let message = json!({"content": [
            {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
            {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [
                {"type": "web_search_result", "title": "A", "url": "https://a.example/", "page_age": "2 days ago", "encrypted_content": "x"},
                {"type": "web_search_result", "title": "A again", "url": "https://a.example/"},
                {"type": "web_search_result", "url": "https://b.example/"},
                {"type": "something_else"}
            ]},
            {"type": "text", "text": "A says yes."}
        ]});
        assert_eq!(
            parse_answer(&message),
            Parsed {
                hits: vec![
                    Hit {
                        title: "A".into(),
                        url: "https://a.example/".into(),
                        page_age: Some("2 days ago".into())
                    },
                    Hit {
                        title: "https://b.example/".into(),
                        url: "https://b.example/".into(),
                        page_age: None
                    },
                ],
                answer: "A says yes.".into(),
                searches: 1,
                error: None,
            }
        );
        let failed = json!({"content": [{"type": "web_search_tool_result", "tool_use_id": "s",
            "content": {"type": "web_search_tool_result_error", "error_code": "max_uses_exceeded"}}]});
        assert_eq!(parse_answer(&failed).error.as_deref(), Some("max_uses_exceeded"));
        assert_eq!(parse_answer(&json!("not a message")), Parsed::default());
    }

    #[test]
    fn offered_on_anthropics_api_or_when_the_environment_says() {
        let env = crate::engine_env::EngineEnv::default();
        assert!(offered(&env, "https://api.anthropic.com"));
        assert!(!offered(&env, "http://127.0.0.1:8080"));
        assert!(!offered(&env, "https://gateway.example.com/anthropic"));
        let on = crate::engine_env::EngineEnv {
            web_search: Some(true),
            ..Default::default()
        };
        assert!(offered(&on, "http://127.0.0.1:8080"));
        let off = crate::engine_env::EngineEnv {
            web_search: Some(false),
            ..Default::default()
        };
        assert!(!offered(&off, "https://api.anthropic.com"));
    }
}
