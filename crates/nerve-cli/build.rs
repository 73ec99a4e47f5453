//! The version both binaries report: `NERVE_VERSION` at build time (the packages of a release set
//! it), else the crate's own.

fn main() {
    println!("cargo:rerun-if-env-changed=NERVE_VERSION");
    let version = std::env::var("NERVE_VERSION")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .or_else(|| std::env::var("CARGO_PKG_VERSION").ok())
        .unwrap_or_default();
    println!("cargo:rustc-env=NERVE_VERSION={}", version.trim());
}
