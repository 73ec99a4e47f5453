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

/// One model a server offers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelListing {
    /// The name requests use.
    pub id: String,
    /// A name for people, when the server gives one.
    #[serde(default)]
    pub display_name: Option<String>,
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
