//! `nerve mcp list|get|add|remove|login|logout`, in the shape of `claude mcp`: servers in three
//! scopes (local: `.nerve/settings.local.json`, project: `.mcp.json`, user:
//! `~/.config/nerve/settings.json`), stdio or http/sse, with env and headers.

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use nerve::mcp::McpTransport;
use nerve::project::{Project, ProjectOptions};
use nerve::settings_view::{self, McpServerStatus, McpServerView};

/// What `nerve mcp` does.
#[derive(Subcommand, Clone, Debug)]
pub enum McpCommand {
    /// Start every configured (and approved) server and print its status: connected with its
    /// tools, needs sign-in, failed with the error, or not approved.
    List {
        #[command(flatten)]
        project: ProjectArg,
        /// Print the servers as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Print one server's configuration and status.
    Get {
        #[command(flatten)]
        project: ProjectArg,
        /// The server's name.
        name: String,
    },
    /// Add a server: `nerve mcp add NAME -- COMMAND [ARGS...]` (stdio), or
    /// `nerve mcp add --transport http NAME URL`.
    Add {
        #[command(flatten)]
        project: ProjectArg,
        /// Where to write it: local (this project, only you), project (`.mcp.json`, shared) or
        /// user (all your projects).
        #[arg(long, short = 's', default_value = "local")]
        scope: String,
        /// stdio, http or sse.
        #[arg(long, short = 't', default_value = "stdio")]
        transport: String,
        /// An environment variable for a stdio server, KEY=VALUE (repeatable).
        #[arg(long = "env", short = 'e', value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A request header for an http or sse server, "Name: value" (repeatable).
        #[arg(long = "header", short = 'H', value_name = "NAME: VALUE")]
        headers: Vec<String>,
        /// The server's name.
        name: String,
        /// The command (stdio) or the URL (http, sse).
        command_or_url: String,
        /// The command's arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Remove a server (from --scope, or from the one scope that has it).
    Remove {
        #[command(flatten)]
        project: ProjectArg,
        /// The scope to remove it from.
        #[arg(long, short = 's')]
        scope: Option<String>,
        /// The server's name.
        name: String,
    },
    /// Sign in to a remote server with OAuth: opens the browser ($BROWSER, else xdg-open) and
    /// stores the token in the OS keyring.
    Login {
        #[command(flatten)]
        project: ProjectArg,
        /// The server's name.
        name: String,
    },
    /// Forget a remote server's stored sign-in.
    Logout {
        #[command(flatten)]
        project: ProjectArg,
        /// The server's name.
        name: String,
    },
    /// Switch a server off (later sessions do not start it), or with TOOL one of its tools (hidden
    /// from the model); written to the project's .nerve/settings.local.json, as the app does.
    Disable {
        #[command(flatten)]
        project: ProjectArg,
        /// The server's name.
        name: String,
        /// One of its tools (its short name, `echo`, or full name, `mcp__server__echo`).
        tool: Option<String>,
    },
    /// Switch a server, or one of its tools, back on.
    Enable {
        #[command(flatten)]
        project: ProjectArg,
        /// The server's name.
        name: String,
        /// One of its tools.
        tool: Option<String>,
    },
}

/// The project folder.
#[derive(Args, Clone, Debug)]
pub struct ProjectArg {
    /// The project folder.
    #[arg(long, default_value = ".")]
    cwd: PathBuf,
}

impl ProjectArg {
    fn open(&self) -> Result<Project> {
        Project::open(ProjectOptions::new(&self.cwd)).context("could not open the project")
    }
}

fn keyring_service() -> String {
    nerve::mcp::McpOptions::from_engine_env(&nerve::EngineEnv::process()).keyring_service
}

/// Runs a `nerve mcp` command.
pub async fn run(command: McpCommand) -> Result<()> {
    match command {
        McpCommand::List { project, json } => {
            let project = project.open()?;
            let views = probe(&project).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&views)?);
            } else if views.is_empty() {
                println!("No MCP servers are configured. Add one with `nerve mcp add`.");
            } else {
                println!("Checking MCP server health...\n");
                for view in &views {
                    println!("{}: {} - {}", view.name, view.transport, status_line(view));
                }
            }
        }
        McpCommand::Get { project, name } => {
            let project = project.open()?;
            let config = settings_view::find_mcp_server(project.dir(), project.locations(), &name)?;
            let views = probe(&project).await?;
            let view = views.iter().find(|v| v.name == name);
            println!("{name}:");
            println!(
                "  Scope: {} ({})",
                config.source.scope(),
                config.source.path().display()
            );
            print_transport(&config.transport);
            if let Some(view) = view {
                println!("  Status: {}", status_line(view));
                if let McpServerStatus::Connected { tools } = &view.status {
                    for tool in tools {
                        let off = if view.tools_off.contains(tool) {
                            " (off)"
                        } else {
                            ""
                        };
                        println!("    {tool}{off}");
                    }
                }
            }
            println!(
                "\nRemove it with `nerve mcp remove {name} -s {}`.",
                config.source.scope()
            );
        }
        McpCommand::Add {
            project,
            scope,
            transport,
            env,
            headers,
            name,
            command_or_url,
            args,
        } => {
            let project = project.open()?;
            let transport = transport_of(&transport, command_or_url, args, &env, &headers)?;
            let path =
                settings_view::add_mcp_server(project.dir(), project.locations(), &scope, &name, &transport)?;
            println!(
                "Added {} MCP server {name} to {scope} config: {}",
                kind(&transport),
                path.display()
            );
            if scope == "project" {
                println!(
                    "A .mcp.json server starts once approved: `nerve mcp list` shows it as not approved \
                     until you approve it in the app's MCP settings or in .nerve/settings.local.json."
                );
            }
        }
        McpCommand::Disable { project, name, tool } => {
            switch(&project.open()?, &name, tool.as_deref(), false)?
        }
        McpCommand::Enable { project, name, tool } => switch(&project.open()?, &name, tool.as_deref(), true)?,
        McpCommand::Remove { project, scope, name } => {
            let project = project.open()?;
            let path = settings_view::remove_mcp_server(
                project.dir(),
                project.locations(),
                scope.as_deref(),
                &name,
            )?;
            println!("Removed MCP server {name} from {}", path.display());
        }
        McpCommand::Login { project, name } => {
            let project = project.open()?;
            settings_view::mcp_login(
                project.dir(),
                project.locations(),
                &name,
                &keyring_service(),
                |url| {
                    println!(
                        "Opening the browser to sign in to {name}. If it does not open, visit:\n\n  {url}\n"
                    );
                    if let Err(e) = nerve::mcp::oauth::open_in_browser(url) {
                        eprintln!("warning: {e}");
                    }
                },
            )
            .await?;
            println!("Signed in to {name}; the token is stored in the OS keyring.");
        }
        McpCommand::Logout { project, name } => {
            let project = project.open()?;
            if settings_view::mcp_logout(project.dir(), project.locations(), &name, &keyring_service())
                .await?
            {
                println!("Signed out of {name}: its token was removed from the OS keyring.");
            } else {
                println!("No sign-in was stored for {name}.");
            }
        }
    }
    Ok(())
}

