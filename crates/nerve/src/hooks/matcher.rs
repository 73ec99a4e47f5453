//! The `matcher` string of a hook group: which tool names (or sources, triggers...) a group applies to.
//!
//! Syntax, as in Claude Code:
//! - empty, missing or `*`: matches everything;
//! - only letters, digits, `_` and `|`: an exact name or a `|`-separated list of exact names
//!   (`Bash`, `Edit|Write`);
//! - anything else: a regular expression that must match the *whole* target (`mcp__github__.*`,
//!   `Notebook.*`), so `Edit` never matches `NotebookEdit` by accident.
//!
//! Matching is case-sensitive: tool names are identifiers, and a case-insensitive match could make a hook
//! fire (or not fire) on a tool the user did not mean.

use std::fmt;

use regex::Regex;

/// A parsed `matcher`.
#[derive(Debug, Clone)]
pub struct HookMatcher {
    /// The text from the settings file, kept for messages and equality.
    source: String,
    form: MatcherForm,
}

#[derive(Debug, Clone)]
enum MatcherForm {
    Everything,
    Names(Vec<String>),
    Pattern(Regex),
}

/// A `matcher` that is neither a name list nor a valid regular expression.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "matcher {matcher:?} is not a valid regular expression ({reason}); fix the pattern or use a `|`-separated list of exact names"
)]
pub struct InvalidMatcher {
    /// The matcher text as written.
    pub matcher: String,
    /// What the regex engine reported.
    pub reason: String,
}

impl HookMatcher {
    /// A matcher that matches everything (what a missing `matcher` means).
    pub fn everything() -> HookMatcher {
        HookMatcher {
            source: String::new(),
            form: MatcherForm::Everything,
        }
    }

    /// Parses a matcher written in a settings file.
    pub fn parse(text: &str) -> Result<HookMatcher, InvalidMatcher> {
        let form = if text.is_empty() || text == "*" {
            MatcherForm::Everything
        } else if is_name_list(text) {
            // Empty alternatives (`Edit|`) are tolerated because Claude Code tolerates them; they
            // could only ever match an empty target, which no event produces.
            MatcherForm::Names(
                text.split('|')
                    .filter(|name| !name.is_empty())
                    .map(str::to_owned)
                    .collect(),
            )
        } else {
            let anchored = format!("^(?:{text})$");
            let regex = Regex::new(&anchored).map_err(|error| InvalidMatcher {
                matcher: text.to_owned(),
                reason: error.to_string(),
            })?;
            MatcherForm::Pattern(regex)
        };
        Ok(HookMatcher {
            source: text.to_owned(),
            form,
        })
    }

    /// Whether this matcher selects `target` (a tool name, session source, compaction trigger...).
    pub fn matches(&self, target: &str) -> bool {
        match &self.form {
            MatcherForm::Everything => true,
            MatcherForm::Names(names) => names.iter().any(|name| name == target),
            MatcherForm::Pattern(regex) => regex.is_match(target),
        }
    }

    /// Whether this matcher selects everything.
    pub fn matches_everything(&self) -> bool {
        match &self.form {
            MatcherForm::Everything => true,
            MatcherForm::Names(_) | MatcherForm::Pattern(_) => false,
        }
    }

    /// The matcher text as written in the settings file (empty for a missing matcher).
    pub fn as_str(&self) -> &str {
        &self.source
    }
}

impl PartialEq for HookMatcher {
    fn eq(&self, other: &HookMatcher) -> bool {
        // The form is a pure function of the text, so comparing the text compares the matchers.
        self.source == other.source
    }
}

impl Eq for HookMatcher {}

impl fmt::Display for HookMatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.is_empty() {
            f.write_str("*")
        } else {
            f.write_str(&self.source)
        }
    }
}

fn is_name_list(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '|')
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use proptest::prelude::*;

    fn matcher(text: &str) -> HookMatcher {
        HookMatcher::parse(text).unwrap()
    }

    #[test]
    fn empty_and_star_match_everything() {
        for text in ["", "*"] {
            let m = matcher(text);
            assert!(m.matches("Bash"));
            assert!(m.matches("mcp__github__create_issue"));
            assert!(m.matches_everything());
        }
        assert!(HookMatcher::everything().matches("Anything"));
    }

    #[test]
    fn exact_name_matches_only_that_name() {
        let m = matcher("Bash");
        assert!(m.matches("Bash"));
        assert!(!m.matches("bash"));
        assert!(!m.matches("BashOutput"));
        assert!(!m.matches("Bas"));
        assert!(!m.matches_everything());
    }

    #[test]
    fn pipe_list_matches_its_members_only() {
        let m = matcher("Edit|Write");
        assert!(m.matches("Edit"));
        assert!(m.matches("Write"));
        assert!(!m.matches("NotebookEdit"));
        assert!(!m.matches("Edit|Write"));
        assert!(!m.matches(""));
    }

    #[test]
    fn trailing_pipe_is_tolerated() {
        let m = matcher("Edit|");
        assert!(m.matches("Edit"));
        assert!(!m.matches(""));
    }

    #[test]
    fn regex_must_match_the_whole_name() {
        let m = matcher("mcp__github__.*");
        assert!(m.matches("mcp__github__create_issue"));
        assert!(!m.matches("mcp__gitlab__create_issue"));
        assert!(!m.matches("x_mcp__github__create_issue"));

        let notebook = matcher("Notebook.*");
        assert!(notebook.matches("NotebookEdit"));
        assert!(!notebook.matches("MyNotebookEdit"));
    }

    #[test]
    fn regex_alternation_is_anchored_as_a_whole() {
        // Without the group, `^Edit.*|Write$` would accept "MultiWrite" (only one side anchored).
        let m = matcher("Edit.*|Write");
        assert!(m.matches("EditFile"));
        assert!(m.matches("Write"));
        assert!(!m.matches("Writer"));
        assert!(!m.matches("MultiWrite"));
    }

    #[test]
    fn session_sources_use_the_same_syntax() {
        let m = matcher("startup|resume");
        assert!(m.matches("startup"));
        assert!(m.matches("resume"));
        assert!(!m.matches("clear"));
    }

    #[test]
    fn invalid_regex_is_an_error_naming_the_matcher() {
        let error = HookMatcher::parse("Bash(").unwrap_err();
        assert_eq!(error.matcher, "Bash(");
        assert!(error.to_string().contains("\"Bash(\""), "{error}");
        assert!(error.to_string().contains("not a valid regular expression"));
    }

    #[test]
    fn display_shows_star_for_a_missing_matcher() {
        assert_eq!(HookMatcher::everything().to_string(), "*");
        assert_eq!(matcher("Edit|Write").to_string(), "Edit|Write");
    }

    fn name() -> impl Strategy<Value = String> {
        "[A-Za-z_][A-Za-z0-9_]{0,12}"
    }

    proptest! {
        #[test]
        fn pipe_list_matches_exactly_its_members(
            members in proptest::collection::vec(name(), 1..6),
            probe in name(),
        ) {
            let m = HookMatcher::parse(&members.join("|")).unwrap();
            for member in &members {
                prop_assert!(m.matches(member));
            }
            prop_assert_eq!(m.matches(&probe), members.contains(&probe));
        }

        #[test]
        fn pipe_list_rejects_extensions_of_members(
            members in proptest::collection::vec(name(), 1..6),
            suffix in "[A-Za-z0-9_]{1,4}",
        ) {
            let m = HookMatcher::parse(&members.join("|")).unwrap();
            for member in &members {
                let longer = format!("{member}{suffix}");
                prop_assert_eq!(m.matches(&longer), members.contains(&longer));
            }
        }
    }
}
