//! What Grep and Glob can reach, judged against Read deny rules and the working directories, over
//! many spellings: a search whose root, `glob` or `pattern` names a denied folder is refused; one
//! that only walks past it runs, never shows what is inside, and says that paths were withheld; one
//! that climbs out of the project asks. Each table is checked in several modes, and every search
//! that runs is run for real.

use crate::support::{TestProject, single_call, text_of};
use nerve::permissions::{DecidedBy, PermissionMode, RuleBehavior, Verdict};
use nerve::project::SessionRuntime;
use serde_json::{Value, json};

/// How a spelling meets the denied `secrets` folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reach {
    /// Its root, glob or pattern names the folder: refused in every mode.
    Names,
    /// It walks past the folder: it runs, without showing what is inside.
    WalksPast,
    /// It reads outside the working directories: it asks (dontAsk refuses, bypass allows).
    Outside,
}

/// The deny rules, each of which covers everything in `secrets/` (`{abs}` is the project folder).
const DENY_RULES: [&str; 5] = [
    "Read(./secrets/**)",
    "Read(./secrets)",
    "Read(/secrets/**)",
    "Read(//{abs}/secrets/**)",
    "Grep(./secrets/**)",
];

const MODES: [PermissionMode; 5] = [
    PermissionMode::Default,
    PermissionMode::AcceptEdits,
    PermissionMode::Plan,
    PermissionMode::DontAsk,
    PermissionMode::BypassPermissions,
];

/// (tool, input with `{abs}` for the project folder, reach).
fn cases() -> Vec<(&'static str, &'static str, Reach)> {
    use Reach::{Names, Outside, WalksPast};
    let mut out = Vec::new();
    for path in [
        "secrets",
        "./secrets",
        "secrets/",
        "sub/../secrets",
        "{abs}/secrets",
        "secrets/inner",
        "secrets/key.txt",
        "SECRETS",
        "link_secrets",
    ] {
        out.push(("Grep", path, "path", Names));
        out.push(("Glob", path, "path", Names));
    }
    for glob in [
        "secrets/*",
        "./secrets/*",
        "secrets/**",
        "**/secrets/**",
        "**/secrets/*",
        "sec*/**",
        "{a,secrets}/*",
        "{a,{b,secrets}}/**",
        "sub/../secrets/*",
        "/secrets/*",
        "{abs}/secrets/*",
        "secrets",
        "secrets/",
        "*.rs,secrets/*",
        "*/../secrets/*",
    ] {
        out.push(("Grep", glob, "glob", Names));
    }
    for pattern in [
        "secrets/*",
        "./secrets/**",
        "secrets/**/*",
        "**/secrets/**",
        "**/secrets/*",
        "sec*/**",
        "{a,secrets}/*",
        "sub/../secrets/*",
        "{abs}/secrets/**",
        "{abs}/sub/../secrets/*",
        "secrets",
        "secrets/key.txt",
    ] {
        out.push(("Glob", pattern, "pattern", Names));
    }
    for path in [".", "sub/..", "{abs}", "link_proj"] {
        out.push(("Grep", path, "path", WalksPast));
        out.push(("Glob", path, "path", WalksPast));
    }
    // A leading `/` anchors a Grep glob at the root, as in ripgrep: `/**/*.rs` stays inside.
    for glob in [
        "*.rs",
        "**/*.rs",
        "*/*",
        "**/*",
        "*/key.txt",
        "**/key.txt",
        "!src/*",
        "*.{rs,txt}",
        "/**/*.rs",
    ] {
        out.push(("Grep", glob, "glob", WalksPast));
    }
    for pattern in [
        "**/*",
        "**/*.rs",
        "*/*",
        "*/key.txt",
        "**/key.txt",
        "**/*.{rs,txt}",
        "{abs}/**/*.txt",
    ] {
        out.push(("Glob", pattern, "pattern", WalksPast));
    }
    for path in ["..", "../..", "../project/.."] {
        out.push(("Grep", path, "path", Outside));
        out.push(("Glob", path, "path", Outside));
    }
    for glob in ["../../**/*", "../*", "{src,../x}/*", "src/../../*"] {
        out.push(("Grep", glob, "glob", Outside));
    }
    for pattern in ["../../**/*", "../*", "..", "/**/*.rs", "{src,../x}/*"] {
        out.push(("Glob", pattern, "pattern", Outside));
    }
    out.into_iter()
        .map(|(tool, text, field, reach)| (tool, field_spelling(field, text), reach))
        .collect()
}

/// The input field a spelling goes in, as a `field=text` key (the input is built per project).
fn field_spelling(field: &str, text: &str) -> &'static str {
    Box::leak(format!("{field}={text}").into_boxed_str())
}

/// The tool input for a `field=text` spelling: Glob's `path` searches with `**/*`, Grep's fields
/// look for `x` in content mode.
fn input(tool: &str, spelling: &str, abs: &str) -> Value {
    let (field, text) = spelling.split_once('=').unwrap();
    let text = text.replace("{abs}", abs);
    let mut input = match tool {
        "Grep" => json!({"pattern": "x", "output_mode": "content"}),
        _ => json!({"pattern": "**/*"}),
    };
    input[field] = Value::String(text);
    input
}

