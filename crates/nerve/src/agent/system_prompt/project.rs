//! The project block: the project's instruction files with their `@` imports, and the memory
//! index.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use crate::tools::memory::{MemoryStore, store::MAX_LISTED};

/// Instruction files read from a folder, in this order: Nerve's own, then Claude Code's and
/// Codex's, so projects written for those tools work unchanged.
pub const INSTRUCTION_FILES: [&str; 3] = ["NERVE.md", "CLAUDE.md", "AGENTS.md"];

/// Longest instruction file (with its imports) taken into the prompt; the rest is cut with a note.
const MAX_INSTRUCTION_BYTES: usize = 40_000;
/// How deep imports may nest (a file importing a file importing...).
const MAX_IMPORT_DEPTH: usize = 4;

/// The instruction files of `project_dir`'s root, or an empty string when it has none.
pub fn instructions_block(project_dir: &Path) -> String {
    let files: Vec<String> = INSTRUCTION_FILES
        .iter()
        .filter_map(|name| instruction_file(project_dir, &project_dir.join(name)))
        .collect();
    if files.is_empty() {
        return String::new();
    }
    format!(
        "# Project instructions\n\nThe project's own instruction files follow. Follow them: where they differ from the general guidance above, they win, but never over what the user tells you or over acting safely. Folders inside the project may hold instruction files of their own; when you work with files there, they are added to the conversation in a `<system-reminder>`.\n\n{}",
        files.join("\n\n")
    )
}

/// Where the user's own instruction file is: `NERVE.md` in Nerve's configuration folder.
pub fn user_instructions_path(config_dir: &Path) -> PathBuf {
    config_dir.join("nerve").join("NERVE.md")
}

/// The files `path` imports, at any depth, as the prompt reads them (inside `project_dir` only),
/// each with the file that imports it.
pub fn imports_of(project_dir: &Path, path: &Path) -> Vec<(PathBuf, PathBuf)> {
    let mut found = Vec::new();
    let mut seen = HashSet::from([path.to_path_buf()]);
    let root = project_dir
        .canonicalize()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    let mut queue = vec![(path.to_path_buf(), 1usize)];
    while let Some((importer, depth)) = queue.pop() {
        if depth > MAX_IMPORT_DEPTH {
            continue;
        }
        let Ok(text) = std::fs::read_to_string(&importer) else {
            continue;
        };
        let base = importer.parent().unwrap_or(project_dir).to_path_buf();
        for target in import_targets(&text) {
            let path = base.join(&target);
            let Ok(real) = path.canonicalize() else {
                continue;
            };
            if !real.starts_with(&root) || !real.is_file() || !seen.insert(real.clone()) {
                continue;
            }
            found.push((path.clone(), importer.clone()));
            queue.push((path, depth + 1));
        }
    }
    found
}

/// The user's own instruction file (for every project), or an empty string when there is none. Its
/// imports may name files anywhere under the file's folder: the user wrote it.
pub fn user_instructions_block(path: &Path) -> String {
    let Some(folder) = path.parent() else {
        return String::new();
    };
    match instruction_file(folder, path) {
        Some(file) => format!(
            "# Your user's instructions\n\nThe user's own instructions, for every project, follow. The project's instruction files, after them, are more specific and win where they differ.\n\n{file}"
        ),
        None => String::new(),
    }
}

/// One instruction file with its imports, headed by its path; `None` when it cannot be read.
pub(super) fn instruction_file(project_dir: &Path, path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut seen = HashSet::from([path.to_path_buf()]);
    let mut out = format!("## {}\n\n{}", path.display(), text.trim_end());
    append_imports(project_dir, path, &text, 1, &mut seen, &mut out);
    if out.len() > MAX_INSTRUCTION_BYTES {
        let mut cut = MAX_INSTRUCTION_BYTES;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
        out.push_str("\n… (truncated)");
    }
    Some(out)
}

/// Appends each file `text` imports (`@path` at the start of a word, outside code), relative to
/// the importing file's folder. Only files inside the project are imported: an instruction file
/// comes with the repository, and must not pull the user's other files into the prompt.
fn append_imports(
    project_dir: &Path,
    importer: &Path,
    text: &str,
    depth: usize,
    seen: &mut HashSet<PathBuf>,
    out: &mut String,
) {
    if depth > MAX_IMPORT_DEPTH || out.len() > MAX_INSTRUCTION_BYTES {
        return;
    }
    let base = importer.parent().unwrap_or(project_dir);
    let root = project_dir
        .canonicalize()
        .unwrap_or_else(|_| project_dir.to_path_buf());
    for target in import_targets(text) {
        let path = base.join(&target);
        let Ok(real) = path.canonicalize() else {
            continue;
        };
        if !real.starts_with(&root) || !real.is_file() || !seen.insert(real.clone()) {
            continue;
        }
        let Ok(imported) = std::fs::read_to_string(&real) else {
            continue;
        };
        out.push_str(&format!(
            "\n\n## {} (imported by {})\n\n{}",
            path.display(),
            importer.display(),
            imported.trim_end()
        ));
        append_imports(project_dir, &path, &imported, depth + 1, seen, out);
    }
}

/// The `@path` references of `text`: a word starting with `@` that names a relative path with a
/// file extension or a slash, outside fenced code blocks and inline code.
pub(super) fn import_targets(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        // Inline code spans are left out: every other piece between backticks.
        for (i, piece) in line.split('`').enumerate() {
            if i % 2 == 1 {
                continue;
            }
            for word in piece.split_whitespace() {
                let Some(target) = word.strip_prefix('@') else {
                    continue;
                };
                let target = target.trim_end_matches([',', ';', ':', ')', '.']);
                let looks_like_path = (target.contains('/') || target.contains('.'))
                    && !target.starts_with('/')
                    && !target.starts_with('~')
                    && !target.contains('@');
                if looks_like_path && !targets.iter().any(|t| t == target) {
                    targets.push(target.to_string());
                }
            }
        }
    }
    targets
}

/// The memory index: every entry's name and description, and when to save one.
pub fn memory_block(dir: &Path) -> String {
    let entries = MemoryStore::new(dir).list().unwrap_or_default();
    let mut text = format!(
        "# Project memory\n\nFacts the user asked you to remember about this project in earlier sessions, kept in {}. Only names and descriptions are listed; read an entry with Memory when its description bears on the task. When the user asks you to remember something (a command, a preference, a convention), save it with Memory as a short entry, or update the entry it belongs to. Do not save on your own initiative, do not save what the project's files already say, and never save secrets. When the user asks you to forget something, delete its entry.\n\n",
        dir.display()
    );
    if entries.is_empty() {
        text.push_str("No entries yet.");
        return text;
    }
    let listed: Vec<String> = entries
        .iter()
        .take(MAX_LISTED)
        .map(|e| format!("- `{}`: {}", e.name, one_line(&e.description)))
        .collect();
    text.push_str(&listed.join("\n"));
    if entries.len() > MAX_LISTED {
        text.push_str(&format!("\n- … and {} more", entries.len() - MAX_LISTED));
    }
    text
}

/// A description as one line (a hand-edited file may hold anything).
fn one_line(description: &str) -> String {
    let line: String = description
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(200)
        .collect();
    if line.is_empty() {
        "(no description)".to_string()
    } else {
        line
    }
}
