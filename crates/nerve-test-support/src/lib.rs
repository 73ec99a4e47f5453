//! What Nerve's test suites share, so no suite keeps its own copy: waiting for a process to be gone
//! or for the pid file a command writes, a free loopback port, tauri-driver for the desktop app's
//! end-to-end test and benchmark, the folder a test project lives in, and git as a test sets a
//! repository up. It depends on no Nerve crate, so the engine's own unit tests can use it too.

// Test code: a setup that fails must stop the test, with its reason.
#![allow(clippy::expect_used)]

pub mod driver;
pub mod folder;
pub mod git;
pub mod process;
