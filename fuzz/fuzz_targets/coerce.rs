//! `cargo +nightly fuzz run coerce`: see `nerve::fuzz::coerce` for what it checks.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| nerve::fuzz::coerce(data));
