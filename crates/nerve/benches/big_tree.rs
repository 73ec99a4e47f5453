//! A generated project of 1,000,000 files (`NERVE_BENCH_SCALE` divides it): Grep against `rg` and
//! Glob against `fd` (Debian's `fd-find`) on the same searches, alternating runs, medians and
//! ratios; then the `@` picker's index over the same tree: its first listing, the time of every
//! keystroke as queries are typed (p50, p99, worst), and how soon a file made on disk is found;
//! then checkpoints: trivial Bash calls through the real pipeline with checkpoints on against the
//! same calls with them off and against `git status` on the tree, and a command that changes
//! 10,000 files rewound; then worktrees on a committed repository of 30,000 files (fewer in a
//! scaled-down run): a session's worktree made, reviewed against its base, landed and removed,
//! each beside the plain git command or copy it stands for.
//!
//! `cargo bench -p nerve --bench big_tree` (`NERVE_BENCH_CHECKPOINTS_ONLY=1`: the checkpoints
//! alone; `NERVE_BENCH_WORKTREES_ONLY=1`: the worktrees alone)
#![allow(clippy::expect_used, clippy::unwrap_used)] // a benchmark binary: failing loudly is right

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "support/bash_calls.rs"]
mod bash_calls;

use nerve::project_files::FileIndex;
use nerve::tools::glob::search as glob;
use nerve::tools::grep::{OutputMode, Page, SearchOptions, render, search::search};
use nerve::tools::search_progress::SearchProgress;
use tokio_util::sync::CancellationToken;

const REPETITIONS: usize = 5;

fn files() -> usize {
    1_000_000
        / std::env::var("NERVE_BENCH_SCALE")
            .ok()
            .and_then(|v| v.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or(1)
}

const EXTENSIONS: [&str; 5] = ["rs", "ts", "md", "json", "py"];

/// `pkg_NNN/src/mod_NN/file_NNN.ext`, 20 modules of 500 files per package, plus an ignored
/// `build/` folder in the first package (listed by nobody).
fn make_tree(root: &Path, n: usize) {
    // A git checkout, so every tool honours its `.gitignore`.
    let git = Command::new("git").args(["init", "-q"]).arg(root).status();
    assert!(git.is_ok_and(|s| s.success()), "git init");
    // No automatic gc or maintenance: packing the tree's loose objects in the background, started
    // by whichever git command came last, would race the steps that read the repository (a `cp -r`
    // of it failed so, its objects packed away while it copied) and slow the timed ones.
    for (key, value) in [("gc.auto", "0"), ("maintenance.auto", "false")] {
        let set = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["config", key, value])
            .status();
        assert!(set.is_ok_and(|s| s.success()), "git config {key}");
    }
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    let threads = std::thread::available_parallelism().map_or(2, usize::from);
    std::thread::scope(|scope| {
        for t in 0..threads {
            scope.spawn(move || {
                let mut made_dir = String::new();
                for i in (t..n).step_by(threads) {
                    let (pkg, module, file) = (i / 10_000, i / 500 % 20, i % 500);
                    let dir = format!("pkg_{pkg:03}/src/mod_{module:02}");
                    if dir != made_dir {
                        std::fs::create_dir_all(root.join(&dir)).unwrap();
                        made_dir = dir.clone();
                    }
                    let ext = EXTENSIONS[i % EXTENSIONS.len()];
                    let mut text = format!(
                        "// file {i}\nfn handler_{i}(request: Request) -> Response {{\n    let value = compute_{}(request);\n    Response::ok(value)\n}}\n",
                        i % 977
                    );
                    if i % 10_007 == 0 {
                        text.push_str(&format!("// NEEDLE_{i}: TODO remove the Deprecated path\n"));
                    }
                    std::fs::write(root.join(format!("{dir}/file_{file:03}.{ext}")), text).unwrap();
                }
            });
        }
    });
    std::fs::create_dir_all(root.join("pkg_000/build")).unwrap();
    for i in 0..1000 {
        std::fs::write(
            root.join(format!("pkg_000/build/out_{i}.rs")),
            "// NEEDLE_0 generated\n",
        )
        .unwrap();
    }
    // Committed, as a checkout is (the checkpoints ask git what is dirty).
    let run_git = |args: &[&str]| {
        let status = Command::new("git")
            .arg("-C")
            .arg(root)
            .args(["-c", "user.name=bench", "-c", "user.email=bench@example.com"])
            .args(args)
            .status();
        assert!(status.is_ok_and(|s| s.success()), "git {args:?}");
    };
    run_git(&["add", "-A"]);
    run_git(&["commit", "-q", "-m", "generated"]);
}

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs both sides alternately; one untimed run each first fills the page cache for both.
fn side_by_side(
    mut ours: impl FnMut() -> usize,
    mut theirs: impl FnMut() -> usize,
) -> (Duration, Duration, usize, usize) {
    ours();
    theirs();
    let (mut a, mut b, mut na, mut nb) = (Vec::new(), Vec::new(), 0, 0);
    for _ in 0..REPETITIONS {
        let start = Instant::now();
        na = ours();
        a.push(start.elapsed());
        let start = Instant::now();
        nb = theirs();
        b.push(start.elapsed());
    }
    (median(a), median(b), na, nb)
}

