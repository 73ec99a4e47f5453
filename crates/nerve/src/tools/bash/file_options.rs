//! Options whose value is a file the program reads (`grep -f FILE`, `diff --from-file=FILE`,
//! `tar -T LIST`), kept in one table so the permission system checks those files exactly like
//! operands: Read deny and ask rules apply, and a file outside the working directories asks.
//!
//! Every spelling getopt accepts is recognised: `-f FILE`, `-fFILE`, a short option at the end of a
//! cluster (`-rf FILE`) or inside one (`-rfFILE`), `--file FILE`, `--file=FILE`, and GNU long-option
//! prefixes (`--fi=FILE`, see [`crate::tools::bash::options::is_long`]). A prefix that could name
//! several options is taken as the file option, and a short letter whose value is not known to be
//! taken by an earlier letter of its cluster is taken as the file option too: both can only add read
//! targets, never hide one.
//!
//! Programs whose files are all operands (`cat`, `comm`, `join`, `cmp`, `paste`) need no entry: their
//! operands are read targets already.

use crate::tools::bash::options::is_long;

/// What an option's value makes the program read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum FileValue {
    /// The file itself (`grep -f PATTERNS`, `sed -f SCRIPT`, `diff --to-file=F`).
    Read,
    /// The file and every file it lists, which are only known when the command runs
    /// (`wc --files0-from=LIST`, `tar -T LIST`, `rsync --files-from=LIST`).
    Lists,
    /// A folder whose files may be read (`jq -L DIR` loads modules from it).
    Tree,
    /// The option takes two values, a name and then the file (`jq --rawfile NAME FILE`).
    NameThenRead,
}

/// The file-valued options of a group of programs.
struct FileOptions {
    /// Program base names.
    programs: &'static [&'static str],
    /// Short options whose value is a file.
    short: &'static [(char, FileValue)],
    /// Short options that take a value that is not a file: the rest of a cluster, or the next word,
    /// is that value (`grep -e PATTERN`, `sed -l N`). Listing one that takes no value would hide the
    /// letters after it, so only letters known to take a value are listed.
    short_values: &'static str,
    /// Short options whose value can only be attached (`sed -i[SUFFIX]`): they end the cluster but
    /// never take the next word.
    short_attached: &'static str,
    /// Long options whose value is a file.
    long: &'static [(&'static str, FileValue)],
    /// Other long options that are prefixes of a file option (`grep --exclude=GLOB` of
    /// `--exclude-from`); written out in full they mean themselves.
    long_other: &'static [&'static str],
    /// Single-dash long options whose value is a file (`find -files0-from LIST`).
    words: &'static [(&'static str, FileValue)],
}

use FileValue::{Lists, NameThenRead, Read, Tree};

