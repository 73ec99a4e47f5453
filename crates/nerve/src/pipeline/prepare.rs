//! Steps 3–5 of the pipeline for one input: engine-only fields stripped, coercion, schema
//! validation, and the tool's typed input read once. The executor prepares a call when it is
//! queued (to know whether it may run in parallel) and hands the result to the pipeline, so an
//! input is read once per call.

use serde_json::Value;

use crate::errors::sanitize_for_model;
use crate::input::coerce_to_schema;
use crate::tool::{DynTool, PreparedInput, ToolPool};

/// Why an input cannot be run. Its message is what the model reads.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InputError {
    /// The input does not fit the tool's schema or its type.
    #[error("{}", invalid_message(tool, problems, *schema_not_loaded))]
    Invalid {
        /// The tool's name.
        tool: String,
        /// What is wrong, field by field.
        problems: String,
        /// Whether the tool is deferred and its schema not loaded yet: the model guessed the fields,
        /// and is told how to load them.
        schema_not_loaded: bool,
    },
    /// Engine fields were to be added to an input that is not an object.
    #[error("the {tool} tool's input is not an object")]
    NotAnObject {
        /// The tool's name.
        tool: String,
    },
    /// The tool is not in the pool the input was checked against.
    #[error("tool {tool} has no schema")]
    NoSchema {
        /// The tool's name.
        tool: String,
    },
}

fn invalid_message(tool: &str, problems: &str, schema_not_loaded: bool) -> String {
    let mut message = format!("InputValidationError: the {tool} tool's input is invalid:\n{problems}");
    if schema_not_loaded {
        message.push_str(&format!(
            "\nThis tool's schema has not been loaded yet. Call the ToolSearch tool with query \"select:{tool}\" first, then call {tool} again."
        ));
    }
    sanitize_for_model(&message)
}

/// Strips engine-only fields, coerces and validates model- or hook-provided input, and reads it
/// into the tool's type.
pub fn prepare_input(pool: &ToolPool, tool: &dyn DynTool, input: Value) -> Result<PreparedInput, InputError> {
    let input = strip_engine_only(input, tool.engine_only_fields());
    validate_engine_input(pool, tool, input)
}

/// Adds the permission system's engine-only fields to already prepared input. Only fields the tool
/// declares as engine-only are taken; anything else in `fields` is ignored.
pub(crate) fn merge_engine_input(
    pool: &ToolPool,
    tool: &dyn DynTool,
    input: PreparedInput,
    fields: serde_json::Map<String, Value>,
) -> Result<PreparedInput, InputError> {
    let Value::Object(mut map) = input.into_json() else {
        return Err(InputError::NotAnObject {
            tool: tool.name().to_string(),
        });
    };
    let allowed = tool.engine_only_fields();
    for (key, value) in fields {
        if allowed.contains(&key.as_str()) {
            map.insert(key, value);
        }
    }
    validate_engine_input(pool, tool, Value::Object(map))
}

/// Coerces and validates input, keeping engine-only fields (input set by the permission system).
///
/// Unknown fields are refused wherever the schema says `additionalProperties: false` (every built-in
/// tool; an MCP tool when its server's schema says so). Engine-only fields are not in the schema the
/// model sees, so the schema judges the input without them and the tool's own type judges them.
fn validate_engine_input(
    pool: &ToolPool,
    tool: &dyn DynTool,
    input: Value,
) -> Result<PreparedInput, InputError> {
    let name = tool.name();
    let schema_value = pool.schema_value(name);
    let input = coerce_to_schema(input, schema_value.as_deref().unwrap_or(&Value::Null));
    let schema = pool.schema(name).ok_or_else(|| InputError::NoSchema {
        tool: name.to_string(),
    })?;
    let engine_only = tool.engine_only_fields();
    let checked = if engine_only.is_empty() {
        schema.validate(&input)
    } else {
        schema.validate(&strip_engine_only(input.clone(), engine_only))
    };
    let problems = match checked {
        Ok(()) => {
            let prepared = tool.prepare(input);
            match prepared.type_error() {
                None => return Ok(prepared),
                Some(problem) => problem.to_string(),
            }
        }
        Err(violations) => violations.to_string(),
    };
    Err(InputError::Invalid {
        tool: name.to_string(),
        problems,
        schema_not_loaded: pool.is_unloaded_deferred(name),
    })
}

/// The input without the fields only the engine may set.
pub(crate) fn strip_engine_only(input: Value, fields: &[&str]) -> Value {
    match input {
        Value::Object(mut map) => {
            for f in fields {
                map.remove(*f);
            }
            Value::Object(map)
        }
        other => other,
    }
}
