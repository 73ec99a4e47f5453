//! Recognising an in-place `sed` edit that can be previewed: the whole command is one simple
//! `sed -i` command with literal arguments and only options whose effect a `sed --sandbox` run
//! without `-i` reproduces exactly.

use crate::tools::bash::{CommandClass, analyze_shared};

/// A `sed -i` invocation, taken apart.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SedInPlace {
    /// Options passed through to the simulation (`-E`, `-n`, `-z`, `-s`).
    pub flags: Vec<String>,
    /// The scripts, in order (each `-e`, or the first operand).
    pub scripts: Vec<String>,
    /// The files, as written.
    pub files: Vec<String>,
    /// The backup suffix of `-iSUFFIX`, if any.
    pub backup_suffix: Option<String>,
}

/// Parses `command` as exactly one previewable `sed -i` command, or `None`.
pub(crate) fn parse_sed_in_place(command: &str) -> Option<SedInPlace> {
    // No wrapper (`timeout 5 sed`), assignment (`X=1 sed`) or path (`/bin/sed`): the text must start
    // with the program itself, since the analysis strips those.
    let rest = command.trim_start().strip_prefix("sed")?;
    if !rest.starts_with([' ', '\t']) {
        return None;
    }
    let analysis = analyze_shared(command);
    if !analysis.understood || !analysis.write_targets.is_empty() || analysis.subcommands.len() != 1 {
        return None;
    }
    let sub = &analysis.subcommands[0];
    if sub.dynamic
        || matches!(sub.class, CommandClass::ReadOnly)
        || sub.argv.first().map(String::as_str) != Some("sed")
    {
        return None;
    }
    parse_args(&sub.argv[1..])
}

fn parse_args(args: &[String]) -> Option<SedInPlace> {
    let mut flags = Vec::new();
    let mut scripts = Vec::new();
    let mut operands = Vec::new();
    let mut in_place = false;
    let mut backup_suffix = None;
    let mut iter = args.iter();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        if options_done || arg == "-" || !arg.starts_with('-') {
            operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match long.split_once('=') {
                Some(("in-place", suffix)) => {
                    in_place = true;
                    backup_suffix = Some(suffix.to_string()).filter(|s| !s.is_empty());
                }
                Some(("expression", script)) => scripts.push(script.to_string()),
                Some(_) => return None,
                None => match long {
                    "in-place" => in_place = true,
                    "expression" => scripts.push(iter.next()?.clone()),
                    "regexp-extended" => flags.push("-E".to_string()),
                    "quiet" | "silent" => flags.push("-n".to_string()),
                    "null-data" => flags.push("-z".to_string()),
                    "separate" => flags.push("-s".to_string()),
                    _ => return None,
                },
            }
            continue;
        }
        // A cluster of short options: `-nE`, `-i.bak`, `-e's/a/b/'`.
        let cluster = &arg[1..];
        for (pos, c) in cluster.char_indices() {
            let rest = &cluster[pos + c.len_utf8()..];
            match c {
                'E' | 'r' => flags.push("-E".to_string()),
                'n' => flags.push("-n".to_string()),
                'z' => flags.push("-z".to_string()),
                's' => flags.push("-s".to_string()),
                'i' => {
                    in_place = true;
                    backup_suffix = Some(rest.to_string()).filter(|s| !s.is_empty());
                    break;
                }
                'e' => {
                    scripts.push(if rest.is_empty() {
                        iter.next()?.clone()
                    } else {
                        rest.to_string()
                    });
                    break;
                }
                _ => return None,
            }
        }
    }
    if scripts.is_empty() {
        if operands.is_empty() {
            return None;
        }
        scripts.push(operands.remove(0));
    }
    // `*` in a suffix names a backup folder pattern; `/` puts it elsewhere: not simulated.
    if !in_place || operands.is_empty() || operands.iter().any(|f| f == "-") {
        return None;
    }
    if backup_suffix.as_deref().is_some_and(|s| s.contains(['*', '/'])) {
        return None;
    }
    Some(SedInPlace {
        flags,
        scripts,
        files: operands,
        backup_suffix,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn sed(flags: &[&str], scripts: &[&str], files: &[&str], suffix: Option<&str>) -> Option<SedInPlace> {
        Some(SedInPlace {
            flags: flags.iter().map(|s| s.to_string()).collect(),
            scripts: scripts.iter().map(|s| s.to_string()).collect(),
            files: files.iter().map(|s| s.to_string()).collect(),
            backup_suffix: suffix.map(str::to_string),
        })
    }

    #[test]
    fn accepted_forms() {
        assert_eq!(
            parse_sed_in_place("sed -i 's/a/b/' f.txt"),
            sed(&[], &["s/a/b/"], &["f.txt"], None)
        );
        assert_eq!(
            parse_sed_in_place("sed -i.bak -e 's/a/b/' -e '2d' f g"),
            sed(&[], &["s/a/b/", "2d"], &["f", "g"], Some(".bak"))
        );
        assert_eq!(
            parse_sed_in_place("sed -E -n --in-place --expression='s/(a)/\\1/p' f"),
            sed(&["-E", "-n"], &["s/(a)/\\1/p"], &["f"], None)
        );
        assert_eq!(
            parse_sed_in_place("sed -Ei s/a/b/ f"),
            sed(&["-E"], &["s/a/b/"], &["f"], None)
        );
        assert_eq!(
            parse_sed_in_place("sed -r --in-place=.orig -- s/a/b/ -f"),
            sed(&["-E"], &["s/a/b/"], &["-f"], Some(".orig"))
        );
    }

    #[test]
    fn refused_forms() {
        for cmd in [
            "sed 's/a/b/' f",                    // not in place
            "sed -i 's/a/b/'",                   // no file
            "sed -i 's/a/b/' f && ls",           // more than sed
            "sed -i 's/a/b/' f > out",           // redirection
            "timeout 5 sed -i 's/a/b/' f",       // wrapper
            "X=1 sed -i 's/a/b/' f",             // assignment
            "/bin/sed -i 's/a/b/' f",            // path
            "sed -i \"s/$X/b/\" f",              // dynamic
            "sed -i -f script.sed f",            // script file
            "sed --follow-symlinks -i s/a/b/ f", // unsupported option
            "sed -i'*.bak' s/a/b/ f",            // backup pattern
            "sed -i s/a/b/ -",                   // stdin
            "sed -i 's/a/b/' $(ls)",             // substitution
            "sedx -i s/a/b/ f",
        ] {
            assert_eq!(parse_sed_in_place(cmd), None, "{cmd}");
        }
    }
}
