//! Built-in tools, one module each.

pub mod bash;

#[cfg(feature = "test-tools")]
pub mod testing;
