//! One way to start a session, for every front-end: the model server and its credentials, the
//! project's MCP servers (discovered, approved, connected), who answers permission requests, the
//! agent itself, and the cleanup when any step fails. Front-ends only choose [`SessionOptions`].

use std::path::PathBuf;
use std::sync::Arc;

use crate::agent::{Agent, LaunchError, LaunchOptions, launch, models, today};
use crate::credentials::CredentialError;
use crate::engine_env::EngineEnv;
use crate::events::EventSink;
use crate::mcp::{McpConfigError, McpManager, McpOptions, McpPermissionPrompter};
use crate::model::client::{
    ModelAuth, ModelClient, ModelConfig, ModelListing, ModelProvider, configured_base_url,
    parse_custom_headers,
};
use crate::model::error::ModelError;
use crate::permissions::{PendingPrompts, PermissionPrompter};
use crate::project::Project;

/// Where the model is and how to reach it.
#[derive(Debug, Clone)]
pub enum ModelServer {
    /// The server the settings and the environment name: the base URL given (else
    /// `ANTHROPIC_BASE_URL`, else the API), the credentials found for it
    /// ([`load_model_auth`]: a token, the OS keyring, the credentials file, or none for a server on
    /// this machine), and the headers given as `Name: value` lines, with `ANTHROPIC_CUSTOM_HEADERS`
    /// winning for the same name.
    Configured {
        /// The base URL from the front-end's settings or command line.
        base_url: Option<String>,
        /// Extra headers from the front-end's settings, one `Name: value` per line.
        custom_headers: Option<String>,
        /// The API the server speaks, as the front-end's settings or command line say; `None`:
        /// `NERVE_PROVIDER`, else the Messages API.
        provider: Option<ModelProvider>,
    },
    /// Exactly this server with these credentials and headers (a scripted model for a demo or a
    /// test); nothing is looked up.
    Fixed {
        /// The base URL.
        base_url: String,
        /// The credentials.
        auth: ModelAuth,
        /// Extra headers.
        extra_headers: Vec<(String, String)>,
        /// The API it speaks.
        provider: ModelProvider,
    },
}

/// Who answers the session's permission requests.
#[derive(Clone, Default)]
pub enum Asker {
    /// Nobody: what would ask is denied (headless).
    #[default]
    Nobody,
    /// A person: requests arrive as events and are answered through
    /// [`super::Session::answer`].
    Person,
    /// An MCP tool (`mcp__server__tool`, `--permission-prompt-tool`), found once the servers are
    /// connected.
    McpTool(String),
}

impl std::fmt::Debug for Asker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Nobody => f.write_str("Nobody"),
            Self::Person => f.write_str("Person"),
            Self::McpTool(name) => f.debug_tuple("McpTool").field(name).finish(),
        }
    }
}

/// What a front-end decides about a session.
#[derive(Debug)]
pub struct SessionOptions {
    /// The session to resume; `None` starts a new one.
    pub resume: Option<String>,
    /// The id of a new session (`None`: a fresh UUID); a resumed session keeps its own.
    pub session_id: Option<String>,
    /// The main model (`None`: `NERVE_MODEL`, else the default). A resumed session goes on with
    /// the model last chosen in it (`Session::set_model`), when one was.
    pub model: Option<String>,
    /// How hard the model thinks (`None`: off); a resumed session, as the model.
    pub effort: Option<nerve_protocol::prompt::Effort>,
    /// The fast model for side jobs (`None`: `NERVE_FAST_MODEL`, else the default).
    pub fast_model: Option<String>,
    /// The model server.
    pub server: ModelServer,
    /// MCP config files whose servers start whatever the settings say (`--mcp-config`).
    pub mcp_config_files: Vec<PathBuf>,
    /// Who answers permission requests.
    pub asker: Asker,
    /// Where the session's events go between turns (MCP servers connecting); a turn's events go to
    /// the sink given to [`super::Session::send`].
    pub events: EventSink,
    /// Most model calls per prompt (`None`: the default).
    pub max_turns: Option<u32>,
    /// Most tool calls running at once (`None`: `NERVE_MAX_TOOL_USE_CONCURRENCY` or the default).
    pub max_concurrency: Option<usize>,
    /// List the project's files (and watch them) from the start, so the first `@` search answers
    /// at once; otherwise the first [`super::Session::find_files`] lists them.
    pub index_files: bool,
    /// Work in a worktree of its own, made from this (`None`: the project folder itself). A
    /// resumed session that had a worktree goes back to it either way.
    pub worktree: Option<crate::worktree::NewWorktree>,
    /// With [`Self::worktree`]: when the project cannot have a worktree (not in git, no commit
    /// yet, a bare repository), start in the folder itself and say why in the warnings, instead of
    /// failing (a front-end's default, not the user's explicit ask).
    pub worktree_optional: bool,
    /// The editor the session runs inside (an ACP client that offered its file system): the file
    /// tools tell it of their changes and ask it about unsaved ones (see [`crate::tool::editor`]).
    pub editor: Option<Arc<dyn crate::tool::Editor>>,
}

