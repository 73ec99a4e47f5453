//! Matching rule content against a tool's input, one file per kind of content.
//!
//! Which kind a rule's content is depends on the tool it names (see [`RuleContentKind::classify`]);
//! tool-name aliases (e.g. `Write` checked against `Edit` rules) are the caller's job.

pub mod domain;
pub mod mcp;
pub mod options;
pub mod parameter;
pub mod path;
pub mod search_glob;
pub mod shell;
pub mod wildcard;

/// A rule's content, classified by the tool it is about so the right matcher can be applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleContentKind<'a> {
    /// A shell command pattern (`Bash(git *)`): see [`shell::shell_rule_matches`].
    Shell(&'a str),
    /// A gitignore-style path pattern (`Read(./secrets/**)`): see [`path::PathPattern`].
    Path(&'a str),
    /// A host pattern from `WebFetch(domain:...)`, without the `domain:` prefix: see
    /// [`domain::domain_rule_matches`].
    Domain(&'a str),
    /// `key:glob` on a top-level field of the tool's JSON input: see
    /// [`parameter::parameter_rule_matches`]. Only deny and ask rules use it; the rule set never
    /// lets a parameter rule allow anything, because a glob over one field cannot vouch for the
    /// rest of the input.
    Parameter {
        /// The top-level input field.
        key: &'a str,
        /// The `*` wildcard pattern for its value.
        glob: &'a str,
    },
    /// Content of a form this module does not interpret; the caller's matcher decides.
    Other(&'a str),
}

/// Tools whose rule content is a path pattern (Claude Code's file tools).
pub const PATH_TOOLS: [&str; 8] = [
    "Read",
    "Edit",
    "Write",
    "MultiEdit",
    "NotebookEdit",
    "Glob",
    "Grep",
    "LS",
];

impl<'a> RuleContentKind<'a> {
    /// Classifies `content` of a rule about `tool_name`: `Bash` content is a shell pattern, file
    /// tools' content is a path pattern, `WebFetch(domain:...)` is a host pattern (other `WebFetch` content is [`RuleContentKind::Other`]), and other
    /// `identifier:glob` content is a parameter pattern.
    pub fn classify(tool_name: &str, content: &'a str) -> Self {
        if tool_name == "Bash" {
            return RuleContentKind::Shell(content);
        }
        if PATH_TOOLS.contains(&tool_name) {
            return RuleContentKind::Path(content);
        }
        if tool_name == "WebFetch" {
            return match content.strip_prefix("domain:") {
                Some(host) => RuleContentKind::Domain(host),
                None => RuleContentKind::Other(content),
            };
        }
        match parameter::parse_parameter_content(content) {
            Some((key, glob)) => RuleContentKind::Parameter { key, glob },
            None => RuleContentKind::Other(content),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn classifies_by_tool() {
        let cases = [
            ("Bash", "npm run test:*", RuleContentKind::Shell("npm run test:*")),
            ("Read", "~/.ssh/**", RuleContentKind::Path("~/.ssh/**")),
            ("Edit", "/src/**", RuleContentKind::Path("/src/**")),
            (
                "WebFetch",
                "domain:example.com",
                RuleContentKind::Domain("example.com"),
            ),
            (
                "Agent",
                "subagent_type:Explore",
                RuleContentKind::Parameter {
                    key: "subagent_type",
                    glob: "Explore",
                },
            ),
            (
                "mcp__db__query",
                "table:users*",
                RuleContentKind::Parameter {
                    key: "table",
                    glob: "users*",
                },
            ),
            ("WebFetch", "https://x", RuleContentKind::Other("https://x")),
            ("WebSearch", "rust docs", RuleContentKind::Other("rust docs")),
        ];
        for (tool, content, expected) in cases {
            assert_eq!(RuleContentKind::classify(tool, content), expected, "{tool}");
        }
    }
}
