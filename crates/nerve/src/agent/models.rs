//! The model ids Nerve uses, and how a front-end picks them: the command-line flag, else the
//! environment variable, else the default.

/// The main model: the agent's conversation.
pub const DEFAULT_MAIN_MODEL: &str = "claude-opus-4-8";
/// The fast model: side jobs (WebFetch's summaries) and the auto-mode classifier.
pub const DEFAULT_FAST_MODEL: &str = "claude-haiku-4-5";
/// The model the `sonnet` alias names.
pub const DEFAULT_SONNET_MODEL: &str = "claude-sonnet-4-5";
use crate::engine_env::EngineEnv;
pub use crate::engine_env::{FAST_MODEL_ENV, MAIN_MODEL_ENV};

/// The main model: `flag`, else `NERVE_MODEL`, else [`DEFAULT_MAIN_MODEL`].
pub fn main_model(env: &EngineEnv, flag: Option<&str>) -> String {
    pick(flag, env.main_model.as_deref(), DEFAULT_MAIN_MODEL)
}

/// The fast model: `flag`, else `NERVE_FAST_MODEL`, else [`DEFAULT_FAST_MODEL`].
pub fn fast_model(env: &EngineEnv, flag: Option<&str>) -> String {
    pick(flag, env.fast_model.as_deref(), DEFAULT_FAST_MODEL)
}

/// The first non-blank of `flag` and `env`, trimmed, else `default`.
fn pick(flag: Option<&str>, env: Option<&str>, default: &str) -> String {
    [flag, env]
        .into_iter()
        .flatten()
        .map(str::trim)
        .find(|s| !s.is_empty())
        .unwrap_or(default)
        .to_owned()
}

/// The model a sub-agent definition's `model:` names: Claude Code's aliases (`opus`, `sonnet`,
/// `haiku`) for the current models, anything else as written (a full model id).
pub fn resolve_alias(model: &str) -> String {
    match model.trim() {
        "opus" => DEFAULT_MAIN_MODEL.to_string(),
        "sonnet" => DEFAULT_SONNET_MODEL.to_string(),
        "haiku" => DEFAULT_FAST_MODEL.to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_then_env_then_default() {
        assert_eq!(pick(Some("a"), Some("b"), "c"), "a");
        assert_eq!(pick(None, Some(" b "), "c"), "b");
        assert_eq!(pick(Some("  "), Some(""), "c"), "c");
        assert_eq!(pick(None, None, DEFAULT_FAST_MODEL), "claude-haiku-4-5");
    }
}
