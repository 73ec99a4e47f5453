//! `nerve`: the headless front-end of the engine.

mod acp;
mod auth;
mod definitions;
mod exit;
mod mcp;
mod memory;
mod outputs;
mod print;
mod rewind;
mod worktree;

use std::io::{BufRead, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{Context, Result, bail};
use async_trait::async_trait;
use clap::{Args, Parser, Subcommand};
use nerve::mcp::{McpManager, McpOptions};
use nerve::permissions::PermissionPrompter;
use nerve::pipeline::ToolCall;
use nerve::project::{Project, ProjectOptions, SessionSetup};
use nerve::registry::{PoolOptions, assemble_tool_pool, builtin_tools};
use nerve::session::EventSink;
use nerve_protocol::{Event, PermissionMode, PermissionRequest, RuleBehavior, RuleScope, UserAnswer};
use serde_json::{Value, json};

use crate::exit::Exit;

/// A command that either succeeds or returns an error.
fn done(_: ()) -> Exit {
    Exit::Success
}

#[derive(Parser)]
#[command(
    name = "nerve",
    version = env!("NERVE_VERSION"),
    about = "Nerve, a coding agent: the headless engine front-end",
    after_help = exit::EXIT_CODES_HELP
)]
#[command(args_conflicts_with_subcommands = true)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    print: print::PrintArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Print, as one JSON object, what the permission system decides about a tool call (nothing runs),
    /// and separately whether the tool would accept the input ("validation").
    CheckPermission {
        #[command(flatten)]
        common: CommonArgs,
        /// The tool name (any name, including MCP tools that are not installed).
        tool: String,
        /// The tool input as JSON.
        input_json: String,
    },
    /// Run one tool call through the full pipeline and print its result as JSON.
    RunTool {
        #[command(flatten)]
        common: CommonArgs,
        /// Approve every permission request once, without asking (deny rules still apply).
        #[arg(long)]
        yes: bool,
        /// Print engine events to stderr as JSON lines.
        #[arg(long)]
        verbose: bool,
        /// The tool name.
        tool: String,
        /// The tool input as JSON.
        input_json: String,
    },
    /// List the tools a session would offer the model, as JSON.
    Tools {
        #[command(flatten)]
        common: CommonArgs,
    },
    /// List the project's sessions (newest first, as JSON), search them, fork, rename or delete
    /// one, or print one as Markdown.
    Sessions {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        #[command(flatten)]
        action: SessionsAction,
    },
    /// Print what a session changed: every file's net diff with +/− counts, or one prompt's; with
    /// --git, what git sees (uncommitted, --staged, or against --base REF) in the project or in
    /// the session's worktree.
    Changes {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The session (required unless --git).
        #[arg(long, required_unless_present = "git")]
        session: Option<String>,
        /// Only what this prompt's turn changed (prompts are listed without it).
        #[arg(long, conflicts_with = "git")]
        turn: Option<u32>,
        /// What git sees instead of the session's checkpoints: uncommitted changes by default.
        #[arg(long)]
        git: bool,
        /// With --git: what is staged for the next commit.
        #[arg(long, requires = "git", conflicts_with = "base")]
        staged: bool,
        /// With --git: the work tree against where it forked from REF (for a session in a
        /// worktree, `--base` alone: its worktree's base).
        #[arg(long, requires = "git", value_name = "REF", num_args = 0..=1, default_missing_value = "")]
        base: Option<String>,
        /// Print the structured change set as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Go back to just before a prompt: put files back (--code), cut the conversation back
    /// (--conversation), or both (neither flag). Exits with 3 when some files were left as they are.
    Rewind(rewind::RewindArgs),
    /// Manage the API key in the OS keyring.
    Auth {
        #[command(subcommand)]
        action: auth::AuthCommand,
    },
    /// The project's persisted tool outputs: list, show, search, delete, disk usage.
    Outputs {
        #[command(subcommand)]
        action: outputs::OutputsCommand,
    },
    /// What the agent was asked to remember about this project: list, show, delete entries.
    Memory {
        #[command(subcommand)]
        action: memory::MemoryCommand,
    },
    /// Serve the Agent Client Protocol on stdin and stdout, for editors that host ACP agents (Zed,
    /// JetBrains, Neovim and Emacs clients); `ssh HOST nerve acp` runs sessions on another machine.
    Acp,
    /// List the sub-agent types the model can start (Claude Code's `.claude/agents/*.md`, the
    /// user's `~/.claude/agents/`, and `.nerve/agents/`, which take precedence); files that cannot
    /// be used are named with their line on stderr, and the exit code is 1.
    Agents {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// Print JSON: {agents, problems}.
        #[arg(long)]
        json: bool,
    },
    /// List the skills the model can load (`.claude/skills/<name>/SKILL.md`, the user's
    /// `~/.claude/skills/`, and `.nerve/skills/`); files that cannot be used are named with their
    /// line on stderr, and the exit code is 1.
    Skills {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// Print JSON: {skills, problems}.
        #[arg(long)]
        json: bool,
    },
    /// Print the shell completion script for `nerve` (bash, zsh, fish, elvish, powershell), e.g.
    /// `nerve completions bash > ~/.local/share/bash-completion/completions/nerve`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page nerve(1) in roff (the packages install it).
    #[command(hide = true)]
    ManPage,
    /// MCP servers: list with their status, show, add, remove, sign in and out.
    Mcp {
        #[command(subcommand)]
        action: mcp::McpCommand,
    },
    /// Send comments on a session's changes back to it as one review prompt (quoting each
    /// `FILE:LINE` as it is now), continuing the session as `-p --resume` does.
    Review {
        /// The project folder.
        #[arg(long, default_value = ".")]
        cwd: PathBuf,
        /// The session.
        #[arg(long)]
        session: String,
        /// A comment: `--comment src/a.rs:12 "text"` (or `FILE:12-14` for a range); repeatable.
        #[arg(long = "comment", num_args = 2, value_names = ["FILE:LINE", "TEXT"], required = true)]
        comments: Vec<String>,
        /// Print the review prompt instead of sending it.
        #[arg(long)]
        dry_run: bool,
        /// The permission mode the session continues in.
        #[arg(long = "permission-mode")]
        permission_mode: Option<PermissionMode>,
    },
    /// Sessions in worktrees of their own (`-p --worktree`): list, apply (land), discard, clean.
    Worktree {
        #[command(subcommand)]
        action: worktree::WorktreeCommand,
    },
}

