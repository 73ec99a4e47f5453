//! The tools of one session, in the order they are sent to the model: lookup by name or alias,
//! compiled schemas, and which deferred tools the model has loaded.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, RwLock};

use serde_json::Value;

use crate::input::{CompiledSchema, SchemaError};
use crate::permissions::PermissionContext;
use crate::tool::{DynTool, ToolOrigin, ToolRef};

/// One entry of the tool list sent to the API.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// Its description.
    pub description: String,
    /// Its input schema (`None` for a deferred tool not yet loaded).
    pub input_schema: Option<Value>,
    /// Whether the schema is held back until tool search loads it.
    pub deferred: bool,
    /// Where the tool comes from (the prompt-cache breakpoint goes after the last built-in).
    pub origin: ToolOrigin,
}

/// The tools of one session, in the order they are sent to the model.
pub struct ToolPool {
    tools: Vec<ToolRef>,
    by_name: HashMap<String, usize>,
    by_alias: HashMap<String, usize>,
    /// Compiled on first use for built-in tools (their schemas are the engine's own, checked by a
    /// test; compiling all of them at start-up was 40% of `nerve -p`'s time to its first request),
    /// at once for others (a server's bad schema is refused when the pool is built).
    schemas: Vec<std::sync::OnceLock<Option<Arc<CompiledSchema>>>>,
    schema_values: Vec<Arc<Value>>,
    deferred: HashSet<String>,
    loaded: RwLock<HashSet<String>>,
    defer_loading: bool,
}

impl std::fmt::Debug for ToolPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.tools.iter().map(|t| t.name().to_string()))
            .finish()
    }
}

/// Whether a tool is held back when deferred loading is on. `always_load` wins; MCP tools are
/// deferred by default (as in Claude Code: a server can bring dozens of tools whose schemas would
/// fill the prompt, and adding one then changes the prompt by a name, not a schema); built-ins only
/// when they ask for it.
pub fn is_deferrable(tool: &dyn DynTool) -> bool {
    !tool.always_load() && (tool.origin() == ToolOrigin::Mcp || tool.should_defer())
}

impl ToolPool {
    /// A pool of exactly these tools, in this order.
    pub fn new(tools: Vec<ToolRef>, defer_loading: bool) -> Result<Self, SchemaError> {
        let mut by_name = HashMap::new();
        let mut by_alias = HashMap::new();
        let mut schemas = Vec::with_capacity(tools.len());
        let mut schema_values = Vec::with_capacity(tools.len());
        let mut deferred = HashSet::new();
        for (i, t) in tools.iter().enumerate() {
            by_name.insert(t.name().to_string(), i);
            for alias in t.aliases() {
                by_alias.insert((*alias).to_string(), i);
            }
            let schema = t.input_schema();
            let compiled = std::sync::OnceLock::new();
            if t.origin() != ToolOrigin::BuiltIn {
                let _ = compiled.set(Some(Arc::new(CompiledSchema::compile(t.name(), &schema)?)));
            }
            schemas.push(compiled);
            schema_values.push(Arc::new(schema));
            if defer_loading && is_deferrable(t.as_ref()) {
                deferred.insert(t.name().to_string());
            }
        }
        Ok(Self {
            tools,
            by_name,
            by_alias,
            schemas,
            schema_values,
            deferred,
            loaded: RwLock::new(HashSet::new()),
            defer_loading,
        })
    }

    /// The same pool with its external tools replaced by `external` (a server's tool list changed
    /// between turns), for the prompt cache's sake keeping the order: built-ins and kept tools
    /// where they were (a changed tool in its old place), removed ones gone, new ones last, each
    /// dropped when a deny rule names it bare. Tools the model loaded through tool search stay
    /// loaded.
    pub fn with_external_tools(
        &self,
        external: Vec<ToolRef>,
        builtin_names: &HashSet<String>,
        permissions: &PermissionContext,
    ) -> Result<Self, SchemaError> {
        let rules = permissions.rules.snapshot();
        let mut fresh: Vec<ToolRef> = external
            .into_iter()
            .filter(|t| t.is_enabled() && rules.bare_deny_for(t.name()).is_none())
            .collect();
        let mut tools: Vec<ToolRef> = Vec::with_capacity(self.tools.len() + fresh.len());
        for old in &self.tools {
            if let Some(at) = fresh.iter().position(|t| t.name() == old.name()) {
                tools.push(fresh.remove(at));
            } else if builtin_names.contains(old.name()) {
                tools.push(Arc::clone(old));
            }
        }
        tools.extend(fresh);
        let pool = Self::new(tools, self.defer_loading)?;
        let loaded = self.loaded_names();
        pool.mark_loaded(loaded.iter().map(String::as_str));
        Ok(pool)
    }

    /// Finds a tool by name, falling back to aliases (old transcripts may use a renamed tool).
    pub fn find(&self, name: &str) -> Option<&ToolRef> {
        self.index_of(name).map(|i| &self.tools[i])
    }

    /// The compiled schema of a tool found by [`ToolPool::find`].
    pub fn schema(&self, name: &str) -> Option<Arc<CompiledSchema>> {
        let i = self.index_of(name)?;
        self.schemas[i]
            .get_or_init(|| {
                CompiledSchema::compile(self.tools[i].name(), &self.schema_values[i])
                    .ok()
                    .map(Arc::new)
            })
            .clone()
    }

    /// The JSON schema of a tool (computed once, when the pool was built).
    pub fn schema_value(&self, name: &str) -> Option<Arc<Value>> {
        self.index_of(name).map(|i| Arc::clone(&self.schema_values[i]))
    }

    fn index_of(&self, name: &str) -> Option<usize> {
        self.by_name
            .get(name)
            .or_else(|| self.by_alias.get(name))
            .copied()
    }

    /// The tools in API order.
    pub fn tools(&self) -> &[ToolRef] {
        &self.tools
    }

    /// Whether a tool is deferred (held back until tool search loads it), loaded yet or not.
    pub fn is_deferred(&self, name: &str) -> bool {
        self.find(name).is_some_and(|t| self.deferred.contains(t.name()))
    }

    /// Whether a tool is deferred and its schema has not been loaded yet.
    pub fn is_unloaded_deferred(&self, name: &str) -> bool {
        let Some(t) = self.find(name) else { return false };
        self.deferred.contains(t.name()) && !self.loaded_names().contains(t.name())
    }

    /// Marks deferred tools as loaded (tool search found them); later requests carry their schemas.
    pub fn mark_loaded<'a>(&self, names: impl IntoIterator<Item = &'a str>) {
        let mut loaded = self
            .loaded
            .write()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        for n in names {
            if self.deferred.contains(n) {
                loaded.insert(n.to_string());
            }
        }
    }

    fn loaded_names(&self) -> HashSet<String> {
        self.loaded
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The tool list for the next request.
    pub fn specs(&self) -> Vec<ToolSpec> {
        let loaded = self.loaded_names();
        self.tools
            .iter()
            .map(|t| {
                let deferred = self.deferred.contains(t.name()) && !loaded.contains(t.name());
                ToolSpec {
                    name: t.name().to_string(),
                    description: t.description(),
                    input_schema: if deferred {
                        None
                    } else {
                        self.schema_value(t.name()).map(|v| Value::clone(&v))
                    },
                    deferred,
                    origin: t.origin(),
                }
            })
            .collect()
    }
}
