//! The engine's integration tests, as one test binary: each module of `suite` is one area of
//! behaviour (it was a test binary of its own, each linking the engine again), and `support` holds
//! the helpers they share. The tests that run the `nerve` binary are the CLI's (crates/nerve-cli).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

mod suite;
mod support;
