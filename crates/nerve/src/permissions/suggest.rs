//! "Always allow" suggestions: rules general enough to be useful next time, never a copy of the
//! whole command (its arguments may hold secrets: `git commit -m "..."`, `curl -H "token: ..."`).
//!
//! Bash prefix length, per simple command (leading `NAME=value` assignments are skipped):
//!
//! - tools with subcommands (git, npm, cargo, docker, kubectl, ...): the command and its
//!   subcommand, `git commit -m x` → `Bash(git commit *)`; package-script runners take the script
//!   name too, `npm run test` → `Bash(npm run test *)`, as do `docker compose` and `gh` (two-level
//!   subcommands); a subcommand tool with an option before its subcommand (`git -C dir push`) gets
//!   no suggestion, since `git *` would allow far more than was asked;
//! - interpreters (python, node, ...): the command and its script, `python build.py` →
//!   `Bash(python build.py *)`, or `python -m pytest` → `Bash(python -m pytest *)`; nothing for
//!   `-c`/`-e` code;
//! - commands that run other commands (sh, sudo, env, xargs, find, ssh, ...): nothing, since any
//!   prefix rule would allow everything;
//! - anything else: the command word, `ls -la` → `Bash(ls *)`.
//!
//! Words must be plain (letters, digits and `_ . / : @ + , -`) to become part of a rule; anything
//! else ends the prefix or drops the suggestion.

use std::path::Path;

use crate::permissions::matching::domain::url_host;
use crate::permissions::matching::mcp::McpName;
use crate::permissions::paths::normalize_lexically;
use crate::permissions::rule::RuleValue;
use crate::permissions::rule_set::Access;

/// At most this many Bash rules are suggested for one command.
pub const MAX_BASH_SUGGESTIONS: usize = 5;

const SUBCOMMAND_TOOLS: [&str; 42] = [
    "git",
    "npm",
    "pnpm",
    "yarn",
    "bun",
    "cargo",
    "docker",
    "podman",
    "kubectl",
    "go",
    "pip",
    "pip3",
    "uv",
    "poetry",
    "gh",
    "brew",
    "apt",
    "apt-get",
    "dnf",
    "yum",
    "pacman",
    "make",
    "just",
    "helm",
    "terraform",
    "dotnet",
    "mvn",
    "gradle",
    "rustup",
    "systemctl",
    "deno",
    "npx",
    "pnpx",
    "composer",
    "bundle",
    "rake",
    "mix",
    "stack",
    "cabal",
    "nix",
    "conda",
    "jj",
];

/// `(tool, subcommand)` pairs whose next word selects what actually runs.
const THREE_WORD_SUBCOMMANDS: [(&str, &str); 12] = [
    ("npm", "run"),
    ("npm", "run-script"),
    ("npm", "exec"),
    ("pnpm", "run"),
    ("pnpm", "exec"),
    ("yarn", "run"),
    ("yarn", "exec"),
    ("bun", "run"),
    ("bun", "x"),
    ("uv", "run"),
    ("poetry", "run"),
    ("docker", "compose"),
];

const INTERPRETERS: [&str; 11] = [
    "python", "python3", "node", "ruby", "perl", "php", "lua", "Rscript", "tsx", "ts-node", "java",
];

const RUNS_OTHER_COMMANDS: [&str; 30] = [
    "sh", "bash", "zsh", "fish", "dash", "ksh", "csh", "tcsh", "sudo", "doas", "su", "env", "xargs", "eval",
    "exec", "command", "builtin", "nohup", "time", "timeout", "nice", "ionice", "watch", "strace", "chroot",
    "ssh", "script", "parallel", "find", "awk",
];

fn is_plain_word(word: &str) -> bool {
    !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | ':' | '@' | '+' | ',' | '-'))
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let mut chars = name.chars();
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_subcommand_word(word: &str) -> bool {
    is_plain_word(word) && !word.starts_with('-')
}

/// The words of the prefix rule for one simple command, or `None` if no safe prefix exists.
fn prefix_words(argv: &[String]) -> Option<Vec<&str>> {
    let words: Vec<&str> = argv
        .iter()
        .map(String::as_str)
        .skip_while(|word| is_assignment(word))
        .collect();
    let (&command, rest) = words.split_first()?;
    if !is_plain_word(command) || command.starts_with('-') {
        return None;
    }
    let base = command.rsplit('/').next().unwrap_or(command);
    if RUNS_OTHER_COMMANDS.contains(&base) {
        return None;
    }
    if INTERPRETERS.contains(&base) {
        return match rest {
            [flag, module, ..] if *flag == "-m" && is_subcommand_word(module) => {
                Some(vec![command, flag, module])
            }
            [script, ..] if is_subcommand_word(script) => Some(vec![command, script]),
            _ => None,
        };
    }
    if SUBCOMMAND_TOOLS.contains(&base) {
        return match rest {
            [] => Some(vec![command]),
            [sub, ..] if !is_subcommand_word(sub) => None,
            [sub, third, ..]
                if (base == "gh" || THREE_WORD_SUBCOMMANDS.contains(&(base, *sub)))
                    && is_subcommand_word(third) =>
            {
                Some(vec![command, sub, third])
            }
            [sub, ..] => Some(vec![command, sub]),
        };
    }
    Some(vec![command])
}

