//! The network proxy a sandboxed command reaches the network through, host by host.
//!
//! The engine starts one proxy per sandboxed command, outside the sandbox, listening on a Unix
//! socket; the sandbox helper bridges a loopback TCP port inside the command's own network
//! namespace to it (see [`super::bridge`]), and the command gets `HTTP_PROXY`, `HTTPS_PROXY`,
//! `ALL_PROXY` (and the lower-case names) pointing at that port. One port speaks both protocols,
//! told apart by the first byte: HTTP (`CONNECT host:port` for TLS and anything else, and plain
//! `GET http://host/...` requests forwarded with `Connection: close`) and SOCKS5 (no
//! authentication, the CONNECT command, IPv4, IPv6 and domain-name addresses).
//!
//! Every host is put to the [`NetworkGate`] before anything is sent to it; the answer holds for the
//! rest of the command (a `pip install` opens many connections to one host and is asked once).
//! Names are resolved here, outside the sandbox, so the command needs no DNS.

use std::collections::HashMap;
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::sync::OnceCell;

/// One host a command wants to reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkAccess {
    /// The host as the command named it (a name or an IP address), lowercase.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The command (as the model wrote it).
    pub command: String,
}

/// Whether a host may be reached, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NetworkDecision {
    /// It may; `by` says what allowed it ("sandbox.network.allowedDomains: pypi.org", "the user").
    Allowed {
        /// What allowed it.
        by: String,
    },
    /// It may not; `reason` is one sentence for the model and the user.
    Refused {
        /// Why, and which setting would allow it.
        reason: String,
        /// Whether allowing the host in the settings would let it through (no deny list or deny
        /// rule names it: nobody could be asked, or the user said no).
        allowable: bool,
    },
}

impl NetworkDecision {
    /// Whether the host may be reached.
    pub fn is_allowed(&self) -> bool {
        matches!(self, Self::Allowed { .. })
    }
}

/// Decides whether a sandboxed command may reach a host: the rules, then the user. Defined here
/// and implemented where the permission rules and the prompter are known (the pipeline).
#[async_trait]
pub trait NetworkGate: Send + Sync {
    /// Decides (asking the user when no rule does; the command waits meanwhile).
    async fn decide(&self, access: &NetworkAccess) -> NetworkDecision;
}

/// Names the proxy resolves to fixed addresses instead of asking DNS (tests serve `allowed.test`
/// from loopback with it). Empty in normal use.
pub type HostOverrides = Arc<HashMap<String, IpAddr>>;

/// What the proxy decided for one host during the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkLogEntry {
    /// The host.
    pub host: String,
    /// The port.
    pub port: u16,
    /// The decision.
    pub decision: NetworkDecision,
}

type Decisions = Mutex<HashMap<(String, u16), Arc<OnceCell<NetworkDecision>>>>;

struct Shared {
    gate: Arc<dyn NetworkGate>,
    command: String,
    overrides: HostOverrides,
    decisions: Decisions,
    log: Mutex<Vec<NetworkLogEntry>>,
}

/// A running proxy; stops (and removes its socket) when dropped.
pub struct NetworkProxy {
    socket: PathBuf,
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for NetworkProxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NetworkProxy")
            .field("socket", &self.socket)
            .finish()
    }
}

