//! Jupyter notebooks: each cell with its id, type and source, followed by its text outputs; image
//! outputs become image blocks in place.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::Value;

use crate::tool::ResultBlock;
use crate::tools::read::image::MAX_IMAGE_BASE64;
use crate::tools::read::text::MAX_TOKENS;

static ANSI: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\x1b\[[0-9;]*[A-Za-z]").ok());

/// A notebook whose text is more than one read returns; the message says how to read parts of it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "This notebook is about {tokens} tokens, over the {MAX_TOKENS}-token limit of one read. Read specific cells with Bash and jq, e.g. `jq '.cells[:5]' notebook.ipynb`."
)]
pub struct NotebookTooLarge {
    /// About how many tokens its text is.
    pub tokens: usize,
}

/// Renders a notebook. `Ok(None)`: the JSON is not a notebook (no `cells` array), so the caller
/// shows the file as text. `Err`: a notebook too large for one read.
pub fn render_notebook(bytes: &[u8]) -> Result<Option<Vec<ResultBlock>>, NotebookTooLarge> {
    let Ok(doc) = serde_json::from_slice::<Value>(bytes) else {
        return Ok(None);
    };
    let Some(cells) = doc.get("cells").and_then(Value::as_array) else {
        return Ok(None);
    };
    let language = doc
        .pointer("/metadata/language_info/name")
        .and_then(Value::as_str)
        .unwrap_or("python");
    let mut out = Blocks::default();
    out.text(&format!(
        "Jupyter notebook, {} cells, language {language}.\n",
        cells.len()
    ));
    for (i, cell) in cells.iter().enumerate() {
        let id = cell
            .get("id")
            .and_then(Value::as_str)
            .map_or_else(|| format!("cell-{i}"), str::to_string);
        let cell_type = cell.get("cell_type").and_then(Value::as_str).unwrap_or("unknown");
        let source = joined(cell.get("source"));
        let count = cell
            .get("execution_count")
            .and_then(Value::as_u64)
            .map(|n| format!(" execution_count=\"{n}\""))
            .unwrap_or_default();
        out.text(&format!(
            "<cell id=\"{id}\" type=\"{cell_type}\"{count}>\n{source}\n</cell>\n"
        ));
        let outputs = cell
            .get("outputs")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        if !outputs.is_empty() {
            out.text(&format!("<outputs cell=\"{id}\">\n"));
            for output in outputs {
                render_output(output, &mut out);
            }
            out.text("</outputs>\n");
        }
    }
    let tokens = out.text_chars / 4;
    if tokens > MAX_TOKENS {
        return Err(NotebookTooLarge { tokens });
    }
    Ok(Some(out.finish()))
}

fn render_output(output: &Value, out: &mut Blocks) {
    match output.get("output_type").and_then(Value::as_str) {
        Some("stream") => out.text(&ensure_newline(&joined(output.get("text")))),
        Some("execute_result" | "display_data") => {
            let data = output.get("data");
            let mut shown_image = false;
            for (mime, media_type) in [("image/png", "image/png"), ("image/jpeg", "image/jpeg")] {
                if let Some(b64) = data.and_then(|d| d.get(mime)) {
                    let b64: String = joined(Some(b64)).chars().filter(|c| !c.is_whitespace()).collect();
                    if b64.len() <= MAX_IMAGE_BASE64 {
                        out.image(media_type, b64);
                    } else {
                        out.text("(an image output too large to show)\n");
                    }
                    shown_image = true;
                    break;
                }
            }
            if let Some(text) = data.and_then(|d| d.get("text/plain")) {
                if !shown_image {
                    out.text(&ensure_newline(&joined(Some(text))));
                }
            } else if !shown_image {
                out.text("(output without a text form)\n");
            }
        }
        Some("error") => {
            let name = output.get("ename").and_then(Value::as_str).unwrap_or("Error");
            let value = output.get("evalue").and_then(Value::as_str).unwrap_or("");
            let traceback = output
                .get("traceback")
                .and_then(Value::as_array)
                .map(|lines| {
                    lines
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join("\n")
                })
                .unwrap_or_default();
            out.text(&format!(
                "{name}: {value}\n{}",
                ensure_newline(&strip_ansi(&traceback))
            ));
        }
        _ => {}
    }
}

