//! Generated tests for what shell commands read besides their operands, and for reads that are
//! allowed because they only read: options whose value is a file (`grep -f FILE`), sed and awk
//! programs that only print, loops over globs, brace expansions, and commands that never end by
//! themselves. Each test prints how many cases it checked.

use nerve::permissions::{PermissionMode, RuleBehavior};
use pretty_assertions::assert_eq;

use super::generated::{self, Case, Want, check_all};
use super::{context, evaluation};

use PermissionMode::{BypassPermissions, Default as DefaultMode, DontAsk};
use RuleBehavior::Deny;
use nerve::permissions::RuleBehavior::{Allow as A, Ask as Q, Deny as D};

const DENY_SECRETS: &str = "Read(./secrets/**)";

/// A case in `mode`, with `Read(./secrets/**)` denied when `deny_secrets`.
fn case(command: impl Into<String>, mode: PermissionMode, deny_secrets: bool, want: Want) -> Case {
    let rules: &[(RuleBehavior, &str)] = if deny_secrets {
        &[(Deny, DENY_SECRETS)]
    } else {
        &[]
    };
    generated::case(command, mode, rules, want)
}

/// Places a command can stand without changing what it reads.
fn contexts(command: &str) -> Vec<String> {
    vec![
        command.to_string(),
        format!("true && {command}"),
        format!("echo x | {command}"),
        format!("({command})"),
        format!("timeout 5 {command}"),
        format!("bash -c '{command}'"),
    ]
}

/// Files read through an option are denied by a Read deny rule in every mode, ask outside the
/// working folder, and leave the command as it was inside.
fn push_path_cases(cases: &mut Vec<Case>, template: &str, read_only_inside: bool) {
    let denied = ["secrets/key.txt", "./secrets/key.txt", "sub/../secrets/key.txt"];
    let outside = ["/etc/passwd", "../other/notes", "/root/.aws/credentials"];
    let inside = ["patterns.txt", "sub/list.txt"];
    for command in contexts(template)
        .iter()
        .take(if template.contains('\'') { 5 } else { 6 })
    {
        for path in denied {
            let c = command.replace("FILE", path);
            cases.push(case(c.clone(), DefaultMode, true, Want::Is(D)));
            cases.push(case(c, BypassPermissions, true, Want::Is(D)));
        }
        for path in outside {
            let c = command.replace("FILE", path);
            cases.push(case(c.clone(), DefaultMode, false, Want::Is(Q)));
            cases.push(case(c, DontAsk, false, Want::Is(D)));
        }
        for path in inside {
            let c = command.replace("FILE", path);
            let want = if read_only_inside {
                Want::Is(A)
            } else {
                Want::NotAllowed
            };
            cases.push(case(c, DefaultMode, false, want));
        }
    }
}

/// `(program, a short file option, a long file option, a flag letter that may share its cluster,
/// the rest of the command, whether it only reads when the file is inside)`.
type Program = (
    &'static str,
    Option<char>,
    Option<&'static str>,
    Option<char>,
    &'static str,
    bool,
);

#[rustfmt::skip]
const PROGRAMS: &[Program] = &[
    ("grep", Some('f'), Some("file"), Some('i'), "notes.txt", true),
    ("grep", None, Some("exclude-from"), None, "-r x .", true),
    ("egrep", Some('f'), Some("file"), Some('n'), "notes.txt", true),
    ("rg", Some('f'), Some("file"), Some('i'), "notes.txt", true),
    ("rg", None, Some("ignore-file"), None, "x", true),
    ("ag", Some('p'), Some("path-to-ignore"), Some('i'), "x", true),
    ("ack", None, Some("ackrc"), None, "x notes.txt", false),
    ("sed", Some('f'), Some("file"), Some('n'), "notes.txt", false),
    ("awk", Some('f'), Some("file"), None, "notes.txt", false),
    ("diff", Some('X'), Some("exclude-from"), Some('r'), "a b", true),
    ("diff", None, Some("from-file"), None, "a.txt", true),
    ("diff", None, Some("to-file"), None, "a.txt", true),
    ("sort", None, Some("random-source"), None, "a.txt", true),
    ("du", Some('X'), Some("exclude-from"), Some('s'), ".", true),
    ("tar", Some('X'), Some("exclude-from"), Some('c'), "-f out.tar .", false),
    ("tar", Some('f'), Some("file"), Some('t'), "", false),
    ("jq", Some('f'), Some("from-file"), Some('r'), "a.json", true),
    ("file", Some('m'), Some("magic-file"), Some('b'), "a.txt", true),
    ("date", Some('f'), Some("file"), Some('u'), "", true),
    ("locate", Some('d'), Some("database"), Some('i'), "x", true),
    ("hexdump", Some('f'), Some("format-file"), Some('C'), "a.txt", true),
    ("tree", None, Some("gitfile"), None, ".", true),
    ("fd", None, Some("ignore-file"), None, "x", true),
    ("xargs", Some('a'), Some("arg-file"), Some('0'), "echo", true),
];