fn row(name: &str, (a, b, na, nb): (Duration, Duration, usize, usize)) {
    println!(
        "  {name:<44} {:>9.1} {:>9.1} {:>6.2}x {:>8} {:>8}",
        ms(a),
        ms(b),
        a.as_secs_f64() / b.as_secs_f64(),
        na,
        nb
    );
}

/// The lines `cmd` prints, counted by their newlines: the tool's side is timed with this, so
/// the count must cost next to nothing (decoding and splitting 200,000 paths would not).
fn lines_of(mut cmd: Command) -> usize {
    let out = cmd.output().expect("the tool runs");
    assert!(
        out.status.success() || out.status.code() == Some(1),
        "{cmd:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    memchr::memchr_iter(b'\n', &out.stdout).count()
}

fn grep_cases(root: &Path) {
    let cases: [(&str, &str, OutputMode, bool); 4] = [
        (
            "literal, rare, files_with_matches",
            "NEEDLE_10007",
            OutputMode::FilesWithMatches,
            false,
        ),
        (
            "literal, 1 in 10,007 files, content",
            "NEEDLE_",
            OutputMode::Content,
            false,
        ),
        (
            "regex, 1 in 977 files, files_with_matches",
            r"compute_97[56]\(",
            OutputMode::FilesWithMatches,
            false,
        ),
        (
            "case-insensitive, content",
            "deprecated path",
            OutputMode::Content,
            true,
        ),
    ];
    for (name, pattern, mode, case_insensitive) in cases {
        let ours = || {
            let mut opts = SearchOptions::new(pattern, root, mode);
            opts.case_insensitive = case_insensitive;
            let hits = search(&opts, &CancellationToken::new(), &SearchProgress::silent()).unwrap();
            let text = render(
                &hits,
                mode,
                false,
                Page {
                    limit: None,
                    offset: 0,
                },
            )
            .text;
            match mode {
                OutputMode::Content => text.lines().count(),
                OutputMode::FilesWithMatches | OutputMode::Count => hits.len(),
            }
        };
        let theirs = || {
            let mut cmd = Command::new("rg");
            cmd.arg("--no-config")
                .arg(if mode == OutputMode::Content { "-n" } else { "-l" });
            if case_insensitive {
                cmd.arg("-i");
            }
            cmd.arg("-e").arg(pattern).arg(root);
            lines_of(cmd)
        };
        row(&format!("Grep {name}"), side_by_side(ours, theirs));
    }
}

fn fd() -> Option<&'static str> {
    ["fdfind", "fd"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    })
}

