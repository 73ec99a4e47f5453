//! One-line explanations of what the sandbox refused a command, for the model: the hosts its proxy
//! refused (and those the user allowed, so the session records every network request that was
//! asked), and the paths outside the writable ones it failed to write, each with the setting that
//! would allow it.

use std::path::{Path, PathBuf};

use nerve_protocol::SandboxRefusal;

use crate::sandbox::SandboxPolicy;
use crate::sandbox::proxy::{NetworkDecision, NetworkLogEntry};

/// At most this many write-refusal notes per command (a failing `npm install` can print hundreds).
const MAX_PATH_NOTES: usize = 3;

/// A line for each host that was refused or that the user allowed.
pub(crate) fn network_notes(log: &[NetworkLogEntry]) -> Vec<String> {
    log.iter()
        .filter_map(|entry| match &entry.decision {
            NetworkDecision::Refused { reason, .. } => Some(format!(
                "Sandbox: {reason}. Prefer asking for that over dangerouslyDisableSandbox."
            )),
            NetworkDecision::Allowed { by } if by.starts_with("the user") => Some(format!(
                "Sandbox: network access to {}:{} was allowed by {by}.",
                entry.host, entry.port
            )),
            NetworkDecision::Allowed { .. } => None,
        })
        .collect()
}

/// The paths the output says could not be written (`Permission denied`, `Read-only file system`,
/// `EACCES`/`EPERM`) that lie outside the policy's writable paths and that `writable_outside` says
/// the user could write without the sandbox (else the sandbox is not why), each with the
/// `sandbox.filesystem.allowWrite` entry that allows it.
pub(crate) fn write_refusals(
    output: &str,
    policy: &SandboxPolicy,
    home: &Path,
    writable_outside: impl Fn(&Path) -> bool,
) -> Vec<SandboxRefusal> {
    let mut seen: Vec<PathBuf> = Vec::new();
    for line in output.lines() {
        let lower = line.to_ascii_lowercase();
        let refused = [
            "permission denied",
            "read-only file system",
            "eacces",
            "eperm",
            "operation not permitted",
        ]
        .iter()
        .any(|m| lower.contains(m));
        if !refused {
            continue;
        }
        for path in quoted_or_bare_paths(line) {
            let writable = policy.writable.iter().any(|w| path.starts_with(w));
            if !writable && !policy.is_denied(&path) && !seen.contains(&path) && writable_outside(&path) {
                seen.push(path);
            }
        }
        if seen.len() >= MAX_PATH_NOTES {
            break;
        }
    }
    seen.into_iter()
        .map(|path| {
            let setting = match path.strip_prefix(home) {
                Ok(rest) => format!("~/{}", rest.display()),
                Err(_) => path.display().to_string(),
            };
            SandboxRefusal::Write { path, setting }
        })
        .collect()
}

/// The hosts the proxy refused that allowing them in the settings would let through.
pub(crate) fn network_refusals(log: &[NetworkLogEntry]) -> Vec<SandboxRefusal> {
    let mut refusals: Vec<SandboxRefusal> = Vec::new();
    for entry in log {
        if let NetworkDecision::Refused { allowable: true, .. } = entry.decision {
            let refusal = SandboxRefusal::Network {
                host: entry.host.clone(),
                port: entry.port,
            };
            if !refusals.contains(&refusal) {
                refusals.push(refusal);
            }
        }
    }
    refusals
}

/// A line for the model for each refused write ([`write_refusals`]), with the setting that would
/// allow it.
pub(crate) fn write_notes(refusals: &[SandboxRefusal]) -> Vec<String> {
    refusals
        .iter()
        .filter_map(|refusal| match refusal {
            SandboxRefusal::Write { path, setting } => Some(format!(
                "Sandbox: writing {} was refused: it is outside the sandbox's writable paths; to allow it, add \"{setting}\" to sandbox.filesystem.allowWrite in your own settings (ask the user) rather than using dangerouslyDisableSandbox.",
                path.display()
            )),
            SandboxRefusal::Network { .. } => None,
        })
        .collect()
}