#[test]
fn options_whose_value_is_a_file_are_read_targets() {
    let mut cases = Vec::new();
    let mut spellings = 0;
    for &(program, short, long, flag, rest, read_only) in PROGRAMS {
        let mut forms: Vec<String> = Vec::new();
        if let Some(s) = short {
            forms.push(format!("-{s} FILE"));
            forms.push(format!("-{s}FILE"));
            if let Some(f) = flag {
                forms.push(format!("-{f}{s} FILE"));
                forms.push(format!("-{f}{s}FILE"));
            }
        }
        if let Some(l) = long {
            forms.push(format!("--{l} FILE"));
            forms.push(format!("--{l}=FILE"));
            // GNU getopt_long takes an unambiguous prefix. (The analysis of xargs does not take
            // prefixes of its own options: it asks, which is never an allow.)
            if program != "xargs" {
                let prefix = &l[..l.len() - 1];
                forms.push(format!("--{prefix}=FILE"));
                forms.push(format!("--{prefix} FILE"));
            }
        }
        for form in forms {
            spellings += 1;
            push_path_cases(&mut cases, &format!("{program} {form} {rest}"), read_only);
            // Options may follow the operands (GNU permutes them), except for xargs, whose
            // command starts at its first operand, and awk, whose operands after the program are
            // all files.
            if !matches!(program, "xargs" | "awk") && !rest.is_empty() {
                push_path_cases(&mut cases, &format!("{program} {rest} {form}"), read_only);
            }
        }
    }
    // Options whose file lists more files: those are only known when the command runs.
    for template in [
        "wc --files0-from=FILE",
        "wc --files0-from FILE",
        "sort --files0-from=FILE",
        "du --files0-from=FILE",
        "tar -cT FILE -f out.tar",
        "tar --files-from=FILE -cf out.tar",
        "rsync --files-from=FILE . /tmp/x",
        "find . -files0-from FILE",
        "file -f FILE",
    ] {
        spellings += 1;
        push_path_cases(&mut cases, template, false);
    }
    // The name-then-file options of jq.
    for template in ["jq --rawfile x FILE -n '$x'", "jq --slurpfile x FILE -n '$x'"] {
        spellings += 1;
        push_path_cases(&mut cases, template, true);
    }
    println!("file-option spellings: {spellings}");
    check_all("options whose value is a file", &cases);
}

#[test]
fn values_of_other_options_are_not_read_targets() {
    // Same letters, other meanings: these stay read-only inside the working folder.
    let mut cases = Vec::new();
    for command in [
        "grep -e -f notes.txt",
        "grep -ef notes.txt",
        "grep --exclude=/etc/passwd -r x .",
        "grep -- -f notes.txt",
        "sort -k 2 -t , a.txt",
        "head -n 5 a.txt",
        "date -d /etc/passwd",
        "diff -x /etc/passwd -r a b",
    ] {
        for c in contexts(command) {
            cases.push(case(c, DefaultMode, false, Want::Is(A)));
        }
    }
    check_all("values of other options", &cases);
}

