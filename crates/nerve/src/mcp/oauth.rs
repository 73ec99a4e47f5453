//! OAuth for remote MCP servers, through rmcp's implementation of the MCP authorization spec:
//! discovery from the server's metadata, dynamic client registration, the authorization-code flow
//! with PKCE through the system browser and a loopback redirect, and refresh when a token expires.
//!
//! Tokens live in the OS keyring (never in a settings file), one entry per server name and URL, so
//! renaming a server or pointing it elsewhere asks for a new sign-in.

use std::sync::Arc;
use std::time::Duration;

use rmcp::transport::auth::{AuthClient, AuthError, AuthorizationManager, AuthorizationRequest, OAuthState};
use rmcp::transport::{CredentialStore, StoredCredentials};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use crate::credentials::{KeyringStore, SecretStore};

/// The keyring service MCP tokens are stored under.
pub const KEYRING_SERVICE: &str = "nerve-mcp-oauth";

/// How long a sign-in waits for the browser to come back.
pub const LOGIN_TIMEOUT: Duration = Duration::from_secs(300);

/// The keyring entry of `server` at `url` under `service`.
pub fn token_entry(service: &str, server: &str, url: &str) -> Arc<dyn SecretStore> {
    Arc::new(KeyringStore::new(service, format!("{server} {url}")))
}

/// rmcp's credential store over one secret (the keyring entry), as JSON.
struct SecretCredentials {
    secret: Arc<dyn SecretStore>,
}

fn store_error(e: impl std::fmt::Display) -> AuthError {
    AuthError::CredentialStoreError(e.to_string())
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, crate::credentials::StoreError> + Send + 'static,
) -> Result<T, AuthError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(store_error)?
        .map_err(store_error)
}

#[async_trait::async_trait]
impl CredentialStore for SecretCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let secret = Arc::clone(&self.secret);
        match blocking(move || secret.read()).await? {
            None => Ok(None),
            // A damaged entry is as good as none: the user signs in again.
            Some(text) => Ok(serde_json::from_str(&text).ok()),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials).map_err(store_error)?;
        let secret = Arc::clone(&self.secret);
        blocking(move || secret.write(&text)).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let secret = Arc::clone(&self.secret);
        blocking(move || secret.remove().map(|_| ())).await
    }
}

/// Why a sign-in or an authorised connection failed.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The server's authorization metadata or registration failed.
    #[error("the OAuth flow with {url} failed: {source}")]
    Flow {
        /// The server.
        url: String,
        /// rmcp's error.
        source: AuthError,
    },
    /// The loopback redirect could not be served.
    #[error("the sign-in's loopback redirect failed: {0}")]
    Redirect(std::io::Error),
    /// The browser did not come back in time.
    #[error("no answer from the browser within {} s; run the sign-in again", .0.as_secs())]
    TimedOut(Duration),
    /// The authorization server refused (the user declined, or an error).
    #[error("the authorization server refused the sign-in: {0}")]
    Refused(String),
}

/// A client that adds the stored token to every request and refreshes it when it expires, or
/// `None` when nothing usable is stored for this server.
pub async fn authorized_client(
    url: &str,
    secret: Arc<dyn SecretStore>,
    http: reqwest::Client,
) -> Result<Option<AuthClient<reqwest::Client>>, OAuthError> {
    let flow = |source| OAuthError::Flow {
        url: url.to_string(),
        source,
    };
    let probe = Arc::clone(&secret);
    if blocking(move || probe.read()).await.map_err(flow)?.is_none() {
        return Ok(None);
    }
    crate::http::install_crypto_provider();
    let mut manager = AuthorizationManager::new(url).await.map_err(flow)?;
    manager.set_credential_store(SecretCredentials { secret });
    if !manager.initialize_from_store().await.map_err(flow)? {
        return Ok(None);
    }
    Ok(Some(AuthClient::new(http, manager)))
}

