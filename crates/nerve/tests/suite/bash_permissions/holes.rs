//! Generated tests, one per class of permission hole: every class is checked over many spellings, so
//! the next variant is caught too. Each test prints how many cases it checked.

use nerve::permissions::{PermissionMode, RuleBehavior};
use nerve::tools::bash::analyze;

use super::generated::{Want, case, check_all};
use super::{context, evaluation};

use PermissionMode::{AcceptEdits, BypassPermissions, Default as DefaultMode, DontAsk, Plan};
use RuleBehavior::{Allow, Ask, Deny};
use nerve::permissions::RuleBehavior::{Allow as A, Ask as Q, Deny as D};

/// Places a command can stand in a command line without changing what it runs.
fn contexts(command: &str) -> Vec<String> {
    vec![
        command.to_string(),
        format!("true && {command}"),
        format!("echo x | {command}"),
        format!("({command})"),
        format!("{{ {command}; }}"),
        format!("echo $({command})"),
        format!("bash -c '{command}'"),
        format!("if true; then {command}; fi"),
        format!("timeout 5 {command}"),
    ]
}

#[test]
fn input_redirections_are_reads() {
    let readers = ["cat", "wc -c", "head -1", "sort", "grep x", "tr a b", "od -c"];
    let operators = ["<", "0<", "< ", "0< ", "<& "];
    let outside = [
        "/etc/shadow",
        "~/.ssh/id_rsa",
        "../elsewhere/x",
        "/root/.aws/credentials",
    ];
    let denied = [
        "secrets/key.txt",
        "./secrets/key.txt",
        "secrets//key.txt",
        "sub/../secrets/key.txt",
    ];
    let network = [
        "/dev/tcp/127.0.0.1/9",
        "/dev/udp/127.0.0.1/53",
        "/dev//tcp/127.0.0.1/9",
        "/dev/./tcp/h/1",
    ];
    let mut cases = Vec::new();
    for reader in readers {
        for op in operators {
            for target in outside {
                let cmd = format!("{reader} {op}{target}");
                for c in contexts(&cmd) {
                    cases.push(case(c.clone(), DefaultMode, &[], Want::Is(Q)));
                    cases.push(case(c.clone(), DontAsk, &[], Want::Is(D)));
                    cases.push(case(c, Plan, &[], Want::NotAllowed));
                }
                // The redirection may stand before the command too.
                cases.push(case(
                    format!("{op}{target} {reader}"),
                    DefaultMode,
                    &[],
                    Want::Is(Q),
                ));
            }
            for target in denied {
                let cmd = format!("{reader} {op}{target}");
                for c in contexts(&cmd) {
                    cases.push(case(
                        c,
                        BypassPermissions,
                        &[(Deny, "Read(./secrets/**)")],
                        Want::Is(D),
                    ));
                }
            }
            for target in network {
                let cmd = format!("{reader} {op}{target}");
                for c in contexts(&cmd) {
                    cases.push(case(c.clone(), DefaultMode, &[], Want::Is(Q)));
                    cases.push(case(c, DefaultMode, &[(Allow, "Bash(cat *)")], Want::NotAllowed));
                }
            }
            // Inside the project, without rules: a read like any other.
            cases.push(case(
                format!("{reader} {op}src/main.rs"),
                DefaultMode,
                &[],
                Want::Is(A),
            ));
        }
    }
    // Read-write `<>` is a read and a write.
    cases.push(case("cat <> /etc/shadow", DefaultMode, &[], Want::Is(Q)));
    cases.push(case(
        "cat <> secrets/key.txt",
        BypassPermissions,
        &[(Deny, "Read(./secrets/**)")],
        Want::Is(D),
    ));
    cases.push(case(
        "echo hi > /dev/tcp/127.0.0.1/9",
        DefaultMode,
        &[(Allow, "Bash(echo *)")],
        Want::Is(Q),
    ));
    cases.push(case("cat < /dev/null", DefaultMode, &[], Want::Is(A)));
    cases.push(case("cat < <(ls)", DefaultMode, &[], Want::Is(A)));
    cases.push(case("cat < $F", DefaultMode, &[], Want::Is(Q)));
    cases.push(case("cat <<< hello", DefaultMode, &[], Want::Is(A)));
    check_all("input redirections", &cases);
}

