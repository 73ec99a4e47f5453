//! The checkpoints' questions to git, each one `git` process: what is dirty in the work tree (the
//! index's stat cache answers it as fast as `git status`), what two commits differ in, which blobs
//! a commit holds at some paths and their bytes, which files git is told not to look at, and which
//! paths git converts on checkout.
//!
//! Every call goes through [`git`], which neutralises what the repository's own configuration
//! could run or hide: the repository is the agent's to write (a command may plant a
//! `core.fsmonitor` program), and these calls run outside the sandbox.

use std::collections::{BTreeMap, BTreeSet};
use std::ffi::OsStr;
use std::io::{BufRead as _, BufReader, Read as _, Write as _};
use std::os::unix::ffi::OsStrExt as _;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A git call failed (no git, not a repository, a damaged one).
#[derive(Debug, thiserror::Error)]
#[error("`git {action}` failed: {detail}")]
pub struct GitError {
    action: &'static str,
    detail: String,
}

impl GitError {
    fn new(action: &'static str, detail: impl std::fmt::Display) -> Self {
        Self {
            action,
            detail: detail.to_string(),
        }
    }
}

/// `git` in `root` with the engine's settings: no file-system monitor (a program the repository
/// names), no hooks, no optional locks (a `git status` the user runs meanwhile is not refused the
/// index), stat checks at full strength (ctime trusted, every field compared), the untracked
/// cache not used (a folder whose time did not change would hide a new file), and none of the
/// engine's own `GIT_*` variables (which could point git at another repository or index).
/// On top of [`crate::git_command::git`], which neutralises every setting that could run a program
/// (filters, diff drivers, pagers, signing, network helpers).
pub(crate) fn git(root: &Path) -> Command {
    let mut command = crate::git_command::git(root);
    command
        .env("GIT_OPTIONAL_LOCKS", "0")
        .env("GIT_LITERAL_PATHSPECS", "1")
        .env("GIT_TERMINAL_PROMPT", "0")
        .arg("-C")
        .arg(root)
        .args([
            "-c",
            "core.fsmonitor=false",
            "-c",
            "core.hooksPath=/dev/null",
            "-c",
            "core.untrackedCache=false",
            "-c",
            "core.checkStat=default",
            "-c",
            "core.trustctime=true",
            "-c",
            "core.ignoreStat=false",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

fn output(action: &'static str, mut command: Command) -> Result<Vec<u8>, GitError> {
    let out = command.output().map_err(|e| GitError::new(action, e))?;
    if !out.status.success() {
        return Err(GitError::new(
            action,
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    Ok(out.stdout)
}

fn path_of(bytes: &[u8]) -> PathBuf {
    PathBuf::from(OsStr::from_bytes(bytes))
}

/// What `git status` says of a work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Status {
    /// The commit checked out (`None` before the first commit).
    pub head: Option<String>,
    /// Paths (relative to the root) whose content is not HEAD's: changed in the index or the
    /// work tree, unmerged, or untracked and not ignored. Submodules are left out.
    pub dirty: BTreeSet<PathBuf>,
}

/// `git status` of the work tree at `root`, untracked files listed one by one.
pub(crate) fn status(root: &Path) -> Result<Status, GitError> {
    let mut command = git(root);
    command.args([
        "status",
        "--porcelain=v2",
        "-z",
        "--branch",
        "--no-renames",
        "--untracked-files=all",
        "--ignored=no",
        "--ignore-submodules=all",
    ]);
    let out = output("status", command)?;
    parse_status(&out)
}

fn parse_status(out: &[u8]) -> Result<Status, GitError> {
    let bad = |record: &[u8]| {
        GitError::new(
            "status",
            format!("unexpected line {:?}", String::from_utf8_lossy(record)),
        )
    };
    let mut status = Status::default();
    for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let fields = |n: usize| record.splitn(n, |b| *b == b' ').collect::<Vec<_>>();
        match record.first() {
            Some(b'#') => {
                if let Some(oid) = record.strip_prefix(b"# branch.oid ")
                    && oid != b"(initial)"
                {
                    status.head = Some(String::from_utf8_lossy(oid).into_owned());
                }
            }
            Some(b'1') => {
                // 1 XY sub mH mI mW hH hI path
                let f = fields(9);
                let [_, _, sub, _, _, _, _, _, path] = f.as_slice() else {
                    return Err(bad(record));
                };
                if !sub.starts_with(b"S") {
                    status.dirty.insert(path_of(path));
                }
            }
            Some(b'u') => {
                // u XY sub m1 m2 m3 mW h1 h2 h3 path
                let f = fields(11);
                let [_, _, sub, .., path] = f.as_slice() else {
                    return Err(bad(record));
                };
                if !sub.starts_with(b"S") {
                    status.dirty.insert(path_of(path));
                }
            }
            Some(b'?') => {
                let path = record.strip_prefix(b"? ").ok_or_else(|| bad(record))?;
                status.dirty.insert(path_of(path));
            }
            // Renames are off and ignored files are not listed: anything else is a format this
            // code does not know, and guessing would risk a wrong restore.
            _ => return Err(bad(record)),
        }
    }
    Ok(status)
}

/// The paths whose content differs between commits `a` and `b`.
pub(crate) fn changed_between(
    root: &Path,
    a: Option<&str>,
    b: Option<&str>,
) -> Result<BTreeSet<PathBuf>, GitError> {
    // The empty tree stands for "no commit yet".
    const EMPTY_TREE: &str = "4b825dc642cb6eb9a060e54bf8d69288fbee4904";
    let mut command = git(root);
    command
        .args([
            "diff-tree",
            "-r",
            "-z",
            "--no-renames",
            "--name-only",
            "--no-commit-id",
        ])
        .arg(a.unwrap_or(EMPTY_TREE))
        .arg(b.unwrap_or(EMPTY_TREE));
    let out = output("diff-tree", command)?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty())
        .map(path_of)
        .collect())
}

/// A path's entry in a commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Entry {
    /// A regular file (executable or not) with this blob.
    File { oid: String },
    /// A symbolic link, a submodule or a folder: not a file a checkpoint restores.
    Other,
}

/// The entries of `paths` in `commit` (a path it does not hold is left out).
pub(crate) fn entries_in(
    root: &Path,
    commit: &str,
    paths: &[PathBuf],
) -> Result<BTreeMap<PathBuf, Entry>, GitError> {
    let wanted: BTreeSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let mut found = BTreeMap::new();
    // In chunks, so no command line grows past the system's limit.
    for chunk in paths.chunks(1_000) {
        let mut command = git(root);
        command
            .args(["ls-tree", "-z", "--full-tree"])
            .arg(commit)
            .arg("--")
            .args(chunk);
        let out = output("ls-tree", command)?;
        for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
            // <mode> SP <type> SP <object> TAB <file>
            let Some(tab) = record.iter().position(|b| *b == b'\t') else {
                return Err(GitError::new("ls-tree", "a line without a path"));
            };
            let path = path_of(&record[tab + 1..]);
            if !wanted.contains(path.as_path()) {
                continue;
            }
            let head: Vec<&[u8]> = record[..tab].split(|b| *b == b' ').collect();
            let entry = match head.as_slice() {
                [b"100644" | b"100755", b"blob", oid] => Entry::File {
                    oid: String::from_utf8_lossy(oid).into_owned(),
                },
                _ => Entry::Other,
            };
            found.insert(path, entry);
        }
    }
    Ok(found)
}

