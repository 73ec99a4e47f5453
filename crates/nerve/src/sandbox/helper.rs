//! The sandbox helper: the host binary re-executed as `<exe> __nerve-sandbox-exec POLICY -- PROGRAM
//! ARGS...` (`POLICY` is JSON, or `-` for no restriction). It works in two stages. The first, the
//! supervisor, creates the placeholders for missing write-guarded entries ([`super::guard`]) and
//! starts the second stage, `<exe> __nerve-sandbox-enter POLICY -- PROGRAM ARGS...`, which enters a
//! mount namespace of its own, makes the guarded entries read-only there, restricts itself
//! (Landlock for files and TCP, seccomp for other sockets and for namespace and mount calls) and
//! becomes the program (`exec`), which keeps the restrictions, as do its children. The supervisor
//! stays outside the namespace (it removes the placeholders afterwards, which it could not do from
//! inside, where they are mount points) and supervises: it waits for the program and exits as it
//! did, and when the engine's process dies (killed, crashed) it kills the command's whole process
//! group, so no command outlives its session. (`PR_SET_PDEATHSIG` alone would stop only the direct child, and fires when
//! the spawning *thread* exits; the supervisor watches its parent process instead.) Landlock
//! rules are allow-lists: "read everything except" is written as read rights on every part of the
//! tree that holds no denied path, and on the folders above a denied path only the right to list
//! them (so `ls ~` works while `~/.ssh/id_rsa` stays unreadable; the names inside a denied folder
//! can be listed, its files not opened).

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::SandboxPolicy;

/// The first argument that makes a host binary act as the helper.
pub const HELPER_ARG: &str = "__nerve-sandbox-exec";

/// The first argument of the helper's second stage (started by the first, never by the engine).
const ENTER_ARG: &str = "__nerve-sandbox-enter";

/// The exit status when the sandbox could not be applied (the command did not run).
pub const SANDBOX_FAILED: i32 = 125;

/// The marker the helper prints before its error when it cannot apply the sandbox, so the Bash
/// tool can tell "the sandbox failed" from the command's own output.
pub const FAILURE_MARKER: &str = "nerve-sandbox: ";

/// Runs the helper when the process was started as one, and never returns then. Every binary that
/// hosts the engine calls this first thing in `main`.
pub fn run_if_asked() {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == HELPER_ARG) {
        let code = run(&args[2..]);
        std::process::exit(code);
    }
    if args.get(1).is_some_and(|a| a == ENTER_ARG) {
        let code = enter(&args[2..]);
        std::process::exit(code);
    }
}

/// The arguments that make `exe` run `program args` sandboxed by `policy` (`None`: unrestricted,
/// only supervised), started by the engine itself.
pub fn command_line(policy: Option<&SandboxPolicy>) -> Result<Vec<OsString>, serde_json::Error> {
    // The engine's own PID: the helper compares its parent with it from the start. Reading its
    // parent itself would miss an engine killed while the helper was still starting (it would
    // already have been reparented, and watch the wrong process).
    helper_line(policy, std::process::id().to_string())
}

/// [`command_line`] for a helper another process starts for the engine (an editor's terminal): the
/// helper is not the engine's child, so it watches the engine's PID instead of its parent, and
/// kills the command when the engine is gone all the same.
pub fn command_line_started_elsewhere(
    policy: Option<&SandboxPolicy>,
) -> Result<Vec<OsString>, serde_json::Error> {
    helper_line(policy, format!("{WATCHED}{}", std::process::id()))
}

/// Marks the engine PID of a helper that is not the engine's child ([`command_line_started_elsewhere`]).
const WATCHED: char = '@';

fn helper_line(policy: Option<&SandboxPolicy>, engine: String) -> Result<Vec<OsString>, serde_json::Error> {
    let policy = match policy {
        Some(p) => serde_json::to_string(p)?,
        None => "-".to_string(),
    };
    Ok(vec![
        OsString::from(HELPER_ARG),
        OsString::from(engine),
        OsString::from(policy),
        OsString::from("--"),
    ])
}

/// How the helper knows the engine that asked for the command is gone.
#[derive(Debug, Clone, Copy)]
enum Engine {
    /// The engine started the helper: gone when the helper's parent changes.
    Parent(nix::unistd::Pid),
    /// Another process started it for the engine: gone when the engine's PID no longer exists.
    Watched(nix::unistd::Pid),
}

