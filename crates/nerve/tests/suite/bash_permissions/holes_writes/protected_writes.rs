//! Writes to protected paths ask in every mode whatever the allow rules say, however the command
//! writes: a redirection, `tee`, `cp`/`mv`/`install`/`ln` destinations, `sed -i`, `dd of=`,
//! `touch`, `truncate`, `sort -o`, `curl -o`, run as themselves or through a wrapper.

use nerve::permissions::PermissionMode::{
    AcceptEdits, Auto, BypassPermissions, Default as DefaultMode, DontAsk, Plan,
};
use nerve::permissions::RuleBehavior::Allow;
use nerve::permissions::RuleBehavior::{Allow as A, Ask as Q, Deny as D};

use super::{Want, case, check_all};

/// Protected files, relative to the project (`/work/proj`).
const PROTECTED: &[&str] = &[
    ".git/config",
    ".git/hooks/pre-commit",
    ".nerve/settings.json",
    ".claude/settings.local.json",
    ".bashrc",
    ".zshrc",
    ".gitmodules",
    ".mcp.json",
    ".vscode/tasks.json",
    ".husky/pre-commit",
    "sub/.git/config",
];

/// Spellings of the same path.
fn spellings(path: &str) -> Vec<String> {
    let upper_first = match path.split_once('/') {
        Some((dir, rest)) => format!("{}/{rest}", dir.to_uppercase()),
        None => path.to_uppercase(),
    };
    vec![
        path.to_string(),
        format!("./{path}"),
        format!("../proj/{path}"),
        format!("/work/proj/{path}"),
        format!("sub/../{path}"),
        format!(".//{path}"),
        upper_first,
    ]
}

/// Writers: `{t}` is the file written, `{d}` its folder and `{n}` its name; the rule allows the
/// program.
const WRITERS: &[(&str, &str)] = &[
    ("tee {t} < x", "Bash(tee *)"),
    ("tee -a {t} < x", "Bash(tee *)"),
    ("tee --append {t} < x", "Bash(tee *)"),
    ("tee -ai -- {t} < x", "Bash(tee *)"),
    ("echo x | tee -p out.log {t}", "Bash(tee *)"),
    ("cp x {t}", "Bash(cp *)"),
    ("cp -f --backup=numbered x {t}", "Bash(cp *)"),
    ("cp -t {d} {n}", "Bash(cp *)"),
    ("cp --target-directory={d} {n}", "Bash(cp *)"),
    ("cp -r src/{n} {d}/", "Bash(cp *)"),
    ("mv x {t}", "Bash(mv *)"),
    ("mv -t {d} {n}", "Bash(mv *)"),
    ("mv {t} x", "Bash(mv *)"),
    ("install x {t}", "Bash(install *)"),
    ("install -D -m 755 x {t}", "Bash(install *)"),
    ("install -t {d} {n}", "Bash(install *)"),
    ("ln -sf x {t}", "Bash(ln *)"),
    ("ln x {t}", "Bash(ln *)"),
    ("ln -s {t} innocent", "Bash(ln *)"),
    ("dd of={t}", "Bash(dd *)"),
    ("dd if=x of={t} bs=1 conv=notrunc", "Bash(dd *)"),
    ("sed -i s/a/b/ {t}", "Bash(sed *)"),
    ("sed -i.bak -e s/a/b/ {t}", "Bash(sed *)"),
    ("sed --in-place -E s/a/b/ {t}", "Bash(sed *)"),
    ("sed -ni s/a/b/p {t}", "Bash(sed *)"),
    ("echo x > {t}", "Bash(echo *)"),
    ("echo x >> {t}", "Bash(echo *)"),
    ("echo x >| {t}", "Bash(echo *)"),
    ("echo x &> {t}", "Bash(echo *)"),
    ("echo x 2>> {t}", "Bash(echo *)"),
    ("touch {t}", "Bash(touch *)"),
    ("truncate -s 0 {t}", "Bash(truncate *)"),
    ("sort -o {t} x", "Bash(sort *)"),
    ("curl -sSLo {t} https://example.com/x", "Bash(curl *)"),
    ("wget -O {t} https://example.com/x", "Bash(wget *)"),
    ("rm -f {t}", "Bash(rm *)"),
    // Through wrappers and runners.
    ("nice -n 5 tee -a {t} < x", "Bash(tee *)"),
    ("timeout -- 5 cp x {t}", "Bash(cp *)"),
    ("command -- tee {t} < x", "Bash(tee *)"),
    ("env -i tee {t} < x", "Bash(tee *)"),
    ("sudo tee -a {t} < x", "Bash(sudo tee *)"),
    ("xargs -0 cp -t {d} < list", "Bash"),
    ("find . -name x -exec cp {} {t} \\;", "Bash"),
    ("bash -c 'tee -a {t} < x'", "Bash(tee *)"),
    ("true && tee {t} < x", "Bash(tee *)"),
];