/// The bytes of each blob in `oids`, handed to `each` one at a time.
pub(crate) fn blobs(
    root: &Path,
    oids: &[String],
    mut each: impl FnMut(&str, Vec<u8>) -> Result<(), crate::checkpoint::CheckpointError>,
) -> Result<(), BlobsError> {
    if oids.is_empty() {
        return Ok(());
    }
    let mut command = git(root);
    command.args(["cat-file", "--batch"]).stdin(Stdio::piped());
    let mut child = command.spawn().map_err(|e| GitError::new("cat-file", e))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| GitError::new("cat-file", "no input"))?;
    let input: Vec<u8> = oids.iter().flat_map(|o| format!("{o}\n").into_bytes()).collect();
    // Written from a thread while the answers are read, so neither side waits on a full pipe.
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| GitError::new("cat-file", "no output"))?;
    let mut reader = BufReader::new(stdout);
    let result = (|| {
        for oid in oids {
            let mut header = String::new();
            reader
                .read_line(&mut header)
                .map_err(|e| GitError::new("cat-file", e))?;
            // <oid> SP <type> SP <size> LF <contents> LF
            let parts: Vec<&str> = header.trim_end().split(' ').collect();
            let [_, "blob", size] = parts.as_slice() else {
                return Err(BlobsError::Git(GitError::new(
                    "cat-file",
                    format!("{oid}: {}", header.trim_end()),
                )));
            };
            let size: usize = size
                .parse()
                .map_err(|_| GitError::new("cat-file", format!("size {size:?}")))?;
            let mut bytes = vec![0; size + 1];
            reader
                .read_exact(&mut bytes)
                .map_err(|e| GitError::new("cat-file", e))?;
            bytes.pop();
            each(oid, bytes).map_err(BlobsError::Save)?;
        }
        Ok(())
    })();
    drop(reader);
    let _ = writer.join();
    let _ = child.wait();
    result
}

