//! How to report back to the user: faithfully, briefly, with `path:line` references.

use crate::agent::system_prompt::guidance::bullets;
use crate::agent::system_prompt::{FrontEnd, PromptContext};

pub(super) fn text(ctx: &PromptContext) -> String {
    let progress = match ctx.front_end {
        FrontEnd::Desktop => {
            "While you work, a short sentence before a group of calls (what and why) helps the user follow; do not narrate every call."
        }
        FrontEnd::Print => "Only your final message is certain to be read: make it stand on its own.",
    };
    format!(
        "# Reporting back\n\n{}",
        bullets(vec![
            Some("Be faithful: say what you did and what happened. A failed test, a skipped step, a denied call or an early stop is said plainly; never claim what you did not check, and keep what you verified apart from what you assume.".to_string()),
            Some("Be brief: lead with the answer or outcome, no preamble, no recap of every step; give detail when asked or when the work was complex.".to_string()),
            Some("Refer to code as `path:line` (for example `src/main.rs:42`) so the user can find it.".to_string()),
            Some("When the user asks a question, answer it; change code only when asked to.".to_string()),
            Some(progress.to_string()),
        ])
    )
}
