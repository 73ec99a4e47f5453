//! The CLI's integration tests, as one test binary: each module of `suite` runs the `nerve` binary
//! one way (it was a test binary of its own), and `support` holds the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)] // test helpers may fail loudly

mod suite;
mod support;
