//! What the prompt box offers and sends beside the text: slash commands, `@` file matches, the
//! models to choose from, attached images.

use serde::{Deserialize, Serialize};

/// Where a command comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum CommandSource {
    /// Built into the app; the front-end carries it out.
    Builtin,
    /// The user's command folders.
    User,
    /// The project's command folders.
    Project,
    /// A prompt of a connected MCP server (`/mcp__server__prompt`).
    Mcp,
}

/// A command as a front-end lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SlashCommand {
    /// The name, without the slash (`compact`, `review`, `frontend:component`).
    pub name: String,
    /// What it does, in one line.
    pub description: String,
    /// What to type after the name (`[instructions]`), if anything.
    pub argument_hint: Option<String>,
    /// Where it comes from.
    pub source: CommandSource,
}

/// A file that matched the typed text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileMatch {
    /// The path relative to the project, `/`-separated.
    pub path: String,
    /// How well it matched (higher is better).
    pub score: u32,
    /// Positions (in characters) of `path` that matched, ascending.
    pub indices: Vec<u32>,
}

/// One model a server offers, with what is known of it.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelListing {
    /// The name requests use.
    pub id: String,
    /// A name for people, when the server gives one.
    #[serde(default)]
    pub display_name: Option<String>,
    /// Its context window in tokens, where known (Anthropic's models).
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub context_window: Option<u64>,
    /// Its price, where known.
    #[serde(default)]
    pub price: Option<ModelPriceView>,
    /// Whether it can think before answering (the effort control applies), where known: `None`
    /// for a model Nerve knows nothing of (a local server's), which may or may not.
    #[serde(default)]
    pub thinking: Option<bool>,
}

/// A model's price in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelPriceView {
    /// Uncached input.
    pub input_per_mtok: f64,
    /// Output.
    pub output_per_mtok: f64,
}

/// How hard the model thinks before it answers: the request's extended-thinking budget. Off sends
/// no thinking at all (the API's default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Effort {
    /// No extended thinking.
    #[default]
    Off,
    /// A short think (4,000 tokens, Claude Code's "think").
    Low,
    /// A longer one (10,000 tokens, "think hard").
    Medium,
    /// The most (24,000 tokens, within every thinking model's 32,000-token output).
    High,
}

impl Effort {
    /// Every level, from none to the most.
    pub const ALL: [Effort; 4] = [Effort::Off, Effort::Low, Effort::Medium, Effort::High];

    /// The level's name, as settings, the command line and the transcript spell it.
    pub fn name(self) -> &'static str {
        match self {
            Effort::Off => "off",
            Effort::Low => "low",
            Effort::Medium => "medium",
            Effort::High => "high",
        }
    }

    /// The level named `name` (case-insensitive).
    pub fn named(name: &str) -> Option<Effort> {
        Effort::ALL
            .into_iter()
            .find(|e| e.name().eq_ignore_ascii_case(name.trim()))
    }

    /// Tokens the model may spend thinking, or `None` for no thinking.
    pub fn budget_tokens(self) -> Option<u32> {
        match self {
            Effort::Off => None,
            Effort::Low => Some(4_000),
            Effort::Medium => Some(10_000),
            Effort::High => Some(24_000),
        }
    }

    /// The least `max_tokens` a request at this level sends: the budget plus room for the answer
    /// (the API wants the budget below `max_tokens`, and thinking counts toward it).
    pub fn min_max_tokens(self) -> u32 {
        match self {
            Effort::Off => 0,
            Effort::Low => 16_000,
            Effort::Medium => 20_000,
            Effort::High => 32_000,
        }
    }
}

/// The model and effort a session's requests use, as a front-end set them: applied at once
/// between turns; while a turn runs, at its next prompt (one tool-use loop keeps one thinking
/// configuration, as the API requires).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelChoice {
    /// The model.
    pub model: String,
    /// The effort.
    pub effort: Effort,
    /// Whether it waits for the next prompt (a turn was running).
    pub at_next_prompt: bool,
}

/// An image as a front-end sends it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AttachedImage {
    /// A name for messages (the file name, or "pasted image").
    pub name: String,
    /// The file's bytes, base64.
    pub data: String,
}

/// Something the user attached to a prompt beside their words and pictures: the engine reads it
/// when the prompt is sent and gives it to the model as a block of its own, apart from the
/// person's words. One that cannot be read fails the send, and nothing is sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum PromptAttachment {
    /// A folder of the project: its listing (the files `.gitignore` does not hide).
    Folder {
        /// The folder, relative to the project (or absolute, inside it).
        path: String,
    },
    /// A web page, fetched as WebFetch fetches (its deny rules hold).
    Url {
        /// The page's address (http or https).
        url: String,
    },
    /// Another session of the project: its conversation, abridged.
    Session {
        /// The session.
        session_id: String,
    },
    /// Text selected in the app's terminal.
    TerminalSelection {
        /// The selected text.
        text: String,
    },
}

/// What an attachment was, as a past prompt shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum AttachmentKind {
    /// A folder's listing.
    Folder,
    /// A web page.
    Url,
    /// Another session.
    Session,
    /// The terminal's selection.
    TerminalSelection,
}

/// An attachment of a past prompt: its kind and what it names (the folder, the address, the
/// session's title, the selection's first line).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AttachmentView {
    /// What it was.
    pub kind: AttachmentKind,
    /// What it names.
    pub label: String,
}
