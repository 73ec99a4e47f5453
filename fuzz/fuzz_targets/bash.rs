//! `cargo +nightly fuzz run bash`: see `nerve::fuzz::bash` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nerve::fuzz::bash(data));
