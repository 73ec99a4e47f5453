//! Grep's input, with Claude Code's field names (`-i`, `-n`, `-A`... as in ripgrep's flags).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// How many entries a result shows when `head_limit` is not given.
pub const DEFAULT_HEAD_LIMIT: usize = 250;

/// What the result lists.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum OutputMode {
    /// Matching lines as `path:line:text` (context lines as `path-line-text`).
    Content,
    /// Paths of files with at least one match, newest first.
    #[default]
    FilesWithMatches,
    /// `path:N`, the number of matching lines per file.
    Count,
}

/// Input of the Grep tool.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct GrepInput {
    /// The regular expression to search for, in Rust regex syntax (ripgrep's): `log.*Error`,
    /// `fn\s+\w+`. Literal braces, parentheses and dots need escaping (`interface\{\}`).
    pub pattern: String,
    /// File or folder to search in, absolute (`/home/me/proj/src`). A relative path is resolved
    /// against the working directory. Default: the working directory.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// Only search files whose path matches this glob (`*.js`, `*.{ts,tsx}`, `src/**/*.rs`).
    /// Several globs may be separated by spaces or commas; `!` excludes (`!*.min.js`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub glob: Option<String>,
    /// Only search files of this ripgrep type (`rust`, `py`, `js`, `go`, `java`...). More efficient
    /// than `glob` for standard languages.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub file_type: Option<String>,
    /// `content` (matching lines), `files_with_matches` (paths, the default) or `count` (matches
    /// per file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_mode: Option<OutputMode>,
    /// Case-insensitive search.
    #[serde(default, rename = "-i", skip_serializing_if = "Option::is_none")]
    pub case_insensitive: Option<bool>,
    /// Show line numbers (content mode only; default true).
    #[serde(default, rename = "-n", skip_serializing_if = "Option::is_none")]
    pub line_numbers: Option<bool>,
    /// Lines of context after each match (content mode only).
    #[serde(default, rename = "-A", skip_serializing_if = "Option::is_none")]
    pub after_context: Option<usize>,
    /// Lines of context before each match (content mode only).
    #[serde(default, rename = "-B", skip_serializing_if = "Option::is_none")]
    pub before_context: Option<usize>,
    /// Lines of context before and after each match (content mode only; overrides `-A` and `-B`).
    #[serde(default, rename = "-C", skip_serializing_if = "Option::is_none")]
    pub context: Option<usize>,
    /// Let patterns span lines: `.` also matches newlines (`struct \{[\s\S]*?field`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub multiline: Option<bool>,
    /// Show at most this many entries (lines, files or counts; default 250, 0 for no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub head_limit: Option<usize>,
    /// Skip this many entries first, to page through a long result with `head_limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub offset: Option<usize>,
}

impl GrepInput {
    /// The output mode, defaulting to files with matches.
    pub fn mode(&self) -> OutputMode {
        self.output_mode.unwrap_or_default()
    }

    /// Context lines (before, after); only content mode shows context. `-C` wins over `-A`/`-B`.
    pub fn context_lines(&self) -> (usize, usize) {
        if self.mode() != OutputMode::Content {
            return (0, 0);
        }
        match self.context {
            Some(c) => (c, c),
            None => (self.before_context.unwrap_or(0), self.after_context.unwrap_or(0)),
        }
    }

    /// The `glob` field split into patterns: on whitespace, and on commas outside braces (so
    /// `*.{ts,tsx}` stays one pattern).
    pub fn globs(&self) -> Vec<String> {
        let Some(glob) = &self.glob else {
            return Vec::new();
        };
        let mut out = Vec::new();
        for word in glob.split_whitespace() {
            if word.contains('{') && word.contains('}') {
                out.push(word.to_string());
            } else {
                out.extend(word.split(',').filter(|p| !p.is_empty()).map(str::to_string));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> GrepInput {
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn flag_names_are_ripgreps() {
        let i = parse(
            json!({"pattern": "x", "-i": true, "-n": false, "-A": 1, "-B": 2, "-C": 3, "type": "rust"}),
        );
        assert_eq!(i.case_insensitive, Some(true));
        assert_eq!(i.line_numbers, Some(false));
        assert_eq!(
            (i.after_context, i.before_context, i.context),
            (Some(1), Some(2), Some(3))
        );
        assert_eq!(i.file_type.as_deref(), Some("rust"));
        let back = serde_json::to_value(&i).unwrap();
        assert_eq!(back["-C"], 3);
        assert_eq!(back["type"], "rust");
    }

    #[test]
    fn context_only_in_content_mode_and_c_wins() {
        let i = parse(json!({"pattern": "x", "-A": 1, "-B": 2}));
        assert_eq!(i.context_lines(), (0, 0));
        let i = parse(json!({"pattern": "x", "output_mode": "content", "-A": 1, "-B": 2}));
        assert_eq!(i.context_lines(), (2, 1));
        let i = parse(json!({"pattern": "x", "output_mode": "content", "-A": 1, "-C": 4}));
        assert_eq!(i.context_lines(), (4, 4));
    }

    #[test]
    fn globs_split_on_spaces_and_commas_outside_braces() {
        let i = parse(json!({"pattern": "x", "glob": "*.{ts,tsx} *.rs,*.md !*.min.js"}));
        assert_eq!(i.globs(), vec!["*.{ts,tsx}", "*.rs", "*.md", "!*.min.js"]);
    }
}
