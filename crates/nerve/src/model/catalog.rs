//! What Nerve knows of Anthropic's models beyond their names: the context window, the price and
//! whether they can think, for a model picker. A model it does not know (a local server's, a newer
//! one) gets no figures rather than guessed ones.

use nerve_protocol::prompt::{ModelListing, ModelPriceView};

use crate::model::usage::price_for;

/// Every Claude model of the Messages API has a 200,000-token window (a larger one is a beta the
/// requests do not ask for).
const CLAUDE_CONTEXT_WINDOW: u64 = 200_000;

/// Model id prefixes that take extended thinking (Claude 3.7 Sonnet and every Claude 4 model).
const THINKING: &[&str] = &[
    "claude-3-7-sonnet",
    "claude-sonnet-4",
    "claude-opus-4",
    "claude-haiku-4",
];

/// Older Claude models, which do not.
const NOT_THINKING: &[&str] = &[
    "claude-3-5-",
    "claude-3-haiku",
    "claude-3-opus",
    "claude-3-sonnet",
    "claude-2",
    "claude-instant",
];

/// A listing of `id` (with the server's display name) and what is known of it.
pub fn listing(id: String, display_name: Option<String>) -> ModelListing {
    let thinking = if THINKING.iter().any(|p| id.starts_with(p)) {
        Some(true)
    } else if NOT_THINKING.iter().any(|p| id.starts_with(p)) {
        Some(false)
    } else {
        None
    };
    ModelListing {
        // Only a model of a known family: a server may name anything `claude-…`.
        context_window: thinking.is_some().then_some(CLAUDE_CONTEXT_WINDOW),
        price: price_for(&id).map(|p| ModelPriceView {
            input_per_mtok: p.input_per_mtok,
            output_per_mtok: p.output_per_mtok,
        }),
        thinking,
        id,
        display_name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn claude_models_get_their_window_price_and_thinking_and_others_nothing_guessed() {
        assert_eq!(
            listing(
                "claude-sonnet-4-5-20250929".into(),
                Some("Claude Sonnet 4.5".into())
            ),
            ModelListing {
                id: "claude-sonnet-4-5-20250929".into(),
                display_name: Some("Claude Sonnet 4.5".into()),
                context_window: Some(200_000),
                price: Some(ModelPriceView {
                    input_per_mtok: 3.0,
                    output_per_mtok: 15.0
                }),
                thinking: Some(true),
            }
        );
        let haiku = listing("claude-3-5-haiku-20241022".into(), None);
        assert_eq!(
            (haiku.thinking, haiku.context_window),
            (Some(false), Some(200_000))
        );
        assert!(haiku.price.is_some());
        assert_eq!(
            listing("claude-e2e".into(), None).context_window,
            None,
            "a name alone says nothing"
        );
        assert_eq!(
            listing("qwen2.5-coder:7b".into(), None),
            ModelListing {
                id: "qwen2.5-coder:7b".into(),
                display_name: None,
                context_window: None,
                price: None,
                thinking: None,
            }
        );
    }
}
