//! Write guards: entries inside the writable folders (`.git/config`, `.git/hooks`, `.vscode/`,
//! `.envrc`...) that a sandboxed command may not write, create, remove or rename, because a program
//! outside the sandbox later runs what they say (the user's `git status` runs `core.fsmonitor`).
//!
//! Why a mount namespace and not Landlock alone: Landlock rights on a folder hold for everything
//! beneath it, and a new file is writable only through a right on a folder above it. So a project
//! where new files can be written (`echo > new.txt`, git's `.git/index.lock`) grants writing on the
//! project folder and on `.git`, and with them on `.git/config`; no carving of rules can take one
//! file back out. What Landlock cannot express, a mount can: the helper's second stage enters a
//! mount namespace of its own (a user namespace too when it is not root), bind-mounts each guarded
//! entry read-only onto itself, and only then applies Landlock (which also forbids the command any
//! later mount or unmount). A read-only mount point cannot be written, removed, renamed over or
//! replaced, whatever path or link leads to it, and the mounts exist only in the command's
//! namespace (the engine and the user see the plain files). This is how Codex's Linux sandbox
//! protects `.git`, and Claude Code's bubblewrap sandbox its mandatory deny list.
//!
//! A guard that does not exist yet needs a mount point to hold the mount, so the first stage (which
//! stays outside the namespace) creates a *placeholder* there: an empty folder with mode 000,
//! which the command sees as an empty read-only folder (for a file name too: creating the file then
//! fails with "Is a directory", and git, `git status` and `git add -A` pass over empty folders,
//! where an empty file or a device would be listed and added). `.git/commondir`, which git reads
//! whenever it exists, is held instead by a file naming its own folder (`.`), which git reads as
//! "no other common folder". When the command ends, placeholders are
//! removed again by whichever helper is the last to use the folder: every helper holds a shared
//! `flock` on the guarded folders while its command runs and cleans up only when it can take the
//! lock exclusively. A helper killed before cleaning up leaves mode-000 placeholders, which the next
//! one reuses and removes. The lock is the helper's, not the command's: a process the command
//! leaves running after it ends (a daemon; not a background task, whose helper waits for it) is
//! not waited for, and once the placeholders are gone it could create a missing guarded name (the
//! mounts on existing guarded entries stay, read-only, for as long as it lives). git's own
//! detached maintenance is such a process, and holding the placeholders for it would leave them
//! in the project after most commits. While a command runs, other programs see the placeholders (empty folders
//! with no permissions named `.envrc`, `.vscode`...).

use std::fs::File;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::policy::{IfMissing, WriteGuard};

/// Whether `meta` is a placeholder: a folder with no permission bits (the mark every helper
/// recognises, its own or another's).
fn is_placeholder(meta: &std::fs::Metadata) -> bool {
    meta.is_dir() && meta.mode() & 0o7777 == 0
}

/// What a self-reference placeholder holds (see [`IfMissing::RefuseAsSelfReference`]), and its
/// mode: readable, so git outside the sandbox reads it too while the command runs.
const SELF_REFERENCE: &str = ".\n";
const SELF_REFERENCE_MODE: u32 = 0o444;

fn is_self_reference(path: &Path, meta: &std::fs::Metadata) -> bool {
    meta.is_file()
        && meta.mode() & 0o7777 == SELF_REFERENCE_MODE
        && meta.len() == SELF_REFERENCE.len() as u64
        && std::fs::read_to_string(path).is_ok_and(|text| text == SELF_REFERENCE)
}

fn placeholder_at(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| is_placeholder(&m))
}

/// The folders whose guards a helper uses, locked shared while its command runs.
pub(super) struct Placeholders {
    locks: Vec<(PathBuf, nix::fcntl::Flock<File>)>,
    guards: Vec<WriteGuard>,
}

/// A shared lock on `folder` (held by the helper only: the command does not inherit it).
fn shared_lock(folder: &Path) -> Option<nix::fcntl::Flock<File>> {
    let file = File::open(folder).ok()?;
    nix::fcntl::Flock::lock(file, nix::fcntl::FlockArg::LockShared).ok()
}

/// Takes the shared locks and creates a placeholder for each missing guard that refuses creation
/// (where its folder exists; a guard inside a placeholder is covered by it). Errors leave a guard
/// without placeholder: if this helper cannot create it, neither can the command (same user, and
/// the sandbox grants no more than the file system does).
pub(super) fn prepare(guards: &[WriteGuard]) -> Placeholders {
    let mut folders: Vec<PathBuf> = guards
        .iter()
        .filter_map(|g| g.path.parent().map(Path::to_path_buf))
        .collect();
    folders.sort();
    folders.dedup();
    let locks = folders
        .into_iter()
        .filter_map(|folder| shared_lock(&folder).map(|lock| (folder, lock)))
        .collect();
    for guard in guards {
        let inside_placeholder = guard.path.parent().is_some_and(placeholder_at);
        if inside_placeholder || std::fs::symlink_metadata(&guard.path).is_ok() {
            continue;
        }
        let _ = match guard.if_missing {
            IfMissing::Refuse => std::fs::DirBuilder::new().mode(0o000).create(&guard.path),
            IfMissing::RefuseAsSelfReference => std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(SELF_REFERENCE_MODE)
                .open(&guard.path)
                .and_then(|mut file| std::io::Write::write_all(&mut file, SELF_REFERENCE.as_bytes())),
            IfMissing::Allow => Ok(()),
        };
    }
    Placeholders {
        locks,
        guards: guards.to_vec(),
    }
}

