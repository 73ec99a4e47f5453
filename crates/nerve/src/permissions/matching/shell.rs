//! Shell command rules (`Bash(...)` content) against one simple command.
//!
//! The input is one already-split simple command: the Bash parser splits `a && b | c` elsewhere and
//! the resolver asks about each part, so a rule never has to reason about operators.

use crate::permissions::matching::wildcard::{self, Token};

/// Collapses every run of whitespace into one space and trims both ends, so `git   status` and
/// `git status` are the same command for matching.
pub fn normalize_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Whether `command` matches the shell rule content `rule_content`.
///
/// - No unescaped `*`: the normalised command must equal the content (`\*` is a literal star).
/// - `*` anywhere matches any run of characters; `\*` is a literal star, `\\` a backslash.
/// - A trailing ` *` means "this prefix as a whole word": `git *` matches `git` and `git status`
///   but never `gitx`. Claude Code applies this only when the trailing star is the pattern's only
///   wildcard; Nerve applies it to any pattern ending in ` *`, so `git * --force *` also covers
///   `git push --force` — for a deny rule that closes a gap, for an allow rule it is what the
///   user plainly meant.
/// - The legacy `prefix:*` form means `prefix *`.
///
/// Both the command and the content are whitespace-normalised first.
pub fn shell_rule_matches(rule_content: &str, command: &str) -> bool {
    let command = normalize_whitespace(command);
    let mut pattern = normalize_whitespace(rule_content);
    if let Some(prefix) = pattern.strip_suffix(":*") {
        pattern = format!("{} *", prefix.trim_end());
    }
    let tokens = wildcard::tokenize(&pattern);
    match tokens.as_slice() {
        [prefix @ .., Token::Literal(' '), Token::Any] => {
            wildcard::matches(prefix, &command) || wildcard::matches(&tokens, &command)
        }
        _ => wildcard::matches(&tokens, &command),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn exact_rules_need_the_exact_command() {
        assert!(shell_rule_matches("npm test", "npm test"));
        assert!(shell_rule_matches("npm test", "  npm    test "));
        assert!(!shell_rule_matches("npm test", "npm test --watch"));
        assert!(!shell_rule_matches("npm test", "npm tes"));
    }

    #[test]
    fn trailing_star_is_a_word_boundary() {
        assert!(shell_rule_matches("git *", "git status"));
        assert!(shell_rule_matches("git *", "git"));
        assert!(shell_rule_matches("git *", "git commit -m 'x y'"));
        assert!(!shell_rule_matches("git *", "gitx"));
        assert!(!shell_rule_matches("git *", "gitx status"));
        assert!(!shell_rule_matches("git commit *", "git commitx"));
        assert!(shell_rule_matches("git * --force *", "git push --force"));
        assert!(shell_rule_matches("git * --force *", "git push --force origin"));
        assert!(!shell_rule_matches("git * --force *", "git push --forcex"));
    }

    #[test]
    fn legacy_colon_star_is_a_word_prefix() {
        assert!(shell_rule_matches("npm run test:*", "npm run test"));
        assert!(shell_rule_matches("npm run test:*", "npm run test --watch"));
        assert!(!shell_rule_matches("npm run test:*", "npm run testing"));
        assert!(!shell_rule_matches("npm run test:*", "npm run"));
    }

    #[test]
    fn star_matches_anywhere_and_escaped_star_is_literal() {
        assert!(shell_rule_matches("docker * ps", "docker compose ps"));
        assert!(!shell_rule_matches("docker * ps", "docker compose ps -a"));
        assert!(shell_rule_matches("*--version", "node --version"));
        assert!(shell_rule_matches(r"echo \*", "echo *"));
        assert!(!shell_rule_matches(r"echo \*", "echo hello"));
        assert!(shell_rule_matches(r"ls \* *", "ls * -la"));
        assert!(!shell_rule_matches(r"ls \* *", "ls foo -la"));
    }

    #[test]
    fn whitespace_in_the_rule_is_normalised_too() {
        assert!(shell_rule_matches("git   status", "git status"));
        assert!(shell_rule_matches(" git  * ", "git log"));
    }

    fn word() -> impl Strategy<Value = String> {
        "[a-zA-Z0-9_./=-]{1,12}"
    }

    proptest! {
        #[test]
        fn prefix_star_matches_prefix_space_word(prefix in word(), rest in word()) {
            let rule = format!("{prefix} *");
            prop_assert!(shell_rule_matches(&rule, &prefix));
            let with_arg = format!("{prefix} {rest}");
            prop_assert!(shell_rule_matches(&rule, &with_arg));
        }

        #[test]
        fn prefix_star_never_matches_a_longer_word(
            prefix in word(),
            letter in "[a-zA-Z0-9]",
            rest in "[a-zA-Z0-9 ]{0,12}",
        ) {
            let rule = format!("{prefix} *");
            let command = format!("{prefix}{letter}{rest}");
            prop_assert!(!shell_rule_matches(&rule, &command));
            let legacy = format!("{prefix}:*");
            prop_assert!(!shell_rule_matches(&legacy, &command));
        }

        #[test]
        fn matching_ignores_whitespace_runs(
            words in proptest::collection::vec(word(), 1..5),
            gaps in proptest::collection::vec("[ \t\n]{1,3}", 5),
            rule_words in 1usize..5,
        ) {
            let single = words.join(" ");
            let spaced: String = words
                .iter()
                .zip(gaps.iter())
                .map(|(w, g)| format!("{w}{g}"))
                .collect();
            let take = rule_words.min(words.len());
            let rule = format!("{} *", words[..take].join(" "));
            prop_assert_eq!(
                shell_rule_matches(&rule, &single),
                shell_rule_matches(&rule, &spaced)
            );
            prop_assert!(shell_rule_matches(&rule, &spaced));
            prop_assert!(shell_rule_matches(&single, &spaced));
        }
    }
}