#[test]
fn assignments_that_steer_a_program_need_a_rule_that_names_them() {
    let steering = [
        "LD_PRELOAD=./x.so",
        "LD_LIBRARY_PATH=.",
        "LD_AUDIT=./a.so",
        "DYLD_INSERT_LIBRARIES=./x.dylib",
        "NODE_OPTIONS='--require ./x.js'",
        "NODE_PATH=.",
        "PYTHONSTARTUP=./x.py",
        "PYTHONPATH=.",
        "PYTHONHOME=/tmp",
        "PERL5OPT=-Mx",
        "PERL5LIB=.",
        "RUBYOPT=-rx",
        "BASH_ENV=./x.sh",
        "ENV=./x.sh",
        "GIT_EXTERNAL_DIFF='touch pwned'",
        "GIT_SSH_COMMAND=./x",
        "GIT_PAGER=./x",
        "GIT_CONFIG_GLOBAL=./cfg",
        "GIT_EXEC_PATH=.",
        "GIT_EDITOR=./x",
        "PAGER=./x",
        "EDITOR=./x",
        "VISUAL=./x",
        "LESSOPEN='|./x %s'",
        "PATH=.:$PATH",
        "HOME=.",
        "JAVA_TOOL_OPTIONS=-javaagent:x.jar",
        "CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_RUNNER=./x",
        "RUSTC_WRAPPER=./x",
        "npm_config_script_shell=./x",
        "SOME_UNKNOWN_VARIABLE=1",
    ];
    let commands = [
        ("git status", "Bash(git *)"),
        ("git diff", "Bash(git *)"),
        ("npm run test", "Bash(npm run test *)"),
        ("cargo test", "Bash(cargo test *)"),
        ("ls", "Bash(ls *)"),
        ("cat README.md", "Bash(cat *)"),
    ];
    let forms = [
        "{a} {c}",
        "env {a} {c}",
        "{a} timeout 5 {c}",
        "timeout 5 env {a} {c}",
        "X=1 {a} {c}",
        "{a} nice {c}",
    ];
    let mut cases = Vec::new();
    for a in steering {
        for (c, rule) in commands {
            for form in forms {
                let cmd = form.replace("{a}", a).replace("{c}", c);
                // An allow rule that does not name the assignment does not cover it; the command is
                // not read-only either (no rules at all: it asks).
                cases.push(case(cmd.clone(), DefaultMode, &[(Allow, rule)], Want::Is(Q)));
                cases.push(case(cmd.clone(), DefaultMode, &[], Want::Is(Q)));
                cases.push(case(cmd, DontAsk, &[(Allow, rule)], Want::Is(D)));
            }
        }
    }
    // A rule that names the assignment covers it.
    cases.push(case(
        "GIT_PAGER=./x git log",
        DefaultMode,
        &[(Allow, "Bash(GIT_PAGER=./x git *)")],
        Want::Is(A),
    ));
    // Assignments known to be harmless are dropped before matching, and keep reads read-only.
    for a in [
        "LC_ALL=C",
        "LANG=C.UTF-8",
        "TZ=UTC",
        "NO_COLOR=1",
        "RUST_LOG=debug",
        "GIT_PAGER=cat",
        "PAGER=cat",
    ] {
        for (c, rule) in commands {
            for form in forms.iter().filter(|f| !f.contains("X=1")) {
                let cmd = form.replace("{a}", a).replace("{c}", c);
                cases.push(case(cmd, DefaultMode, &[(Allow, rule)], Want::Is(A)));
            }
        }
    }
    check_all("environment assignments", &cases);
}

