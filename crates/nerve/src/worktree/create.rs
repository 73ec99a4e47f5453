//! Making a session's worktree: the checks that give each awkward repository its answer, the branch
//! and folder, and the ignored files a build needs (`.worktreeinclude`, and the local settings
//! files, whose rules the user granted for this project).

use std::path::{Path, PathBuf};

use super::git;
use super::{NewWorktree, Workspaces, WorktreeError, WorktreeInfo};

/// A worktree made, and what the user should know about it.
#[derive(Debug, Clone)]
pub struct Created {
    /// The worktree.
    pub info: WorktreeInfo,
    /// Notes for the user: uncommitted changes left behind, submodules not checked out, a
    /// detached base.
    pub notes: Vec<String>,
    /// The ignored files copied in (relative paths).
    pub copied: Vec<String>,
}

/// Files git ignores that are copied into every worktree when present: the rules and settings the
/// user keeps for this project on this machine.
const LOCAL_SETTINGS: [&str; 2] = [".nerve/settings.local.json", ".claude/settings.local.json"];

impl Workspaces {
    /// Makes a worktree for `session_id` on a new branch. The session then works in
    /// [`WorktreeInfo::work_dir`].
    pub fn create(&self, session_id: &str, request: &NewWorktree) -> Result<Created, WorktreeError> {
        let dir = &self.project_dir;
        if let Some(existing) = self.of_session(session_id)? {
            return Ok(Created {
                info: existing,
                notes: Vec::new(),
                copied: Vec::new(),
            });
        }
        let inside = git::output(dir, &["rev-parse", "--is-bare-repository", "--show-prefix"])?;
        if !inside.status.success() {
            return Err(WorktreeError::NotARepository { dir: dir.clone() });
        }
        let answer = String::from_utf8_lossy(&inside.stdout).to_string();
        let mut answer = answer.lines();
        if answer.next() == Some("true") {
            return Err(WorktreeError::Bare { dir: dir.clone() });
        }
        let prefix = answer.next().unwrap_or("").to_string();
        let top = PathBuf::from(git::run(dir, &["rev-parse", "--show-toplevel"])?);

        let mut notes = Vec::new();
        let (base_commit, base_branch) = match &request.base {
            None => {
                let Ok(head) = git::run(dir, &["rev-parse", "--verify", "--quiet", "HEAD^{commit}"]) else {
                    return Err(WorktreeError::NoCommit { dir: dir.clone() });
                };
                let branch = git::run(dir, &["symbolic-ref", "--quiet", "--short", "HEAD"]).ok();
                if branch.is_none() {
                    notes.push(format!(
                        "The main checkout is on a detached HEAD; the worktree starts from its commit {} and will land onto whatever the main checkout has checked out then.",
                        short(&head)
                    ));
                }
                (head, branch)
            }
            Some(base) => {
                if base.starts_with('-') {
                    return Err(WorktreeError::UnknownBase { base: base.clone() });
                }
                let commit = git::run(
                    dir,
                    &["rev-parse", "--verify", "--quiet", &format!("{base}^{{commit}}")],
                )
                .map_err(|_| WorktreeError::UnknownBase { base: base.clone() })?;
                let is_branch = git::succeeds(
                    dir,
                    &["show-ref", "--verify", "--quiet", &format!("refs/heads/{base}")],
                );
                (commit, is_branch.then(|| base.clone()))
            }
        };

        let status = git::run(
            dir,
            &["status", "--porcelain", crate::git_command::STATUS_SUBMODULES],
        )?;
        let dirty = git::lines(&status).len();
        if dirty > 0 {
            notes.push(format!(
                "The main checkout has {dirty} uncommitted change(s); the worktree starts from commit {} without them.",
                short(&base_commit)
            ));
        }
        if top.join(".gitmodules").is_file() {
            notes.push(
                "The repository has submodules; they are not checked out in the worktree (their folders are empty). Run `git submodule update --init` there if the session needs them.".into(),
            );
        }

        let short_id = session_id.get(..8).unwrap_or(session_id);
        let branch = self.free_branch_name(request.name.as_deref().unwrap_or(short_id))?;
        let path = self.root().join(crate::storage::safe_file_stem(session_id));
        std::fs::create_dir_all(self.root()).map_err(|source| WorktreeError::Io {
            what: "create",
            path: self.root(),
            source,
        })?;
        let path_text = path.to_string_lossy().to_string();
        git::run(
            dir,
            &[
                "worktree",
                "add",
                "--quiet",
                "-b",
                &branch,
                &path_text,
                &base_commit,
            ],
        )?;
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        let copied = copy_included(&top, &path);
        let info = WorktreeInfo {
            session_id: session_id.to_string(),
            work_dir: path.join(&prefix),
            path,
            branch,
            named: request.name.is_some(),
            base_commit,
            base_branch,
            created_ms: now_ms(),
        };
        let record = self.record_path(session_id);
        let text = serde_json::to_vec_pretty(&info).unwrap_or_default();
        if let Err(source) = crate::files::write_atomic(&record, &text) {
            // Without its record the worktree could not be found again: take it back.
            let _ = self.remove_unrecorded(&info);
            return Err(WorktreeError::Io {
                what: "write",
                path: record,
                source,
            });
        }
        Ok(Created { info, notes, copied })
    }

    /// Names the branch of a worktree made before its session had a title after `title` (its first
    /// prompt): `nerve/<id>` becomes `nerve/<title>`. A worktree already named is left as it is.
    pub fn name_after(&self, session_id: &str, title: &str) -> Result<WorktreeInfo, WorktreeError> {
        let mut info = self.require(session_id)?;
        if info.named {
            return Ok(info);
        }
        let branch = self.free_branch_name(title)?;
        git::run(&self.project_dir, &["branch", "-m", &info.branch, &branch])?;
        info.branch = branch;
        info.named = true;
        let record = self.record_path(session_id);
        let text = serde_json::to_vec_pretty(&info).unwrap_or_default();
        crate::files::write_atomic(&record, &text).map_err(|source| WorktreeError::Io {
            what: "write",
            path: record,
            source,
        })?;
        Ok(info)
    }

