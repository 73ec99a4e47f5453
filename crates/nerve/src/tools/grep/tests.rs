//! Grep on fixture trees: every filter and mode, and the same file set as `rg -l`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use pretty_assertions::assert_eq;
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::*;
use crate::tools::search_progress::SearchProgress;
use crate::tools::test_support::{context_in, no_progress, text};

fn write(root: &Path, rel: &str, content: &[u8]) -> PathBuf {
    let p = root.join(rel);
    fs::create_dir_all(p.parent().unwrap()).unwrap();
    fs::write(&p, content).unwrap();
    p
}

fn age(path: &Path, secs: u64) {
    fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(secs))
        .unwrap();
}

/// A small tree with the cases ripgrep treats specially.
fn fixture() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = dir.path();
    write(r, ".gitignore", b"ignored/\n*.log\n");
    fs::create_dir_all(r.join(".git")).unwrap();
    write(r, ".git/HEAD", b"needle in git\n");
    write(
        r,
        "src/main.rs",
        b"fn main() {\n    let needle = 1;\n    println!(\"{}\", needle);\n}\n",
    );
    write(r, "src/lib.rs", b"// Needle in a comment\npub fn find() {}\n");
    write(r, "web/app.js", b"const needle = 'x';\n");
    write(r, "web/app.ts", b"let needle: number = 2;\n");
    write(
        r,
        "docs/notes.md",
        b"one\ntwo\nneedle\nthree\nfour\nfive\nsix\nneedle again\nseven\n",
    );
    write(r, "ignored/x.rs", b"needle\n");
    write(r, "debug.log", b"needle\n");
    write(r, ".hidden/secret.rs", b"needle\n");
    write(r, "bin/blob.dat", b"needle\x00\x01\x02binary\n");
    dir
}

fn opts(root: &Path, pattern: &str, mode: OutputMode) -> SearchOptions {
    SearchOptions::new(pattern, root, mode)
}

fn run(o: &SearchOptions) -> Vec<FileHits> {
    search::search(o, &CancellationToken::new(), &SearchProgress::silent()).unwrap()
}

