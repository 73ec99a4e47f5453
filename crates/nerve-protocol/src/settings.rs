//! A project's settings as the settings screens show them (rules, hooks, MCP servers), rule edits,
//! the dry run of a call (`nerve check-permission`, the app's "what would happen" box), and the
//! state of the credentials.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::permission::{Evaluation, PermissionMode, RuleBehavior, RuleSource};
use crate::sandbox::SandboxState;

/// What the tool's own (semantic) validation says about the input: separate from the permission
/// decision, because an explanation of the rules must not depend on the session's state (an Edit
/// of a file this one-shot session never read is still worth explaining).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum ValidationReport {
    /// The tool would accept the input.
    Valid,
    /// The tool would refuse the input before asking for permission, with this message.
    Invalid {
        /// What the model would be told.
        message: String,
    },
    /// An unknown tool's input is not validated.
    NotChecked,
}

/// What the pipeline would decide about a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CheckReport {
    /// The tool's registered name (or the name given, for an unknown tool).
    pub tool: String,
    /// Whether the tool exists in this session.
    pub known_tool: bool,
    /// Whether the tool says the input only reads.
    pub read_only: bool,
    /// Whether the tool says the input may destroy data (deletes, or overwrites what exists).
    pub destructive: bool,
    /// The input as hooks and rules see it.
    pub input: Value,
    /// What the tool's validation says, reported beside the decision instead of replacing it.
    pub validation: ValidationReport,
    /// The decision and its explanation.
    #[serde(flatten)]
    pub evaluation: Evaluation,
}

/// What a new session of the project would do with a call.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PermissionCheck {
    /// The mode a new session starts in.
    pub mode: PermissionMode,
    /// The decision and how it was reached.
    pub report: CheckReport,
    /// Rules that are easy to dodge.
    pub rule_warnings: Vec<RuleWarning>,
    /// Whether the call would run in the sandbox (Bash), and if not, why.
    pub sandbox: Option<SandboxState>,
}

/// A rule that is easy to dodge, with the broader rule that would not be.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RuleWarning {
    /// The rule as written (`Bash(curl -X POST *)`).
    pub rule: String,
    /// Where it comes from.
    pub source: String,
    /// What is wrong with it.
    pub warning: String,
    /// A broader rule to consider (`Bash(curl *)`).
    pub suggestion: String,
}

/// One rule in effect.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RuleEntry {
    /// Allow, ask or deny.
    pub behavior: RuleBehavior,
    /// The rule as the engine reads it (`Bash(git *)`).
    pub rule: String,
    /// Where it comes from.
    pub source: RuleSource,
    /// The settings file that holds it (none for command-line and session rules).
    pub path: Option<String>,
    /// Whether it lives in a file the user may edit here (not the managed policy, the command
    /// line or the session).
    pub editable: bool,
}

/// Every rule in effect, highest priority first, with the warnings about easily dodged ones.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RulesView {
    /// The rules, by source priority, then behaviour (deny, ask, allow), then file order.
    pub rules: Vec<RuleEntry>,
    /// Deny and ask rules that a different spelling of the command would dodge.
    pub warnings: Vec<RuleWarning>,
    /// The files a new rule may go to, by source, most personal first.
    pub writable: Vec<WritableFile>,
}

/// A settings file new rules may be written to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WritableFile {
    /// The source it is.
    pub source: RuleSource,
    /// Its path (it may not exist yet).
    pub path: String,
}

/// What the rule parser says about a rule being typed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum RuleSyntax {
    /// The rule parses.
    Valid {
        /// How the engine writes it (`Bash(*)` becomes `Bash`).
        normalized: String,
    },
    /// It does not.
    Invalid {
        /// Why, and where.
        error: RuleSyntaxError,
    },
}

/// A parse error with the part of the text it is about.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RuleSyntaxError {
    /// The parser's message.
    pub message: String,
    /// Where the faulty part starts, in UTF-16 code units (a text field's positions).
    pub start: u32,
    /// Where it ends (exclusive), in UTF-16 code units.
    pub end: u32,
}

