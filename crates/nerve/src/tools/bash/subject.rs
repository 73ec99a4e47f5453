//! The parsed command as the permission system sees it.

use std::path::{Path, PathBuf};

use crate::permissions::paths::normalize_lexically;
use crate::permissions::{ReadScope, ShellPart, ShellSubject};
use crate::tools::bash::analyze::is_whole_reference;
use crate::tools::bash::awk_program::awk_use;
use crate::tools::bash::classify::reads_its_operands;
use crate::tools::bash::edits::file_edit;
use crate::tools::bash::file_options::{FileValue, has_file_options, option_files};
use crate::tools::bash::git::without_global_options;
use crate::tools::bash::sed_script::sed_use;
use crate::tools::bash::words::is_system_program;
use crate::tools::bash::writes::written_files;
use crate::tools::bash::{CommandClass, SimpleCommand, analyze_shared, fallback_segments};

/// Parses `command` and describes it for permission matching; paths are resolved against `cwd`.
pub fn shell_subject(command: &str, cwd: &Path) -> ShellSubject {
    let analysis = analyze_shared(command);
    let mut reads = Reads::default();
    let mut edit_targets = Vec::new();
    let mut unknown_write_targets = Vec::new();
    let mut parts = Vec::new();
    for c in &analysis.subcommands {
        let mut edit = None;
        let program = basename_of(c.argv.first().map_or("", String::as_str));
        // A word a loop gives values to is read once per value.
        let variants = argv_variants(c);
        if matches!(c.class, CommandClass::ReadOnly) || reads_its_operands(program) {
            for variant in &variants {
                reads.of_reader(&variant.argv, cwd);
            }
        } else if let Some(found) = plain_file_edit(c) {
            reads.files(&found.reads, found.recursive_reads, cwd);
            edit_targets.extend(found.edits.iter().map(|t| resolve(t, cwd)));
            edit = Some(found);
        }
        for variant in &variants {
            reads.of_named_files(variant, cwd);
        }
        if program == "git" {
            reads.of_git(&c.argv[1..], cwd);
        }
        // What every command writes meets protected paths and Edit rules, however it is run.
        if let Some(written) = written_by(c) {
            edit_targets.extend(written.known.iter().map(|t| read_target(t, cwd)));
            unknown_write_targets.extend(written.unknown);
        }
        parts.push(ShellPart {
            as_written: c.as_written.clone(),
            canonical: c.canonical.clone(),
            deny_forms: deny_forms(c),
            argv: c.argv.clone(),
            read_only: matches!(c.class, CommandClass::ReadOnly),
            neutral: matches!(c.class, CommandClass::Neutral),
            file_edit: edit.is_some(),
            why_not_read_only: match &c.class {
                CommandClass::Other(why) => Some(why.clone()),
                CommandClass::ReadOnly | CommandClass::Neutral => None,
            },
        });
    }
    let resolve_all = |targets: &[String]| targets.iter().map(|t| resolve(t, cwd)).collect::<Vec<_>>();
    // Deny rules also look at crude segments: of the whole text when the command was not
    // understood, and of every command run through a program that runs another one and is not
    // modelled (`parallel rm ::: x`). Checking more candidates can only deny more.
    let fallback = if analysis.understood {
        analysis
            .subcommands
            .iter()
            .filter(|c| {
                c.argv
                    .first()
                    .is_some_and(|p| RUNS_ANOTHER_COMMAND.contains(&basename_of(p)))
            })
            .flat_map(|c| (1..c.argv.len()).map(|start| argv_from(&c.argv[start..])))
            .collect()
    } else {
        fallback_segments(command)
    };
    ShellSubject {
        command: command.to_string(),
        read_targets: reads.targets,
        read_scopes: reads.scopes,
        input_targets: analysis
            .read_targets
            .iter()
            .map(|t| read_target(t, cwd))
            .collect(),
        network_targets: analysis.network_targets.clone(),
        edit_targets: deduplicated(edit_targets),
        unknown_write_targets,
        understood: analysis.understood,
        not_understood_reason: analysis.not_understood_reason.clone(),
        parts,
        write_targets: resolve_all(&analysis.write_targets),
        fallback_segments: fallback,
    }
}

