//! MCP server configuration in Claude Code's shape:
//!
//! ```json
//! { "mcpServers": { "github": { "command": "npx", "args": ["-y", "server-github"],
//!                               "env": { "TOKEN": "${GITHUB_TOKEN}" } } } }
//! ```
//!
//! `type` defaults to `"stdio"`. `"http"` (streamable HTTP) and `"sse"` (the older HTTP+SSE
//! transport) servers take a `"url"` and optional `"headers"` (a bearer token, usually from an
//! environment variable); `"ws"` parses, but connecting fails with a "not supported" report naming
//! the server. `${VAR}` and `${VAR:-default}` are expanded in `command`, `args`, `env`, `url` and
//! `headers`, as Claude Code does.
//!
//! Servers come from four places, in Claude Code's scopes: the user's settings (`mcpServers` in
//! `~/.config/nerve/settings.json`, every project), the project's `.mcp.json` (shared, committed,
//! started only once approved), the project's local settings (`mcpServers` in
//! `.nerve/settings.local.json`, personal) and `--mcp-config` files.

pub use crate::settings::ProjectServerApproval;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// How Nerve reaches a server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpTransport {
    /// A child process speaking JSON-RPC over its stdin and stdout.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables (added to Nerve's own environment).
        env: BTreeMap<String, String>,
    },
    /// Streamable HTTP: JSON-RPC over POST, answers as JSON or an SSE stream.
    Http {
        /// The endpoint.
        url: String,
        /// Extra request headers (`Authorization: Bearer ...`).
        headers: BTreeMap<String, String>,
    },
    /// The older HTTP+SSE transport: an event stream from GET, messages POSTed to the endpoint
    /// the stream names.
    Sse {
        /// The event stream's URL.
        url: String,
        /// Extra request headers.
        headers: BTreeMap<String, String>,
    },
    /// A transport Nerve does not speak (`ws`).
    Unsupported {
        /// The `type` as written.
        kind: String,
        /// The URL, if given.
        url: Option<String>,
    },
}

impl McpTransport {
    /// The URL of a remote server.
    pub fn url(&self) -> Option<&str> {
        match self {
            Self::Http { url, .. } | Self::Sse { url, .. } => Some(url),
            Self::Unsupported { url, .. } => url.as_deref(),
            Self::Stdio { .. } => None,
        }
    }

    /// How it is reached, in one line (`npx -y server --flag`, `http https://...`).
    pub fn summary(&self) -> String {
        match self {
            Self::Stdio { command, args, .. } => std::iter::once(command.as_str())
                .chain(args.iter().map(String::as_str))
                .collect::<Vec<_>>()
                .join(" "),
            Self::Http { url, .. } => format!("http {url}"),
            Self::Sse { url, .. } => format!("sse {url}"),
            Self::Unsupported { kind, url } => match url {
                Some(url) => format!("{kind} {url}"),
                None => kind.clone(),
            },
        }
    }
}

/// Where a server's configuration came from: its scope and file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpConfigSource {
    /// The project's `.mcp.json` (used only when settings approve the server).
    ProjectFile(PathBuf),
    /// A `--mcp-config FILE` given on the command line (always used).
    CliFile(PathBuf),
    /// `mcpServers` in the user's settings (every project; personal, so always used).
    UserSettings(PathBuf),
    /// `mcpServers` in the project's local settings (personal, so always used).
    LocalSettings(PathBuf),
}

impl McpConfigSource {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            Self::ProjectFile(p) | Self::CliFile(p) | Self::UserSettings(p) | Self::LocalSettings(p) => p,
        }
    }

    /// The scope's name, as `nerve mcp add --scope` spells it (`cli` for `--mcp-config`).
    pub fn scope(&self) -> &'static str {
        match self {
            Self::ProjectFile(_) => "project",
            Self::CliFile(_) => "cli",
            Self::UserSettings(_) => "user",
            Self::LocalSettings(_) => "local",
        }
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpServerConfig {
    /// The name as written in `mcpServers`.
    pub name: String,
    /// How to reach it.
    pub transport: McpTransport,
    /// The file it came from.
    pub source: McpConfigSource,
}

/// Why an MCP configuration file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum McpConfigError {
    /// The file could not be read.
    #[error("could not read MCP config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid JSON or not shaped like `{"mcpServers": {...}}`.
    #[error(
        "MCP config file {path}:{line}:{column} is invalid: {message}. Expected \
         {{\"mcpServers\": {{\"name\": {{\"command\": \"...\", \"args\": [...], \"env\": {{...}}}}}}}}"
    )]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What was wrong.
        message: String,
    },
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawFile {
    mcp_servers: BTreeMap<String, RawServerFields>,
}

