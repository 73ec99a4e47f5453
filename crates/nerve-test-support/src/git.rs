//! Git as a test runs it to set a repository up (as a user would: with an identity, no signing,
//! no system configuration), failing the test when a command fails.

use std::path::Path;

/// Runs `git args` in `dir`; its standard output without the final line break.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim_end().to_string()
}

/// Makes `dir` a repository on branch `main` whose first commit holds everything in it.
pub fn init_with_commit(dir: &Path) {
    git(dir, &["init", "-q", "-b", "main"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", "first"]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_starts_with_one_commit_of_its_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "a\n").unwrap();
        init_with_commit(dir.path());
        assert_eq!(git(dir.path(), &["ls-files"]), "a.txt");
        assert_eq!(git(dir.path(), &["rev-list", "--count", "HEAD"]), "1");
    }
}
