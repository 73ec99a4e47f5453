//! `nerve -p PROMPT`: one headless turn. Permission prompts cannot be shown, so calls resolve by
//! rules and mode; what would ask is denied and listed in the result, unless
//! `--permission-prompt-tool` names an MCP tool that answers instead.
//!
//! MCP servers come from `--mcp-config FILE` (always started) and the project's `.mcp.json` (only
//! the servers the settings approve); a server that fails to start is reported on stderr and the
//! turn runs without it. Every server is shut down before the process exits.

use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::exit::Exit;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use nerve::Session;
use nerve::project::{Project, ProjectOptions};
use nerve::session::{Asker, Effort, EventSink, Message, ModelServer, Role, SessionOptions};
use nerve::settings::SettingsFile;
use nerve_protocol::{Event, PermissionMode, RuleBehavior, RuleSource, TurnEnd};
use serde_json::{Value, json};

/// How `-p` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    /// The final answer's text.
    Text,
    /// One JSON result object.
    Json,
    /// One JSON object per line as things happen (Claude Code's stream-json events).
    StreamJson,
}

/// Options of `-p`.
#[derive(Args, Clone, Debug)]
pub struct PrintArgs {
    /// Run one prompt headlessly and print the answer.
    #[arg(short = 'p', long = "print", value_name = "PROMPT")]
    pub prompt: Option<String>,
    /// The project folder.
    #[arg(long, default_value = ".")]
    pub cwd: PathBuf,
    /// The permission mode.
    #[arg(long = "permission-mode")]
    pub permission_mode: Option<PermissionMode>,
    /// Allow rules, comma or space separated (`"Bash(git *),Read"`).
    #[arg(long = "allowedTools", num_args = 1.., value_delimiter = ',')]
    pub allowed_tools: Vec<String>,
    /// Deny rules; a bare tool name removes the tool.
    #[arg(long = "disallowedTools", num_args = 1.., value_delimiter = ',')]
    pub disallowed_tools: Vec<String>,
    /// The model id (default claude-opus-4-8, or NERVE_MODEL).
    #[arg(long)]
    pub model: Option<String>,
    /// How hard the model thinks before it answers: off (the default), low, medium or high (an
    /// extended-thinking budget of 4,000, 10,000 or 24,000 tokens).
    #[arg(long, value_parser = parse_effort)]
    pub effort: Option<Effort>,
    /// The fast model for side jobs and the auto-mode classifier (default claude-haiku-4-5, or
    /// NERVE_FAST_MODEL).
    #[arg(long = "fast-model")]
    pub fast_model: Option<String>,
    /// The API's base URL (overrides ANTHROPIC_BASE_URL).
    #[arg(long = "base-url")]
    pub base_url: Option<String>,
    /// The API the model server speaks: anthropic (the Messages API, the default), openai-chat
    /// (Chat Completions: vLLM, LM Studio, llama.cpp, Ollama's /v1, OpenAI) or openai-responses
    /// (OpenAI's Responses API); overrides NERVE_PROVIDER. The OpenAI APIs' key: OPENAI_API_KEY, or
    /// `nerve auth set --provider openai-chat`.
    #[arg(long, value_parser = parse_provider)]
    pub provider: Option<nerve::session::ModelProvider>,
    /// Most model calls in the turn.
    #[arg(long = "max-turns")]
    pub max_turns: Option<u32>,
    /// Continue the session with this id.
    #[arg(long)]
    pub resume: Option<String>,
    /// An extra settings file (its rules count as command-line rules).
    #[arg(long)]
    pub settings: Option<PathBuf>,
    /// Output format.
    #[arg(long = "output-format", value_enum, default_value = "text")]
    pub output_format: OutputFormat,
    /// With stream-json: also print every engine event.
    #[arg(long)]
    pub verbose: bool,
    /// An MCP config file (`{"mcpServers": {...}}`, Claude Code's shape); repeatable. Its servers
    /// start whatever the settings say.
    #[arg(long = "mcp-config", value_name = "FILE")]
    pub mcp_config: Vec<PathBuf>,
    /// An MCP tool (`mcp__server__tool`) that answers permission questions instead of denying them.
    #[arg(long = "permission-prompt-tool", value_name = "NAME")]
    pub permission_prompt_tool: Option<String>,
    /// Work in a git worktree of its own, on a new branch `nerve/<prompt>` (land it with `nerve
    /// worktree apply SESSION`). A resumed session that has a worktree works there anyway.
    #[arg(long)]
    pub worktree: bool,
    /// The branch, tag or commit the worktree starts from (default: the checkout's HEAD).
    #[arg(long = "worktree-base", value_name = "REF", requires = "worktree")]
    pub worktree_base: Option<String>,
}