/// A file-editing command run as itself (no wrapper that changes who runs it, no assignment that
/// changes what it runs), with operands known before it runs.
fn plain_file_edit(c: &SimpleCommand) -> Option<crate::tools::bash::edits::FileEdit> {
    let program = c.argv.first()?;
    if c.dynamic || c.as_written != c.argv.join(" ") || !is_system_program(program) {
        return None;
    }
    file_edit(basename_of(program), &c.argv[1..])
}

/// The files a command writes through its operands, whatever runs it (`sudo tee`, `xargs cp`); a
/// program given by a path of its own (`./tee`) is not the system's and not judged here.
fn written_by(c: &SimpleCommand) -> Option<crate::tools::bash::writes::Written> {
    let (program, args) = c.argv.split_first()?;
    if !is_system_program(program) {
        return None;
    }
    // A command whose words all look literal but are not all known was given more by `xargs` or
    // `find -exec` at run time.
    let appended = c.dynamic && !args.iter().any(|a| a.contains(['$', '`']));
    written_files(basename_of(program), args, appended)
}

fn deduplicated(mut paths: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut seen = std::collections::HashSet::new();
    paths.retain(|p| seen.insert(p.clone()));
    paths
}

/// Forms of a command that deny and ask rules see besides its text.
fn deny_forms(c: &SimpleCommand) -> Vec<String> {
    let mut forms = Vec::new();
    if let Some((program, args)) = c.argv.split_first()
        && basename_of(program) == "git"
        && let Some(rest) = without_global_options(args)
    {
        forms.push(format!("git {}", rest.join(" ")));
    }
    forms
}

/// What the reading commands read.
#[derive(Default)]
struct Reads {
    /// Files and folders named outright.
    targets: Vec<PathBuf>,
    /// Reads whose files are only known when the command runs.
    scopes: Vec<ReadScope>,
}

impl Reads {
    /// A read-only command's operands.
    fn of_reader(&mut self, argv: &[String], cwd: &Path) {
        let recursive = is_recursive_reader(argv);
        let operands = read_arguments(argv);
        if operands.is_empty() && recursive && searches_cwd_by_default(argv) {
            self.add(".", true, cwd);
        }
        for arg in operands {
            self.add(arg, recursive, cwd);
        }
    }

    /// Files a command names other than as operands: the values of its file options (`grep -f
    /// FILE`, see [`crate::tools::bash::file_options`]), what a sed or awk script reads (`r FILE`,
    /// `getline < "FILE"`), and, for a program with file options, any word known only at run time
    /// that could turn into such an option (`grep $OPT x`). (Arguments `xargs` appends are not
    /// checked here, as its operands from standard input are not either.)
    fn of_named_files(&mut self, variant: &Variant, cwd: &Path) {
        let Some((program, args)) = variant.argv.split_first() else {
            return;
        };
        let name = basename_of(program);
        let found = option_files(name, args);
        for file in found.files {
            match file.value {
                FileValue::Read | FileValue::NameThenRead => self.add(&file.path, false, cwd),
                FileValue::Tree => self.add(&file.path, true, cwd),
                FileValue::Lists => {
                    self.add(&file.path, false, cwd);
                    self.unknown(format!("the files listed in {}", file.path));
                }
            }
        }
        if has_file_options(name) {
            for (i, word) in found.open_words {
                let at_run_time = variant.run_time.contains(&(i + 1));
                if at_run_time && (word.starts_with(['$', '`']) || word.starts_with('-')) {
                    // `$OPT` could be `-f/etc/passwd`.
                    self.unknown(word.clone());
                }
            }
        }
        let script_reads = match name {
            "sed" | "gsed" => sed_use(args).reads,
            "awk" | "gawk" | "mawk" | "nawk" => awk_use(args).reads,
            _ => Vec::new(),
        };
        for file in script_reads {
            self.add(&file, false, cwd);
        }
    }

    /// A read whose files are only known when the command runs.
    fn unknown(&mut self, what: String) {
        self.scopes.push(ReadScope::Unknown(what));
        self.targets.push(PathBuf::from("/"));
    }

