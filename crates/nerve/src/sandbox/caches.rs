//! The per-user caches package and build tools write, writable from the sandbox by default so
//! `pip install`, `npm install`, `cargo build`, `go build` and their kind work in it.
//!
//! Only cache folders: never a tool's configuration (`~/.cargo/config.toml`, `~/.npmrc`,
//! `~/.m2/settings.xml`), its installed programs (`~/.cargo/bin`, `~/go/bin`), a shell start-up
//! file or `~/.config`. A cache a later unsandboxed build reads can still be poisoned by a
//! sandboxed command; that is the price of these tools working, and `toolchainCaches: false` in
//! the sandbox settings removes them all.

use std::path::{Path, PathBuf};

/// A cache folder under the home folder, and the folder whose presence says the tool is in use
/// (the cache is created there when missing, so the tool's first run in the sandbox works;
/// nothing is created for a tool that was never used).
struct Cache {
    /// The cache, relative to home.
    path: &'static str,
    /// Created when this folder (relative to home) exists; `""`: home itself.
    anchor: &'static str,
}

const fn cache(path: &'static str, anchor: &'static str) -> Cache {
    Cache { path, anchor }
}

/// The documented list (README, "Sandbox"): XDG caches of the common tools, and the tools' own
/// cache folders.
const CACHES: &[Cache] = &[
    // Python.
    cache(".cache/pip", ".cache"),
    cache(".cache/pipenv", ".cache"),
    cache(".cache/pypoetry", ".cache"),
    cache(".cache/uv", ".cache"),
    cache(".cache/pdm", ".cache"),
    cache(".cache/hatch", ".cache"),
    cache(".cache/pre-commit", ".cache"),
    cache(".cache/black", ".cache"),
    // JavaScript.
    cache(".npm", ""),
    cache(".cache/yarn", ".cache"),
    cache(".yarn/berry/cache", ".yarn"),
    cache(".cache/pnpm", ".cache"),
    cache(".local/share/pnpm/store", ".local/share/pnpm"),
    cache(".cache/node-gyp", ".cache"),
    cache(".cache/typescript", ".cache"),
    cache(".cache/deno", ".cache"),
    cache(".bun/install/cache", ".bun"),
    // Rust: the registry and git checkouts, not `bin` or `config.toml`.
    cache(".cargo/registry", ".cargo"),
    cache(".cargo/git", ".cargo"),
    cache(".cache/sccache", ".cache"),
    // Go: modules and the build cache, not `~/go/bin`.
    cache("go/pkg/mod", "go"),
    cache(".cache/go-build", ".cache"),
    // JVM: downloaded artifacts, not `settings.xml` or `gradle.properties`.
    cache(".m2/repository", ".m2"),
    cache(".gradle/caches", ".gradle"),
    cache(".gradle/wrapper/dists", ".gradle"),
    cache(".cache/coursier", ".cache"),
    cache(".ivy2/cache", ".ivy2"),
    // C and C++ compiler caches, and the rest.
    cache(".cache/ccache", ".cache"),
    cache(".ccache", ".ccache"),
    cache(".cache/bazel", ".cache"),
    cache(".cache/zig", ".cache"),
    cache(".nuget/packages", ".nuget"),
    cache(".cache/composer", ".cache"),
    cache(".gem/specs", ".gem"),
    cache(".cache/huggingface", ".cache/huggingface"),
];

/// Lock files a tool keeps beside its caches rather than in them: writable files (created empty,
/// as the tool would, when it is in use), so the tool locks its caches in the sandbox. Cargo
/// otherwise carries on without its package-cache lock, and two builds at once could then write
/// the registry cache together.
const LOCK_FILES: &[Cache] = &[
    cache(".cargo/.package-cache", ".cargo"),
    cache(".cargo/.package-cache-mutate", ".cargo"),
];

/// Every cache and lock file on the lists, absolute (for the README and the tests).
pub fn toolchain_cache_paths(home: &Path) -> Vec<PathBuf> {
    CACHES
        .iter()
        .chain(LOCK_FILES)
        .map(|c| home.join(c.path))
        .collect()
}

