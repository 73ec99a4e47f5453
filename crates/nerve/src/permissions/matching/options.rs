//! Deny and ask rules that name options, matched by option set for commands whose options are known.
//!
//! `Bash(rm -rf *)` is meant to stop a forced recursive removal, however it is spelled: `rm -fr x`,
//! `rm -r -f x`, `rm --recursive --force x`, `rm x -rf`. For the programs listed here, a rule and a
//! command are both read as *program, set of options, operands*; the rule matches when its options
//! are a subset of the command's (aliases folded: `-R` is `--recursive` for `rm`) and its operand
//! pattern matches the command's operands. This is used for deny and ask rules only: allow rules stay
//! literal, since a broader match there would allow more than the user wrote.
//!
//! A deny or ask rule that names options of a program *not* listed here matches those options only
//! as written; [`literal_option_warning`] says so where rules are loaded.

use std::collections::BTreeSet;

use crate::permissions::matching::shell::{normalize_whitespace, shell_rule_matches};

/// The option grammar of one program (or git subcommand).
struct Spec {
    /// The program words (`["rm"]`, `["git", "push"]`).
    program: &'static [&'static str],
    /// Short options without a value, each with its canonical name.
    short: &'static [(char, &'static str)],
    /// Short options that take a value (the value stays part of the option: `-o=x`).
    short_values: &'static [(char, &'static str)],
    /// Long options without a value that mean the same as a canonical name (`recursive`).
    long: &'static [(&'static str, &'static str)],
    /// Short options that stand for several canonical names (`git branch -D` = delete + force).
    combined: &'static [(char, &'static [&'static str])],
}