#[test]
fn words_known_only_at_run_time_may_be_file_options() {
    let mut cases = Vec::new();
    for template in [
        "grep $X notes.txt",
        "grep \"$X\" notes.txt",
        "grep -$X notes.txt",
        "grep --$X notes.txt",
        "grep -i $(cat opts) notes.txt",
        "X=-f/etc/passwd; grep $X notes.txt",
        "sort $OPT a.txt",
        "for o in -f/etc/passwd; do grep $o notes.txt; done",
        "for o in --file=/etc/passwd; do rg \"$o\" x; done",
        "for o in '-f /etc/passwd'; do grep $o notes.txt; done",
    ] {
        for c in contexts(template).into_iter().take(5) {
            cases.push(case(c.clone(), DefaultMode, false, Want::NotAllowed));
            cases.push(case(c, DontAsk, false, Want::Is(D)));
        }
    }
    // The value of an option that is not a file, and words after `--`, stay operands.
    for command in [
        "grep -e \"$X\" notes.txt",
        "grep -- \"$X\" notes.txt",
        "for p in foo bar; do grep \"$p\" notes.txt; done",
    ] {
        cases.push(case(command, DefaultMode, false, Want::Is(A)));
    }
    check_all("run-time words as file options", &cases);
}

/// sed scripts that only print.
const SED_PRINTING: &[&str] = &[
    "1,5p",
    "s/a/b/",
    "s/a/b/g",
    "s|a|b|2p",
    "s/\\(a\\)/[\\1]/gI",
    "/start/,/end/p",
    "$!N;P;D",
    "y/abc/xyz/",
    ":a;N;$!ba;s/\\n/ /g",
    "2q",
    "=",
    "/x/{s/a/b/;p}",
    "0~2d",
    "1!G;h;$!d",
];

/// sed scripts that write or run something.
const SED_WRITING: &[&str] = &[
    "w out.txt",
    "1w out.txt",
    "W out.txt",
    "s/a/b/w out.txt",
    "s/a/b/gw /dev/stdout",
    "s/a/b/e",
    "s/a/b/ge",
    "e",
    "1e rm -rf x",
    "p;w out.txt",
    "/x/{w out.txt\n}",
    "s/a/b/;1e id",
];

#[test]
fn sed_that_only_prints_is_read_only() {
    let options = [
        "", "-n ", "-E ", "-nE ", "-n -E ", "--quiet ", "-s ", "-z ", "-u ",
    ];
    let files = ["a.txt", "a.txt sub/b.txt"];
    let mut cases = Vec::new();
    for script in SED_PRINTING {
        for option in options {
            for files in files {
                let quoted = script.replace('\'', "'\\''");
                cases.push(case(
                    format!("sed {option}'{quoted}' {files}"),
                    DefaultMode,
                    false,
                    Want::Is(A),
                ));
                cases.push(case(
                    format!("sed {option}-e '{quoted}' {files}"),
                    DefaultMode,
                    false,
                    Want::Is(A),
                ));
                cases.push(case(
                    format!("sed {option}--expression='{quoted}' {files}"),
                    DefaultMode,
                    false,
                    Want::Is(A),
                ));
                cases.push(case(
                    format!("cat {files} | sed {option}'{quoted}'"),
                    DefaultMode,
                    false,
                    Want::Is(A),
                ));
                // Reading outside still asks; a denied file is still denied.
                cases.push(case(
                    format!("sed {option}'{quoted}' /etc/passwd"),
                    DefaultMode,
                    false,
                    Want::Is(Q),
                ));
                cases.push(case(
                    format!("sed {option}'{quoted}' secrets/k"),
                    BypassPermissions,
                    true,
                    Want::Is(D),
                ));
            }
        }
    }
    for script in SED_WRITING {
        for option in options {
            let quoted = script.replace('\'', "'\\''");
            cases.push(case(
                format!("sed {option}'{quoted}' a.txt"),
                DefaultMode,
                false,
                Want::NotAllowed,
            ));
            cases.push(case(
                format!("sed {option}-e p -e '{quoted}' a.txt"),
                DefaultMode,
                false,
                Want::NotAllowed,
            ));
            cases.push(case(
                format!("sed {option}'{quoted}' a.txt"),
                DontAsk,
                false,
                Want::Is(D),
            ));
        }
    }
    // Editing in place or reading the script from a file is not read-only.
    for option in [
        "-i",
        "-i.bak",
        "-ni",
        "-i -n",
        "--in-place",
        "--in-place=.orig",
        "--in-pl",
        "-f x.sed",
        "--file=x.sed",
        "-nf x.sed",
    ] {
        for script in SED_PRINTING {
            let script = if option.contains('f') { "" } else { script };
            cases.push(case(
                format!("sed {option} '{script}' a.txt"),
                DefaultMode,
                false,
                Want::NotAllowed,
            ));
        }
    }
    // `r FILE` and `R FILE` read FILE.
    for command in ["r", "R", "1r", "$R", "/x/r"] {
        for c in contexts(&format!("sed '{command} FILE' a.txt"))
            .into_iter()
            .take(5)
        {
            cases.push(case(
                c.replace("FILE", "secrets/key.txt"),
                BypassPermissions,
                true,
                Want::Is(D),
            ));
            cases.push(case(
                c.replace("FILE", "/etc/passwd"),
                DefaultMode,
                false,
                Want::Is(Q),
            ));
            cases.push(case(c.replace("FILE", "b.txt"), DefaultMode, false, Want::Is(A)));
        }
    }
    // A script only known at run time is not read-only.
    for command in ["sed \"$S\" a.txt", "sed -e \"$S\" a.txt", "sed \"${N}p\" a.txt"] {
        cases.push(case(command, DefaultMode, false, Want::NotAllowed));
    }
    check_all("sed that only prints", &cases);
}

