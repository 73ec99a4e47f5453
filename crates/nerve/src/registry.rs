//! The registry: the single list of tools that can exist, and how a session's pool is assembled
//! from it (the pool itself is [`crate::tool::ToolPool`], part of the tool contract).

use std::collections::HashSet;
use std::sync::Arc;

use crate::input::SchemaError;
use crate::permissions::PermissionContext;
use crate::tool::{ToolOrigin, ToolRef, is_deferrable};
pub use crate::tool::{ToolPool, ToolSpec};

/// Every built-in tool that can exist in this build. Build-time gating is by cargo feature; run-time
/// gating by environment (`NERVE_TEST_TOOLS=1` adds the pipeline's test tools, which are compiled in
/// only with the `test-tools` feature: test and bench builds, never `cargo build`). Keep this the only list: the CLI, the desktop app and the tests
/// all start from it.
pub fn all_builtin_tools() -> Vec<ToolRef> {
    #[allow(unused_mut)]
    let mut tools: Vec<ToolRef> = vec![
        Arc::new(crate::tools::agent::AgentTool::default()),
        Arc::new(crate::tools::read::ReadTool),
        Arc::new(crate::tools::edit::EditTool),
        Arc::new(crate::tools::write::WriteTool),
        Arc::new(crate::tools::glob::GlobTool),
        Arc::new(crate::tools::grep::GrepTool),
        Arc::new(crate::tools::notebook_edit::NotebookEditTool),
        Arc::new(crate::tools::todo_write::TodoWriteTool),
        Arc::new(crate::tools::enter_plan_mode::EnterPlanModeTool),
        Arc::new(crate::tools::exit_plan_mode::ExitPlanModeTool),
        Arc::new(crate::tools::tool_search::ToolSearchTool),
        // Each call makes a new instance, so each session's pool gets its own page cache.
        Arc::new(crate::tools::web_fetch::WebFetchTool::default()),
        Arc::new(crate::tools::web_search::WebSearchTool),
        Arc::new(crate::tools::bash::BashTool),
        Arc::new(crate::tools::task_output::TaskOutputTool),
        Arc::new(crate::tools::task_stop::TaskStopTool),
    ];
    tools
}

/// The built-in tools a session of this process offers: [`all_builtin_tools`], and the test
/// tools when `env` asks for them (`NERVE_TEST_TOOLS=1`) in a build that has them.
pub fn builtin_tools(env: &crate::engine_env::EngineEnv) -> Vec<ToolRef> {
    #[cfg_attr(not(feature = "test-tools"), allow(unused_mut))]
    let mut tools = all_builtin_tools();
    #[cfg(feature = "test-tools")]
    if env.test_tools {
        tools.extend(crate::tools::testing::all_test_tools());
    }
    #[cfg(not(feature = "test-tools"))]
    let _ = env;
    tools
}

/// The kind of the tool named `name`, for a record that keeps only the name (a saved output): a
/// built-in tool's own, an MCP tool's (`mcp__<server>__<tool>`, as the engine names them) with its
/// server, anything else `Other`.
pub fn kind_by_name(builtins: &[ToolRef], name: &str) -> nerve_protocol::ToolKind {
    if let Some(tool) = builtins.iter().find(|t| t.name() == name) {
        return tool.kind();
    }
    match name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
        Some((server, tool)) if !server.is_empty() && !tool.is_empty() => nerve_protocol::ToolKind::Mcp {
            server: server.to_string(),
            tool: tool.to_string(),
        },
        _ => nerve_protocol::ToolKind::Other,
    }
}

/// Options for a session's view of the tools.
#[derive(Debug, Clone)]
pub struct PoolOptions {
    /// Only these tools (by name), if set (`--allowedTools` style restriction of the tool list is
    /// done with rules; this is the "simple mode" list).
    pub only: Option<Vec<String>>,
    /// Whether deferred loading may be used: deferrable tools (MCP tools, unless their server marks
    /// them `_meta["anthropic/alwaysLoad"]`) are sent by name until the model loads them through
    /// ToolSearch. On by default; it only takes effect when the deferrable tools are worth it (see
    /// [`MIN_DEFERRED_CHARS`]).
    pub defer_loading: bool,
}

impl Default for PoolOptions {
    fn default() -> Self {
        Self {
            only: None,
            defer_loading: true,
        }
    }
}