impl NetworkProxy {
    /// Starts a proxy for `command` listening on a new Unix socket in `dir` (a folder the sandbox
    /// cannot write, so the command cannot put its own listener there).
    pub fn start(
        dir: &Path,
        gate: Arc<dyn NetworkGate>,
        command: &str,
        overrides: HostOverrides,
    ) -> std::io::Result<Self> {
        {
            use std::os::unix::fs::{DirBuilderExt as _, MetadataExt as _, PermissionsExt as _};
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
            // A folder someone else made there first (a shared /tmp) is not used.
            let meta = std::fs::symlink_metadata(dir)?;
            let mine = std::fs::metadata("/proc/self").map(|m| m.uid()).ok() == Some(meta.uid());
            if !meta.is_dir() || !mine || meta.permissions().mode() & 0o077 != 0 {
                return Err(std::io::Error::other(format!(
                    "{} is not a private folder of this user",
                    dir.display()
                )));
            }
        }
        let socket = dir.join(format!("nerve-net-{}.sock", uuid::Uuid::new_v4().simple()));
        let listener = UnixListener::bind(&socket)?;
        let shared = Arc::new(Shared {
            gate,
            command: command.to_string(),
            overrides,
            decisions: Mutex::default(),
            log: Mutex::default(),
        });
        let serving = Arc::clone(&shared);
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let shared = Arc::clone(&serving);
                tokio::spawn(async move {
                    if let Err(e) = serve(stream, &shared).await {
                        tracing::debug!(error = %e, "sandbox proxy connection ended");
                    }
                });
            }
        });
        Ok(Self { socket, shared, task })
    }

    /// The Unix socket the helper's bridge connects to.
    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// What was decided so far, in the order hosts were first asked for.
    pub fn log(&self) -> Vec<NetworkLogEntry> {
        self.shared
            .log
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }
}

impl Drop for NetworkProxy {
    fn drop(&mut self) {
        // Connections already handed over keep their own tasks until either side closes; the
        // command is over by now, so they close.
        self.task.abort();
        let _ = std::fs::remove_file(&self.socket);
    }
}

impl Shared {
    /// The decision for `host:port`, asking the gate once per command.
    async fn decide(&self, host: &str, port: u16) -> NetworkDecision {
        let host = host.trim_end_matches('.').to_ascii_lowercase();
        let cell = {
            let mut decisions = self
                .decisions
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(decisions.entry((host.clone(), port)).or_default())
        };
        cell.get_or_init(|| async {
            let access = NetworkAccess {
                host: host.clone(),
                port,
                command: self.command.clone(),
            };
            let decision = self.gate.decide(&access).await;
            tracing::info!(host = %access.host, port, allowed = decision.is_allowed(), "sandbox network request");
            self.log
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .push(NetworkLogEntry {
                    host: access.host,
                    port,
                    decision: decision.clone(),
                });
            decision
        })
        .await
        .clone()
    }

    /// Connects to an allowed host.
    async fn connect(&self, host: &str, port: u16) -> std::io::Result<TcpStream> {
        let key = host.trim_end_matches('.').to_ascii_lowercase();
        if let Some(ip) = self.overrides.get(&key) {
            return TcpStream::connect(SocketAddr::new(*ip, port)).await;
        }
        let literal = host.trim_start_matches('[').trim_end_matches(']');
        if let Ok(ip) = literal.parse::<IpAddr>() {
            return TcpStream::connect(SocketAddr::new(ip, port)).await;
        }
        TcpStream::connect((host, port)).await
    }
}

/// The most a request head may take (a larger one is refused).
const MAX_HEAD: usize = 64 * 1024;

async fn serve(mut stream: UnixStream, shared: &Shared) -> std::io::Result<()> {
    let mut first = [0u8; 1];
    stream.read_exact(&mut first).await?;
    if first[0] == 5 {
        socks5(stream, shared).await
    } else {
        http(stream, first[0], shared).await
    }
}