/// awk programs that only print.
const AWK_PRINTING: &[&str] = &[
    "{print $1}",
    "{print $1, $NF}",
    "NR > 1 {print}",
    "$3 > 100 && $1 != \"x\" {n++} END {print n}",
    "/a|b/ {print $2}",
    "{ s += $1 } END { printf \"%.2f\\n\", s / NR }",
    "length($0) > 72",
    "{print ($1 > $2)}",
    "BEGIN {FS=\":\"} {print $1}",
    "{ a[$1]++ } END { for (k in a) print k, a[k] }",
    "{ getline; print }",
    "$1 == \"a|b>c\" || /x/ {print}",
];

/// awk programs that write, run or read something else.
const AWK_WRITING: &[&str] = &[
    "{system(\"rm x\")}",
    "BEGIN {system(\"id\")}",
    "{print > \"out.txt\"}",
    "{print $1 >> \"out.txt\"}",
    "{printf \"%s\", $1 > \"/dev/stderr\"}",
    "{print | \"sh\"}",
    "{print | \"sort -o out\"}",
    "{print |& \"sh\"}",
    "BEGIN {\"id\" | getline x; print x}",
    "BEGIN {while ((\"ls\" | getline l) > 0) print l}",
    "BEGIN {getline x < f; print x}",
    "BEGIN {ARGV[1]=\"/etc/passwd\"; ARGC=2} {print}",
    "@load \"filefuncs\"; {print}",
    "@include \"x.awk\"",
    "x / 2 | \"sh\"",
];

#[test]
fn awk_that_only_prints_is_read_only() {
    let options = [
        "",
        "-F: ",
        "-F : ",
        "-F, -v n=1 ",
        "-vn=1 ",
        "-- ",
        "--field-separator=: ",
    ];
    let mut cases = Vec::new();
    for program in AWK_PRINTING {
        for option in options {
            for files in ["a.txt", "a.txt sub/b.txt"] {
                for awk in ["awk", "gawk", "mawk"] {
                    let c = format!("{awk} {option}'{program}' {files}");
                    cases.push(case(c, DefaultMode, false, Want::Is(A)));
                }
            }
            cases.push(case(
                format!("awk {option}'{program}' /etc/passwd"),
                DefaultMode,
                false,
                Want::Is(Q),
            ));
            cases.push(case(
                format!("awk {option}'{program}' secrets/k"),
                BypassPermissions,
                true,
                Want::Is(D),
            ));
        }
    }
    for program in AWK_WRITING {
        for option in options {
            for awk in ["awk", "gawk", "mawk", "nawk"] {
                cases.push(case(
                    format!("{awk} {option}'{program}' a.txt"),
                    DefaultMode,
                    false,
                    Want::NotAllowed,
                ));
                cases.push(case(
                    format!("{awk} {option}'{program}' a.txt"),
                    DontAsk,
                    false,
                    Want::Is(D),
                ));
            }
        }
    }
    for option in [
        "-f prog.awk",
        "-fprog.awk",
        "--file=prog.awk",
        "-i inplace",
        "-E prog.awk",
        "-e '{print}'",
        "--sandbox",
    ] {
        let program = if option.contains("prog") { "" } else { "'{print}'" };
        cases.push(case(
            format!("gawk {option} {program} a.txt"),
            DefaultMode,
            false,
            Want::NotAllowed,
        ));
    }
    // `getline < "FILE"` reads FILE.
    for c in contexts("awk \"BEGIN { getline l < \\\"FILE\\\"; print l }\"")
        .into_iter()
        .take(5)
    {
        cases.push(case(
            c.replace("FILE", "secrets/key.txt"),
            BypassPermissions,
            true,
            Want::Is(D),
        ));
        cases.push(case(
            c.replace("FILE", "/etc/passwd"),
            DefaultMode,
            false,
            Want::Is(Q),
        ));
        cases.push(case(c.replace("FILE", "b.txt"), DefaultMode, false, Want::Is(A)));
    }
    for command in ["awk \"$P\" a.txt", "awk -v x=1 \"{print $X}\" a.txt"] {
        cases.push(case(command, DefaultMode, false, Want::NotAllowed));
    }
    check_all("awk that only prints", &cases);
}

