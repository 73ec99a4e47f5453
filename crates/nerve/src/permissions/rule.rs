//! Rule syntax: where a rule comes from, what it does, which tool and input it names, and the folder
//! its relative paths are resolved against.

pub use nerve_protocol::permission::{RuleBehavior, RuleSource};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::permissions::matching::RuleContentKind;
use crate::permissions::matching::domain::is_valid_host_pattern;
use crate::permissions::matching::mcp::McpName;
use crate::permissions::matching::path::PathPattern;

/// The folders rule anchors are chosen from (see [`AnchorRoots::for_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnchorRoots {
    /// The project root: the folder holding `.nerve/` and `.claude/`.
    pub project_root: PathBuf,
    /// The session's starting directory.
    pub cwd: PathBuf,
    /// The user's home folder.
    pub home: PathBuf,
}

impl AnchorRoots {
    /// The folder relative path patterns (`/x`, `./x`, `x`) of rules from `source` are resolved
    /// against.
    ///
    /// Settings that live in a project (managed policy, project, local, and Claude's project files)
    /// describe that project, so they anchor at its root; a rule typed on the command line or granted
    /// in a session anchors at the current directory; user settings apply to every project, so the
    /// only stable root for them is the home folder.
    pub fn for_source(&self, source: RuleSource) -> &Path {
        match source {
            RuleSource::Managed
            | RuleSource::LocalSettings
            | RuleSource::ProjectSettings
            | RuleSource::ClaudeLocalSettings
            | RuleSource::ClaudeProjectSettings => &self.project_root,
            RuleSource::CliArg | RuleSource::Session => &self.cwd,
            RuleSource::UserSettings => &self.home,
        }
    }
}

/// A rule as written: a tool name and optional content, e.g. `Bash(git *)`.
///
/// `Tool()` and `Tool(*)` parse to the bare tool (`content: None`), which matches every call of it.
/// Parentheses and backslashes inside the content are escaped with a backslash, as Claude Code does
/// (`Bash(python -c "print\(1\)")`); unescaped inner parentheses are accepted too, since the content
/// runs from the first `(` to the final `)`. Display escapes them, so parsing it gives the same value.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct RuleValue {
    /// The tool (or MCP server / server wildcard) the rule is about.
    pub tool_name: String,
    /// The unescaped content between the parentheses; `None` for a bare tool rule.
    pub content: Option<String>,
}

impl RuleValue {
    /// A rule about every call of `tool_name`.
    pub fn bare(tool_name: impl Into<String>) -> Self {
        RuleValue {
            tool_name: tool_name.into(),
            content: None,
        }
    }

    /// A rule about calls of `tool_name` whose input matches `content`.
    pub fn with_content(tool_name: impl Into<String>, content: impl Into<String>) -> Self {
        RuleValue {
            tool_name: tool_name.into(),
            content: Some(content.into()),
        }
    }

    /// How the content should be matched, decided by the tool it is about (`None` for a bare rule).
    pub fn content_kind(&self) -> Option<RuleContentKind<'_>> {
        self.content
            .as_deref()
            .map(|content| RuleContentKind::classify(&self.tool_name, content))
    }
}