/// Prefix rules for the simple commands of one Bash call (each given as its argv), deduplicated,
/// at most [`MAX_BASH_SUGGESTIONS`]. See the module docs for the prefix chosen per command.
///
/// A command that is exactly one of the subcommand tools' names (`git`) is suggested as itself
/// (`Bash(git)`), which matches only that exact command.
pub fn suggest_bash_rules(subcommands: &[Vec<String>]) -> Vec<RuleValue> {
    let mut rules: Vec<RuleValue> = Vec::new();
    for argv in subcommands {
        let Some(words) = prefix_words(argv) else {
            continue;
        };
        let only_command = words.len() == 1 && argv.len() == 1;
        let content = if only_command && SUBCOMMAND_TOOLS.contains(&words[0]) {
            words[0].to_string()
        } else {
            format!("{} *", words.join(" "))
        };
        let rule = RuleValue::with_content("Bash", content);
        if !rules.contains(&rule) {
            rules.push(rule);
        }
        if rules.len() == MAX_BASH_SUGGESTIONS {
            break;
        }
    }
    rules
}

/// `Read(...)` or `Edit(...)` for the folder holding `file`, e.g. `Edit(/src/**)`.
///
/// `anchor` is the anchor of the source the rule will be saved to (the project root for local
/// settings; see [`crate::permissions::rule::RuleSource::anchor`]): folders below it get the
/// anchored form `/dir/**`, folders below `home` get `~/dir/**`, others `//abs/dir/**`. No
/// suggestion for the filesystem root or the home folder itself (far too broad), for a relative
/// `file`, or for a folder whose name holds glob characters or is not UTF-8.
pub fn suggest_path_rule(access: Access, file: &Path, anchor: &Path, home: &Path) -> Option<RuleValue> {
    if !file.is_absolute() {
        return None;
    }
    let folder = normalize_lexically(file).parent()?.to_path_buf();
    let anchor = normalize_lexically(anchor);
    let home = normalize_lexically(home);
    let pattern = if let Ok(relative) = folder.strip_prefix(&anchor) {
        let relative = relative.to_str()?;
        if relative.is_empty() {
            "/**".to_string()
        } else {
            format!("/{relative}/**")
        }
    } else if let Ok(relative) = folder.strip_prefix(&home) {
        let relative = relative.to_str()?;
        if relative.is_empty() {
            return None;
        }
        format!("~/{relative}/**")
    } else {
        let absolute = folder.to_str()?;
        if absolute == "/" {
            return None;
        }
        format!("/{absolute}/**")
    };
    let body = pattern.trim_end_matches("/**");
    if body
        .chars()
        .any(|c| matches!(c, '*' | '?' | '[' | ']' | '{' | '}' | '\\' | '!' | '#'))
    {
        return None;
    }
    let tool = match access {
        Access::Read => "Read",
        Access::Edit => "Edit",
    };
    Some(RuleValue::with_content(tool, pattern))
}

/// `WebFetch(domain:host)` for `url`, or `None` if its host cannot be extracted.
pub fn suggest_domain_rule(url: &str) -> Option<RuleValue> {
    url_host(url).map(|host| RuleValue::with_content("WebFetch", format!("domain:{host}")))
}

