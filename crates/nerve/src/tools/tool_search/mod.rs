//! ToolSearch: loads deferred tools. With deferred loading on, some tools (MCP tools, rarely used
//! built-ins) are sent to the API by name and description only; the model finds and loads them
//! here, and from the next request on their full schemas are sent.
//!
//! Loading marks the tools in the session's shared [`crate::tool::ToolPool`]; it changes what
//! the model is shown, nothing in the user's world, so the tool counts as read-only and may run
//! alongside other reads.

mod query;
mod score;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::tool::ToolPool;
use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolRef, ToolUseContext, Validation};

use query::Query;
use score::Searchable;

/// The tool's name.
pub const NAME: &str = "ToolSearch";
/// Most results one search may return.
pub const MAX_RESULTS_LIMIT: usize = 50;

/// Input of [`ToolSearchTool`].
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct ToolSearchInput {
    /// What to look for. `select:Name1,Name2` loads exactly those tools (use the names listed as
    /// deferred). Anything else is a keyword search over deferred tools' names and descriptions,
    /// for example `slack message` or `+github issue` (a `+` marks a word every result must
    /// contain).
    pub query: String,
    /// Most tools to return for a keyword search (default 5, at most 50). Ignored by `select:`.
    #[serde(default = "default_max_results")]
    pub max_results: usize,
}

fn default_max_results() -> usize {
    5
}

/// Finds deferred tools and loads their schemas. Named `ToolSearch`.
#[derive(Debug, Default)]
pub struct ToolSearchTool;

#[async_trait]
impl Tool for ToolSearchTool {
    type Input = ToolSearchInput;

    fn kind(&self) -> nerve_protocol::ToolKind {
        nerve_protocol::ToolKind::Search
    }

    fn name(&self) -> &str {
        NAME
    }

    fn description(&self) -> String {
        "Loads deferred tools so you can call them. Some tools are listed by name only: their \
         input schema is not sent until you load them, and calling one before that fails \
         validation. Use `select:Name1,Name2` to load tools whose names you know (for example \
         `select:WebFetch`), or keywords to search deferred tools' names and descriptions (for \
         example `slack send message`; `+word` makes a word required). The result shows each \
         matching tool's full description and input schema; loaded tools stay loaded for the rest \
         of the session, so call them directly afterwards. `max_results` (default 5, at most 50) \
         limits keyword searches."
            .into()
    }

    fn always_load(&self) -> bool {
        // The way to load deferred tools cannot itself be deferred.
        true
    }

    fn is_read_only(&self, _input: &ToolSearchInput) -> bool {
        true
    }

    fn is_concurrency_safe(&self, _input: &ToolSearchInput) -> bool {
        true
    }

    fn summary(&self, input: &ToolSearchInput, _cwd: &std::path::Path) -> String {
        input.query.chars().take(60).collect()
    }

    async fn validate_input(&self, input: &ToolSearchInput, _ctx: &ToolUseContext) -> Validation {
        if input.query.trim().is_empty() {
            return Err("`query` is empty: give `select:ToolName` or a few keywords.".into());
        }
        if input.max_results == 0 || input.max_results > MAX_RESULTS_LIMIT {
            return Err(format!(
                "`max_results` must be between 1 and {MAX_RESULTS_LIMIT}, got {}.",
                input.max_results
            ));
        }
        Ok(())
    }

    async fn call(
        &self,
        input: ToolSearchInput,
        ctx: &ToolUseContext,
        _progress: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        let Some(pool) = ctx.config.tool_pool.as_deref() else {
            return Err(ToolError::Failed(
                "Tool search is not available here: this session has no tool list to search. \
                 Use the tools whose schemas you already have."
                    .into(),
            ));
        };
        let (found, missing) = match query::parse(&input.query) {
            Query::Select(names) => select(pool, &names),
            Query::Keywords { required, optional } => (
                keyword_search(pool, &required, &optional, input.max_results),
                Vec::new(),
            ),
        };
        pool.mark_loaded(found.iter().map(|t| t.name()));
        let names: Vec<&str> = found.iter().map(|t| t.name()).collect();
        let display = serde_json::json!({ "matches": names, "not_found": missing });
        Ok(ToolOutput::text(render(pool, &found, &missing, &input.query)).with_display(display))
    }
}

/// The named tools that exist (by name or alias), and the names that do not.
fn select(pool: &ToolPool, names: &[String]) -> (Vec<ToolRef>, Vec<String>) {
    let mut found: Vec<ToolRef> = Vec::new();
    let mut missing = Vec::new();
    for name in names {
        match pool.find(name) {
            Some(t) if !found.iter().any(|f| f.name() == t.name()) => found.push(t.clone()),
            Some(_) => {}
            None => missing.push(name.clone()),
        }
    }
    (found, missing)
}

/// Deferred tools ranked by score (ties by name, so results are stable), best first.
fn keyword_search(pool: &ToolPool, required: &[String], optional: &[String], max: usize) -> Vec<ToolRef> {
    let mut scored: Vec<(u32, &ToolRef)> = pool
        .tools()
        .iter()
        .filter(|t| pool.is_deferred(t.name()))
        .filter_map(|t| {
            Searchable::new(t.name(), &t.description())
                .score(required, optional)
                .map(|s| (s, t))
        })
        .collect();
    scored.sort_by(|(sa, a), (sb, b)| sb.cmp(sa).then_with(|| a.name().cmp(b.name())));
    scored.into_iter().take(max).map(|(_, t)| t.clone()).collect()
}

fn render(pool: &ToolPool, found: &[ToolRef], missing: &[String], query: &str) -> String {
    let mut out = String::new();
    if found.is_empty() {
        out.push_str(&format!("No tools matched \"{}\".", query.trim()));
    } else {
        out.push_str(&format!(
            "Loaded {} tool{}. Their schemas are now available: call them directly.\n",
            found.len(),
            if found.len() == 1 { "" } else { "s" }
        ));
        for tool in found {
            let schema = pool
                .schema_value(tool.name())
                .map(|v| serde_json::to_string_pretty(&*v).unwrap_or_else(|_| v.to_string()))
                .unwrap_or_else(|| "{}".into());
            out.push_str(&format!(
                "\n## {}\n{}\n\nInput schema:\n```json\n{schema}\n```\n",
                tool.name(),
                tool.description().trim_end()
            ));
        }
    }
    if !missing.is_empty() {
        out.push_str(&format!(
            "\nNo tool is named {}. Check the spelling against the tool list, or search by keyword.",
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if found.is_empty() && missing.is_empty() {
        out.push_str(" Try other keywords, fewer `+` words, or `select:` with a tool name from the list.");
    }
    out
}

#[cfg(test)]
mod tests;
