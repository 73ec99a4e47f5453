//! Front matter of Claude Code's definition files: YAML between `---` fences at the top, then the
//! Markdown body. Problems carry the line of the file they are on, so a user can find them.
//!
//! Claude Code's own agent files often hold descriptions YAML refuses (`description: Use it when
//! asked. Examples: <example>Context: …`, where `: ` inside a plain scalar is a syntax error).
//! Such files work in Claude Code, so when YAML refuses a front matter whose every line is a flat
//! `key: value` (or a `- item` under a key), it is read that way; anything else gets YAML's error.

use serde_json::{Map, Value};

/// A problem with a definition file: what and, when known, on which line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The line of the file.
    pub line: Option<u32>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// A problem on `line`.
    pub fn at(line: u32, message: impl Into<String>) -> Self {
        Self {
            line: Some(line),
            message: message.into(),
        }
    }

    /// A problem with the file as a whole.
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            line: None,
            message: message.into(),
        }
    }
}

/// A parsed file: its front matter's keys and values, where each key is, and the body.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// The front matter as a map (values as YAML gave them).
    pub fields: Map<String, Value>,
    /// The line of the file each top-level key is on.
    key_lines: Vec<(String, u32)>,
    /// The text after the closing fence, trimmed.
    pub body: String,
}

impl Document {
    /// The line `key` is on, or the opening fence's (line 1) when it is absent.
    pub fn line_of(&self, key: &str) -> u32 {
        self.key_lines
            .iter()
            .find(|(k, _)| k == key)
            .map_or(1, |(_, line)| *line)
    }

    /// A string field: absent is `None`; a non-string value is a problem on its line.
    pub fn string(&self, key: &str) -> Result<Option<String>, Problem> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(_) => Err(Problem::at(self.line_of(key), format!("`{key}` must be text"))),
        }
    }

    /// A string field that must be there and not be empty.
    pub fn required_string(&self, key: &str) -> Result<String, Problem> {
        match self.string(key)? {
            Some(s) if !s.is_empty() => Ok(s),
            Some(_) => Err(Problem::at(self.line_of(key), format!("`{key}` is empty"))),
            None => Err(Problem::at(1, format!("the front matter has no `{key}`"))),
        }
    }

    /// A yes/no field (`true`/`false`, or YAML's text forms when read flat).
    pub fn flag(&self, key: &str) -> Result<bool, Problem> {
        match self.fields.get(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::String(s)) if matches!(s.trim(), "true" | "yes") => Ok(true),
            Some(Value::String(s)) if matches!(s.trim(), "false" | "no") => Ok(false),
            Some(_) => Err(Problem::at(
                self.line_of(key),
                format!("`{key}` must be true or false"),
            )),
        }
    }

    /// A list field written either as YAML list or as comma-separated text (`Read, Grep`).
    pub fn list(&self, key: &str) -> Result<Option<Vec<String>>, Problem> {
        let items = match self.fields.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s.split(',').map(|t| t.trim().to_string()).collect::<Vec<_>>(),
            Some(Value::Array(values)) => {
                let mut items = Vec::with_capacity(values.len());
                for v in values {
                    match v {
                        Value::String(s) => items.push(s.trim().to_string()),
                        _ => {
                            return Err(Problem::at(
                                self.line_of(key),
                                format!("every entry of `{key}` must be text"),
                            ));
                        }
                    }
                }
                items
            }
            Some(_) => {
                return Err(Problem::at(
                    self.line_of(key),
                    format!("`{key}` must be a list or comma-separated text"),
                ));
            }
        };
        Ok(Some(items.into_iter().filter(|t| !t.is_empty()).collect()))
    }
}

/// Splits `text` into front matter and body. A file without front matter is a problem: Claude
/// Code's definitions need at least a name or a description there.
pub fn parse(text: &str) -> Result<Document, Problem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or_default();
    if first.trim_end() != "---" {
        return Err(Problem::at(
            1,
            "no front matter: the file must start with a `---` line, then `name:` and `description:`, then `---`",
        ));
    }
    let mut front = String::new();
    let mut closed_at = None;
    let mut offset = first.len();
    for (i, line) in lines.enumerate() {
        offset += line.len();
        if line.trim_end() == "---" {
            closed_at = Some(i);
            break;
        }
        front.push_str(line);
    }
    if closed_at.is_none() {
        return Err(Problem::at(
            1,
            "the front matter opened here is never closed by a `---` line",
        ));
    }
    let body = text.get(offset..).unwrap_or_default().trim().to_string();
    // Line 1 is the fence, so the front matter's line n is the file's line n + 1.
    let fields = match serde_yaml_ng::from_str::<Value>(&front) {
        Ok(Value::Object(map)) => map,
        Ok(Value::Null) => Map::new(),
        Ok(_) => {
            return Err(Problem::at(2, "the front matter must be `key: value` lines"));
        }
        Err(yaml) => flat(&front).ok_or_else(|| {
            let line = yaml
                .location()
                .map(|l| u32::try_from(l.line()).unwrap_or(u32::MAX).saturating_add(1));
            let message = format!("the front matter is not valid YAML: {}", yaml_message(&yaml));
            Problem { line, message }
        })?,
    };
    Ok(Document {
        fields,
        key_lines: key_lines(&front),
        body,
    })
}

