//! A dry run of one call through a fresh session of the project (`nerve check-permission`, the
//! settings screen's "test a call" box): the decision, the deciding rule, the parsed Bash parts.

pub use nerve_protocol::settings::PermissionCheck;

use serde_json::Value;

use crate::permissions::PermissionSubject;
use crate::permissions::lint::rule_warnings;
use crate::pipeline::ToolCall;
use crate::project::{Project, SessionSetup};
use crate::registry::{PoolOptions, assemble_tool_pool};
use crate::tool::ToolRef;

/// Why a call could not be checked.
#[derive(Debug, thiserror::Error)]
pub enum CheckCallError {
    /// The session's tools could not be assembled (an external tool's schema does not compile).
    #[error("the session's tools could not be assembled: {0}")]
    Tools(#[from] crate::input::SchemaError),
    /// The call could not be judged.
    #[error(transparent)]
    Check(#[from] crate::pipeline::CheckError),
}

/// Runs the pipeline's dry run for `tool` with `input` in a new headless session of `project`
/// (its settings, rules and hooks; `external_tools` are the MCP tools it would have). An unknown
/// tool is judged as an unknown, non-read-only tool; an unknown `Bash` is judged from the parser.
pub async fn check_call(
    project: &Project,
    tool: &str,
    input: Value,
    external_tools: Vec<ToolRef>,
) -> Result<PermissionCheck, CheckCallError> {
    let permissions = project.permission_context(true);
    let pool = assemble_tool_pool(
        crate::registry::builtin_tools(project.env()),
        external_tools,
        &permissions,
        &PoolOptions::default(),
    )?;
    let session = project.session(
        pool,
        SessionSetup {
            headless: true,
            ..SessionSetup::default()
        },
    );
    let unknown = subject_for_unknown(tool, &input, project.dir());
    let call = ToolCall {
        id: "toolu_check".into(),
        name: tool.to_string(),
        input,
    };
    let report = session.pipeline.check(&call, &session.context, unknown).await?;
    let sandbox = session
        .pipeline
        .pool()
        .find(&call.name)
        .and_then(|t| t.sandbox_state(&t.prepare(call.input.clone()), &session.context));
    Ok(PermissionCheck {
        mode: session.context.permissions.mode,
        report,
        sandbox,
        rule_warnings: rule_warnings(&session.context.permissions.rules.snapshot()),
    })
}

/// Until the Bash tool is registered, a Bash call is judged from the parser alone (fail closed).
fn subject_for_unknown(tool: &str, input: &Value, cwd: &std::path::Path) -> Option<PermissionSubject> {
    if tool != "Bash" {
        return None;
    }
    let command = input.get("command").and_then(Value::as_str)?;
    Some(PermissionSubject::Shell(Box::new(
        crate::tools::bash::shell_subject(command, cwd),
    )))
}
