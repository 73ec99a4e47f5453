//! What the desktop app's end-to-end test and its benchmark share: tauri-driver's process, ports,
//! the app under test, and the mock's scenario blocks.
#![allow(dead_code)] // each test binary uses its own part

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Child;

use serde_json::{Value, json};

/// tauri-driver, killed when the test ends however it ends.
pub struct Driver(pub Child);

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// The app under test: the one cargo built, or an installed one (`NERVE_E2E_APP`, set by
/// `scripts/test-install.sh`).
pub fn app_binary() -> PathBuf {
    std::env::var_os("NERVE_E2E_APP")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_nerve-desktop")))
}

/// A scripted `tool_use` block.
pub fn tool_use(id: &str, name: &str, input: Value) -> Value {
    json!({"type": "tool_use", "id": id, "name": name, "input": input})
}

/// A scripted streamed answer.
pub fn stream(blocks: Vec<Value>, stop: &str) -> Value {
    json!({"type": "stream", "blocks": blocks, "stop_reason": stop})
}