#[rustfmt::skip]
const SPECS: &[Spec] = &[
    Spec { program: &["rm"],
        short: &[('f', "force"), ('r', "recursive"), ('R', "recursive"), ('d', "dir"), ('i', "i"), ('I', "I"), ('v', "verbose")],
        short_values: &[],
        long: &[("force", "force"), ("recursive", "recursive"), ("dir", "dir"), ("verbose", "verbose"),
                ("one-file-system", "one-file-system"), ("no-preserve-root", "no-preserve-root"), ("preserve-root", "preserve-root")],
        combined: &[] },
    Spec { program: &["rmdir"],
        short: &[('p', "parents"), ('v', "verbose")], short_values: &[],
        long: &[("parents", "parents"), ("verbose", "verbose"), ("ignore-fail-on-non-empty", "ignore-fail-on-non-empty")],
        combined: &[] },
    Spec { program: &["cp"],
        short: &[('f', "force"), ('r', "recursive"), ('R', "recursive"), ('a', "archive"), ('i', "interactive"), ('n', "no-clobber"),
                 ('u', "update"), ('v', "verbose"), ('l', "link"), ('s', "symbolic-link"), ('p', "p"), ('P', "no-dereference"),
                 ('L', "dereference"), ('d', "d"), ('x', "one-file-system"), ('b', "backup"), ('T', "no-target-directory")],
        short_values: &[('t', "target-directory"), ('S', "suffix")],
        long: &[("force", "force"), ("recursive", "recursive"), ("archive", "archive"), ("interactive", "interactive"),
                ("no-clobber", "no-clobber"), ("update", "update"), ("verbose", "verbose"), ("link", "link"),
                ("symbolic-link", "symbolic-link"), ("no-dereference", "no-dereference"), ("dereference", "dereference"),
                ("one-file-system", "one-file-system"), ("backup", "backup"), ("remove-destination", "remove-destination")],
        combined: &[] },
    Spec { program: &["mv"],
        short: &[('f', "force"), ('i', "interactive"), ('n', "no-clobber"), ('u', "update"), ('v', "verbose"), ('b', "backup"),
                 ('T', "no-target-directory")],
        short_values: &[('t', "target-directory"), ('S', "suffix")],
        long: &[("force", "force"), ("interactive", "interactive"), ("no-clobber", "no-clobber"), ("update", "update"),
                ("verbose", "verbose"), ("backup", "backup")],
        combined: &[] },
    Spec { program: &["chmod"],
        short: &[('R', "recursive"), ('f', "silent"), ('v', "verbose"), ('c', "changes")], short_values: &[],
        long: &[("recursive", "recursive"), ("silent", "silent"), ("quiet", "silent"), ("verbose", "verbose"), ("changes", "changes")],
        combined: &[] },
    Spec { program: &["chown"],
        short: &[('R', "recursive"), ('f', "silent"), ('v', "verbose"), ('c', "changes"), ('h', "no-dereference")], short_values: &[],
        long: &[("recursive", "recursive"), ("silent", "silent"), ("quiet", "silent"), ("verbose", "verbose"), ("changes", "changes"),
                ("no-dereference", "no-dereference")],
        combined: &[] },
    Spec { program: &["git", "push"],
        short: &[('f', "force"), ('d', "delete"), ('u', "set-upstream"), ('n', "dry-run"), ('q', "quiet"), ('v', "verbose")],
        short_values: &[('o', "push-option")],
        long: &[("force", "force"), ("delete", "delete"), ("set-upstream", "set-upstream"), ("dry-run", "dry-run"),
                ("quiet", "quiet"), ("verbose", "verbose"), ("all", "all"), ("mirror", "mirror"), ("tags", "tags"),
                ("no-verify", "no-verify"), ("prune", "prune"), ("atomic", "atomic")],
        combined: &[] },
    Spec { program: &["git", "clean"],
        short: &[('f', "force"), ('d', "d"), ('x', "x"), ('X', "X"), ('n', "dry-run"), ('i', "interactive"), ('q', "quiet")],
        short_values: &[('e', "exclude")],
        long: &[("force", "force"), ("dry-run", "dry-run"), ("interactive", "interactive"), ("quiet", "quiet")],
        combined: &[] },
    Spec { program: &["git", "branch"],
        short: &[('d', "delete"), ('f', "force"), ('m', "move"), ('c', "copy"), ('r', "remotes"), ('a', "all"), ('v', "verbose"), ('q', "quiet")],
        short_values: &[],
        long: &[("delete", "delete"), ("force", "force"), ("move", "move"), ("copy", "copy"), ("remotes", "remotes"),
                ("all", "all"), ("verbose", "verbose"), ("quiet", "quiet")],
        combined: &[('D', &["delete", "force"]), ('M', &["move", "force"]), ('C', &["copy", "force"])] },
    Spec { program: &["git", "checkout"],
        short: &[('f', "force"), ('q', "quiet"), ('m', "merge")], short_values: &[],
        long: &[("force", "force"), ("quiet", "quiet"), ("merge", "merge")],
        combined: &[] },
    Spec { program: &["git", "reset"],
        short: &[('q', "quiet")], short_values: &[],
        long: &[("hard", "hard"), ("soft", "soft"), ("mixed", "mixed"), ("keep", "keep"), ("merge", "merge"), ("quiet", "quiet")],
        combined: &[] },
];

/// A command read as its program's options and operands.
struct Reading {
    options: BTreeSet<String>,
    operands: Vec<String>,
}

fn spec_for(words: &[&str]) -> Option<&'static Spec> {
    SPECS
        .iter()
        .find(|s| words.len() >= s.program.len() && words[..s.program.len()] == *s.program)
}

/// Reads `words` (after the program words) with `spec`. Unknown options are kept as written, so a
/// rule naming them still needs them literally.
fn read(spec: &Spec, words: &[&str]) -> Reading {
    let mut options = BTreeSet::new();
    let mut operands = Vec::new();
    let mut iter = words.iter();
    let mut only_operands = false;
    while let Some(word) = iter.next() {
        if only_operands || *word == "-" || !word.starts_with('-') {
            operands.push((*word).to_string());
            continue;
        }
        if *word == "--" {
            only_operands = true;
            continue;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let canonical = spec
                .long
                .iter()
                .find(|(l, _)| *l == name)
                .map_or(name, |(_, c)| *c);
            options.insert(match value {
                Some(v) => format!("{canonical}={v}"),
                None => canonical.to_string(),
            });
            continue;
        }
        let cluster = &word[1..];
        for (at, letter) in cluster.char_indices() {
            if let Some((_, name)) = spec.short_values.iter().find(|(c, _)| *c == letter) {
                let rest = &cluster[at + letter.len_utf8()..];
                let value = if rest.is_empty() {
                    iter.next().copied().unwrap_or("")
                } else {
                    rest
                };
                options.insert(format!("{name}={value}"));
                break;
            }
            if let Some((_, names)) = spec.combined.iter().find(|(c, _)| *c == letter) {
                options.extend(names.iter().map(|n| n.to_string()));
            } else if let Some((_, name)) = spec.short.iter().find(|(c, _)| *c == letter) {
                options.insert((*name).to_string());
            } else {
                options.insert(format!("-{letter}"));
            }
        }
    }
    Reading { options, operands }
}

