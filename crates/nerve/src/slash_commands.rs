//! Slash commands: the built-in ones a front-end carries out itself (`/compact`, `/clear`,
//! `/rewind`, `/model`, `/effort`, `/mode`), `/init`, which the engine expands into a prompt (the
//! model writes the project's `NERVE.md`), and custom ones written as Markdown files in Claude Code's format,
//! found in `~/.claude/commands/`, `<config dir>/nerve/commands/`, and the project's
//! `.claude/commands/` and `.nerve/commands/` (later folders win on a name clash, so the project's
//! own command overrides the user's). A file `review.md` is `/review`; `frontend/component.md` is
//! `/frontend:component`. Optional front matter gives `description` and `argument-hint`; the body is
//! the prompt, with `$ARGUMENTS` replaced by everything after the name and `$1`…`$9` by its words.
//!
//! A command's text comes from a project file: it is untrusted input like any prompt, and goes to
//! the model through the normal turn (every tool call it leads to is still checked). Claude Code's
//! `!` shell lines and `allowed-tools` front matter are not supported: a command never runs anything
//! or widens permissions by itself.

pub use nerve_protocol::prompt::{CommandSource, SlashCommand};

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A custom command: its listing and its prompt template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomCommand {
    /// How it is listed.
    pub command: SlashCommand,
    /// The prompt, with `$ARGUMENTS` and `$1`…`$9` still in it.
    pub template: String,
    /// The file it was read from.
    pub path: PathBuf,
}

/// Largest command file read (a prompt, not a document).
const MAX_COMMAND_BYTES: u64 = 64 * 1024;
/// How deep namespaces go (`a/b/c.md` is `/a:b:c`).
const MAX_DEPTH: usize = 3;

/// The built-in commands, which front-ends carry out themselves.
pub fn builtin_commands() -> Vec<SlashCommand> {
    let builtin = |name: &str, description: &str, hint: Option<&str>| SlashCommand {
        name: name.to_string(),
        description: description.to_string(),
        argument_hint: hint.map(str::to_string),
        source: CommandSource::Builtin,
    };
    vec![
        builtin(
            "compact",
            "Summarise the conversation so far to free the context window",
            Some("[instructions for the summary]"),
        ),
        builtin("clear", "Start a new session in this project", None),
        builtin("rewind", "Go back to just before the latest prompt", None),
        builtin("model", "Use another model for this session", Some("<model>")),
        builtin(
            "memory",
            "Open the instruction files the model reads, to edit them",
            None,
        ),
        builtin(
            "init",
            "Ask the model to write a first NERVE.md for this project",
            Some("[what to stress]"),
        ),
        builtin(
            "effort",
            "How hard the model thinks before answering (off, low, medium, high)",
            Some("<level>"),
        ),
        builtin(
            "mode",
            "Switch the permission mode (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)",
            Some("<mode>"),
        ),
    ]
}

/// The prompt `/init` sends: the model studies the project and writes its instruction file.
const INIT_PROMPT: &str = "Write a NERVE.md file at the root of this project: the instructions you \
will read at the start of every session here. First look around: the README, the build and test \
files (package.json, Cargo.toml, Makefile, pyproject.toml and the like), the CI configuration, \
and any CLAUDE.md, AGENTS.md, .cursorrules or similar instruction files, whose useful content \
you carry over. Then write NERVE.md with: what the project is, in one or two sentences; the \
commands to build it, to run all its tests and a single test, to lint it and to run it; the \
layout and architecture a newcomer needs that the file names do not say; the conventions the \
code follows where they differ from the language's usual ones. Keep it short (under 100 lines) \
and specific to this project: no generic advice. If NERVE.md exists already, improve it and keep \
what is right.";

/// If `prompt` is a built-in command the engine expands into a prompt (`/init [notes]`), the
/// prompt the model gets. The other built-ins are carried out by the front-ends.
pub fn expand_builtin(prompt: &str) -> Option<String> {
    let rest = prompt.trim_start().strip_prefix("/init")?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    Some(match rest.trim() {
        "" => INIT_PROMPT.to_string(),
        notes => format!("{INIT_PROMPT}\n\nThe user adds: {notes}"),
    })
}

/// The custom commands found, by name, and warnings about files that could not be used.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CustomCommands {
    commands: BTreeMap<String, CustomCommand>,
    /// Files skipped, with why.
    pub warnings: Vec<String>,
}

impl CustomCommands {
    /// Reads the user's folders (`home`'s `.claude/commands`, `config_dir`'s `nerve/commands`), then
    /// the project's; a later folder's command replaces an earlier one of the same name.
    pub fn load(project_dir: &Path, home: Option<&Path>, config_dir: Option<&Path>) -> Self {
        let mut found = CustomCommands::default();
        let user = [
            home.map(|h| h.join(".claude/commands")),
            config_dir.map(|c| c.join("nerve/commands")),
        ];
        for dir in user.into_iter().flatten() {
            found.read_folder(&dir, CommandSource::User);
        }
        for dir in [
            project_dir.join(".claude/commands"),
            project_dir.join(".nerve/commands"),
        ] {
            found.read_folder(&dir, CommandSource::Project);
        }
        found
    }