fn rel_paths(root: &Path, hits: &[FileHits]) -> Vec<String> {
    hits.iter()
        .map(|h| h.path.strip_prefix(root).unwrap().display().to_string())
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

#[test]
fn honours_gitignore_hidden_binary_and_vcs() {
    let dir = fixture();
    let hits = run(&opts(dir.path(), "needle", OutputMode::FilesWithMatches));
    assert_eq!(
        sorted(rel_paths(dir.path(), &hits)),
        vec!["docs/notes.md", "src/main.rs", "web/app.js", "web/app.ts"]
    );
}

#[test]
fn vcs_folders_stay_out_even_with_hidden_files_on() {
    let dir = fixture();
    for vcs in ["svn", "hg", "bzr", "jj", "sl"] {
        write(dir.path(), &format!(".{vcs}/data"), b"needle\n");
    }
    let mut o = opts(dir.path(), "needle", OutputMode::FilesWithMatches);
    o.hidden = true;
    let found = sorted(rel_paths(dir.path(), &run(&o)));
    assert!(
        found.contains(&".hidden/secret.rs".to_string()),
        "hidden files searched: {found:?}"
    );
    assert!(found.iter().all(|p| !p.starts_with(".git/")), "{found:?}");
    for vcs in [".svn", ".hg", ".bzr", ".jj", ".sl"] {
        assert!(found.iter().all(|p| !p.starts_with(vcs)), "{vcs}: {found:?}");
    }
}

#[test]
fn case_insensitive() {
    let dir = fixture();
    let mut o = opts(dir.path(), "NEEDLE", OutputMode::FilesWithMatches);
    assert!(run(&o).is_empty());
    o.case_insensitive = true;
    let found = sorted(rel_paths(dir.path(), &run(&o)));
    assert!(found.contains(&"src/lib.rs".to_string()), "{found:?}");
    assert_eq!(found.len(), 5);
}

#[test]
fn type_and_glob_filters() {
    let dir = fixture();
    let mut o = opts(dir.path(), "needle", OutputMode::FilesWithMatches);
    o.file_type = Some("rust".into());
    assert_eq!(rel_paths(dir.path(), &run(&o)), vec!["src/main.rs"]);
    o.file_type = None;
    o.globs = vec!["*.{js,ts}".into()];
    assert_eq!(
        sorted(rel_paths(dir.path(), &run(&o))),
        vec!["web/app.js", "web/app.ts"]
    );
    o.globs = vec!["web/**".into(), "!*.ts".into()];
    assert_eq!(rel_paths(dir.path(), &run(&o)), vec!["web/app.js"]);
}

#[test]
fn unknown_type_and_bad_glob_are_errors() {
    let dir = fixture();
    let mut o = opts(dir.path(), "needle", OutputMode::FilesWithMatches);
    o.file_type = Some("klingon".into());
    let err = search::search(&o, &CancellationToken::new(), &SearchProgress::silent()).unwrap_err();
    assert!(err.to_string().contains("unknown file type `klingon`"), "{err}");
    o.file_type = None;
    o.globs = vec!["a[".into()];
    let err = search::search(&o, &CancellationToken::new(), &SearchProgress::silent()).unwrap_err();
    assert!(err.to_string().contains("invalid glob `a[`"), "{err}");
}

#[test]
fn invalid_regex_names_the_problem() {
    let dir = fixture();
    let err = search::search(
        &opts(dir.path(), "fn (", OutputMode::Content),
        &CancellationToken::new(),
        &SearchProgress::silent(),
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.starts_with("invalid regular expression `fn (`"), "{msg}");
    assert!(msg.contains("unclosed group"), "{msg}");
}

#[test]
fn content_lines_look_like_rg() {
    let dir = fixture();
    let mut o = opts(&dir.path().join("src"), "needle", OutputMode::Content);
    let main = dir.path().join("src/main.rs").display().to_string();
    let hits = run(&o);
    assert_eq!(
        hits[0].lines,
        vec![
            format!("{main}:2:    let needle = 1;"),
            format!("{main}:3:    println!(\"{{}}\", needle);")
        ]
    );
    o.line_numbers = false;
    assert_eq!(run(&o)[0].lines[0], format!("{main}:    let needle = 1;"));
}

#[test]
fn context_lines_and_group_separators() {
    let dir = fixture();
    let notes = dir.path().join("docs/notes.md");
    let mut o = opts(&notes, "needle", OutputMode::Content);
    o.before = 1;
    o.after = 1;
    let n = notes.display().to_string();
    assert_eq!(
        run(&o)[0].lines,
        vec![
            format!("{n}-2-two"),
            format!("{n}:3:needle"),
            format!("{n}-4-three"),
            "--".to_string(),
            format!("{n}-7-six"),
            format!("{n}:8:needle again"),
            format!("{n}-9-seven"),
        ]
    );
}

#[test]
fn multiline_matches_span_lines() {
    let dir = fixture();
    let root = dir.path().join("src/main.rs");
    let mut o = opts(&root, r"fn main\(\) \{\n\s+let", OutputMode::Content);
    let err = search::search(&o, &CancellationToken::new(), &SearchProgress::silent())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("multiline: true"),
        "without multiline a pattern cannot cross lines: {err}"
    );
    o.multiline = true;
    let lines = &run(&o)[0].lines;
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[1].ends_with(":2:    let needle = 1;"), "{lines:?}");
    // `.` crosses newlines in multiline mode.
    let mut o = opts(&root, "main.*println", OutputMode::Count);
    o.multiline = true;
    assert_eq!(run(&o)[0].matched_lines, 3);
}

#[test]
fn count_mode_counts_matching_lines() {
    let dir = fixture();
    let hits = run(&opts(&dir.path().join("docs"), "needle", OutputMode::Count));
    assert_eq!(hits[0].matched_lines, 2);
}