async fn probe(project: &Project) -> Result<Vec<McpServerView>> {
    Ok(settings_view::probe_mcp_servers(
        &nerve::EngineEnv::process(),
        project.dir(),
        project.locations(),
        project.reads_claude_settings(),
    )
    .await?)
}

/// `nerve mcp enable|disable NAME [TOOL]`: the server, or one of its tools, on or off.
fn switch(project: &Project, name: &str, tool: Option<&str>, enabled: bool) -> Result<()> {
    let word = if enabled { "on" } else { "off" };
    match tool {
        Some(tool) => {
            let full = if tool.starts_with("mcp__") {
                tool.to_string()
            } else {
                format!("mcp__{name}__{tool}")
            };
            let path =
                settings_view::set_mcp_tool_enabled(project.dir(), project.locations(), &full, enabled)?;
            println!("Switched {full} {word} in {}", path.display());
        }
        None => {
            let path = settings_view::set_mcp_server_enabled(project.dir(), name, enabled)?;
            println!("Switched MCP server {name} {word} in {}", path.display());
        }
    }
    Ok(())
}

fn status_line(view: &McpServerView) -> String {
    if !view.enabled {
        return format!("switched off (`nerve mcp enable {}`)", view.name);
    }
    match &view.status {
        McpServerStatus::Connected { tools } if !view.tools_off.is_empty() => format!(
            "✓ Connected ({} tools, {} switched off)",
            tools.len(),
            view.tools_off.len()
        ),
        McpServerStatus::Connected { tools } => format!("✓ Connected ({} tools)", tools.len()),
        McpServerStatus::NeedsSignIn { .. } => {
            format!("! Needs sign-in: run `nerve mcp login {}`", view.name)
        }
        McpServerStatus::Failed { error } => format!("✗ Failed: {error}"),
        McpServerStatus::NotApproved => {
            "not approved (a .mcp.json server starts once approved in your local settings)".to_string()
        }
        McpServerStatus::NotStarted => "not started".to_string(),
    }
}