/// One change to a `permissions.<behavior>` list of a settings file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum RuleEdit {
    /// Append a rule (nothing happens when an equal rule is there).
    Add {
        /// The rule as typed.
        rule: String,
    },
    /// Remove a rule (every entry equal to it).
    Remove {
        /// The rule as shown.
        rule: String,
    },
    /// Put `new` where `old` is.
    Replace {
        /// The rule as shown.
        old: String,
        /// The rule as typed.
        new: String,
    },
}

/// One hook command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HookView {
    /// The event (`PreToolUse`...).
    pub event: String,
    /// The matcher as written (empty: every target).
    pub matcher: String,
    /// The command line.
    pub command: String,
    /// Its time limit in seconds.
    pub timeout_secs: u32,
    /// The settings file it came from.
    pub source: String,
    /// The file's kind when the user may change its hooks here (their user, project or local
    /// settings); `None` for a file the app only shows (managed, Claude Code's).
    pub editable_source: Option<RuleSource>,
}

/// An instruction ("memory") file the model reads at the start of a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MemoryFileView {
    /// Its path.
    pub path: String,
    /// Whose it is.
    pub kind: MemoryKind,
    /// Whether it exists (`NERVE.md` of the project and the user's are listed to be created).
    pub exists: bool,
    /// The file that imports it (`@path`), for an import.
    pub imported_by: Option<String>,
}

/// Whose an instruction file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MemoryKind {
    /// The project's (`NERVE.md`, `CLAUDE.md`, `AGENTS.md` at its root).
    Project,
    /// The user's, for every project.
    User,
    /// Imported by another instruction file.
    Import,
}

/// A hook as the app adds or removes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HookSpec {
    /// The event (`PreToolUse`...).
    pub event: String,
    /// The matcher (empty: every target).
    pub matcher: String,
    /// The command line.
    pub command: String,
    /// Its time limit in seconds (`None`: the default, 60).
    pub timeout_secs: Option<u32>,
}

/// What a hook did with a sample event of its kind, and what Nerve would make of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HookTestResult {
    /// The event JSON the hook read on stdin.
    pub input: String,
    /// Its exit code, when it exited.
    pub exit_code: Option<i32>,
    /// What it printed.
    pub stdout: String,
    /// What it printed on stderr.
    pub stderr: String,
    /// Whether it ran out of time.
    pub timed_out: bool,
    /// What Nerve would do with that answer, in words.
    pub effect: String,
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpServerView {
    /// Its name in `mcpServers`.
    pub name: String,
    /// Where it is configured: `user`, `project` (`.mcp.json`) or `local`.
    pub scope: String,
    /// The file that configures it.
    pub config_file: String,
    /// How it is reached, in one line (`npx -y server --flag`, `http https://...`).
    pub transport: String,
    /// The personal settings file that approves it, when one does (for a user or local server,
    /// its own file: a personal file needs no approval).
    pub approved_in: Option<String>,
    /// Whether it is a remote server that can be signed in to with OAuth (`http`).
    pub remote: bool,
    /// Whether the approval switch can change it here: approval (and its withdrawal) is written
    /// to the project's local settings, so an approval from another file is shown, not switched.
    pub switchable: bool,
    /// What happened when it was last started (or why it is not).
    pub status: McpServerStatus,
    /// Its configuration as written (`${VAR}`s unexpanded), for editing; `None` for a transport
    /// the app cannot edit (`ws`).
    pub spec: Option<McpServerSpec>,
    /// Its tools switched off: hidden from the model by a deny rule of their bare name (or of the
    /// whole server). Full names.
    pub tools_off: Vec<String>,
    /// The last lines it wrote to stderr when it was started here (stdio servers).
    pub stderr: Vec<String>,
    /// Whether it is switched on (`disabledMcpServers` in a personal file switches it off: it is
    /// not started).
    pub enabled: bool,
}

