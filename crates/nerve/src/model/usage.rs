//! Token usage accumulation and cost in US dollars.
//!
//! Prices are per million tokens from Anthropic's public price list. Cache writes cost 1.25x the
//! input price (5-minute TTL; one-hour writes cost 2x and are not told apart by the usage
//! counters) and cache reads 0.1x. A model missing from the table has no cost: showing a guess
//! as a real number would mislead the user.

use std::ops::AddAssign;

use serde::{Deserialize, Serialize};

use crate::model::types::Usage;

/// Prices of one model in USD per million tokens.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelPrice {
    /// Uncached input.
    pub input_per_mtok: f64,
    /// Output.
    pub output_per_mtok: f64,
}

impl ModelPrice {
    /// Cost of `usage` in USD.
    pub fn cost(&self, usage: &Usage) -> f64 {
        let per_token = |per_mtok: f64| per_mtok / 1_000_000.0;
        let input = per_token(self.input_per_mtok);
        usage.input_tokens as f64 * input
            + usage.cache_creation_input_tokens as f64 * input * 1.25
            + usage.cache_read_input_tokens as f64 * input * 0.1
            + usage.output_tokens as f64 * per_token(self.output_per_mtok)
    }

    /// What `usage`'s cache reads saved against sending the same tokens uncached (a read costs
    /// 0.1x the input price).
    pub fn cache_savings(&self, usage: &Usage) -> f64 {
        usage.cache_read_input_tokens as f64 * self.input_per_mtok / 1_000_000.0 * 0.9
    }
}

/// (model id without date suffix, input, output).
const PRICES: &[(&str, f64, f64)] = &[
    ("claude-opus-4-5", 5.0, 25.0),
    ("claude-opus-4-1", 15.0, 75.0),
    ("claude-opus-4-0", 15.0, 75.0),
    ("claude-opus-4", 15.0, 75.0),
    ("claude-sonnet-4-5", 3.0, 15.0),
    ("claude-sonnet-4-0", 3.0, 15.0),
    ("claude-sonnet-4", 3.0, 15.0),
    ("claude-3-7-sonnet", 3.0, 15.0),
    ("claude-haiku-4-5", 1.0, 5.0),
    ("claude-3-5-haiku", 0.8, 4.0),
];

/// Price of `model`, matching the table's id exactly or followed by a `-YYYYMMDD` snapshot
/// date. A looser prefix match would price `claude-opus-4-7` as `claude-opus-4`.
pub fn price_for(model: &str) -> Option<ModelPrice> {
    PRICES.iter().find_map(|(id, input, output)| {
        let matches = match model.strip_prefix(id) {
            Some("") => true,
            Some(rest) => {
                rest.len() == 9 && rest.starts_with('-') && rest[1..].bytes().all(|b| b.is_ascii_digit())
            }
            None => false,
        };
        matches.then_some(ModelPrice {
            input_per_mtok: *input,
            output_per_mtok: *output,
        })
    })
}

/// Cost of `usage` on `model` in USD, or `None` for a model without a known price.
pub fn cost_usd(model: &str, usage: &Usage) -> Option<f64> {
    price_for(model).map(|price| price.cost(usage))
}

/// Usage summed over several responses (a session, a turn).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct UsageTotals {
    /// Summed token counters.
    pub tokens: Usage,
    /// Summed cost; `None` as soon as one response came from a model without a known price,
    /// since a partial sum would understate the real cost.
    pub cost_usd: Option<f64>,
    /// Number of responses added.
    pub responses: u64,
    /// What the cache reads saved, in USD; `None` as soon as one response came from a model
    /// without a known price (as `cost_usd`).
    #[serde(default)]
    pub cache_saved_usd: Option<f64>,
}

impl UsageTotals {
    /// Adds one response's usage.
    pub fn add(&mut self, model: &str, usage: &Usage) {
        let sum = |responses: u64, total: Option<f64>, this: Option<f64>| match (responses, total, this) {
            (0, _, this) => this,
            (_, Some(total), Some(this)) => Some(total + this),
            (_, None, _) | (_, _, None) => None,
        };
        let price = price_for(model);
        self.cost_usd = sum(self.responses, self.cost_usd, price.map(|p| p.cost(usage)));
        self.cache_saved_usd = sum(
            self.responses,
            self.cache_saved_usd,
            price.map(|p| p.cache_savings(usage)),
        );
        self.tokens += *usage;
        self.responses += 1;
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cache_creation_input_tokens += other.cache_creation_input_tokens;
        self.cache_read_input_tokens += other.cache_read_input_tokens;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn usage(input: u64, output: u64, write: u64, read: u64) -> Usage {
        Usage {
            input_tokens: input,
            output_tokens: output,
            cache_creation_input_tokens: write,
            cache_read_input_tokens: read,
        }
    }

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    #[test]
    fn cost_applies_cache_multipliers() {
        // Sonnet: $3 in, $15 out. 1M each: 3 + 15 + 3.75 + 0.3.
        let cost = cost_usd(
            "claude-sonnet-4-5-20250929",
            &usage(1_000_000, 1_000_000, 1_000_000, 1_000_000),
        )
        .unwrap();
        assert!(close(cost, 22.05), "{cost}");
    }

    #[test]
    fn cache_reads_save_nine_tenths_of_the_input_price() {
        let mut totals = UsageTotals::default();
        totals.add("claude-sonnet-4-5", &usage(10, 5, 0, 1_000_000));
        totals.add("claude-sonnet-4-5", &usage(10, 5, 0, 1_000_000));
        assert!(close(totals.cache_saved_usd.unwrap(), 5.4), "{totals:?}");
        totals.add("unpriced-model", &usage(10, 5, 0, 10));
        assert_eq!(totals.cache_saved_usd, None);
        assert_eq!(totals.tokens.cache_read_input_tokens, 2_000_010);
    }

    #[test]
    fn model_matching_is_exact_or_dated() {
        assert!(price_for("claude-opus-4-1").is_some());
        assert!(price_for("claude-opus-4-1-20250805").is_some());
        assert_eq!(price_for("claude-opus-4-5").map(|p| p.input_per_mtok), Some(5.0));
        assert_eq!(price_for("claude-opus-4-7"), None);
        assert_eq!(price_for("claude-opus-4-1-beta"), None);
        assert_eq!(price_for("gpt-4"), None);
        assert_eq!(cost_usd("mystery-model", &usage(1, 1, 0, 0)), None);
    }

    #[test]
    fn totals_sum_tokens_and_lose_cost_on_unknown_model() {
        let mut totals = UsageTotals::default();
        totals.add("claude-haiku-4-5", &usage(1_000_000, 0, 0, 0));
        totals.add("claude-haiku-4-5", &usage(0, 1_000_000, 0, 0));
        assert!(close(totals.cost_usd.unwrap(), 6.0));
        assert_eq!(totals.tokens, usage(1_000_000, 1_000_000, 0, 0));
        totals.add("unknown", &usage(1, 1, 1, 1));
        assert_eq!(totals.cost_usd, None);
        totals.add("claude-haiku-4-5", &usage(1, 0, 0, 0));
        assert_eq!(
            totals.cost_usd, None,
            "a later known cost must not resurrect the sum"
        );
        assert_eq!(totals.responses, 4);
    }

    #[test]
    fn first_unknown_model_starts_without_cost() {
        let mut totals = UsageTotals::default();
        totals.add("unknown", &usage(1, 1, 0, 0));
        totals.add("claude-haiku-4-5", &usage(1, 1, 0, 0));
        assert_eq!(totals.cost_usd, None);
    }
}
