//! Small helpers for recognising command-line options the way getopt-style parsers read them.

/// True when `arg` names the long option `banned`, also through `=value` or an abbreviation: GNU
/// getopt_long and git accept any unambiguous prefix, so `--out=f` means `--output=f` for `sort`.
/// `exact_ok` lists real options that merely happen to be prefixes of a banned one (git's `--text`
/// is a prefix of `--textconv`) and are therefore meant literally.
pub(crate) fn is_long(arg: &str, banned: &str, exact_ok: &[&str]) -> bool {
    let Some(body) = arg.strip_prefix("--") else {
        return false;
    };
    let name = body.split_once('=').map_or(body, |(name, _)| name);
    if name.is_empty() || exact_ok.contains(&name) {
        return false;
    }
    banned.starts_with(name)
}

/// True when `arg` is a bundle of short options (`-abc`) that contains `flag` anywhere. Options that
/// take a value can hide letters in the value (`-to` is `-t o`), so this over-matches, which is the
/// safe direction.
pub(crate) fn short_cluster_has(arg: &str, flag: char) -> bool {
    match arg.strip_prefix('-') {
        Some(rest) if !rest.starts_with('-') => rest.contains(flag),
        Some(_) | None => false,
    }
}

/// True for anything that looks like an option (`-x`, `--long`), but not `-` alone (standard input).
pub(crate) fn is_option(arg: &str) -> bool {
    arg.starts_with('-') && arg != "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_options_match_prefixes_and_values() {
        assert!(is_long("--output=x", "output", &[]));
        assert!(is_long("--out", "output", &[]));
        assert!(!is_long("--output-indicator-new=+", "output", &[]));
        assert!(!is_long("--text", "textconv", &["text"]));
        assert!(is_long("--textc", "textconv", &["text"]));
        assert!(!is_long("-o", "output", &[]));
        assert!(!is_long("--", "output", &[]));
    }

    #[test]
    fn short_clusters() {
        assert!(short_cluster_has("-uo", 'o'));
        assert!(!short_cluster_has("--output", 'o'));
        assert!(!short_cluster_has("file", 'o'));
        assert!(is_option("-n"));
        assert!(!is_option("-"));
    }
}
