//! ToolSearch through the pipeline: a deferred tool's call fails validation with a hint to load
//! it; after `select:` loads it, the model has its schema and the call passes; MCP tools are
//! deferred when the pool's deferred loading is on.

use std::sync::Arc;

use crate::support::{TestProject, call, text_of};
use async_trait::async_trait;
use nerve::errors::ErrorClass;
use nerve::permissions::{PermissionContext, PermissionMode, RuleBehavior};
use nerve::project::SessionSetup;
use nerve::registry::{PoolOptions, all_builtin_tools, assemble_tool_pool};
use nerve::tool::{ProgressSink, Tool, ToolError, ToolOrigin, ToolOutput, ToolRef, ToolUseContext};
use nerve::tools::testing::all_test_tools;
use nerve::tools::tool_search::ToolSearchTool;
use pretty_assertions::assert_eq;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::json;

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
struct CreateIssueInput {
    /// The issue title.
    title: String,
    /// Labels to add.
    labels: Vec<String>,
}

/// Stands in for a tool from an MCP server.
#[derive(Debug)]
struct CreateIssue;

#[async_trait]
impl Tool for CreateIssue {
    type Input = CreateIssueInput;
    fn name(&self) -> &str {
        "mcp__tracker__create_issue"
    }
    fn description(&self) -> String {
        "Opens an issue in the tracker.".into()
    }
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp
    }
    fn is_read_only(&self, _: &CreateIssueInput) -> bool {
        true
    }
    async fn call(
        &self,
        input: CreateIssueInput,
        _ctx: &ToolUseContext,
        _p: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text(format!(
            "opened \"{}\" [{}]",
            input.title,
            input.labels.join(",")
        )))
    }
}

fn tools() -> Vec<ToolRef> {
    let mut tools = all_test_tools();
    tools.push(Arc::new(ToolSearchTool));
    tools.push(Arc::new(CreateIssue));
    tools
}

#[tokio::test]
async fn a_deferred_call_fails_with_the_hint_until_tool_search_loads_the_tool() {
    let p = TestProject::new();
    // MCP tools ask unless allowed (their read-only hint does not allow by itself).
    let s = p.session_with_setup(
        tools(),
        true,
        PermissionMode::Default,
        &[(RuleBehavior::Allow, "mcp__tracker__create_issue")],
        SessionSetup::default(),
    );
    let pool = &s.pipeline.pool();
    assert!(pool.is_unloaded_deferred("mcp__tracker__create_issue"));
    let spec = pool
        .specs()
        .into_iter()
        .find(|t| t.name == "mcp__tracker__create_issue")
        .unwrap();
    assert_eq!(
        (spec.deferred, spec.input_schema),
        (true, None),
        "sent by name only"
    );

    // Without the schema the model guesses the parameters.
    let guessed = json!({"name": "Crash on start", "labels": "bug"});
    let before = s
        .run_one(&call("t1", "mcp__tracker__create_issue", guessed.clone()))
        .await;
    assert!(before.is_error);
    assert_eq!(before.error_class, Some(ErrorClass::Validation));
    let text = text_of(&before.content);
    assert!(text.contains("InputValidationError"), "{text}");
    assert!(
        text.contains("Call the ToolSearch tool with query \"select:mcp__tracker__create_issue\" first"),
        "{text}"
    );

    let search = s
        .run_one(&call(
            "t2",
            "ToolSearch",
            json!({"query": "select:mcp__tracker__create_issue"}),
        ))
        .await;
    assert!(!search.is_error, "{:?}", search.content);
    let found = text_of(&search.content);
    assert!(found.contains("## mcp__tracker__create_issue"), "{found}");
    assert!(
        found.contains("\"labels\"") && found.contains("\"title\""),
        "the schema is shown: {found}"
    );
    assert!(!pool.is_unloaded_deferred("mcp__tracker__create_issue"));
    let spec = pool
        .specs()
        .into_iter()
        .find(|t| t.name == "mcp__tracker__create_issue")
        .unwrap();
    assert!(
        !spec.deferred && spec.input_schema.is_some(),
        "the next request carries the schema"
    );

    // With the schema the model sends the right call, and it passes validation and runs.
    let right = json!({"title": "Crash on start", "labels": ["bug"]});
    let after = s.run_one(&call("t3", "mcp__tracker__create_issue", right)).await;
    assert!(!after.is_error, "{:?}", after.content);
    assert_eq!(text_of(&after.content), "opened \"Crash on start\" [bug]");

    // A wrong call now is an ordinary validation error: the hint would be misleading.
    let again = s
        .run_one(&call("t4", "mcp__tracker__create_issue", guessed))
        .await;
    assert_eq!(again.error_class, Some(ErrorClass::Validation));
    assert!(
        !text_of(&again.content).contains("ToolSearch"),
        "{}",
        text_of(&again.content)
    );
}

#[tokio::test]
async fn keyword_search_finds_and_loads_the_deferred_tool() {
    let p = TestProject::new();
    let s = p.session_with_setup(
        tools(),
        true,
        PermissionMode::Default,
        &[],
        SessionSetup::default(),
    );
    let out = s
        .run_one(&call(
            "t1",
            "ToolSearch",
            json!({"query": "tracker issue", "max_results": "3"}),
        ))
        .await;
    assert!(!out.is_error, "{:?}", out.content);
    assert_eq!(
        out.display.unwrap()["matches"],
        json!(["mcp__tracker__create_issue"])
    );
    assert!(
        !s.pipeline
            .pool()
            .is_unloaded_deferred("mcp__tracker__create_issue")
    );
}

#[test]
fn assembled_pools_defer_only_when_the_option_says_so_and_it_is_worth_it() {
    let perms = PermissionContext::default();
    // One small MCP tool: deferring it would cost more (ToolSearch's own definition, a round trip)
    // than it saves, so everything is sent in full and ToolSearch is left out.
    let one: Vec<ToolRef> = vec![Arc::new(CreateIssue)];
    let small = assemble_tool_pool(all_builtin_tools(), one, &perms, &PoolOptions::default()).unwrap();
    assert!(small.specs().iter().all(|s| !s.deferred));
    assert!(small.find("ToolSearch").is_none());

    // Deferral switched off: nothing is deferred (the many-server case is in the `mcp` module).
    let off = assemble_tool_pool(
        all_builtin_tools(),
        vec![Arc::new(CreateIssue)],
        &perms,
        &PoolOptions {
            defer_loading: false,
            ..PoolOptions::default()
        },
    )
    .unwrap();
    assert!(off.specs().iter().all(|s| !s.deferred));
    assert!(off.find("ToolSearch").is_none());
}
