//! Environment assignments in front of a command (`NAME=value cmd`, `env NAME=value cmd`), judged by
//! name. This is the one place that lists them.
//!
//! Three kinds:
//!
//! - **Code-steering** ([`EnvKind::Steering`]): the variable can make a program load or run other
//!   code, or read configuration that does (`LD_PRELOAD`, `GIT_EXTERNAL_DIFF`, `NODE_OPTIONS`,
//!   `PAGER`...). The command is never read-only, and an allow rule covers it only when the rule's
//!   text names the assignment (`Bash(GIT_PAGER=delta git log *)`): `Bash(git *)` does not cover
//!   `LD_PRELOAD=./x.so git status`.
//! - **Harmless** ([`EnvKind::Harmless`]): locale, colours, time zone, log levels and similar
//!   settings that change how a program prints, not what it runs. They are dropped before matching,
//!   so `RUST_LOG=debug cargo test` meets `Bash(cargo test *)`.
//! - **Unknown**: anything else. Failing closed, it is treated like a code-steering variable: an
//!   allow rule must name it, and the command is not read-only.
//!
//! A pager or editor variable set to `cat` (or nothing) runs nothing new, so `GIT_PAGER=cat git log`
//! stays read-only and covered by `Bash(git *)`.

/// How an assignment in front of a command is judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EnvKind {
    /// Changes only how the program prints: dropped before matching.
    Harmless,
    /// Can change what the program runs or loads: kept in the matched text, never read-only.
    Steering,
    /// Not listed: judged like [`EnvKind::Steering`] (fail closed).
    Unknown,
}

/// Names that make a program (or the dynamic loader, or a shell it starts) load or run other code,
/// or read configuration that can.
#[rustfmt::skip]
const STEERING_EXACT: &[&str] = &[
    "PATH",                // which binary a name runs
    "HOME",                // where git, jq, ripgrep, npm look for configuration
    "IFS",                 // how later unquoted expansions split
    "PS4",                 // expanded (with command substitution) by `set -x`
    "SHELLOPTS", "BASHOPTS", // imported shell options (xtrace with PS4)
    "BASH_ENV", "ENV",     // sourced by every non-interactive bash / sh
    "SHELL",               // programs spawn it to run commands
    "PROMPT_COMMAND",      // run before each prompt
    "EDITOR", "VISUAL",    // run by git, crontab, less `v`
    "PAGER", "MANPAGER",   // run by git, man, psql
    "BROWSER",             // run by xdg-open, git web--browse, python's webbrowser
    "TERMINAL",
    "SSH_ASKPASS", "SUDO_ASKPASS", // programs run to ask for passwords
    "RIPGREP_CONFIG_PATH", // a config file may add `--pre=PROGRAM`
    "GREP_OPTIONS",        // extra grep options
    "FZF_DEFAULT_COMMAND", // a command line run by fzf
    "NODE_OPTIONS",        // `--require ./x.js` runs code in every node process
    "NODE_PATH",           // where `require` finds modules
    "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONINSPECT",
    "PERL5OPT", "PERL5LIB", "PERLLIB", "PERL5DB",
    "RUBYOPT", "RUBYLIB",
    "CLASSPATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    "GCONV_PATH",          // glibc loads charset converters from here
    "TERMINFO", "TERMINFO_DIRS",
    "INPUTRC", "ZDOTDIR",
    "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC",
    "CC", "CXX", "LD", "AR", "CPP", "MAKEFLAGS", "MAKE",
    "OPENSSL_CONF", "OPENSSL_ENGINES",
    "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
    "DOCKER_HOST", "KUBECONFIG",
];

/// Name prefixes: whole families of code-loading or tool-steering variables.
#[rustfmt::skip]
const STEERING_PREFIXES: &[&str] = &[
    "LD_",         // LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT: inject code into any dynamic binary
    "DYLD_",       // the macOS loader's equivalent
    "GIT_",        // GIT_EXTERNAL_DIFF, GIT_PAGER, GIT_SSH_COMMAND, GIT_CONFIG_*, GIT_EXEC_PATH...
    "LESS",        // LESSOPEN/LESSCLOSE run a preprocessor, LESSKEY* rebinding
    "BASH_FUNC_",  // exported shell functions
    "CARGO_",      // CARGO_TARGET_<triple>_RUNNER, CARGO_BUILD_RUSTC_WRAPPER run programs
    "NPM_CONFIG_", "npm_config_", // npm_config_script_shell picks the shell for scripts
    "YARN_", "PNPM_",
    "PIP_",        // PIP_INDEX_URL, PIP_CONFIG_FILE: where code is installed from
    "PYTHON",      // the rest of CPython's start-up switches
];