impl Placeholders {
    /// Releases the locks and, in each folder no other helper uses any more, removes the
    /// placeholders (only placeholders: a folder someone filled is no longer one).
    pub(super) fn clean_up(self) {
        use nix::fcntl::{Flock, FlockArg};
        for (folder, shared) in self.locks {
            let Ok(file) = shared.unlock() else {
                continue;
            };
            let Ok(exclusive) = Flock::lock(file, FlockArg::LockExclusiveNonblock) else {
                continue; // another command still uses the folder: its helper cleans up
            };
            for guard in self.guards.iter().rev() {
                if guard.path.parent() != Some(folder.as_path()) {
                    continue;
                }
                match std::fs::symlink_metadata(&guard.path) {
                    Ok(meta) if is_placeholder(&meta) => {
                        let _ = std::fs::remove_dir(&guard.path);
                    }
                    Ok(meta)
                        if guard.if_missing == IfMissing::RefuseAsSelfReference
                            && is_self_reference(&guard.path, &meta) =>
                    {
                        let _ = std::fs::remove_file(&guard.path);
                    }
                    _ => {}
                }
            }
            let _ = exclusive.unlock();
        }
    }
}

/// Why the guards could not be put in place (the command then does not run).
#[derive(Debug, thiserror::Error)]
pub(super) enum GuardError {
    /// Neither a mount namespace nor a user namespace could be entered.
    #[error(
        "cannot enter a mount namespace to make protected files read-only ({0}); unprivileged user namespaces may be disabled (kernel.unprivileged_userns_clone, or AppArmor's kernel.apparmor_restrict_unprivileged_userns)"
    )]
    Namespace(nix::Error),
    /// The user namespace's identity mapping could not be written.
    #[error("cannot map the user into the sandbox's user namespace: {0}")]
    Mapping(std::io::Error),
    /// A mount failed.
    #[error("cannot make {} read-only: {source}", path.display())]
    Mount {
        /// The guarded entry.
        path: PathBuf,
        /// Why.
        source: nix::Error,
    },
}

/// Enters a mount namespace of this process's own and makes every guard read-only in it (the
/// second stage, before Landlock). Returns how many entries were guarded.
pub(super) fn enter(guards: &[WriteGuard]) -> Result<usize, GuardError> {
    use nix::mount::{MsFlags, mount};
    use nix::sched::{CloneFlags, unshare};
    // Root (or a process with CAP_SYS_ADMIN) needs no user namespace, and keeps its powers over
    // other users' files; anyone else gets one, mapped to their own identity.
    if unshare(CloneFlags::CLONE_NEWNS).is_err() {
        let (uid, gid) = (nix::unistd::geteuid(), nix::unistd::getegid());
        unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNS).map_err(GuardError::Namespace)?;
        std::fs::write("/proc/self/setgroups", "deny").map_err(GuardError::Mapping)?;
        std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1")).map_err(GuardError::Mapping)?;
        std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1")).map_err(GuardError::Mapping)?;
    }
    // Nothing mounted here may reach the engine's namespace.
    let none: Option<&str> = None;
    mount(none, "/", none, MsFlags::MS_REC | MsFlags::MS_SLAVE, none).map_err(|source| {
        GuardError::Mount {
            path: PathBuf::from("/"),
            source,
        }
    })?;
    let mut mounted: Vec<&Path> = Vec::new();
    for guard in guards {
        if mounted.iter().any(|m| guard.path.starts_with(m)) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&guard.path) else {
            continue; // missing, and allowed to be created (or its folder is missing)
        };
        let placeholder = is_placeholder(&meta);
        if guard.git_dir && meta.is_dir() && !placeholder {
            continue; // a repository: its guarded entries are listed on their own
        }
        let fail = |source| GuardError::Mount {
            path: guard.path.clone(),
            source,
        };
        if placeholder {
            mount(
                Some("tmpfs"),
                &guard.path,
                Some("tmpfs"),
                MsFlags::MS_RDONLY | MsFlags::MS_NOSUID | MsFlags::MS_NODEV | MsFlags::MS_NOEXEC,
                Some("size=4k,nr_inodes=1,mode=0555"),
            )
            .map_err(fail)?;
        } else {
            bind_read_only(&guard.path).map_err(fail)?;
        }
        mounted.push(&guard.path);
    }
    Ok(mounted.len())
}

/// Bind-mounts `target` onto itself read-only, keeping the flags the kernel locks on the mount
/// it comes from (a user namespace may not drop `nosuid`, `nodev`, `noexec` or the atime mode).
fn bind_read_only(target: &Path) -> nix::Result<()> {
    use nix::mount::{MsFlags, mount};
    use nix::sys::statvfs::{FsFlags, statvfs};
    let none: Option<&str> = None;
    mount(Some(target), target, none, MsFlags::MS_BIND, none)?;
    let kept = statvfs(target)?.flags();
    let mut flags = MsFlags::MS_BIND | MsFlags::MS_REMOUNT | MsFlags::MS_RDONLY;
    for (fs, ms) in [
        (FsFlags::ST_NOSUID, MsFlags::MS_NOSUID),
        (FsFlags::ST_NODEV, MsFlags::MS_NODEV),
        (FsFlags::ST_NOEXEC, MsFlags::MS_NOEXEC),
        (FsFlags::ST_NOATIME, MsFlags::MS_NOATIME),
        (FsFlags::ST_NODIRATIME, MsFlags::MS_NODIRATIME),
        (FsFlags::ST_RELATIME, MsFlags::MS_RELATIME),
    ] {
        if kept.contains(fs) {
            flags |= ms;
        }
    }
    mount(none, target, none, flags, none)
}
