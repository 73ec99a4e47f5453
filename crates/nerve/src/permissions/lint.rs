//! Warnings about rules that do less than they seem to, shown where rules are loaded
//! (`nerve check-permission`, the settings view).

pub use nerve_protocol::settings::RuleWarning;

use crate::permissions::matching::RuleContentKind;
use crate::permissions::matching::options::literal_option_warning;
use crate::permissions::rule::RuleBehavior;
use crate::permissions::rule_set::{EDITING_TOOLS, READING_TOOLS, RuleSet};

/// Deny and ask rules whose literal options can be dodged by spelling them differently, and allow
/// rules that name a file tool whose path rules allow nothing.
pub fn rule_warnings(rules: &RuleSet) -> Vec<RuleWarning> {
    let mut warnings = dodgeable_rules(rules);
    warnings.extend(unmatched_file_allow_rules(rules));
    warnings
}

/// `Write(src/**)`, `Grep(docs/**)`: file permission checks take allow rules from `Read(...)` and
/// `Edit(...)` only (as Claude Code does), so these allow nothing.
fn unmatched_file_allow_rules(rules: &RuleSet) -> impl Iterator<Item = RuleWarning> + '_ {
    rules.rules(RuleBehavior::Allow).filter_map(|rule| {
        let name = rule.value.tool_name.as_str();
        let content = rule.value.content.as_deref()?;
        let broader = if name == "Edit" || name == "Read" {
            return None;
        } else if EDITING_TOOLS.contains(&name) {
            "Edit"
        } else if READING_TOOLS.contains(&name) {
            "Read"
        } else {
            return None;
        };
        Some(RuleWarning {
            rule: rule.value.to_string(),
            source: rule.source.as_str().to_string(),
            warning: format!(
                "file permission checks take allow rules from Read(...) and Edit(...) only, so this allows nothing; {broader}(...) covers every {} tool",
                if broader == "Edit" { "file-editing" } else { "file-reading" }
            ),
            suggestion: format!("{broader}({content})"),
        })
    })
}

fn dodgeable_rules(rules: &RuleSet) -> Vec<RuleWarning> {
    [RuleBehavior::Deny, RuleBehavior::Ask]
        .into_iter()
        .flat_map(|behavior| rules.rules(behavior))
        .filter_map(|rule| {
            let Some(RuleContentKind::Shell(content)) = rule.value.content_kind() else {
                return None;
            };
            let (warning, broader) = literal_option_warning(content)?;
            Some(RuleWarning {
                rule: rule.value.to_string(),
                source: rule.source.as_str().to_string(),
                warning,
                suggestion: format!("{}({broader})", rule.value.tool_name),
            })
        })
        .collect()
}
