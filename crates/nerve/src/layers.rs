//! The layer check: every `crate::` path in the engine's sources points to a lower layer, as the
//! table in the crate's documentation (`lib.rs`) says.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Module name → layer, read from the table in `lib.rs`'s documentation.
fn layer_table(lib: &str) -> BTreeMap<String, u32> {
    let mut layers = BTreeMap::new();
    for line in lib.lines() {
        let Some(row) = line.strip_prefix("//! | ") else {
            continue;
        };
        let mut cells = row.split(" | ");
        let (Some(layer), Some(modules)) = (cells.next(), cells.next()) else {
            continue;
        };
        let Ok(layer) = layer.trim().parse::<u32>() else {
            continue;
        };
        for module in modules.split('`').skip(1).step_by(2) {
            layers.insert(module.to_string(), layer);
        }
    }
    layers
}

/// The top-level modules `lib.rs` declares.
fn declared_modules(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|l| l.strip_prefix("pub mod ").or_else(|| l.strip_prefix("mod ")))
        .filter_map(|l| l.strip_suffix(';'))
        .filter(|m| *m != "layers" && *m != "front_door")
        .map(str::to_string)
        .collect()
}

/// The module names a line's `crate::` paths start with (`crate::a::b`, `crate::{a, b::c}`),
/// ignoring what follows `//` (comments and doc links).
fn crate_paths(line: &str) -> Vec<String> {
    let code = line.split("//").next().unwrap_or("");
    let mut found = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let after = &rest[i + "crate::".len()..];
        let preceded_by_ident = rest[..i]
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !preceded_by_ident {
            if let Some(group) = after.strip_prefix('{') {
                // The first segment of each item of the group (`crate::{a::{x, y}, b}` names `a`
                // and `b`), up to the group's own closing brace.
                let mut depth = 0;
                let mut item_start = true;
                let mut word = String::new();
                for c in group.chars() {
                    if depth == 0 && item_start && (c.is_alphanumeric() || c == '_') {
                        word.push(c);
                        continue;
                    }
                    if !word.is_empty() {
                        found.push(std::mem::take(&mut word));
                        item_start = false;
                    }
                    match c {
                        '{' => depth += 1,
                        '}' if depth == 0 => break,
                        '}' => depth -= 1,
                        ',' if depth == 0 => item_start = true,
                        _ => {}
                    }
                }
            } else {
                let name: String = after
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    found.push(name);
                }
            }
        }
        rest = after;
    }
    found
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

#[test]
fn every_crate_path_points_to_a_lower_layer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let layers = layer_table(&lib);
    let declared = declared_modules(&lib);
    let unplaced: Vec<&String> = declared.iter().filter(|m| !layers.contains_key(*m)).collect();
    assert!(
        unplaced.is_empty(),
        "modules missing from the layer table in lib.rs: {unplaced:?}"
    );
    assert!(
        declared.len() >= 25,
        "too few modules found; is the parser broken? {declared:?}"
    );

    let mut violations = Vec::new();
    for module in &declared {
        let mut files = Vec::new();
        let file = src.join(format!("{module}.rs"));
        if file.is_file() {
            files.push(file);
        }
        rust_files(&src.join(module), &mut files);
        assert!(!files.is_empty(), "no source for module {module}");
        let own = layers[module];
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (n, line) in text.lines().enumerate() {
                for target in crate_paths(line) {
                    if &target == module || target == "layers" {
                        continue;
                    }
                    match layers.get(&target) {
                        Some(&layer) if layer < own => {}
                        Some(&layer) => violations.push(format!(
                            "{}:{}: `{module}` (layer {own}) uses `{target}` (layer {layer})",
                            file.strip_prefix(&src).unwrap_or(&file).display(),
                            n + 1
                        )),
                        None => {} // a crate-level item (a macro, a re-export), not a module
                    }
                }
            }
        }
    }
    assert!(
        violations.is_empty(),
        "imports that point up or sideways:\n{}",
        violations.join("\n")
    );
}

#[test]
fn the_path_parser_sees_plain_grouped_and_nested_imports_but_not_comments() {
    assert_eq!(crate_paths("use crate::tool::{A, B};"), ["tool"]);
    assert_eq!(
        crate_paths("use crate::{agent::{X, Y}, tool, registry::Z};"),
        ["agent", "tool", "registry"]
    );
    assert_eq!(
        crate_paths("let x = crate::tools::bash::run(); // crate::agent"),
        ["tools"]
    );
    assert_eq!(
        crate_paths("/// See [`crate::agent::Agent`]."),
        Vec::<String>::new()
    );
    assert_eq!(crate_paths("use nerve_crate::agent;"), Vec::<String>::new());
}

#[test]
fn the_layer_table_is_read_from_the_documentation() {
    let table = layer_table(
        "//! | Layer | Modules | What |\n//! |---|---|---|\n//! | 1 | `a` `b` | x |\n//! | 2 | `c` | y |",
    );
    assert_eq!(
        table,
        BTreeMap::from([("a".into(), 1), ("b".into(), 1), ("c".into(), 2)])
    );
}