    /// Operands a file-editing command reads (`cp`'s sources).
    fn files(&mut self, args: &[String], recursive: bool, cwd: &Path) {
        for arg in args {
            self.add(arg, recursive, cwd);
        }
    }

    fn add(&mut self, arg: &str, recursive: bool, cwd: &Path) {
        // `{/etc/passwd,a}` reads both; the literal text is kept too, for a quoted word.
        if arg.contains('{') {
            match brace_expansions(arg) {
                Some(words) => {
                    for word in words.iter().filter(|w| w.as_str() != arg) {
                        self.add_one(word, recursive, cwd);
                    }
                }
                None => self.unknown(arg.to_string()),
            }
        }
        self.add_one(arg, recursive, cwd);
    }

    fn add_one(&mut self, arg: &str, recursive: bool, cwd: &Path) {
        if is_only_known_at_run_time(arg) {
            self.scopes.push(ReadScope::Unknown(arg.to_string()));
            self.targets.push(PathBuf::from("/"));
            return;
        }
        let path = read_target(arg, cwd);
        if arg.contains(['*', '?', '[']) {
            // The folder the glob expands in is what the working-directory check sees.
            self.targets.push(literal_prefix(&path));
            self.scopes.push(ReadScope::Glob {
                pattern: path,
                recursive,
            });
            return;
        }
        if recursive {
            self.scopes.push(ReadScope::Tree(path.clone()));
        }
        self.targets.push(path);
    }

    /// `git` subcommands that read repository objects by path (`show REV:path`, `cat-file`) or whole
    /// trees (`grep`, `archive`); git's own repository reads are otherwise not file reads.
    fn of_git(&mut self, args: &[String], cwd: &Path) {
        let args = without_global_options(args).unwrap_or_else(|| args.to_vec());
        let Some((sub, rest)) = args.split_first() else {
            return;
        };
        let operands: Vec<&String> = rest.iter().filter(|a| !a.starts_with('-')).collect();
        match sub.as_str() {
            "show" | "cat-file" => {
                for arg in &operands {
                    match arg.split_once(':') {
                        // `REV:` is a tree listing; `REV:path` and `:path` name a file.
                        Some((_, "")) => self.add(".", true, cwd),
                        Some((_, path)) => self.add(path.trim_start_matches("./"), false, cwd),
                        // `cat-file -p HASH` may print any blob.
                        None if sub == "cat-file" => self.scopes.push(ReadScope::Unknown((*arg).clone())),
                        None => {}
                    }
                }
                if sub == "cat-file" && rest.iter().any(|a| a.starts_with("--batch")) {
                    self.scopes
                        .push(ReadScope::Unknown("objects named on standard input".into()));
                }
            }
            "grep" | "archive" => {
                let paths: Vec<&String> = match rest.iter().position(|a| a == "--") {
                    Some(at) => rest[at + 1..].iter().collect(),
                    None => Vec::new(),
                };
                if paths.is_empty() {
                    self.add(".", true, cwd);
                }
                for path in paths {
                    self.add(path, true, cwd);
                }
            }
            _ => {}
        }
    }
}

/// One way a command's words may be when it runs.
struct Variant {
    argv: Vec<String>,
    /// Indices into `argv` of words still only known at run time.
    run_time: Vec<usize>,
}

/// Most combinations of loop values tried for one command; past that its loop words stay unknown.
const MAX_VARIANTS: usize = 64;

