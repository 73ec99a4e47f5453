//! Built-in tools, one module each.

pub mod bash;
pub mod edit;
pub mod fs;
pub mod read;
pub mod write;

#[cfg(feature = "test-tools")]
pub mod testing;