/// Why a rule string could not be parsed. Each message quotes the rule and says how to fix it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RuleParseError {
    /// Nothing but whitespace.
    #[error("permission rule is empty: write a tool name such as `Bash` or `Bash(git *)`")]
    Empty,
    /// The part before `(` is not a tool name.
    #[error(
        "permission rule `{rule}`: `{tool_name}` is not a valid tool name (use letters, digits, \
         `_`, `-` or `.`, and `mcp__server`, `mcp__server__*` or `mcp__server__tool` for MCP tools)"
    )]
    InvalidToolName {
        /// The whole rule as written.
        rule: String,
        /// The offending tool name.
        tool_name: String,
    },
    /// An opening parenthesis without an unescaped closing one at the end.
    #[error(
        "permission rule `{rule}`: the `(` after the tool name needs a matching `)` at the very end \
         of the rule; write literal parentheses inside the content as `\\(` and `\\)`"
    )]
    UnclosedContent {
        /// The whole rule as written.
        rule: String,
    },
    /// A file-tool rule whose path pattern is not a valid glob.
    #[error(
        "permission rule `{rule}`: the path pattern is not a valid glob ({reason}); check `[...]` \
         ranges and `{{...}}` alternatives, or escape the character with a backslash"
    )]
    InvalidPathPattern {
        /// The whole rule as written.
        rule: String,
        /// What the glob parser objected to.
        reason: String,
    },
    /// A `WebFetch(domain:...)` rule whose host pattern is malformed.
    #[error(
        "permission rule `{rule}`: `{pattern}` is not a host pattern; write `domain:example.com`, \
         `domain:*.example.com` or `domain:*` (a host only: no scheme, port or path)"
    )]
    InvalidDomainPattern {
        /// The whole rule as written.
        rule: String,
        /// The host pattern after `domain:`.
        pattern: String,
    },
    /// A server-wide MCP rule (`mcp__server`, `mcp__server__*`) with content.
    #[error(
        "permission rule `{rule}`: a rule for a whole MCP server cannot have content; name one tool \
         (`mcp__server__tool(...)`) or drop the parentheses"
    )]
    ContentOnMcpServerRule {
        /// The whole rule as written.
        rule: String,
    },
}

impl RuleParseError {
    /// The byte range of `raw` (the rule as typed, surrounding whitespace included) that the error
    /// is about, for an editor to underline: the tool name, the unclosed content, or the content
    /// that does not fit its kind. An empty rule spans all of `raw`.
    pub fn span_in(&self, raw: &str) -> std::ops::Range<usize> {
        let lead = raw.len() - raw.trim_start().len();
        let rule = raw.trim();
        let end = lead + rule.len();
        let open = rule.find('(').map(|i| lead + i);
        match self {
            RuleParseError::Empty => 0..raw.len(),
            RuleParseError::InvalidToolName { tool_name, .. } => lead..lead + tool_name.len(),
            RuleParseError::UnclosedContent { .. } => open.unwrap_or(lead)..end,
            RuleParseError::InvalidPathPattern { .. }
            | RuleParseError::InvalidDomainPattern { .. }
            | RuleParseError::ContentOnMcpServerRule { .. } => match open {
                // Inside the parentheses (the rule parsed that far, so it ends with `)`).
                Some(open) if end > open + 1 => open + 1..end - 1,
                _ => lead..end,
            },
        }
    }
}

fn is_valid_tool_name(name: &str) -> bool {
    if name.starts_with("mcp__") {
        return McpName::parse(name).is_some();
    }
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// Whether the character at byte `index` is preceded by an odd number of backslashes.
fn is_escaped(text: &str, index: usize) -> bool {
    text[..index].bytes().rev().take_while(|&b| b == b'\\').count() % 2 == 1
}

fn unescape_content(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    let mut chars = content.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next @ ('(' | ')' | '\\')) = chars.peek()
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}