fn glob_cases(root: &Path, fd: &str) {
    // (name, the Glob pattern, fd's arguments for the same files: its pattern, `.` when an option
    // says what to match; a second argument after the pattern would be one more folder to search)
    let cases: [(&str, &str, &[&str]); 3] = [
        ("every .md file (1 in 5)", "**/*.md", &["-e", "md", "."]),
        (
            "one module's .rs files",
            "pkg_001/src/mod_07/*.rs",
            &["--full-path", "-g", "**/pkg_001/src/mod_07/*.rs"],
        ),
        (
            "a name anywhere (1 in 2,000 files)",
            "**/file_123.json",
            &["-g", "file_123.json"],
        ),
    ];
    for (name, pattern, fd_args) in cases {
        let ours = || {
            glob::find(
                root,
                pattern,
                &std::sync::Arc::default(),
                &CancellationToken::new(),
                &SearchProgress::silent(),
            )
            .unwrap()
            .total
        };
        let theirs = || {
            let mut cmd = Command::new(fd);
            cmd.args(["--type", "f", "--color", "never"])
                .args(fd_args)
                .arg(root);
            lines_of(cmd)
        };
        row(&format!("Glob {name}"), side_by_side(ours, theirs));
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

fn picker(root: &Path) {
    let start = Instant::now();
    let index = FileIndex::open(root);
    assert!(index.wait_ready(Duration::from_secs(600)));
    let listed = start.elapsed();
    println!(
        "  @ picker: first listing of {} files (and a watch on every folder: {}) in {:.0} ms",
        index.len(),
        index.watching(),
        ms(listed)
    );
    // Queries typed a character at a time, each keystroke a search for the top 50.
    let typed = [
        "pkg_042/mod_07/file_12",
        "file_999.rs",
        "handler",
        "p4m7f3json",
        "src/mod_1",
        "zzq",
    ];
    let mut times = Vec::new();
    for query in typed {
        for end in 1..=query.len() {
            let start = Instant::now();
            let found = index.find(&query[..end], 50);
            let took = start.elapsed();
            if took > Duration::from_millis(20) {
                println!("    slow keystroke: {:?} took {:.1} ms", &query[..end], ms(took));
            }
            times.push(took);
            std::hint::black_box(found);
        }
    }
    times.sort();
    println!(
        "  @ picker: {} keystrokes over {} queries: p50 {:.1} ms, p99 {:.1} ms, worst {:.1} ms (target: p99 <= 50 ms, {:.2}x of it)",
        times.len(),
        typed.len(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().unwrap()),
        percentile(&times, 0.99).as_secs_f64() / 0.050
    );
    // Freshness: a file made on disk, then searched for until the index has it.
    let generation = index.generation();
    let start = Instant::now();
    std::fs::write(root.join("pkg_000/src/mod_03/brand_new_widget.rs"), "").unwrap();
    while index.find("brand_new_widget", 1).is_empty() {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the watcher never saw the new file"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    println!(
        "  @ picker: a new file is found {:.1} ms after it was written ({} change(s) applied)",
        ms(start.elapsed()),
        index.generation() - generation
    );
}

/// `git status` as a user runs it in the tree, timed.
fn git_status(root: &Path) -> Duration {
    let start = Instant::now();
    let out = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["status", "--porcelain"])
        .output()
        .expect("git runs");
    let took = start.elapsed();
    assert!(out.status.success());
    took
}

/// Trivial Bash calls through the real pipeline (sandboxed, as by default) with checkpoints on
/// and off, one of each in turn, beside `git status` on the same tree; then one command that
/// changes 10,000 files (fewer in a scaled-down tree), rewound.
fn checkpoints(root: &Path, files: usize) {
    use bash_calls::{Launch, median, ms, session, side_by_side};
    let calls = std::env::var("NERVE_BENCH_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(if files >= 100_000 { 100 } else { 10 });
    let data = tempfile::tempdir().unwrap();
    // In the ignored build folder: the stamp is not the project's change.
    let stamp = root.join("pkg_000/build/stamp");
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let on = session(root, data.path(), Launch::Sandboxed, true);
    let off = session(root, data.path(), Launch::Sandboxed, false);
    git_status(root);
    let first = Instant::now();
    rt.block_on(bash_calls::one_call(&on, "toolu_first", &stamp));
    let first = first.elapsed();
    // The first call starts the work tree's watcher; until it has listed the tree, calls ask git.
    let listing = Instant::now();
    let watching = on
        .context
        .config
        .checkpoints
        .as_ref()
        .unwrap()
        .wait_for_watcher(root, Duration::from_secs(600));
    println!(
        "  checkpoints: the work tree's watcher {} {:.1} s after the first call",
        if watching {
            "was ready"
        } else {
            "was NOT ready (every call asks git)"
        },
        (first + listing.elapsed()).as_secs_f64()
    );
    let sides = rt.block_on(side_by_side(&[&on, &off], calls, &stamp));
    let status: Vec<Duration> = (0..calls.min(20)).map(|_| git_status(root)).collect();
    let (on_total, off_total) = (median(&sides.total[0]), median(&sides.total[1]));
    let (on_start, off_start) = (median(&sides.to_start[0]), median(&sides.to_start[1]));
    let status = median(&status);
    let overhead = on_total.saturating_sub(off_total);
    println!(
        "  checkpoints: {calls} trivial Bash calls each way, medians (the first call with them on: {:.1} ms)",
        ms(first)
    );
    println!(
        "    per call: on {:.1} ms, off {:.1} ms -> overhead {:.1} ms; `git status` {:.1} ms -> overhead/git status = {:.2}x (target <= 1x)",
        ms(on_total),
        ms(off_total),
        ms(overhead),
        ms(status),
        overhead.as_secs_f64() / status.as_secs_f64()
    );
    println!(
        "    block end to command start: on {:.1} ms, off {:.1} ms -> +{:.1} ms (target <= 2 ms)",
        ms(on_start),
        ms(off_start),
        ms(on_start.saturating_sub(off_start))
    );

    // A dirty tracked file and an untracked one before the command, then a command that rewrites
    // every file of the first package (10,000 in the full tree) and both of those.
    let dirty = root.join("pkg_000/src/mod_00/file_000.rs");
    let untracked = root.join("pkg_000/notes.txt");
    std::fs::write(&dirty, "dirty before the command\n").unwrap();
    std::fs::write(&untracked, "untracked before the command\n").unwrap();
    let expected_before: Vec<(PathBuf, Vec<u8>)> = walk_files(&root.join("pkg_000/src"))
        .into_iter()
        .chain([untracked.clone()])
        .map(|p| {
            let bytes = std::fs::read(&p).unwrap();
            (p, bytes)
        })
        .collect();
    let checkpoints = on.context.config.checkpoints.clone().unwrap();
    checkpoints.begin_turn(2);
    let call = nerve::pipeline::ToolCall {
        id: "toolu_rewrite".into(),
        name: "Bash".into(),
        input: serde_json::json!({
            "command": "find pkg_000/src -type f -exec perl -pi -e 's/^/changed /' {} + && echo more >> pkg_000/notes.txt && echo new > pkg_000/made.txt",
            "description": "Rewrite a package"
        }),
    };
    let start = Instant::now();
    let outcome = rt.block_on(on.run_one(&call));
    let took = start.elapsed();
    assert!(!outcome.is_error, "{outcome:?}");
    let changed = outcome.changed_files.len();
    let start = Instant::now();
    let plan = nerve::checkpoint::restore::plan(&checkpoints, 2).unwrap();
    let report = nerve::checkpoint::restore::apply(&checkpoints, plan, &[]).unwrap();
    let rewound = start.elapsed();
    assert!(report.refused.is_empty(), "{:?}", report.refused);
    for (path, bytes) in &expected_before {
        assert_eq!(&std::fs::read(path).unwrap(), bytes, "{} rewound", path.display());
    }
    assert!(!root.join("pkg_000/made.txt").exists(), "the new file is gone");
    println!(
        "    a command changing {changed} files: {:.0} ms through the pipeline; rewound exactly ({} files put back) in {:.0} ms",
        ms(took),
        report.restored.len(),
        ms(rewound)
    );
    std::fs::remove_file(&untracked).unwrap();
    let restored = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(["checkout", "-q", "--", "pkg_000/src/mod_00/file_000.rs"])
        .status()
        .unwrap();
    assert!(restored.success());
}

/// Runs `git args` in `dir`, asserting it succeeds; how long it took.
fn timed_git(dir: &Path, args: &[&str]) -> Duration {
    let start = Instant::now();
    let out = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args([
            "-c",
            "user.name=bench",
            "-c",
            "user.email=bench@localhost",
            "-c",
            "commit.gpgsign=false",
        ])
        .args(args)
        .output()
        .expect("git runs");
    let took = start.elapsed();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    took
}

/// Waits until what was written is on disk (`sync`), so one timed step does not pay for the
/// write-back of the one before.
fn flush_disk() {
    let _ = Command::new("sync").status();
}

/// A session's worktree on a committed repository of 30,000 files (the size the brief names; fewer
/// when the run is scaled down), each step beside what it stands for: made (against
/// `git worktree add` alone and a `cp -r` of the checkout), 100 files changed and reviewed against
/// its base (against `git diff`), landed by merge (against `git status` on the main checkout, the
/// unit a user waits for anyway), and removed (against `rm -rf` of a copy).
fn worktrees(files: usize) {
    use nerve::checkpoint::ChangeScope;
    use nerve::checkpoint::git_scope::git_change_set;
    use nerve::worktree::{LandStrategy, NewWorktree, Workspaces};

    let n = files.min(30_000);
    let reps = if n >= 30_000 { 3 } else { 1 };
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    let repo = repo.canonicalize().unwrap();
    // Made and committed as the big tree is.
    make_tree(&repo, n);
    let data = tmp.path().join("data");
    let spaces = Workspaces::new(&repo, &data);
    println!("  worktrees: a committed repository of {n} files, {reps} run(s) of each, medians");

    let (mut ours, mut plain, mut copy, mut review, mut diff, mut land, mut status, mut remove, mut rm) = (
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
        vec![],
    );
    // Once untimed, so the first timed run does not pay for reading the objects from disk. It stays
    // until the end: removing the files just before a timed step slows whatever comes next.
    let warm = tmp.path().join("warm");
    timed_git(
        &repo,
        &["worktree", "add", "-q", "--detach", warm.to_str().unwrap()],
    );
    for rep in 0..reps {
        let id = format!("bench-{rep}");
        let raw = tmp.path().join(format!("raw-{rep}"));
        let branch = format!("raw-{rep}");
        let plain_add = || {
            timed_git(
                &repo,
                &["worktree", "add", "-q", "-b", &branch, raw.to_str().unwrap()],
            )
        };
        // Written-back first: the last run's deletions must not slow whichever goes next.
        flush_disk();
        // Which goes first alternates: the second finds more of the tree in the page cache.
        if rep % 2 == 1 {
            plain.push(plain_add());
        }
        let start = Instant::now();
        let info = spaces
            .create(
                &id,
                &NewWorktree {
                    base: None,
                    name: Some(format!("bench {rep}")),
                },
            )
            .unwrap()
            .info;
        ours.push(start.elapsed());
        flush_disk();
        if rep % 2 == 0 {
            plain.push(plain_add());
        }
        timed_git(&repo, &["worktree", "remove", "--force", raw.to_str().unwrap()]);
        let copied = tmp.path().join(format!("copy-{rep}"));
        flush_disk();
        let start = Instant::now();
        let cp = Command::new("cp")
            .arg("-r")
            .arg(&repo)
            .arg(&copied)
            .status()
            .unwrap();
        assert!(cp.success());
        copy.push(start.elapsed());

        // The agent's work: 100 files changed in the worktree.
        for i in 0..100 {
            let path = info.path.join(format!(
                "pkg_000/src/mod_00/file_{i:03}.{}",
                EXTENSIONS[i % EXTENSIONS.len()]
            ));
            // A line of its own per run: each run lands onto the last one's work.
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, format!("{text}// checked in run {rep}\n")).unwrap();
        }
        let start = Instant::now();
        let set = git_change_set(
            &info.path,
            ChangeScope::GitBase { base: None },
            Some(&info.base_commit),
        )
        .unwrap();
        review.push(start.elapsed());
        assert_eq!(set.files.len(), 100);
        diff.push(timed_git(&info.path, &["diff", "--stat", &info.base_commit]));

        flush_disk();
        status.push(git_status(&repo));
        let start = Instant::now();
        let landed = spaces
            .land(&id, LandStrategy::Merge, Some("the agent's work"))
            .unwrap();
        land.push(start.elapsed());
        assert_eq!(landed.files.len(), 100, "{landed:?}");

        flush_disk();
        let start = Instant::now();
        spaces.discard(&id, false).unwrap();
        remove.push(start.elapsed());
        assert!(!info.path.exists());
        flush_disk();
        let start = Instant::now();
        std::fs::remove_dir_all(&copied).unwrap();
        rm.push(start.elapsed());
    }
    timed_git(&repo, &["worktree", "remove", "--force", warm.to_str().unwrap()]);
    let ratio =
        |a: &[Duration], b: &[Duration]| median(a.to_vec()).as_secs_f64() / median(b.to_vec()).as_secs_f64();
    let m = |d: &[Duration]| ms(median(d.to_vec()));
    println!(
        "    made: {:.0} ms; `git worktree add` alone {:.0} ms ({:.2}x); `cp -r` of the checkout {:.0} ms ({:.2}x)",
        m(&ours),
        m(&plain),
        ratio(&ours, &plain),
        m(&copy),
        ratio(&ours, &copy)
    );
    println!(
        "    100 files changed, reviewed against its base: {:.0} ms; `git diff --stat` {:.0} ms ({:.2}x)",
        m(&review),
        m(&diff),
        ratio(&review, &diff)
    );
    println!(
        "    landed by merge: {:.0} ms; `git status` on the main checkout {:.0} ms ({:.2}x)",
        m(&land),
        m(&status),
        ratio(&land, &status)
    );
    println!(
        "    removed with its branch: {:.0} ms; `rm -rf` of a copy {:.0} ms ({:.2}x)",
        m(&remove),
        m(&rm),
        ratio(&remove, &rm)
    );
}

fn walk_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            if entry.file_type().unwrap().is_dir() {
                stack.push(entry.path());
            } else {
                out.push(entry.path());
            }
        }
    }
    out.sort();
    out
}

