//! The helper's side of network-by-proxy: a network namespace of the command's own, whose only way
//! out is a loopback port bridged to the engine's proxy.
//!
//! Landlock can refuse TCP by port but not by address, so allowing the proxy's port would let a
//! command reach any host on that port number. Instead the helper (still single-threaded) moves
//! into a new user and network namespace: no interface but a loopback of its own, so no direct
//! socket reaches anything outside, whatever its family or protocol. It brings that loopback up,
//! listens on `127.0.0.1:PORT` there, and a thread that is not sandboxed copies each connection to
//! the proxy's Unix socket, which the engine listens on outside (a path-named Unix socket is
//! reached through the file system, not the network namespace). As Claude Code's sandbox runtime
//! does with a network namespace and socat, without another program.
//!
//! The user namespace maps the user to themselves (same uid and gid inside), so files keep their
//! owners; files of other users show as `nobody`.

use std::io::Write as _;
use std::net::{Ipv4Addr, SocketAddrV4, TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::net::UnixStream;
use std::path::Path;

/// Why the namespace or the bridge could not be set up (the command then gets no network).
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    /// `unshare` refused (user namespaces disabled for unprivileged users, or the process has
    /// threads).
    #[error("cannot create a network namespace for the command: {0}")]
    Unshare(nix::Error),
    /// A namespace file or the listener failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: &'static str,
        /// Why it failed.
        source: std::io::Error,
    },
    /// The netlink request to bring the loopback up failed.
    #[error("cannot bring up the loopback interface: {0}")]
    Netlink(nix::Error),
    /// The kernel answered the netlink request with an error.
    #[error("cannot bring up the loopback interface: the kernel answered error {0}")]
    LoopbackRefused(i32),
}

fn io(what: &'static str) -> impl FnOnce(std::io::Error) -> BridgeError {
    move |source| BridgeError::Io { what, source }
}

/// Moves this process into a new user and network namespace and bridges `127.0.0.1:port` there to
/// the Unix socket `proxy`. Must run while the process has a single thread.
pub fn isolate(proxy: &Path, port: u16) -> Result<(), BridgeError> {
    use nix::sched::{CloneFlags, unshare};
    let me = std::fs::metadata("/proc/self").map_err(io("cannot read this process's user"))?;
    let (uid, gid) = (me.uid(), me.gid());
    unshare(CloneFlags::CLONE_NEWUSER | CloneFlags::CLONE_NEWNET).map_err(BridgeError::Unshare)?;
    std::fs::write("/proc/self/setgroups", "deny").map_err(io("cannot write /proc/self/setgroups"))?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))
        .map_err(io("cannot write /proc/self/uid_map"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
        .map_err(io("cannot write /proc/self/gid_map"))?;
    loopback_up()?;
    let listener = TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, port))
        .map_err(io("cannot listen for the command's proxy connections"))?;
    let proxy = proxy.to_path_buf();
    std::thread::spawn(move || accept(&listener, &proxy));
    Ok(())
}

fn accept(listener: &TcpListener, proxy: &Path) {
    for client in listener.incoming() {
        let Ok(client) = client else { continue };
        let proxy = proxy.to_path_buf();
        std::thread::spawn(move || {
            if let Ok(upstream) = UnixStream::connect(&proxy) {
                relay(client, upstream);
            }
        });
    }
}

/// Copies both ways until each side has finished sending, passing half-closes on.
fn relay(client: TcpStream, upstream: UnixStream) {
    let (Ok(mut client_reader), Ok(mut upstream_writer)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let to_proxy = std::thread::spawn(move || {
        let _ = std::io::copy(&mut client_reader, &mut upstream_writer);
        let _ = upstream_writer.shutdown(std::net::Shutdown::Write);
    });
    let (mut upstream_reader, mut client_writer) = (upstream, client);
    let _ = std::io::copy(&mut upstream_reader, &mut client_writer);
    let _ = client_writer.flush();
    let _ = client_writer.shutdown(std::net::Shutdown::Write);
    let _ = to_proxy.join();
}

/// Brings up interface 1 (the loopback, the first interface of every network namespace) with one
/// `RTM_NEWLINK` netlink request, built by hand: `ip link set lo up` without the program.
fn loopback_up() -> Result<(), BridgeError> {
    use nix::sys::socket::{
        AddressFamily, MsgFlags, NetlinkAddr, SockFlag, SockProtocol, SockType, bind, recv, send, socket,
    };
    const RTM_NEWLINK: u16 = 16;
    const NLM_F_REQUEST: u16 = 1;
    const NLM_F_ACK: u16 = 4;
    const NLMSG_ERROR: u16 = 2;
    const IFF_UP: u32 = 1;
    const LOOPBACK_INDEX: i32 = 1;
    let fd = socket(
        AddressFamily::Netlink,
        SockType::Raw,
        SockFlag::SOCK_CLOEXEC,
        SockProtocol::NetlinkRoute,
    )
    .map_err(BridgeError::Netlink)?;
    bind(std::os::fd::AsRawFd::as_raw_fd(&fd), &NetlinkAddr::new(0, 0)).map_err(BridgeError::Netlink)?;
    // struct nlmsghdr { u32 len; u16 type; u16 flags; u32 seq; u32 pid; }
    // struct ifinfomsg { u8 family; u8 pad; u16 type; i32 index; u32 flags; u32 change; }
    let mut message = Vec::with_capacity(32);
    message.extend_from_slice(&32u32.to_ne_bytes());
    message.extend_from_slice(&RTM_NEWLINK.to_ne_bytes());
    message.extend_from_slice(&(NLM_F_REQUEST | NLM_F_ACK).to_ne_bytes());
    message.extend_from_slice(&1u32.to_ne_bytes());
    message.extend_from_slice(&0u32.to_ne_bytes());
    message.extend_from_slice(&[0, 0]);
    message.extend_from_slice(&0u16.to_ne_bytes());
    message.extend_from_slice(&LOOPBACK_INDEX.to_ne_bytes());
    message.extend_from_slice(&IFF_UP.to_ne_bytes());
    message.extend_from_slice(&IFF_UP.to_ne_bytes());
    let raw = std::os::fd::AsRawFd::as_raw_fd(&fd);
    send(raw, &message, MsgFlags::empty()).map_err(BridgeError::Netlink)?;
    let mut answer = [0u8; 256];
    let n = recv(raw, &mut answer, MsgFlags::empty()).map_err(BridgeError::Netlink)?;
    // The acknowledgement: a header of type NLMSG_ERROR followed by the error number (0: done).
    let field = |range: std::ops::Range<usize>| answer.get(range).filter(|_| n >= 20);
    let kind = field(4..6)
        .and_then(|b| <[u8; 2]>::try_from(b).ok())
        .map(u16::from_ne_bytes);
    let error = field(16..20)
        .and_then(|b| <[u8; 4]>::try_from(b).ok())
        .map(i32::from_ne_bytes);
    match (kind, error) {
        (Some(NLMSG_ERROR), Some(0)) => Ok(()),
        (_, Some(e)) => Err(BridgeError::LoopbackRefused(e)),
        _ => Err(BridgeError::LoopbackRefused(0)),
    }
}
