//! Models sometimes send `"5"` where a number is expected, `"true"` for a boolean, or an array
//! encoded as a JSON string. Rejecting those costs a round trip for no safety gain, so values are
//! coerced to what the schema expects before validation. Only strings are ever reinterpreted, and
//! only into the type the schema names at that position; anything else is left for validation to
//! report.

use serde_json::{Map, Value};

/// Coerces `input` towards `schema` and returns the result. Never fails: what cannot be coerced is
/// returned unchanged and validation reports it.
pub fn coerce_to_schema(input: Value, schema: &Value) -> Value {
    // A whole input sent as a JSON string ("{\"path\": \"x\"}").
    let input = match input {
        Value::String(s) if expects(schema, "object") => match serde_json::from_str::<Value>(&s) {
            Ok(v @ Value::Object(_)) => v,
            _ => Value::String(s),
        },
        other => other,
    };
    coerce_value(input, schema)
}

fn coerce_value(value: Value, schema: &Value) -> Value {
    match value {
        Value::String(s) => coerce_string(s, schema),
        Value::Object(map) => Value::Object(coerce_object(map, schema)),
        Value::Array(items) => Value::Array(coerce_array(items, schema)),
        other => other,
    }
}

fn coerce_object(map: Map<String, Value>, schema: &Value) -> Map<String, Value> {
    let Some(props) = object_properties(schema) else {
        return map;
    };
    map.into_iter()
        .map(|(k, v)| {
            let coerced = match props.get(&k) {
                Some(prop_schema) => coerce_value(v, prop_schema),
                None => v,
            };
            (k, coerced)
        })
        .collect()
}

fn coerce_array(items: Vec<Value>, schema: &Value) -> Vec<Value> {
    match alternatives(schema).find_map(|s| s.get("items")) {
        Some(item_schema) => items.into_iter().map(|v| coerce_value(v, item_schema)).collect(),
        None => items,
    }
}

fn coerce_string(s: String, schema: &Value) -> Value {
    if expects(schema, "string") {
        return Value::String(s);
    }
    let trimmed = s.trim();
    if expects(schema, "integer") {
        if let Ok(n) = trimmed.parse::<i64>() {
            return Value::from(n);
        }
        // "5.0" is an integer written as a float.
        if let Ok(f) = trimmed.parse::<f64>()
            && f.fract() == 0.0
            && f.is_finite()
            && f.abs() < 9.0e15
        {
            #[allow(clippy::cast_possible_truncation)]
            return Value::from(f as i64);
        }
    }
    if expects(schema, "number")
        && let Ok(f) = trimmed.parse::<f64>()
        && let Some(n) = serde_json::Number::from_f64(f)
    {
        return Value::Number(n);
    }
    if expects(schema, "boolean") {
        match trimmed.to_ascii_lowercase().as_str() {
            "true" => return Value::Bool(true),
            "false" => return Value::Bool(false),
            _ => {}
        }
    }
    if (expects(schema, "array") || expects(schema, "object"))
        && let Ok(parsed) = serde_json::from_str::<Value>(trimmed)
    {
        let fits = matches!(
            (&parsed, expects(schema, "array"), expects(schema, "object")),
            (Value::Array(_), true, _) | (Value::Object(_), _, true)
        );
        if fits {
            return coerce_value(parsed, schema);
        }
    }
    if expects(schema, "null") && trimmed == "null" {
        return Value::Null;
    }
    Value::String(s)
}

/// The schema itself plus its `anyOf`/`oneOf` alternatives (how optional and union fields appear).
fn alternatives(schema: &Value) -> impl Iterator<Item = &Value> {
    let nested = ["anyOf", "oneOf", "allOf"]
        .into_iter()
        .filter_map(move |k| schema.get(k).and_then(Value::as_array))
        .flatten();
    std::iter::once(schema).chain(nested)
}

fn expects(schema: &Value, ty: &str) -> bool {
    alternatives(schema).any(|s| match s.get("type") {
        Some(Value::String(t)) => t == ty,
        Some(Value::Array(ts)) => ts.iter().any(|t| t.as_str() == Some(ty)),
        _ => false,
    })
}

fn object_properties(schema: &Value) -> Option<&Map<String, Value>> {
    alternatives(schema).find_map(|s| s.get("properties").and_then(Value::as_object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "n": {"type": "integer"},
                "x": {"type": "number"},
                "flag": {"type": "boolean"},
                "opt": {"type": ["integer", "null"]},
                "list": {"type": "array", "items": {"type": "integer"}},
                "obj": {"type": "object", "properties": {"deep": {"type": "boolean"}}},
                "name": {"type": "string"},
                "either": {"anyOf": [{"type": "integer"}, {"type": "null"}]}
            }
        })
    }

    #[test]
    fn coerces_strings_to_expected_types() {
        let input = json!({
            "n": "42", "x": "2.5", "flag": "TRUE", "opt": "7", "list": "[1, \"2\"]",
            "obj": "{\"deep\": \"false\"}", "name": "123", "either": "9"
        });
        assert_eq!(
            coerce_to_schema(input, &schema()),
            json!({"n": 42, "x": 2.5, "flag": true, "opt": 7, "list": [1, 2],
                   "obj": {"deep": false}, "name": "123", "either": 9})
        );
    }

    #[test]
    fn decodes_whole_input_sent_as_string() {
        let input = Value::String("{\"n\": \"3\"}".into());
        assert_eq!(coerce_to_schema(input, &schema()), json!({"n": 3}));
    }

    #[test]
    fn leaves_uncoercible_values_for_validation() {
        let input = json!({"n": "forty", "flag": "yes", "list": "[oops", "x": true});
        assert_eq!(coerce_to_schema(input.clone(), &schema()), input);
    }

    #[test]
    fn integer_written_as_float() {
        assert_eq!(coerce_to_schema(json!({"n": "5.0"}), &schema()), json!({"n": 5}));
        assert_eq!(
            coerce_to_schema(json!({"n": "5.5"}), &schema()),
            json!({"n": "5.5"})
        );
    }

    #[test]
    fn array_string_must_hold_an_array() {
        assert_eq!(
            coerce_to_schema(json!({"list": "{\"a\":1}"}), &schema()),
            json!({"list": "{\"a\":1}"})
        );
    }

    proptest! {
        #[test]
        fn any_i64_string_becomes_that_integer(n in any::<i64>()) {
            let out = coerce_to_schema(json!({"n": n.to_string()}), &schema());
            prop_assert_eq!(out, json!({"n": n}));
        }

        #[test]
        fn string_fields_are_never_changed(s in ".*") {
            let out = coerce_to_schema(json!({"name": s}), &schema());
            prop_assert_eq!(out, json!({"name": s}));
        }

        #[test]
        fn coercion_is_idempotent(n in any::<i32>(), b in any::<bool>(), s in "[a-z0-9]{0,8}") {
            let input = json!({"n": n.to_string(), "flag": b.to_string(), "name": s});
            let once = coerce_to_schema(input, &schema());
            let twice = coerce_to_schema(once.clone(), &schema());
            prop_assert_eq!(once, twice);
        }

        #[test]
        fn never_panics_on_arbitrary_json(s in ".{0,64}") {
            let _ = coerce_to_schema(Value::String(s.clone()), &schema());
            let _ = coerce_to_schema(json!({"list": s, "obj": s, "n": s}), &schema());
        }
    }
}
