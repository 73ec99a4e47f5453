//! What the desktop app's end-to-end test and its benchmark share: tauri-driver's process, ports,
//! the app under test, and the mock's scenario blocks.
#![allow(dead_code)] // each test binary uses its own part

use std::path::PathBuf;

use serde_json::{Value, json};

pub use nerve_test_support::driver::{Driver, free_port, start_driver};

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

// ---- Processes ----------------------------------------------------------------------------------

/// Every process: (pid, parent pid, command name).
pub fn processes() -> Vec<(u32, u32, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|s| s.parse::<u32>().ok()) else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // `pid (comm) state ppid ...`: the name may hold spaces and parentheses.
        let (Some(open), Some(close)) = (stat.find('('), stat.rfind(')')) else {
            continue;
        };
        let comm = stat[open + 1..close].to_string();
        let ppid = stat[close + 1..]
            .split_whitespace()
            .nth(1)
            .and_then(|p| p.parse().ok())
            .unwrap_or(0);
        out.push((pid, ppid, comm));
    }
    out
}

pub fn descendants(all: &[(u32, u32, String)], root: u32) -> Vec<u32> {
    let mut found = Vec::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        for (pid, ppid, _) in all {
            if *ppid == p {
                found.push(*pid);
                stack.push(*pid);
            }
        }
    }
    found
}

/// The web view's processes (WebKitWebProcess: the page) under `root` (tauri-driver's pid).
pub fn web_processes(root: u32) -> Vec<u32> {
    let all = processes();
    descendants(&all, root)
        .into_iter()
        // Names are cut to 15 characters: "WebKitWebProces".
        .filter(|pid| {
            all.iter()
                .any(|(p, _, c)| p == pid && c.starts_with("WebKitWebProc"))
        })
        .collect()
}

/// The value of `name` in the environment process `pid` started with (`None`: not set).
pub fn environment_value(pid: u32, name: &str) -> Option<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).ok()?;
    environ.split(|b| *b == 0).find_map(|pair| {
        let pair = String::from_utf8_lossy(pair);
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| value.to_string())
    })
}
