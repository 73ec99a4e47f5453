//! A folder given to Read: its entries, so the model need not retry with Bash `ls`.

use std::path::Path;

/// The most entries listed.
pub const MAX_DIR_ENTRIES: usize = 1_000;

/// The listing of `dir`: sorted names, folders with a trailing `/`.
pub fn list_directory(dir: &Path) -> std::io::Result<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            // file_type() does not follow symlinks; a link to a folder lists as a folder.
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir())
                || (e.file_type().is_ok_and(|t| t.is_symlink()) && e.path().is_dir());
            if is_dir { format!("{name}/") } else { name }
        })
        .collect();
    names.sort();
    let total = names.len();
    let mut out = format!("{} is a directory with {total} entries:\n", dir.display());
    if total == 0 {
        out = format!("{} is an empty directory.\n", dir.display());
    }
    for name in names.iter().take(MAX_DIR_ENTRIES) {
        out.push_str("- ");
        out.push_str(name);
        out.push('\n');
    }
    if total > MAX_DIR_ENTRIES {
        out.push_str(&format!(
            "... and {} more entries not shown.\n",
            total - MAX_DIR_ENTRIES
        ));
    }
    out.push_str(
        "Read works on files: Read one of these by its path. To find files by name pattern, use Glob.",
    );
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_sorted_with_folder_slashes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("b.txt"), "").unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let out = list_directory(dir.path()).unwrap();
        assert!(
            out.contains("with 3 entries:\n- a.txt\n- b.txt\n- src/\n"),
            "{out}"
        );
        assert!(out.contains("Glob"), "{out}");
    }

    #[test]
    fn long_listings_are_capped() {
        let dir = tempfile::tempdir().unwrap();
        for i in 0..(MAX_DIR_ENTRIES + 5) {
            std::fs::write(dir.path().join(format!("f{i:05}")), "").unwrap();
        }
        let out = list_directory(dir.path()).unwrap();
        assert_eq!(
            out.lines().filter(|l| l.starts_with("- ")).count(),
            MAX_DIR_ENTRIES
        );
        assert!(out.contains("... and 5 more entries not shown."), "{out}");
    }
}
