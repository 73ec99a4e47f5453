//! What is destructive: a part that deletes or overwrites data (a truncating redirection of a file
//! that exists, `cp`/`mv` onto one, `sed -i`, `git checkout -- PATH`), not a part that is merely not
//! understood. Arithmetic of numbers and variables the command set to numbers is understood.

use std::path::Path;

use nerve::permissions::PermissionMode::Default as DefaultMode;
use nerve::permissions::Verdict;
use nerve::tools::bash::{analyze, is_destructive};
use pretty_assertions::assert_eq;

use super::super::{context, evaluation};

const PRINTF_LOOP: &str =
    "printf '\\033[32mPASS\\033[0m\\n'; for i in 1 2 3; do printf '%d' $((i*33)); sleep 0.1; done";

/// A project folder with `existing.txt`, `a.txt`, `dir/a.txt` and an empty `empty/`.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for file in ["existing.txt", "a.txt", "dir/a.txt"] {
        let path = dir.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "data").unwrap();
    }
    std::fs::create_dir_all(dir.path().join("empty")).unwrap();
    dir
}

/// Commands that destroy data in the project above.
const DESTRUCTIVE: &[&str] = &[
    "rm x",
    "rm -rf build",
    "timeout 5 rm x",
    "command -- rm x",
    "xargs rm < list",
    "find . -name '*.o' -delete",
    "find . -exec rm {} +",
    "truncate -s 0 a.txt",
    "shred -u a.txt",
    "dd if=/dev/zero of=new.bin",
    "echo x > existing.txt",
    "echo x >| existing.txt",
    "echo x &> existing.txt",
    "echo x 2> existing.txt",
    "echo x >& existing.txt",
    "ls > dir/a.txt",
    "true && { echo x > ./existing.txt; }",
    "cp a.txt existing.txt",
    "cp -f a.txt existing.txt",
    "cp a.txt dir",
    "cp -t dir a.txt",
    "mv existing.txt a.txt",
    "mv a.txt dir/",
    "install a.txt existing.txt",
    "ln -sf a.txt existing.txt",
    "tee existing.txt < a.txt",
    "echo x | tee -p new.txt existing.txt",
    "sort -o existing.txt existing.txt",
    "sed -i s/a/b/ new.txt",
    "sed -i.bak -e s/a/b/ existing.txt",
    "git checkout -- existing.txt",
    "git checkout .",
    "git restore existing.txt",
    "git restore --staged --worktree existing.txt",
    "git switch --discard-changes main",
    "git reset --hard HEAD~1",
    "git clean -fdx",
    "git stash drop",
    "git branch -D topic",
    "git push --force origin main",
    "git rm -rf build",
    "rsync -a --delete src/ dst/",
    // Not fully understood, with a part that destroys.
    "rm -rf \"unterminated",
    "echo $(( $(rm x) + 1 ))",
    "sudo rm -rf /tmp/x $((",
];

/// Commands that do not, in the same project.
const NOT_DESTRUCTIVE: &[&str] = &[
    PRINTF_LOOP,
    "ls -la",
    "echo x > new.txt",
    "echo x >> existing.txt",
    "echo x &>> existing.txt",
    "echo x > empty",
    "echo x > /dev/null",
    "echo x 2>&1",
    "cat <> existing.txt",
    "cp a.txt new.txt",
    "cp a.txt empty/",
    "cp -n a.txt existing.txt",
    "mv a.txt new.txt",
    "mv -n a.txt existing.txt",
    "ln -s a.txt existing.txt",
    "install -d newdir",
    "tee -a existing.txt < a.txt",
    "tee new.txt < a.txt",
    "sort -o new.txt a.txt",
    "sed s/a/b/ existing.txt",
    "touch existing.txt",
    "mkdir -p dir",
    "git status",
    "git checkout main",
    "git restore --staged existing.txt",
    "git push origin main",
    "git stash list",
    "echo rm",
    // Not fully understood, and nothing in it destroys.
    "echo \"unterminated",
    "echo $(( $(date +%s) / 60 ))",
    "echo ${a[$(cat n)]}",
    "echo $((x + 1))",
    "x=$(cat n); echo $((x * 2))",
];