/// Signs in to the server at `url`: registers Nerve as a client if the server allows it, opens the
/// authorization page with `open_browser`, waits (up to `timeout`) for the browser to come back to
/// a loopback port, exchanges the code for tokens and stores them in `secret`.
pub async fn login(
    url: &str,
    secret: Arc<dyn SecretStore>,
    open_browser: impl FnOnce(&str),
    timeout: Duration,
) -> Result<(), OAuthError> {
    let flow = |source| OAuthError::Flow {
        url: url.to_string(),
        source,
    };
    crate::http::install_crypto_provider();
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(OAuthError::Redirect)?;
    let port = listener.local_addr().map_err(OAuthError::Redirect)?.port();
    let redirect_uri = format!("http://127.0.0.1:{port}/callback");

    let mut manager = AuthorizationManager::new(url).await.map_err(flow)?;
    manager.set_credential_store(SecretCredentials { secret });
    let mut state = OAuthState::Unauthorized(manager);
    state
        .start_authorization(AuthorizationRequest::new(redirect_uri).with_client_name("Nerve"))
        .await
        .map_err(flow)?;
    let authorization_url = state.get_authorization_url().await.map_err(flow)?;
    open_browser(&authorization_url);

    let callback = tokio::time::timeout(timeout, wait_for_callback(&listener))
        .await
        .map_err(|_| OAuthError::TimedOut(timeout))??;
    state
        .handle_callback(&callback.code, &callback.state)
        .await
        .map_err(flow)
}

/// What the browser brought back.
#[derive(Debug, PartialEq, Eq)]
struct Callback {
    code: String,
    state: String,
}

/// How long one connection to the loopback port may take to send its request line. Browsers open
/// spare connections they may never use; one of them must not hold up the real callback.
const REQUEST_LINE_TIMEOUT: Duration = Duration::from_secs(10);

/// Serves the loopback redirect until a request carries a code (or an error): other requests
/// (a favicon) get a 404 and the wait goes on. Each connection is served by a task of its own with
/// a read timeout, so an idle connection (a browser's pre-connection) never blocks the callback.
async fn wait_for_callback(listener: &tokio::net::TcpListener) -> Result<Callback, OAuthError> {
    let (answers, mut answered) = tokio::sync::mpsc::channel(8);
    let mut connections = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let (stream, _) = accepted.map_err(OAuthError::Redirect)?;
                let answers = answers.clone();
                connections.spawn(async move {
                    if let Some(answer) = serve_connection(stream).await {
                        let _ = answers.send(answer).await;
                    }
                });
            }
            Some(answer) = answered.recv() => {
                // The other connections' tasks end with the set.
                return answer.map_err(|refusal| OAuthError::Refused(refusal.to_string()));
            }
        }
    }
}

/// Reads one request (within [`REQUEST_LINE_TIMEOUT`]), answers it, and gives what it brought
/// back: `None` for anything that is not the callback, or a connection that said nothing in time.
async fn serve_connection(stream: tokio::net::TcpStream) -> Option<Result<Callback, CallbackRefusal>> {
    let mut stream = BufReader::new(stream);
    let mut request_line = String::new();
    match tokio::time::timeout(REQUEST_LINE_TIMEOUT, stream.read_line(&mut request_line)).await {
        Ok(Ok(_)) => {}
        Ok(Err(_)) | Err(_) => return None,
    }
    let answer = parse_callback(&request_line);
    let (status, page) = match &answer {
        Some(Ok(_)) => (
            "200 OK",
            "Signed in. You can close this tab and go back to Nerve.",
        ),
        Some(Err(_)) => (
            "400 Bad Request",
            "The sign-in was refused. You can close this tab.",
        ),
        None => ("404 Not Found", "Not found."),
    };
    let response = format!(
        "HTTP/1.1 {status}\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{page}",
        page.len()
    );
    let _ = stream.get_mut().write_all(response.as_bytes()).await;
    let _ = stream.get_mut().shutdown().await;
    answer
}