impl SessionOptions {
    /// A new headless session on the configured server, events going to `events`.
    pub fn new(events: EventSink) -> Self {
        Self {
            resume: None,
            session_id: None,
            model: None,
            effort: None,
            fast_model: None,
            server: ModelServer::Configured {
                base_url: None,
                custom_headers: None,
                provider: None,
            },
            mcp_config_files: Vec::new(),
            asker: Asker::Nobody,
            events,
            max_turns: None,
            max_concurrency: None,
            index_files: false,
            worktree: None,
            worktree_optional: false,
            editor: None,
        }
    }
}

impl SessionOptions {
    /// Decides whether a new session works in a worktree of its own: as the user `asked` for this
    /// session, else as the front-end's setting `when` says given `others_live` sessions of the
    /// project. A setting's default falls back to the project folder where git cannot help; an
    /// explicit ask fails with the reason. A resumed session keeps what it had.
    pub fn choose_worktree(
        &mut self,
        asked: Option<bool>,
        when: nerve_protocol::workspace::WorktreeWhen,
        others_live: usize,
    ) {
        if self.resume.is_some() {
            return;
        }
        if asked.unwrap_or_else(|| when.wants(others_live)) {
            self.worktree = Some(crate::worktree::NewWorktree::default());
            self.worktree_optional = asked.is_none();
        }
    }
}

