//! The Bash sandbox (Linux): what a sandboxed command may touch, whether this kernel can enforce
//! it, and the helper that enforces it.
//!
//! Permissions decide whether a command may run; the sandbox contains what an allowed command
//! does. A sandboxed command writes only inside the working folders, the session's temp folder
//! and the paths the user allowed; reads everything except a default deny list (SSH, cloud and
//! GPG keys, keyrings, browser profiles, Nerve's and Claude Code's credentials) and the paths Read
//! deny rules name; writes the package tools' caches ([`caches`]); and reaches the network only
//! through a proxy the engine runs for it ([`proxy`]), host by host, from a network namespace of
//! its own ([`bridge`]); without namespaces, not at all (TCP refused by Landlock, every other
//! IPv4/IPv6 socket by a seccomp filter; Unix sockets stay open). `network.allowAll` gives it the
//! whole network directly.
//!
//! Enforcement needs no privileges and no setuid helper: the binary that hosts the engine (the
//! `nerve` CLI, the desktop app) re-executes itself as `<exe> __nerve-sandbox-exec ENGINE_PID POLICY -- bash
//! ...` ([`helper`]); the helper restricts itself with Landlock and seccomp, then `exec`s the
//! command, which inherits the restrictions, as do all of its children. The process group, the
//! pipes and the working directory set by the parent are kept, so background tasks, `cd`
//! tracking and output spooling work unchanged.

#[cfg(target_os = "linux")]
pub mod bridge;
pub mod caches;
pub mod domains;
pub mod grants;
mod guard;
pub mod helper;
mod policy;
pub mod proxy;
pub mod settings;

pub use policy::{IfMissing, ProxyBridge, SandboxPolicy, WriteGuard, default_denied_reads, write_guards};

pub use nerve_protocol::sandbox::SandboxState;
use std::sync::{Arc, OnceLock};

/// Whether this kernel can sandbox commands, and how much of the policy it enforces.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Availability {
    /// Landlock works: files are enforced; `network` says whether "no network" is enforced too.
    Available {
        /// The Landlock ABI version in use.
        abi: u8,
        /// Whether TCP can be refused (Landlock ABI 4, Linux 6.7+); other sockets are refused by
        /// seccomp either way.
        network: bool,
    },
    /// Commands cannot be sandboxed here, and why.
    Unavailable {
        /// Why (shown to the user when a command asks to run unsandboxed).
        reason: String,
    },
}

impl Availability {
    /// Whether commands can be sandboxed.
    pub fn is_available(&self) -> bool {
        matches!(self, Self::Available { .. })
    }
}

/// What this kernel supports (probed once per process, without restricting anything).
pub fn availability() -> &'static Availability {
    static PROBED: OnceLock<Availability> = OnceLock::new();
    PROBED.get_or_init(probe)
}

#[cfg(target_os = "linux")]
fn probe() -> Availability {
    use landlock::{ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, Ruleset, RulesetAttr};
    // Creating a ruleset (never applied) tells whether the kernel has Landlock, and which ABI.
    let works = |abi: ABI| {
        let fs = Ruleset::default()
            .set_compatibility(CompatLevel::HardRequirement)
            .handle_access(AccessFs::from_all(abi));
        let net = |r: Ruleset| {
            if abi >= ABI::V4 {
                r.handle_access(AccessNet::from_all(abi))
            } else {
                Ok(r)
            }
        };
        fs.and_then(net).and_then(|r| r.create()).is_ok()
    };
    for (abi, n) in [
        (ABI::V6, 6),
        (ABI::V5, 5),
        (ABI::V4, 4),
        (ABI::V3, 3),
        (ABI::V2, 2),
        (ABI::V1, 1),
    ] {
        if works(abi) {
            return Availability::Available {
                abi: n,
                network: n >= 4,
            };
        }
    }
    Availability::Unavailable {
        reason: "this kernel does not enable Landlock (Linux 5.13 or later with `landlock` in the boot's lsm= list is needed)".into(),
    }
}

#[cfg(not(target_os = "linux"))]
fn probe() -> Availability {
    Availability::Unavailable {
        reason: "the sandbox is only implemented for Linux so far".into(),
    }
}

/// Names the environment variable that points the engine at another helper binary (the engine's
/// own integration tests, whose executable is a test harness, point it at the `nerve` binary).
pub const HELPER_ENV: &str = "NERVE_SANDBOX_HELPER";

