//! Help for a path that does not exist: near names in the same folder, and macOS screenshot names.

use std::path::{Path, PathBuf};

/// U+202F NARROW NO-BREAK SPACE: what macOS puts before "AM"/"PM" in screenshot names
/// ("Screenshot 2024-05-01 at 10.15.30\u{202f}AM.png"), where a model types a plain space.
const NARROW_NBSP: char = '\u{202f}';

/// How many suggestions a message names at most.
const MAX_SUGGESTIONS: usize = 3;
/// Folders larger than this are not scanned for suggestions (the error must stay quick).
const MAX_SCANNED_ENTRIES: usize = 5_000;

/// The existing file `path` most likely meant when it differs only in the space before AM/PM (or in
/// every space) being U+202F, or the reverse.
pub fn screenshot_alternative(path: &Path) -> Option<PathBuf> {
    let name = path.file_name()?.to_str()?;
    let mut candidates = Vec::new();
    for marker in ["AM", "PM", "am", "pm"] {
        let plain = format!(" {marker}");
        if name.contains(&plain) {
            candidates.push(name.replace(&plain, &format!("{NARROW_NBSP}{marker}")));
        }
    }
    if name.contains(' ') {
        candidates.push(name.replace(' ', &NARROW_NBSP.to_string()));
    }
    if name.contains(NARROW_NBSP) {
        candidates.push(name.replace(NARROW_NBSP, " "));
    }
    candidates
        .into_iter()
        .map(|c| path.with_file_name(c))
        .find(|p| p.exists())
}

/// Up to three existing names in `path`'s folder that look like what was meant: the same stem with
/// another extension, or a small edit distance.
pub fn similar_names(path: &Path) -> Vec<PathBuf> {
    let (Some(parent), Some(wanted)) = (path.parent(), path.file_name().and_then(|n| n.to_str())) else {
        return Vec::new();
    };
    let Ok(entries) = std::fs::read_dir(parent) else {
        return Vec::new();
    };
    let wanted_stem = stem(wanted).to_lowercase();
    let wanted_lower = wanted.to_lowercase();
    let mut scored: Vec<(usize, String)> = entries
        .take(MAX_SCANNED_ENTRIES)
        .filter_map(Result::ok)
        .filter_map(|e| e.file_name().into_string().ok())
        .filter_map(|name| {
            let lower = name.to_lowercase();
            let distance = strsim::levenshtein(&lower, &wanted_lower);
            let same_stem = stem(&lower) == wanted_stem && !wanted_stem.is_empty();
            // Close enough: a typo or two, scaled to the name's length, or the same stem.
            let close = distance <= 2.max(wanted_lower.chars().count() / 5);
            (same_stem || close).then_some((if same_stem { 0 } else { distance }, name))
        })
        .collect();
    scored.sort();
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, name)| parent.join(name))
        .collect()
}

/// The message for a missing file: what was asked, near names if any, what to do.
pub fn missing_file_message(path: &Path, cwd: &Path) -> String {
    let mut msg = format!("File does not exist: {}.", path.display());
    let suggestions = similar_names(path);
    if !suggestions.is_empty() {
        let list: Vec<String> = suggestions.iter().map(|p| p.display().to_string()).collect();
        msg.push_str(&format!(" Did you mean {}?", list.join(" or ")));
    } else if let Some(parent) = path.parent()
        && !parent.exists()
    {
        msg.push_str(&format!(
            " Its folder {} does not exist either.",
            parent.display()
        ));
    }
    msg.push_str(&format!(
        " The current working directory is {}. Check the path (Glob finds files by pattern).",
        cwd.display()
    ));
    msg
}

fn stem(name: &str) -> &str {
    match name.rfind('.') {
        Some(0) | None => name,
        Some(i) => &name[..i],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn same_stem_and_typos_are_suggested() {
        let dir = tempfile::tempdir().unwrap();
        for n in ["config.yaml", "main.rs", "unrelated.txt"] {
            std::fs::write(dir.path().join(n), "").unwrap();
        }
        assert_eq!(
            similar_names(&dir.path().join("config.yml")),
            vec![dir.path().join("config.yaml")]
        );
        assert_eq!(
            similar_names(&dir.path().join("mian.rs")),
            vec![dir.path().join("main.rs")]
        );
        assert_eq!(similar_names(&dir.path().join("zzzzzz.q")), Vec::<PathBuf>::new());
    }

    #[test]
    fn message_names_suggestion_and_cwd() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("notes.md"), "").unwrap();
        let msg = missing_file_message(&dir.path().join("notes.txt"), Path::new("/work"));
        assert!(msg.contains("File does not exist"), "{msg}");
        assert!(msg.contains("Did you mean"), "{msg}");
        assert!(msg.contains("notes.md"), "{msg}");
        assert!(msg.contains("/work"), "{msg}");
        let msg = missing_file_message(&dir.path().join("nope/x.txt"), Path::new("/work"));
        assert!(msg.contains("does not exist either"), "{msg}");
    }

    #[test]
    fn screenshot_names_with_narrow_space_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("Screenshot 2024-05-01 at 10.15.30\u{202f}AM.png");
        std::fs::write(&real, "").unwrap();
        let typed = dir.path().join("Screenshot 2024-05-01 at 10.15.30 AM.png");
        assert_eq!(screenshot_alternative(&typed), Some(real));
        // And the reverse: the model typed U+202F where the file has a plain space.
        let plain = dir.path().join("a b.png");
        std::fs::write(&plain, "").unwrap();
        assert_eq!(
            screenshot_alternative(&dir.path().join("a\u{202f}b.png")),
            Some(plain)
        );
        assert_eq!(screenshot_alternative(&dir.path().join("none here.png")), None);
    }
}