impl Engine {
    fn parse(arg: &OsString) -> Option<Self> {
        let text = arg.to_str()?;
        let (watched, pid) = match text.strip_prefix(WATCHED) {
            Some(pid) => (true, pid),
            None => (false, text),
        };
        let pid = nix::unistd::Pid::from_raw(pid.parse::<i32>().ok().filter(|p| *p > 0)?);
        Some(if watched {
            Self::Watched(pid)
        } else {
            Self::Parent(pid)
        })
    }

    fn is_gone(self) -> bool {
        match self {
            Self::Parent(pid) => nix::unistd::getppid() != pid,
            // Signal 0 checks that the process exists without touching it.
            Self::Watched(pid) => nix::sys::signal::kill(pid, None) == Err(nix::errno::Errno::ESRCH),
        }
    }
}

fn run(args: &[OsString]) -> i32 {
    let fail = |message: String| {
        eprintln!("{FAILURE_MARKER}{message}");
        SANDBOX_FAILED
    };
    const USAGE: &str = "usage: __nerve-sandbox-exec ENGINE_PID POLICY -- PROGRAM [ARGS...]";
    let [engine, policy, dashes, program, rest @ ..] = args else {
        return fail(USAGE.into());
    };
    if dashes != "--" {
        return fail(USAGE.into());
    }
    let Some(engine) = Engine::parse(engine) else {
        return fail(USAGE.into());
    };
    if engine.is_gone() {
        // The engine died before the command started: start nothing.
        return SANDBOX_FAILED;
    }
    if policy == "-" {
        return supervise(engine, std::process::Command::new(program).args(rest), None, fail);
    }
    let parsed: SandboxPolicy = match policy.to_str().map(serde_json::from_str) {
        Some(Ok(p)) => p,
        Some(Err(e)) => return fail(format!("the policy is not valid: {e}")),
        None => return fail("the policy is not UTF-8".into()),
    };
    let exe = match std::env::current_exe() {
        Ok(exe) => exe,
        Err(e) => return fail(format!("cannot find the helper's own executable: {e}")),
    };
    #[cfg(target_os = "linux")]
    let placeholders = Some(super::guard::prepare(&parsed.write_protected));
    #[cfg(not(target_os = "linux"))]
    let placeholders = None;
    let mut second = std::process::Command::new(exe);
    second
        .arg(ENTER_ARG)
        .arg(policy)
        .arg("--")
        .arg(program)
        .args(rest);
    supervise(engine, &mut second, placeholders, fail)
}

/// The second stage: guards, Landlock and seccomp, then the program in place of this process.
fn enter(args: &[OsString]) -> i32 {
    let fail = |message: String| {
        eprintln!("{FAILURE_MARKER}{message}");
        SANDBOX_FAILED
    };
    let [policy, dashes, program, rest @ ..] = args else {
        return fail("usage: __nerve-sandbox-enter POLICY -- PROGRAM [ARGS...]".into());
    };
    if dashes != "--" {
        return fail("usage: __nerve-sandbox-enter POLICY -- PROGRAM [ARGS...]".into());
    }
    let policy: SandboxPolicy = match policy.to_str().map(serde_json::from_str) {
        Some(Ok(p)) => p,
        Some(Err(e)) => return fail(format!("the policy is not valid: {e}")),
        None => return fail("the policy is not UTF-8".into()),
    };
    if let Err(e) = restrict(&policy) {
        return fail(format!("could not apply the sandbox: {e}"));
    }
    if policy.proxy.is_some() && !policy.network {
        // The bridge to the proxy runs on threads of this process (see `bridge`): `exec` would end
        // them, so the program runs as a child, with the same restrictions, and this stage waits.
        return run_and_wait(program, rest, fail);
    }
    exec(program, rest, fail)
}

/// Runs the program as a child and exits as it did (a death by signal `n` as 128 + n).
#[cfg(unix)]
fn run_and_wait(program: &OsString, rest: &[OsString], fail: impl Fn(String) -> i32) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    match std::process::Command::new(program).args(rest).status() {
        Ok(status) => status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(SANDBOX_FAILED),
        Err(e) => fail(format!("could not start {}: {e}", program.to_string_lossy())),
    }
}