/// Whether the deny or ask rule content `rule_content` matches `command` by option set (see the
/// module docs). False when the rule's program is not listed, or its option words hold a wildcard.
pub fn option_set_matches(rule_content: &str, command: &str) -> bool {
    let rule = normalize_whitespace(rule_content);
    let rule = match rule.strip_suffix(":*") {
        Some(prefix) => format!("{} *", prefix.trim_end()),
        None => rule,
    };
    let command = normalize_whitespace(command);
    let rule_words: Vec<&str> = rule.split(' ').collect();
    let command_words: Vec<&str> = command.split(' ').collect();
    let Some(spec) = spec_for(&rule_words) else {
        return false;
    };
    let n = spec.program.len();
    if command_words.len() < n || command_words[..n] != rule_words[..n] {
        return false;
    }
    let rule_args = &rule_words[n..];
    if rule_args
        .iter()
        .any(|w| w.starts_with('-') && w.contains(['*', '\\']))
    {
        return false;
    }
    let wanted = read(spec, rule_args);
    let found = read(spec, &command_words[n..]);
    if !wanted.options.is_subset(&found.options) {
        return false;
    }
    let operands = found.operands.join(" ");
    if wanted.operands.is_empty() {
        return operands.is_empty();
    }
    shell_rule_matches(&wanted.operands.join(" "), &operands)
}

/// A warning for a deny or ask rule whose options can be dodged by spelling them differently: the
/// rule names options of a program whose options are not known here, so they match only as written.
/// Returns the broader rule to consider.
pub fn literal_option_warning(rule_content: &str) -> Option<(String, String)> {
    let rule = normalize_whitespace(rule_content);
    let words: Vec<&str> = rule.split(' ').collect();
    let first_option = words
        .iter()
        .position(|w| w.starts_with('-') && *w != "-" && *w != "--")?;
    if first_option == 0 || spec_for(&words).is_some() {
        return None;
    }
    let program = words[..first_option].join(" ");
    let why = format!(
        "`{rule}` matches the options of `{program}` only as written (`{program}`'s options are not known, so a reordered, \
         combined or long spelling of them would not match)"
    );
    Some((why, format!("{program} *")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn option_spellings_match_the_same_set() {
        for command in [
            "rm -rf build",
            "rm -fr build",
            "rm -r -f build",
            "rm -R -f build",
            "rm --recursive --force build",
            "rm build -rf",
            "rm -rfv build",
            "rm -f -v -r build",
        ] {
            assert!(option_set_matches("rm -rf *", command), "{command}");
        }
        for command in ["rm -r build", "rm build", "rmx -rf build", "rm -f build"] {
            assert!(!option_set_matches("rm -rf *", command), "{command}");
        }
        assert!(option_set_matches(
            "git push --force *",
            "git push -f origin main"
        ));
        assert!(option_set_matches("git push -f:*", "git push origin --force"));
        assert!(!option_set_matches(
            "git push --force *",
            "git push --force-with-lease"
        ));
        assert!(option_set_matches(
            "git branch -D *",
            "git branch --delete --force x"
        ));
        assert!(option_set_matches("git clean -fd", "git clean -d -f"));
        assert!(!option_set_matches("git clean -fd", "git clean -d -f x"));
        assert!(!option_set_matches("curl -X POST *", "curl --request POST x"));
    }

    #[test]
    fn warnings_name_rules_with_unknown_options() {
        let (why, broader) = literal_option_warning("curl -X POST *").unwrap();
        assert!(why.contains("only as written"), "{why}");
        assert_eq!(broader, "curl *");
        assert_eq!(literal_option_warning("rm -rf *"), None);
        assert_eq!(literal_option_warning("git push --force *"), None);
        assert_eq!(literal_option_warning("npm publish"), None);
    }
}
