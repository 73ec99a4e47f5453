//! Cell edits on a parsed notebook (nbformat 4), kept valid: new cells get the fields nbformat
//! requires, and a code cell whose source changes loses its now-stale outputs.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// The kind of cell to write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CellType {
    /// Code, with outputs and an execution count.
    Code,
    /// Markdown text.
    Markdown,
}

impl CellType {
    fn as_str(self) -> &'static str {
        match self {
            Self::Code => "code",
            Self::Markdown => "markdown",
        }
    }
}

/// What to do with the cell.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EditMode {
    /// Replace the cell's source.
    #[default]
    Replace,
    /// Insert a new cell after the given one (at the start without `cell_id`).
    Insert,
    /// Delete the cell.
    Delete,
}

/// One requested edit.
#[derive(Debug, Clone, Copy)]
pub struct CellEdit<'a> {
    /// The cell's id or `cell-N` (0-based index).
    pub cell_id: Option<&'a str>,
    /// The new source.
    pub new_source: &'a str,
    /// The cell type to set (required for insert).
    pub cell_type: Option<CellType>,
    /// Replace, insert or delete.
    pub mode: EditMode,
}

/// What an edit did, for the result and the UI's diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The affected cell's id (its `id`, or `cell-N` when it has none).
    pub cell_id: String,
    /// Its position after the edit (before it, for a delete).
    pub index: usize,
    /// The cell type after the edit.
    pub cell_type: String,
    /// The source before (none for an insert).
    pub old_source: Option<String>,
    /// The source after (none for a delete).
    pub new_source: Option<String>,
}

/// Why an edit cannot be made. Each says what to do instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CellError {
    /// The file is not a notebook this tool can edit.
    #[error("not a valid Jupyter notebook: {0}")]
    NotANotebook(String),
    /// No cell has this id.
    #[error(
        "cell `{id}` not found. The notebook's cells are: {available}. Read the notebook to see its cell ids."
    )]
    UnknownCell {
        /// The id asked for.
        id: String,
        /// The ids that exist.
        available: String,
    },
    /// Replace or delete without a cell.
    #[error("`cell_id` is required to {0} a cell. Read the notebook to see its cell ids.")]
    MissingCellId(&'static str),
    /// Insert without a cell type.
    #[error("`cell_type` (\"code\" or \"markdown\") is required when inserting a cell.")]
    InsertWithoutType,
}

fn cells_mut(nb: &mut Value) -> Result<&mut Vec<Value>, CellError> {
    let Value::Object(map) = nb else {
        return Err(CellError::NotANotebook(
            "the top level is not a JSON object".into(),
        ));
    };
    if let Some(v) = map.get("nbformat")
        && v.as_u64() != Some(4)
    {
        return Err(CellError::NotANotebook(format!(
            "nbformat {v} is not supported, only nbformat 4 (convert it with `jupyter nbconvert --to notebook`)"
        )));
    }
    match map.get_mut("cells") {
        Some(Value::Array(cells)) => Ok(cells),
        Some(_) => Err(CellError::NotANotebook("`cells` is not an array".into())),
        None => Err(CellError::NotANotebook("it has no `cells` array".into())),
    }
}

/// Whether new cells need an `id` (nbformat 4.5 and later).
fn wants_ids(nb: &Value) -> bool {
    nb.get("nbformat_minor").and_then(Value::as_u64).unwrap_or(0) >= 5
}

/// The display id of the cell at `index`: its `id`, or `cell-N`.
fn id_of(cell: &Value, index: usize) -> String {
    cell.get("id")
        .and_then(Value::as_str)
        .map_or_else(|| format!("cell-{index}"), str::to_string)
}

/// Finds a cell by its `id`, falling back to the `cell-N` index form the Read tool shows for cells
/// without ids.
fn find(cells: &[Value], id: &str) -> Result<usize, CellError> {
    if let Some(i) = cells
        .iter()
        .position(|c| c.get("id").and_then(Value::as_str) == Some(id))
    {
        return Ok(i);
    }
    if let Some(n) = id.strip_prefix("cell-").and_then(|n| n.parse::<usize>().ok())
        && n < cells.len()
    {
        return Ok(n);
    }
    let mut available: Vec<String> = cells
        .iter()
        .enumerate()
        .map(|(i, c)| id_of(c, i))
        .take(20)
        .collect();
    if cells.len() > 20 {
        available.push(format!("... ({} cells)", cells.len()));
    }
    if available.is_empty() {
        available.push("(none: the notebook is empty)".into());
    }
    Err(CellError::UnknownCell {
        id: id.to_string(),
        available: available.join(", "),
    })
}

/// A cell's source as one string (nbformat allows a string or a list of lines).
pub fn source_text(cell: &Value) -> String {
    match cell.get("source") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(lines)) => lines.iter().filter_map(Value::as_str).collect(),
        Some(_) | None => String::new(),
    }
}