/// The command's words once for each combination of the values its loops give whole words
/// (`wc -l "$f"` in `for f in a b; do ...` is `wc -l a` and `wc -l b`). A value with blanks may be
/// split by the shell (when the word is unquoted) or not, so both are tried.
fn argv_variants(c: &SimpleCommand) -> Vec<Variant> {
    let original = Variant {
        argv: c.argv.clone(),
        run_time: c.run_time.words.clone(),
    };
    if c.run_time.loops.is_empty() {
        return vec![original];
    }
    let mut variants = vec![Variant {
        argv: Vec::new(),
        run_time: Vec::new(),
    }];
    for (i, word) in c.argv.iter().enumerate() {
        let bound = c
            .run_time
            .loops
            .iter()
            .find(|l| c.run_time.words.contains(&i) && is_whole_reference(word, &l.name));
        let choices: Vec<Vec<String>> = match bound {
            Some(l) => l
                .values
                .iter()
                .flat_map(|v| {
                    let split: Vec<String> = v.split_whitespace().map(str::to_string).collect();
                    let whole = vec![v.clone()];
                    if split.len() == 1 {
                        vec![whole]
                    } else {
                        vec![whole, split]
                    }
                })
                .collect(),
            None => vec![vec![word.clone()]],
        };
        if variants.len() * choices.len() > MAX_VARIANTS {
            return vec![original];
        }
        let runtime = bound.is_none() && c.run_time.words.contains(&i);
        variants = variants
            .into_iter()
            .flat_map(|v| {
                choices.iter().map(move |choice| {
                    let mut next = Variant {
                        argv: v.argv.clone(),
                        run_time: v.run_time.clone(),
                    };
                    if runtime {
                        next.run_time.push(next.argv.len());
                    }
                    next.argv.extend(choice.iter().cloned());
                    next
                })
            })
            .collect();
    }
    variants
}

/// Whether a reading command descends into the folders it is given (or, given none, the current
/// one).
fn is_recursive_reader(argv: &[String]) -> bool {
    let Some((program, args)) = argv.split_first() else {
        return false;
    };
    let has_short = |letters: &[char]| {
        args.iter().any(|a| {
            a.starts_with('-') && !a.starts_with("--") && a.chars().skip(1).any(|c| letters.contains(&c))
        })
    };
    match basename_of(program) {
        "rg" | "ag" | "ack" | "ack-grep" | "tar" | "zip" | "rsync" | "scp" => true,
        "grep" | "egrep" | "fgrep" => {
            has_short(&['r', 'R'])
                || args.iter().any(|a| {
                    a == "--recursive"
                        || a == "--dereference-recursive"
                        || a == "--directories=recurse"
                        || a == "-drecurse"
                })
                || args.windows(2).any(|w| w[0] == "-d" && w[1] == "recurse")
        }
        "diff" => has_short(&['r']) || args.iter().any(|a| a == "--recursive"),
        // A finder that runs a command on what it finds reads every file below its roots.
        "find" => args
            .iter()
            .any(|a| matches!(a.as_str(), "-exec" | "-execdir" | "-ok" | "-okdir")),
        "fd" | "fdfind" => args
            .iter()
            .any(|a| matches!(a.as_str(), "-x" | "--exec" | "-X" | "--exec-batch")),
        _ => false,
    }
}

/// Recursive readers that search the current folder when given no path (`rg x`, `grep -r x`,
/// `find -exec ...`).
fn searches_cwd_by_default(argv: &[String]) -> bool {
    argv.first().is_some_and(|p| {
        matches!(
            basename_of(p),
            "rg" | "ag" | "ack" | "ack-grep" | "grep" | "egrep" | "fgrep" | "find" | "fd" | "fdfind"
        )
    })
}

/// Programs whose first operand is a pattern, not a path.
const PATTERN_FIRST: &[&str] = &[
    "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "sed", "gsed", "awk", "gawk", "mawk", "nawk", "jq",
    "fd", "fdfind",
];

