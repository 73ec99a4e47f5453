//! Reading and writing the notebook file in its own style: the same indentation (nbformat uses
//! one space), the same trailing newline, written atomically (temp file + rename).

use serde::Serialize;
use serde_json::Value;
use serde_json::ser::{PrettyFormatter, Serializer};

/// How the file was laid out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Layout {
    /// One level of indentation; `None` for a compact (one-line) file.
    pub indent: Option<String>,
    /// Whether the file ended with a newline.
    pub trailing_newline: bool,
}

impl Layout {
    /// The layout of `text`: the indentation of its first indented line.
    pub fn of(text: &str) -> Self {
        let indent = text.lines().skip(1).find_map(|line| {
            let rest = line.trim_start_matches([' ', '\t']);
            let width = line.len() - rest.len();
            (width > 0).then(|| line[..width].to_string())
        });
        Self {
            indent,
            trailing_newline: text.ends_with('\n'),
        }
    }

    /// `nb` serialised in this layout.
    pub fn render(&self, nb: &Value) -> Result<String, serde_json::Error> {
        let mut out = Vec::new();
        match &self.indent {
            Some(indent) => {
                let mut ser =
                    Serializer::with_formatter(&mut out, PrettyFormatter::with_indent(indent.as_bytes()));
                nb.serialize(&mut ser)?;
            }
            None => serde_json::to_writer(&mut out, nb)?,
        }
        if self.trailing_newline {
            out.push(b'\n');
        }
        // serde_json writes UTF-8 only.
        Ok(String::from_utf8_lossy(&out).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_one_space_indent_and_trailing_newline() {
        let text = "{\n \"cells\": [],\n \"nbformat\": 4\n}\n";
        let layout = Layout::of(text);
        assert_eq!(layout.indent.as_deref(), Some(" "));
        let nb: Value = serde_json::from_str(text).unwrap();
        assert_eq!(layout.render(&nb).unwrap(), text);
    }

    #[test]
    fn keeps_other_indents_and_compact_files() {
        let text = "{\n    \"a\": [\n        1\n    ]\n}";
        let layout = Layout::of(text);
        assert_eq!(layout.indent.as_deref(), Some("    "));
        assert_eq!(layout.render(&serde_json::from_str(text).unwrap()).unwrap(), text);
        let compact = Layout::of("{\"a\":1}");
        assert_eq!(compact.indent, None);
        assert_eq!(compact.render(&json!({"a": 1})).unwrap(), "{\"a\":1}");
    }
}