fn escape_content(content: &str) -> String {
    let mut out = String::with_capacity(content.len());
    for c in content.chars() {
        if matches!(c, '(' | ')' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

impl FromStr for RuleValue {
    type Err = RuleParseError;

    fn from_str(raw: &str) -> Result<Self, Self::Err> {
        let rule = raw.trim();
        if rule.is_empty() {
            return Err(RuleParseError::Empty);
        }
        let (tool_name, content) = match rule.find('(') {
            None => (rule, None),
            Some(open) => {
                let close = rule.len() - 1;
                if !rule.ends_with(')') || close <= open || is_escaped(rule, close) {
                    return Err(RuleParseError::UnclosedContent {
                        rule: rule.to_string(),
                    });
                }
                let inner = &rule[open + 1..close];
                let content = match inner {
                    "" | "*" => None,
                    _ => Some(unescape_content(inner)),
                };
                (&rule[..open], content)
            }
        };
        if !is_valid_tool_name(tool_name) {
            return Err(RuleParseError::InvalidToolName {
                rule: rule.to_string(),
                tool_name: tool_name.to_string(),
            });
        }
        let server_wide = McpName::parse(tool_name).is_some_and(|name| name.tool.is_none());
        if server_wide && content.is_some() {
            return Err(RuleParseError::ContentOnMcpServerRule {
                rule: rule.to_string(),
            });
        }
        let value = RuleValue {
            tool_name: tool_name.to_string(),
            content,
        };
        // A glob that cannot compile could never be applied; reject it here so a settings file
        // reports it instead of the rule silently failing at match time.
        match value.content_kind() {
            Some(RuleContentKind::Path(pattern)) => {
                let root = Path::new("/");
                if let Err(e) = PathPattern::compile(pattern, root, root) {
                    return Err(RuleParseError::InvalidPathPattern {
                        rule: rule.to_string(),
                        reason: e.reason,
                    });
                }
            }
            Some(RuleContentKind::Domain(pattern)) => {
                if !is_valid_host_pattern(pattern) {
                    return Err(RuleParseError::InvalidDomainPattern {
                        rule: rule.to_string(),
                        pattern: pattern.to_string(),
                    });
                }
            }
            Some(
                RuleContentKind::Shell(_) | RuleContentKind::Parameter { .. } | RuleContentKind::Other(_),
            )
            | None => {}
        }
        Ok(value)
    }
}

impl fmt::Display for RuleValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.content {
            None => f.write_str(&self.tool_name),
            Some(content) => write!(f, "{}({})", self.tool_name, escape_content(content)),
        }
    }
}

impl Serialize for RuleValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for RuleValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = String::deserialize(deserializer)?;
        raw.parse().map_err(serde::de::Error::custom)
    }
}

/// A rule with its provenance: which source declared it, what it does, and the folder its relative
/// path patterns are resolved against.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    /// Where the rule was declared; decides its priority.
    pub source: RuleSource,
    /// What the rule does when it matches.
    pub behavior: RuleBehavior,
    /// The tool and content as written.
    pub value: RuleValue,
    /// The folder `/x`, `./x` and `x` path patterns are relative to (see [`RuleSource::anchor`]).
    /// `//x` (filesystem root) and `~/x` (home) patterns ignore it.
    pub anchor: PathBuf,
}

