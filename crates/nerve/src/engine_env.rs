//! What the engine takes from the process environment, read once where a front-end starts and
//! passed down from there ([`crate::project::ProjectOptions::env`], and as an argument to the
//! functions a front-end calls without a project). Nothing below reads the process environment
//! for itself, so a test gives values instead of changing the process it shares with other tests.
//!
//! The environment that processes started for the user inherit (Bash commands, hooks, MCP servers,
//! the `${VAR}`s in an MCP configuration, `$BROWSER`) is the user's, not a setting of the engine,
//! and stays where it is used (`child_env`).

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};

/// Overrides where the engine keeps its data.
pub const DATA_DIR_ENV: &str = "NERVE_DATA_DIR";
/// The Messages API's base URL.
pub const BASE_URL_ENV: &str = "ANTHROPIC_BASE_URL";
/// Extra request headers, one `Name: value` per line.
pub const CUSTOM_HEADERS_ENV: &str = "ANTHROPIC_CUSTOM_HEADERS";
/// A bearer token sent instead of the API key.
pub const AUTH_TOKEN_ENV: &str = "ANTHROPIC_AUTH_TOKEN";
/// The API key, when the keyring has none.
pub const API_KEY_ENV: &str = "ANTHROPIC_API_KEY";
/// Set to `off` to never touch the keyring.
pub const KEYRING_SWITCH_ENV: &str = "NERVE_KEYRING";
/// Another keyring service for the key and token (separate profiles).
pub const KEYRING_SERVICE_ENV: &str = "NERVE_KEYRING_SERVICE";
/// Overrides the main model.
pub const MAIN_MODEL_ENV: &str = "NERVE_MODEL";
/// Overrides the fast model.
pub const FAST_MODEL_ENV: &str = "NERVE_FAST_MODEL";
/// Most tool calls running at once.
pub const MAX_TOOL_CONCURRENCY_ENV: &str = "NERVE_MAX_TOOL_USE_CONCURRENCY";
/// `1` offers the test tools (in a build with the `test-tools` feature only).
pub const TEST_TOOLS_ENV: &str = "NERVE_TEST_TOOLS";
/// The key of an OpenAI-compatible server.
pub const OPENAI_API_KEY_ENV: &str = "OPENAI_API_KEY";
/// The API the model server speaks: `anthropic` (the default) or `openai-chat`.
pub const PROVIDER_ENV: &str = "NERVE_PROVIDER";
/// `1` offers WebSearch whatever the model server, `0` never; unset: only on Anthropic's API.
pub const WEB_SEARCH_ENV: &str = "NERVE_WEB_SEARCH";
/// The binary that sandboxes Bash commands.
pub const SANDBOX_HELPER_ENV: &str = "NERVE_SANDBOX_HELPER";
/// How long an MCP server may take to start, in milliseconds.
pub const MCP_CONNECT_TIMEOUT_ENV: &str = "NERVE_MCP_CONNECT_TIMEOUT_MS";
/// The size above which an MCP result is persisted, in characters.
pub const MCP_MAX_RESULT_CHARS_ENV: &str = "NERVE_MCP_MAX_RESULT_CHARS";
/// Another keyring service for MCP OAuth tokens.
pub const MCP_KEYRING_SERVICE_ENV: &str = "NERVE_MCP_KEYRING_SERVICE";

/// The engine's environment variables, as values. Blank values count as unset.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineEnv {
    /// `NERVE_DATA_DIR`.
    pub data_dir: Option<PathBuf>,
    /// `ANTHROPIC_BASE_URL`.
    pub base_url: Option<String>,
    /// `ANTHROPIC_CUSTOM_HEADERS`.
    pub custom_headers: Option<String>,
    /// `ANTHROPIC_AUTH_TOKEN`.
    pub auth_token: Option<String>,
    /// `ANTHROPIC_API_KEY`.
    pub api_key: Option<String>,
    /// `NERVE_KEYRING=off`.
    pub keyring_off: bool,
    /// `NERVE_KEYRING_SERVICE`.
    pub keyring_service: Option<String>,
    /// `NERVE_MODEL`.
    pub main_model: Option<String>,
    /// `NERVE_FAST_MODEL`.
    pub fast_model: Option<String>,
    /// `NERVE_MAX_TOOL_USE_CONCURRENCY`, when a positive number.
    pub max_tool_concurrency: Option<usize>,
    /// `NERVE_TEST_TOOLS=1`.
    pub test_tools: bool,
    /// `OPENAI_API_KEY`.
    pub openai_api_key: Option<String>,
    /// `NERVE_PROVIDER`, when it names a provider (another value is reported where a session starts).
    pub provider: Option<String>,
    /// `NERVE_WEB_SEARCH`: `Some(true)` for `1`, `Some(false)` for `0`.
    pub web_search: Option<bool>,
    /// `NERVE_SANDBOX_HELPER`.
    pub sandbox_helper: Option<PathBuf>,
    /// `NERVE_MCP_CONNECT_TIMEOUT_MS`, when a positive number.
    pub mcp_connect_timeout_ms: Option<u64>,
    /// `NERVE_MCP_MAX_RESULT_CHARS`, when a positive number.
    pub mcp_max_result_chars: Option<usize>,
    /// `NERVE_MCP_KEYRING_SERVICE`.
    pub mcp_keyring_service: Option<String>,
}