/// The source in the given form: Jupyter writes lists of lines, each keeping its newline.
fn source_value(text: &str, as_lines: bool) -> Value {
    if as_lines {
        Value::Array(
            text.split_inclusive('\n')
                .map(|l| Value::String(l.into()))
                .collect(),
        )
    } else {
        Value::String(text.into())
    }
}

fn fresh_id(cells: &[Value]) -> String {
    loop {
        let id: String = uuid::Uuid::new_v4()
            .simple()
            .to_string()
            .chars()
            .take(8)
            .collect();
        if !cells
            .iter()
            .any(|c| c.get("id").and_then(Value::as_str) == Some(id.as_str()))
        {
            return id;
        }
    }
}

/// Makes `cell` a valid cell of `cell_type`: code cells carry outputs and an execution count
/// (cleared, since they described the old source), markdown cells carry neither.
fn shape_cell(cell: &mut Map<String, Value>, cell_type: &str) {
    cell.insert("cell_type".into(), Value::String(cell_type.into()));
    if cell_type == "code" {
        cell.insert("execution_count".into(), Value::Null);
        cell.insert("outputs".into(), json!([]));
    } else {
        cell.remove("execution_count");
        cell.remove("outputs");
    }
    cell.entry("metadata").or_insert_with(|| json!({}));
}

/// Applies one edit to a parsed notebook.
pub fn apply(nb: &mut Value, edit: CellEdit<'_>) -> Result<Applied, CellError> {
    let ids = wants_ids(nb);
    let cells = cells_mut(nb)?;
    let uses_lines = cells
        .iter()
        .any(|c| matches!(c.get("source"), Some(Value::Array(_))));
    match edit.mode {
        EditMode::Replace => {
            let id = edit.cell_id.ok_or(CellError::MissingCellId("replace"))?;
            let index = find(cells, id)?;
            let cell = &mut cells[index];
            let old = source_text(cell);
            let as_lines = matches!(cell.get("source"), Some(Value::Array(_)));
            let Value::Object(map) = cell else {
                return Err(CellError::NotANotebook(format!(
                    "cell {index} is not a JSON object"
                )));
            };
            let current = map
                .get("cell_type")
                .and_then(Value::as_str)
                .unwrap_or("code")
                .to_string();
            let cell_type = edit.cell_type.map_or(current, |t| t.as_str().to_string());
            if cell_type == "code" || cell_type == "markdown" {
                shape_cell(map, &cell_type);
            }
            map.insert("source".into(), source_value(edit.new_source, as_lines));
            Ok(Applied {
                cell_id: id_of(cell, index),
                index,
                cell_type,
                old_source: Some(old),
                new_source: Some(edit.new_source.to_string()),
            })
        }
        EditMode::Insert => {
            let cell_type = edit.cell_type.ok_or(CellError::InsertWithoutType)?;
            let index = match edit.cell_id {
                Some(id) => find(cells, id)? + 1,
                None => 0,
            };
            let mut map = Map::new();
            shape_cell(&mut map, cell_type.as_str());
            if ids {
                map.insert("id".into(), Value::String(fresh_id(cells)));
            }
            map.insert("source".into(), source_value(edit.new_source, uses_lines));
            sort_keys(&mut map);
            let cell = Value::Object(map);
            let cell_id = id_of(&cell, index);
            cells.insert(index, cell);
            Ok(Applied {
                cell_id,
                index,
                cell_type: cell_type.as_str().into(),
                old_source: None,
                new_source: Some(edit.new_source.to_string()),
            })
        }
        EditMode::Delete => {
            let id = edit.cell_id.ok_or(CellError::MissingCellId("delete"))?;
            let index = find(cells, id)?;
            let cell = cells.remove(index);
            Ok(Applied {
                cell_id: id_of(&cell, index),
                index,
                cell_type: cell
                    .get("cell_type")
                    .and_then(Value::as_str)
                    .unwrap_or("code")
                    .into(),
                old_source: Some(source_text(&cell)),
                new_source: None,
            })
        }
    }
}