/// YAML's message without its own position suffix (the problem carries the file's line).
fn yaml_message(error: &serde_yaml_ng::Error) -> String {
    let text = error.to_string();
    match text.find(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The top-level keys and their lines of the file.
fn key_lines(front: &str) -> Vec<(String, u32)> {
    front
        .lines()
        .enumerate()
        .filter(|(_, line)| !line.starts_with([' ', '\t', '-', '#']))
        .filter_map(|(i, line)| {
            let (key, _) = line.split_once(':')?;
            let line_no = u32::try_from(i).unwrap_or(u32::MAX).saturating_add(2);
            Some((key.trim().to_string(), line_no))
        })
        .collect()
}

/// The front matter read as flat `key: value` lines (values taken verbatim, quotes removed), with
/// `- item` lines under an empty key as a list. `None` when a line is neither.
fn flat(front: &str) -> Option<Map<String, Value>> {
    let mut map = Map::new();
    let mut list_key: Option<String> = None;
    for line in front.lines() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        if let Some(item) = line.trim_start().strip_prefix("- ") {
            let key = list_key.as_ref()?;
            if let Some(Value::Array(items)) = map.get_mut(key) {
                items.push(Value::String(unquote(item).to_string()));
                continue;
            }
            return None;
        }
        if line.starts_with([' ', '\t']) {
            return None;
        }
        let (key, value) = line.split_once(':')?;
        let key = key.trim();
        if key.is_empty() || key.contains(char::is_whitespace) {
            return None;
        }
        let value = value.trim();
        if value.is_empty() {
            list_key = Some(key.to_string());
            map.insert(key.to_string(), Value::Array(Vec::new()));
        } else {
            list_key = None;
            map.insert(key.to_string(), Value::String(unquote(value).to_string()));
        }
    }
    Some(map)
}

fn unquote(value: &str) -> &str {
    let value = value.trim();
    for quote in ['"', '\''] {
        if let Some(inner) = value.strip_prefix(quote).and_then(|v| v.strip_suffix(quote)) {
            return inner;
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_front_matter_gives_fields_body_and_key_lines() {
        let doc = parse("---\nname: reviewer\ndescription: >\n  Reviews code\ntools:\n  - Read\n  - Grep\n---\n\nYou review code.\n").unwrap();
        assert_eq!(doc.required_string("name").unwrap(), "reviewer");
        assert_eq!(doc.required_string("description").unwrap(), "Reviews code");
        assert_eq!(
            doc.list("tools").unwrap(),
            Some(vec!["Read".to_string(), "Grep".to_string()])
        );
        assert_eq!(doc.body, "You review code.");
        assert_eq!(doc.line_of("tools"), 5);
    }

    #[test]
    fn a_claude_code_description_with_colons_is_read_flat() {
        let text = "---\nname: test-runner\ndescription: Use this agent when tests fail. Examples: <example>Context: the user ran the tests</example>\ntools: Bash, Read\nmodel: sonnet\n---\nRun the tests.";
        let doc = parse(text).unwrap();
        assert_eq!(
            doc.required_string("description").unwrap(),
            "Use this agent when tests fail. Examples: <example>Context: the user ran the tests</example>"
        );
        assert_eq!(
            doc.list("tools").unwrap(),
            Some(vec!["Bash".to_string(), "Read".to_string()])
        );
    }

    #[test]
    fn broken_yaml_is_an_error_on_the_files_line() {
        let text = "---\nname: x\ndescription: fine\ntools: [Read, Grep\n  nested: {\n---\nbody";
        let problem = parse(text).unwrap_err();
        assert!(
            problem.message.starts_with("the front matter is not valid YAML"),
            "{problem:?}"
        );
        let line = problem.line.unwrap();
        assert!((4..=6).contains(&line), "{problem:?}");
    }

    #[test]
    fn missing_or_unclosed_front_matter_is_an_error_on_line_one() {
        assert_eq!(parse("Just a prompt").unwrap_err().line, Some(1));
        let unclosed = parse("---\nname: x\n").unwrap_err();
        assert_eq!(unclosed.line, Some(1));
        assert!(unclosed.message.contains("never closed"), "{unclosed:?}");
    }

    #[test]
    fn a_wrong_type_names_its_line() {
        let doc = parse("---\nname: x\ndescription:\n  a: b\n---\nbody").unwrap();
        assert_eq!(
            doc.required_string("description").unwrap_err(),
            Problem::at(3, "`description` must be text")
        );
        assert_eq!(
            doc.required_string("model").unwrap_err(),
            Problem::at(1, "the front matter has no `model`")
        );
    }
}