#[test]
fn commands_run_by_other_commands_meet_deny_and_ask_rules() {
    let inner = ["rm a.txt", "/bin/rm a.txt", "rm -rf build"];
    let runners = [
        "find . -name a.txt -exec {c} {} +",
        "find . -exec {c} {} \\;",
        "find . -execdir {c} {} ';'",
        "find . -ok {c} {} \\;",
        "find -okdir {c} {} \\;",
        "find . -name x -exec sh -c '{c}' \\;",
        "fd a -x {c}",
        "fd a --exec-batch {c}",
        "busybox {c}",
        "toybox {c}",
        "trap '{c}' EXIT",
        "trap -- '{c}' INT TERM",
        "sudo {c}",
        "sudo -n -u root {c}",
        "sudo --preserve-env A=1 {c}",
        "doas {c}",
        "pkexec {c}",
        "su -c '{c}'",
        "su root -c '{c}'",
        "runuser -l nobody -c '{c}'",
        "chroot / {c}",
        "flock /tmp/lock {c}",
        "flock -n /tmp/lock -c '{c}'",
        "unshare -r {c}",
        "nsenter -t 1 -m {c}",
        "taskset -c 0 {c}",
        "ionice -c 3 {c}",
        "setsid {c}",
        "watch {c}",
        "watch -n 1 -x {c}",
        "strace -f -o /tmp/trace {c}",
        "ltrace {c}",
        "xargs -0 {c}",
        "xargs -I{} {c} {}",
        "xargs -n 1 -P 4 {c}",
        "xargs --null --max-args=1 {c}",
        "nohup {c}",
        "eval '{c}'",
        "bash -c '{c}'",
    ];
    let mut cases = Vec::new();
    for run in runners {
        for c in inner {
            let once = run.replace("{c}", c);
            // Runners nest: a runner inside another, or behind a wrapper.
            let nested = [
                once.clone(),
                format!("timeout 5 {once}"),
                format!("busybox {once}"),
            ];
            for cmd in nested {
                cases.push(case(
                    cmd.clone(),
                    DefaultMode,
                    &[(Allow, "Bash"), (Deny, "Bash(rm *)")],
                    Want::Is(D),
                ));
                cases.push(case(
                    cmd.clone(),
                    BypassPermissions,
                    &[(Deny, "Bash(rm *)")],
                    Want::Is(D),
                ));
                cases.push(case(
                    cmd.clone(),
                    BypassPermissions,
                    &[(Ask, "Bash(rm *)")],
                    Want::Is(Q),
                ));
                cases.push(case(cmd, DefaultMode, &[], Want::NotAllowed));
            }
        }
    }
    // The inner command decides read-only-ness: reading runs without asking where the runner
    // itself changes nothing.
    for cmd in [
        "find . -name '*.rs' -exec grep -n fn {} +",
        "find . -execdir ls \\;",
        "fd rs -x wc -l",
        "busybox cat README.md",
        "xargs -0 grep x",
        "taskset -c 0 ls",
        "trap 'ls' EXIT",
        "trap - EXIT",
    ] {
        cases.push(case(cmd, DefaultMode, &[], Want::Is(A)));
    }
    // A runner that changes who or where the command runs is never read-only.
    for cmd in [
        "sudo ls",
        "sudo -u root cat README.md",
        "chroot / ls",
        "unshare -r ls",
        "flock /tmp/l ls",
    ] {
        cases.push(case(cmd, DefaultMode, &[], Want::Is(Q)));
        // ... and a rule for the bare command does not cover it.
        cases.push(case(
            cmd,
            DefaultMode,
            &[(Allow, "Bash(ls *)"), (Allow, "Bash(cat *)")],
            Want::Is(Q),
        ));
    }
    cases.push(case(
        "sudo apt update",
        DefaultMode,
        &[(Allow, "Bash(sudo apt update)")],
        Want::Is(A),
    ));
    check_all("commands run by other commands", &cases);
}

