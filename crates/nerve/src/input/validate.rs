//! JSON Schema validation of tool inputs (the `jsonschema` crate, remote references off).

use serde_json::Value;

/// A tool's input schema, compiled once.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
    /// The top-level fields the schema names, to tell the model what it may send instead of an
    /// unknown field.
    fields: Vec<String>,
}

impl std::fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CompiledSchema")
    }
}

/// The schema itself is broken (a tool bug or a bad external schema).
#[derive(Debug, thiserror::Error)]
#[error("the input schema of tool `{tool}` is invalid: {message}")]
pub struct SchemaError {
    /// The tool.
    pub tool: String,
    /// What is wrong.
    pub message: String,
}

/// Every way an input breaks its schema (at most ten), each naming the field and what was expected.
/// Shown to the model one per line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}", .problems.join("\n"))]
pub struct SchemaViolations {
    /// One sentence per problem.
    pub problems: Vec<String>,
}

impl CompiledSchema {
    /// Compiles `schema` for `tool`.
    pub fn compile(tool: &str, schema: &Value) -> Result<Self, SchemaError> {
        let fields = schema
            .get("properties")
            .and_then(Value::as_object)
            .map(|props| props.keys().cloned().collect())
            .unwrap_or_default();
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator, fields })
            .map_err(|e| SchemaError {
                tool: tool.to_string(),
                message: e.to_string(),
            })
    }

    /// Validates `input`. The error lists every problem, each naming the field and what was expected,
    /// so the model can fix them all in one retry.
    pub fn validate(&self, input: &Value) -> Result<(), SchemaViolations> {
        let mut errors: Vec<_> = self.validator.iter_errors(input).take(10).collect();
        // The input's own problems (a missing field) first, then by field: one order whatever
        // order the validator walks the schema in.
        errors.sort_by_cached_key(|e| {
            let path = e.instance_path().to_string();
            (!path.is_empty(), path)
        });
        let problems: Vec<String> = errors
            .into_iter()
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "the input".to_string()
                } else {
                    format!("`{path}`")
                };
                match e.kind() {
                    jsonschema::error::ValidationErrorKind::AdditionalProperties { unexpected } => {
                        self.unknown_fields(&at, path.is_empty(), unexpected)
                    }
                    _ => format!("{at}: {e}"),
                }
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(SchemaViolations { problems })
        }
    }

    /// Names the unknown fields and, at the top level, the fields the tool does take.
    fn unknown_fields(&self, at: &str, top_level: bool, unexpected: &[String]) -> String {
        let names: Vec<String> = unexpected.iter().map(|f| format!("`{f}`")).collect();
        let (noun, pronoun) = if names.len() == 1 {
            ("field", "it")
        } else {
            ("fields", "them")
        };
        let mut text = format!("{at}: unknown {noun} {}", names.join(", "));
        if top_level && !self.fields.is_empty() {
            text.push_str(&format!(
                " (remove {pronoun}, or use the fields this tool takes: {})",
                self.fields.join(", ")
            ));
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_field_and_expectation() {
        let schema = json!({
            "type": "object",
            "properties": {"file_path": {"type": "string"}, "limit": {"type": "integer"}},
            "required": ["file_path"],
            "additionalProperties": false
        });
        let compiled = CompiledSchema::compile("Read", &schema).unwrap();
        assert!(compiled.validate(&json!({"file_path": "/a"})).is_ok());
        let err = compiled.validate(&json!({"limit": "ten"})).unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "the input: \"file_path\" is a required property".to_string(),
                "`/limit`: \"ten\" is not of type \"integer\"".to_string(),
            ]
        );
        assert_eq!(
            err.to_string(),
            "the input: \"file_path\" is a required property\n`/limit`: \"ten\" is not of type \"integer\""
        );
        let err = compiled
            .validate(&json!({"file_path": "/a", "extra": 1}))
            .unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                "the input: unknown field `extra` (remove it, or use the fields this tool takes: file_path, limit)"
                    .to_string()
            ]
        );
    }

    #[test]
    fn broken_schema_is_reported() {
        let err = CompiledSchema::compile("X", &json!({"type": 12})).unwrap_err();
        assert!(err.to_string().contains("`X`"));
    }
}
