//! Generated tests for the third review's holes about writes, wrappers and what counts as
//! destructive: every class is checked over many spellings, modes and rules, and each test prints how
//! many cases it checked.

mod destructive;
mod protected_writes;
mod wrappers;

use super::generated::{Want, case, check_all};
