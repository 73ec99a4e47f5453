//! Property tests: `analyze` never panics, and commands generated from a small grammar are judged
//! read-only exactly when they contain only read-only parts.

use proptest::prelude::*;

use crate::tools::bash::{analyze, fallback_segments};

/// Programs that write, delete or run arbitrary code.
const DANGEROUS: &[&str] = &["rm", "mv", "cp", "curl", "sh", "python", "tee", "dd", "chmod"];

/// Read-only (or neutral) commands with fixed, harmless arguments.
const SAFE: &[&str] = &[
    "ls",
    "cat a",
    "grep -n x",
    "git status",
    "echo hi",
    "wc -l",
    "head -n 1",
];

/// Wrappers that must be seen through.
const WRAPPERS: &[&str] = &[
    "",
    "timeout 5 ",
    "nice -n 2 ",
    "nohup ",
    "env LC_ALL=C ",
    "TZ=UTC ",
    "time ",
    "command ",
    "stdbuf -oL ",
    "builtin ",
];

/// Redirections that write a file.
const WRITES: &[&str] = &[
    " > out", " >> out", " 2> err", " &> out", " >| out", " 3<> rw", " >& out",
];

/// Redirections that write nothing that matters.
const HARMLESS: &[&str] = &["", " > /dev/null", " 2>&1", " 2>/dev/null", " < in"];

const OPERATORS: &[&str] = &[" && ", " || ", "; ", " | ", " |& ", " & ", "\n"];

/// Ways of writing a program name that all run the same program.
fn spell(program: &str, style: usize) -> String {
    let (head, tail) = program.split_at(1);
    match style % 6 {
        0 => program.to_string(),
        1 => format!("\\{program}"),
        2 => format!("'{program}'"),
        3 => format!("\"{program}\""),
        4 => format!("/usr/bin/{program}"),
        _ => format!("{head}''{tail}"),
    }
}

/// One simple command: (text, is it dangerous, does it write through a redirection).
fn leaf() -> impl Strategy<Value = (String, bool, bool)> {
    (
        any::<bool>(),
        0..DANGEROUS.len().max(SAFE.len()),
        0..6usize,
        0..WRAPPERS.len(),
        any::<bool>(),
        0..WRITES.len().max(HARMLESS.len()),
    )
        .prop_map(|(dangerous, which, style, wrapper, writes, redirect)| {
            let (program, rest) = if dangerous {
                (DANGEROUS[which % DANGEROUS.len()], " x")
            } else {
                let safe = SAFE[which % SAFE.len()];
                safe.split_once(' ').map_or((safe, ""), |(p, r)| (p, r))
            };
            let rest = if dangerous || rest.is_empty() {
                rest.to_string()
            } else {
                format!(" {rest}")
            };
            let redirect = if writes {
                WRITES[redirect % WRITES.len()]
            } else {
                HARMLESS[redirect % HARMLESS.len()]
            };
            let text = format!("{}{}{rest}{redirect}", WRAPPERS[wrapper], spell(program, style));
            (text, dangerous, writes)
        })
}

/// Puts a leaf into a compound construct; every construct still runs the leaf.
fn wrap(text: &str, how: usize) -> String {
    match how % 10 {
        0 => text.to_string(),
        1 => format!("( {text} )"),
        2 => format!("{{ {text}; }}"),
        3 => format!("echo $( {text} )"),
        4 => format!("if {text}; then echo y; fi"),
        5 => format!("for i in a b; do {text}; done"),
        6 => format!("while {text}; do echo y; done"),
        7 => format!("case x in x) {text};; esac"),
        8 => format!("f() {{ {text}; }}"),
        _ => format!("! {text}"),
    }
}

/// A compound command and the truth about it: (text, has a dangerous part, has a write).
fn compound() -> impl Strategy<Value = (String, bool, bool)> {
    prop::collection::vec((leaf(), 0..10usize, 0..OPERATORS.len()), 1..5).prop_map(|parts| {
        let mut text = String::new();
        let mut dangerous = false;
        let mut writes = false;
        for (i, ((leaf, d, w), how, op)) in parts.into_iter().enumerate() {
            if i > 0 {
                text.push_str(OPERATORS[op]);
            }
            text.push_str(&wrap(&leaf, how));
            dangerous |= d;
            writes |= w;
        }
        (text, dangerous, writes)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(600))]

    #[test]
    fn never_panics_on_arbitrary_text(input in ".{0,200}") {
        let analysis = analyze(&input);
        // A not-understood analysis can never be read-only.
        prop_assert!(analysis.understood || !analysis.is_read_only());
        let _ = fallback_segments(&input);
    }

    #[test]
    fn never_panics_on_shell_like_text(input in r#"[a-z $(){}<>|&;'"`\\\n=*!\[\]#-]{0,80}"#) {
        let analysis = analyze(&input);
        prop_assert!(analysis.understood || !analysis.is_read_only());
    }

    #[test]
    fn dangerous_parts_or_writes_are_never_read_only((text, dangerous, writes) in compound()) {
        let analysis = analyze(&text);
        if dangerous || writes {
            prop_assert!(!analysis.is_read_only(), "{text:?} judged read-only: {analysis:?}");
        }
    }

    #[test]
    fn all_safe_parts_are_read_only((text, dangerous, writes) in compound()) {
        let analysis = analyze(&text);
        if !dangerous && !writes {
            prop_assert!(analysis.is_read_only(), "{text:?} not read-only: {analysis:?}");
        }
    }

    #[test]
    fn dangerous_programs_appear_canonically((text, dangerous, _writes) in compound()) {
        // Whatever the spelling or wrapper, a deny rule on the bare program name must be able to match.
        let analysis = analyze(&text);
        if dangerous && analysis.understood {
            prop_assert!(
                analysis.subcommands.iter().any(|c| {
                    let program = c.canonical.split(' ').next().unwrap_or("");
                    DANGEROUS.contains(&program)
                }),
                "{text:?}: {analysis:?}"
            );
        }
    }
}