#[derive(Args, Clone)]
struct CommonArgs {
    /// Read no settings file and run no hook.
    #[arg(long)]
    bare: bool,
    /// The project folder.
    #[arg(long, default_value = ".")]
    cwd: PathBuf,
    /// The permission mode (default, acceptEdits, plan, bypassPermissions, dontAsk, auto, bubble).
    #[arg(long)]
    mode: Option<PermissionMode>,
    /// An allow rule, e.g. 'Bash(git *)' (repeatable).
    #[arg(long = "allow")]
    allow: Vec<String>,
    /// An ask rule (repeatable).
    #[arg(long = "ask")]
    ask: Vec<String>,
    /// A deny rule (repeatable).
    #[arg(long = "deny")]
    deny: Vec<String>,
    /// Do not read Claude Code's .claude/settings*.json files.
    #[arg(long)]
    no_claude_settings: bool,
    /// An MCP config file whose servers' tools are added (repeatable); the project's `.mcp.json`
    /// servers are added when settings approve them.
    #[arg(long = "mcp-config", value_name = "FILE")]
    mcp_config: Vec<PathBuf>,
}

impl CommonArgs {
    fn open(&self) -> Result<Project> {
        let mut options = ProjectOptions::new(&self.cwd);
        options.bare = self.bare;
        options.mode = self.mode;
        options.read_claude_settings = !self.no_claude_settings;
        for (behavior, list) in [
            (RuleBehavior::Allow, &self.allow),
            (RuleBehavior::Ask, &self.ask),
            (RuleBehavior::Deny, &self.deny),
        ] {
            options
                .cli_rules
                .extend(list.iter().map(|r| (behavior, r.clone())));
        }
        Project::open(options).context("could not open the project")
    }
}

fn parse_input(text: &str) -> Result<Value> {
    serde_json::from_str(text).with_context(|| format!("INPUT_JSON is not valid JSON: {text}"))
}

fn pool_for(project: &Project, mcp: &McpManager) -> Result<nerve::registry::ToolPool> {
    let permissions = project.permission_context(true);
    Ok(assemble_tool_pool(
        builtin_tools(project.env()),
        mcp.tools(),
        &permissions,
        &PoolOptions::default(),
    )?)
}

/// Starts the MCP servers of `--mcp-config` and the approved `.mcp.json` ones; failures are
/// warnings on stderr. The caller shuts the manager down.
async fn connect_mcp(project: &Project, common: &CommonArgs) -> Result<McpManager> {
    if common.mcp_config.is_empty() && common.bare {
        return Ok(McpManager::default());
    }
    let (servers, _unapproved) = project.mcp_servers(&common.mcp_config)?;
    let mcp = McpManager::connect(
        &servers,
        project.dir(),
        &McpOptions::from_engine_env(project.env()),
        &EventSink::discard(),
    )
    .await;
    for failure in mcp.failures() {
        eprintln!("warning: {}", failure.message);
    }
    Ok(mcp)
}