/// Notebook text fields are a string or an array of strings.
fn joined(value: Option<&Value>) -> String {
    match value {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts.iter().filter_map(Value::as_str).collect(),
        _ => String::new(),
    }
}

fn ensure_newline(s: &str) -> String {
    if s.is_empty() || s.ends_with('\n') {
        s.to_string()
    } else {
        format!("{s}\n")
    }
}

fn strip_ansi(s: &str) -> String {
    match ANSI.as_ref() {
        Some(re) => re.replace_all(s, "").into_owned(),
        None => s.to_string(),
    }
}

/// Text accumulated between image blocks.
#[derive(Default)]
struct Blocks {
    blocks: Vec<ResultBlock>,
    pending: String,
    text_chars: usize,
}

impl Blocks {
    fn text(&mut self, s: &str) {
        self.text_chars += s.len();
        self.pending.push_str(s);
    }
    fn image(&mut self, media_type: &str, data: String) {
        self.flush();
        self.blocks.push(ResultBlock::Image {
            media_type: media_type.into(),
            data,
        });
    }
    fn flush(&mut self) {
        if !self.pending.is_empty() {
            self.blocks
                .push(ResultBlock::text(std::mem::take(&mut self.pending)));
        }
    }
    fn finish(mut self) -> Vec<ResultBlock> {
        self.flush();
        self.blocks
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use serde_json::json;

    #[test]
    fn cells_outputs_and_images() {
        let nb = json!({
            "cells": [
                {"id": "intro", "cell_type": "markdown", "source": ["# Title\n", "Some text"]},
                {"id": "c1", "cell_type": "code", "execution_count": 3, "source": "print(1)\n1 + 1",
                 "outputs": [
                    {"output_type": "stream", "name": "stdout", "text": ["1\n"]},
                    {"output_type": "execute_result", "data": {"text/plain": "2"}},
                    {"output_type": "display_data", "data": {"image/png": "iVBORw0K\nGgo=", "text/plain": "<Figure>"}},
                    {"output_type": "error", "ename": "ValueError", "evalue": "bad", "traceback": ["\u{1b}[31mTraceback\u{1b}[0m"]}
                 ]}
            ],
            "metadata": {"language_info": {"name": "python"}}
        });
        let blocks = render_notebook(nb.to_string().as_bytes()).unwrap().unwrap();
        assert_eq!(blocks.len(), 3);
        let ResultBlock::Text { text } = &blocks[0] else {
            panic!()
        };
        assert!(
            text.contains("<cell id=\"intro\" type=\"markdown\">\n# Title\nSome text\n</cell>"),
            "{text}"
        );
        assert!(
            text.contains("<cell id=\"c1\" type=\"code\" execution_count=\"3\">\nprint(1)\n1 + 1\n</cell>"),
            "{text}"
        );
        assert!(text.contains("<outputs cell=\"c1\">\n1\n2\n"), "{text}");
        assert_eq!(
            blocks[1],
            ResultBlock::Image {
                media_type: "image/png".into(),
                data: "iVBORw0KGgo=".into()
            }
        );
        let ResultBlock::Text { text } = &blocks[2] else {
            panic!()
        };
        assert_eq!(text, "ValueError: bad\nTraceback\n</outputs>\n");
    }

    #[test]
    fn json_without_cells_is_not_a_notebook() {
        assert_eq!(render_notebook(b"{\"a\": 1}").unwrap(), None);
        assert_eq!(render_notebook(b"not json").unwrap(), None);
    }

    #[test]
    fn huge_notebooks_are_refused() {
        let big = "x".repeat(120_000);
        let nb = json!({"cells": [{"id": "a", "cell_type": "code", "source": big}]});
        let err = render_notebook(nb.to_string().as_bytes()).unwrap_err();
        // 120,000 characters of source and the cell's framing, at four characters a token.
        assert_eq!(err, NotebookTooLarge { tokens: 30_019 });
        assert!(
            err.to_string()
                .ends_with("Read specific cells with Bash and jq, e.g. `jq '.cells[:5]' notebook.ipynb`."),
            "{err}"
        );
    }
}
