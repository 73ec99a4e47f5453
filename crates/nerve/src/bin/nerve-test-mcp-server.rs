//! `nerve-test-mcp-server`: a small MCP server over stdio whose tools exercise the engine's MCP
//! client in the integration tests (built with the `test-tools` feature).
//!
//! Tools: `echo` (read-only, returns its text), `add` (sums two numbers), `fail` (answers with
//! `isError: true`), `slow` (sleeps, and records a cancellation in `NERVE_TEST_MCP_LOG` if one
//! arrives), `image` (one tiny PNG), `approve` (a permission-prompt tool: allows only calls of the
//! tools named in its `ALLOW` environment variable) and `crash` (exits the process).

use std::io::Write;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Result;
use rmcp::ServiceExt;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, JsonObject,
    ListToolsResult, MetaObject, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::{Value, json};

/// A 1×1 transparent PNG.
const TINY_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

#[derive(Clone)]
struct TestServer {
    log: Option<Arc<std::path::PathBuf>>,
}

fn schema(value: Value) -> Arc<JsonObject> {
    match value {
        Value::Object(map) => Arc::new(map),
        _ => Arc::new(JsonObject::new()),
    }
}

fn tools() -> Vec<Tool> {
    let text_schema = || {
        schema(json!({
            "type": "object",
            "properties": {"text": {"type": "string", "description": "What to echo"}},
            "required": ["text"]
        }))
    };
    vec![
        Tool::new("echo", "Echoes the text back.", text_schema())
            .annotate(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "add",
            "Adds two numbers.",
            schema(json!({
                "type": "object",
                "properties": {"a": {"type": "number"}, "b": {"type": "number"}},
                "required": ["a", "b"]
            })),
        )
        .annotate(ToolAnnotations::new().read_only(false).destructive(false)),
        Tool::new("fail", "Always fails with the given text.", text_schema()),
        Tool::new(
            "slow",
            "Sleeps for `ms` milliseconds.",
            schema(json!({
                "type": "object",
                "properties": {"ms": {"type": "integer"}},
                "required": ["ms"]
            })),
        ),
        Tool::new("image", "Returns a tiny PNG.", schema(json!({"type": "object"}))),
        Tool::new(
            "approve",
            "Permission prompt tool: allows the tools listed in $ALLOW.",
            schema(json!({
                "type": "object",
                "properties": {
                    "tool_name": {"type": "string"},
                    "input": {"type": "object"},
                    "tool_use_id": {"type": "string"}
                },
                "required": ["tool_name", "input"]
            })),
        ),
        Tool::new(
            "crash",
            "Exits the server process.",
            schema(json!({"type": "object"})),
        ),
        // A name with characters outside [A-Za-z0-9_-], to check the client normalises it.
        Tool::new(
            "dotted.name",
            "Has a dot in its name.",
            schema(json!({"type": "object"})),
        ),
    ]
    .into_iter()
    .chain(bulk_tools())
    .collect()
}

/// `$NERVE_TEST_MCP_BULK` tools the size of a typical API wrapper's (a tracker, a cloud console),
/// plus one the server asks to be sent in full (`_meta["anthropic/alwaysLoad"]`), for deferred
/// loading.
fn bulk_tools() -> Vec<Tool> {
    let count: usize = std::env::var("NERVE_TEST_MCP_BULK")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    if count == 0 {
        return Vec::new();
    }
    let bulk = (0..count).map(|i| {
        Tool::new(
            format!("bulk_{i:02}"),
            format!(
                "Operation {i} of the service: lists, filters and pages through records of kind {i}, \
                 returning at most `limit` records sorted by `sort`. Use `cursor` from a previous answer \
                 to continue."
            ),
            schema(json!({
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
            })),
        )
    });
    let mut pinned = Tool::new(
        "pinned",
        "Always sent in full: the server marks it alwaysLoad.",
        schema(json!({"type": "object", "properties": {"x": {"type": "string"}}})),
    );
    let mut meta = JsonObject::new();
    meta.insert("anthropic/alwaysLoad".into(), Value::Bool(true));
    pinned.meta = Some(MetaObject(meta));
    bulk.chain(std::iter::once(pinned)).collect()
}

fn arg<'a>(request: &'a CallToolRequestParams, key: &str) -> Option<&'a Value> {
    request.arguments.as_ref().and_then(|a| a.get(key))
}

impl TestServer {
    fn record(&self, line: &str) {
        if let Some(path) = &self.log
            && let Ok(mut f) = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path.as_ref())
        {
            let _ = writeln!(f, "{line}");
        }
    }

    fn approve(request: &CallToolRequestParams) -> CallToolResult {
        let allowed = std::env::var("ALLOW").unwrap_or_default();
        let tool = arg(request, "tool_name").and_then(Value::as_str).unwrap_or("");
        let answer = if allowed.split(',').any(|t| t == tool) {
            let mut input = arg(request, "input").cloned().unwrap_or(json!({}));
            if let Some(obj) = input.as_object_mut() {
                obj.insert("approved_by".into(), json!("approve"));
            }
            json!({"behavior": "allow", "updatedInput": input})
        } else if tool == "garbage" {
            return CallToolResult::success(vec![ContentBlock::text("not json")]);
        } else {
            json!({"behavior": "deny", "message": format!("{tool} is not on the approve list")})
        };
        CallToolResult::success(vec![ContentBlock::text(answer.to_string())])
    }
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let text = arg(&request, "text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let result = match request.name.as_ref() {
            "echo" => {
                let extra = request
                    .arguments
                    .as_ref()
                    .map(|a| Value::Object(a.clone()).to_string())
                    .unwrap_or_default();
                self.record(&format!("echo {extra}"));
                CallToolResult::success(vec![ContentBlock::text(text)])
            }
            "add" => {
                let n = |k| arg(&request, k).and_then(Value::as_f64).unwrap_or(0.0);
                CallToolResult::success(vec![ContentBlock::text((n("a") + n("b")).to_string())])
            }
            "fail" => CallToolResult::error(vec![ContentBlock::text(format!("failed: {text}"))]),
            "slow" => {
                let ms = arg(&request, "ms").and_then(Value::as_u64).unwrap_or(0);
                self.record("slow started");
                tokio::select! {
                    () = tokio::time::sleep(Duration::from_millis(ms)) => {}
                    () = context.ct.cancelled() => {
                        self.record("slow cancelled");
                        return Err(ErrorData::internal_error("cancelled", None));
                    }
                }
                CallToolResult::success(vec![ContentBlock::text(format!("slept {ms} ms"))])
            }
            "image" => CallToolResult::success(vec![
                ContentBlock::text("an image:"),
                ContentBlock::image(TINY_PNG, "image/png"),
                ContentBlock::embedded_text("file:///notes.txt", "resource text"),
            ]),
            "approve" => Self::approve(&request),
            "crash" => std::process::exit(3),
            "dotted.name" => CallToolResult::success(vec![ContentBlock::text("dotted")]),
            other => return Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        };
        Ok(result.into())
    }
}

#[tokio::main]
async fn main() -> Result<()> {
    if std::env::var("NERVE_TEST_MCP_HANG").is_ok_and(|v| v == "1") {
        // Never answers `initialize`: tests the client's connect timeout.
        tokio::time::sleep(Duration::from_secs(3600)).await;
    }
    let server = TestServer {
        log: std::env::var_os("NERVE_TEST_MCP_LOG").map(|p| Arc::new(p.into())),
    };
    server.record(&format!("pid {}", std::process::id()));
    let running = server.serve(rmcp::transport::stdio()).await?;
    running.waiting().await?;
    Ok(())
}
