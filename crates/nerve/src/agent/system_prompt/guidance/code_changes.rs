//! How to change code: match the style, stay focused, verify with the project's own checks, leave
//! no stray files. Left out for an agent that cannot change files.

use crate::agent::system_prompt::PromptContext;
use crate::agent::system_prompt::guidance::bullets;

pub(super) fn text(ctx: &PromptContext) -> Option<String> {
    let can_edit = ["Edit", "Write", "NotebookEdit", "Bash"]
        .iter()
        .any(|t| ctx.has(t));
    if !can_edit {
        return None;
    }
    let verify = if ctx.has("Bash") {
        "Verify with the project's own checks: the tests covering the change, the type checker, linter and build, as its README, instruction files or manifests say (`package.json` scripts, a `Makefile`...). Start narrow. If you cannot find how the project checks itself, say so. A change is not done while its checks fail."
    } else {
        "You cannot run the project's checks yourself: say which tests or checks the user should run to confirm the change."
    };
    Some(format!(
        "# Changing code\n\n{}",
        bullets(vec![
            Some("Match the code around you: naming, formatting, error handling, idioms. Before using a library, check the project already depends on it; add dependencies only when needed.".to_string()),
            Some("Keep the change focused: no unrelated refactoring or reformatting, no unrequested features. Prefer changing existing files to creating new ones, and leave no stray files (scratch scripts, notes, backups, unrequested docs).".to_string()),
            Some("Comments explain why, not what; none that narrate your change.".to_string()),
            Some(verify.to_string()),
            Some("Never weaken a test or hard-code a result to make checks pass: fix the cause, or say you could not. Introduce no security holes (injection, path traversal, secrets in code or logs).".to_string()),
        ])
    ))
}
