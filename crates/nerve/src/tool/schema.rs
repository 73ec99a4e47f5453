//! JSON Schemas for tool inputs, derived from the Rust input types.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::Value;

/// The JSON Schema of `T` in the form the Messages API takes: inline (no `$defs`), without the
/// `$schema` and `title` keys, which the model does not need.
///
/// The input object takes no fields besides its properties (`additionalProperties: false`): a
/// field the tool does not know is a mistake (a misspelt `replace_all` silently ignored changes
/// what the call does), so validation refuses it by name, and the model sees the rule in the schema.
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
        if map.get("type") == Some(&Value::String("object".into())) {
            map.entry("additionalProperties").or_insert(Value::Bool(false));
        }
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

    #[test]
    fn the_input_object_takes_no_other_fields() {
        assert_eq!(
            schema_of::<Input>()["additionalProperties"],
            serde_json::json!(false)
        );
    }
}
