//! JSON Schema validation of tool inputs (the `jsonschema` crate, remote references off).

use serde_json::Value;

/// A tool's input schema, compiled once.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
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

impl CompiledSchema {
    /// Compiles `schema` for `tool`.
    pub fn compile(tool: &str, schema: &Value) -> Result<Self, SchemaError> {
        jsonschema::validator_for(schema)
            .map(|validator| Self { validator })
            .map_err(|e| SchemaError {
                tool: tool.to_string(),
                message: e.to_string(),
            })
    }

    /// Validates `input`. The error lists every problem, each naming the field and what was expected,
    /// so the model can fix them all in one retry.
    pub fn validate(&self, input: &Value) -> Result<(), String> {
        let problems: Vec<String> = self
            .validator
            .iter_errors(input)
            .take(10)
            .map(|e| {
                let path = e.instance_path.to_string();
                let at = if path.is_empty() {
                    "the input".to_string()
                } else {
                    format!("`{path}`")
                };
                format!("{at}: {e}")
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
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
        assert!(err.contains("`/limit`"), "{err}");
        assert!(err.contains("integer"), "{err}");
        assert!(err.contains("file_path"), "{err}");
        let err = compiled
            .validate(&json!({"file_path": "/a", "extra": 1}))
            .unwrap_err();
        assert!(err.contains("extra"), "{err}");
    }

    #[test]
    fn broken_schema_is_reported() {
        let err = CompiledSchema::compile("X", &json!({"type": 12})).unwrap_err();
        assert!(err.to_string().contains("`X`"));
    }
}