#[test]
fn files_are_listed_newest_first() {
    let dir = fixture();
    age(&dir.path().join("src/main.rs"), 300);
    age(&dir.path().join("web/app.js"), 100);
    age(&dir.path().join("web/app.ts"), 200);
    age(&dir.path().join("docs/notes.md"), 400);
    let hits = run(&opts(dir.path(), "needle", OutputMode::FilesWithMatches));
    assert_eq!(
        rel_paths(dir.path(), &hits),
        vec!["web/app.js", "web/app.ts", "src/main.rs", "docs/notes.md"]
    );
    // Content is grouped by path, whatever the times.
    let hits = run(&opts(dir.path(), "needle", OutputMode::Content));
    assert_eq!(
        rel_paths(dir.path(), &hits),
        vec!["docs/notes.md", "src/main.rs", "web/app.js", "web/app.ts"]
    );
}

#[test]
fn cancelled_search_stops() {
    let dir = fixture();
    let cancel = CancellationToken::new();
    cancel.cancel();
    let err = search::search(
        &opts(dir.path(), "needle", OutputMode::Content),
        &cancel,
        &SearchProgress::silent(),
    )
    .unwrap_err();
    assert!(matches!(err, SearchError::Cancelled));
}

#[test]
fn same_files_as_rg() {
    let dir = fixture();
    // Enough files that the parallel walk really runs on several threads.
    for i in 0..200 {
        let body = if i % 3 == 0 {
            "alpha needle beta\n"
        } else {
            "nothing here\n"
        };
        write(dir.path(), &format!("many/d{}/f{i}.txt", i % 7), body.as_bytes());
    }
    let ours: BTreeSet<PathBuf> = run(&opts(dir.path(), "needle", OutputMode::FilesWithMatches))
        .into_iter()
        .map(|h| h.path)
        .collect();
    // Checked whether or not rg is here.
    assert_eq!(ours.len(), 4 + 67);
    // The test command installs ripgrep and says so (NERVE_REQUIRE_RG=1): there, a missing rg fails.
    let rg = match std::process::Command::new("rg")
        .arg("--no-config")
        .arg("-l")
        .arg("needle")
        .arg(dir.path())
        .output()
    {
        Ok(out) => out,
        Err(e) => {
            assert!(
                std::env::var_os("NERVE_REQUIRE_RG").is_none(),
                "NERVE_REQUIRE_RG is set but rg cannot run: {e}"
            );
            println!("skipping the rg comparison: rg is not installed ({e}); run `apt-get install ripgrep`");
            return;
        }
    };
    let theirs: BTreeSet<PathBuf> = String::from_utf8(rg.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert_eq!(ours, theirs);
}

async fn call(ctx: &ToolUseContext, v: serde_json::Value) -> Result<ToolOutput, ToolError> {
    let input: GrepInput = serde_json::from_value(v).unwrap();
    GrepTool.call(input, ctx, &no_progress()).await
}

#[tokio::test]
async fn tool_pages_with_head_limit_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (1..=300).map(|i| format!("hit {i}\n")).collect();
    write(dir.path(), "big.txt", body.as_bytes());
    let ctx = context_in(dir.path());
    let out = call(&ctx, json!({"pattern": "hit", "output_mode": "content"}))
        .await
        .unwrap();
    let t = text(&out);
    assert_eq!(
        t.lines().filter(|l| l.contains(":hit ")).count(),
        DEFAULT_HEAD_LIMIT
    );
    assert!(
        t.ends_with("[Showing results with pagination = limit: 250, offset: 0]"),
        "{t}"
    );
    assert_eq!(out.display.unwrap()["applied_limit"], 250);

    let out = call(
        &ctx,
        json!({"pattern": "hit", "output_mode": "content", "head_limit": 2, "offset": 10}),
    )
    .await
    .unwrap();
    let big = dir.path().join("big.txt").display().to_string();
    assert_eq!(
        text(&out),
        format!(
            "{big}:11:hit 11\n{big}:12:hit 12\n\n[Showing results with pagination = limit: 2, offset: 10]"
        )
    );

    let out = call(
        &ctx,
        json!({"pattern": "hit", "output_mode": "content", "head_limit": 0}),
    )
    .await
    .unwrap();
    assert_eq!(text(&out).lines().count(), 300, "0 means no limit");
    assert_eq!(out.display.unwrap()["applied_limit"], serde_json::Value::Null);
}

