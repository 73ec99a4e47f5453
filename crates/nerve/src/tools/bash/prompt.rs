//! What the model reads about the Bash tool.

use crate::tools::bash::limits::{DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS};
use crate::tools::bash::spool::{HEAD_BYTES, TAIL_BYTES};

/// The Bash tool's description.
pub(crate) fn description() -> String {
    format!(
        r#"Executes a bash command and returns its output (stdout and stderr together, in the order they arrived), with a timeout.

Each call runs `bash -c` (non-login, no rc files, stdin is /dev/null) in the session's working directory. The working directory persists between calls: after `cd sub`, the next command starts in `sub` — but only inside the project's working directories; a `cd` elsewhere is undone and you are told so. Shell state does not persist: variables, functions, aliases and `source`d files are gone in the next call.

Commands usually run in a sandbox: they may write only inside the working directories, $TMPDIR and the package tools' caches (~/.cache/pip, ~/.npm, ~/.cargo/registry, ~/go/pkg/mod...), and cannot read credentials (~/.ssh, ~/.aws, keyrings...). They reach the network only through a proxy (HTTP_PROXY, HTTPS_PROXY and ALL_PROXY are set; a program that ignores them gets no network): a host the settings allow works, a denied one is refused, and for any other the user is asked while the command waits. When the sandbox refuses a write or a host, the result says so in a line starting "Sandbox:" naming the setting that would allow it; suggest that setting to the user (they can allow the path or host for the project) rather than leaving the sandbox. Only when that cannot work, retry with `dangerouslyDisableSandbox: true`; the user is then always asked first, so say in `description` why it needs to run outside the sandbox. Never use it for commands that work in the sandbox.

Before running:
- Prefer the dedicated tools, they are faster and need fewer approvals: Read (not cat/head/tail), Grep (not grep/rg), Glob (not find/ls for finding files), Edit/Write (not sed/awk/echo > file). Use Bash for builds, tests, git, package managers and other programs.
- If the command creates files or folders, check the parent folder exists first (`ls`).
- Quote every path with spaces in double quotes: cd "/path/with spaces". Prefer absolute paths; relative ones are resolved against the working directory.
- Chain dependent commands with `&&` (`cargo build && cargo test`); use `;` only when the second must run even if the first fails. Do not use newlines to separate commands (newlines inside quoted strings are fine).
- Nothing is interactive: avoid commands that wait for input (editors, `git rebase -i`, pagers, prompts); pass flags such as `-y` or `--no-edit`.

Timeouts and long commands:
- `timeout` is in milliseconds: default {DEFAULT_TIMEOUT_MS} ({default_min} minutes), at most {MAX_TIMEOUT_MS} ({max_min} minutes). When it runs out, the whole process group is killed and you get the output so far with "Command timed out after N ms".
- For servers, watchers and anything you want to keep running, set `run_in_background: true`: you get a task id at once (e.g. bash_1); read its output with TaskOutput (block: false for what it printed so far, or wait for it to finish) and stop it with TaskStop. Background tasks end with the session. Do not append `&` yourself, and do not use `sleep` to wait for them.

Output:
- Up to about {limit} KB are returned whole. Longer output is cut to its first {head} KB and last {tail} KB with "... [N bytes omitted] ...", and the full output is saved to a file whose path is given: search it with Grep or read parts of it with Read rather than re-running the command. Filtering at the source (`| tail -50`, `| grep error`, `--quiet`) keeps results short.
- A non-zero exit status makes the result an error ending with "Exit code N"; when you run several commands in parallel, a failing one cancels the others still running.
- If stdout is an image (PNG, JPEG, GIF or WebP, e.g. `cat plot.png`), you receive it as an image.
- `sed -i` on files in the project is shown to the user as a diff before it runs; what is written is exactly what they approved.

Git: never change git config, never push --force, never skip hooks (--no-verify) or commit unless the user asked. Write commit messages with a heredoc: git commit -m "$(cat <<'EOF'
Message here.
EOF
)"."#,
        default_min = DEFAULT_TIMEOUT_MS / 60_000,
        max_min = MAX_TIMEOUT_MS / 60_000,
        limit = (HEAD_BYTES + TAIL_BYTES) / 1024,
        head = HEAD_BYTES / 1024,
        tail = TAIL_BYTES / 1024,
    )
}
