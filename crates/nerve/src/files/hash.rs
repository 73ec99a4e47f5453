//! Content hashes: SHA-256 as lowercase hex, the one form the engine stores and compares.

use sha2::{Digest, Sha256};

/// SHA-256 of `bytes` as lowercase hex.
pub fn hash_bytes(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// `digest` as lowercase hex.
pub fn hex(digest: &[u8]) -> String {
    use std::fmt::Write as _;
    digest.iter().fold(String::with_capacity(64), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}