/// Why the sign-in redirect did not bring a code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
enum CallbackRefusal {
    /// The authorisation server refused (`?error=..&error_description=..`).
    #[error("{error}{}", description.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    Refused {
        /// The OAuth error code.
        error: String,
        /// Its description, when given.
        description: Option<String>,
    },
    /// The redirect had neither a code nor an error.
    #[error("the redirect carried no code")]
    NoCode,
}

/// Why the browser could not be started.
#[derive(Debug, thiserror::Error)]
#[error("could not start `{program}`: {source}")]
pub struct BrowserError {
    /// The program tried (`$BROWSER`, `xdg-open` or `open`).
    pub program: String,
    /// Why it did not start.
    pub source: std::io::Error,
}

/// The code and state of `GET /callback?code=..&state=.. HTTP/1.1`, the refusal of
/// `?error=..&error_description=..`, or `None` for any other request.
fn parse_callback(request_line: &str) -> Option<Result<Callback, CallbackRefusal>> {
    let target = request_line.strip_prefix("GET ")?.split(' ').next()?;
    let url = reqwest::Url::parse("http://127.0.0.1").ok()?.join(target).ok()?;
    if url.path() != "/callback" {
        return None;
    }
    let query: std::collections::HashMap<String, String> = url.query_pairs().into_owned().collect();
    if let Some(error) = query.get("error") {
        let description = query.get("error_description").cloned();
        return Some(Err(CallbackRefusal::Refused {
            error: error.clone(),
            description,
        }));
    }
    match (query.get("code"), query.get("state")) {
        (Some(code), Some(state)) => Some(Ok(Callback {
            code: code.clone(),
            state: state.clone(),
        })),
        _ => Some(Err(CallbackRefusal::NoCode)),
    }
}

/// Opens `url` in the user's browser: `$BROWSER` when set (as `xdg-open`, `git` and `gh` honour
/// it), else `xdg-open` (`open` on macOS). Failing is not fatal: the caller also prints the URL.
pub fn open_in_browser(url: &str) -> Result<(), BrowserError> {
    let program = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| {
            if cfg!(target_os = "macos") {
                "open"
            } else {
                "xdg-open"
            }
            .to_string()
        });
    crate::child_env::as_user(&mut std::process::Command::new(&program))
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map(|_| ())
        .map_err(|source| BrowserError { program, source })
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[tokio::test]
    async fn an_idle_connection_does_not_hold_up_the_callback() {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let browser = tokio::spawn(async move {
            // A browser's spare connection: open, and never a byte.
            let idle = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            let mut real = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
            real.write_all(b"GET /callback?code=c0de&state=st4te HTTP/1.1\r\nhost: x\r\n\r\n")
                .await
                .unwrap();
            let mut answer = String::new();
            tokio::io::AsyncReadExt::read_to_string(&mut real, &mut answer)
                .await
                .unwrap();
            (idle, answer)
        });
        let callback = tokio::time::timeout(Duration::from_secs(5), wait_for_callback(&listener))
            .await
            .expect("the idle connection held up the callback")
            .unwrap();
        assert_eq!(
            callback,
            Callback {
                code: "c0de".to_string(),
                state: "st4te".to_string()
            }
        );
        let (_idle, answer) = browser.await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200 OK"), "{answer}");
    }

    #[test]
    fn the_callback_request_gives_its_code_state_or_refusal() {
        assert_eq!(
            parse_callback("GET /callback?code=c%2F1&state=s HTTP/1.1\r\n"),
            Some(Ok(Callback {
                code: "c/1".into(),
                state: "s".into()
            }))
        );
        assert_eq!(
            parse_callback("GET /callback?error=access_denied&error_description=no%20thanks HTTP/1.1"),
            Some(Err(CallbackRefusal::Refused {
                error: "access_denied".into(),
                description: Some("no thanks".into())
            }))
        );
        assert_eq!(parse_callback("GET /favicon.ico HTTP/1.1"), None);
        assert_eq!(parse_callback("POST /callback HTTP/1.1"), None);
        assert_eq!(
            parse_callback("GET /callback HTTP/1.1"),
            Some(Err(CallbackRefusal::NoCode))
        );
    }
}
