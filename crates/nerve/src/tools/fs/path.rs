//! Where a path from the model points: resolved against the working directory, normalised.

use std::path::{Path, PathBuf};

use crate::permissions::paths::{normalize_lexically, resolve_real_path};
use crate::tool::ToolUseContext;

/// The absolute, lexically normalised path for `raw`: `~` expanded, a relative path resolved against
/// the session's working directory, `.` and `..` folded. This is the key of the read-file state and
/// what permission rules see, so every file tool must derive paths through it.
pub fn absolute_path(ctx: &ToolUseContext, raw: &str) -> PathBuf {
    normalize_lexically(&ctx.resolve_path(raw))
}

/// The paths the permission system judges for a call on `path`: the lexical path, and also where it
/// really lands when a symlink on the way points elsewhere, so a link inside the project cannot
/// carry an edit past a deny rule on its target.
pub fn permission_paths(path: &Path) -> Vec<PathBuf> {
    let lexical = normalize_lexically(path);
    let real = resolve_real_path(&lexical);
    if real == lexical {
        vec![lexical]
    } else {
        vec![lexical, real]
    }
}

/// `path` relative to `base` when it lies inside it, else the path as it is; for short UI summaries.
pub fn display_path(path: &Path, base: Option<&Path>) -> String {
    if let Some(base) = base
        && let Ok(rel) = path.strip_prefix(base)
        && !rel.as_os_str().is_empty()
    {
        return rel.display().to_string();
    }
    path.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn display_is_relative_inside_the_base_only() {
        let base = Path::new("/p");
        assert_eq!(
            display_path(Path::new("/p/src/main.rs"), Some(base)),
            "src/main.rs"
        );
        assert_eq!(display_path(Path::new("/other/x"), Some(base)), "/other/x");
        assert_eq!(display_path(Path::new("/p"), Some(base)), "/p");
        assert_eq!(display_path(Path::new("/p/x"), None), "/p/x");
    }

    #[test]
    fn symlinked_paths_are_judged_at_both_ends() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join("target")).unwrap();
        std::os::unix::fs::symlink(root.join("target"), root.join("link")).unwrap();
        assert_eq!(
            permission_paths(&root.join("plain.txt")),
            vec![root.join("plain.txt")]
        );
        assert_eq!(
            permission_paths(&root.join("link/./f.txt")),
            vec![root.join("link/f.txt"), root.join("target/f.txt")]
        );
    }
}
