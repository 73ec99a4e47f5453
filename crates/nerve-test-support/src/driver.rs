//! tauri-driver for the desktop app's end-to-end test and benchmark.

use std::ffi::OsStr;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// tauri-driver, killed when the test ends however it ends.
pub struct Driver(pub Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A loopback port nothing listens on now.
///
/// # Panics
///
/// When no port can be bound at all.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a loopback port");
    listener.local_addr().expect("its address").port()
}

/// Starts tauri-driver on `port` for an app with its own data folder and keyring service (so each
/// test meets a first run), the endpoint and the model left to the app's Settings as a user sets
/// them, and `env` besides.
///
/// # Panics
///
/// When tauri-driver is not on PATH.
pub fn start_driver<K: AsRef<OsStr>, V: AsRef<OsStr>>(
    port: u16,
    data_dir: &Path,
    keyring_service: &str,
    env: impl IntoIterator<Item = (K, V)>,
) -> Driver {
    let native_port = free_port();
    let child = Command::new("tauri-driver")
        .envs(env)
        .args([
            "--port",
            &port.to_string(),
            "--native-port",
            &native_port.to_string(),
        ])
        .env("NERVE_DATA_DIR", data_dir)
        .env_remove("ANTHROPIC_BASE_URL")
        .env_remove("NERVE_MODEL")
        .env_remove("ANTHROPIC_API_KEY")
        .env("NERVE_KEYRING_SERVICE", keyring_service)
        .env("NERVE_FAST_MODEL", "claude-e2e-fast")
        .stdout(Stdio::null())
        .spawn()
        .expect("tauri-driver must be on PATH (cargo install tauri-driver --locked)");
    Driver(child)
}