fn project() -> TestProject {
    let p = TestProject::new();
    p.write("secrets/key.txt", "x hunter2\n");
    p.write("secrets/inner/deep.rs", "x hunter2\n");
    p.write("src/a.rs", "x\n");
    p.write("sub/b.rs", "x\n");
    p.write("a/c.txt", "x\n");
    p.write("a/key.txt", "x\n");
    let dir = p.project_dir();
    std::os::unix::fs::symlink(dir.join("secrets"), dir.join("link_secrets")).unwrap();
    std::os::unix::fs::symlink(&dir, dir.join("link_proj")).unwrap();
    p
}

fn session(p: &TestProject, mode: PermissionMode, rule: &str) -> SessionRuntime {
    let rule = rule.replace("{abs}", &p.project_dir().display().to_string());
    p.builtin_session(mode, &[(RuleBehavior::Deny, &rule)])
}

fn expected(reach: Reach, mode: PermissionMode) -> Verdict {
    match (reach, mode) {
        (Reach::Names, _) => Verdict::Deny,
        (Reach::WalksPast, _) | (Reach::Outside, PermissionMode::BypassPermissions) => Verdict::Allow,
        (Reach::Outside, PermissionMode::DontAsk) => Verdict::Deny,
        (Reach::Outside, _) => Verdict::Ask,
    }
}

#[tokio::test]
async fn a_search_is_judged_by_everything_it_can_reach() {
    let p = project();
    let abs = p.project_dir().display().to_string();
    let cases = cases();
    let mut checked = 0;
    let mut failures = Vec::new();
    for rule in DENY_RULES {
        for mode in MODES {
            let s = session(&p, mode, rule);
            for (tool, spelling, reach) in &cases {
                let call = single_call(tool, input(tool, spelling, &abs));
                let report = s.pipeline.check(&call, &s.context, None).await.unwrap();
                let eval = &report.evaluation;
                let want = expected(*reach, mode);
                checked += 1;
                let named_rule = *reach != Reach::Names || eval.reason.contains("secrets");
                let by_rule = *reach != Reach::Names || eval.decided_by == DecidedBy::Rule;
                if eval.decision != want || !named_rule || !by_rule {
                    failures.push(format!(
                        "{rule} {mode:?} {tool} {spelling}: {:?} ({}), want {want:?}",
                        eval.decision, eval.reason
                    ));
                }
            }
        }
    }
    let count = |r: Reach| cases.iter().filter(|c| c.2 == r).count();
    println!(
        "search reach: {checked} decisions checked ({} spellings naming the denied folder, {} walking past it, {} \
         reaching outside, x {} deny rules x {} modes)",
        count(Reach::Names),
        count(Reach::WalksPast),
        count(Reach::Outside),
        DENY_RULES.len(),
        MODES.len()
    );
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[tokio::test]
async fn a_search_that_walks_past_a_denied_folder_withholds_it_and_says_so() {
    let p = project();
    let abs = p.project_dir().display().to_string();
    let walks_past: Vec<_> = cases().into_iter().filter(|c| c.2 == Reach::WalksPast).collect();
    let mut runs = 0;
    let mut failures = Vec::new();
    for rule in DENY_RULES {
        let s = session(&p, PermissionMode::Default, rule);
        for (tool, spelling, _) in &walks_past {
            let out = s.run_one(&single_call(tool, input(tool, spelling, &abs))).await;
            runs += 1;
            let text = text_of(&out.content);
            let leaked = text.contains("hunter2") || text.contains("secrets/");
            let told = text.contains("matched Read deny rules and was withheld")
                || text.contains("matched Read deny rules and were withheld");
            let found_something = ["a.rs", "b.rs", "c.txt", "a/key.txt"]
                .iter()
                .any(|name| text.contains(name));
            if out.is_error || leaked || !told || !found_something {
                failures.push(format!("{rule} {tool} {spelling}:\n{text}"));
            }
        }
    }
    println!(
        "search reach: {runs} searches run past a denied folder ({} spellings x {} deny rules)",
        walks_past.len(),
        DENY_RULES.len()
    );
    assert!(
        failures.is_empty(),
        "{} wrong:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[tokio::test]
async fn without_deny_rules_nothing_is_withheld_or_refused() {
    let p = project();
    let abs = p.project_dir().display().to_string();
    let s = p.builtin_session(PermissionMode::Default, &[]);
    let mut checked = 0;
    for (tool, spelling, reach) in cases() {
        let call = single_call(tool, input(tool, spelling, &abs));
        let decision = s
            .pipeline
            .check(&call, &s.context, None)
            .await
            .unwrap()
            .evaluation
            .decision;
        let want = if reach == Reach::Outside {
            Verdict::Ask
        } else {
            Verdict::Allow
        };
        assert_eq!(decision, want, "{tool} {spelling}");
        checked += 1;
    }
    let out = s
        .run_one(&single_call(
            "Grep",
            json!({"pattern": "hunter2", "output_mode": "content"}),
        ))
        .await;
    let text = text_of(&out.content);
    assert!(text.contains("hunter2") && !text.contains("withheld"), "{text}");
    println!("search reach: {checked} spellings allowed or asking without deny rules");
}