/// Name suffixes shared by option and helper-program variables of many tools.
const STEERING_SUFFIXES: &[&str] = &[
    "_PAGER", "_EDITOR", "_OPTIONS", "_OPTS", "_COMMAND", "_CMD", "_PROGRAM", "_PATH", "_ASKPASS",
];

/// Names known to change only how a program formats its output or what it logs.
#[rustfmt::skip]
const HARMLESS: &[&str] = &[
    "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_COLLATE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME",
    "LC_MONETARY", "CHARSET", "TZ",
    "TERM", "COLORTERM", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "COLUMNS", "LINES",
    "LS_COLORS", "LSCOLORS", "GREP_COLOR", "GREP_COLORS", "GCC_COLORS", "TIME_STYLE", "BLOCK_SIZE",
    "BLOCKSIZE", "POSIXLY_CORRECT",
    "RUST_LOG", "RUST_BACKTRACE", "RUST_LIB_BACKTRACE", "RUST_TEST_THREADS", "RUST_MIN_STACK",
    "NODE_ENV", "NODE_NO_WARNINGS", "DEBUG", "CI", "VERBOSE",
    "PYTHONUNBUFFERED", "PYTHONDONTWRITEBYTECODE", "PYTHONIOENCODING", "PYTHONHASHSEED",
    "PYTHONWARNINGS",
    "GOOS", "GOARCH", "CGO_ENABLED", "GOEXPERIMENT",
];

/// Pager and editor variables (`PAGER`, `GIT_PAGER`, `SYSTEMD_PAGER`...) set to one of these run
/// nothing new.
const INERT_PAGERS: &[&str] = &["", "cat"];

/// Judges an assignment of `value` to `name` in front of a command.
pub(crate) fn env_kind(name: &str, value: &str) -> EnvKind {
    let pager_like = name == "PAGER" || name.ends_with("_PAGER") || name == "MANPAGER";
    if pager_like && INERT_PAGERS.contains(&value) {
        return EnvKind::Harmless;
    }
    // The harmless list is checked before the families, so `PYTHONUNBUFFERED` is not caught by the
    // `PYTHON` prefix.
    if HARMLESS.contains(&name) {
        return EnvKind::Harmless;
    }
    if is_sensitive(name) {
        return EnvKind::Steering;
    }
    EnvKind::Unknown
}

/// True when assigning `name` can change what a following command runs, whatever the value. Used
/// where the value does not matter (loop variables, assignment-only statements).
pub(crate) fn is_sensitive(name: &str) -> bool {
    !HARMLESS.contains(&name)
        && (STEERING_EXACT.contains(&name)
            || STEERING_PREFIXES.iter().any(|p| name.starts_with(p))
            || STEERING_SUFFIXES.iter().any(|s| name.ends_with(s)))
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
            "PYTHONSTARTUP",
            "PYTHONPATH",
            "PERL5OPT",
            "RUBYOPT",
            "BASH_ENV",
            "ENV",
            "DYLD_INSERT_LIBRARIES",
            "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER",
            "npm_config_script_shell",
        ] {
            assert!(is_sensitive(name), "{name}");
            assert_eq!(env_kind(name, "./x"), EnvKind::Steering, "{name}");
        }
        for name in ["LANG", "LC_ALL", "TZ", "RUST_LOG", "PYTHONUNBUFFERED", "NO_COLOR"] {
            assert!(!is_sensitive(name), "{name}");
            assert_eq!(env_kind(name, "1"), EnvKind::Harmless, "{name}");
        }
        assert_eq!(env_kind("FOO", "1"), EnvKind::Unknown);
        assert_eq!(env_kind("GIT_PAGER", "cat"), EnvKind::Harmless);
        assert_eq!(env_kind("PAGER", ""), EnvKind::Harmless);
        assert_eq!(env_kind("GIT_PAGER", "less"), EnvKind::Steering);
    }

    #[test]
    fn names_are_validated() {
        assert!(is_valid_name("_a1"));
        assert!(!is_valid_name("1a"));
        assert!(!is_valid_name(""));
        assert!(!is_valid_name("a-b"));
    }
}