/// The operands of a read-only command that may name files: everything that is not an option,
/// minus a leading pattern for search programs and find's expression.
fn read_arguments(argv: &[String]) -> Vec<&str> {
    let Some((program, args)) = argv.split_first() else {
        return Vec::new();
    };
    let name = basename_of(program);
    let takes_value = value_options(name);
    let mut operands: Vec<&str> = Vec::new();
    let mut pattern_given_by_option = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if name == "find" && (arg.starts_with('-') || arg == "(" || arg == "!") {
            // find's expression starts here; the paths come before it.
            break;
        }
        if matches!(name, "fd" | "fdfind") && matches!(arg.as_str(), "-x" | "--exec" | "-X" | "--exec-batch")
        {
            // The command fd runs per result follows.
            break;
        }
        if arg == "--" {
            operands.extend(iter.map(String::as_str));
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            pattern_given_by_option |= long.starts_with("regexp") || long.starts_with("file");
            if name == "jq" {
                // `--arg NAME VALUE` and its kin take two words (the files of `--rawfile` and
                // `--slurpfile` are read through `file_options`); after `--args` the operands
                // are values, not files.
                if matches!(long, "arg" | "argjson" | "rawfile" | "slurpfile") {
                    iter.next();
                    iter.next();
                } else if matches!(long, "args" | "jsonargs") {
                    break;
                } else if long == "indent" {
                    iter.next();
                }
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) {
            // A short option that takes a value takes the rest of the cluster or the next word.
            if let Some((at, letter)) = cluster.char_indices().find(|(_, c)| takes_value.contains(*c)) {
                pattern_given_by_option |= matches!(letter, 'e' | 'f') && PATTERN_FIRST.contains(&name);
                if at + letter.len_utf8() == cluster.len() {
                    iter.next();
                }
            }
            continue;
        }
        operands.push(arg);
    }
    if PATTERN_FIRST.contains(&name) && !pattern_given_by_option && !operands.is_empty() {
        operands.remove(0);
    }
    if name == "git" {
        // git reads its own repository, not files named by its arguments, except for explicit
        // out-of-tree forms, which carry an absolute or parent path and are kept. Object reads by
        // path are handled by `Reads::of_git`.
        operands.retain(|a| a.starts_with('/') || a.starts_with('~') || a.contains(".."));
    }
    operands
}

/// Short options that take a value, for the programs whose operands are read, so the value is not
/// taken for a file.
fn value_options(program: &str) -> &'static str {
    match program {
        "grep" | "egrep" | "fgrep" | "zgrep" => "efmABCdD",
        "rg" => "efgtTmABCjMEr",
        "ag" => "GgABCm",
        "ack" | "ack-grep" => "ABCm",
        "head" | "tail" => "ncs",
        "sort" => "kotST",
        "cut" => "bcdf",
        "diff" => "xXSIFL",
        "tar" => "fCTXg",
        "sed" | "gsed" => "efl",
        "awk" | "gawk" | "mawk" | "nawk" => "fvFiE",
        "jq" => "fL",
        "du" => "XBdt",
        "file" => "mfFeP",
        "date" => "fdr",
        _ => "",
    }
}

/// Most words one brace expansion may give before the read is taken as unknown.
const MAX_BRACE_WORDS: usize = 256;

/// The words bash's brace expansion makes of `word` (`a{b,c}d` is `abd acd`, `{1..3}` is `1 2 3`),
/// or `None` when there would be too many. A brace without a comma or a valid sequence stays
/// literal.
fn brace_expansions(word: &str) -> Option<Vec<String>> {
    let mut out = Vec::new();
    expand_braces(word, &mut out)?;
    Some(out)
}

fn expand_braces(word: &str, out: &mut Vec<String>) -> Option<()> {
    let bytes = word.as_bytes();
    let mut search = 0;
    while let Some(open) = word[search..].find('{').map(|i| i + search) {
        let mut depth = 0usize;
        let mut close = None;
        let mut commas = Vec::new();
        for (i, &b) in bytes.iter().enumerate().skip(open) {
            match b {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        close = Some(i);
                        break;
                    }
                }
                b',' if depth == 1 => commas.push(i),
                _ => {}
            }
        }
        let Some(close) = close else {
            break;
        };
        let (prefix, inner, suffix) = (&word[..open], &word[open + 1..close], &word[close + 1..]);
        let alternatives: Vec<String> = if commas.is_empty() {
            match sequence(inner) {
                Some(items) => items,
                None => {
                    search = open + 1;
                    continue;
                }
            }
        } else {
            let mut parts = Vec::new();
            let mut start = open + 1;
            for &comma in &commas {
                parts.push(word[start..comma].to_string());
                start = comma + 1;
            }
            parts.push(word[start..close].to_string());
            parts
        };
        for alternative in alternatives {
            expand_braces(&format!("{prefix}{alternative}{suffix}"), out)?;
            if out.len() > MAX_BRACE_WORDS {
                return None;
            }
        }
        return Some(());
    }
    out.push(word.to_string());
    Some(())
}