    /// Reads the folders of this user and `project_dir`.
    pub fn for_project(project_dir: &Path) -> Self {
        Self::load(
            project_dir,
            dirs::home_dir().as_deref(),
            dirs::config_dir().as_deref(),
        )
    }

    /// Every command: the built-ins, then the custom ones by name. A custom command named like a
    /// built-in is not listed (the built-in wins, as the front-end carries it out).
    pub fn listing(&self) -> Vec<SlashCommand> {
        let mut all = builtin_commands();
        let builtin: Vec<String> = all.iter().map(|c| c.name.clone()).collect();
        all.extend(
            self.commands
                .values()
                .filter(|c| !builtin.contains(&c.command.name))
                .map(|c| c.command.clone()),
        );
        all
    }

    /// The custom command `name`.
    pub fn get(&self, name: &str) -> Option<&CustomCommand> {
        self.commands.get(name)
    }

    /// If `prompt` is `/name args` for a custom command, the prompt the model gets.
    pub fn expand(&self, prompt: &str) -> Option<String> {
        let rest = prompt.trim_start().strip_prefix('/')?;
        let (name, args) = match rest.split_once(char::is_whitespace) {
            Some((name, args)) => (name, args.trim()),
            None => (rest.trim_end(), ""),
        };
        let command = self.get(name)?;
        Some(fill(&command.template, args))
    }

    fn read_folder(&mut self, dir: &Path, source: CommandSource) {
        let walk = ignore::WalkBuilder::new(dir)
            .max_depth(Some(MAX_DEPTH))
            .standard_filters(false)
            .hidden(true)
            .follow_links(false)
            .build();
        for entry in walk.flatten() {
            let path = entry.path();
            if !entry.file_type().is_some_and(|t| t.is_file()) || path.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let Some(name) = command_name(dir, path) else {
                self.warnings.push(format!(
                    "{}: a command name may use letters, digits, '-', '_' and '.' only",
                    path.display()
                ));
                continue;
            };
            match read_command(path) {
                Ok((front, template)) => {
                    let description = front
                        .get("description")
                        .cloned()
                        .unwrap_or_else(|| first_line(&template));
                    let command = SlashCommand {
                        name: name.clone(),
                        description,
                        argument_hint: front.get("argument-hint").cloned(),
                        source,
                    };
                    self.commands.insert(
                        name,
                        CustomCommand {
                            command,
                            template,
                            path: path.to_path_buf(),
                        },
                    );
                }
                Err(why) => self.warnings.push(format!("{}: {why}", path.display())),
            }
        }
    }
}

