//! What the analysis of one shell command reports to the permission resolver.

/// How a single simple command affects the machine, judged from its program and arguments alone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandClass {
    /// Only reads or searches (a known program with no option that writes or runs other programs).
    ReadOnly,
    /// Neither reads nor writes anything that matters (`echo`, `true`, `test`); it does not stop a
    /// compound from being read-only.
    Neutral,
    /// Anything else: may write, run other programs, or is simply unknown. Carries a short reason.
    Other(String),
}

/// One simple command found anywhere in the input, including inside substitutions, loops and
/// `bash -c` scripts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimpleCommand {
    /// Words after quote removal, with wrappers (`timeout`, `nice`, `env A=1`, `sudo` ...) and
    /// leading `VAR=value` assignments stripped. Expansions keep their source text (`$HOME`).
    pub argv: Vec<String>,
    /// The text allow rules match: `argv` joined with single spaces, preceded by what changes how it
    /// runs and what a rule must therefore name to cover it: environment assignments that are not
    /// known to be harmless (`LD_PRELOAD=./x.so git status`) and privilege runners
    /// (`sudo apt update`). See [`crate::tools::bash::env_names`].
    pub as_written: String,
    /// Like `as_written` with the program reduced to its basename (`/bin/rm -rf x` -> `rm -rf x`),
    /// for deny-rule matching.
    pub canonical: String,
    /// Whether this command only reads.
    pub class: CommandClass,
    /// Some argument is only known at run time (`$VAR`, `$(..)`, `<(..)`, or arguments `xargs` reads
    /// from standard input), so rules matched against the text may not see what actually runs.
    pub dynamic: bool,
    /// Which words are only known at run time, and what is known about them.
    pub run_time: RunTimeWords,
}

/// What is known about the words of a command that get their value at run time.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunTimeWords {
    /// Indices into `argv` of words with an expansion (`$X`, `$(..)`); glob and brace words are not
    /// counted.
    pub words: Vec<usize>,
    /// Values a `for` loop gives a variable that whole words of this command name (`"$f"` in `for f
    /// in *.txt; do wc -l "$f"; done`), when every value is known before running and nothing else
    /// in the command assigns the variable.
    pub loops: Vec<LoopValues>,
}

/// The values a `for` loop gives its variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoopValues {
    /// The variable.
    pub name: String,
    /// The loop's words after quote removal; glob words keep their pattern (`*.txt`).
    pub values: Vec<String>,
}

impl SimpleCommand {
    /// Builds the matching texts from `argv`. For an assignment-only statement (`x=1`) the first word
    /// is not a program, so it is not reduced to a basename.
    pub(crate) fn new(argv: Vec<String>, class: CommandClass, dynamic: bool, has_program: bool) -> Self {
        let as_written = argv.join(" ");
        let canonical = match argv.split_first() {
            Some((program, rest)) if has_program => {
                let mut parts = vec![crate::tools::bash::words::basename(program)];
                parts.extend(rest.iter().map(String::as_str));
                parts.join(" ")
            }
            Some(_) | None => as_written.clone(),
        };
        Self {
            argv,
            as_written,
            canonical,
            class,
            dynamic,
            run_time: RunTimeWords::default(),
        }
    }

    /// Records what is known about the words only known at run time.
    pub(crate) fn with_run_time(mut self, run_time: RunTimeWords) -> Self {
        self.run_time = run_time;
        self
    }

    /// Puts `prefix` (kept assignments, a privilege runner) in front of the allow-matching text.
    pub(crate) fn with_prefix(mut self, prefix: &[String]) -> Self {
        if !prefix.is_empty() {
            self.as_written = format!("{} {}", prefix.join(" "), self.as_written);
        }
        self
    }
}

/// The result of analysing a whole command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandAnalysis {
    /// False when the input has a syntax error or uses any syntax this analysis does not model. The
    /// resolver must then ask, and deny if a deny rule could match any part (see
    /// [`crate::tools::bash::fallback_segments`]).
    pub understood: bool,
    /// Why the command was not understood (the first reason found).
    pub not_understood_reason: Option<String>,
    /// Every simple command found, in source order of their start (substitutions inside a command
    /// come before the command that uses their output, as bash runs them).
    pub subcommands: Vec<SimpleCommand>,
    /// Files that redirections write (`>`, `>>`, `&>`, `2>`, `>|`, `<>` ...), excluding `/dev/null`,
    /// `/dev/stdout`, `/dev/stderr` and fd duplications. Paths are as written, relative to the
    /// command's working directory.
    pub write_targets: Vec<String>,
    /// Those of `write_targets` that a redirection truncates (`>`, `>|`, `&>`, `>& file`) instead of
    /// appending to (`>>`) or opening read-write (`<>`): overwriting an existing file destroys it.
    pub truncated_targets: Vec<String>,
    /// Files that input redirections read (`<`, `0<`, `<>`, `<&` with a path), as written, excluding
    /// `/dev/null`, `/dev/stdin` and the like. A read-write `<>` target is in `write_targets` too.
    pub read_targets: Vec<String>,
    /// Redirection targets that open network connections (`/dev/tcp/HOST/PORT`, `/dev/udp/...`).
    pub network_targets: Vec<String>,
}

impl CommandAnalysis {
    /// Texts a deny rule should be checked against: every subcommand's `canonical` and `as_written`
    /// form and, when the command was not understood, every crude segment of `command` (see
    /// [`crate::tools::bash::fallback_segments`]), so a deny rule that could match any part does.
    /// `command` must be the text this analysis was made from.
    pub fn deny_candidates(&self, command: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut add = |text: &str| {
            if !out.iter().any(|t| t == text) {
                out.push(text.to_string());
            }
        };
        for sub in &self.subcommands {
            add(&sub.canonical);
            add(&sub.as_written);
        }
        if !self.understood {
            for segment in crate::tools::bash::fallback_segments(command) {
                add(&segment);
            }
        }
        out
    }

    /// True when running the command cannot change anything: it was understood, writes no file
    /// through a redirection, opens no network connection through one, and every subcommand is read-only or neutral. A command made only of
    /// neutral parts (`echo hi`, `true`) counts as read-only, since neither part writes; an empty
    /// command (only comments) counts too.
    pub fn is_read_only(&self) -> bool {
        self.understood
            && self.write_targets.is_empty()
            && self.network_targets.is_empty()
            && self.subcommands.iter().all(|c| match c.class {
                CommandClass::ReadOnly | CommandClass::Neutral => true,
                CommandClass::Other(_) => false,
            })
    }
}