async fn http(mut stream: UnixStream, first: u8, shared: &Shared) -> std::io::Result<()> {
    let mut buffer = vec![first];
    let head_end = loop {
        if let Some(end) = find(&buffer, b"\r\n\r\n") {
            break end + 4;
        }
        if buffer.len() > MAX_HEAD {
            return respond(&mut stream, "431 Request Header Fields Too Large", "").await;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Ok(());
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let mut headers = [httparse::EMPTY_HEADER; 100];
    let mut request = httparse::Request::new(&mut headers);
    if !matches!(
        request.parse(&buffer[..head_end]),
        Ok(httparse::Status::Complete(_))
    ) {
        return respond(
            &mut stream,
            "400 Bad Request",
            "the sandbox proxy could not read this request",
        )
        .await;
    }
    let (Some(method), Some(target)) = (request.method, request.path) else {
        return respond(&mut stream, "400 Bad Request", "").await;
    };
    if method.eq_ignore_ascii_case("CONNECT") {
        let Some((host, port)) = split_host_port(target, None) else {
            return respond(&mut stream, "400 Bad Request", "CONNECT needs host:port").await;
        };
        let decision = shared.decide(&host, port).await;
        if let NetworkDecision::Refused { reason, .. } = decision {
            return respond(&mut stream, "403 Forbidden", &reason).await;
        }
        let mut upstream = match shared.connect(&host, port).await {
            Ok(s) => s,
            Err(e) => return respond(&mut stream, "502 Bad Gateway", &format!("{host}:{port}: {e}")).await,
        };
        stream
            .write_all(b"HTTP/1.1 200 Connection Established\r\n\r\n")
            .await?;
        // Bytes the client sent after the head (a TLS hello sent eagerly) go on first.
        upstream.write_all(&buffer[head_end..]).await?;
        tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
        return Ok(());
    }
    // A plain HTTP request in absolute form: `GET http://host[:port]/path HTTP/1.1`.
    let Some(rest) = target.strip_prefix("http://") else {
        return respond(
            &mut stream,
            "400 Bad Request",
            "the sandbox proxy forwards http:// URLs and CONNECT tunnels only",
        )
        .await;
    };
    let (authority, path) = match rest.find('/') {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, "/"),
    };
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let Some((host, port)) = split_host_port(authority, Some(80)) else {
        return respond(&mut stream, "400 Bad Request", "no host in the URL").await;
    };
    let decision = shared.decide(&host, port).await;
    if let NetworkDecision::Refused { reason, .. } = decision {
        return respond(&mut stream, "403 Forbidden", &reason).await;
    }
    let mut head = format!("{method} {path} HTTP/1.1\r\n");
    for header in request.headers.iter() {
        let name = header.name.to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "proxy-connection" | "proxy-authorization" | "connection" | "keep-alive"
        ) {
            continue;
        }
        head.push_str(header.name);
        head.push_str(": ");
        head.push_str(&String::from_utf8_lossy(header.value));
        head.push_str("\r\n");
    }
    // One request per connection: a kept-alive connection's next request could name another host.
    head.push_str("Connection: close\r\n\r\n");
    let mut upstream = match shared.connect(&host, port).await {
        Ok(s) => s,
        Err(e) => return respond(&mut stream, "502 Bad Gateway", &format!("{host}:{port}: {e}")).await,
    };
    upstream.write_all(head.as_bytes()).await?;
    upstream.write_all(&buffer[head_end..]).await?;
    tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
    Ok(())
}