/// Reading blobs failed: in git, or saving them.
#[derive(Debug, thiserror::Error)]
pub(crate) enum BlobsError {
    /// Git failed.
    #[error(transparent)]
    Git(#[from] GitError),
    /// A blob could not be saved.
    #[error(transparent)]
    Save(crate::checkpoint::CheckpointError),
}

/// The tracked paths git is told not to compare with the work tree (assume-unchanged,
/// skip-worktree): `git status` cannot say whether they changed.
pub(crate) fn unwatched_entries(root: &Path) -> Result<Vec<PathBuf>, GitError> {
    let mut command = git(root);
    command.args(["ls-files", "-z", "-v"]);
    let out = output("ls-files", command)?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|r| r.len() > 2)
        // A lowercase tag is assume-unchanged; `S` is skip-worktree.
        .filter(|r| r[0].is_ascii_lowercase() || r[0] == b'S')
        .map(|r| path_of(&r[2..]))
        .collect())
}

/// The folders (relative to the root) that hold a tracked file, the root as "".
pub(crate) fn tracked_folders(root: &Path) -> Result<BTreeSet<PathBuf>, GitError> {
    let mut command = git(root);
    command.args(["ls-files", "-z"]);
    let out = output("ls-files", command)?;
    let mut folders = BTreeSet::new();
    for record in out.split(|b| *b == 0).filter(|r| !r.is_empty()) {
        let path = path_of(record);
        let mut folder = path.parent();
        // Each folder once, with its parents (they are listed already when it is).
        while let Some(f) = folder {
            if !folders.insert(f.to_path_buf()) {
                break;
            }
            folder = f.parent();
        }
    }
    Ok(folders)
}

/// The tracked files (relative to the root) that an ignore pattern matches (added with `--force`).
pub(crate) fn ignored_tracked_files(root: &Path) -> Result<Vec<PathBuf>, GitError> {
    let mut command = git(root);
    command.args(["ls-files", "-z", "--cached", "--ignored", "--exclude-standard"]);
    let out = output("ls-files", command)?;
    Ok(out
        .split(|b| *b == 0)
        .filter(|r| !r.is_empty())
        .map(path_of)
        .collect())
}

/// The work tree's git folder (HEAD, the index) and common folder (refs, configuration), absolute.
pub(crate) fn git_dirs(root: &Path) -> Result<(PathBuf, PathBuf), GitError> {
    let mut command = git(root);
    command.args([
        "rev-parse",
        "--path-format=absolute",
        "--git-dir",
        "--git-common-dir",
    ]);
    let out = output("rev-parse", command)?;
    let mut lines = out.split(|b| *b == b'\n').filter(|l| !l.is_empty());
    match (lines.next(), lines.next()) {
        (Some(git_dir), Some(common)) => Ok((path_of(git_dir), path_of(common))),
        _ => Err(GitError::new(
            "rev-parse",
            format!("unexpected output {:?}", String::from_utf8_lossy(&out)),
        )),
    }
}

