//! The environment of the web view's processes.
//!
//! WebKitGTK starts its web process with the app's environment, reads its tunables from it once,
//! and offers no API for them (the memory-pressure settings are construct-only on a context that
//! wry creates), so the app sets them in its own environment first thing in `main`, before any
//! thread starts. The engine is told the user's values ([`nerve::child_env`]): Bash commands, hooks
//! and MCP servers run with the user's own environment.
//!
//! Four settings, each measured with the desktop benchmark (300 turns of 5 tool calls, Xvfb, no
//! GPU; web process RSS at turn 10 → turn 300):
//!
//! - **glibc's mmap threshold, fixed at its default of 128 KiB.** Much of the web process's memory
//!   comes from glibc's malloc (Skia's tiles and glyph caches, Mesa, Pango, GLib). glibc raises the
//!   threshold to the largest mmapped block freed (up to 32 MB); after that, big short-lived
//!   buffers come from a heap, which keeps its pages. Raised: 1.36-1.46x (425 → 575-625 MB), in
//!   steps that did not come back; fixed: 1.16x, flat after turn 100.
//! - **JavaScriptCore without generational collection.** After each young-generation collection
//!   JavaScriptCore raises the heap's limit by what survived it, so in a page that keeps making
//!   short-lived state (every event of a turn) a full collection comes rarely and the old
//!   generation fills with garbage: with 13-17 MB live after a full collection, the heap ran at
//!   70-120 MB between them, and with CPU painting (below) the web process climbed steadily
//!   (1.72x and 1.81x, to 536-567 MB). With full collections only, one comes after 33-50 MB of
//!   allocation (about every 25 turns, with the aggressive growth below), each with pauses of a
//!   few milliseconds: 1.21-1.23x, flat from turn 50-100 (400-450 MB with CPU painting).
//! - **JavaScriptCore's standard heap growth on every machine.** With 16 GB of RAM or more it
//!   switches to an aggressive growth that lets the heap reach up to 4x its live size before the
//!   next full collection (`heapGrowthMaxIncrease` 3, plus 1); below that, 2x, with a 32 MB
//!   floor. This page keeps 14-22 MB live, so on a 24 GB machine the heap ran at 57-89 MB before
//!   each collection (14 full collections in 300 turns), and the turn the benchmark sampled
//!   decided much of the figure. With the standard growth it runs at 31-41 MB (51 collections,
//!   about one every 6 turns): 1.21-1.29x over ten runs (382-405 MB at turn 300, against
//!   1.26-1.36x over six), the app's time per turn side by side 0.85-1.22x (0.88-1.16x before).
//! - **CPU painting where no GPU can be used.** Without a render node the user may open, Mesa can
//!   only rasterise in software (llvmpipe), and WebKit's GPU painting through it is slower than
//!   Skia's own CPU painting: the longest frame of a turn 137-162 → 38-52 ms, a turn's end to its
//!   paint 29-125 → 14-25 ms, 20 typed characters to painted 697 → 462-491 ms (the frame floor is
//!   about 420), and 70 MB less idle with one session (100 MB less at turn 10).
//!
//! A variable the user set is theirs: it is left as it is.

use std::ffi::{OsStr, OsString};
use std::path::Path;

/// glibc reads its tunables from this variable when a process starts.
const TUNABLES: &str = "GLIBC_TUNABLES";
/// glibc's older spelling of the threshold: set, the user chose one.
const LEGACY_THRESHOLD: &str = "MALLOC_MMAP_THRESHOLD_";
/// The fixed mmap threshold: glibc's own default, which it would otherwise raise.
const MMAP_THRESHOLD: &str = "glibc.malloc.mmap_threshold=131072";

/// JavaScriptCore reads each of its options from `JSC_<name>`.
const GENERATIONAL_GC: &str = "JSC_useGenerationalGC";
/// The RAM (in MB) from which JavaScriptCore grows its heap aggressively.
const AGGRESSIVE_HEAP_FROM: &str = "JSC_aggressiveHeapThresholdInMB";
/// The largest value the option takes: no machine has that much RAM, so the growth is the standard one.
const NEVER: &str = "4294967295";

/// WebKitGTK paints with Skia on the CPU when this is `1`.
const CPU_RENDERING: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";
/// The user turned WebKit's compositing off: how it paints is then theirs to choose too.
const NO_COMPOSITING: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";

/// Where the kernel puts GPU render nodes (`renderD128`, ...).
const RENDER_NODES: &str = "/dev/dri";

/// The variables to set for the web view's processes, given the user's environment (`user`
/// answers a variable's value) and whether a GPU render node can be used.
pub fn variables(user: impl Fn(&str) -> Option<OsString>, gpu: bool) -> Vec<(&'static str, OsString)> {
    let mut set = Vec::new();
    if user(LEGACY_THRESHOLD).is_none()
        && let Some(value) = tunables(user(TUNABLES).as_deref())
    {
        set.push((TUNABLES, value));
    }
    if user(GENERATIONAL_GC).is_none() {
        set.push((GENERATIONAL_GC, "false".into()));
    }
    if user(AGGRESSIVE_HEAP_FROM).is_none() {
        set.push((AGGRESSIVE_HEAP_FROM, NEVER.into()));
    }
    if !gpu && user(CPU_RENDERING).is_none() && user(NO_COMPOSITING).is_none() {
        set.push((CPU_RENDERING, "1".into()));
    }
    set
}

