//! Parameter rules: `key:glob` on a top-level field of a tool's JSON input, e.g.
//! `Agent(subagent_type:Explore)` or `mcp__db__query(table:users*)`.
//!
//! They exist to deny or ask about a slice of a tool's calls. The rule set never lets one allow a
//! call (fail closed): a glob over one field cannot vouch for the rest of the input.

use serde_json::Value;

use crate::permissions::matching::wildcard;

/// Splits `key:glob` content; the key must be an identifier (`[A-Za-z_][A-Za-z0-9_]*`).
pub fn parse_parameter_content(content: &str) -> Option<(&str, &str)> {
    let (key, glob) = content.split_once(':')?;
    let mut chars = key.chars();
    let starts_well = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    (starts_well && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')).then_some((key, glob))
}

/// Whether the input field `key` matches `glob` (`*` wildcard, `\*` literal star; case-sensitive).
///
/// - A string is matched as is; a number or boolean by its JSON text (`limit:5`).
/// - An array or object matches: it may hide a matching value, and these rules only deny or ask.
/// - A missing or `null` field does not match.
/// - An input that is not a JSON object matches, for the same reason as arrays.
pub fn parameter_rule_matches(key: &str, glob: &str, input: &Value) -> bool {
    let Value::Object(fields) = input else {
        return true;
    };
    let tokens = wildcard::tokenize(glob);
    match fields.get(key) {
        None | Some(Value::Null) => false,
        Some(Value::String(text)) => wildcard::matches(&tokens, text),
        Some(value @ (Value::Number(_) | Value::Bool(_))) => wildcard::matches(&tokens, &value.to_string()),
        Some(Value::Array(_) | Value::Object(_)) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_identifier_keys_only() {
        assert_eq!(
            parse_parameter_content("subagent_type:Explore"),
            Some(("subagent_type", "Explore"))
        );
        assert_eq!(parse_parameter_content("a:b:c"), Some(("a", "b:c")));
        assert_eq!(parse_parameter_content("npm run test:*"), None);
        assert_eq!(parse_parameter_content("1x:y"), None);
        assert_eq!(parse_parameter_content(":y"), None);
        assert_eq!(parse_parameter_content("novalue"), None);
    }

    #[test]
    fn matches_top_level_fields() {
        let input = json!({"table": "users_archive", "limit": 5, "flag": true, "cols": ["a"]});
        assert!(parameter_rule_matches("table", "users*", &input));
        assert!(!parameter_rule_matches("table", "orders*", &input));
        assert!(!parameter_rule_matches("table", "Users*", &input));
        assert!(parameter_rule_matches("limit", "5", &input));
        assert!(parameter_rule_matches("flag", "true", &input));
        assert!(parameter_rule_matches("cols", "anything", &input));
        assert!(!parameter_rule_matches("missing", "*", &input));
        assert!(!parameter_rule_matches("n", "*", &json!({"n": null})));
        assert!(parameter_rule_matches("table", "x", &json!("not an object")));
        assert!(parameter_rule_matches(
            "subagent_type",
            "Explore",
            &json!({"subagent_type": "Explore", "prompt": "look"})
        ));
    }
}