    fn remove_unrecorded(&self, info: &WorktreeInfo) -> Result<(), WorktreeError> {
        let path = info.path.to_string_lossy().to_string();
        git::run(
            &self.project_dir,
            &["worktree", "remove", "--force", "--force", &path],
        )?;
        git::run(&self.project_dir, &["branch", "-D", &info.branch]).map(drop)
    }

    /// `nerve/<slug>`, with `-2`, `-3`… when a branch of that name exists.
    fn free_branch_name(&self, name: &str) -> Result<String, WorktreeError> {
        let slug = slug(name);
        for n in 1..1000 {
            let candidate = if n == 1 {
                format!("nerve/{slug}")
            } else {
                format!("nerve/{slug}-{n}")
            };
            let exists = git::succeeds(
                &self.project_dir,
                &[
                    "show-ref",
                    "--verify",
                    "--quiet",
                    &format!("refs/heads/{candidate}"),
                ],
            );
            if !exists && git::succeeds(&self.project_dir, &["check-ref-format", "--branch", &candidate]) {
                return Ok(candidate);
            }
        }
        Err(WorktreeError::Git {
            command: "git branch".into(),
            said: format!("no free branch name for nerve/{slug}"),
        })
    }
}

/// A branch-safe short form of a title: lowercase letters and digits joined by `-`, at most six
/// words and 40 characters.
fn slug(title: &str) -> String {
    let words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(|w| {
            w.chars()
                .filter(char::is_ascii_alphanumeric)
                .collect::<String>()
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    let mut slug = words.join("-");
    slug.truncate(40);
    let slug = slug.trim_matches('-').to_string();
    if slug.is_empty() { "session".into() } else { slug }
}

fn short(commit: &str) -> &str {
    commit.get(..8).unwrap_or(commit)
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// Copies into `worktree` the files of `top` that git ignores and `.worktreeinclude` names (same
/// syntax as `.gitignore`), and the local settings files. Symbolic links are copied as links; a
/// file that cannot be copied is skipped with a warning (the session still starts). Returns the
/// relative paths copied.
fn copy_included(top: &Path, worktree: &Path) -> Vec<String> {
    let mut wanted: Vec<String> = LOCAL_SETTINGS
        .iter()
        .filter(|rel| top.join(rel).is_file() && !worktree.join(rel).exists())
        .map(|rel| rel.to_string())
        .collect();
    let include = top.join(".worktreeinclude");
    if include.is_file() {
        let mut builder = ignore::gitignore::GitignoreBuilder::new(top);
        if let Some(e) = builder.add(&include) {
            tracing::warn!(error = %e, "a line of .worktreeinclude could not be read");
        }
        match builder.build() {
            Ok(patterns) => wanted.extend(ignored_matching(top, &patterns)),
            Err(e) => tracing::warn!(error = %e, ".worktreeinclude could not be read"),
        }
    }
    wanted.sort();
    wanted.dedup();
    wanted
        .into_iter()
        .filter(|rel| match copy_one(&top.join(rel), &worktree.join(rel)) {
            Ok(()) => true,
            Err(e) => {
                tracing::warn!(file = %rel, error = %e, "could not copy an included file into the worktree");
                false
            }
        })
        .collect()
}

/// The ignored files of `top` that `patterns` match (a matched ignored folder brings its files).
fn ignored_matching(top: &Path, patterns: &ignore::gitignore::Gitignore) -> Vec<String> {
    let Ok(listing) = git::run(
        top,
        &[
            "ls-files",
            "-z",
            "--others",
            "--ignored",
            "--exclude-standard",
            "--directory",
        ],
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for entry in listing.split('\0').filter(|e| !e.is_empty()) {
        let is_dir = entry.ends_with('/');
        let rel = entry.trim_end_matches('/');
        if patterns.matched_path_or_any_parents(rel, is_dir).is_ignore() {
            if is_dir {
                out.extend(files_under(top, rel));
            } else {
                out.push(rel.to_string());
            }
        } else if is_dir {
            // An ignored folder not named as a whole may hold files a pattern names.
            out.extend(
                files_under(top, rel)
                    .into_iter()
                    .filter(|f| patterns.matched_path_or_any_parents(f, false).is_ignore()),
            );
        }
    }
    out
}

/// The files below `top/rel`, relative to `top` (links not followed).
fn files_under(top: &Path, rel: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![top.join(rel)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(path),
                Ok(_) => {
                    if let Ok(r) = path.strip_prefix(top) {
                        out.push(r.to_string_lossy().to_string());
                    }
                }
                Err(_) => {}
            }
        }
    }
    out
}

fn copy_one(from: &Path, to: &Path) -> std::io::Result<()> {
    if let Some(parent) = to.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let meta = std::fs::symlink_metadata(from)?;
    if meta.file_type().is_symlink() {
        std::os::unix::fs::symlink(std::fs::read_link(from)?, to)
    } else {
        std::fs::copy(from, to).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_become_short_branch_safe_slugs() {
        assert_eq!(slug("Fix the login bug!"), "fix-the-login-bug");
        assert_eq!(slug("  ../..  "), "session");
        assert_eq!(
            slug("Ünïcode wörds and a very long title that goes on"),
            "ncode-wrds-and-a-very-long"
        );
        assert_eq!(slug("3f2a9c1e-aaaa-bbbb"), "3f2a9c1e-aaaa-bbbb");
    }
}
