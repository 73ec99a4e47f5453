//! `cargo +nightly fuzz run transcript`: see `nerve::fuzz::transcript` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nerve::fuzz::transcript(data));
