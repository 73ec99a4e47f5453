//! The parsed command as the permission system sees it.

use std::path::Path;

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{ShellPart, ShellSubject};
use crate::tools::bash::{CommandClass, analyze, fallback_segments};

/// Parses `command` and describes it for permission matching; redirection targets are resolved
/// against `cwd`.
pub fn shell_subject(command: &str, cwd: &Path) -> ShellSubject {
    let analysis = analyze(command);
    let parts = analysis
        .subcommands
        .iter()
        .map(|c| ShellPart {
            as_written: c.as_written.clone(),
            canonical: c.canonical.clone(),
            argv: c.argv.clone(),
            read_only: matches!(c.class, CommandClass::ReadOnly),
            neutral: matches!(c.class, CommandClass::Neutral),
        })
        .collect();
    let write_targets = analysis
        .write_targets
        .iter()
        .map(|t| {
            let p = Path::new(t);
            normalize_lexically(&if p.is_absolute() {
                p.to_path_buf()
            } else {
                cwd.join(p)
            })
        })
        .collect();
    let fallback = if analysis.understood {
        Vec::new()
    } else {
        fallback_segments(command)
    };
    ShellSubject {
        command: command.to_string(),
        understood: analysis.understood,
        not_understood_reason: analysis.not_understood_reason,
        parts,
        write_targets,
        fallback_segments: fallback,
    }
}
