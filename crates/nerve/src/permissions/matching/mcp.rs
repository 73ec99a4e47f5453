//! MCP tool names (`mcp__server__tool`) and rules that name a whole server.

/// An MCP tool name or rule split into its server and tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpName<'a> {
    /// The server part (`server` in `mcp__server__tool`); never contains `__`.
    pub server: &'a str,
    /// The tool part; `None` for the server-wide forms `mcp__server` and `mcp__server__*`.
    pub tool: Option<&'a str>,
}

fn is_name_part(part: &str) -> bool {
    !part.is_empty()
        && part
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

impl<'a> McpName<'a> {
    /// Splits `name` as Claude Code does: the server is what follows `mcp__` up to the next `__`,
    /// the tool is everything after it (and may itself contain `__`). `None` if `name` is not an
    /// MCP name.
    pub fn parse(name: &'a str) -> Option<Self> {
        let rest = name.strip_prefix("mcp__")?;
        match rest.split_once("__") {
            None => is_name_part(rest).then_some(McpName {
                server: rest,
                tool: None,
            }),
            Some((server, "*")) => is_name_part(server).then_some(McpName { server, tool: None }),
            Some((server, tool)) => (is_name_part(server) && is_name_part(tool)).then_some(McpName {
                server,
                tool: Some(tool),
            }),
        }
    }
}

/// Whether a rule naming `rule_tool_name` applies to calls of `tool_name`.
///
/// Plain names must be equal. `mcp__server` and `mcp__server__*` cover every `mcp__server__<tool>`;
/// `mcp__server__tool` covers only that tool.
pub fn rule_tool_matches(rule_tool_name: &str, tool_name: &str) -> bool {
    if rule_tool_name == tool_name {
        return true;
    }
    match (McpName::parse(rule_tool_name), McpName::parse(tool_name)) {
        (
            Some(McpName {
                server: rule_server,
                tool: None,
            }),
            Some(McpName {
                server,
                tool: Some(_),
            }),
        ) => rule_server == server,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn parses_server_and_tool() {
        assert_eq!(
            McpName::parse("mcp__github__create_issue"),
            Some(McpName {
                server: "github",
                tool: Some("create_issue")
            })
        );
        assert_eq!(
            McpName::parse("mcp__my_server__a__b"),
            Some(McpName {
                server: "my_server",
                tool: Some("a__b")
            })
        );
        assert_eq!(
            McpName::parse("mcp__github"),
            Some(McpName {
                server: "github",
                tool: None
            })
        );
        assert_eq!(
            McpName::parse("mcp__github__*"),
            Some(McpName {
                server: "github",
                tool: None
            })
        );
        assert_eq!(McpName::parse("mcp__"), None);
        assert_eq!(McpName::parse("mcp__a__"), None);
        assert_eq!(McpName::parse("mcp__a b__c"), None);
        assert_eq!(McpName::parse("Bash"), None);
    }

    #[test]
    fn server_rules_cover_all_of_the_servers_tools_only() {
        assert!(rule_tool_matches("mcp__github", "mcp__github__create_issue"));
        assert!(rule_tool_matches("mcp__github__*", "mcp__github__x"));
        assert!(!rule_tool_matches("mcp__github", "mcp__githubx__x"));
        assert!(!rule_tool_matches("mcp__git", "mcp__github__x"));
        assert!(rule_tool_matches("mcp__github__x", "mcp__github__x"));
        assert!(!rule_tool_matches("mcp__github__x", "mcp__github__y"));
        assert!(!rule_tool_matches("mcp__github__x", "mcp__github"));
        assert!(rule_tool_matches("Bash", "Bash"));
        assert!(!rule_tool_matches("Bash", "bash"));
    }
}