#[test]
fn loops_over_globs_in_the_working_folder_read_only_there() {
    // (sed and awk refuse words only known at run time, loop words too, since one could become
    // `-i` or `-f`: they ask in these loops.)
    let bodies = [
        "wc -l \"$f\"",
        "cat \"$f\"",
        "head -1 \"${f}\"",
        "grep -n x \"$f\"",
        "echo \"$f\"; wc -c \"$f\"",
        "cat $f",
    ];
    let inside = [
        "*.txt",
        "sub/*.rs",
        "a.txt b.txt",
        "*.{txt,md}",
        "./*",
        "{a,b}.txt",
    ];
    let outside = [
        "/etc/*",
        "../*",
        "/etc/passwd",
        "a.txt /etc/passwd",
        "'a.txt /etc/passwd'",
        "~/.ssh/*",
    ];
    let denied = ["secrets/*", "secrets/key.txt", "a.txt secrets/key.txt"];
    let mut cases = Vec::new();
    for body in bodies {
        for values in inside {
            let c = format!("for f in {values}; do {body}; done");
            cases.push(case(c.clone(), DefaultMode, false, Want::Is(A)));
            cases.push(case(format!("ls && {c}"), DefaultMode, false, Want::Is(A)));
            // What else the loop does still counts.
            cases.push(case(
                format!("{c} > out.txt"),
                DefaultMode,
                false,
                Want::NotAllowed,
            ));
        }
        for values in outside {
            let c = format!("for f in {values}; do {body}; done");
            cases.push(case(c.clone(), DefaultMode, false, Want::Is(Q)));
            cases.push(case(c, DontAsk, false, Want::Is(D)));
        }
        for values in denied {
            let c = format!("for f in {values}; do {body}; done");
            cases.push(case(c, BypassPermissions, true, Want::NotAllowed));
        }
        // Anything that may change the variable before it is read makes its value unknown.
        for change in [
            "f=/etc/passwd; ",
            "read f; ",
            "declare f=/etc/passwd; ",
            "export f=/etc/passwd; ",
            "printf -v f /etc/passwd; ",
            "for f in /etc/passwd; do :; done; ",
            "eval 'f=/etc/passwd'; ",
            "IFS=/; ",
            "g() { f=/etc/passwd; }; g; ",
        ] {
            let c = format!("for f in *.txt; do {change}{body}; done");
            cases.push(case(c, DefaultMode, false, Want::NotAllowed));
        }
        // Values only known at run time stay unknown.
        for values in ["$(ls)", "$X", "*.txt $Y", "\"$@\""] {
            let c = format!("for f in {values}; do {body}; done");
            cases.push(case(c, DefaultMode, false, Want::NotAllowed));
        }
        // A script run by another shell does not see the variable.
        let c = format!("for f in *.txt; do bash -c '{}'; done", body.replace('\'', ""));
        cases.push(case(c, DefaultMode, false, Want::NotAllowed));
    }
    check_all("loops over globs", &cases);
}