/// The file whose identity says whether the index changed (for caching [`unwatched_entries`]).
pub(crate) fn index_file(root: &Path) -> Result<PathBuf, GitError> {
    let mut command = git(root);
    command.args(["rev-parse", "--path-format=absolute", "--git-path", "index"]);
    let out = output("rev-parse", command)?;
    let text = out.strip_suffix(b"\n").unwrap_or(&out);
    Ok(path_of(text))
}

/// Of `paths`, those whose work-tree bytes git may make differ from the blob it stores (a filter
/// such as Git LFS, end-of-line conversion, `ident`, another encoding): for them a blob is not
/// what the file held.
pub(crate) fn converted(root: &Path, paths: &[PathBuf]) -> Result<BTreeSet<PathBuf>, GitError> {
    if paths.is_empty() {
        return Ok(BTreeSet::new());
    }
    // Line endings converted for every text file by the configuration alone (`true` or `input`:
    // either way a work-tree file may hold CRLF where its blob holds LF).
    let mut config = git(root);
    config.args(["config", "-z", "--get-regexp", r"^core\.autocrlf$"]);
    let config = config.output().map_err(|e| GitError::new("config", e))?;
    let autocrlf = config.stdout.split(|b| *b == 0).any(|kv| {
        kv.split(|b| *b == b'\n').nth(1).is_some_and(|v| {
            !["false", "no", "off", "0", ""]
                .iter()
                .any(|f| v.eq_ignore_ascii_case(f.as_bytes()))
        })
    });
    let mut command = git(root);
    command
        .args([
            "check-attr",
            "-z",
            "--stdin",
            "filter",
            "eol",
            "ident",
            "working-tree-encoding",
            "text",
        ])
        .stdin(Stdio::piped());
    let mut child = command.spawn().map_err(|e| GitError::new("check-attr", e))?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| GitError::new("check-attr", "no input"))?;
    let input: Vec<u8> = paths
        .iter()
        .flat_map(|p| p.as_os_str().as_bytes().iter().copied().chain([0]))
        .collect();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child
        .wait_with_output()
        .map_err(|e| GitError::new("check-attr", e))?;
    let _ = writer.join();
    if !out.status.success() {
        return Err(GitError::new(
            "check-attr",
            String::from_utf8_lossy(&out.stderr).trim().to_string(),
        ));
    }
    // <path> NUL <attribute> NUL <info> NUL
    let fields: Vec<&[u8]> = out.stdout.split(|b| *b == 0).collect();
    let mut found = BTreeSet::new();
    for triple in fields.chunks_exact(3) {
        let [path, attribute, value] = triple else {
            continue;
        };
        let set = *value != b"unspecified" && *value != b"unset";
        let converts = match *attribute {
            b"text" => set || (autocrlf && *value != b"unset"),
            _ => set,
        };
        if converts {
            found.insert(path_of(path));
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn status_lists_changed_unmerged_and_untracked_paths_but_not_submodules() {
        let out = b"# branch.oid 1234abcd\0# branch.head main\0\
1 .M N... 100644 100644 100644 aaaa aaaa src/a b.rs\0\
1 A. N... 000000 100644 100644 0000 bbbb new.rs\0\
1 .M S.M. 160000 160000 160000 cccc cccc vendor/sub\0\
u UU N... 100644 100644 100644 100644 d1 d2 d3 conflict.txt\0\
? notes/todo.txt\0";
        assert_eq!(
            parse_status(out).unwrap(),
            Status {
                head: Some("1234abcd".into()),
                dirty: ["src/a b.rs", "new.rs", "conflict.txt", "notes/todo.txt"]
                    .into_iter()
                    .map(PathBuf::from)
                    .collect(),
            }
        );
    }

    #[test]
    fn a_repository_without_commits_has_no_head_and_an_unknown_line_is_an_error() {
        assert_eq!(parse_status(b"# branch.oid (initial)\0").unwrap().head, None);
        assert!(parse_status(b"2 R. N... 100644 100644 100644 a b R100 x\0y\0").is_err());
    }
}