fn fill(form: &str, target: &str) -> String {
    let (dir, name) = target.rsplit_once('/').unwrap_or((".", target));
    form.replace("{t}", target)
        .replace("{d}", dir)
        .replace("{n}", name)
}

#[test]
fn writes_to_protected_paths_ask_in_every_mode_whatever_the_rules() {
    let mut cases = Vec::new();
    for (form, rule) in WRITERS {
        for path in PROTECTED {
            for target in spellings(path) {
                let cmd = fill(form, &target);
                for mode in [DefaultMode, AcceptEdits, BypassPermissions, Auto] {
                    cases.push(case(cmd.clone(), mode, &[(Allow, rule)], Want::Is(Q)));
                    cases.push(case(cmd.clone(), mode, &[(Allow, "Bash")], Want::Is(Q)));
                    cases.push(case(
                        cmd.clone(),
                        mode,
                        &[(Allow, rule), (Allow, "Edit(/**)")],
                        Want::Is(Q),
                    ));
                }
                cases.push(case(cmd.clone(), DontAsk, &[(Allow, rule)], Want::Is(D)));
                cases.push(case(cmd, Plan, &[(Allow, rule)], Want::NotAllowed));
            }
        }
    }
    check_all("writes to protected paths", &cases);
}

#[test]
fn the_same_writes_to_ordinary_paths_follow_the_rules() {
    let mut cases = Vec::new();
    // Names that `xargs` and `find -exec` supply are only known at run time: those always ask (see
    // below).
    let known_names = WRITERS
        .iter()
        .filter(|(form, _)| !form.contains("xargs") && !form.contains("find"));
    for (form, rule) in known_names {
        for target in ["notes/out.txt", "./out.txt", "/work/proj/build/out.bin"] {
            let cmd = fill(form, target);
            // Redirections also need an Edit rule, as the Write tool would.
            cases.push(case(
                cmd.clone(),
                DefaultMode,
                &[(Allow, rule), (Allow, "Edit(/**)")],
                Want::Is(A),
            ));
            cases.push(case(cmd.clone(), BypassPermissions, &[], Want::Is(A)));
        }
    }
    check_all("writes to ordinary paths", &cases);
}

#[test]
fn destinations_known_only_at_run_time_ask() {
    let mut cases = Vec::new();
    let forms = [
        ("F=.git/config; tee -a $F < x", "Bash(tee *)"),
        ("tee \"$F\" < x", "Bash(tee *)"),
        ("tee -a $(echo .git/config) < x", "Bash(tee *)"),
        ("cp x \"$DEST\"", "Bash(cp *)"),
        ("cp -t \"$DIR\" x", "Bash(cp *)"),
        ("cp .b* ~/", "Bash(cp *)"),
        ("install -D x ${HOOKS}/pre-commit", "Bash(install *)"),
        ("ln -sf x $L", "Bash(ln *)"),
        ("dd of=$OUT", "Bash(dd *)"),
        ("sed -i s/a/b/ $F", "Bash(sed *)"),
        ("touch `cat name`", "Bash(touch *)"),
        ("xargs tee -a < list", "Bash(tee *)"),
        ("xargs cp x < list", "Bash(cp *)"),
        ("xargs -0 cp -t out < list", "Bash(cp *)"),
        ("find . -exec tee {} \\; < x", "Bash(tee *)"),
        ("curl -O https://example.com/x", "Bash(curl *)"),
    ];
    for (cmd, rule) in forms {
        for mode in [DefaultMode, AcceptEdits, BypassPermissions] {
            cases.push(case(cmd, mode, &[(Allow, rule)], Want::Is(Q)));
            cases.push(case(cmd, mode, &[(Allow, "Bash")], Want::Is(Q)));
        }
        cases.push(case(cmd, DontAsk, &[(Allow, rule)], Want::Is(D)));
    }
    // Globs that match no dot file land only where the folder says.
    cases.push(case(
        "cp *.txt out/",
        DefaultMode,
        &[(Allow, "Bash(cp *)")],
        Want::Is(A),
    ));
    cases.push(case(
        "cp *.txt .git/",
        DefaultMode,
        &[(Allow, "Bash(cp *)")],
        Want::Is(Q),
    ));
    check_all("destinations known only at run time", &cases);
}
