//! How a Bash call is sandboxed, as the card and the permission dialog say it.

/// Whether a Bash call runs in the sandbox, as the card and the permission dialog say it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SandboxState {
    /// It runs sandboxed.
    Sandboxed {
        /// Whether it may use the network.
        network: bool,
    },
    /// It runs without the sandbox.
    Unsandboxed {
        /// Why (the settings turned it off, the model asked, the kernel cannot).
        reason: String,
        /// Whether running it so needs the user's approval (always, unless the user turned the
        /// sandbox off).
        needs_approval: bool,
    },
}

/// Something the sandbox refused a command, which a setting the user owns would allow: the card
/// offers to allow it for the project in one click.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum SandboxRefusal {
    /// A write outside the writable paths.
    Write {
        /// The path the command could not write.
        path: std::path::PathBuf,
        /// The entry that allows it, as `sandbox.filesystem.allowWrite` takes it (`~/.cache/x`).
        setting: String,
    },
    /// A host the network proxy refused, not by a deny rule (allowing it would help).
    Network {
        /// The host.
        host: String,
        /// The port.
        port: u16,
    },
}
