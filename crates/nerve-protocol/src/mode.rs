//! Permission modes: how the resolver treats a call that no rule or hook has decided.

use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize};

/// How the resolver treats tool calls that no hook or rule has decided.
///
/// The names are Claude Code's, so `defaultMode` in a reused settings file keeps its meaning.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Hash,
    Serialize,
    strum::IntoStaticStr,
    strum::Display,
    strum::VariantArray,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[strum(serialize_all = "camelCase")]
pub enum PermissionMode {
    /// Ask before anything that is not read-only or pre-approved.
    #[serde(rename = "default")]
    Default,
    /// Edits inside the working directories are approved; other writes still ask.
    #[serde(rename = "acceptEdits")]
    AcceptEdits,
    /// Read-only planning: writes are refused.
    #[serde(rename = "plan")]
    Plan,
    /// Everything not denied by a rule or hook runs without asking.
    #[serde(rename = "bypassPermissions")]
    BypassPermissions,
    /// Never prompt: whatever would ask is refused instead.
    #[serde(rename = "dontAsk")]
    DontAsk,
    /// A classifier decides instead of the user.
    #[serde(rename = "auto")]
    Auto,
    /// A sub-agent without a terminal sends its prompts up to its parent.
    #[serde(rename = "bubble")]
    Bubble,
}

impl PermissionMode {
    /// Every mode, in declaration order.
    pub const ALL: &'static [PermissionMode] = <PermissionMode as strum::VariantArray>::VARIANTS;

    /// The name used in settings files and on the command line.
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A mode name that is not one of [`PermissionMode::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown permission mode `{name}`: valid modes are {} (names are case-sensitive)",
    valid_modes()
)]
pub struct UnknownModeError {
    /// The name that was given.
    pub name: String,
}

/// The valid names, as the error lists them.
fn valid_modes() -> String {
    PermissionMode::ALL
        .iter()
        .map(|mode| mode.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl FromStr for PermissionMode {
    type Err = UnknownModeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        PermissionMode::ALL
            .iter()
            .copied()
            .find(|mode| mode.as_str() == s)
            .ok_or_else(|| UnknownModeError { name: s.to_string() })
    }
}

/// Through [`FromStr`], so a settings file gets the same message listing the valid modes, and a
/// non-string value gets "expected a string" instead of serde_json's terse enum error.
impl<'de> Deserialize<'de> for PermissionMode {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn names_round_trip_through_from_str_display_and_serde() {
        for &mode in PermissionMode::ALL {
            assert_eq!(mode.to_string().parse::<PermissionMode>(), Ok(mode));
            let json = serde_json::to_string(&mode).unwrap();
            assert_eq!(json, format!("\"{mode}\""));
            assert_eq!(serde_json::from_str::<PermissionMode>(&json).unwrap(), mode);
        }
    }

    #[test]
    fn exact_names_are_claude_codes() {
        let names: Vec<&str> = PermissionMode::ALL.iter().map(|m| m.as_str()).collect();
        assert_eq!(
            names,
            vec![
                "default",
                "acceptEdits",
                "plan",
                "bypassPermissions",
                "dontAsk",
                "auto",
                "bubble"
            ]
        );
    }

    #[test]
    fn unknown_name_lists_the_valid_ones() {
        let err = "acceptedits".parse::<PermissionMode>().unwrap_err();
        assert_eq!(err.name, "acceptedits");
        let message = err.to_string();
        assert!(message.contains("`acceptedits`"), "{message}");
        for &mode in PermissionMode::ALL {
            assert!(message.contains(mode.as_str()), "{message}");
        }
    }

    #[test]
    fn serde_rejects_unknown_name() {
        let err = serde_json::from_str::<PermissionMode>("\"yolo\"").unwrap_err();
        assert!(
            err.to_string().contains("unknown permission mode `yolo`"),
            "{err}"
        );
        let err = serde_json::from_str::<PermissionMode>("5").unwrap_err();
        assert!(err.to_string().contains("expected a string"), "{err}");
    }
}