async fn check_permission(common: CommonArgs, tool: String, input_json: String) -> Result<()> {
    let input = parse_input(&input_json)?;
    let project = common.open()?;
    let check = match nerve::settings_view::check_call(&project, &tool, input, Vec::new()).await {
        Ok(c) => c,
        Err(message) => bail!("{message}"),
    };
    let report = check.report;
    let rule = report.evaluation.rule.clone();
    let out = json!({
        "tool": report.tool,
        "known_tool": report.known_tool,
        "mode": check.mode.as_str(),
        "decision": report.evaluation.decision,
        "destructive": report.destructive,
        "reason": report.evaluation.reason,
        "decided_by": report.evaluation.decided_by,
        "rule": rule.as_ref().map(|r| r.rule.clone()),
        "source": rule.as_ref().map(|r| r.source.clone()),
        "read_only": report.read_only,
        "subcommands": report.evaluation.parts,
        "suggestions": report.evaluation.suggestions,
        "input": report.input,
        "validation": report.validation,
        "rule_warnings": check.rule_warnings,
        "sandbox": check.sandbox,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(())
}

/// Asks on the terminal: y = allow once, a = always allow (session), n = deny.
struct TerminalPrompter;

#[async_trait]
impl PermissionPrompter for TerminalPrompter {
    async fn ask(&self, request: PermissionRequest) -> UserAnswer {
        let answer = tokio::task::spawn_blocking(move || {
            let mut err = std::io::stderr();
            let _ = writeln!(
                err,
                "\n{} wants to run: {}",
                request.display_name, request.summary
            );
            let _ = writeln!(err, "  input: {}", request.input);
            let _ = writeln!(err, "  why asked: {}", request.reason);
            for p in &request.parts {
                let _ = writeln!(err, "  - {}: {:?}", p.part, p.decision);
            }
            if !request.suggestions.is_empty() {
                let _ = writeln!(
                    err,
                    "  'always allow' would add: {}",
                    request.suggestions.join(", ")
                );
            }
            let _ = write!(err, "Allow? [y]es once / [a]lways (this session) / [n]o: ");
            let _ = err.flush();
            let mut line = String::new();
            let _ = std::io::stdin().lock().read_line(&mut line);
            match line.trim().to_ascii_lowercase().as_str() {
                "y" | "yes" => UserAnswer::AllowOnce { updated_input: None },
                "a" | "always" => UserAnswer::AlwaysAllow {
                    rules: request.suggestions.clone(),
                    scope: RuleScope::Session,
                    updated_input: None,
                },
                _ => UserAnswer::Deny { message: None },
            }
        })
        .await;
        answer.unwrap_or(UserAnswer::Deny { message: None })
    }
}

/// Approves every request once (`--yes`).
struct YesPrompter;

#[async_trait]
impl PermissionPrompter for YesPrompter {
    async fn ask(&self, _request: PermissionRequest) -> UserAnswer {
        UserAnswer::AllowOnce { updated_input: None }
    }
}

async fn run_tool(
    common: CommonArgs,
    yes: bool,
    verbose: bool,
    tool: String,
    input_json: String,
) -> Result<Exit> {
    let input = parse_input(&input_json)?;
    let project = common.open()?;
    let prompter: Option<Arc<dyn PermissionPrompter>> = if yes {
        Some(Arc::new(YesPrompter))
    } else if std::io::stdin().is_terminal() {
        Some(Arc::new(TerminalPrompter))
    } else {
        None
    };
    let headless = prompter.is_none();
    let events = if verbose {
        EventSink::new(|e: Event| {
            if let Ok(line) = serde_json::to_string(&e) {
                eprintln!("{line}");
            }
        })
    } else {
        EventSink::discard()
    };
    let mcp = connect_mcp(&project, &common).await?;
    let pool = pool_for(&project, &mcp);
    let outcome = match pool {
        Ok(pool) => {
            let session = project.session(
                pool,
                SessionSetup {
                    prompter,
                    events,
                    headless,
                    ..SessionSetup::default()
                },
            );
            let call = ToolCall {
                id: format!("toolu_cli_{}", uuid::Uuid::new_v4().simple()),
                name: tool,
                input,
            };
            Ok(session.run_one(&call).await)
        }
        Err(e) => Err(e),
    };
    mcp.shutdown().await;
    let outcome = outcome?;
    let out = json!({
        "tool_use_id": outcome.tool_use_id,
        "tool": outcome.tool_name,
        "is_error": outcome.is_error,
        "denied": outcome.denied,
        "content": outcome.content,
        "display": outcome.display,
        "persisted_path": outcome.persisted_path,
        "new_messages": outcome.new_messages,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(Exit::failed_if(outcome.is_error))
}

async fn tools(common: CommonArgs) -> Result<()> {
    let project = common.open()?;
    let mcp = connect_mcp(&project, &common).await?;
    let pool = pool_for(&project, &mcp);
    mcp.shutdown().await;
    let pool = pool?;
    let specs: Vec<Value> = pool
        .specs()
        .into_iter()
        .map(|s| json!({"name": s.name, "description": s.description, "input_schema": s.input_schema, "deferred": s.deferred}))
        .collect();
    println!("{}", serde_json::to_string_pretty(&specs)?);
    Ok(())
}

/// What `nerve sessions` does besides listing (at most one of these).
#[derive(clap::Args, Debug)]
#[group(multiple = false)]
struct SessionsAction {
    /// Fork this session: print the new session's id (continue it with `-p ... --resume ID`).
    #[arg(long, value_name = "ID")]
    fork: Option<String>,
    /// Print this session as Markdown (prompts, answers, tool calls and their results).
    #[arg(long, value_name = "ID")]
    export: Option<String>,
    /// Search the project's sessions (titles, prompts, replies, tool inputs and results) in its
    /// full-text index: prints the best places as JSON (session, prompt number, call, snippet).
    #[arg(long, value_name = "TEXT")]
    search: Option<String>,
    /// Name a session: `--rename ID "new name"`.
    #[arg(long, num_args = 2, value_names = ["ID", "NAME"])]
    rename: Option<Vec<String>>,
    /// Delete a session for good (transcript, checkpoints, persisted outputs); prints what it freed.
    #[arg(long, value_name = "ID")]
    delete: Option<String>,
}

/// Most places `nerve sessions --search` prints.
const SEARCH_HITS: usize = 50;

fn sessions(cwd: PathBuf, action: SessionsAction) -> Result<()> {
    // Saved sessions do not depend on settings: a project whose settings are broken still lists them.
    let mut options = nerve::project::ProjectOptions::new(cwd);
    options.bare = true;
    let project = nerve::Project::open(options)?;
    let SessionsAction {
        fork,
        export,
        search,
        rename,
        delete,
    } = action;
    if let Some(id) = fork {
        println!("{}", project.fork(&id)?);
    } else if let Some(id) = export {
        print!("{}", project.markdown(&id)?);
    } else if let Some([id, name]) = rename.as_deref() {
        println!("{}", project.rename(id, name)?);
    } else if let Some(id) = delete {
        let deleted = project.delete(&id)?;
        println!(
            "deleted session {id}: {} persisted output(s), {} bytes freed",
            deleted.outputs, deleted.bytes
        );
        if let Some(branch) = deleted.kept_branch {
            println!("its worktree is removed; its work stays on branch {branch}");
        }
    } else if let Some(query) = search {
        let hits = project.search_sessions(&query, SEARCH_HITS)?;
        println!("{}", serde_json::to_string_pretty(&hits)?);
    } else {
        let listed = project.sessions("")?;
        println!("{}", serde_json::to_string_pretty(&listed)?);
    }
    Ok(())
}

/// The review prompt for `--comment FILE:LINE TEXT` pairs.
fn review_prompt(cwd: &Path, session: &str, pairs: &[String]) -> Result<String> {
    let mut comments = Vec::new();
    for pair in pairs.chunks(2) {
        let [place, text] = pair else {
            anyhow::bail!("--comment takes FILE:LINE and a text");
        };
        let Some((file, lines)) = place.rsplit_once(':') else {
            anyhow::bail!("`{place}` is not FILE:LINE");
        };
        let (first, last) = match lines.split_once('-') {
            Some((a, b)) => (a, Some(b)),
            None => (lines, None),
        };
        let line: u32 = first
            .parse()
            .with_context(|| format!("`{place}`: `{first}` is not a line number"))?;
        let end_line = last
            .map(|l| {
                l.parse::<u32>()
                    .with_context(|| format!("`{place}`: `{l}` is not a line number"))
            })
            .transpose()?;
        comments.push(nerve_protocol::checkpoint::ReviewComment {
            path: PathBuf::from(file),
            line,
            end_line,
            text: text.clone(),
        });
    }
    let mut options = nerve::project::ProjectOptions::new(cwd);
    options.bare = true;
    Ok(nerve::Project::open(options)?.review_prompt(session, &comments)?)
}

fn main() -> std::process::ExitCode {
    // Started as the Bash sandbox's helper: restrict, then become the command (never returns).
    nerve::sandbox::helper::run_if_asked();
    init_logging();
    let cli = Cli::parse();
    // An error is reported as its message and causes on one line: returning it from `main` would
    // print its Debug form, which carries a stack trace whenever RUST_BACKTRACE is set.
    match run(cli) {
        Ok(exit) => exit.into(),
        Err(error) => {
            eprintln!("error: {}", exit::error_line(&error));
            Exit::Failure.into()
        }
    }
}

/// Warnings and errors go to stderr unless `NERVE_LOG` says otherwise (`NERVE_LOG=debug`,
/// `NERVE_LOG=nerve::mcp=trace`); colour only on a terminal, and never with `NO_COLOR` set.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::builder()
        .with_default_directive(tracing_subscriber::filter::LevelFilter::WARN.into())
        .with_env_var("NERVE_LOG")
        .from_env_lossy();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour_on_stderr())
        .init();
}

/// Whether stderr gets colour: a terminal, and no `NO_COLOR` (https://no-color.org: set and not
/// empty).
fn colour_on_stderr() -> bool {
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    !no_color && std::io::stderr().is_terminal()
}

fn run(cli: Cli) -> Result<Exit> {
    let runtime = tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
    runtime.block_on(async {
        match cli.command {
            Some(Command::CheckPermission {
                common,
                tool,
                input_json,
            }) => check_permission(common, tool, input_json).await.map(done),
            Some(Command::RunTool {
                common,
                yes,
                verbose,
                tool,
                input_json,
            }) => run_tool(common, yes, verbose, tool, input_json).await,
            Some(Command::Tools { common }) => tools(common).await.map(done),
            Some(Command::Sessions { cwd, action }) => sessions(cwd, action).map(done),
            Some(Command::Changes {
                cwd,
                session,
                turn,
                git,
                staged,
                base,
                json,
            }) => match (git, session) {
                (true, session) => {
                    rewind::git_changes(&cwd, session.as_deref(), staged, base, json).map(done)
                }
                (false, Some(session)) => rewind::changes(&cwd, &session, turn, json).map(done),
                (false, None) => anyhow::bail!("--session is needed without --git"),
            },
            Some(Command::Rewind(args)) => rewind::rewind(args),
            Some(Command::Auth { action }) => auth::run(action),
            Some(Command::Outputs { action }) => outputs::run(action).map(done),
            Some(Command::Memory { action }) => memory::run(action).map(done),
            Some(Command::Acp) => acp::run().await.map(done),
            Some(Command::Agents { cwd, json }) => definitions::run(cwd, json, definitions::Listing::Agents),
            Some(Command::Skills { cwd, json }) => definitions::run(cwd, json, definitions::Listing::Skills),
            Some(Command::Mcp { action }) => mcp::run(action).await.map(done),
            Some(Command::Review {
                cwd,
                session,
                comments,
                dry_run,
                permission_mode,
            }) => {
                let prompt = review_prompt(&cwd, &session, &comments)?;
                if dry_run {
                    print!("{prompt}");
                    return Ok(Exit::Success);
                }
                let mut argv = vec!["nerve".to_string(), "--resume".into(), session, "--cwd".into()];
                argv.push(cwd.display().to_string());
                if let Some(mode) = permission_mode {
                    argv.extend(["--permission-mode".to_string(), mode.as_str().to_string()]);
                }
                let print = Cli::try_parse_from(argv)?.print;
                print::run(print, prompt).await
            }
            Some(Command::Worktree { action }) => worktree::run(action),
            Some(Command::Completions { shell }) => {
                use clap::CommandFactory;
                clap_complete::generate(shell, &mut Cli::command(), "nerve", &mut std::io::stdout());
                Ok(Exit::Success)
            }
            Some(Command::ManPage) => {
                use clap::CommandFactory;
                clap_mangen::Man::new(Cli::command())
                    .render(&mut std::io::stdout())
                    .context("could not write the man page")?;
                Ok(Exit::Success)
            }
            None => match cli.print.prompt.clone() {
                Some(prompt) => print::run(cli.print, prompt).await,
                None => {
                    use clap::CommandFactory;
                    Cli::command().print_help()?;
                    Ok(Exit::Success)
                }
            },
        }
    })
}
