//! The environment of the processes the engine starts for the user (Bash commands, hooks, MCP
//! servers, the browser for a sign-in): the user's, as the host process got it.
//!
//! A host may change its own environment for helpers of its own that inherit it. The desktop app
//! tunes glibc's allocator for its web view's processes, which WebKit starts with the app's
//! environment and no other way in. Such a change is not the user's: a build run from the
//! conversation must not get another allocator policy because the app drew it. The host says which
//! variables it changed and what the user had ([`keep_user_values`]); every process started for the
//! user gets those back ([`as_user`]).

use std::ffi::OsString;
use std::process::Command;
use std::sync::OnceLock;

/// A variable the host changed for itself, and the user's value (`None`: it was not set).
type UserValue = (OsString, Option<OsString>);

static USER_VALUES: OnceLock<Vec<UserValue>> = OnceLock::new();

/// Records the user's values of variables the host is about to change in its own environment, so
/// that the processes started for the user keep them. Called once, before the change; a second
/// call changes nothing and returns false.
pub fn keep_user_values(values: Vec<(OsString, Option<OsString>)>) -> bool {
    USER_VALUES.set(values).is_ok()
}

/// Gives `command` the user's values of the variables the host changed for itself (a tokio
/// command through `as_std_mut`). A value the caller sets after this call wins.
pub fn as_user(command: &mut Command) -> &mut Command {
    restore(command, USER_VALUES.get().map_or(&[][..], Vec::as_slice))
}

fn restore<'a>(command: &'a mut Command, values: &[UserValue]) -> &'a mut Command {
    for (name, user) in values {
        match user {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
    command
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    /// What a command will give its process: the variables it sets (`Some`) or removes (`None`).
    fn changes(command: &Command) -> Vec<(&OsStr, Option<&OsStr>)> {
        let mut all: Vec<_> = command.get_envs().collect();
        all.sort();
        all
    }

    #[test]
    fn a_variable_the_user_had_gets_their_value_and_one_they_had_not_is_removed() {
        let mut command = Command::new("true");
        restore(
            &mut command,
            &[
                ("GLIBC_TUNABLES".into(), None),
                ("MALLOC_ARENA_MAX".into(), Some("4".into())),
            ],
        );
        assert_eq!(
            changes(&command),
            vec![
                (OsStr::new("GLIBC_TUNABLES"), None),
                (OsStr::new("MALLOC_ARENA_MAX"), Some(OsStr::new("4"))),
            ]
        );
    }

    #[test]
    fn nothing_recorded_changes_nothing() {
        let mut command = Command::new("true");
        restore(&mut command, &[]);
        assert_eq!(changes(&command), vec![]);
    }
}