/// The caches to make writable: each that exists, after creating those whose tool is in use (a
/// Landlock rule needs the folder to exist when the command starts). A cache that cannot be
/// created is left out.
pub fn toolchain_caches(home: &Path) -> Vec<PathBuf> {
    let mut caches = Vec::new();
    for cache in CACHES {
        let path = home.join(cache.path);
        if !path.is_dir() && home.join(cache.anchor).is_dir() {
            // A symlink planted where the cache goes would lead the rule elsewhere: only plain
            // folders are created and granted.
            let _ = std::fs::create_dir_all(&path);
        }
        let plain_folder = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        if plain_folder {
            caches.push(path);
        }
    }
    for lock in LOCK_FILES {
        let path = home.join(lock.path);
        if home.join(lock.anchor).is_dir() {
            // `create_new` fails on anything already there, a symlink included.
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path);
        }
        let plain_file = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
        if plain_file {
            caches.push(path);
        }
    }
    caches
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No cache is, holds or lies inside a file that runs code or holds secrets.
    #[test]
    fn no_cache_touches_start_up_files_configuration_or_secrets() {
        let home = Path::new("/home/u");
        let caches = toolchain_cache_paths(home);
        let mut never: Vec<PathBuf> = crate::sandbox::default_denied_reads(home);
        never.extend(
            [
                ".bashrc",
                ".bash_profile",
                ".bash_login",
                ".bash_logout",
                ".profile",
                ".zshrc",
                ".zprofile",
                ".zshenv",
                ".zlogin",
                ".inputrc",
                ".gitconfig",
                ".npmrc",
                ".yarnrc",
                ".yarnrc.yml",
                ".pypirc",
                ".cargo/bin",
                ".cargo/config.toml",
                ".cargo/config",
                ".cargo/credentials.toml",
                "go/bin",
                ".m2/settings.xml",
                ".gradle/gradle.properties",
                ".gem/credentials",
                ".nerve",
                ".claude",
                ".local/bin",
            ]
            .iter()
            .map(|p| home.join(p)),
        );
        let mut checked = 0;
        for cache in &caches {
            assert!(cache.starts_with(home), "{}", cache.display());
            // `~/.config` as a whole is never writable, and no cache lies in it.
            assert!(!cache.starts_with(home.join(".config")), "{}", cache.display());
            for path in &never {
                checked += 1;
                assert!(
                    !path.starts_with(cache) && !cache.starts_with(path),
                    "{} overlaps {}",
                    cache.display(),
                    path.display()
                );
            }
        }
        println!("checked {checked} cache/protected pairs");
        assert!(checked > 500);
    }

    #[test]
    fn caches_are_created_only_for_tools_in_use_and_symlinks_are_refused() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        std::fs::create_dir_all(home.join(".cache")).unwrap();
        std::fs::create_dir_all(home.join(".cargo")).unwrap();
        std::fs::create_dir_all(home.join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(home.join("elsewhere"), home.join(".npm")).unwrap();
        let caches = toolchain_caches(home);
        assert!(caches.contains(&home.join(".cache/pip")));
        assert!(caches.contains(&home.join(".cargo/registry")));
        assert!(
            !caches.contains(&home.join(".npm")),
            "a symlinked cache is not granted"
        );
        assert!(
            !home.join("go").exists(),
            "no Go folder is made for a user without Go"
        );
        assert!(!caches.contains(&home.join("go/pkg/mod")));
    }

    #[test]
    fn cargos_lock_files_are_made_and_granted_as_plain_files_only() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        assert!(
            !toolchain_caches(home)
                .iter()
                .any(|p| p.starts_with(home.join(".cargo"))),
            "nothing for a user without Cargo"
        );
        assert!(!home.join(".cargo").exists());
        std::fs::create_dir_all(home.join(".cargo")).unwrap();
        std::fs::write(home.join("elsewhere"), "mine").unwrap();
        std::os::unix::fs::symlink(home.join("elsewhere"), home.join(".cargo/.package-cache-mutate"))
            .unwrap();
        let caches = toolchain_caches(home);
        let granted: Vec<&PathBuf> = caches
            .iter()
            .filter(|p| p.starts_with(home.join(".cargo")))
            .collect();
        assert_eq!(
            granted,
            vec![
                &home.join(".cargo/registry"),
                &home.join(".cargo/git"),
                &home.join(".cargo/.package-cache")
            ]
        );
        assert_eq!(
            std::fs::read_to_string(home.join(".cargo/.package-cache")).unwrap(),
            "",
            "an empty lock file, as Cargo makes"
        );
        assert_eq!(std::fs::read_to_string(home.join("elsewhere")).unwrap(), "mine");
    }
}