impl EngineEnv {
    /// The values `lookup` gives for the engine's variables.
    pub fn from_lookup(lookup: impl Fn(&str) -> Option<String>) -> Self {
        let text = |name: &str| lookup(name).filter(|v| !v.trim().is_empty());
        let positive = |name: &str| {
            text(name)
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|n| *n > 0)
        };
        Self {
            data_dir: text(DATA_DIR_ENV).map(PathBuf::from),
            base_url: text(BASE_URL_ENV),
            custom_headers: text(CUSTOM_HEADERS_ENV),
            auth_token: text(AUTH_TOKEN_ENV).map(|t| t.trim().to_owned()),
            api_key: text(API_KEY_ENV),
            keyring_off: text(KEYRING_SWITCH_ENV).is_some_and(|v| v.trim().eq_ignore_ascii_case("off")),
            keyring_service: text(KEYRING_SERVICE_ENV),
            main_model: text(MAIN_MODEL_ENV),
            fast_model: text(FAST_MODEL_ENV),
            max_tool_concurrency: positive(MAX_TOOL_CONCURRENCY_ENV).and_then(|n| usize::try_from(n).ok()),
            test_tools: lookup(TEST_TOOLS_ENV).is_some_and(|v| v == "1"),
            openai_api_key: text(OPENAI_API_KEY_ENV).map(|k| k.trim().to_owned()),
            provider: text(PROVIDER_ENV).map(|p| p.trim().to_owned()),
            web_search: match text(WEB_SEARCH_ENV).as_deref().map(str::trim) {
                Some("1") => Some(true),
                Some("0") => Some(false),
                _ => None,
            },
            sandbox_helper: text(SANDBOX_HELPER_ENV).map(PathBuf::from),
            mcp_connect_timeout_ms: positive(MCP_CONNECT_TIMEOUT_ENV),
            mcp_max_result_chars: positive(MCP_MAX_RESULT_CHARS_ENV).and_then(|n| usize::try_from(n).ok()),
            mcp_keyring_service: text(MCP_KEYRING_SERVICE_ENV),
        }
    }

    /// The process's values, read the first time and kept (a front-end's start; the engine's
    /// defaults when a front-end passes nothing else).
    pub fn process() -> Arc<Self> {
        static READ: OnceLock<Arc<EngineEnv>> = OnceLock::new();
        Arc::clone(READ.get_or_init(|| Arc::new(Self::from_lookup(|name| std::env::var(name).ok()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn values_are_read_by_name_and_blank_or_unusable_ones_count_as_unset() {
        let vars = [
            ("NERVE_DATA_DIR", "/data"),
            ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
            ("ANTHROPIC_AUTH_TOKEN", "  tok  "),
            ("ANTHROPIC_API_KEY", " "),
            ("NERVE_KEYRING", "OFF"),
            ("NERVE_MODEL", "m"),
            ("NERVE_MAX_TOOL_USE_CONCURRENCY", "0"),
            ("NERVE_TEST_TOOLS", "1"),
            ("NERVE_MCP_CONNECT_TIMEOUT_MS", "250"),
            ("NERVE_MCP_MAX_RESULT_CHARS", "many"),
        ];
        let env =
            EngineEnv::from_lookup(|name| vars.iter().find(|(n, _)| *n == name).map(|(_, v)| v.to_string()));
        assert_eq!(
            env,
            EngineEnv {
                data_dir: Some(PathBuf::from("/data")),
                base_url: Some("http://127.0.0.1:9".into()),
                auth_token: Some("tok".into()),
                keyring_off: true,
                main_model: Some("m".into()),
                test_tools: true,
                mcp_connect_timeout_ms: Some(250),
                ..EngineEnv::default()
            }
        );
    }
}