/// nbformat writes keys sorted; a new cell follows suit so a later save by Jupyter changes nothing.
fn sort_keys(map: &mut Map<String, Value>) {
    let mut entries: Vec<(String, Value)> = std::mem::take(map).into_iter().collect();
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    map.extend(entries);
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn notebook(minor: u64) -> Value {
        json!({
            "cells": [
                {"cell_type": "markdown", "id": "intro", "metadata": {}, "source": ["# Title\n", "text"]},
                {"cell_type": "code", "execution_count": 3, "id": "calc", "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["2\n"]}], "source": ["1 + 1"]}
            ],
            "metadata": {},
            "nbformat": 4,
            "nbformat_minor": minor
        })
    }

    fn edit<'a>(id: Option<&'a str>, src: &'a str, t: Option<CellType>, mode: EditMode) -> CellEdit<'a> {
        CellEdit {
            cell_id: id,
            new_source: src,
            cell_type: t,
            mode,
        }
    }

    #[test]
    fn replacing_code_clears_outputs_and_keeps_line_form() {
        let mut nb = notebook(5);
        let a = apply(&mut nb, edit(Some("calc"), "x = 2\nx", None, EditMode::Replace)).unwrap();
        assert_eq!(a.old_source.as_deref(), Some("1 + 1"));
        assert_eq!(a.cell_id, "calc");
        assert_eq!(
            nb["cells"][1],
            json!({"cell_type": "code", "execution_count": null, "id": "calc", "metadata": {}, "outputs": [], "source": ["x = 2\n", "x"]})
        );
    }

    #[test]
    fn replacing_can_change_the_type() {
        let mut nb = notebook(5);
        apply(
            &mut nb,
            edit(
                Some("calc"),
                "now text",
                Some(CellType::Markdown),
                EditMode::Replace,
            ),
        )
        .unwrap();
        assert_eq!(
            nb["cells"][1],
            json!({"cell_type": "markdown", "id": "calc", "metadata": {}, "source": ["now text"]})
        );
    }

    #[test]
    fn insert_after_a_cell_or_at_the_start() {
        let mut nb = notebook(5);
        let a = apply(
            &mut nb,
            edit(Some("intro"), "print(1)", Some(CellType::Code), EditMode::Insert),
        )
        .unwrap();
        assert_eq!(a.index, 1);
        let cell = &nb["cells"][1];
        assert_eq!(cell["cell_type"], "code");
        assert_eq!(cell["outputs"], json!([]));
        assert_eq!(cell["execution_count"], Value::Null);
        assert_eq!(cell["metadata"], json!({}));
        assert_eq!(cell["id"].as_str().unwrap().len(), 8);
        assert_eq!(a.cell_id, cell["id"].as_str().unwrap());
        let keys: Vec<&String> = cell.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "cell_type",
                "execution_count",
                "id",
                "metadata",
                "outputs",
                "source"
            ]
        );
        let a = apply(
            &mut nb,
            edit(None, "# Top", Some(CellType::Markdown), EditMode::Insert),
        )
        .unwrap();
        assert_eq!(a.index, 0);
        assert_eq!(nb["cells"].as_array().unwrap().len(), 4);
        assert_eq!(nb["cells"][0]["source"], json!(["# Top"]));
    }

    #[test]
    fn older_minor_versions_get_no_ids() {
        let mut nb = notebook(4);
        let a = apply(
            &mut nb,
            edit(None, "x", Some(CellType::Markdown), EditMode::Insert),
        )
        .unwrap();
        assert!(nb["cells"][0].get("id").is_none());
        assert_eq!(a.cell_id, "cell-0");
    }

    #[test]
    fn insert_needs_a_type() {
        let mut nb = notebook(5);
        let err = apply(&mut nb, edit(None, "x", None, EditMode::Insert)).unwrap_err();
        assert_eq!(err, CellError::InsertWithoutType);
    }

    #[test]
    fn delete_by_index_form() {
        let mut nb = notebook(5);
        let a = apply(&mut nb, edit(Some("cell-0"), "", None, EditMode::Delete)).unwrap();
        assert_eq!(a.cell_id, "intro");
        assert_eq!(a.old_source.as_deref(), Some("# Title\ntext"));
        assert_eq!(nb["cells"].as_array().unwrap().len(), 1);
        assert_eq!(nb["cells"][0]["id"], "calc");
    }

    #[test]
    fn unknown_ids_list_the_real_ones() {
        let mut nb = notebook(5);
        let err = apply(&mut nb, edit(Some("nope"), "", None, EditMode::Delete)).unwrap_err();
        assert_eq!(err.to_string().contains("intro, calc"), true, "{err}");
        let err = apply(&mut nb, edit(Some("cell-9"), "", None, EditMode::Replace)).unwrap_err();
        assert!(matches!(err, CellError::UnknownCell { .. }));
        let err = apply(&mut nb, edit(None, "", None, EditMode::Replace)).unwrap_err();
        assert_eq!(err, CellError::MissingCellId("replace"));
    }

    #[test]
    fn non_notebooks_are_refused() {
        let err = apply(
            &mut json!([1]),
            edit(None, "x", Some(CellType::Code), EditMode::Insert),
        )
        .unwrap_err();
        assert!(matches!(err, CellError::NotANotebook(_)));
        let err = apply(
            &mut json!({"nbformat": 3, "cells": []}),
            edit(None, "x", Some(CellType::Code), EditMode::Insert),
        )
        .unwrap_err();
        assert!(err.to_string().contains("nbformat 3"), "{err}");
        let err = apply(
            &mut json!({"nbformat": 4}),
            edit(None, "x", Some(CellType::Code), EditMode::Insert),
        )
        .unwrap_err();
        assert!(err.to_string().contains("no `cells`"), "{err}");
    }
}
