//! Programs that run another command, in every spelling their option parsers accept (`--`,
//! clustered and attached options, options with values): the wrapped command meets deny and ask
//! rules whatever the spelling.

use nerve::permissions::PermissionMode::{BypassPermissions, Default as DefaultMode, DontAsk};
use nerve::permissions::RuleBehavior::{Allow, Ask, Deny};
use nerve::permissions::RuleBehavior::{Allow as A, Ask as Q, Deny as D};

use super::{Want, case, check_all};

/// Every wrapper with the spellings of its options; `{c}` is the wrapped command.
const SPELLINGS: &[&str] = &[
    "command {c}",
    "command -- {c}",
    "command -p {c}",
    "command -p -- {c}",
    "command -pp -- {c}",
    "builtin {c}",
    "builtin -- {c}",
    "exec {c}",
    "exec -- {c}",
    "exec -c {c}",
    "exec -l {c}",
    "exec -cl -- {c}",
    "exec -a NAME {c}",
    "exec -aNAME {c}",
    "exec -c -a NAME -- {c}",
    "exec -la NAME {c}",
    "nice {c}",
    "nice -- {c}",
    "nice -n 5 {c}",
    "nice -n 5 -- {c}",
    "nice -n5 -- {c}",
    "nice -5 -- {c}",
    "nice --adjustment=5 -- {c}",
    "nice --adjustment 5 {c}",
    "nohup {c}",
    "nohup -- {c}",
    "env {c}",
    "env -- {c}",
    "env -i {c}",
    "env -i -- {c}",
    "env - {c}",
    "env --ignore-environment {c}",
    "env -u HOME {c}",
    "env -uHOME -- {c}",
    "env --unset=HOME {c}",
    "env --unset HOME -- {c}",
    "env -0 -v {c}",
    "env --debug {c}",
    "env --block-signal {c}",
    "env --ignore-signal=INT -- {c}",
    "env A=1 {c}",
    "env -i A=1 {c}",
    "env -- A=1 {c}",
    "env -S '{c}'",
    "env -S'{c}'",
    "env --split-string='{c}'",
    "env -S '-i {c}'",
    "env -C /tmp {c}",
    "env --chdir=/tmp {c}",
    "timeout 5 {c}",
    "timeout -- 5 {c}",
    "timeout -s KILL 5 {c}",
    "timeout -sKILL -- 5 {c}",
    "timeout --signal=TERM -k 1 -- 5s {c}",
    "timeout --kill-after 1 --foreground --preserve-status 5 {c}",
    "timeout -v 5 {c}",
    "time {c}",
    "time -p {c}",
    "time -p -- {c}",
    "time -- {c}",
    "stdbuf -oL {c}",
    "stdbuf -oL -- {c}",
    "stdbuf -o L -e 0 -- {c}",
    "stdbuf --output=L {c}",
    "xargs -- {c}",
    "xargs -0 -- {c}",
    "setsid -- {c}",
    "ionice -c 3 -- {c}",
    "taskset -- 1 {c}",
    "sudo -- {c}",
    "sudo -u root -- {c}",
    "busybox {c}",
];

/// Spellings of the command that the rules name.
const DENIED: &[&str] = &["rm a.txt", "/bin/rm a.txt", "rm -rf build", "\\rm a.txt"];

#[test]
fn wrapped_commands_meet_deny_and_ask_rules_in_every_spelling() {
    let mut cases = Vec::new();
    for spelling in SPELLINGS {
        for inner in DENIED {
            // The split string of `env -S` is judged as words, and a quote there is not plain text.
            if spelling.contains("-S") && inner.contains('\\')
                || spelling.contains("split") && inner.contains('\\')
            {
                continue;
            }
            let once = spelling.replace("{c}", inner);
            for cmd in [
                once.clone(),
                format!("timeout 5 {once}"),
                format!("true && {once}"),
            ] {
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
                    DontAsk,
                    &[(Allow, "Bash"), (Deny, "Bash(rm *)")],
                    Want::Is(D),
                ));
                cases.push(case(
                    cmd.clone(),
                    BypassPermissions,
                    &[(Ask, "Bash(rm *)")],
                    Want::Is(Q),
                ));
                cases.push(case(
                    cmd.clone(),
                    DefaultMode,
                    &[(Allow, "Bash"), (Ask, "Bash(rm *)")],
                    Want::Is(Q),
                ));
                cases.push(case(
                    cmd,
                    DefaultMode,
                    &[(Allow, "Bash(git *)")],
                    Want::NotAllowed,
                ));
            }
        }
    }
    check_all("wrapped commands meet deny and ask rules", &cases);
}

#[test]
fn wrappers_that_only_change_how_a_command_runs_keep_its_allow_rule() {
    let transparent = [
        "command -- {c}",
        "command -p -- {c}",
        "builtin -- {c}",
        "exec -c -- {c}",
        "nice -n 5 -- {c}",
        "nohup -- {c}",
        "env -- {c}",
        "env -u HOME -- {c}",
        "env -S '{c}'",
        "timeout -- 5 {c}",
        "time -p -- {c}",
        "stdbuf -oL -- {c}",
    ];
    let mut cases = Vec::new();
    for spelling in transparent {
        let cmd = spelling.replace("{c}", "git status");
        cases.push(case(
            cmd.clone(),
            DefaultMode,
            &[(Allow, "Bash(git status)")],
            Want::Is(A),
        ));
        // And a lookup is not a run: `command -v` only prints where the program is.
        cases.push(case(cmd, DefaultMode, &[], Want::Is(A)));
    }
    for lookup in [
        "command -v rm",
        "command -V rm",
        "command -pv rm",
        "command -p -V -- rm",
    ] {
        cases.push(case(
            lookup,
            BypassPermissions,
            &[(Deny, "Bash(rm *)")],
            Want::Is(A),
        ));
    }
    // Renaming the program is not transparent: a rule must name it.
    cases.push(case(
        "exec -a x git status",
        DefaultMode,
        &[(Allow, "Bash(git status)")],
        Want::Is(Q),
    ));
    check_all("transparent wrappers", &cases);
}