/// Deferral pays only when the schemas it holds back outweigh what it costs: ToolSearch's own
/// definition (about 1,500 characters) and a round trip before the first use of a deferred tool.
/// Below this many characters of deferrable definitions, everything is sent in full and ToolSearch
/// is left out.
pub const MIN_DEFERRED_CHARS: usize = 8_000;

/// Assembles the pool: built-ins filtered by options, deny rules and `is_enabled`; external tools
/// filtered by deny rules; each group sorted by name; built-ins first; duplicates dropped by name
/// with built-ins winning.
///
/// Sorting the groups separately (not one flat sort) keeps the built-in list a stable prefix: the
/// prompt cache breaks after the last built-in tool, and an MCP tool sorted in between built-ins
/// would move them and invalidate the cache whenever a server is added or removed.
pub fn assemble_tool_pool(
    builtins: Vec<ToolRef>,
    external: Vec<ToolRef>,
    permissions: &PermissionContext,
    options: &PoolOptions,
) -> Result<ToolPool, SchemaError> {
    let rules = permissions.rules.snapshot();
    let visible = |t: &ToolRef| t.is_enabled() && rules.bare_deny_for(t.name()).is_none();
    let mut built: Vec<ToolRef> = builtins
        .into_iter()
        .filter(|t| t.origin() == ToolOrigin::BuiltIn)
        .filter(|t| {
            options
                .only
                .as_ref()
                .is_none_or(|only| only.iter().any(|n| n == t.name()))
        })
        .filter(visible)
        .collect();
    let mut ext: Vec<ToolRef> = external.into_iter().filter(visible).collect();
    built.sort_by(|a, b| a.name().cmp(b.name()));
    ext.sort_by(|a, b| a.name().cmp(b.name()));

    let mut seen = HashSet::new();
    let mut tools: Vec<ToolRef> = built
        .into_iter()
        .chain(ext)
        .filter(|t| seen.insert(t.name().to_string()))
        .collect();
    let deferrable_chars: usize = tools
        .iter()
        .filter(|t| is_deferrable(t.as_ref()))
        .map(|t| t.description().len() + t.input_schema().to_string().len())
        .sum();
    let defer = options.defer_loading && deferrable_chars >= MIN_DEFERRED_CHARS;
    if !defer {
        // Nothing is held back, so there is nothing to search for.
        tools.retain(|t| t.name() != crate::tools::tool_search::NAME);
    }
    ToolPool::new(tools, defer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::CompiledSchema;
    use crate::tool::{ProgressSink, Tool, ToolError, ToolOutput, ToolUseContext};
    use async_trait::async_trait;
    use serde_json::Value;

    /// Front-ends choose a tool's card, icon and dialog by its kind, never by its name: every
    /// built-in tool says its own, and which input field the user may edit before allowing.
    #[test]
    fn every_builtin_tool_says_its_kind_and_editable_field() {
        use nerve_protocol::{EditableField as F, ToolKind as K};
        let kinds: Vec<(String, K, Option<F>)> = all_builtin_tools()
            .iter()
            .filter(|t| !t.name().starts_with("Test"))
            .map(|t| (t.name().to_string(), t.kind(), t.editable_field()))
            .collect();
        let want = |name: &str, kind: K, field: Option<F>| (name.to_string(), kind, field);
        pretty_assertions::assert_eq!(
            kinds,
            vec![
                want("Agent", K::Agent, None),
                want("Read", K::Read, None),
                want("Edit", K::FileEdit, Some(F::NewString)),
                want("Write", K::FileWrite, Some(F::Content)),
                want("Glob", K::Search, None),
                want("Grep", K::Search, None),
                want("NotebookEdit", K::FileEdit, None),
                want("TodoWrite", K::Todo, None),
                want("EnterPlanMode", K::Plan, None),
                want("ExitPlanMode", K::Plan, None),
                want("ToolSearch", K::Search, None),
                want("WebFetch", K::Fetch, None),
                want("WebSearch", K::Fetch, None),
                want("Bash", K::Shell, Some(F::Command)),
                want("TaskOutput", K::Other, None),
                want("TaskStop", K::Other, None),
            ]
        );
    }

    #[test]
    fn a_name_alone_gives_the_kind_of_a_built_in_or_an_mcp_tool() {
        use nerve_protocol::ToolKind as K;
        let builtins = all_builtin_tools();
        let kinds: Vec<K> = [
            "Bash",
            "Read",
            "mcp__github__create_issue",
            "mcp____x",
            "mcp__solo",
            "Gone",
            "",
        ]
        .iter()
        .map(|name| kind_by_name(&builtins, name))
        .collect();
        pretty_assertions::assert_eq!(
            kinds,
            vec![
                K::Shell,
                K::Read,
                K::Mcp {
                    server: "github".into(),
                    tool: "create_issue".into()
                },
                K::Other,
                K::Other,
                K::Other,
                K::Other,
            ]
        );
    }

    #[derive(Debug)]
    struct Fake {
        name: &'static str,
        origin: ToolOrigin,
        defer: bool,
        always: bool,
    }

    #[async_trait]
    impl Tool for Fake {
        type Input = serde_json::Map<String, Value>;
        fn name(&self) -> &str {
            self.name
        }
        fn description(&self) -> String {
            format!("{} tool", self.name)
        }
        fn origin(&self) -> ToolOrigin {
            self.origin
        }
        fn should_defer(&self) -> bool {
            self.defer
        }
        fn always_load(&self) -> bool {
            self.always
        }
        async fn call(
            &self,
            _i: Self::Input,
            _c: &ToolUseContext,
            _p: &ProgressSink,
        ) -> Result<ToolOutput, ToolError> {
            Ok(ToolOutput::default())
        }
    }

    fn tools() -> Vec<ToolRef> {
        let fake = |name, origin, defer, always| -> ToolRef {
            Arc::new(Fake {
                name,
                origin,
                defer,
                always,
            })
        };
        vec![
            fake("Plain", ToolOrigin::BuiltIn, false, false),
            fake("Rare", ToolOrigin::BuiltIn, true, false),
            fake("mcp__s__a", ToolOrigin::Mcp, false, false),
            fake("mcp__s__pinned", ToolOrigin::Mcp, false, true),
        ]
    }

    #[test]
    fn with_deferral_on_mcp_tools_and_deferring_builtins_are_held_back() {
        let pool = ToolPool::new(tools(), true).unwrap();
        let deferred: Vec<String> = pool
            .specs()
            .into_iter()
            .filter(|s| s.deferred)
            .map(|s| s.name)
            .collect();
        assert_eq!(deferred, vec!["Rare", "mcp__s__a"]);
        assert!(pool.is_deferred("mcp__s__a") && !pool.is_deferred("mcp__s__pinned"));
        pool.mark_loaded(["mcp__s__a", "Plain"]);
        assert!(
            pool.is_deferred("mcp__s__a"),
            "loading does not change what is deferrable"
        );
        assert!(!pool.is_unloaded_deferred("mcp__s__a"));
        let spec = pool.specs().into_iter().find(|s| s.name == "mcp__s__a").unwrap();
        assert!(spec.input_schema.is_some() && !spec.deferred);
    }

    #[test]
    fn with_deferral_off_nothing_is_held_back() {
        let pool = ToolPool::new(tools(), false).unwrap();
        assert!(
            pool.specs()
                .iter()
                .all(|s| !s.deferred && s.input_schema.is_some())
        );
        assert!(!pool.is_deferred("mcp__s__a"));
    }

    #[test]
    fn every_builtin_schema_refuses_unknown_fields() {
        let lax: Vec<String> = all_builtin_tools()
            .iter()
            .filter(|t| t.input_schema()["additionalProperties"] != serde_json::json!(false))
            .map(|t| t.name().to_string())
            .collect();
        assert_eq!(lax, Vec::<String>::new());
    }

    #[test]
    fn every_builtin_schema_compiles() {
        // The pool compiles built-in schemas on first use: this is where a broken one shows.
        let broken: Vec<String> = all_builtin_tools()
            .iter()
            .filter_map(|t| CompiledSchema::compile(t.name(), &t.input_schema()).err())
            .map(|e| e.to_string())
            .collect();
        assert_eq!(broken, Vec::<String>::new());
        let pool = ToolPool::new(all_builtin_tools(), false).unwrap();
        assert!(pool.tools().iter().all(|t| pool.schema(t.name()).is_some()));
    }

    #[test]
    fn the_builtin_list_has_the_loop_tools() {
        let names: Vec<String> = all_builtin_tools().iter().map(|t| t.name().to_string()).collect();
        for name in ["EnterPlanMode", "ExitPlanMode", "ToolSearch", "WebFetch"] {
            assert!(names.iter().any(|n| n == name), "{name} missing from {names:?}");
        }
    }
}
