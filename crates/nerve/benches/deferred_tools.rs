//! The size of the first request with 3 MCP servers of 40 tools each, with their schemas deferred
//! (the default) against sent in full, measured on the request the scripted mock of the Messages API
//! receives. Prints both sizes and their ratio.
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::sync::Arc;

use async_trait::async_trait;
use nerve::agent::{Agent, AgentConfig};
use nerve::model::api_key::ApiKey;
use nerve::model::client::{ModelClient, ModelConfig};
use nerve::permissions::PermissionContext;
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::{PoolOptions, all_builtin_tools, assemble_tool_pool};
use nerve::tool::{ProgressSink, Tool, ToolError, ToolOrigin, ToolOutput, ToolRef, ToolUseContext};
use nerve_mock_model::{MockServer, Scenario};
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

/// A tool the size of a typical API wrapper's (a tracker, a cloud console).
#[derive(Debug)]
struct RemoteTool {
    name: String,
}

#[async_trait]
impl Tool for RemoteTool {
    type Input = Map<String, Value>;
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> String {
        format!(
            "[MCP server {}] Lists, filters and pages through records, returning at most `limit` records \
             sorted by `sort`. Use `cursor` from a previous answer to continue.",
            self.name
        )
    }
    fn input_schema(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "project": {"type": "string", "description": "The project key, e.g. `CORE`."},
                "query": {"type": "string", "description": "A filter in the service's query language."},
                "limit": {"type": "integer", "minimum": 1, "maximum": 100, "description": "How many records."},
                "sort": {"type": "string", "enum": ["created", "updated", "priority"], "description": "Sort order."},
                "cursor": {"type": "string", "description": "Where the previous page ended."},
                "fields": {"type": "array", "items": {"type": "string"}, "description": "Fields to return."}
            },
            "required": ["project"]
        })
    }
    fn origin(&self) -> ToolOrigin {
        ToolOrigin::Mcp
    }
    fn should_defer(&self) -> bool {
        true
    }
    async fn call(
        &self,
        _: Map<String, Value>,
        _: &ToolUseContext,
        _: &ProgressSink,
    ) -> Result<ToolOutput, ToolError> {
        Ok(ToolOutput::text("ok"))
    }
}

fn remote_tools() -> Vec<ToolRef> {
    ["alpha", "beta", "gamma"]
        .iter()
        .flat_map(|server| {
            (0..40).map(move |i| -> ToolRef {
                Arc::new(RemoteTool {
                    name: format!("mcp__{server}__op_{i:02}"),
                })
            })
        })
        .collect()
}

async fn first_request_bytes(defer_loading: bool) -> (usize, usize) {
    let scenario =
        json!({"steps": [{"response": {"type": "stream", "blocks": [{"type": "text", "text": "done"}]}}]});
    let server = MockServer::start(Scenario::from_json(&scenario.to_string()).unwrap())
        .await
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let mut options = ProjectOptions::new(dir.path());
    options.bare = true;
    options.data_dir = dir.path().join("data");
    let project = Project::open(options).unwrap();
    let pool = assemble_tool_pool(
        all_builtin_tools(),
        remote_tools(),
        &PermissionContext::default(),
        &PoolOptions {
            defer_loading,
            ..PoolOptions::default()
        },
    )
    .unwrap();
    let runtime = project.session(
        pool,
        SessionSetup {
            headless: true,
            ..SessionSetup::default()
        },
    );
    let client = ModelClient::new(ModelConfig::with_base_url_override(
        ApiKey::new("k"),
        Some(server.url()),
    ))
    .unwrap();
    let mut agent = Agent::new(
        client,
        runtime,
        AgentConfig::new("bench"),
        vec!["bench".into()],
        None,
    );
    agent.send("hello", CancellationToken::new()).await;
    let body = &server.requests()[0].body;
    let tools = body["tools"].to_string().len();
    (body.to_string().len(), tools)
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("runtime");
    rt.block_on(async {
        let (full, full_tools) = first_request_bytes(false).await;
        let (deferred, deferred_tools) = first_request_bytes(true).await;
        println!("first request with 3 MCP servers x 40 tools (and the built-in tools):");
        println!(
            "  schemas sent in full: {full} bytes ({full_tools} in `tools`, ~{} tokens)",
            full / 4
        );
        println!(
            "  MCP tools deferred:   {deferred} bytes ({deferred_tools} in `tools`, ~{} tokens)",
            deferred / 4
        );
        println!(
            "  deferred/full = {:.3}x (the `tools` list alone: {:.3}x)",
            deferred as f64 / full as f64,
            deferred_tools as f64 / full_tools as f64
        );
    });
}