async fn respond(stream: &mut UnixStream, status: &str, body: &str) -> std::io::Result<()> {
    let body = if body.is_empty() {
        String::new()
    } else {
        format!("{body}\n")
    };
    let reply = format!(
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\nX-Nerve-Sandbox: network\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(reply.as_bytes()).await?;
    stream.shutdown().await
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// `host:port` (or `[v6]:port`); `default_port` when the port is absent.
fn split_host_port(text: &str, default_port: Option<u16>) -> Option<(String, u16)> {
    let (host, port) = if let Some(rest) = text.strip_prefix('[') {
        let (inside, after) = rest.split_once(']')?;
        let port = match after.strip_prefix(':') {
            Some(p) => p.parse().ok()?,
            None if after.is_empty() => default_port?,
            None => return None,
        };
        (format!("[{inside}]"), port)
    } else {
        match text.rsplit_once(':') {
            Some((host, port)) => (host.to_string(), port.parse().ok()?),
            None => (text.to_string(), default_port?),
        }
    };
    let valid = !host.is_empty()
        && host
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_' | '[' | ']' | ':'));
    valid.then(|| (host.to_ascii_lowercase(), port))
}

/// SOCKS5 replies (RFC 1928).
mod reply {
    pub const SUCCEEDED: u8 = 0;
    pub const GENERAL_FAILURE: u8 = 1;
    pub const NOT_ALLOWED: u8 = 2;
    pub const HOST_UNREACHABLE: u8 = 4;
    pub const COMMAND_NOT_SUPPORTED: u8 = 7;
    pub const ADDRESS_NOT_SUPPORTED: u8 = 8;
}

async fn socks5(mut stream: UnixStream, shared: &Shared) -> std::io::Result<()> {
    // Greeting: VER (read already) NMETHODS METHODS...
    let count = stream.read_u8().await?;
    let mut methods = vec![0u8; usize::from(count)];
    stream.read_exact(&mut methods).await?;
    if !methods.contains(&0) {
        // Only "no authentication" is offered.
        stream.write_all(&[5, 0xff]).await?;
        return Ok(());
    }
    stream.write_all(&[5, 0]).await?;
    // Request: VER CMD RSV ATYP DST.ADDR DST.PORT
    let mut fixed = [0u8; 4];
    stream.read_exact(&mut fixed).await?;
    let [5, command, _, address_type] = fixed else {
        return Ok(());
    };
    let host = match address_type {
        1 => {
            let mut octets = [0u8; 4];
            stream.read_exact(&mut octets).await?;
            std::net::Ipv4Addr::from(octets).to_string()
        }
        3 => {
            let len = stream.read_u8().await?;
            let mut name = vec![0u8; usize::from(len)];
            stream.read_exact(&mut name).await?;
            match String::from_utf8(name) {
                Ok(n) if split_host_port(&format!("{n}:1"), None).is_some() => n,
                _ => return socks_reply(&mut stream, reply::ADDRESS_NOT_SUPPORTED).await,
            }
        }
        4 => {
            let mut octets = [0u8; 16];
            stream.read_exact(&mut octets).await?;
            format!("[{}]", std::net::Ipv6Addr::from(octets))
        }
        _ => return socks_reply(&mut stream, reply::ADDRESS_NOT_SUPPORTED).await,
    };
    let port = stream.read_u16().await?;
    if command != 1 {
        return socks_reply(&mut stream, reply::COMMAND_NOT_SUPPORTED).await;
    }
    if !shared.decide(&host, port).await.is_allowed() {
        return socks_reply(&mut stream, reply::NOT_ALLOWED).await;
    }
    let mut upstream = match shared.connect(&host, port).await {
        Ok(s) => s,
        Err(e) => {
            let code = if e.kind() == std::io::ErrorKind::ConnectionRefused {
                reply::HOST_UNREACHABLE
            } else {
                reply::GENERAL_FAILURE
            };
            return socks_reply(&mut stream, code).await;
        }
    };
    socks_reply(&mut stream, reply::SUCCEEDED).await?;
    tokio::io::copy_bidirectional(&mut stream, &mut upstream).await?;
    Ok(())
}

async fn socks_reply<S: AsyncRead + AsyncWrite + Unpin>(stream: &mut S, code: u8) -> std::io::Result<()> {
    // VER REP RSV ATYP=IPv4 0.0.0.0:0
    stream.write_all(&[5, code, 0, 1, 0, 0, 0, 0, 0, 0]).await
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn host_and_port_are_split_strictly() {
        /// A spelling, the default port, and the host and port it gives.
        type Case<'a> = (&'a str, Option<u16>, Option<(&'a str, u16)>);
        let cases: &[Case] = &[
            ("Example.com:443", None, Some(("example.com", 443))),
            ("example.com", Some(80), Some(("example.com", 80))),
            ("example.com", None, None),
            ("[::1]:8080", None, Some(("[::1]", 8080))),
            ("[::1]", Some(80), Some(("[::1]", 80))),
            ("example.com:http", None, None),
            ("exa mple.com:80", None, None),
            (":80", None, None),
            ("a/b:80", None, None),
            ("example.com:70000", None, None),
        ];
        for (text, default, want) in cases {
            let got = split_host_port(text, *default);
            assert_eq!(got, want.map(|(h, p)| (h.to_string(), p)), "{text}");
        }
        println!("checked {} host:port spellings", cases.len());
    }
}