#[test]
fn git_global_options_do_not_dodge_deny_rules() {
    let globals = [
        "",
        "-C . ",
        "-C sub ",
        "-C/tmp ",
        "--no-pager ",
        "-P ",
        "-p ",
        "-c x.y=z ",
        "-c core.pager=cat ",
        "--git-dir=.git ",
        "--git-dir .git ",
        "--work-tree=. ",
        "--no-optional-locks ",
        "--literal-pathspecs ",
        "--exec-path=/usr/lib/git-core ",
        "--namespace=x ",
        "--bare ",
        "-C . --no-pager -c a.b=c ",
    ];
    let mut cases = Vec::new();
    for g in globals {
        for (push, rule, matches) in [
            ("push", "Bash(git push *)", true),
            ("push origin main", "Bash(git push *)", true),
            ("push", "Bash(git push:*)", true),
            ("push --force origin", "Bash(git push --force *)", true),
            ("push -f origin", "Bash(git push --force *)", true),
            ("push origin main", "Bash(git push --force *)", false),
            ("reset --hard HEAD~1", "Bash(git reset --hard *)", true),
            ("clean -fdx", "Bash(git clean *)", true),
        ] {
            let cmd = format!("git {g}{push}");
            let want = if matches { Want::Is(D) } else { Want::Is(A) };
            cases.push(case(cmd.clone(), BypassPermissions, &[(Deny, rule)], want));
            if matches {
                cases.push(case(cmd.clone(), BypassPermissions, &[(Ask, rule)], Want::Is(Q)));
                cases.push(case(
                    format!("timeout 5 {cmd}"),
                    DefaultMode,
                    &[(Allow, "Bash"), (Deny, rule)],
                    Want::Is(D),
                ));
            }
        }
    }
    // `-c` with a key that names a program is never read-only.
    let program_keys = [
        "core.pager=sh",
        "core.pager=less",
        "pager.log=./x",
        "core.sshCommand=./x",
        "core.editor=./x",
        "sequence.editor=./x",
        "diff.external=./x",
        "diff.x.textconv=./x",
        "core.fsmonitor=./x",
        "alias.st=!sh",
        "core.hooksPath=/tmp/h",
        "credential.helper=./x",
        "gpg.program=./x",
        "core.askPass=./x",
        "unknown.key=1",
    ];
    for key in program_keys {
        for sub in ["status", "log -1", "diff", "show HEAD", "branch", "grep x"] {
            for form in [format!("git -c {key} {sub}"), format!("git -C . -c {key} {sub}")] {
                assert!(!analyze(&form).is_read_only(), "{form} is read-only");
                cases.push(case(form, DefaultMode, &[], Want::Is(Q)));
            }
        }
    }
    for key in [
        "color.ui=never",
        "core.quotepath=off",
        "pager.log=false",
        "column.ui=never",
    ] {
        cases.push(case(
            format!("git -c {key} log -1"),
            DefaultMode,
            &[],
            Want::Is(A),
        ));
    }
    check_all("git global options", &cases);
}