#[tokio::test]
async fn tool_resolves_relative_paths_and_reports_errors() {
    let dir = fixture();
    let ctx = context_in(dir.path());
    let out = call(&ctx, json!({"pattern": "needle", "path": "web", "type": "js"}))
        .await
        .unwrap();
    assert_eq!(
        text(&out),
        format!("Found 1 file\n{}", dir.path().join("web/app.js").display())
    );
    let out = call(&ctx, json!({"pattern": "zzz_nothing"})).await.unwrap();
    assert_eq!(text(&out), "No files found");
    let err = call(&ctx, json!({"pattern": "a{2"})).await.unwrap_err();
    assert!(matches!(err, ToolError::InvalidInput(_)), "{err:?}");
    let input: GrepInput = serde_json::from_value(json!({"pattern": "x", "path": "nope"})).unwrap();
    let err = GrepTool.validate_input(&input, &ctx).await.unwrap_err();
    assert!(err.contains("does not exist"), "{err}");
    assert_eq!(
        GrepTool.permission_subject(&input, &ctx),
        PermissionSubject::Search(SearchSubject {
            roots: vec![dir.path().join("nope")],
            globs: Vec::new(),
            absolute_lookalikes: Vec::new(),
        })
    );
    assert!(GrepTool.is_read_only(&input) && GrepTool.is_concurrency_safe(&input));
}

#[test]
fn the_summary_shows_paths_relative_to_the_working_directory() {
    let input: GrepInput =
        serde_json::from_value(json!({"pattern": "fn main", "path": "/p/src/lib.rs"})).unwrap();
    assert_eq!(
        GrepTool.summary(&input, Path::new("/p")),
        "\"fn main\" in src/lib.rs"
    );
    assert_eq!(
        GrepTool.summary(&input, Path::new("/q")),
        "\"fn main\" in /p/src/lib.rs"
    );
}

#[test]
fn a_search_over_many_files_reports_growing_counts_once_per_min_files() {
    use crate::tools::search_progress::Pacing;
    use std::sync::{Arc, Mutex};

    let dir = tempfile::tempdir().unwrap();
    for i in 0..1_000 {
        write(
            dir.path(),
            &format!("d{}/f{i}.txt", i % 7),
            b"needle\nhay\nneedle\n",
        );
    }
    let seen = Arc::new(Mutex::new(Vec::new()));
    let inner = Arc::clone(&seen);
    let sink = crate::tool::ProgressSink::new(
        "toolu_1",
        Arc::new(move |_id: &str, p: crate::tool::Progress| inner.lock().unwrap().push(p)),
    );
    let pacing = Pacing {
        min_files: 100,
        min_interval: Duration::ZERO,
    };
    let progress = SearchProgress::new(sink, pacing);
    search::search(
        &opts(dir.path(), "needle", OutputMode::Count),
        &CancellationToken::new(),
        &progress,
    )
    .unwrap();
    let counts: Vec<(u64, u64)> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|p| match p {
            crate::tool::Progress::Search {
                files_searched,
                matches,
            } => (*files_searched, *matches),
            other => panic!("not a search report: {other:?}"),
        })
        .collect();
    let (during, last) = counts.split_at(counts.len() - 1);
    assert_eq!(last, [(1_000, 2_000)], "the totals come last");
    assert!(!during.is_empty() && during.len() <= 10, "{counts:?}");
    assert!(
        during
            .windows(2)
            .all(|w| w[1].0 >= w[0].0 + 100 && w[1].1 >= w[0].1),
        "at least 100 files apart, counts growing: {counts:?}"
    );
    // Searcher threads count files and matches separately, so a report may see a file's matches
    // before the file itself: only the bounds hold.
    assert!(
        during
            .iter()
            .all(|&(files, matches)| files >= 100 && matches <= 2_000),
        "{counts:?}"
    );
}