#[cfg(not(unix))]
fn run_and_wait(_program: &OsString, _rest: &[OsString], fail: impl Fn(String) -> i32) -> i32 {
    fail("the sandbox is only implemented for Linux".into())
}

#[cfg(unix)]
fn exec(program: &OsString, rest: &[OsString], fail: impl Fn(String) -> i32) -> i32 {
    use std::os::unix::process::CommandExt;
    let e = std::process::Command::new(program).args(rest).exec();
    fail(format!("could not start {}: {e}", program.to_string_lossy()))
}

#[cfg(not(unix))]
fn exec(_program: &OsString, _rest: &[OsString], fail: impl Fn(String) -> i32) -> i32 {
    fail("the sandbox is only implemented for Linux".into())
}

#[cfg(target_os = "linux")]
type Placeholders = super::guard::Placeholders;
#[cfg(not(target_os = "linux"))]
type Placeholders = ();

/// Runs the program and exits as it did (a death by signal `n` as 128 + n, as shells report it),
/// killing what it started if the engine's process goes away first.
#[cfg(unix)]
fn supervise(
    engine: Engine,
    command: &mut std::process::Command,
    placeholders: Option<Placeholders>,
    fail: impl Fn(String) -> i32,
) -> i32 {
    use std::os::unix::process::ExitStatusExt;
    use std::sync::{Arc, Mutex};
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = match command.spawn() {
        Ok(c) => c,
        Err(e) => {
            clean_up(placeholders);
            return fail(format!("could not start {program}: {e}"));
        }
    };
    let orphaned = OrphanedKill::of(&child);
    let placeholders = Arc::new(Mutex::new(placeholders));
    let on_orphan = Arc::clone(&placeholders);
    std::thread::spawn(move || {
        loop {
            if engine.is_gone() {
                // The engine is gone: so is everything it started, the helper included.
                orphaned.kill();
                clean_up(on_orphan.lock().ok().and_then(|mut p| p.take()));
                std::process::exit(SANDBOX_FAILED);
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    });
    let waited = child.wait();
    clean_up(placeholders.lock().ok().and_then(|mut p| p.take()));
    match waited {
        Ok(status) => status
            .code()
            .or_else(|| status.signal().map(|s| 128 + s))
            .unwrap_or(SANDBOX_FAILED),
        Err(e) => fail(format!("could not wait for {program}: {e}")),
    }
}

fn clean_up(placeholders: Option<Placeholders>) {
    #[cfg(target_os = "linux")]
    if let Some(placeholders) = placeholders {
        placeholders.clean_up();
    }
    #[cfg(not(target_os = "linux"))]
    let _ = placeholders;
}

/// What the helper kills when the engine dies: its own process group when it leads one (the engine
/// starts each command so: the command's children are in it too), else only the program it started.
/// A group the helper does not lead is someone else's (the engine's, and whoever started the
/// engine: a shell, a test runner); killing it would take them down too.
#[cfg(unix)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum OrphanedKill {
    OwnGroup,
    Program(nix::unistd::Pid),
}

#[cfg(unix)]
impl OrphanedKill {
    fn of(child: &std::process::Child) -> Self {
        if nix::unistd::getpgrp() == nix::unistd::getpid() {
            Self::OwnGroup
        } else {
            Self::Program(nix::unistd::Pid::from_raw(child.id().cast_signed()))
        }
    }

    fn kill(self) {
        use nix::sys::signal::{Signal, kill, killpg};
        let _ = match self {
            Self::OwnGroup => killpg(nix::unistd::getpgrp(), Signal::SIGKILL),
            Self::Program(pid) => kill(pid, Signal::SIGKILL),
        };
    }
}

#[cfg(not(unix))]
fn supervise(
    _engine: Engine,
    _command: &mut std::process::Command,
    _placeholders: Option<Placeholders>,
    fail: impl Fn(String) -> i32,
) -> i32 {
    fail("the sandbox is only implemented for Linux".into())
}

/// Why the helper could not restrict itself; it says so on stderr and runs nothing.
#[derive(Debug, thiserror::Error)]
enum RestrictError {
    /// Not Linux.
    #[cfg(not(target_os = "linux"))]
    #[error("the sandbox is only implemented for Linux")]
    Unsupported,
    /// Landlock refused the ruleset.
    #[cfg(target_os = "linux")]
    #[error("{0}")]
    Landlock(#[from] landlock::RulesetError),
    /// Landlock refused the rule for one path.
    #[cfg(target_os = "linux")]
    #[error("{}: {source}", path.display())]
    Rule {
        /// The path the rule names.
        path: PathBuf,
        /// Why.
        source: landlock::RulesetError,
    },
    /// The write guards could not be put in place.
    #[cfg(target_os = "linux")]
    #[error("{0}")]
    Guard(#[from] super::guard::GuardError),
    /// The kernel has no Landlock (or it is disabled).
    #[cfg(target_os = "linux")]
    #[error("this kernel does not enforce Landlock")]
    NotEnforced,
    /// The network filter could not be built or installed.
    #[cfg(target_os = "linux")]
    #[error("the network filter: {0}")]
    Seccomp(#[from] seccompiler::Error),
    /// The network filter could not be built for this machine.
    #[cfg(target_os = "linux")]
    #[error("the network filter: {0}")]
    SeccompBackend(#[from] seccompiler::BackendError),
    /// A constant did not fit the filter's argument.
    #[cfg(target_os = "linux")]
    #[error("the network filter: {0}")]
    Constant(#[from] std::num::TryFromIntError),
}

#[cfg(not(target_os = "linux"))]
fn restrict(_policy: &SandboxPolicy) -> Result<(), RestrictError> {
    Err(RestrictError::Unsupported)
}

#[cfg(target_os = "linux")]
fn restrict(policy: &SandboxPolicy) -> Result<(), RestrictError> {
    use landlock::{
        ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, RulesetAttr, RulesetCreatedAttr,
        RulesetStatus,
    };
    // First the read-only mounts (Landlock then forbids any mount change).
    super::guard::enter(&policy.write_protected)?;
    let abi = ABI::V6;
    let all = AccessFs::from_all(abi);
    let read = AccessFs::from_read(abi);
    let mut rules: Vec<(PathBuf, BitFlags<AccessFs>)> = Vec::new();
    let denied: Vec<PathBuf> = policy.denied.iter().map(|p| resolved(p)).collect();
    grant(Path::new("/"), read, &denied, &mut rules);
    for path in &policy.writable {
        grant(&resolved(path), all, &denied, &mut rules);
    }
    // Devices every shell writes to.
    for device in [
        "/dev/null",
        "/dev/zero",
        "/dev/full",
        "/dev/tty",
        "/dev/ptmx",
        "/dev/pts",
        "/dev/shm",
    ] {
        grant(Path::new(device), all, &denied, &mut rules);
    }

    // Network: all of it, none of it, or the proxy only (a network namespace of its own whose one
    // way out is the bridge, see `bridge`). Without namespaces, none of it.
    let isolated = match (&policy.proxy, policy.network) {
        (Some(proxy), false) => match super::bridge::isolate(&proxy.socket, proxy.port) {
            Ok(()) => true,
            Err(e) => {
                eprintln!("{FAILURE_MARKER}no network for this command: {e}");
                false
            }
        },
        _ => false,
    };
    let mut ruleset = landlock::Ruleset::default()
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(all)?;
    if !policy.network && !isolated {
        // No rule for any port: every TCP bind and connect is refused (Linux 6.7+).
        ruleset = ruleset.handle_access(AccessNet::from_all(abi))?;
    }
    let mut created = ruleset.create()?;
    for (path, access) in rules {
        let Ok(fd) = landlock::PathFd::new(&path) else {
            continue; // gone since it was listed
        };
        let access = if path.is_dir() {
            access
        } else {
            access & AccessFs::from_file(abi)
        };
        created = created
            .add_rule(landlock::PathBeneath::new(fd, access))
            .map_err(|source| RestrictError::Rule {
                path: path.clone(),
                source,
            })?;
    }
    let status = created.restrict_self()?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(RestrictError::NotEnforced);
    }
    // Without network, IPv4 and IPv6 sockets are refused, unless the command has a network
    // namespace of its own whose only way out is the proxy's bridge; io_uring is refused in both
    // cases (it can open sockets without the `socket` call).
    seccomp_filter(!policy.network && !isolated, !policy.network)?;
    Ok(())
}

/// `path` with symlinks resolved when it exists (rules attach to what a path leads to).
fn resolved(path: &Path) -> PathBuf {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Adds rules giving `access` to everything under `root` except the `denied` paths.
#[cfg(target_os = "linux")]
fn grant(
    root: &Path,
    access: landlock::BitFlags<landlock::AccessFs>,
    denied: &[PathBuf],
    rules: &mut Vec<(PathBuf, landlock::BitFlags<landlock::AccessFs>)>,
) {
    use landlock::AccessFs;
    if denied.iter().any(|d| root.starts_with(d)) {
        return;
    }
    if !denied.iter().any(|d| d.starts_with(root)) {
        rules.push((root.to_path_buf(), access));
        return;
    }
    // A denied path lies below: the folder itself gets only the rights that open no file (rights
    // on a folder hold for everything beneath it, the denied path too), and each entry is granted
    // on its own. Symlinks are skipped: what they lead to is granted (or not) where it lives.
    let folder_only = AccessFs::ReadDir
        | AccessFs::MakeReg
        | AccessFs::MakeDir
        | AccessFs::MakeSym
        | AccessFs::MakeFifo
        | AccessFs::MakeSock;
    rules.push((root.to_path_buf(), access & folder_only));
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        grant(&entry.path(), access, denied, rules);
    }
}

/// A seccomp filter refusing the calls that could undo the read-only mounts (joining another
/// namespace, the new mount API's detached copies of a mount; Landlock already refuses `mount`,
/// `umount` and `pivot_root`, refused here too); with `refuse_inet`, IPv4 and IPv6 sockets (UDP,
/// raw, and TCP on kernels whose Landlock cannot refuse it); with `refuse_io_uring`, io_uring
/// (which can open sockets without the `socket` call).
#[cfg(target_os = "linux")]
fn seccomp_filter(refuse_inet: bool, refuse_io_uring: bool) -> Result<(), RestrictError> {
    use seccompiler::{
        BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter,
        SeccompRule, TargetArch,
    };
    use std::collections::BTreeMap;
    let arch = TargetArch::try_from(std::env::consts::ARCH)?;
    let domain = |family: i32| -> Result<SeccompRule, RestrictError> {
        let condition = SeccompCondition::new(
            0,
            SeccompCmpArgLen::Dword,
            SeccompCmpOp::Eq,
            u64::try_from(family)?,
        )?;
        Ok(SeccompRule::new(vec![condition])?)
    };
    let mut rules: BTreeMap<i64, Vec<SeccompRule>> = BTreeMap::new();
    for call in [
        libc::SYS_setns,
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_mount_setattr,
    ] {
        rules.insert(call, vec![]);
    }
    if refuse_inet {
        rules.insert(
            libc::SYS_socket,
            vec![domain(libc::AF_INET)?, domain(libc::AF_INET6)?],
        );
    }
    if refuse_io_uring {
        rules.insert(libc::SYS_io_uring_setup, vec![]);
    }
    let filter = SeccompFilter::new(
        rules,
        SeccompAction::Allow,
        SeccompAction::Errno(u32::try_from(libc::EACCES)?),
        arch,
    )?;
    let program = BpfProgram::try_from(filter)?;
    Ok(seccompiler::apply_filter(&program)?)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn the_engine_is_the_parent_or_a_watched_pid() {
        let parse = |s: &str| Engine::parse(&OsString::from(s));
        assert!(matches!(parse("123"), Some(Engine::Parent(p)) if p.as_raw() == 123));
        assert!(matches!(parse("@123"), Some(Engine::Watched(p)) if p.as_raw() == 123));
        for bad in ["", "@", "@0", "-5", "@x", "12a"] {
            assert!(parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_watched_engine_is_gone_when_its_process_is() {
        let me = nix::unistd::Pid::from_raw(std::process::id().cast_signed());
        assert!(!Engine::Watched(me).is_gone());
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = nix::unistd::Pid::from_raw(child.id().cast_signed());
        child.wait().unwrap();
        assert!(Engine::Watched(pid).is_gone());
        let line = command_line_started_elsewhere(None).unwrap();
        assert_eq!(line[0], HELPER_ARG);
        assert_eq!(line[1], OsString::from(format!("@{}", std::process::id())));
        assert_eq!(line[2..], [OsString::from("-"), OsString::from("--")]);
    }
}