#[test]
fn read_deny_rules_cover_recursive_reads_globs_and_git_objects() {
    let rules: &[(RuleBehavior, &str)] = &[(Deny, "Read(./secrets/**)")];
    let recursive = [
        "grep -r {p} {d}",
        "grep -R {p} {d}",
        "grep -rn {p} {d}",
        "grep -nri {p} {d}",
        "grep --recursive {p} {d}",
        "grep -d recurse {p} {d}",
        "egrep -r {p} {d}",
        "fgrep -r {p} {d}",
        "rg {p} {d}",
        "rg -n -i {p} {d}",
        "ag {p} {d}",
        "ack {p} {d}",
        "diff -r {d} other",
        "find {d} -exec cat {{}} +",
        "find {d} -type f -exec grep -l {p} {{}} \\;",
        "fd . {d} -x cat",
        "tar czf /tmp/x.tgz {d}",
        "sudo grep -r {p} {d}",
        "FOO=1 rg {p} {d}",
    ];
    let folders_holding = [
        ".",
        "./",
        "sub/..",
        "secrets",
        "secrets/",
        "./secrets",
        "secrets/sub",
    ];
    let mut cases = Vec::new();
    for form in recursive {
        for d in folders_holding {
            let cmd = form.replace("{p}", "token").replace("{d}", d);
            for mode in [DefaultMode, BypassPermissions, AcceptEdits] {
                cases.push(case(cmd.clone(), mode, rules, Want::NotAllowed));
            }
        }
        // A folder that cannot hold a denied path reads as before.
        let cmd = form.replace("{p}", "token").replace("{d}", "src");
        if analyze(&cmd).is_read_only() {
            cases.push(case(cmd, DefaultMode, rules, Want::Is(A)));
        }
    }
    let globs = [
        "sec*/key.txt",
        "s*/*",
        "secret?/key.txt",
        "*/key.txt",
        "[s]ecrets/key.txt",
        "SECRETS/*",
        "./sec*/*.txt",
        "secrets/*",
    ];
    for g in globs {
        for reader in ["cat", "head -n 5", "wc -l", "grep x", "sort", "tail", "md5sum"] {
            let cmd = format!("{reader} {g}");
            for mode in [DefaultMode, BypassPermissions] {
                cases.push(case(cmd.clone(), mode, rules, Want::NotAllowed));
            }
        }
    }
    for cmd in ["cat *.md", "wc -l src/*.rs", "head -1 docs/*/*.txt"] {
        cases.push(case(cmd, DefaultMode, rules, Want::Is(A)));
    }
    // Searching the current folder by default.
    for cmd in [
        "rg token",
        "grep -r token",
        "grep -rn -e token",
        "ag token",
        "find -name '*.txt' -exec cat {} +",
        "fd -x cat",
        "git grep token",
    ] {
        for mode in [DefaultMode, BypassPermissions] {
            cases.push(case(cmd, mode, rules, Want::NotAllowed));
        }
    }
    for cmd in [
        "sudo cat secrets/key.txt",
        "sort -o /tmp/out secrets/key.txt",
        "git show HEAD:secrets/key.txt",
        "git show :secrets/key.txt",
        "git show main:./secrets/key.txt",
        "git cat-file -p HEAD:secrets/key.txt",
        "git cat-file -p 0123456789abcdef",
        "git cat-file blob 0123456789abcdef",
        "git cat-file --batch",
        "git grep token",
        "git grep token -- secrets",
        "git archive HEAD",
        "git -C . show HEAD:secrets/key.txt",
        "cat $F",
        "cat $(echo secrets/key.txt)",
    ] {
        for mode in [DefaultMode, BypassPermissions] {
            cases.push(case(cmd, mode, rules, Want::NotAllowed));
        }
    }
    // Operands known only at run time are fine when no Read rule could be dodged.
    cases.push(case("cat $F", BypassPermissions, &[], Want::Is(A)));
    check_all("read deny rules", &cases);
}

/// Every ordering of the option words `opts`.
fn permutations(opts: &[&str]) -> Vec<Vec<String>> {
    if opts.len() <= 1 {
        return vec![opts.iter().map(|s| s.to_string()).collect()];
    }
    let mut out = Vec::new();
    for i in 0..opts.len() {
        let mut rest = opts.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.to_string());
            out.push(tail);
        }
    }
    out
}

#[test]
fn deny_rules_match_option_sets() {
    let mut cases = Vec::new();
    // rm: every spelling of recursive + force, with and without an extra flag, before or after the
    // operand.
    let recursive = ["-r", "-R", "--recursive"];
    let force = ["-f", "--force"];
    let mut spellings: Vec<Vec<String>> = Vec::new();
    for r in recursive {
        for f in force {
            spellings.extend(permutations(&[r, f]));
            spellings.extend(permutations(&[r, f, "-v"]));
            if r.len() == 2 && f.len() == 2 {
                let (r, f) = (&r[1..], &f[1..]);
                spellings.push(vec![format!("-{r}{f}")]);
                spellings.push(vec![format!("-{f}{r}")]);
                spellings.push(vec![format!("-{r}{f}v")]);
                spellings.push(vec![format!("-v{f}{r}")]);
            }
        }
    }
    for rule in [
        "Bash(rm -rf *)",
        "Bash(rm -fr *)",
        "Bash(rm -r -f *)",
        "Bash(rm --recursive --force *)",
    ] {
        for opts in &spellings {
            let joined = opts.join(" ");
            for cmd in [
                format!("rm {joined} build"),
                format!("rm build {joined}"),
                format!("/bin/rm {joined} build"),
                format!("sudo rm {joined} build"),
            ] {
                cases.push(case(cmd, BypassPermissions, &[(Deny, rule)], Want::Is(D)));
            }
        }
        // Only one of the two options: the rule does not apply.
        cases.push(case(
            "rm -r build",
            BypassPermissions,
            &[(Deny, rule)],
            Want::Is(A),
        ));
        cases.push(case(
            "rm -f build",
            BypassPermissions,
            &[(Deny, rule)],
            Want::Is(A),
        ));
    }
    for (rule, command) in [
        ("Bash(git push --force *)", "git push -f origin main"),
        ("Bash(git push --force *)", "git push origin main --force"),
        ("Bash(git push -f *)", "git push --force"),
        ("Bash(git branch -D *)", "git branch --delete --force old"),
        ("Bash(git branch -D *)", "git branch -d -f old"),
        ("Bash(git clean -fd *)", "git clean -d -f -x"),
        ("Bash(git clean -fd *)", "git clean --force -d"),
        ("Bash(chmod -R *)", "chmod --recursive 777 ."),
        ("Bash(cp -rf *)", "cp --force -R a b"),
    ] {
        cases.push(case(command, BypassPermissions, &[(Deny, rule)], Want::Is(D)));
        cases.push(case(command, BypassPermissions, &[(Ask, rule)], Want::Is(Q)));
    }
    // Allow rules stay literal: a differently spelled command is not covered.
    cases.push(case(
        "rm -fr build",
        DefaultMode,
        &[(Allow, "Bash(rm -rf build)")],
        Want::Is(Q),
    ));
    check_all("option permutations", &cases);
}

