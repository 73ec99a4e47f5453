//! What a check of the release feed found.

use serde::{Deserialize, Serialize};

/// The answer of an update check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum UpdateStatus {
    /// No feed is set: nothing was checked.
    Off,
    /// The running version is the newest the feed names.
    Current {
        /// The running version.
        version: String,
    },
    /// The feed names a newer version.
    Newer {
        /// The running version.
        current: String,
        /// The newest version.
        latest: String,
        /// The release's page, when the feed gives one (https only).
        url: Option<String>,
        /// The release's notes, when the feed gives them (plain text).
        notes: Option<String>,
        /// How to get it, for this install ("sudo apt update && sudo apt upgrade nerve"…).
        how: String,
    },
    /// The feed could not be read or made no sense.
    Failed {
        /// Why, in words.
        message: String,
    },
}
