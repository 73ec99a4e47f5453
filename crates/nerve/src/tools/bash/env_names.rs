//! Environment variables that change which program runs or make a read-only program run another one.
//!
//! `GIT_EXTERNAL_DIFF='rm -rf ~' git diff` runs `rm`; `PATH=/tmp/x ls` runs whatever `/tmp/x/ls` is.
//! An assignment to one of these names in front of (or before) a command makes that command `Other`.
//! This is a deny list over names, so it is the one place where an unknown name passes: the programs
//! that can be read-only here are few, and these are the variables they (or the loader, or git) read
//! to find code or configuration.

/// Names matched exactly.
const EXACT: &[&str] = &[
    "PATH",                // which binary a name runs
    "HOME",                // where git, jq, ripgrep look for configuration
    "XDG_CONFIG_HOME",     // the same, for XDG-aware programs (git, fd)
    "IFS",                 // how later unquoted expansions split
    "PS4",                 // expanded (with command substitution) by `set -x`
    "SHELLOPTS",           // imported shell options (xtrace with PS4)
    "BASHOPTS",            // imported shell options
    "BASH_ENV",            // sourced by every non-interactive bash
    "ENV",                 // sourced by sh
    "SHELL",               // programs spawn it to run commands
    "PROMPT_COMMAND",      // run before each prompt
    "EDITOR",              // run by git and others
    "VISUAL",              // the same
    "PAGER",               // run by git, man, less front-ends
    "MANPAGER",            // the same for man
    "RIPGREP_CONFIG_PATH", // a config file may add `--pre=PROGRAM`
    "GREP_OPTIONS",        // extra grep options (obsolete but still read by some greps)
    "FZF_DEFAULT_COMMAND", // a command line run by fzf
];

/// Name prefixes: whole families of code-loading or git-steering variables.
const PREFIXES: &[&str] = &[
    "LD_",        // LD_PRELOAD, LD_LIBRARY_PATH: injects code into any dynamic binary
    "DYLD_",      // the macOS loader's equivalent
    "GIT_",       // GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_SSH_COMMAND, GIT_CONFIG_* ...
    "LESS",       // LESSOPEN/LESSCLOSE run a preprocessor, LESSKEY* rebinding
    "BASH_FUNC_", // exported shell functions
];

/// Name suffixes shared by option and helper-program variables of many tools.
const SUFFIXES: &[&str] = &["_PAGER", "_EDITOR", "_OPTIONS", "_OPTS", "_COMMAND"];

/// True when assigning `name` can change what a following command runs.
pub(crate) fn is_sensitive(name: &str) -> bool {
    EXACT.contains(&name)
        || PREFIXES.iter().any(|p| name.starts_with(p))
        || SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// True for a valid shell variable name (`[A-Za-z_][A-Za-z0-9_]*`).
pub(crate) fn is_valid_name(name: &str) -> bool {
    let mut chars = name.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dangerous_names_are_recognised() {
        for name in [
            "PATH",
            "LD_PRELOAD",
            "GIT_EXTERNAL_DIFF",
            "LESSOPEN",
            "NODE_OPTIONS",
            "GIT_PAGER",
        ] {
            assert!(is_sensitive(name), "{name}");
        }
        for name in ["FOO", "LANG", "LC_ALL", "TZ", "RUST_LOG"] {
            assert!(!is_sensitive(name), "{name}");
        }
    }

    #[test]
    fn names_are_validated() {
        assert!(is_valid_name("_a1"));
        assert!(!is_valid_name("1a"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("a-b"));
    }
}
