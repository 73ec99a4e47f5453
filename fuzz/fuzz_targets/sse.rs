//! `cargo +nightly fuzz run sse`: see `nerve::fuzz::sse` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nerve::fuzz::sse(data));