/// The rule naming exactly this MCP tool (`mcp__server__tool`), never its whole server.
pub fn suggest_mcp_rule(tool_name: &str) -> Option<RuleValue> {
    McpName::parse(tool_name)
        .and_then(|name| name.tool)
        .map(|_| RuleValue::bare(tool_name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::permissions::matching::shell::shell_rule_matches;
    use pretty_assertions::assert_eq;

    fn argv(command: &str) -> Vec<String> {
        command.split_whitespace().map(String::from).collect()
    }

    fn suggest(commands: &[&str]) -> Vec<String> {
        let parsed: Vec<Vec<String>> = commands.iter().map(|c| argv(c)).collect();
        suggest_bash_rules(&parsed)
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn prefixes_per_kind_of_command() {
        let cases = [
            ("git commit -m secret", vec!["Bash(git commit *)"]),
            ("npm run test", vec!["Bash(npm run test *)"]),
            ("npm install left-pad", vec!["Bash(npm install *)"]),
            ("cargo test --all", vec!["Bash(cargo test *)"]),
            ("docker compose up -d", vec!["Bash(docker compose up *)"]),
            ("gh pr create --title x", vec!["Bash(gh pr create *)"]),
            ("kubectl get pods", vec!["Bash(kubectl get *)"]),
            ("ls -la /tmp", vec!["Bash(ls *)"]),
            ("python build.py --release", vec!["Bash(python build.py *)"]),
            ("python3 -m pytest -k x", vec!["Bash(python3 -m pytest *)"]),
            ("git", vec!["Bash(git)"]),
            ("API_TOKEN=abc123 curl https://x", vec!["Bash(curl *)"]),
            ("./scripts/dev.sh --fast", vec!["Bash(./scripts/dev.sh *)"]),
        ];
        for (command, expected) in cases {
            assert_eq!(suggest(&[command]), expected, "{command}");
        }
    }

    #[test]
    fn no_suggestion_where_any_prefix_is_too_broad() {
        for command in [
            "sudo rm -rf /",
            "bash -c 'anything'",
            "env FOO=1 make",
            "xargs rm",
            "find . -exec rm {} ;",
            "python -c print(1)",
            "node -e x",
            "git -C /other push",
            "/usr/bin/sudo ls",
            "rm$(x) -rf",
        ] {
            assert_eq!(suggest(&[command]), Vec::<String>::new(), "{command}");
        }
    }

    #[test]
    fn never_the_whole_command_and_always_matching_it() {
        let commands = ["git commit -m hunter2", "npm run build", "ls -la"];
        let mut checked = Vec::new();
        for command in commands {
            for rule in suggest_bash_rules(&[argv(command)]) {
                let content = rule.content.clone().unwrap();
                assert_ne!(content, command);
                assert!(!content.contains("hunter2"));
                assert!(shell_rule_matches(&content, command), "{rule} vs {command}");
                checked.push(content);
            }
        }
        // The loop checked something: each command got its suggestion.
        assert_eq!(checked, vec!["git commit *", "npm run build *", "ls *"]);
    }

    #[test]
    fn deduplicates_and_caps_at_five() {
        let rules = suggest(&[
            "git status",
            "git status -s",
            "ls",
            "cat a",
            "head b",
            "tail c",
            "wc d",
            "sort e",
        ]);
        assert_eq!(
            rules,
            vec![
                "Bash(git status *)",
                "Bash(ls *)",
                "Bash(cat *)",
                "Bash(head *)",
                "Bash(tail *)"
            ]
        );
    }

    #[test]
    fn path_rules_use_the_anchored_form() {
        let anchor = Path::new("/work/project");
        let home = Path::new("/home/me");
        let rule = |access, file: &str| {
            suggest_path_rule(access, Path::new(file), anchor, home).map(|r| r.to_string())
        };
        assert_eq!(
            rule(Access::Edit, "/work/project/src/app/main.rs"),
            Some("Edit(/src/app/**)".into())
        );
        assert_eq!(
            rule(Access::Read, "/work/project/README.md"),
            Some("Read(/**)".into())
        );
        assert_eq!(
            rule(Access::Read, "/home/me/notes/today.md"),
            Some("Read(~/notes/**)".into())
        );
        assert_eq!(rule(Access::Read, "/etc/hosts"), Some("Read(//etc/**)".into()));
        assert_eq!(rule(Access::Edit, "/home/me/.bashrc"), None);
        assert_eq!(rule(Access::Edit, "/x"), None);
        assert_eq!(rule(Access::Edit, "relative/x"), None);
        assert_eq!(rule(Access::Edit, "/work/project/we[i]rd/x"), None);
        let suggested =
            suggest_path_rule(Access::Edit, Path::new("/work/project/src/a.rs"), anchor, home).unwrap();
        assert!(crate::permissions::matching::path::path_rule_matches(
            suggested.content.as_deref().unwrap(),
            anchor,
            home,
            Path::new("/work/project/src/other.rs")
        ));
    }

    #[test]
    fn domain_and_mcp_rules() {
        assert_eq!(
            suggest_domain_rule("https://Docs.rs/serde").map(|r| r.to_string()),
            Some("WebFetch(domain:docs.rs)".into())
        );
        assert_eq!(suggest_domain_rule("not a url"), None);
        assert_eq!(
            suggest_mcp_rule("mcp__github__create_issue").map(|r| r.to_string()),
            Some("mcp__github__create_issue".into())
        );
        assert_eq!(suggest_mcp_rule("mcp__github"), None);
        assert_eq!(suggest_mcp_rule("Bash"), None);
    }
}
