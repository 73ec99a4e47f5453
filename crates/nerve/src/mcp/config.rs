//! MCP server configuration in Claude Code's shape:
//!
//! ```json
//! { "mcpServers": { "github": { "command": "npx", "args": ["-y", "server-github"],
//!                               "env": { "TOKEN": "${GITHUB_TOKEN}" } } } }
//! ```
//!
//! `type` defaults to `"stdio"`. `"http"`, `"sse"` and `"ws"` servers parse, but connecting to
//! them fails with a "not supported yet" report naming the server (the session goes on without
//! them). `${VAR}` and `${VAR:-default}` are expanded in `command`, `args`, `env` and `url`, as
//! Claude Code does.

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
    /// A remote transport (`http`, `sse`, `ws`) that Nerve does not speak yet.
    Unsupported {
        /// The `type` as written.
        kind: String,
        /// The URL, if given.
        url: Option<String>,
    },
}

/// Where a server's configuration came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum McpConfigSource {
    /// The project's `.mcp.json` (used only when settings approve the server).
    ProjectFile(PathBuf),
    /// A `--mcp-config FILE` given on the command line (always used).
    CliFile(PathBuf),
}

impl McpConfigSource {
    /// The file.
    pub fn path(&self) -> &Path {
        match self {
            Self::ProjectFile(p) | Self::CliFile(p) => p,
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

/// One server entry. Keys Nerve does not use (`headers`, `oauth`...) are ignored, as Claude Code's
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
}

impl RawServerFields {
    fn into_transport(self) -> Result<McpTransport, String> {
        match self.kind.as_deref().unwrap_or("stdio") {
            "stdio" => {
                let command = self
                    .command
                    .filter(|c| !c.trim().is_empty())
                    .ok_or("a stdio server needs a non-empty \"command\"")?;
                Ok(McpTransport::Stdio {
                    command,
                    args: self.args,
                    env: self.env,
                })
            }
            kind @ ("http" | "sse" | "ws") => Ok(McpTransport::Unsupported {
                kind: kind.to_string(),
                url: self.url,
            }),
            other => Err(format!(
                "unknown server \"type\" {other:?}; use \"stdio\" (the default), \"http\", \"sse\" or \"ws\""
            )),
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
            env: env
                .into_iter()
                .map(|(k, v)| (k, expand_env(&v, lookup)))
                .collect(),
        },
        McpTransport::Unsupported { kind, url } => McpTransport::Unsupported {
            kind,
            url: url.map(|u| expand_env(&u, lookup)),
        },
    }
}

/// Parses the text of an MCP config file.
pub fn parse_config(text: &str, source: McpConfigSource) -> Result<Vec<McpServerConfig>, McpConfigError> {
    let raw: RawFile = serde_json::from_str(text).map_err(|e| {
        let full = e.to_string();
        let suffix = format!(" at line {} column {}", e.line(), e.column());
        McpConfigError::Invalid {
            path: source.path().to_path_buf(),
            line: e.line(),
            column: e.column(),
            message: full.strip_suffix(&suffix).unwrap_or(&full).to_string(),
        }
    })?;
    let lookup = |name: &str| std::env::var(name).ok();
    raw.mcp_servers
        .into_iter()
        .map(|(name, server)| {
            let transport = server.into_transport().map_err(|message| {
                let (line, column) = key_position(text, &name);
                McpConfigError::Invalid {
                    path: source.path().to_path_buf(),
                    line,
                    column,
                    message: format!("server \"{name}\": {message}"),
                }
            })?;
            Ok(McpServerConfig {
                name,
                transport: expand_transport(transport, &lookup),
                source: source.clone(),
            })
        })
        .collect()
}

/// Reads and parses an MCP config file; `Ok(None)` if it does not exist.
pub fn load_config(source: McpConfigSource) -> Result<Option<Vec<McpServerConfig>>, McpConfigError> {
    match std::fs::read_to_string(source.path()) {
        Ok(text) => parse_config(&text, source).map(Some),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(McpConfigError::Read {
            path: source.path().to_path_buf(),
            source: e,
        }),
    }
}

/// Which of the project's `.mcp.json` servers the settings approve (`enableAllProjectMcpServers`,
/// `enabledMcpjsonServers`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectServerApproval {
    /// Every server in `.mcp.json` is approved.
    pub all: bool,
    /// These servers are approved by name.
    pub names: Vec<String>,
}

impl ProjectServerApproval {
    /// Whether `name` may start.
    pub fn approves(&self, name: &str) -> bool {
        self.all || self.names.iter().any(|n| n == name)
    }
}

/// The servers a session uses: the project's `.mcp.json` servers the settings approve, then every
/// `--mcp-config` file in order. A later file's server replaces an earlier one of the same name.
/// A missing `--mcp-config` file is an error; a missing `.mcp.json` is not.
///
/// Unapproved `.mcp.json` servers are returned in the second list so a front-end can say how to
/// enable them. They are never started: a repository's `.mcp.json` runs commands, and cloning a
/// repository must not be enough to run them.
pub fn collect_servers(
    project_dir: &Path,
    approval: &ProjectServerApproval,
    cli_files: &[PathBuf],
) -> Result<(Vec<McpServerConfig>, Vec<String>), McpConfigError> {
    let mut servers: Vec<McpServerConfig> = Vec::new();
    let mut unapproved = Vec::new();
    let project_file = McpConfigSource::ProjectFile(project_dir.join(".mcp.json"));
    for s in load_config(project_file)?.unwrap_or_default() {
        if approval.approves(&s.name) {
            servers.push(s);
        } else {
            unapproved.push(s.name);
        }
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
    fn remote_types_parse_as_unsupported() {
        let servers = parse_config(
            r#"{"mcpServers": {"r": {"type": "http", "url": "https://x/mcp"}}}"#,
            cli(),
        )
        .unwrap();
        assert_eq!(
            servers[0].transport,
            McpTransport::Unsupported {
                kind: "http".into(),
                url: Some("https://x/mcp".into())
            }
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

        let (servers, unapproved) =
            collect_servers(dir.path(), &ProjectServerApproval::default(), &[]).unwrap();
        assert!(servers.is_empty());
        assert_eq!(unapproved, vec!["a", "b"]);

        let approval = ProjectServerApproval {
            all: false,
            names: vec!["a".into()],
        };
        let (servers, unapproved) =
            collect_servers(dir.path(), &approval, std::slice::from_ref(&cli_file)).unwrap();
        assert_eq!(unapproved, vec!["b"]);
        assert_eq!(servers.len(), 1);
        assert_eq!(servers[0].source, McpConfigSource::CliFile(cli_file));

        let all = ProjectServerApproval {
            all: true,
            names: vec![],
        };
        let (servers, _) = collect_servers(dir.path(), &all, &[]).unwrap();
        assert_eq!(servers.len(), 2);

        let missing = dir.path().join("nope.json");
        let err = collect_servers(dir.path(), &all, &[missing]).unwrap_err();
        assert!(err.to_string().contains("nope.json"), "{err}");
    }
}