/// Why a session could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The credentials could not be looked up.
    #[error("could not look up the API credentials: {0}")]
    Credentials(#[from] CredentialError),
    /// The credentials lookup stopped before it answered.
    #[error("the API credentials lookup stopped unexpectedly")]
    CredentialsLookupStopped,
    /// Extra headers are malformed.
    #[error("bad custom headers: {0}")]
    Headers(#[source] ModelError),
    /// The MCP configuration could not be read.
    #[error(transparent)]
    McpConfig(#[from] McpConfigError),
    /// The permission prompt tool is not a tool of any connected server.
    #[error("--permission-prompt-tool {name}: no such MCP tool (connected servers: {connected})")]
    NoPromptTool {
        /// The tool asked for.
        name: String,
        /// The servers that did connect, or `none`.
        connected: String,
    },
    /// The agent could not start.
    #[error(transparent)]
    Launch(#[from] LaunchError),
    /// The model server did not answer as the API does.
    #[error(transparent)]
    Model(ModelError),
    /// `NERVE_PROVIDER` names no provider.
    #[error("NERVE_PROVIDER: {0}")]
    Provider(String),
    /// The session's worktree could not be made or found.
    #[error(transparent)]
    Worktree(#[from] crate::worktree::WorktreeError),
    /// The project could not be opened in the session's worktree (its settings there).
    #[error("cannot open the session's worktree: {0}")]
    WorktreeProject(#[source] crate::project::ProjectError),
}

/// Where a session starts: the project as the session sees it, its worktree, what the user should
/// know about it, and for a worktree made just now the settings' setup command with its source.
pub(super) struct Entered {
    pub(super) project: Project,
    pub(super) worktree: Option<crate::worktree::WorktreeInfo>,
    pub(super) notes: Vec<String>,
    pub(super) setup: Option<(String, String)>,
}

/// Moves a session into its worktree before it starts: the one it already has (a resumed
/// session), or a new one when `options` ask for it.
pub(super) fn enter_worktree(project: Project, options: &mut SessionOptions) -> Result<Entered, StartError> {
    let stay = |project, notes| Entered {
        project,
        worktree: None,
        notes,
        setup: None,
    };
    if options.worktree.is_some() && options.resume.is_none() && options.session_id.is_none() {
        // The worktree is named after the session, so the id is chosen now.
        options.session_id = Some(uuid::Uuid::new_v4().to_string());
    }
    let Some(id) = options.resume.clone().or_else(|| options.session_id.clone()) else {
        return Ok(stay(project, Vec::new()));
    };
    let workspaces = project.workspaces();
    let (info, notes, fresh) = match workspaces.of_session(&id)? {
        Some(info) if !info.path.is_dir() => {
            return Err(crate::worktree::WorktreeError::Missing {
                session_id: id,
                path: info.path,
            }
            .into());
        }
        Some(info) => (info, Vec::new(), false),
        None => match &options.worktree {
            Some(request) => match workspaces.create(&id, request) {
                Ok(created) => (created.info, created.notes, true),
                Err(
                    e @ (crate::worktree::WorktreeError::NotARepository { .. }
                    | crate::worktree::WorktreeError::NoCommit { .. }
                    | crate::worktree::WorktreeError::Bare { .. }),
                ) if options.worktree_optional => {
                    return Ok(stay(project, vec![format!("No worktree of its own: {e}.")]));
                }
                Err(e) => return Err(e.into()),
            },
            None => return Ok(stay(project, Vec::new())),
        },
    };
    // The main project's settings name the command: the worktree's copy of a local settings file
    // may not be there.
    let setup = fresh
        .then(|| project.worktree_setup_command().cloned())
        .flatten()
        .map(|(command, source)| (command, source.to_string()));
    let inside = project.in_worktree(&info).map_err(StartError::WorktreeProject)?;
    Ok(Entered {
        project: inside,
        worktree: Some(info),
        notes,
        setup,
    })
}

/// A started session's parts, which [`super::Session`] holds.
pub(super) struct Started {
    pub(super) session_id: String,
    pub(super) model: String,
    pub(super) agent: Agent,
    pub(super) mcp: McpManager,
    pub(super) tool_names: Vec<String>,
    /// A keyring problem, MCP servers that failed, damaged transcript lines, rules that are easy to
    /// dodge.
    pub(super) warnings: Vec<String>,
    pub(super) unapproved_mcp_servers: Vec<String>,
}

/// The model server's URL, credentials and headers.
struct Reach {
    base_url: Option<String>,
    auth: ModelAuth,
    extra_headers: Vec<(String, String)>,
    provider: ModelProvider,
}

async fn reach(
    env: &Arc<EngineEnv>,
    server: ModelServer,
    warnings: &mut Vec<String>,
) -> Result<Reach, StartError> {
    let (base_url, custom_headers, provider) = match server {
        ModelServer::Fixed {
            base_url,
            auth,
            extra_headers,
            provider,
        } => {
            return Ok(Reach {
                base_url: Some(base_url),
                auth,
                extra_headers,
                provider,
            });
        }
        ModelServer::Configured {
            base_url,
            custom_headers,
            provider,
        } => (base_url, custom_headers, provider),
    };
    let provider = match provider {
        Some(p) => p,
        None => match env.provider.as_deref() {
            Some(name) => name.parse().map_err(StartError::Provider)?,
            None => ModelProvider::Anthropic,
        },
    };
    let base_url = configured_base_url(env, base_url.as_deref()).or_else(|| {
        // The OpenAI API's own address when nothing names a server; `ANTHROPIC_BASE_URL` above
        // still counts, for a local server that speaks both.
        provider
            .is_openai()
            .then(|| crate::model::openai::OPENAI_BASE_URL.to_string())
    });
    // The keyring is a blocking D-Bus call.
    let for_lookup = base_url.clone();
    let env_for_lookup = Arc::clone(env);
    let loaded = tokio::task::spawn_blocking(move || {
        crate::credentials::load_provider_auth(&env_for_lookup, provider, for_lookup.as_deref())
    })
    .await
    .map_err(|_| StartError::CredentialsLookupStopped)??;
    if let Some(problem) = &loaded.keyring_problem {
        warnings.push(format!("{problem}; using {}", loaded.source));
    }
    let mut extra_headers = match &custom_headers {
        Some(text) => parse_custom_headers(text).map_err(StartError::Headers)?,
        None => Vec::new(),
    };
    if let Some(text) = &env.custom_headers {
        for (name, value) in parse_custom_headers(text).map_err(StartError::Headers)? {
            extra_headers.retain(|(n, _)| !n.eq_ignore_ascii_case(&name));
            extra_headers.push((name, value));
        }
    }
    Ok(Reach {
        base_url,
        auth: loaded.auth,
        extra_headers,
        provider,
    })
}

/// The models `server` lists (`GET /v1/models`), reached with the credentials and headers a
/// session would use.
pub async fn list_models(env: &Arc<EngineEnv>, server: ModelServer) -> Result<Vec<ModelListing>, StartError> {
    let reach = reach(env, server, &mut Vec::new()).await?;
    let mut config = ModelConfig::with_auth(reach.auth);
    if let Some(url) = reach.base_url {
        config.base_url = url;
    }
    config.extra_headers = reach.extra_headers;
    config.provider = reach.provider;
    let client = ModelClient::new(config).map_err(StartError::Model)?;
    client.list_models().await.map_err(StartError::Model)
}

/// Starts (or resumes) a session of `project`, its events going to `events`, a person's answers
/// coming through `prompts`. On any failure after the MCP servers started, they are shut down
/// before the error returns.
pub(super) async fn start(
    project: &Project,
    options: SessionOptions,
    events: EventSink,
    prompts: &PendingPrompts,
) -> Result<Started, StartError> {
    let SessionOptions {
        resume,
        session_id,
        model,
        effort,
        fast_model,
        server,
        mcp_config_files,
        asker,
        events: _,
        max_turns,
        max_concurrency,
        index_files: _,
        worktree: _,
        worktree_optional: _,
        editor,
    } = options;
    let mut warnings = Vec::new();
    let reach = reach(project.env(), server, &mut warnings).await?;
    let (servers, unapproved_mcp_servers) = project.mcp_servers(&mcp_config_files)?;
    let mcp = McpManager::connect(
        &servers,
        project.dir(),
        &McpOptions::from_engine_env(project.env()),
        &events,
    )
    .await;
    warnings.extend(mcp.failures().iter().map(|f| f.message.clone()));
    // A person answering prompts means the desktop app; otherwise a run prints its answer.
    let front_end = match asker {
        Asker::Person => crate::agent::FrontEnd::Desktop,
        Asker::Nobody | Asker::McpTool(_) => crate::agent::FrontEnd::Print,
    };
    let prompter: Option<Arc<dyn PermissionPrompter>> = match asker {
        Asker::Nobody => None,
        Asker::Person => Some(Arc::new(prompts.clone())),
        Asker::McpTool(name) => match mcp.find_tool(&name) {
            Some(tool) => Some(Arc::new(McpPermissionPrompter::new(tool))),
            None => {
                let connected = match mcp.connected().join(", ") {
                    s if s.is_empty() => "none".to_string(),
                    s => s,
                };
                mcp.shutdown().await;
                return Err(StartError::NoPromptTool { name, connected });
            }
        },
    };
    let session_id = resume
        .clone()
        .or(session_id)
        .unwrap_or_else(|| uuid::Uuid::new_v4().to_string());
    let model = models::main_model(project.env(), model.as_deref());
    let launched = launch(
        project,
        LaunchOptions {
            session_id: session_id.clone(),
            resume: resume.is_some(),
            model: model.clone(),
            fast_model: models::fast_model(project.env(), fast_model.as_deref()),
            auth: reach.auth,
            extra_headers: reach.extra_headers,
            base_url: reach.base_url,
            provider: reach.provider,
            max_turns,
            effort: effort.unwrap_or_default(),
            max_concurrency,
            prompter,
            events,
            external_tools: mcp.tools(),
            date: today(),
            front_end,
            editor,
        },
    );
    let launched = match launched {
        Ok(launched) => launched,
        Err(e) => {
            mcp.shutdown().await;
            return Err(e.into());
        }
    };
    warnings.extend(launched.warnings);
    Ok(Started {
        session_id,
        model,
        agent: launched.agent,
        mcp,
        tool_names: launched.tool_names,
        warnings,
        unapproved_mcp_servers,
    })
}