/// `frontend/component.md` under `dir` → `frontend:component`; `None` for names a user could not
/// type or that would hide markup.
fn command_name(dir: &Path, path: &Path) -> Option<String> {
    let relative = path.strip_prefix(dir).ok()?.with_extension("");
    let parts: Vec<String> = relative
        .components()
        .map(|c| c.as_os_str().to_str().map(str::to_string))
        .collect::<Option<_>>()?;
    let valid = |p: &String| {
        !p.is_empty()
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    parts.iter().all(valid).then(|| parts.join(":"))
}

/// Why a command file was skipped (the listing's warning names the file).
#[derive(Debug, thiserror::Error)]
enum CommandFileError {
    #[error("{0}")]
    Io(#[from] std::io::Error),
    #[error("larger than {MAX_COMMAND_BYTES} bytes")]
    TooLarge,
}

/// The front matter's `key: value` lines and the body.
fn read_command(path: &Path) -> Result<(BTreeMap<String, String>, String), CommandFileError> {
    let size = std::fs::metadata(path)?.len();
    if size > MAX_COMMAND_BYTES {
        return Err(CommandFileError::TooLarge);
    }
    let text = std::fs::read_to_string(path)?;
    Ok(split_front_matter(&text))
}

/// Claude Code's front matter is flat `key: value` lines between `---` fences; only the keys the
/// listing uses are kept, so a flat reader is enough (no YAML library for two strings).
fn split_front_matter(text: &str) -> (BTreeMap<String, String>, String) {
    let mut front = BTreeMap::new();
    let Some(after_open) = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
    else {
        return (front, text.trim().to_string());
    };
    let Some(end) = after_open.find("\n---") else {
        return (front, text.trim().to_string());
    };
    for line in after_open[..end].lines() {
        if let Some((key, value)) = line.split_once(':') {
            let value = value.trim().trim_matches(['"', '\'']).to_string();
            if !value.is_empty() {
                front.insert(key.trim().to_string(), value);
            }
        }
    }
    let body = after_open[end + 4..].trim_start_matches(['-']).trim();
    (front, body.to_string())
}

fn first_line(template: &str) -> String {
    let line = template
        .lines()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let line = line.trim().trim_start_matches('#').trim();
    line.chars().take(100).collect()
}

/// The template with `$ARGUMENTS` and `$1`…`$9` filled in. Without any placeholder, arguments are
/// appended after a blank line so they are not lost.
fn fill(template: &str, args: &str) -> String {
    // Split as a shell would, so `"two words"` is one argument; unbalanced quotes fall back to words.
    let words: Vec<String> =
        shlex::split(args).unwrap_or_else(|| args.split_whitespace().map(str::to_string).collect());
    let mut out = String::with_capacity(template.len() + args.len());
    let mut used = false;
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(tail) = after.strip_prefix("ARGUMENTS") {
            out.push_str(args);
            used = true;
            rest = tail;
        } else if let Some(digit) = after.chars().next().filter(|c| ('1'..='9').contains(c)) {
            let index = digit as usize - '1' as usize;
            out.push_str(words.get(index).map(String::as_str).unwrap_or_default());
            used = true;
            rest = &after[1..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    if !used && !args.is_empty() {
        out.push_str("\n\n");
        out.push_str(args);
    }
    out
}

#[cfg(test)]
mod tests {

    #[test]
    fn init_expands_to_the_instruction_file_prompt_with_the_users_notes() {
        let plain = expand_builtin("/init").unwrap();
        assert!(
            plain.starts_with("Write a NERVE.md file at the root of this project"),
            "{plain}"
        );
        assert_eq!(
            expand_builtin("  /init stress the release process").unwrap(),
            format!("{plain}\n\nThe user adds: stress the release process")
        );
        assert_eq!(expand_builtin("/initialize"), None);
        assert_eq!(expand_builtin("/review"), None);
        assert!(builtin_commands().iter().any(|c| c.name == "init"));
    }
    use super::*;
    use pretty_assertions::assert_eq;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn commands_come_from_the_user_and_the_project_and_the_project_wins() {
        let home = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        write(home.path(), ".claude/commands/review.md", "Review the diff.");
        write(
            home.path(),
            ".claude/commands/mine.md",
            "---\ndescription: Mine\n---\nUser text",
        );
        write(
            project.path(),
            ".nerve/commands/review.md",
            "---\ndescription: \"Review like we do\"\nargument-hint: <files>\n---\nReview $ARGUMENTS carefully.",
        );
        write(
            project.path(),
            ".claude/commands/frontend/component.md",
            "# Make a component\nName: $1",
        );
        write(project.path(), ".claude/commands/bad name.md", "x");
        write(
            project.path(),
            ".claude/commands/compact.md",
            "shadowing a built-in",
        );
        let found = CustomCommands::load(project.path(), Some(home.path()), None);

        let custom: Vec<(String, String, Option<String>, CommandSource)> = found
            .listing()
            .into_iter()
            .filter(|c| c.source != CommandSource::Builtin)
            .map(|c| (c.name, c.description, c.argument_hint, c.source))
            .collect();
        assert_eq!(
            custom,
            vec![
                (
                    "frontend:component".to_string(),
                    "Make a component".to_string(),
                    None,
                    CommandSource::Project
                ),
                ("mine".to_string(), "Mine".to_string(), None, CommandSource::User),
                (
                    "review".to_string(),
                    "Review like we do".to_string(),
                    Some("<files>".to_string()),
                    CommandSource::Project
                ),
            ]
        );
        assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
        assert!(found.warnings[0].contains("bad name.md"));
        assert_eq!(
            found.expand("/review src/a.rs src/b.rs").as_deref(),
            Some("Review src/a.rs src/b.rs carefully.")
        );
        assert_eq!(
            found.expand("/frontend:component Button extra").as_deref(),
            Some("# Make a component\nName: Button")
        );
        assert_eq!(found.expand("/mine").as_deref(), Some("User text"));
        assert_eq!(
            found.expand("/mine please").as_deref(),
            Some("User text\n\nplease")
        );
        assert_eq!(found.expand("/unknown x"), None);
        assert_eq!(
            found.expand("review x"),
            None,
            "only a leading slash names a command"
        );
    }

    #[test]
    fn placeholders_are_filled_and_other_dollars_kept() {
        assert_eq!(
            fill("cost $5 for $1 and $2: $ARGUMENTS", "a b"),
            "cost  for a and b: a b"
        );
        assert_eq!(fill("echo $HOME $", ""), "echo $HOME $");
    }

    #[test]
    fn quoted_arguments_stay_whole() {
        assert_eq!(
            fill(
                "title: $1; body: $2",
                r#""Fix the login page" 'it hangs on submit'"#
            ),
            "title: Fix the login page; body: it hangs on submit"
        );
        // Unbalanced quotes: split on whitespace rather than lose the arguments.
        assert_eq!(fill("[$1] [$2]", r#"it's broken"#), "[it's] [broken]");
    }

    #[test]
    fn an_oversized_command_is_skipped_with_a_warning() {
        let project = tempfile::tempdir().unwrap();
        write(
            project.path(),
            ".nerve/commands/huge.md",
            &"x".repeat(MAX_COMMAND_BYTES as usize + 1),
        );
        let found = CustomCommands::load(project.path(), None, None);
        assert_eq!(found.get("huge"), None);
        assert!(found.warnings[0].contains("larger than"), "{:?}", found.warnings);
    }
}