/// A settings file, where `mcpServers` is optional.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawSettingsFile {
    #[serde(default)]
    mcp_servers: BTreeMap<String, RawServerFields>,
}

/// One server entry. Keys Nerve does not use (`oauth`, `timeout`...) are ignored, as Claude Code's
/// own files may carry them.
#[derive(Deserialize)]
struct RawServerFields {
    #[serde(rename = "type")]
    kind: Option<String>,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, String>,
}

/// What is wrong with one server's entry (the file and position are added by its caller).
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
enum ServerEntryError {
    #[error("a stdio server needs a non-empty \"command\"")]
    NoCommand,
    #[error("an {kind} server needs a \"url\"")]
    NoUrl { kind: &'static str },
    #[error("unknown server \"type\" {kind:?}; use \"stdio\" (the default), \"http\", \"sse\" or \"ws\"")]
    UnknownType { kind: String },
}

impl RawServerFields {
    fn into_transport(self) -> Result<McpTransport, ServerEntryError> {
        match self.kind.as_deref().unwrap_or("stdio") {
            "stdio" => {
                let command = self
                    .command
                    .filter(|c| !c.trim().is_empty())
                    .ok_or(ServerEntryError::NoCommand)?;
                Ok(McpTransport::Stdio {
                    command,
                    args: self.args,
                    env: self.env,
                })
            }
            kind @ ("http" | "sse" | "streamable-http") => {
                let kind = match kind {
                    "http" => "http",
                    "sse" => "sse",
                    _ => "streamable-http",
                };
                let url = self
                    .url
                    .filter(|u| !u.trim().is_empty())
                    .ok_or(ServerEntryError::NoUrl { kind })?;
                Ok(if kind == "sse" {
                    McpTransport::Sse {
                        url,
                        headers: self.headers,
                    }
                } else {
                    McpTransport::Http {
                        url,
                        headers: self.headers,
                    }
                })
            }
            "ws" => Ok(McpTransport::Unsupported {
                kind: "ws".to_string(),
                url: self.url,
            }),
            other => Err(ServerEntryError::UnknownType {
                kind: other.to_string(),
            }),
        }
    }
}

/// 1-based line and column of the server's key in `text` (where the user should look), or of the
/// start of the file if the key cannot be found as written.
fn key_position(text: &str, name: &str) -> (usize, usize) {
    let key = serde_json::to_string(name).unwrap_or_default();
    let offset = text
        .find(&format!("{key}:"))
        .or_else(|| text.find(&key))
        .unwrap_or(0);
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

/// Expands `${VAR}` and `${VAR:-default}` from `lookup`; an unset variable without a default
/// becomes empty (Claude Code warns and does the same).
pub fn expand_env(text: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(":-") {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match (lookup(name), default) {
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {}
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn expand_transport(t: McpTransport, lookup: &dyn Fn(&str) -> Option<String>) -> McpTransport {
    match t {
        McpTransport::Stdio { command, args, env } => McpTransport::Stdio {
            command: expand_env(&command, lookup),
            args: args.iter().map(|a| expand_env(a, lookup)).collect(),
            env: expand_values(env, lookup),
        },
        McpTransport::Http { url, headers } => McpTransport::Http {
            url: expand_env(&url, lookup),
            headers: expand_values(headers, lookup),
        },
        McpTransport::Sse { url, headers } => McpTransport::Sse {
            url: expand_env(&url, lookup),
            headers: expand_values(headers, lookup),
        },
        McpTransport::Unsupported { kind, url } => McpTransport::Unsupported {
            kind,
            url: url.map(|u| expand_env(&u, lookup)),
        },
    }
}

fn expand_values(
    map: BTreeMap<String, String>,
    lookup: &dyn Fn(&str) -> Option<String>,
) -> BTreeMap<String, String> {
    map.into_iter()
        .map(|(k, v)| (k, expand_env(&v, lookup)))
        .collect()
}

/// Parses the text of an MCP config file (for settings files, of their `mcpServers`, which may be
/// absent).
pub fn parse_config(text: &str, source: McpConfigSource) -> Result<Vec<McpServerConfig>, McpConfigError> {
    parse_config_with(text, source, true)
}

/// Reads an MCP config file as written, `${VAR}`s unexpanded (what an editor shows and writes
/// back: an expanded secret must never land in a file); `Ok(None)` if it does not exist.
pub fn load_raw_config(source: McpConfigSource) -> Result<Option<Vec<McpServerConfig>>, McpConfigError> {
    load_with(source, false)
}

/// The servers of an `mcpServers` object written by another program (Claude Code's or Claude
/// Desktop's configuration), each with its transport as written or why it cannot be used.
pub fn foreign_servers(servers: &serde_json::Value) -> Vec<(String, Result<McpTransport, String>)> {
    let Some(map) = servers.as_object() else {
        return Vec::new();
    };
    map.iter()
        .map(|(name, entry)| {
            let transport = serde_json::from_value::<RawServerFields>(entry.clone())
                .map_err(|e| format!("not a server entry: {e}"))
                .and_then(|raw| raw.into_transport().map_err(|e| e.to_string()));
            (name.clone(), transport)
        })
        .collect()
}

fn parse_config_with(
    text: &str,
    source: McpConfigSource,
    expand: bool,
) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let invalid = |e: serde_json::Error| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        McpConfigError::Invalid {
            path: source.path().to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
        }
    };
    let servers = match source {
        McpConfigSource::ProjectFile(_) | McpConfigSource::CliFile(_) => {
            serde_json::from_str::<RawFile>(text)
                .map_err(invalid)?
                .mcp_servers
        }
        McpConfigSource::UserSettings(_) | McpConfigSource::LocalSettings(_) if text.trim().is_empty() => {
            BTreeMap::new()
        }
        McpConfigSource::UserSettings(_) | McpConfigSource::LocalSettings(_) => {
            serde_json::from_str::<RawSettingsFile>(text)
                .map_err(invalid)?
                .mcp_servers
        }
    };
    let lookup = |name: &str| std::env::var(name).ok();
    servers
        .into_iter()
        .map(|(name, server)| {
            let transport = server.into_transport().map_err(|problem| {
                let (line, column) = key_position(text, &name);
                McpConfigError::Invalid {
                    path: source.path().to_path_buf(),
                    line,
                    column,
                    message: format!("server \"{name}\": {problem}"),
                }
            })?;
            Ok(McpServerConfig {
                name,
                transport: if expand {
                    expand_transport(transport, &lookup)
                } else {
                    transport
                },
                source: source.clone(),
            })
        })
        .collect()
}

/// Reads and parses an MCP config file; `Ok(None)` if it does not exist.
pub fn load_config(source: McpConfigSource) -> Result<Option<Vec<McpServerConfig>>, McpConfigError> {
    load_with(source, true)
}

fn load_with(source: McpConfigSource, expand: bool) -> Result<Option<Vec<McpServerConfig>>, McpConfigError> {
    match std::fs::read_to_string(source.path()) {
        Ok(text) => parse_config_with(&text, source, expand).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        // A folder in the file's place is the sandbox's placeholder for a missing `.mcp.json`
        // (left behind when its helper was killed before it could remove it): no file.
        Err(e) if e.kind() == std::io::ErrorKind::IsADirectory => Ok(None),
        Err(e) => Err(McpConfigError::Read {
            path: source.path().to_path_buf(),
            source: e,
        }),
    }
}

/// The files servers are configured in, besides `--mcp-config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfigFiles {
    /// The user's settings file (`~/.config/nerve/settings.json`), if known.
    pub user_settings: Option<PathBuf>,
    /// The project's `.mcp.json`.
    pub project_file: PathBuf,
    /// The project's local settings (`.nerve/settings.local.json`).
    pub local_settings: PathBuf,
}

impl McpConfigFiles {
    /// The files of the project at `project_dir`, with the user's settings file.
    pub fn new(project_dir: &Path, user_settings: Option<PathBuf>) -> Self {
        Self {
            user_settings,
            project_file: project_dir.join(".mcp.json"),
            local_settings: project_dir.join(".nerve").join("settings.local.json"),
        }
    }

    /// The file of `scope` (`user`, `project`, `local`).
    pub fn source(&self, scope: &str) -> Option<McpConfigSource> {
        match scope {
            "user" => self.user_settings.clone().map(McpConfigSource::UserSettings),
            "project" => Some(McpConfigSource::ProjectFile(self.project_file.clone())),
            "local" => Some(McpConfigSource::LocalSettings(self.local_settings.clone())),
            _ => None,
        }
    }

    /// Every configured server, scope by scope from the lowest precedence (user, project, local),
    /// unapproved project servers included.
    pub fn all_servers(&self) -> Result<Vec<McpServerConfig>, McpConfigError> {
        let mut all = Vec::new();
        for scope in ["user", "project", "local"] {
            if let Some(source) = self.source(scope) {
                all.extend(load_config(source)?.unwrap_or_default());
            }
        }
        Ok(all)
    }
}

/// The servers a session uses, by precedence as in Claude Code (a later scope's server replaces an
/// earlier one of the same name): the user's, the project's `.mcp.json` ones the settings approve,
/// the project-local ones, then every `--mcp-config` file in order. A missing `--mcp-config` file
/// is an error; a missing settings file or `.mcp.json` is not.
///
/// Unapproved `.mcp.json` servers are returned in the second list so a front-end can say how to
/// enable them. They are never started: a repository's `.mcp.json` runs commands, and cloning a
/// repository must not be enough to run them.
pub fn collect_servers(
    files: &McpConfigFiles,
    approval: &ProjectServerApproval,
    cli_files: &[PathBuf],
) -> Result<(Vec<McpServerConfig>, Vec<String>), McpConfigError> {
    let mut servers: Vec<McpServerConfig> = Vec::new();
    let mut unapproved = Vec::new();
    for s in files.all_servers()? {
        if approval.disabled.contains(&s.name) {
            // Switched off by the user: not started, and not waiting for an approval either.
            servers.retain(|old| old.name != s.name);
            unapproved.retain(|old| old != &s.name);
            continue;
        }
        if matches!(s.source, McpConfigSource::ProjectFile(_)) && !approval.approves(&s.name) {
            unapproved.push(s.name);
            continue;
        }
        servers.retain(|old| old.name != s.name);
        unapproved.retain(|old| old != &s.name);
        servers.push(s);
    }
    for path in cli_files {
        let source = McpConfigSource::CliFile(path.clone());
        let loaded = load_config(source)?.ok_or_else(|| McpConfigError::Read {
            path: path.clone(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such file"),
        })?;
        for s in loaded {
            servers.retain(|old| old.name != s.name);
            servers.push(s);
        }
    }
    Ok((servers, unapproved))
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn cli() -> McpConfigSource {
        McpConfigSource::CliFile(PathBuf::from("/tmp/mcp.json"))
    }

    #[test]
    fn parses_a_stdio_server_with_defaults() {
        let servers =
            parse_config(r#"{"mcpServers": {"t": {"command": "srv", "other": 1}}}"#, cli()).unwrap();
        assert_eq!(
            servers,
            vec![McpServerConfig {
                name: "t".into(),
                transport: McpTransport::Stdio {
                    command: "srv".into(),
                    args: vec![],
                    env: BTreeMap::new()
                },
                source: cli(),
            }]
        );
    }

    #[test]
    fn remote_servers_take_a_url_and_headers_with_variables() {
        let servers = parse_config(
            r#"{"mcpServers": {
                "h": {"type": "http", "url": "https://x/mcp", "headers": {"Authorization": "Bearer ${NERVE_TEST_NO_SUCH_TOKEN:-t0k}"}},
                "s": {"type": "sse", "url": "http://127.0.0.1:9/sse"},
                "w": {"type": "ws", "url": "wss://x"}}}"#,
            cli(),
        )
        .unwrap();
        let transports: Vec<_> = servers.into_iter().map(|s| s.transport).collect();
        assert_eq!(
            transports,
            vec![
                McpTransport::Http {
                    url: "https://x/mcp".into(),
                    headers: BTreeMap::from([("Authorization".into(), "Bearer t0k".into())]),
                },
                McpTransport::Sse {
                    url: "http://127.0.0.1:9/sse".into(),
                    headers: BTreeMap::new(),
                },
                McpTransport::Unsupported {
                    kind: "ws".into(),
                    url: Some("wss://x".into())
                },
            ]
        );
        let err = parse_config(r#"{"mcpServers": {"h": {"type": "http"}}}"#, cli()).unwrap_err();
        assert!(
            err.to_string()
                .contains("server \"h\": an http server needs a \"url\""),
            "{err}"
        );
    }

    #[test]
    fn personal_scopes_need_no_approval_and_local_wins() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user-settings.json");
        std::fs::write(
            &user,
            r#"{"permissions": {}, "mcpServers": {"u": {"command": "u1"}, "both": {"command": "from-user"}}}"#,
        )
        .unwrap();
        std::fs::create_dir_all(dir.path().join(".nerve")).unwrap();
        std::fs::write(
            dir.path().join(".nerve/settings.local.json"),
            r#"{"mcpServers": {"both": {"type": "http", "url": "http://127.0.0.1:1/mcp"}}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.path().join(".mcp.json"),
            r#"{"mcpServers": {"both": {"command": "from-project"}, "p": {"command": "p1"}}}"#,
        )
        .unwrap();
        let files = McpConfigFiles::new(dir.path(), Some(user.clone()));
        let (servers, unapproved) = collect_servers(&files, &ProjectServerApproval::default(), &[]).unwrap();
        let listed: Vec<(String, &str, String)> = servers
            .iter()
            .map(|s| (s.name.clone(), s.source.scope(), s.transport.summary()))
            .collect();
        assert_eq!(
            listed,
            vec![
                ("u".to_string(), "user", "u1".to_string()),
                (
                    "both".to_string(),
                    "local",
                    "http http://127.0.0.1:1/mcp".to_string()
                ),
            ]
        );
        assert_eq!(unapproved, vec!["p"]);
        // A settings file without `mcpServers`, or empty, configures nothing.
        std::fs::write(&user, "").unwrap();
        assert_eq!(
            load_config(McpConfigSource::UserSettings(user)).unwrap(),
            Some(vec![])
        );
    }

    #[test]
    fn errors_name_the_file_and_position() {
        let err = parse_config("{\"mcpServers\": {\n  \"t\": {\"args\": []}\n}}", cli()).unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("MCP config file /tmp/mcp.json:2:3 "), "{text}");
        assert!(
            text.contains("server \"t\": a stdio server needs a non-empty \"command\""),
            "{text}"
        );

        let err = parse_config(
            r#"{"mcpServers": {"t": {"type": "pipe", "command": "x"}}}"#,
            cli(),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("unknown server \"type\" \"pipe\""),
            "{err}"
        );

        let err = parse_config(r#"{"servers": {}}"#, cli()).unwrap_err();
        assert!(err.to_string().contains("missing field `mcpServers`"), "{err}");

        let err = parse_config("{not json", cli()).unwrap_err();
        assert!(err.to_string().contains("/tmp/mcp.json:1:2"), "{err}");
    }

    #[test]
    fn expands_variables_with_defaults() {
        let lookup = |n: &str| (n == "HOME_DIR").then(|| "/home/u".to_string());
        assert_eq!(expand_env("${HOME_DIR}/x", &lookup), "/home/u/x");
        assert_eq!(expand_env("${MISSING:-dflt}-${MISSING}", &lookup), "dflt-");
        assert_eq!(expand_env("no vars, ${unclosed", &lookup), "no vars, ${unclosed");
    }

    #[test]
    fn project_servers_need_approval_and_cli_files_win() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join(".mcp.json"),
            r#"{"mcpServers": {"a": {"command": "a1"}, "b": {"command": "b1"}}}"#,
        )
        .unwrap();
        let cli_file = dir.path().join("cli.json");
        std::fs::write(&cli_file, r#"{"mcpServers": {"a": {"command": "a2"}}}"#).unwrap();

        let (servers, unapproved) = collect_servers(
            &McpConfigFiles::new(dir.path(), None),
            &ProjectServerApproval::default(),
            &[],
        )
        .unwrap();
        assert!(servers.is_empty());
        assert_eq!(unapproved, vec!["a", "b"]);

        let approval = ProjectServerApproval {
            all: false,
            names: vec!["a".into()],
            disabled: Vec::new(),
        };
        let (servers, unapproved) = collect_servers(
            &McpConfigFiles::new(dir.path(), None),
            &approval,
            std::slice::from_ref(&cli_file),
        )
        .unwrap();
        assert_eq!(unapproved, vec!["b"]);
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].source, McpConfigSource::CliFile(cli_file));

        let all = ProjectServerApproval {
            all: true,
            names: vec![],
            disabled: Vec::new(),
        };
        let (servers, _) = collect_servers(&McpConfigFiles::new(dir.path(), None), &all, &[]).unwrap();
        assert_eq!(servers.len(), 2);
        // A server the user switched off is neither started nor waiting for approval.
        let off = ProjectServerApproval {
            disabled: vec!["a".into()],
            ..all.clone()
        };
        let (servers, unapproved) =
            collect_servers(&McpConfigFiles::new(dir.path(), None), &off, &[]).unwrap();
        assert_eq!(
            (
                servers.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
                unapproved
            ),
            (vec!["b"], Vec::<String>::new())
        );

        let missing = dir.path().join("nope.json");
        let err = collect_servers(&McpConfigFiles::new(dir.path(), None), &all, &[missing]).unwrap_err();
        assert!(err.to_string().contains("nope.json"), "{err}");
    }
}