fn kind(transport: &McpTransport) -> &'static str {
    match transport {
        McpTransport::Stdio { .. } => "stdio",
        McpTransport::Http { .. } => "http",
        McpTransport::Sse { .. } => "sse",
        McpTransport::Unsupported { .. } => "unsupported",
    }
}

fn print_transport(transport: &McpTransport) {
    println!("  Type: {}", kind(transport));
    match transport {
        McpTransport::Stdio { command, args, env } => {
            println!("  Command: {command}");
            println!("  Args: {}", args.join(" "));
            for key in env.keys() {
                // Values may be secrets: only the names are shown.
                println!("  Env: {key}=…");
            }
        }
        McpTransport::Http { url, headers } | McpTransport::Sse { url, headers } => {
            println!("  URL: {url}");
            for name in headers.keys() {
                println!("  Header: {name}: …");
            }
        }
        McpTransport::Unsupported { url, .. } => {
            if let Some(url) = url {
                println!("  URL: {url}");
            }
        }
    }
}

fn transport_of(
    kind: &str,
    command_or_url: String,
    args: Vec<String>,
    env: &[String],
    headers: &[String],
) -> Result<McpTransport> {
    match kind {
        "stdio" => {
            if !headers.is_empty() {
                bail!("--header is for http and sse servers; a stdio server takes --env");
            }
            let mut vars = BTreeMap::new();
            for pair in env {
                let (key, value) = pair
                    .split_once('=')
                    .with_context(|| format!("--env {pair:?} is not KEY=VALUE"))?;
                vars.insert(key.trim().to_string(), value.to_string());
            }
            Ok(McpTransport::Stdio {
                command: command_or_url,
                args,
                env: vars,
            })
        }
        "http" | "sse" => {
            if !env.is_empty() {
                bail!("--env is for stdio servers; an {kind} server takes --header");
            }
            if !args.is_empty() {
                bail!(
                    "an {kind} server takes one URL, not arguments ({})",
                    args.join(" ")
                );
            }
            let url = http_url(&command_or_url)?;
            let mut map = BTreeMap::new();
            for header in headers {
                let (name, value) = header
                    .split_once(':')
                    .with_context(|| format!("--header {header:?} is not \"Name: value\""))?;
                map.insert(name.trim().to_string(), value.trim().to_string());
            }
            Ok(if kind == "sse" {
                McpTransport::Sse { url, headers: map }
            } else {
                McpTransport::Http { url, headers: map }
            })
        }
        other => bail!("unknown transport {other:?}; use stdio, http or sse"),
    }
}

/// An http(s) URL, or an error saying what is wrong.
fn http_url(text: &str) -> Result<String> {
    let trimmed = text.trim();
    if !(trimmed.starts_with("http://") || trimmed.starts_with("https://"))
        || trimmed.len() <= "https://".len()
    {
        bail!("{text:?} is not an http:// or https:// URL");
    }
    Ok(trimmed.to_string())
}
