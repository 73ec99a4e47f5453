//! The guidance: the sections of the first, stable block, each a function of the
//! [`PromptContext`]. A section names a tool only when that tool is offered (a test checks every
//! section over many tool sets), so the model is never taught to call what it does not have.

mod code_changes;
mod harness;
mod identity;
mod reporting;
mod safety;
mod tool_use;

use crate::agent::system_prompt::{AgentRole, PromptContext};

/// One section of the guidance.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// A short stable name (for tests and the docs' table).
    pub name: &'static str,
    /// The text, starting with its Markdown heading.
    pub text: String,
}

/// The guidance sections for `ctx`, in order. A sub-agent gets a shorter set: its own identity
/// (which says how to report to the main agent) and no section about talking to the user.
pub fn guidance_sections(ctx: &PromptContext) -> Vec<Section> {
    let mut sections = vec![
        Section {
            name: "identity",
            text: identity::text(ctx),
        },
        Section {
            name: "harness",
            text: harness::text(ctx),
        },
        Section {
            name: "tool_use",
            text: tool_use::text(ctx),
        },
    ];
    if let Some(text) = code_changes::text(ctx) {
        sections.push(Section {
            name: "code_changes",
            text,
        });
    }
    sections.push(Section {
        name: "safety",
        text: safety::text(ctx),
    });
    if ctx.role == AgentRole::Main {
        sections.push(Section {
            name: "reporting",
            text: reporting::text(ctx),
        });
    }
    sections
}

/// Joins the non-empty items as a bulleted list.
pub(super) fn bullets(items: Vec<Option<String>>) -> String {
    items
        .into_iter()
        .flatten()
        .map(|i| format!("- {i}"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// `a`, `a or b`, `a, b or c`.
pub(super) fn either(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}