/// [`TUNABLES`] for the web view's processes, given the user's: theirs with the threshold added,
/// or `None` when they already chose a threshold.
fn tunables(user: Option<&OsStr>) -> Option<OsString> {
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

/// Whether `dir` holds a render node this process can open for reading and writing, as Mesa must
/// to use the GPU. Opening one has no effect of its own.
fn usable_render_node(dir: &Path) -> bool {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries.flatten().any(|entry| {
        entry.file_name().to_string_lossy().starts_with("renderD")
            && std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .open(entry.path())
                .is_ok()
    })
}

/// Sets [`variables`] in this process's environment for the web view's processes, after telling
/// the engine the user's values. Called first thing in `main`.
pub fn prepare_web_process_environment() {
    let set = variables(
        |name| std::env::var_os(name),
        usable_render_node(Path::new(RENDER_NODES)),
    );
    if set.is_empty() {
        return;
    }
    nerve::child_env::keep_user_values(
        set.iter()
            .map(|(name, _)| (OsString::from(name), std::env::var_os(name)))
            .collect(),
    );
    for (name, value) in set {
        // SAFETY: `main` calls this before it starts any thread (Tauri, tokio and GTK start later),
        // so nothing can read the environment while it changes.
        #[allow(unsafe_code)]
        unsafe {
            std::env::set_var(name, value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(user: &[(&str, &str)], gpu: bool) -> Vec<(&'static str, String)> {
        let user: Vec<(String, OsString)> = user
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        variables(
            |name| user.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone()),
            gpu,
        )
        .into_iter()
        .map(|(k, v)| (k, v.to_string_lossy().into_owned()))
        .collect()
    }

    #[test]
    fn a_clean_environment_gets_all_four_without_a_gpu_and_three_with_one() {
        assert_eq!(
            run(&[], false),
            vec![
                (TUNABLES, "glibc.malloc.mmap_threshold=131072".to_string()),
                (GENERATIONAL_GC, "false".to_string()),
                (AGGRESSIVE_HEAP_FROM, "4294967295".to_string()),
                (CPU_RENDERING, "1".to_string()),
            ]
        );
        assert_eq!(
            run(&[], true),
            vec![
                (TUNABLES, "glibc.malloc.mmap_threshold=131072".to_string()),
                (GENERATIONAL_GC, "false".to_string()),
                (AGGRESSIVE_HEAP_FROM, "4294967295".to_string()),
            ]
        );
    }

    #[test]
    fn what_the_user_chose_is_left_as_it_is() {
        let chose_all = [
            (TUNABLES, "glibc.malloc.mmap_threshold=65536"),
            (GENERATIONAL_GC, "true"),
            (AGGRESSIVE_HEAP_FROM, "16384"),
            (CPU_RENDERING, "0"),
        ];
        assert_eq!(run(&chose_all, false), vec![]);
        assert_eq!(
            run(
                &[
                    (LEGACY_THRESHOLD, "65536"),
                    (GENERATIONAL_GC, "true"),
                    (AGGRESSIVE_HEAP_FROM, "")
                ],
                true
            ),
            vec![]
        );
        // Compositing turned off: how WebKit paints is the user's choice.
        assert_eq!(
            run(
                &[
                    (NO_COMPOSITING, "1"),
                    (GENERATIONAL_GC, ""),
                    (AGGRESSIVE_HEAP_FROM, "0")
                ],
                false
            ),
            vec![(TUNABLES, "glibc.malloc.mmap_threshold=131072".to_string())]
        );
    }

    #[test]
    fn the_threshold_is_added_to_the_users_other_tunables() {
        let cases: [(Option<&str>, Option<&str>); 5] = [
            (None, Some("glibc.malloc.mmap_threshold=131072")),
            (Some(""), Some("glibc.malloc.mmap_threshold=131072")),
            (
                Some("glibc.malloc.arena_max=2"),
                Some("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=131072"),
            ),
            (
                Some("glibc.malloc.arena_max=2:glibc.malloc.mmap_threshold=65536"),
                None,
            ),
            (Some("glibc.malloc.mmap_threshold=0"), None),
        ];
        for (user, want) in cases {
            assert_eq!(
                tunables(user.map(OsStr::new)),
                want.map(OsString::from),
                "user {user:?}"
            );
        }
    }

    #[test]
    fn only_a_render_node_that_opens_counts_as_a_gpu() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!usable_render_node(&dir.path().join("missing")), "no /dev/dri");
        assert!(!usable_render_node(dir.path()), "empty");
        std::fs::write(dir.path().join("card0"), "").unwrap();
        assert!(
            !usable_render_node(dir.path()),
            "a card node is not a render node"
        );
        std::fs::create_dir(dir.path().join("renderD129")).unwrap();
        assert!(
            !usable_render_node(dir.path()),
            "one that cannot be opened for writing"
        );
        std::fs::write(dir.path().join("renderD128"), "").unwrap();
        assert!(usable_render_node(dir.path()));
    }
}
