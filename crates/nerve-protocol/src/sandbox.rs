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
