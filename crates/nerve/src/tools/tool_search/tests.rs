use std::sync::Arc;

use async_trait::async_trait;
use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::*;
use crate::tool::{ToolOrigin, ToolRef};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct FakeInput {
    /// A number.
    count: u32,
}

/// A tool with a given name, description, origin and deferral.
#[derive(Debug)]
struct Fake {
    name: &'static str,
    description: &'static str,
    origin: ToolOrigin,
    defer: bool,
}

#[async_trait]
impl Tool for Fake {
    type Input = FakeInput;
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> String {
        self.description.into()
    }
    fn origin(&self) -> ToolOrigin {
        self.origin
    }
    fn should_defer(&self) -> bool {
        self.defer
    }
    async fn call(
        &self,
        _i: FakeInput,
        _c: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::default())
    }
}

fn fake(name: &'static str, description: &'static str, origin: ToolOrigin, defer: bool) -> ToolRef {
    Arc::new(Fake {
        name,
        description,
        origin,
        defer,
    })
}

fn pool() -> Arc<ToolPool> {
    let tools = vec![
        fake("Read", "Reads a file.", ToolOrigin::BuiltIn, false),
        fake(
            "NotebookEdit",
            "Edits a Jupyter notebook cell.",
            ToolOrigin::BuiltIn,
            true,
        ),
        fake(
            "mcp__slack__send_message",
            "Posts a message to a Slack channel.",
            ToolOrigin::Mcp,
            false,
        ),
        fake(
            "mcp__slack__list_channels",
            "Lists channels.",
            ToolOrigin::Mcp,
            false,
        ),
        fake(
            "mcp__github__create_issue",
            "Opens an issue; can post a message.",
            ToolOrigin::Mcp,
            false,
        ),
        Arc::new(ToolSearchTool),
    ];
    Arc::new(ToolPool::new(tools, true).unwrap())
}

fn ctx(pool: Option<Arc<ToolPool>>) -> ToolUseContext {
    let mut ctx = ToolUseContext::for_tests(std::env::temp_dir());
    let mut config = (*ctx.config).clone();
    config.tool_pool = pool;
    ctx.config = Arc::new(config);
    ctx
}

async fn search(pool: &Arc<ToolPool>, query: &str, max: usize) -> (String, serde_json::Value) {
    let input = ToolSearchInput {
        query: query.into(),
        max_results: max,
    };
    let out = ToolSearchTool
        .call(input, &ctx(Some(Arc::clone(pool))), &ProgressSink::discard("t"))
        .await
        .unwrap();
    let text = match &out.content[..] {
        [crate::tool::ResultBlock::Text { text }] => text.clone(),
        other => panic!("unexpected content {other:?}"),
    };
    (text, out.display.unwrap())
}

#[tokio::test]
async fn select_loads_exactly_the_named_tools_and_shows_their_schemas() {
    let pool = pool();
    assert!(pool.is_unloaded_deferred("NotebookEdit"));
    let (text, display) = search(&pool, "select:NotebookEdit,mcp__slack__list_channels", 5).await;
    assert_eq!(
        display["matches"],
        serde_json::json!(["NotebookEdit", "mcp__slack__list_channels"])
    );
    assert!(text.starts_with("Loaded 2 tools."), "{text}");
    assert!(
        text.contains("## NotebookEdit\nEdits a Jupyter notebook cell."),
        "{text}"
    );
    assert!(text.contains("\"count\""), "the schema is shown: {text}");
    assert!(!pool.is_unloaded_deferred("NotebookEdit"));
    assert!(!pool.is_unloaded_deferred("mcp__slack__list_channels"));
    assert!(
        pool.is_unloaded_deferred("mcp__slack__send_message"),
        "others stay deferred"
    );
    let spec = pool
        .specs()
        .into_iter()
        .find(|s| s.name == "NotebookEdit")
        .unwrap();
    assert!(spec.input_schema.is_some() && !spec.deferred);
}

#[tokio::test]
async fn select_reports_unknown_names() {
    let pool = pool();
    let (text, display) = search(&pool, "select:Nope,NotebookEdit", 5).await;
    assert_eq!(display["not_found"], serde_json::json!(["Nope"]));
    assert!(text.contains("No tool is named \"Nope\""), "{text}");
    let (text, _) = search(&pool, "select:Nope", 5).await;
    assert!(text.starts_with("No tools matched"), "{text}");
}

#[tokio::test]
async fn keywords_rank_name_matches_over_description_matches() {
    let pool = pool();
    let (_, display) = search(&pool, "slack message", 5).await;
    assert_eq!(
        display["matches"],
        serde_json::json!([
            "mcp__slack__send_message",
            "mcp__slack__list_channels",
            "mcp__github__create_issue"
        ])
    );
    assert!(
        !pool.is_unloaded_deferred("mcp__github__create_issue"),
        "matches are loaded"
    );
}

#[tokio::test]
async fn keywords_search_only_deferred_tools_and_honour_required_words_and_limit() {
    let pool = pool();
    let (_, display) = search(&pool, "read file", 5).await;
    assert_eq!(display["matches"], serde_json::json!([]), "Read is not deferred");
    let (_, display) = search(&pool, "+github message", 5).await;
    assert_eq!(
        display["matches"],
        serde_json::json!(["mcp__github__create_issue"])
    );
    let (_, display) = search(&pool, "SLACK", 1).await;
    assert_eq!(
        display["matches"],
        serde_json::json!(["mcp__slack__list_channels"]),
        "equal scores are ordered by name"
    );
    assert!(
        pool.is_unloaded_deferred("mcp__slack__send_message"),
        "beyond the limit: not loaded"
    );
}

#[tokio::test]
async fn without_a_pool_the_call_fails_with_an_explanation() {
    let input = ToolSearchInput {
        query: "select:Read".into(),
        max_results: 5,
    };
    let err = ToolSearchTool
        .call(input, &ctx(None), &ProgressSink::discard("t"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("no tool list"), "{err}");
}

#[tokio::test]
async fn validation_rejects_empty_query_and_bad_limits() {
    let c = ctx(None);
    let check = |query: &str, max| {
        let input = ToolSearchInput {
            query: query.into(),
            max_results: max,
        };
        let c = c.clone();
        async move { ToolSearchTool.validate_input(&input, &c).await }
    };
    assert!(check("  ", 5).await.unwrap_err().contains("empty"));
    assert!(check("x", 0).await.unwrap_err().contains("between 1 and 50"));
    assert!(check("x", 51).await.is_err());
    assert_eq!(check("x", 50).await, Ok(()));
}

#[test]
fn tool_search_itself_is_never_deferred_and_is_a_safe_read() {
    let pool = pool();
    assert!(!pool.is_deferred(NAME));
    let input = ToolSearchInput {
        query: "x".into(),
        max_results: 5,
    };
    assert!(ToolSearchTool.is_read_only(&input) && ToolSearchTool.is_concurrency_safe(&input));
}