/// Whether this process could write `path`: the path itself when it exists, else the nearest
/// folder above it that does (where it would be created).
pub(crate) fn engine_may_write(path: &Path) -> bool {
    use nix::unistd::{AccessFlags, access};
    path.ancestors()
        .find(|p| p.exists())
        .is_some_and(|p| access(p, AccessFlags::W_OK).is_ok())
}

/// Absolute paths on a line: inside quotes (`'…'`, `"…"`, `` `…' ``), or a bare word before a
/// colon (`bash: /x: Permission denied`).
fn quoted_or_bare_paths(line: &str) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for quote in ['\'', '"', '`'] {
        let mut rest = line;
        while let Some(start) = rest.find(quote) {
            let after = &rest[start + 1..];
            let end = after.find(['\'', '"']).unwrap_or(after.len());
            let candidate = &after[..end];
            if candidate.starts_with('/') && !candidate.contains(char::is_whitespace) {
                paths.push(PathBuf::from(candidate));
            }
            rest = &after[(end + 1).min(after.len())..];
        }
    }
    for word in line.split([' ', ',']) {
        let word = word.trim_end_matches(':');
        if word.starts_with('/') && !word.contains(['\'', '"', '`']) {
            paths.push(PathBuf::from(word));
        }
    }
    paths
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn refused_writes_are_named_with_the_setting_that_allows_them() {
        let policy = SandboxPolicy {
            writable: vec![PathBuf::from("/home/u/p"), PathBuf::from("/home/u/.cache/pip")],
            denied: vec![PathBuf::from("/home/u/.ssh")],
            network: false,
            proxy: None,
            write_protected: Vec::new(),
        };
        let home = Path::new("/home/u");
        let cases: &[(&str, Option<&str>)] = &[
            (
                "mkdir: cannot create directory '/home/u/.cache/x': Permission denied",
                Some("/home/u/.cache/x"),
            ),
            ("touch: cannot touch '/etc/x': Permission denied", Some("/etc/x")),
            (
                "bash: /home/u/.bashrc: Permission denied",
                Some("/home/u/.bashrc"),
            ),
            (
                "PermissionError: [Errno 13] Permission denied: '/home/u/.local/lib'",
                Some("/home/u/.local/lib"),
            ),
            (
                "npm ERR! Error: EACCES: permission denied, mkdir '/home/u/.npm-global'",
                Some("/home/u/.npm-global"),
            ),
            (
                "error: failed to open `/home/u/.rustup/tmp': Read-only file system",
                Some("/home/u/.rustup/tmp"),
            ),
            (
                "cp: cannot create regular file '/home/u/p/x': Permission denied",
                None,
            ),
            ("open /home/u/.cache/pip/x: permission denied", None),
            ("cat: /home/u/.ssh/id_rsa: Permission denied", None),
            ("everything fine in /home/u/.bashrc", None),
        ];
        for (line, want) in cases {
            let notes = write_notes(&write_refusals(line, &policy, home, |_| true));
            match want {
                Some(path) => {
                    assert_eq!(notes.len(), 1, "{line}: {notes:?}");
                    assert!(
                        notes[0].contains(&format!("writing {path} was refused")),
                        "{line}: {notes:?}"
                    );
                    assert!(notes[0].contains("sandbox.filesystem.allowWrite"), "{notes:?}");
                }
                None => assert_eq!(notes, Vec::<String>::new(), "{line}"),
            }
        }
        println!("checked {} failure lines", cases.len());
        let line = "bash: /home/u/.bashrc: Permission denied";
        assert_eq!(
            write_refusals(line, &policy, home, |_| false),
            Vec::<SandboxRefusal>::new(),
            "not the sandbox's doing: the user cannot write there either"
        );
        assert_eq!(
            write_refusals(line, &policy, home, |_| true),
            vec![SandboxRefusal::Write {
                path: PathBuf::from("/home/u/.bashrc"),
                setting: "~/.bashrc".into()
            }],
            "the card's one-click entry"
        );
        assert_eq!(
            write_notes(&write_refusals(line, &policy, home, |_| true)),
            vec!["Sandbox: writing /home/u/.bashrc was refused: it is outside the sandbox's writable paths; to allow it, add \"~/.bashrc\" to sandbox.filesystem.allowWrite in your own settings (ask the user) rather than using dangerouslyDisableSandbox.".to_string()]
        );
    }
}