/// What a session needs to sandbox its Bash commands.
#[derive(Debug, Clone)]
pub struct SessionSandbox {
    /// The settings in effect.
    pub config: settings::SandboxConfig,
    /// The folders the session works in (the project and additional directories).
    pub working_dirs: Vec<std::path::PathBuf>,
    /// The session's own temp folder (commands get it as `TMPDIR`).
    pub temp_dir: std::path::PathBuf,
    /// Paths Read deny rules name (unreadable inside the sandbox too).
    pub read_denied: Vec<std::path::PathBuf>,
    /// The home folder (for the default deny list).
    pub home: std::path::PathBuf,
    /// The helper binary, when not this program itself (see [`helper_binary`]).
    pub helper: Option<std::path::PathBuf>,
    /// Decides which hosts sandboxed commands reach through the proxy (`None`: the domain lists
    /// alone, nobody is asked).
    pub network_gate: Option<GateRef>,
    /// Names the proxy resolves without DNS (tests; empty otherwise).
    pub host_overrides: proxy::HostOverrides,
    /// What the user allowed since the settings were read (shared with the project).
    pub grants: grants::SandboxGrants,
    /// When the session works in a git worktree: the parts of the repository's git folder, outside
    /// the worktree, that git writes for it (see [`WorktreeGit`]).
    pub worktree_git: Option<WorktreeGit>,
}

/// The git folders of a worktree, which lie outside it (in the main checkout's `.git`): its own
/// folder (`.git/worktrees/<name>`: its index, HEAD and logs) and the shared objects, refs and
/// logs. A commit in the worktree writes all of them, so a sandboxed `git commit` needs them
/// writable; the entries that make git run a program or read another repository's configuration
/// (`commondir`, `config`, `config.worktree`, hooks) stay guarded, as in a project's own `.git`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorktreeGit {
    /// `git rev-parse --git-dir` in the worktree.
    pub own: std::path::PathBuf,
    /// `git rev-parse --git-common-dir` in the worktree.
    pub common: std::path::PathBuf,
}

impl WorktreeGit {
    /// The folders a commit in the worktree writes (those that exist).
    pub fn writable(&self) -> Vec<std::path::PathBuf> {
        std::iter::once(self.own.clone())
            .chain(["objects", "refs", "logs"].map(|d| self.common.join(d)))
            .filter(|p| p.is_dir())
            .collect()
    }

    /// The entries of its own folder that stay read-only.
    pub fn guards(&self) -> Vec<WriteGuard> {
        crate::protected_paths::SANDBOX_GUARDS_IN_GIT_DIR
            .iter()
            .map(|g| WriteGuard {
                path: self.own.join(g.relative),
                if_missing: g.if_missing,
                git_dir: false,
            })
            .collect()
    }
}

/// A shared [`proxy::NetworkGate`] (a newtype so the sandbox setup stays `Debug`).
#[derive(Clone)]
pub struct GateRef(pub Arc<dyn proxy::NetworkGate>);

impl std::fmt::Debug for GateRef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GateRef(..)")
    }
}

/// The gate when nobody can be asked: the domain lists decide, and an unlisted host is refused.
struct ListsOnlyGate(domains::DomainList);

#[async_trait::async_trait]
impl proxy::NetworkGate for ListsOnlyGate {
    async fn decide(&self, access: &proxy::NetworkAccess) -> proxy::NetworkDecision {
        network_verdict(&self.0, &access.host, access.port).unwrap_or_else(|| {
            proxy::NetworkDecision::Refused {
                reason: unlisted_reason(&access.host, access.port, "nobody can be asked here"),
                allowable: true,
            }
        })
    }
}

/// What the sandbox's own domain lists decide about `host:port` (`None`: they do not name it).
pub fn network_verdict(list: &domains::DomainList, host: &str, port: u16) -> Option<proxy::NetworkDecision> {
    match list.verdict(host, port) {
        domains::DomainVerdict::Denied(pattern) => Some(proxy::NetworkDecision::Refused {
            reason: format!(
                "the sandbox refused {host}:{port}: `{pattern}` in sandbox.network.deniedDomains names it"
            ),
            allowable: false,
        }),
        domains::DomainVerdict::Allowed(pattern) => Some(proxy::NetworkDecision::Allowed {
            by: format!("sandbox.network.allowedDomains: {pattern}"),
        }),
        domains::DomainVerdict::Unlisted => None,
    }
}

