//! MCP tool names as the model sees them: `mcp__<server>__<tool>`.

/// Replaces every character outside `[A-Za-z0-9_-]` with `_`, as Claude Code does, so the name is
/// valid for the Messages API and rules written for Claude Code keep matching.
pub fn normalize_name_part(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The full tool name for `tool` on `server`.
pub fn mcp_tool_name(server: &str, tool: &str) -> String {
    format!(
        "mcp__{}__{}",
        normalize_name_part(server),
        normalize_name_part(tool)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalises_both_parts() {
        assert_eq!(mcp_tool_name("test", "echo"), "mcp__test__echo");
        assert_eq!(
            mcp_tool_name("my server", "dotted.name"),
            "mcp__my_server__dotted_name"
        );
        assert_eq!(mcp_tool_name("a-b_c", "ünï"), "mcp__a-b_c___n_");
    }
}