#[test]
fn accept_edits_allows_file_edits_inside_the_working_folders() {
    let inside = [
        "touch new.txt",
        "touch -c a.txt b.txt",
        "mkdir newdir",
        "mkdir -p a/b/c",
        "mv a.txt b.txt",
        "mv -f a.txt sub/",
        "cp a b",
        "cp -r src backup",
        "cp -t out a b",
        "echo hi > notes.txt",
        "mkdir out && touch out/a.txt",
    ];
    let outside = [
        "touch /tmp/outside.txt",
        "mkdir ../sibling",
        "mv a.txt /tmp/",
        "cp /etc/passwd copy.txt",
        "cp a.txt ~/a.txt",
        "touch $F",
        "cp *.txt out",
    ];
    let protected = [
        "mkdir .git/x",
        "touch .git/hooks/pre-commit",
        "mv evil .git/hooks/pre-commit",
        "cp evil.json .nerve/settings.json",
        "cp evil.json .claude/settings.json",
        "touch .bashrc",
    ];
    let mut cases = Vec::new();
    for cmd in inside {
        cases.push(case(cmd, AcceptEdits, &[], Want::Is(A)));
        cases.push(case(cmd, DefaultMode, &[], Want::Is(Q)));
        cases.push(case(cmd, Plan, &[], Want::Is(D)));
    }
    for cmd in outside {
        cases.push(case(cmd, AcceptEdits, &[], Want::Is(Q)));
    }
    let ctx = context(AcceptEdits, &[]);
    assert_eq!(
        evaluation("touch /tmp/outside.txt", &ctx).reason,
        "Bash needs approval: no rule allows `touch /tmp/outside.txt` (it changes files; acceptEdits mode allows \
         that only inside the working directories)"
    );
    for cmd in protected {
        cases.push(case(cmd, AcceptEdits, &[], Want::Is(Q)));
        cases.push(case(cmd, BypassPermissions, &[], Want::Is(Q)));
    }
    // Edit rules apply to what the commands change.
    cases.push(case(
        "touch src/a.rs",
        AcceptEdits,
        &[(Deny, "Edit(/src/**)")],
        Want::Is(D),
    ));
    cases.push(case(
        "mv src/a.rs b.rs",
        BypassPermissions,
        &[(Deny, "Edit(/src/**)")],
        Want::Is(D),
    ));
    cases.push(case(
        "cp secrets/key.txt /tmp/x",
        BypassPermissions,
        &[(Deny, "Read(./secrets/**)")],
        Want::Is(D),
    ));
    cases.push(case(
        "cp -r secrets /tmp/x",
        BypassPermissions,
        &[(Deny, "Read(./secrets/**)")],
        Want::Is(D),
    ));
    // Commands that are not file edits still ask.
    for cmd in [
        "rm a.txt",
        "sudo touch a.txt",
        "LD_PRELOAD=x touch a",
        "touch a && curl x",
    ] {
        cases.push(case(cmd, AcceptEdits, &[], Want::Is(Q)));
    }
    check_all("acceptEdits file edits", &cases);
}