/// Why an unlisted host was refused, with the setting that would allow it.
pub fn unlisted_reason(host: &str, port: u16, why: &str) -> String {
    format!(
        "the sandbox refused {host}:{port}: {why}; to allow it, add \"{host}\" to sandbox.network.allowedDomains in your own settings (or a WebFetch(domain:{host}) allow rule)"
    )
}

impl SessionSandbox {
    /// Whether a command runs sandboxed; `disable_requested` is the model's
    /// `dangerouslyDisableSandbox`.
    pub fn state(&self, disable_requested: bool) -> SandboxState {
        if !self.config.enabled {
            return SandboxState::Unsandboxed {
                reason: "the sandbox is turned off in the settings (sandbox.enabled)".into(),
                needs_approval: false,
            };
        }
        if disable_requested {
            return SandboxState::Unsandboxed {
                reason: "the model asked to run this command outside the sandbox (dangerouslyDisableSandbox)"
                    .into(),
                needs_approval: true,
            };
        }
        if let Availability::Unavailable { reason } = availability() {
            return SandboxState::Unsandboxed {
                reason: format!("commands cannot be sandboxed here: {reason}"),
                needs_approval: true,
            };
        }
        if let Err(error) = helper_binary(self.helper.as_deref()) {
            return SandboxState::Unsandboxed {
                reason: error.to_string(),
                needs_approval: true,
            };
        }
        SandboxState::Sandboxed {
            network: self.config.network,
        }
    }

    /// The policy for one command; `extra_writable` are files the engine itself has the command
    /// write (the working-directory tracking file); `proxy` is the socket of the proxy started for
    /// it (see [`SessionSandbox::start_proxy`]). Creates the toolchain caches of the tools in use
    /// (see [`caches`]).
    pub fn policy(
        &self,
        extra_writable: &[std::path::PathBuf],
        proxy: Option<&std::path::Path>,
    ) -> SandboxPolicy {
        let mut writable = self.working_dirs.clone();
        writable.push(self.temp_dir.clone());
        if self.config.toolchain_caches {
            writable.extend(caches::toolchain_caches(&self.home));
        }
        writable.extend(self.config.writable.iter().cloned());
        let granted = self.grants.writable();
        writable.extend(granted.iter().cloned());
        writable.extend(extra_writable.iter().cloned());
        if let Some(git) = &self.worktree_git {
            writable.extend(git.writable());
        }
        let mut denied = default_denied_reads(&self.home);
        denied.extend(self.config.denied.iter().cloned());
        denied.extend(self.read_denied.iter().cloned());
        // Guarded in the folders the user works in or made writable; not in the session's temp
        // folder, which nothing outside the sandbox reads configuration from (and where tools
        // create scratch repositories).
        let mut guarded: Vec<std::path::PathBuf> = self.working_dirs.clone();
        guarded.extend(self.config.writable.iter().cloned());
        guarded.extend(granted);
        let mut write_protected = policy::write_guards(&guarded, &self.home);
        if let Some(git) = &self.worktree_git {
            write_protected.extend(git.guards());
        }
        SandboxPolicy {
            writable,
            denied,
            network: self.config.network,
            write_protected,
            proxy: proxy.filter(|_| !self.config.network).map(|socket| ProxyBridge {
                socket: socket.to_path_buf(),
                port: ProxyBridge::PORT,
            }),
        }
    }

    /// Starts the network proxy for one sandboxed `command` (unless the settings give it all of
    /// the network). Its socket lives in the user's runtime folder (else the system temp folder),
    /// in a folder of this engine's own that the sandbox cannot write.
    pub fn start_proxy(&self, command: &str) -> std::io::Result<Option<proxy::NetworkProxy>> {
        if self.config.network {
            return Ok(None);
        }
        let gate = match &self.network_gate {
            Some(gate) => Arc::clone(&gate.0),
            None => Arc::new(ListsOnlyGate(self.domain_list())),
        };
        let dir = dirs::runtime_dir()
            .unwrap_or_else(std::env::temp_dir)
            .join(format!("nerve-proxy-{}", std::process::id()));
        proxy::NetworkProxy::start(&dir, gate, command, Arc::clone(&self.host_overrides)).map(Some)
    }

    /// The domain lists in effect.
    pub fn domain_list(&self) -> domains::DomainList {
        domains::DomainList::new(&self.config.allowed_domains, &self.config.denied_domains)
    }
}