/// `{1..5}`, `{a..e}`, `{10..1..3}`: the items, or `None` when it is not a sequence.
fn sequence(inner: &str) -> Option<Vec<String>> {
    let parts: Vec<&str> = inner.split("..").collect();
    let (from, to, step) = match parts.as_slice() {
        [from, to] => (*from, *to, 1i64),
        [from, to, step] => (*from, *to, step.parse::<i64>().ok()?.checked_abs()?.max(1)),
        _ => return None,
    };
    let range = |a: i64, b: i64| -> Option<Vec<i64>> {
        let count = (a - b).unsigned_abs() / step.unsigned_abs() + 1;
        if count as usize > MAX_BRACE_WORDS {
            return None;
        }
        let dir = if b >= a { step } else { -step };
        Some((0..count as i64).map(|k| a + k * dir).collect())
    };
    if let (Ok(a), Ok(b)) = (from.parse::<i64>(), to.parse::<i64>()) {
        return Some(range(a, b)?.iter().map(i64::to_string).collect());
    }
    let (mut a, mut b) = (from.chars(), to.chars());
    match (a.next(), a.next(), b.next(), b.next()) {
        (Some(x), None, Some(y), None) if x.is_ascii_alphabetic() && y.is_ascii_alphabetic() => Some(
            range(x as i64, y as i64)?
                .into_iter()
                .filter_map(|c| u8::try_from(c).ok().map(|c| (c as char).to_string()))
                .collect(),
        ),
        _ => None,
    }
}

/// Whether an operand's value is only known when the command runs.
fn is_only_known_at_run_time(arg: &str) -> bool {
    arg.contains('$') || arg.contains('`') || (arg.starts_with('~') && !(arg == "~" || arg.starts_with("~/")))
}

/// Where a read operand points (`~` and `~/` expanded). An operand known only at run time, or
/// `~user/...` (another user's home), stands as `/`, outside every working directory.
fn read_target(arg: &str, cwd: &Path) -> PathBuf {
    if is_only_known_at_run_time(arg) {
        return PathBuf::from("/");
    }
    let expanded = match arg.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().map(|h| h.join(rest)),
        None if arg == "~" => dirs::home_dir(),
        None => None,
    };
    let path = expanded.unwrap_or_else(|| Path::new(arg).to_path_buf());
    normalize_lexically(&if path.is_absolute() { path } else { cwd.join(path) })
}

/// A path relative to `cwd`, made absolute and normalised.
fn resolve(target: &str, cwd: &Path) -> PathBuf {
    let p = Path::new(target);
    normalize_lexically(&if p.is_absolute() {
        p.to_path_buf()
    } else {
        cwd.join(p)
    })
}

/// The folder part of a glob before its first component with a wildcard.
fn literal_prefix(glob: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in glob.components() {
        if component.as_os_str().to_string_lossy().contains(['*', '?', '[']) {
            break;
        }
        out.push(component);
    }
    out
}

/// Programs whose arguments are (or contain) another command line that the analysis does not
/// model; deny rules see every tail of their words.
const RUNS_ANOTHER_COMMAND: &[&str] = &[
    "sudo",
    "doas",
    "su",
    "runuser",
    "watch",
    "flock",
    "chroot",
    "nsenter",
    "unshare",
    "setsid",
    "ionice",
    "chrt",
    "taskset",
    "strace",
    "ltrace",
    "valgrind",
    "firejail",
    "systemd-run",
    "script",
    "parallel",
    "ssh",
    "tmux",
    "screen",
    "dbus-run-session",
    "xvfb-run",
    "unbuffer",
    "pkexec",
];

