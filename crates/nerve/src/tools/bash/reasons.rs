//! Why a command is not read-only or not understood, as typed values.
//!
//! The texts are what the user reads in a permission prompt and what the model reads when a call is
//! refused, so they are written here once; the classifier and the wrapper stripping return these
//! values and the analysis turns them into its reasons at the one place it records them.

/// Why a known program's arguments make it more than a reader.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ArgRefusal {
    /// An option that writes a file or runs a program (`find -exec`, `sort -o`, `git --output`).
    #[error("`{program} {arg}` can write files or run other programs")]
    WritesOrRuns { program: &'static str, arg: String },
    /// `uniq IN OUT`, `xxd IN OUT`.
    #[error("`{program}` with a second file argument writes its output there")]
    WritesSecondFile { program: &'static str },
    /// `date -s`, `date --set`.
    #[error("`date -s` sets the system clock")]
    SetsClockOption,
    /// `date MMDDhhmm`.
    #[error("`date {0}` sets the system clock")]
    SetsClock(String),
    /// `xxd -r`.
    #[error("`xxd -r` writes binary output")]
    RevertsToBinary,
    /// A script or program argument that writes, runs or reads something besides its operands
    /// (`sed w`, `awk system()`, `sed -i`, `awk -f prog`).
    #[error("`{program}`: {why}")]
    Script { program: &'static str, why: String },
    /// `tail -f`, `sleep infinity`: runs until it is stopped.
    #[error("`{0}` never ends by itself (it runs until it is stopped)")]
    NeverEnds(String),
    /// `git` alone, or only global options.
    #[error("`git` without a subcommand")]
    GitWithoutSubcommand,
    /// `git -c core.pager=x log`, `git --git-dir=... status`.
    #[error("`git {0}` before the subcommand is not accepted as read-only")]
    GitGlobalOption(String),
    /// `git grep -O`.
    #[error("`git grep -O` opens the files in a program")]
    GitGrepOpensFiles,
    /// `git remote add ...`.
    #[error("`git remote` with these arguments can change remotes")]
    GitRemoteChange,
    /// `git reflog expire`.
    #[error("only `git reflog` and `git reflog show` are read-only")]
    GitReflogChange,
    /// `git stash`, `git stash pop`.
    #[error("only `git stash list` and `git stash show` are read-only")]
    GitStashChange,
    /// `git worktree add`.
    #[error("only `git worktree list` is read-only")]
    GitWorktreeChange,
    /// `git commit`, `git push`, anything not listed as reading.
    #[error("`git {0}` is not a known read-only git command")]
    GitUnknownSubcommand(String),
    /// `git branch -d x`.
    #[error("`git {command} {arg}` is not a listing option")]
    GitNotListing { command: &'static str, arg: String },
    /// `git branch new-name`.
    #[error("`git {command} {arg}` creates or changes a {command}")]
    GitCreates { command: &'static str, arg: String },
    /// `git config user.name x`.
    #[error("`git config` without --get or --list can change configuration")]
    GitConfigWithoutRead,
    /// `git config --get x --add y`.
    #[error("`git config {0}` is not a reading option")]
    GitConfigOption(String),
}

/// Why a wrapper or runner in front of a command (`timeout`, `env`, `sudo`, `xargs`, `bash -c`,
/// `eval`, `trap`) cannot be stripped, so the command is not understood and the user is asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Unmodelled {
    /// `$CMD args`.
    #[error("the command name `{0}` is only known at run time")]
    RuntimeCommandName(String),
    /// `ls*`, `{a,b}`.
    #[error("the command name `{0}` would be glob- or brace-expanded")]
    ExpandedCommandName(String),
    /// `timeout $T cmd`.
    #[error("wrapper argument `{0}` is only known at run time")]
    RuntimeWrapperArgument(String),
    /// An option this analysis does not know (`timeout --foo`, `sudo -E`, `env -i`, `xargs -J`).
    #[error("`{program} {arg}` is not modelled")]
    Option { program: String, arg: String },
    /// `sudo $OPT cmd`.
    #[error("option `{arg}` of `{program}` is only known at run time")]
    RuntimeOption { program: String, arg: String },
    /// `chroot $ROOT cmd`.
    #[error("argument `{arg}` of `{program}` is only known at run time")]
    RuntimeArgument { program: String, arg: String },
    /// `xargs $OPT`, `trap "$A" EXIT`.
    #[error("`{program}` argument `{arg}` is only known at run time")]
    RuntimeWord { program: &'static str, arg: String },
    /// `watch $CMD`.
    #[error("`{program}` command word `{word}` is only known at run time")]
    RuntimeCommandWord { program: String, word: String },
    /// `sudo -u` at the end.
    #[error("an option of `{0}` is missing its value")]
    MissingValue(String),
    /// A program looked up as a runner that has no grammar.
    #[error("`{0}` is not a known runner")]
    NotARunner(String),
    /// `xargs --process-slot-var=NAME`.
    #[error("`xargs --process-slot-var` sets an environment variable")]
    XargsSetsVariable,
    /// `exec -a rm busybox x`: a multi-call program run under another name becomes that program.
    #[error("`exec -a` in front of a multi-call program (busybox, toybox) is not modelled")]
    ExecWithOptions,
    /// `env 1X=y cmd`.
    #[error("`env {0}` does not assign a plain variable")]
    EnvNotPlainAssignment(String),
    /// `eval "$X"`.
    #[error("`eval` of `{0}`, which is only known at run time")]
    RuntimeEval(String),
    /// `bash $FLAGS -c ...`.
    #[error("shell argument `{0}` is only known at run time")]
    RuntimeShellArgument(String),
    /// `bash -o posix -c ...`.
    #[error("shell `-o` option is not modelled")]
    ShellSetOption,
    /// `bash -i -c ...`.
    #[error("shell option `{0}` is not modelled")]
    ShellOption(String),
    /// `bash -c "$S"`.
    #[error("shell script `{0}` is only known at run time")]
    RuntimeShellScript(String),
    /// `bash -c` at the end.
    #[error("shell `-c` without a script")]
    ShellWithoutScript,
}