fn main() {
    // The Bash sandbox re-executes the running binary as its helper: answer as the helper.
    nerve::sandbox::helper::run_if_asked();
    let n = files();
    // `NERVE_BENCH_WORKTREES_ONLY=1`: the worktrees alone (their repository is made apart).
    if std::env::var_os("NERVE_BENCH_WORKTREES_ONLY").is_some() {
        worktrees(n);
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root: PathBuf = dir.path().canonicalize().unwrap();
    let start = Instant::now();
    make_tree(&root, n);
    println!(
        "big_tree: {n} files (+1,000 ignored) made in {:.1} s; {REPETITIONS} alternating runs each, medians",
        start.elapsed().as_secs_f64()
    );
    println!(
        "  {:<44} {:>9} {:>9} {:>7} {:>8} {:>8}",
        "search", "nerve ms", "tool ms", "ratio", "nerve n", "tool n"
    );
    // `NERVE_BENCH_CHECKPOINTS_ONLY=1`: the checkpoints alone.
    if std::env::var_os("NERVE_BENCH_CHECKPOINTS_ONLY").is_some() {
        checkpoints(&root, n);
        return;
    }
    // `NERVE_BENCH_PICKER_ONLY=1`: the picker alone (while working on it).
    if std::env::var_os("NERVE_BENCH_PICKER_ONLY").is_some() {
        picker(&root);
        return;
    }
    // `NERVE_BENCH_GLOB_ONLY=1`: Glob against fd alone.
    let glob_only = std::env::var_os("NERVE_BENCH_GLOB_ONLY").is_some();
    if glob_only {
        // Grep skipped.
    } else if Command::new("rg").arg("--version").output().is_ok() {
        grep_cases(&root);
    } else {
        println!("  `rg` is not installed (apt-get install ripgrep): Grep skipped");
    }
    match fd() {
        Some(fd) => glob_cases(&root, fd),
        None => println!("  `fd` is not installed (apt-get install fd-find): Glob skipped"),
    }
    if !glob_only {
        picker(&root);
        checkpoints(&root, n);
        worktrees(n);
    }
}
