//! `cargo +nightly fuzz run rules`: see `nerve::fuzz::rules` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nerve::fuzz::rules(data));