fn split_rules(list: &[String]) -> Vec<String> {
    // `--allowedTools "Bash(git *) Read"` also works: split on spaces outside parentheses.
    let mut out = Vec::new();
    for item in list {
        let mut depth = 0i32;
        let mut cur = String::new();
        for c in item.chars() {
            match c {
                '(' => depth += 1,
                ')' => depth -= 1,
                _ => {}
            }
            if c.is_whitespace() && depth == 0 {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            } else {
                cur.push(c);
            }
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

/// Prints lines of stream-json without interleaving.
#[derive(Clone)]
struct LinePrinter(Arc<Mutex<std::io::Stdout>>);

impl LinePrinter {
    fn print(&self, value: &Value) {
        let guard = self.0.lock();
        if let Ok(mut out) = guard {
            let _ = writeln!(out, "{value}");
            let _ = out.flush();
        }
    }
}

/// Runs `-p`.
pub async fn run(args: PrintArgs, prompt: String) -> Result<Exit> {
    let started = Instant::now();
    let mut options = ProjectOptions::new(&args.cwd);
    options.mode = args.permission_mode;
    options.cli_rules.extend(
        split_rules(&args.allowed_tools)
            .into_iter()
            .map(|r| (RuleBehavior::Allow, r)),
    );
    options.cli_rules.extend(
        split_rules(&args.disallowed_tools)
            .into_iter()
            .map(|r| (RuleBehavior::Deny, r)),
    );
    if let Some(path) = &args.settings {
        let file = SettingsFile::load(RuleSource::CliArg, path)?
            .with_context(|| format!("settings file {} does not exist", path.display()))?;
        for behavior in [RuleBehavior::Allow, RuleBehavior::Ask, RuleBehavior::Deny] {
            options.cli_rules.extend(
                file.permissions
                    .rules(behavior)
                    .iter()
                    .map(|r| (behavior, r.to_string())),
            );
        }
    }
    let project = Project::open(options).context("could not open the project")?;

    let printer = LinePrinter(Arc::new(Mutex::new(std::io::stdout())));
    let stream_json = args.output_format == OutputFormat::StreamJson;
    let session_id = args
        .resume
        .clone()
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let events = {
        let printer = printer.clone();
        let verbose = args.verbose;
        let session_id = session_id.clone();
        EventSink::new(move |e: Event| {
            if !stream_json {
                return;
            }
            match &e {
                // Printed as the API has them, by the agent's message observer (below).
                Event::AssistantMessage { .. } | Event::UserMessage { .. } => {}
                _ if verbose => {
                    if let Ok(v) = serde_json::to_value(&e) {
                        printer.print(&json!({"type": "nerve_event", "event": v, "session_id": session_id}));
                    }
                }
                _ => {}
            }
        })
    };

    let mut options = SessionOptions::new(events.clone());
    options.resume = args.resume.clone();
    options.session_id = Some(session_id);
    options.model = args.model.clone();
    options.effort = args.effort;
    options.fast_model = args.fast_model.clone();
    options.server = ModelServer::Configured {
        base_url: args.base_url.clone(),
        custom_headers: None,
        provider: args.provider,
    };
    options.mcp_config_files = args.mcp_config.clone();
    // With a prompt tool, asks go to it; without, nobody can be asked and asks are denied.
    options.asker = match &args.permission_prompt_tool {
        Some(name) => Asker::McpTool(name.clone()),
        None => Asker::Nobody,
    };
    options.max_turns = args.max_turns;
    if args.worktree {
        options.worktree = Some(nerve_protocol::workspace::NewWorktree {
            base: args.worktree_base.clone(),
            name: Some(prompt.clone()),
        });
    }
    let session = Arc::new(Session::start(project, options).await?);
    // A resumed session goes on with the model and effort last chosen in it; those given here
    // are a new choice.
    if args.resume.is_some() {
        if let Some(model) = &args.model {
            session.set_model(model)?;
        }
        if let Some(effort) = args.effort {
            session.set_effort(effort);
        }
    }
    if let Some(w) = session.worktree() {
        eprintln!(
            "note: working in the worktree {} on branch {} (land it with `nerve worktree apply {}`)",
            w.path.display(),
            w.branch,
            session.id()
        );
    }
    if stream_json {
        let printer = printer.clone();
        let session_id = session.id().to_string();
        session.observe_messages(Box::new(move |message: &Message| {
            let kind = match message.role {
                Role::User => "user",
                Role::Assistant => "assistant",
            };
            printer.print(&json!({"type": kind, "message": message, "session_id": session_id}));
        }))?;
    }
    for name in session.unapproved_mcp_servers() {
        eprintln!(
            "note: MCP server `{name}` from .mcp.json is not started: approve it with \
             \"enabledMcpjsonServers\": [\"{name}\"] (or \"enableAllProjectMcpServers\": true) in \
             .nerve/settings.local.json"
        );
    }
    for w in session.warnings() {
        eprintln!("warning: {w}");
    }
    let outcome = turn(&args, prompt, started, &session, printer, events).await;
    // SessionEnd hooks run and MCP servers stop whether the turn succeeded or not.
    session.close().await;
    outcome
}

async fn turn(
    args: &PrintArgs,
    prompt: String,
    started: Instant,
    session: &Arc<Session>,
    printer: LinePrinter,
    events: EventSink,
) -> Result<Exit> {
    let stream_json = args.output_format == OutputFormat::StreamJson;
    if stream_json {
        let mcp_servers: Vec<Value> = session
            .mcp_servers()
            .into_iter()
            .map(|(name, state)| json!({"name": name, "status": <&str>::from(state)}))
            .collect();
        let mut init = json!({
            "type": "system", "subtype": "init", "session_id": session.id(),
            "cwd": session.project().dir(), "model": session.started_model(),
            "tools": session.tool_names(),
            "permissionMode": session.mode().map(PermissionMode::as_str),
            "mcp_servers": mcp_servers,
        });
        // Only a session in a worktree of its own says so: the rest is Claude Code's init event.
        if let (Some(worktree), Some(fields)) = (session.worktree(), init.as_object_mut()) {
            fields.insert("worktree".into(), json!(worktree));
        }
        printer.print(&init);
    }

    let on_signal = Arc::clone(session);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            on_signal.abort();
        }
    });
    // `/name args` runs the user's or the project's custom command and `/mcp__server__prompt args`
    // the server's prompt, as in Claude Code's -p.
    let outcome = session.send(&prompt, &[], events).await?;
    let is_error = !matches!(outcome.end, TurnEnd::EndTurn);
    let subtype = match outcome.end {
        TurnEnd::EndTurn => "success",
        TurnEnd::MaxTurns => "error_max_turns",
        TurnEnd::MaxTokens
        | TurnEnd::Aborted
        | TurnEnd::Interrupted
        | TurnEnd::StoppedByHook
        | TurnEnd::Refusal
        | TurnEnd::Error => "error_during_execution",
    };
    let result = json!({
        "type": "result",
        "subtype": subtype,
        "is_error": is_error,
        "duration_ms": started.elapsed().as_millis() as u64,
        "num_turns": outcome.model_calls,
        "result": outcome.final_text,
        "stop": outcome.end,
        "error": outcome.error,
        "session_id": session.id(),
        "total_cost_usd": outcome.session_cost_usd,
        "turn_cost_usd": outcome.turn_cost_usd,
        "usage": outcome.usage,
        "permission_denials": outcome.denials,
    });
    match args.output_format {
        OutputFormat::Text => {
            if let Some(e) = &outcome.error {
                eprintln!("error: {e}");
            }
            for d in &outcome.denials {
                eprintln!("denied: {} {}", d.tool_name, d.tool_input);
            }
            println!("{}", outcome.final_text);
        }
        OutputFormat::Json | OutputFormat::StreamJson => printer.print(&result),
    }
    Ok(Exit::failed_if(is_error))
}

/// `--effort`'s value: a level by name.
fn parse_provider(text: &str) -> Result<nerve::session::ModelProvider, String> {
    text.parse()
}

fn parse_effort(name: &str) -> Result<Effort, String> {
    Effort::named(name).ok_or_else(|| {
        let levels: Vec<&str> = Effort::ALL.iter().map(|e| e.name()).collect();
        format!(
            "`{name}` is not an effort level: use one of {}",
            levels.join(", ")
        )
    })
}