#[test]
fn destructive_means_a_part_deletes_or_overwrites() {
    let dir = project();
    let cwd = dir.path();
    let mut failures = Vec::new();
    for (commands, want) in [(DESTRUCTIVE, true), (NOT_DESTRUCTIVE, false)] {
        for cmd in commands {
            if is_destructive(cmd, cwd) != want {
                failures.push(format!("{cmd:?}: want destructive = {want}"));
            }
        }
    }
    let cases = DESTRUCTIVE.len() + NOT_DESTRUCTIVE.len();
    println!("destructive or not: {cases} table cases");
    assert!(
        failures.is_empty(),
        "{} of {cases} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn a_truncating_redirection_destroys_only_a_file_that_exists() {
    let dir = project();
    let cwd = dir.path();
    let operators = [">", ">|", "&>", "1>", "2>", ">&"];
    let mut cases = 0;
    for op in operators {
        for (target, exists) in [
            ("existing.txt", true),
            ("new.txt", false),
            ("./dir/a.txt", true),
            ("dir/b.txt", false),
        ] {
            for command in [
                format!("echo x {op} {target}"),
                format!("ls {op}{target}"),
                format!("{op} {target} ls"),
            ] {
                assert_eq!(is_destructive(&command, cwd), exists, "{command}");
                cases += 1;
            }
            let absolute = format!("echo x {op} {}", cwd.join(target).display());
            assert_eq!(is_destructive(&absolute, cwd), exists, "{absolute}");
            // Appending never destroys.
            let append = format!("echo x >> {target}");
            assert!(!is_destructive(&append, cwd), "{append}");
            cases += 2;
        }
    }
    println!("truncating redirections: {cases} generated cases");
}

#[test]
fn arithmetic_of_numbers_and_numeric_variables_is_understood() {
    let understood = [
        "echo $((1 + 2))",
        "for i in 1 2 3; do printf '%d' $((i*33)); done",
        "for i in {1..5}; do echo $(( (i % 2) ? i : -i )); done",
        "n=3; echo $((n << 2)) $(( $n + 1 )) $((${n} * 2))",
        "i=0; while [ \"$i\" != 3 ]; do i=$((i + 1)); done",
        "s=abc; echo $((${#s} + $# + $?))",
        PRINTF_LOOP,
    ];
    for cmd in understood {
        let analysis = analyze(cmd);
        assert!(analysis.understood, "{cmd}: {:?}", analysis.not_understood_reason);
    }
    // Values that may hold `a[$(cmd)]`, and subscripts and substitutions, are not.
    let not_understood = [
        (
            "echo $(( $(cat n) + 1 ))",
            "a command substitution inside arithmetic is not modelled",
        ),
        (
            "echo ${a[$(cat n)]}",
            "array subscripts are evaluated as arithmetic and are not modelled",
        ),
        (
            "x=1; echo $((a[x]))",
            "an array subscript inside arithmetic is not modelled",
        ),
        (
            "echo $((x + 1))",
            "arithmetic on the variable `x`, which this command does not set to a number first",
        ),
        (
            "x=$(cat n); echo $((x))",
            "arithmetic on the variable `x`, which this command does not set to a number first",
        ),
        (
            "x=1; x=$(cat n); echo $((x))",
            "arithmetic on the variable `x`, which this command also sets to text that may not be a number",
        ),
        (
            "x=1; read x < n; echo $((x))",
            "arithmetic on the variable `x`, which `read` may set to any text",
        ),
        (
            "for f in *; do echo $((f)); done",
            "arithmetic on the variable `f`, which this command does not set to a number first",
        ),
        (
            "x=1; echo $((x = 2))",
            "arithmetic with assignments is not modelled",
        ),
    ];
    for (cmd, why) in not_understood {
        let analysis = analyze(cmd);
        assert_eq!(analysis.not_understood_reason.as_deref(), Some(why), "{cmd}");
    }
    println!(
        "arithmetic: {} table cases",
        understood.len() + not_understood.len()
    );
}

#[test]
fn a_command_not_understood_asks_and_says_why_without_calling_itself_destructive() {
    let ctx = context(DefaultMode, &[]);
    let e = evaluation(PRINTF_LOOP, &ctx);
    assert_eq!((e.decision, e.suggestion_note), (Verdict::Allow, None));
    let e = evaluation("echo $(( $(date +%s) / 60 ))", &ctx);
    assert_eq!(
        (e.decision, e.reason.as_str(), e.suggestion_note),
        (
            Verdict::Ask,
            "the command could not be fully understood (a command substitution inside arithmetic is not \
             modelled), so it is not pre-approved",
            None
        )
    );
    assert!(!is_destructive("echo $(( $(date +%s) / 60 ))", Path::new("/")));
}
