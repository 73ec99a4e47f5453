//! JSON Schemas for tool inputs, derived from the Rust input types.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The JSON Schema of `T` in the form the Messages API takes: inline (no `$defs`), without the
/// `$schema` and `title` keys, which the model does not need.
pub fn schema_of<T: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|s| {
            s.inline_subschemas = true;
        })
        .into_generator();
    let schema = generator.into_root_schema_for::<T>();
    let mut value = schema.to_value();
    if let Value::Object(map) = &mut value {
        map.remove("$schema");
        map.remove("title");
        map.remove("definitions");
        map.remove("$defs");
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    /// Docs become descriptions.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Input {
        /// The absolute path.
        file_path: String,
        /// How many lines.
        limit: Option<u32>,
        mode: Mode,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Slow,
    }

    #[test]
    fn schema_is_inline_and_describes_fields() {
        let s = schema_of::<Input>();
        assert_eq!(s["type"], "object");
        assert_eq!(s["properties"]["file_path"]["description"], "The absolute path.");
        assert_eq!(s["required"], serde_json::json!(["file_path", "mode"]));
        assert!(s.get("$schema").is_none());
        let text = s.to_string();
        assert!(!text.contains("$ref"), "subschemas are inlined: {text}");
        assert!(text.contains("\"fast\""));
    }
}