/// How an MCP server is reached, as the app adds or edits it (Claude Code's entry shape).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpServerSpec {
    /// A program speaking MCP on its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (values may use `${VAR}`).
        env: std::collections::BTreeMap<String, String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
        /// Extra headers (values may use `${VAR}`).
        headers: std::collections::BTreeMap<String, String>,
    },
    /// The older HTTP+SSE transport.
    Sse {
        /// The endpoint.
        url: String,
        /// Extra headers.
        headers: std::collections::BTreeMap<String, String>,
    },
}

/// Where MCP servers are imported from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum McpImportSource {
    /// Claude Code's `~/.claude.json`: its user servers and this project's local ones.
    ClaudeCode,
    /// Claude Desktop's `claude_desktop_config.json`.
    ClaudeDesktop,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpImportReport {
    /// The file the servers were written to.
    pub file: String,
    /// The servers imported.
    pub imported: Vec<String>,
    /// The servers left out, and why.
    pub skipped: Vec<McpImportSkip>,
}

/// A server an import left out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpImportSkip {
    /// Its name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// A server's state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerStatus {
    /// `.mcp.json` names it, and no personal settings file approves it: it is never started.
    NotApproved,
    /// Approved, not started yet (the next session starts it).
    NotStarted,
    /// Started, with these tools.
    Connected {
        /// Full tool names (`mcp__server__tool`).
        tools: Vec<String>,
    },
    /// A remote server waiting for an OAuth sign-in (none stored, or the stored one refused).
    NeedsSignIn {
        /// What the connection said.
        message: String,
    },
    /// Could not be started or listed.
    Failed {
        /// Why.
        error: String,
    },
}

/// Where the API key comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum KeySource {
    /// The OS keyring.
    Keyring,
    /// A file only the user can read (no keyring answered when the key was stored).
    File,
    /// The `ANTHROPIC_API_KEY` environment variable.
    Environment,
}

/// What a front-end may show about the credentials (never the key itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CredentialStatus {
    /// Whether a session could authenticate: a key, a bearer token, or a model server on this
    /// machine that needs none.
    pub has_api_key: bool,
    /// Where the key comes from, when there is one.
    pub key_source: Option<KeySource>,
    /// Why the keyring could not be used, when it could not.
    pub keyring_problem: Option<String>,
    /// Whether a bearer token for a gateway is stored (it is sent instead of the key).
    pub has_auth_token: bool,
    /// What the next session will authenticate with, in words ("the OS keyring", "none (a local
    /// model server)"); `None` when nothing is configured.
    pub credentials_in_use: Option<String>,
}

/// Which API the model server speaks.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
pub enum ModelProvider {
    /// Anthropic's Messages API (also what Ollama and llama.cpp's server speak on `/v1/messages`).
    #[default]
    Anthropic,
    /// The OpenAI-compatible Chat Completions API (`/v1/chat/completions`): vLLM, LM Studio,
    /// llama.cpp's server, Ollama's OpenAI endpoint, gateways, OpenAI.
    OpenaiChat,
    /// OpenAI's Responses API (`/v1/responses`): OpenAI and the servers that offer it.
    OpenaiResponses,
}

impl ModelProvider {
    /// The name settings, flags and the environment use.
    pub fn as_str(self) -> &'static str {
        match self {
            ModelProvider::Anthropic => "anthropic",
            ModelProvider::OpenaiChat => "openai-chat",
            ModelProvider::OpenaiResponses => "openai-responses",
        }
    }

    /// Whether it is one of OpenAI's APIs (a bearer key, OpenAI's key, its own keyring entry).
    pub fn is_openai(self) -> bool {
        self != ModelProvider::Anthropic
    }
}

impl std::str::FromStr for ModelProvider {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim() {
            "anthropic" => Ok(ModelProvider::Anthropic),
            "openai-chat" | "openai" => Ok(ModelProvider::OpenaiChat),
            "openai-responses" => Ok(ModelProvider::OpenaiResponses),
            other => Err(format!(
                "unknown model provider `{other}`; the providers are anthropic, openai-chat and openai-responses"
            )),
        }
    }
}