fn basename_of(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// `argv` as a command text with the program reduced to its base name.
fn argv_from(argv: &[String]) -> String {
    let mut parts: Vec<&str> = argv.iter().map(String::as_str).collect();
    if let Some(first) = parts.first_mut() {
        *first = basename_of(first);
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_behind_sudo_are_deny_candidates() {
        let s = shell_subject("sudo -n /bin/rm -rf /tmp/x && ls", Path::new("/p"));
        assert!(s.understood);
        assert_eq!(s.parts[0].canonical, "rm -rf /tmp/x");
        assert_eq!(s.parts[0].as_written, "sudo -n /bin/rm -rf /tmp/x");
        // A runner that is not modelled leaves every tail of its words to deny rules.
        let s = shell_subject("parallel /bin/rm -rf ::: /tmp/x", Path::new("/p"));
        assert!(
            s.fallback_segments.contains(&"rm -rf ::: /tmp/x".to_string()),
            "{:?}",
            s.fallback_segments
        );
    }

    #[test]
    fn ordinary_arguments_are_not_deny_candidates() {
        let s = shell_subject("git commit -m 'rm old files'", Path::new("/p"));
        assert!(s.fallback_segments.is_empty(), "{:?}", s.fallback_segments);
    }

    #[test]
    fn read_targets_are_the_operands_of_read_only_parts() {
        let s = shell_subject(
            "cat src/a.rs /etc/passwd | grep -n needle notes.txt && git log -3",
            Path::new("/p"),
        );
        assert_eq!(
            s.read_targets,
            vec![
                PathBuf::from("/p/src/a.rs"),
                PathBuf::from("/etc/passwd"),
                PathBuf::from("/p/notes.txt")
            ]
        );
        let s = shell_subject("find ../other -name '*.rs'", Path::new("/p/sub"));
        assert_eq!(s.read_targets, vec![PathBuf::from("/p/other")]);
        let s = shell_subject("cat $HOME/.ssh/id_rsa", Path::new("/p"));
        assert_eq!(s.read_targets, vec![PathBuf::from("/")]);
        assert_eq!(
            s.read_scopes,
            vec![ReadScope::Unknown("$HOME/.ssh/id_rsa".into())]
        );
        let s = shell_subject("cat ~root/.ssh/id_rsa", Path::new("/p"));
        assert_eq!(s.read_targets, vec![PathBuf::from("/")]);
    }

    #[test]
    fn recursive_reads_and_globs_are_scopes() {
        let scopes = |cmd: &str| shell_subject(cmd, Path::new("/p")).read_scopes;
        assert_eq!(
            scopes("grep -r x secrets/"),
            [ReadScope::Tree("/p/secrets".into())]
        );
        assert_eq!(scopes("rg x"), [ReadScope::Tree("/p".into())]);
        assert_eq!(scopes("grep -rn x"), [ReadScope::Tree("/p".into())]);
        assert_eq!(scopes("grep x a.txt"), []);
        assert_eq!(
            scopes("cat sec*/key.txt"),
            [ReadScope::Glob {
                pattern: "/p/sec*/key.txt".into(),
                recursive: false
            }]
        );
        assert_eq!(scopes("find . -exec cat {} +"), [ReadScope::Tree("/p".into())]);
        assert_eq!(
            shell_subject("git show HEAD:secrets/key.txt", Path::new("/p")).read_targets,
            [PathBuf::from("/p/secrets/key.txt")]
        );
        assert_eq!(scopes("git grep foo"), [ReadScope::Tree("/p".into())]);
        assert_eq!(
            scopes("git cat-file -p 1234abcd"),
            [ReadScope::Unknown("1234abcd".into())]
        );
    }

    #[test]
    fn write_targets_are_absolute() {
        let s = shell_subject("echo hi > out/a.txt 2>/dev/null", Path::new("/p"));
        assert_eq!(s.write_targets, vec![PathBuf::from("/p/out/a.txt")]);
    }

    #[test]
    fn input_redirections_are_read_and_network_is_seen() {
        let s = shell_subject("cat < /etc/shadow && wc -c <&0 < a.txt", Path::new("/p"));
        assert_eq!(
            s.input_targets,
            [PathBuf::from("/etc/shadow"), PathBuf::from("/p/a.txt")]
        );
        let s = shell_subject("cat <> rw.txt", Path::new("/p"));
        assert_eq!(s.input_targets, [PathBuf::from("/p/rw.txt")]);
        assert_eq!(s.write_targets, [PathBuf::from("/p/rw.txt")]);
        let s = shell_subject("cat < /dev/tcp/127.0.0.1/9", Path::new("/p"));
        assert_eq!(s.network_targets, ["/dev/tcp/127.0.0.1/9"]);
        assert!(s.input_targets.is_empty());
    }

    #[test]
    fn git_global_options_give_a_deny_form() {
        let s = shell_subject("git -C . --no-pager push --force", Path::new("/p"));
        assert_eq!(s.parts[0].deny_forms, ["git push --force"]);
    }
}
