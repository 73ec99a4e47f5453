//! The CLI's exit codes, one meaning each, and how an error is printed.

/// How a `nerve` command ended. Clap itself exits with 2 for a usage error, so 2 means nothing else.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// It did what was asked.
    Success,
    /// It failed: an error, a failed turn or tool call, a conflict, no key.
    Failure,
    /// It did only part of what was asked: a rewind left files that changed since as they are.
    Partial,
    /// It did nothing because it would lose work: run it again with the flag it names.
    NeedsConfirmation,
}

/// The codes, as `--help` lists them.
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0  success
  1  failure (an error, a failed turn or tool call, a conflict)
  2  usage error (unknown option, missing argument)
  3  done in part (`rewind` left files that changed since as they are)
  4  nothing done: it would lose work without a confirming flag (`worktree discard --yes`)";

impl Exit {
    /// The process's exit status.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Partial => 3,
            Exit::NeedsConfirmation => 4,
        }
    }

    /// Success or failure.
    pub fn failed_if(failed: bool) -> Exit {
        if failed { Exit::Failure } else { Exit::Success }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

/// An error as one line: its message, then each cause its message does not already say. Many
/// errors quote their cause in their own text ("could not look up the API credentials: no key…")
/// and also keep it as their source; printing both would say the cause twice.
pub fn error_line(error: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in error.chain() {
        let text = cause.to_string();
        if text.is_empty() || line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("could not look up the API credentials: {0}")]
    struct Quoting(#[source] Inner);

    #[derive(Debug, thiserror::Error)]
    #[error("no Anthropic API key")]
    struct Inner;

    #[derive(Debug, thiserror::Error)]
    #[error("could not start the session")]
    struct Naming(#[source] Inner);

    #[test]
    fn a_cause_is_said_once_whether_or_not_the_error_quotes_it() {
        let quoting = anyhow::Error::new(Quoting(Inner));
        assert_eq!(
            error_line(&quoting),
            "could not look up the API credentials: no Anthropic API key"
        );
        let naming = anyhow::Error::new(Naming(Inner)).context("nerve -p");
        assert_eq!(
            error_line(&naming),
            "nerve -p: could not start the session: no Anthropic API key"
        );
    }

    #[test]
    fn every_code_is_listed_in_the_help() {
        for exit in [
            Exit::Success,
            Exit::Failure,
            Exit::Partial,
            Exit::NeedsConfirmation,
        ] {
            assert!(
                EXIT_CODES_HELP.contains(&format!("  {}  ", exit.code())),
                "{exit:?}"
            );
        }
        assert!(EXIT_CODES_HELP.contains("  2  usage error"));
    }
}