/// The table. Sources: the GNU coreutils, grep, sed, gawk, diffutils, tar, findutils and file
/// manuals, and the manuals of rg, ag, ack, fd, jq, rsync, locate, hexdump, tree and xargs.
#[rustfmt::skip]
const TABLE: &[FileOptions] = &[
    FileOptions { programs: &["grep", "egrep", "fgrep", "zgrep"], short: &[('f', Read)], short_values: "emABCdD",
        short_attached: "", long: &[("file", Read), ("exclude-from", Read)], long_other: &["exclude"], words: &[] },
    FileOptions { programs: &["rg"], short: &[('f', Read)], short_values: "egtTmABCjMEr", short_attached: "",
        long: &[("file", Read), ("ignore-file", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["ag"], short: &[('p', Read)], short_values: "GgABCm", short_attached: "",
        long: &[("path-to-ignore", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["ack", "ack-grep"], short: &[], short_values: "ABCm", short_attached: "",
        long: &[("files-from", Lists), ("ackrc", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["sed", "gsed"], short: &[('f', Read)], short_values: "el", short_attached: "i",
        long: &[("file", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["awk", "gawk", "mawk", "nawk"], short: &[('f', Read), ('i', Read), ('E', Read)],
        short_values: "vF", short_attached: "", long: &[("file", Read), ("include", Read), ("exec", Read)],
        long_other: &[], words: &[] },
    FileOptions { programs: &["diff"], short: &[('X', Read)], short_values: "xSIFLCUDW", short_attached: "",
        long: &[("from-file", Read), ("to-file", Read), ("exclude-from", Read)], long_other: &["exclude"], words: &[] },
    FileOptions { programs: &["sort"], short: &[], short_values: "kotST", short_attached: "",
        long: &[("files0-from", Lists), ("random-source", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["wc"], short: &[], short_values: "", short_attached: "",
        long: &[("files0-from", Lists)], long_other: &[], words: &[] },
    FileOptions { programs: &["du"], short: &[('X', Read)], short_values: "Bdt", short_attached: "",
        long: &[("files0-from", Lists), ("exclude-from", Read)], long_other: &["exclude"], words: &[] },
    // The archive of `-f` is read when listing, comparing or extracting; when creating, counting it
    // as read can only deny more.
    FileOptions { programs: &["tar"], short: &[('f', Read), ('T', Lists), ('X', Read), ('g', Read)],
        short_values: "CbHKNV", short_attached: "",
        long: &[("file", Read), ("files-from", Lists), ("exclude-from", Read), ("listed-incremental", Read)],
        long_other: &["exclude"], words: &[] },
    FileOptions { programs: &["rsync"], short: &[], short_values: "", short_attached: "",
        long: &[("files-from", Lists), ("exclude-from", Read), ("include-from", Read), ("password-file", Read)],
        long_other: &["exclude", "include"], words: &[] },
    FileOptions { programs: &["jq"], short: &[('f', Read), ('L', Tree)], short_values: "", short_attached: "",
        long: &[("from-file", Read), ("rawfile", NameThenRead), ("slurpfile", NameThenRead), ("library-path", Tree)],
        long_other: &[], words: &[] },
    FileOptions { programs: &["find"], short: &[], short_values: "", short_attached: "", long: &[], long_other: &[],
        words: &[("-files0-from", Lists)] },
    FileOptions { programs: &["fd", "fdfind"], short: &[], short_values: "", short_attached: "",
        long: &[("ignore-file", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["file"], short: &[('m', Read), ('f', Lists)], short_values: "FeP", short_attached: "",
        long: &[("magic-file", Read), ("files-from", Lists)], long_other: &[], words: &[] },
    // `date -r FILE` reads only the file's time, like `stat`, whose operands are read targets too.
    FileOptions { programs: &["date"], short: &[('f', Read), ('r', Read)], short_values: "d", short_attached: "I",
        long: &[("file", Read), ("reference", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["locate", "mlocate", "plocate"], short: &[('d', Read)], short_values: "ln",
        short_attached: "", long: &[("database", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["hexdump", "hd"], short: &[('f', Read)], short_values: "ens", short_attached: "",
        long: &[("format-file", Read)], long_other: &[], words: &[] },
    FileOptions { programs: &["tree"], short: &[], short_values: "LPIo", short_attached: "",
        long: &[("gitfile", Read), ("infofile", Read)], long_other: &[], words: &[] },
    // `xargs -a FILE CMD` is `xargs CMD < FILE`.
    FileOptions { programs: &["xargs"], short: &[('a', Read)], short_values: "nLPsdEI", short_attached: "iel",
        long: &[("arg-file", Read)], long_other: &[], words: &[] },
];

/// A file an option names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionFile {
    /// The value as written (after quote removal).
    pub path: String,
    /// What reading it means.
    pub value: FileValue,
}

/// What the options of one command name.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct OptionFiles {
    /// The files.
    pub files: Vec<OptionFile>,
    /// The words read as options or operands (not taken as an option's value) before any `--`,
    /// with their index in `args`: one known only at run time could become a file option.
    pub open_words: Vec<(usize, String)>,
}

/// Whether `program` (a base name) has file-valued options.
pub(crate) fn has_file_options(program: &str) -> bool {
    entry(program).is_some()
}

fn entry(program: &str) -> Option<&'static FileOptions> {
    TABLE.iter().find(|e| e.programs.contains(&program))
}

/// The files that `program`'s options in `args` name. Words after `--` are operands. `tar`'s
/// old-style first word (`tar tfT a.tar list`) takes its values from the following words in order.
pub(crate) fn option_files(program: &str, args: &[String]) -> OptionFiles {
    let Some(table) = entry(program) else {
        return OptionFiles::default();
    };
    let mut found = Vec::new();
    let mut open_words = Vec::new();
    let mut i = 0;
    if program == "tar"
        && let Some(first) = args.first()
        && !first.starts_with('-')
        && !first.is_empty()
        && first.chars().all(|c| c.is_ascii_alphabetic())
    {
        i = 1;
        for letter in first.chars() {
            if let Some(value) = short_file(table, letter) {
                take(&mut found, args, &mut i, value);
            } else if table.short_values.contains(letter) {
                i += 1;
            }
        }
    }
    while let Some(arg) = args.get(i) {
        open_words.push((i, arg.clone()));
        i += 1;
        if arg == "--" {
            break;
        }
        if let Some((_, value)) = table.words.iter().find(|(w, _)| w == arg) {
            take(&mut found, args, &mut i, *value);
            continue;
        }
        if let Some(body) = arg.strip_prefix("--") {
            let Some(value) = long_file(table, arg) else {
                continue;
            };
            match body.split_once('=') {
                Some((_, attached)) if value == NameThenRead => {
                    // `--rawfile=NAME FILE`: the name is attached, the file follows.
                    let _ = attached;
                    take(&mut found, args, &mut i, Read);
                }
                Some((_, attached)) => push(&mut found, attached, value),
                None => take(&mut found, args, &mut i, value),
            }
            continue;
        }
        let Some(cluster) = arg.strip_prefix('-').filter(|c| !c.is_empty()) else {
            continue;
        };
        for (at, letter) in cluster.char_indices() {
            let rest = &cluster[at + letter.len_utf8()..];
            if let Some(value) = short_file(table, letter) {
                if rest.is_empty() {
                    take(&mut found, args, &mut i, value);
                } else {
                    push(&mut found, rest, value);
                }
                break;
            }
            if table.short_attached.contains(letter) {
                break;
            }
            if table.short_values.contains(letter) {
                if rest.is_empty() {
                    i += 1;
                }
                break;
            }
        }
    }
    OptionFiles {
        files: found,
        open_words,
    }
}

fn short_file(table: &FileOptions, letter: char) -> Option<FileValue> {
    table.short.iter().find(|(c, _)| *c == letter).map(|(_, v)| *v)
}

/// The file option `arg` (`--name[=value]`) names: an exact name first, else any option it is a
/// prefix of (the one that lists files when several match, since that reads the most).
fn long_file(table: &FileOptions, arg: &str) -> Option<FileValue> {
    let body = arg.strip_prefix("--")?;
    let name = body.split_once('=').map_or(body, |(name, _)| name);
    if let Some((_, value)) = table.long.iter().find(|(long, _)| *long == name) {
        return Some(*value);
    }
    let mut matches = table
        .long
        .iter()
        .filter(|(long, _)| is_long(arg, long, table.long_other))
        .map(|(_, value)| *value);
    let first = matches.next()?;
    Some(matches.fold(first, |a, b| if b == Lists { b } else { a }))
}

/// Takes the option's value from the next word(s).
fn take(found: &mut Vec<OptionFile>, args: &[String], i: &mut usize, value: FileValue) {
    let value = if value == NameThenRead {
        *i += 1;
        Read
    } else {
        value
    };
    if let Some(word) = args.get(*i) {
        push(found, word, value);
    }
    *i += 1;
}

fn push(found: &mut Vec<OptionFile>, path: &str, value: FileValue) {
    found.push(OptionFile {
        path: path.to_string(),
        value,
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn files(program: &str, args: &str) -> Vec<(String, FileValue)> {
        let args: Vec<String> = args.split_whitespace().map(str::to_string).collect();
        option_files(program, &args)
            .files
            .into_iter()
            .map(|f| (f.path, f.value))
            .collect()
    }

    fn read(path: &str) -> Vec<(String, FileValue)> {
        vec![(path.to_string(), Read)]
    }

    #[test]
    fn every_spelling_of_a_file_option_names_its_file() {
        let spellings = [
            "-f F x",
            "-fF x",
            "-rf F x",
            "-rfF x",
            "-n -i -f F x",
            "--file F x",
            "--file=F x",
            "--fil=F x",
            "--fi F x",
            "x -f F",
            "-e p -f F",
            "-ep -fF",
        ];
        let mut checked = 0;
        for spelling in spellings {
            assert_eq!(files("grep", spelling), read("F"), "grep {spelling}");
            checked += 1;
        }
        println!("grep file-option spellings: {checked} cases");
    }

    #[test]
    fn values_of_other_options_are_not_files() {
        assert_eq!(files("grep", "-e -f x"), []);
        assert_eq!(files("grep", "-ef x"), []);
        assert_eq!(files("grep", "--exclude=*.o -r x ."), []);
        assert_eq!(files("grep", "-- -f x"), []);
        assert_eq!(files("sed", "-i.f -n p x"), []);
        assert_eq!(files("iconv", "-f UTF-8 x"), []);
        assert_eq!(files("cat", "-f x"), []);
    }

    #[test]
    fn lists_trees_and_two_value_options() {
        assert_eq!(files("wc", "--files0-from=L"), [("L".to_string(), Lists)]);
        assert_eq!(
            files("tar", "-cT L -f out.tar"),
            [("L".to_string(), Lists), ("out.tar".to_string(), Read)]
        );
        assert_eq!(
            files("tar", "tfT a.tar L"),
            [("a.tar".to_string(), Read), ("L".to_string(), Lists)]
        );
        assert_eq!(files("tar", "--fil=a.tar"), [("a.tar".to_string(), Lists)]);
        assert_eq!(files("tar", "--file=a.tar"), read("a.tar"));
        assert_eq!(files("jq", "--rawfile x S -n $x"), read("S"));
        assert_eq!(files("jq", "-L lib ."), [("lib".to_string(), Tree)]);
        assert_eq!(files("find", ". -files0-from L"), [("L".to_string(), Lists)]);
        assert_eq!(files("diff", "--from-file=A B C"), read("A"));
        assert_eq!(files("xargs", "-0a F echo"), read("F"));
    }
}
