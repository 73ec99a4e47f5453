//! How to use the tools well: dedicated tools over the shell, parallel calls, sub-agents for broad
//! searches, the task list, plan mode, background commands.

use crate::agent::system_prompt::PromptContext;
use crate::agent::system_prompt::guidance::{bullets, either};

pub(super) fn text(ctx: &PromptContext) -> String {
    format!(
        "# Using your tools\n\n{}",
        bullets(vec![
            dedicated_tools(ctx),
            Some("Calls in one response run at the same time when they can. When you need several independent things (three files, two searches, `git status` and `git diff`), ask for all of them in one response; call one after another only when a call needs an earlier result.".to_string()),
            read_before_edit(ctx),
            subagents(ctx),
            todos(ctx),
            plan_mode(ctx),
            background(ctx),
            ctx.has("WebFetch").then(|| "Use WebFetch for documentation the task needs; do not guess URLs.".to_string()),
            Some("Never guess what a file holds, what an API looks like or what a command printed: look.".to_string()),
        ])
    )
}

fn dedicated_tools(ctx: &PromptContext) -> Option<String> {
    if !ctx.has("Bash") {
        return None;
    }
    let mut pairs = Vec::new();
    if ctx.has("Read") {
        pairs.push("Read rather than `cat`, `head` or `tail`");
    }
    if ctx.has("Grep") {
        pairs.push("Grep rather than `grep` or `rg`");
    }
    if ctx.has("Glob") {
        pairs.push("Glob rather than `find` or `ls` to find files");
    }
    match (ctx.has("Edit"), ctx.has("Write")) {
        (true, true) => pairs.push("Edit or Write rather than `sed`, `awk` or `echo >` to change files"),
        (true, false) => pairs.push("Edit rather than `sed`, `awk` or `echo >` to change files"),
        (false, true) => pairs.push("Write rather than `echo >` or `cat <<EOF >` to create files"),
        (false, false) => {}
    }
    if pairs.is_empty() {
        return None;
    }
    Some(format!(
        "For files, prefer the dedicated tools to shell commands: {}. They are faster, need fewer approvals and are easier to review. Keep Bash for builds, tests, git, package managers and running programs.",
        pairs.join("; ")
    ))
}

fn read_before_edit(ctx: &PromptContext) -> Option<String> {
    if !["Edit", "Write", "NotebookEdit"].iter().any(|t| ctx.has(t)) {
        return None;
    }
    let reader = if ctx.has("Read") { " with Read" } else { "" };
    let prefer_edit = if ctx.has_all(&["Edit", "Write"]) {
        " Prefer Edit to rewriting a whole file."
    } else {
        ""
    };
    Some(format!(
        "Look at a file{reader} before changing it, and at how the code you touch is used; overwriting a file not read in this session, or changed since, is refused.{prefer_edit}"
    ))
}

fn subagents(ctx: &PromptContext) -> Option<String> {
    if !ctx.has("Agent") {
        return None;
    }
    let direct: Vec<&str> = ["Glob", "Grep", "Read"]
        .into_iter()
        .filter(|t| ctx.has(t))
        .collect();
    let direct = if direct.is_empty() {
        String::new()
    } else {
        format!(" with {}", either(&direct))
    };
    Some(format!(
        "For a broad search with an unpredictable answer (\"where is this handled?\") or a separate piece of work, start a sub-agent with Agent: it works in its own context and returns a short report, keeping yours small; several run in parallel. For a specific file or name, search directly{direct}."
    ))
}

fn todos(ctx: &PromptContext) -> Option<String> {
    ctx.has("TodoWrite").then(|| {
        "For work of three or more steps, or several requests at once, keep a task list with TodoWrite: write the steps first, keep one in progress, mark each completed as soon as it is done. It shows the user where you are; skip it for a simple task.".to_string()
    })
}

fn plan_mode(ctx: &PromptContext) -> Option<String> {
    match (ctx.has("EnterPlanMode"), ctx.has("ExitPlanMode")) {
        (true, true) => Some("Before a large or uncertain change (a new feature, several files, a choice the user should make), use EnterPlanMode: explore, then present the plan with ExitPlanMode for approval. Not for small fixes or questions.".to_string()),
        (false, true) => Some("In plan mode, present your plan with ExitPlanMode when it is ready.".to_string()),
        _ => None,
    }
}

fn background(ctx: &PromptContext) -> Option<String> {
    ctx.has_all(&["Bash", "TaskOutput"]).then(|| {
        let stop = if ctx.has("TaskStop") { " and stop it with TaskStop" } else { "" };
        format!(
            "Run servers and watchers with Bash's `run_in_background`, read their output with TaskOutput{stop}; do not `sleep` to wait."
        )
    })
}