impl PermissionRule {
    /// A rule anchored at `anchor`.
    pub fn new(
        source: RuleSource,
        behavior: RuleBehavior,
        value: RuleValue,
        anchor: impl Into<PathBuf>,
    ) -> Self {
        PermissionRule {
            source,
            behavior,
            value,
            anchor: anchor.into(),
        }
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} rule `{}` from {}", self.behavior, self.value, self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn parse(rule: &str) -> RuleValue {
        rule.parse().unwrap_or_else(|e| panic!("{rule}: {e}"))
    }

    #[test]
    fn parse_errors_point_at_the_part_at_fault() {
        let span = |raw: &str| {
            let e = raw.parse::<RuleValue>().unwrap_err();
            raw[e.span_in(raw)].to_string()
        };
        assert_eq!(span("  "), "  ");
        assert_eq!(span(" Ba sh(ls)"), "Ba sh");
        assert_eq!(span("Bash(ls"), "(ls");
        assert_eq!(span("Read([z-a])"), "[z-a]");
        assert_eq!(span("WebFetch(domain:http://x)"), "domain:http://x");
        assert_eq!(span("mcp__srv(x) "), "x");
    }

    #[test]
    fn parses_claude_code_rule_forms() {
        let cases: Vec<(&str, RuleValue)> = vec![
            ("Bash", RuleValue::bare("Bash")),
            ("Bash(git *)", RuleValue::with_content("Bash", "git *")),
            (
                "Bash(npm run test:*)",
                RuleValue::with_content("Bash", "npm run test:*"),
            ),
            (
                "Read(./secrets/**)",
                RuleValue::with_content("Read", "./secrets/**"),
            ),
            ("Edit(/src/**)", RuleValue::with_content("Edit", "/src/**")),
            (
                "Read(//etc/passwd)",
                RuleValue::with_content("Read", "//etc/passwd"),
            ),
            ("Read(~/.ssh/**)", RuleValue::with_content("Read", "~/.ssh/**")),
            (
                "WebFetch(domain:example.com)",
                RuleValue::with_content("WebFetch", "domain:example.com"),
            ),
            ("mcp__server", RuleValue::bare("mcp__server")),
            ("mcp__server__tool", RuleValue::bare("mcp__server__tool")),
            ("mcp__server__*", RuleValue::bare("mcp__server__*")),
            (
                r#"Bash(python -c "print\(1\)")"#,
                RuleValue::with_content("Bash", r#"python -c "print(1)""#),
            ),
            (
                "Bash(echo (unescaped))",
                RuleValue::with_content("Bash", "echo (unescaped)"),
            ),
            (r"Bash(echo \\)", RuleValue::with_content("Bash", r"echo \")),
            (r"Bash(echo \*)", RuleValue::with_content("Bash", r"echo \*")),
            ("Bash()", RuleValue::bare("Bash")),
            ("Bash(*)", RuleValue::bare("Bash")),
            ("  Read  ", RuleValue::bare("Read")),
            (
                "mcp__db__query(table:users*)",
                RuleValue::with_content("mcp__db__query", "table:users*"),
            ),
        ];
        for (rule, expected) in cases {
            assert_eq!(parse(rule), expected, "{rule}");
        }
    }

    #[test]
    fn display_escapes_and_round_trips() {
        let value = RuleValue::with_content("Bash", r#"python -c "print(1)" \ end"#);
        let shown = value.to_string();
        assert_eq!(shown, r#"Bash(python -c "print\(1\)" \\ end)"#);
        assert_eq!(parse(&shown), value);
        assert_eq!(parse("Bash(git *)").to_string(), "Bash(git *)");
        assert_eq!(parse("Bash(*)").to_string(), "Bash");
    }

    #[test]
    fn rejects_malformed_rules_with_messages_naming_the_rule() {
        let cases = [
            ("", RuleParseError::Empty),
            (
                "Bash(git *",
                RuleParseError::UnclosedContent {
                    rule: "Bash(git *".into(),
                },
            ),
            (
                r"Bash(git \)",
                RuleParseError::UnclosedContent {
                    rule: r"Bash(git \)".into(),
                },
            ),
            (
                "Bash(git) extra",
                RuleParseError::UnclosedContent {
                    rule: "Bash(git) extra".into(),
                },
            ),
            (
                "Ba sh",
                RuleParseError::InvalidToolName {
                    rule: "Ba sh".into(),
                    tool_name: "Ba sh".into(),
                },
            ),
            (
                "(git)",
                RuleParseError::InvalidToolName {
                    rule: "(git)".into(),
                    tool_name: String::new(),
                },
            ),
            (
                "Bash)",
                RuleParseError::InvalidToolName {
                    rule: "Bash)".into(),
                    tool_name: "Bash)".into(),
                },
            ),
            (
                "mcp__",
                RuleParseError::InvalidToolName {
                    rule: "mcp__".into(),
                    tool_name: "mcp__".into(),
                },
            ),
            (
                "WebFetch(domain:https://x.com/)",
                RuleParseError::InvalidDomainPattern {
                    rule: "WebFetch(domain:https://x.com/)".into(),
                    pattern: "https://x.com/".into(),
                },
            ),
            (
                "mcp__srv(x)",
                RuleParseError::ContentOnMcpServerRule {
                    rule: "mcp__srv(x)".into(),
                },
            ),
        ];
        for (rule, expected) in cases {
            assert_eq!(rule.parse::<RuleValue>(), Err(expected), "{rule}");
        }
        match "Read(/src/[z-a])".parse::<RuleValue>() {
            Err(RuleParseError::InvalidPathPattern { rule, reason }) => {
                assert_eq!(rule, "Read(/src/[z-a])");
                assert!(reason.contains("invalid range"), "{reason}");
            }
            other => panic!("expected InvalidPathPattern, got {other:?}"),
        }
        let message = "Bash(git *".parse::<RuleValue>().unwrap_err().to_string();
        assert!(message.contains("`Bash(git *`"), "{message}");
        assert!(message.contains("matching `)`"), "{message}");
    }

    #[test]
    fn serde_uses_the_rule_string() {
        let value: RuleValue = serde_json::from_str("\"Bash(git *)\"").unwrap();
        assert_eq!(value, RuleValue::with_content("Bash", "git *"));
        assert_eq!(serde_json::to_string(&value).unwrap(), "\"Bash(git *)\"");
        let err = serde_json::from_str::<RuleValue>("\"Bash(git\"").unwrap_err();
        assert!(err.to_string().contains("`Bash(git`"), "{err}");
    }

    #[test]
    fn sources_sort_by_priority_and_anchor_where_documented() {
        let mut shuffled = RuleSource::ALL.to_vec();
        shuffled.reverse();
        shuffled.sort();
        assert_eq!(shuffled, RuleSource::ALL);
        // One name per source, the same in explanations and in serialised rules.
        let names: Vec<(&str, serde_json::Value)> = RuleSource::ALL
            .iter()
            .map(|s| (s.as_str(), serde_json::to_value(s).unwrap()))
            .collect();
        assert_eq!(
            names,
            [
                "policySettings",
                "cliArg",
                "session",
                "localSettings",
                "projectSettings",
                "userSettings",
                "claudeLocalSettings",
                "claudeProjectSettings"
            ]
            .map(|n| (n, serde_json::Value::from(n)))
        );
        assert!(RuleSource::Managed < RuleSource::CliArg);
        assert!(RuleSource::UserSettings < RuleSource::ClaudeLocalSettings);
        let roots = AnchorRoots {
            project_root: "/p".into(),
            cwd: "/p/sub".into(),
            home: "/h".into(),
        };
        let anchors: Vec<&Path> = RuleSource::ALL.iter().map(|s| roots.for_source(*s)).collect();
        let expected: Vec<&Path> = ["/p", "/p/sub", "/p/sub", "/p", "/p", "/h", "/p", "/p"]
            .iter()
            .map(Path::new)
            .collect();
        assert_eq!(anchors, expected);
    }

    #[test]
    fn permission_rule_display_explains_itself() {
        let rule = PermissionRule::new(
            RuleSource::LocalSettings,
            RuleBehavior::Deny,
            parse("Bash(rm *)"),
            "/p",
        );
        assert_eq!(rule.to_string(), "deny rule `Bash(rm *)` from localSettings");
    }

    mod properties {
        use super::*;
        use proptest::prelude::*;

        fn tool_name() -> impl Strategy<Value = String> {
            prop_oneof![
                Just("Bash".to_string()),
                "[A-Z][a-zA-Z0-9_-]{0,10}",
                "mcp__[a-z]{1,6}__[a-z_]{1,8}",
            ]
            .prop_filter("path and WebFetch rules validate their content", |name| {
                name != "WebFetch" && !crate::permissions::matching::PATH_TOOLS.contains(&name.as_str())
            })
        }

        proptest! {
            #[test]
            fn display_then_parse_is_identity(
                tool in tool_name(),
                content in proptest::option::of("[ -~]{1,30}"),
            ) {
                let content = content.filter(|c| c != "*");
                let value = RuleValue { tool_name: tool, content };
                let shown = value.to_string();
                let parsed: RuleValue = shown.parse().map_err(|e| TestCaseError::fail(format!("{shown}: {e}")))?;
                prop_assert_eq!(parsed, value);
            }

            #[test]
            fn parse_then_display_then_parse_is_stable(raw in "[A-Za-z]{1,8}\\([ -~]{0,20}\\)") {
                if let Ok(first) = raw.parse::<RuleValue>() {
                    let again: RuleValue = first.to_string().parse().map_err(|e: RuleParseError| TestCaseError::fail(e.to_string()))?;
                    prop_assert_eq!(again, first);
                }
            }
        }
    }
}