/// Why commands cannot be sandboxed by a helper binary.
#[derive(Debug, Clone, thiserror::Error)]
pub enum HelperError {
    /// This process's own executable (the default helper) cannot be found.
    #[error("cannot find this program's own executable to sandbox commands with: {0}")]
    OwnExecutable(Arc<std::io::Error>),
    /// The probe's policy could not be written for the helper's command line.
    #[error("cannot pass the sandbox policy to the helper: {0}")]
    Policy(Arc<serde_json::Error>),
    /// The helper could not be started.
    #[error("cannot run the sandbox helper {}: {source}", path.display())]
    CannotRun {
        /// The helper binary.
        path: std::path::PathBuf,
        /// Why.
        source: Arc<std::io::Error>,
    },
    /// The helper ran but did not run the probe sandboxed (it is no helper, or the kernel refused).
    #[error("the sandbox helper {} does not work: {stderr}", path.display())]
    DoesNotWork {
        /// The helper binary.
        path: std::path::PathBuf,
        /// What it wrote to stderr.
        stderr: String,
    },
}

/// The helper a host prefers to its own executable (see [`prefer_sibling_helper`]).
static PREFERRED_HELPER: OnceLock<std::path::PathBuf> = OnceLock::new();

/// Makes `name`, an engine binary in the same folder as this process's executable, the helper
/// when no other is named, if it is there and works. For hosts whose own executable makes a poor
/// helper: the desktop binary links WebKit, whose allocator starts a thread from a library
/// constructor before `main`, and the kernel refuses the user and network namespaces the sandbox
/// uses to a process with more than one thread; loading WebKit also costs each stage ten times
/// the `nerve` binary's start. The packages install `nerve` beside `nerve-desktop`, and cargo
/// builds them into one folder.
pub fn prefer_sibling_helper(name: &str) {
    let sibling = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.join(name)))
        .filter(|path| path.is_file());
    if let Some(path) = sibling {
        let _ = PREFERRED_HELPER.set(path);
    }
}

/// The binary that acts as the helper: `explicit` when given (`NERVE_SANDBOX_HELPER`, through the
/// project's options), else the host's preferred helper when it works ([`prefer_sibling_helper`]), else this process's
/// executable; once it has shown that it works: it runs a probe command sandboxed and must print
/// what the probe prints (an executable that is no helper, a test harness say, does not). Each
/// binary is checked once per process.
pub fn helper_binary(explicit: Option<&std::path::Path>) -> Result<std::path::PathBuf, HelperError> {
    let path: std::path::PathBuf = match explicit {
        Some(path) => path.to_path_buf(),
        None => {
            if let Some(preferred) = PREFERRED_HELPER.get()
                && checked_helper(preferred).is_ok()
            {
                return Ok(preferred.clone());
            }
            std::env::current_exe().map_err(|e| HelperError::OwnExecutable(Arc::new(e)))?
        }
    };
    checked_helper(&path).map(|()| path)
}

/// Whether `path` works as the helper, probed once per binary and process.
fn checked_helper(path: &std::path::Path) -> Result<(), HelperError> {
    use std::collections::HashMap;
    use std::sync::Mutex;
    static CHECKED: OnceLock<Mutex<HashMap<std::path::PathBuf, Result<(), HelperError>>>> = OnceLock::new();
    let checked = CHECKED.get_or_init(Mutex::default);
    let known = checked
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .get(path)
        .cloned();
    match known {
        Some(result) => result,
        None => {
            let result = probe_helper(path);
            checked
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(path.to_path_buf(), result.clone());
            result
        }
    }
}

fn probe_helper(path: &std::path::Path) -> Result<(), HelperError> {
    const PROBE: &str = "nerve-sandbox-probe-ok";
    let args = helper::command_line(Some(&SandboxPolicy::default()))
        .map_err(|e| HelperError::Policy(Arc::new(e)))?;
    let mut probe = std::process::Command::new(path);
    probe
        .args(args)
        .args(["/bin/sh", "-c", &format!("echo {PROBE}")])
        .stdin(std::process::Stdio::null());
    // Its own group, as every command's: were the engine killed during the probe, the helper kills
    // the group it leads, and only that.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut probe, 0);
    let out = probe.output().map_err(|e| HelperError::CannotRun {
        path: path.to_path_buf(),
        source: Arc::new(e),
    })?;
    if out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == PROBE {
        Ok(())
    } else {
        Err(HelperError::DoesNotWork {
            path: path.to_path_buf(),
            stderr: String::from_utf8_lossy(&out.stderr).trim().to_string(),
        })
    }
}
