//! Memory of the web view's processes over a long session.
//!
//! WebKit's web process allocates much of its memory through glibc's malloc (Skia's tiles and
//! glyph caches, Mesa, Pango, GLib). glibc raises its mmap threshold to the size of the largest
//! mmapped block freed (up to 32 MB): after that, big short-lived buffers come from the heap
//! instead, and a heap keeps its pages when they are freed. Over a 300-turn session in the desktop
//! benchmark the web process grew 1.36-1.46x from turn 10 (425 to 575-625 MB), in steps that did
//! not come back, the largest at a long streamed answer; with the threshold fixed at glibc's
//! default of 128 KiB, 1.16x (489 MB), flat after turn 100.
//!
//! WebKit starts its processes with the app's environment and offers no other way to configure
//! them, so the tunable is set in the app's environment before anything starts. The engine is told
//! the user's value ([`nerve::child_env`]), so the user's commands run with their own.

use std::ffi::{OsStr, OsString};

/// glibc reads its tunables from this variable when a process starts.
pub const TUNABLES: &str = "GLIBC_TUNABLES";

/// The fixed mmap threshold: glibc's own default, which it would otherwise raise.
const MMAP_THRESHOLD: &str = "glibc.malloc.mmap_threshold=131072";

/// The value [`TUNABLES`] should have for the web view's processes, given the user's: the user's
/// tunables with the threshold added, or `None` when the user already chose a threshold (here or
/// through glibc's older `MALLOC_MMAP_THRESHOLD_`), which is theirs to choose.
pub fn tunables(user: Option<&OsStr>, legacy_threshold_set: bool) -> Option<OsString> {
    if legacy_threshold_set {
        return None;
    }
    let Some(user) = user.filter(|u| !u.is_empty()) else {
        return Some(MMAP_THRESHOLD.into());
    };
    // Tunables are `name=value` pairs separated by colons.
    let chosen = user
        .to_string_lossy()
        .split(':')
        .any(|pair| pair.split('=').next() == Some("glibc.malloc.mmap_threshold"));
    if chosen {
        return None;
    }
    let mut value = user.to_os_string();
    value.push(":");
    value.push(MMAP_THRESHOLD);
    Some(value)
}

/// Sets the tunable in this process's environment for the web view's processes, after telling the
/// engine the user's value. Called first thing in `main`.
pub fn tune_web_process_allocator() {
    let user = std::env::var_os(TUNABLES);
    let legacy = std::env::var_os("MALLOC_MMAP_THRESHOLD_").is_some();
    let Some(value) = tunables(user.as_deref(), legacy) else {
        return;
    };
    nerve::child_env::keep_user_values(vec![(TUNABLES.into(), user)]);
    // SAFETY: `main` calls this before it starts any thread (Tauri, tokio and GTK start later), so
    // nothing can read the environment while it changes.
    #[allow(unsafe_code)]
    unsafe {
        std::env::set_var(TUNABLES, value);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_threshold_is_added_to_what_the_user_set_unless_they_chose_one() {
        let cases: [(Option<&str>, bool, Option<&str>); 6] = [
            (None, false, Some("glibc.malloc.mmap_threshold=131072")),
            (Some(""), false, Some("glibc.malloc.mmap_threshold=131072")),
            (
                Some("glibc.malloc.arena_max=2"),
                false,
                Some("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072"),
            ),
            (
                Some("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536"),
                false,
                None,
            ),
            (Some("glibc.malloc.mmap_threshold=0"), false, None),
            (None, true, None),
        ];
        for (user, legacy, want) in cases {
            assert_eq!(
                tunables(user.map(OsStr::new), legacy),
                want.map(OsString::from),
                "user {user:?}, MALLOC_MMAP_THRESHOLD_ set: {legacy}"
            );
        }
    }
}
