//! A call's input deserialised once: the JSON (what hooks, rules and the transcript see) beside
//! the tool's typed input (what every check and the call itself read).

use std::any::Any;
use std::sync::Arc;

use serde_json::Value;

/// A tool input, read into the tool's typed input once ([`crate::tool::DynTool::prepare`]) and
/// carried through validation, permission checks, previews and the call, instead of being
/// deserialised again by each of them.
///
/// An input that does not have the tool's type is still carried (the card shows it, the model is
/// told what is wrong), with the reason; every check answers it fail-closed.
#[derive(Clone)]
pub struct PreparedInput {
    json: Value,
    typed: Result<Arc<dyn Any + Send + Sync>, TypeError>,
}

/// Why an input does not have its tool's type.
#[derive(Debug, Clone, thiserror::Error)]
pub enum TypeError {
    /// A field is missing or has the wrong type; serde's words say which and what was expected.
    #[error("{0}")]
    Shape(Arc<serde_json::Error>),
    /// The input was prepared for a tool with another input type: a programming error, refused
    /// like an input that does not parse.
    #[error("the input was prepared for another tool")]
    OtherTool,
}

impl std::fmt::Debug for PreparedInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PreparedInput")
            .field("json", &self.json)
            .field("type_error", &self.type_error())
            .finish()
    }
}

impl PartialEq for PreparedInput {
    /// Two prepared inputs are the same input when their JSON is: the typed half is read from it.
    fn eq(&self, other: &Self) -> bool {
        self.json == other.json
    }
}

impl PreparedInput {
    /// Reads `json` into `I`.
    pub(crate) fn parse<I>(json: Value) -> Self
    where
        I: serde::de::DeserializeOwned + Send + Sync + 'static,
    {
        let typed = I::deserialize(&json)
            .map(|typed| Arc::new(typed) as Arc<dyn Any + Send + Sync>)
            .map_err(|e| TypeError::Shape(Arc::new(e)));
        Self { json, typed }
    }

    /// An input already typed, with its JSON (a backfilled clone: serialised from the typed value,
    /// never read back).
    pub(crate) fn typed<I: Send + Sync + 'static>(json: Value, typed: I) -> Self {
        Self {
            json,
            typed: Ok(Arc::new(typed)),
        }
    }

    /// The input as JSON.
    pub fn json(&self) -> &Value {
        &self.json
    }

    /// The input as JSON, owned.
    pub fn into_json(self) -> Value {
        self.json
    }

    /// Why the input does not have the tool's type (which field is wrong); `None` when it has.
    pub fn type_error(&self) -> Option<&TypeError> {
        self.typed.as_ref().err()
    }

    /// The typed input, when it has type `I`. An input prepared for a tool with another input
    /// type is refused like one that does not parse: a programming error must fail closed.
    pub(crate) fn get<I: 'static>(&self) -> Result<&I, TypeError> {
        match &self.typed {
            Ok(typed) => typed.downcast_ref::<I>().ok_or(TypeError::OtherTool),
            Err(e) => Err(e.clone()),
        }
    }

    /// The typed input, owned (cloned only when a copy of the prepared input is still alive).
    pub(crate) fn into_typed<I: Clone + Send + Sync + 'static>(self) -> Result<I, TypeError> {
        let typed = self.typed?;
        let typed = typed.downcast::<I>().map_err(|_| TypeError::OtherTool)?;
        Ok(Arc::try_unwrap(typed).unwrap_or_else(|shared| (*shared).clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[derive(Debug, Clone, PartialEq, serde::Deserialize)]
    struct Input {
        path: String,
    }

    #[test]
    fn a_typed_input_is_read_once_and_handed_out_as_is() {
        let prepared = PreparedInput::parse::<Input>(json!({"path": "a.txt"}));
        assert!(prepared.type_error().is_none());
        assert_eq!(
            prepared.get::<Input>().ok(),
            Some(&Input { path: "a.txt".into() })
        );
        let copy = prepared.clone();
        assert_eq!(
            prepared.into_typed::<Input>().ok(),
            Some(Input { path: "a.txt".into() })
        );
        assert_eq!(copy.into_json(), json!({"path": "a.txt"}));
    }

    #[test]
    fn an_input_of_the_wrong_type_keeps_its_json_and_says_why() {
        let prepared = PreparedInput::parse::<Input>(json!({"path": 7}));
        assert_eq!(
            prepared.type_error().map(ToString::to_string),
            Some("invalid type: integer `7`, expected a string".to_string())
        );
        assert_eq!(prepared.json(), &json!({"path": 7}));
        assert!(prepared.get::<Input>().is_err());
    }

    #[test]
    fn an_input_prepared_for_another_tool_is_refused() {
        let prepared = PreparedInput::parse::<Input>(json!({"path": "a"}));
        assert!(matches!(prepared.get::<String>(), Err(TypeError::OtherTool)));
        assert_eq!(
            prepared.into_typed::<u32>().map_err(|e| e.to_string()),
            Err("the input was prepared for another tool".to_string())
        );
    }
}