#[test]
fn brace_expansions_read_every_word() {
    let mut cases = Vec::new();
    for reader in ["cat", "head -1", "wc -l", "grep x", "diff a.txt"] {
        for word in [
            "{/etc/passwd,a.txt}",
            "{a.txt,../x}",
            "a{.txt,/../../../etc/passwd}",
            "/et{c,x}/passwd",
        ] {
            cases.push(case(format!("{reader} {word}"), DefaultMode, false, Want::Is(Q)));
        }
        for word in ["{secrets/key.txt,a.txt}", "{a,secrets/key}.txt", "secrets/{a,b}"] {
            cases.push(case(
                format!("{reader} {word}"),
                BypassPermissions,
                true,
                Want::Is(D),
            ));
        }
        for word in ["{a,b,c}.txt", "{1..3}.txt", "sub/{a,b}/x.rs", "'{x,y}'"] {
            cases.push(case(format!("{reader} {word}"), DefaultMode, false, Want::Is(A)));
        }
    }
    check_all("brace expansions", &cases);
}

#[test]
fn commands_that_never_end_by_themselves_ask() {
    let mut cases = Vec::new();
    for command in [
        "watch ls",
        "watch -n 1 cat a.txt",
        "watch -x ls",
        "watch --interval=2 git status",
        "watch -d -n 5 wc -l a.txt",
        "tail -f a.txt",
        "tail -F a.txt",
        "tail --follow=name a.txt",
        "tail --fol a.txt",
        "tail -n 5 -f a.txt",
        "tail -fn5 a.txt",
        "sleep infinity",
        "sleep inf",
        "sleep INF",
        "sleep +Infinity",
    ] {
        for c in contexts(command) {
            cases.push(case(c.clone(), DefaultMode, false, Want::Is(Q)));
            cases.push(case(c, DontAsk, false, Want::Is(D)));
        }
    }
    for command in [
        "tail -n 5 a.txt",
        "tail a.txt",
        "sleep 1",
        "tail -c 10 a.txt",
        "tail -- -f",
    ] {
        for c in contexts(command) {
            cases.push(case(c, DefaultMode, false, Want::Is(A)));
        }
    }
    check_all("commands that never end", &cases);
}

#[test]
fn the_reason_names_what_made_the_command_ask() {
    let ctx = context(DefaultMode, &[]);
    let reason = |command: &str| evaluation(command, &ctx).reason;
    let got: Vec<(&str, String)> = [
        "grep -f /etc/passwd notes.txt",
        "for f in *.txt; do wc -l \"$f\"; done",
        "for f in /etc/*.conf; do wc -l \"$f\"; done",
        "for f in $(ls); do cat \"$f\"; done",
        "grep \"$P\" notes.txt",
        "wc --files0-from=list.txt",
        "watch ls",
        "tail -f log.txt",
        "sed 's/a/b/w out' a.txt",
        "awk '{system(\"id\")}' a.txt",
    ]
    .into_iter()
    .map(|c| (c, reason(c)))
    .collect();
    let want: Vec<(&str, String)> = vec![
        (
            "grep -f /etc/passwd notes.txt",
            "Bash needs approval: it reads /etc/passwd, outside the working directories".into(),
        ),
        (
            "for f in *.txt; do wc -l \"$f\"; done",
            "it only reads inside the working directories".into(),
        ),
        (
            "for f in /etc/*.conf; do wc -l \"$f\"; done",
            "Bash needs approval: it reads /etc, outside the working directories".into(),
        ),
        (
            "for f in $(ls); do cat \"$f\"; done",
            "Bash needs approval: what it reads depends on `$f`, known only when the command runs".into(),
        ),
        (
            "grep \"$P\" notes.txt",
            "Bash needs approval: what it reads depends on `$P`, known only when the command runs".into(),
        ),
        (
            "wc --files0-from=list.txt",
            "Bash needs approval: what it reads depends on the files listed in list.txt, known only when the \
             command runs"
                .into(),
        ),
        (
            "watch ls",
            "Bash needs approval: no rule allows `watch ls` (`watch` re-runs the command until it is stopped, so \
             it never ends by itself)"
                .into(),
        ),
        (
            "tail -f log.txt",
            "Bash needs approval: no rule allows `tail -f log.txt` (`tail -f` never ends by itself (it runs until \
             it is stopped))"
                .into(),
        ),
        (
            "sed 's/a/b/w out' a.txt",
            "Bash needs approval: no rule allows `sed s/a/b/w out a.txt` (`sed`: the `w` flag of `s` writes a file)"
                .into(),
        ),
        (
            "awk '{system(\"id\")}' a.txt",
            "Bash needs approval: no rule allows `awk {system(\"id\")} a.txt` (`awk`: `system()` runs a command)"
                .into(),
        ),
    ];
    assert_eq!(got, want);
}
