//! A review of the agent's changes as one prompt, like a pull-request review: each comment quotes
//! its place (`file:line`) and the lines as they are now, then says what the reviewer said.

use std::path::Path;

use nerve_protocol::checkpoint::ReviewComment;

/// Lines quoted at most per comment (a long range is cut, with a note).
const MAX_QUOTED_LINES: usize = 12;

/// The prompt sending `comments` back to the agent, for files in `root`.
pub fn review_prompt(root: &Path, comments: &[ReviewComment]) -> String {
    let mut out = String::from(
        "Review of your changes. Address each comment below (each quotes the lines as they are now), then say what you changed.\n",
    );
    for (n, c) in comments.iter().enumerate() {
        let full = if c.path.is_absolute() {
            c.path.clone()
        } else {
            root.join(&c.path)
        };
        let shown = full.strip_prefix(root).unwrap_or(&full).display().to_string();
        let first = c.line.max(1);
        let last = c.end_line.unwrap_or(first).max(first);
        let place = if last > first {
            format!("{shown}:{first}-{last}")
        } else {
            format!("{shown}:{first}")
        };
        out.push_str(&format!("\n{}. {place}\n", n + 1));
        match std::fs::read_to_string(&full) {
            Ok(text) => {
                let lines: Vec<&str> = text.lines().collect();
                let from = (first as usize).saturating_sub(1);
                let to = (last as usize).min(lines.len());
                if from >= lines.len() {
                    out.push_str("   (the file has no such line now)\n");
                }
                for line in lines.iter().take(to).skip(from).take(MAX_QUOTED_LINES) {
                    out.push_str(&format!("   > {line}\n"));
                }
                if to.saturating_sub(from) > MAX_QUOTED_LINES {
                    out.push_str(&format!("   > … ({} more lines)\n", to - from - MAX_QUOTED_LINES));
                }
            }
            Err(_) => out.push_str("   (the file cannot be read now)\n"),
        }
        for line in c.text.trim().lines() {
            out.push_str(&format!("   {line}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn each_comment_quotes_its_place_and_lines() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.rs"), "fn a() {}\nfn b() {}\nfn c() {}\n").unwrap();
        let comments = vec![
            ReviewComment {
                path: dir.path().join("src/a.rs"),
                line: 2,
                end_line: Some(3),
                text: "Merge these two.".into(),
            },
            ReviewComment {
                path: "src/a.rs".into(),
                line: 9,
                end_line: None,
                text: "Was this meant to go?\nIt was used.".into(),
            },
            ReviewComment {
                path: "gone.rs".into(),
                line: 1,
                end_line: None,
                text: "Why delete it?".into(),
            },
        ];
        assert_eq!(
            review_prompt(dir.path(), &comments),
            "Review of your changes. Address each comment below (each quotes the lines as they are now), then say what you changed.\n\
             \n1. src/a.rs:2-3\n   > fn b() {}\n   > fn c() {}\n   Merge these two.\n\
             \n2. src/a.rs:9\n   (the file has no such line now)\n   Was this meant to go?\n   It was used.\n\
             \n3. gone.rs:1\n   (the file cannot be read now)\n   Why delete it?\n"
        );
    }
}
