//! Entry point: parse a command line with tree-sitter-bash and collect what it would run.

use std::borrow::Cow;
use std::num::NonZeroUsize;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use lru::LruCache;

use crate::tools::bash::analysis::{CommandAnalysis, LoopValues, SimpleCommand};
use crate::tools::bash::walker::Walker;

/// How many `eval`/`bash -c` levels are followed before giving up (each level re-parses text).
pub(crate) const MAX_SCRIPT_NESTING: usize = 4;

/// How many recent analyses [`analyze_shared`] keeps.
const SHARED_ANALYSES: NonZeroUsize = match NonZeroUsize::new(64) {
    Some(n) => n,
    None => NonZeroUsize::MIN,
};

/// Commands longer than this are analysed each time instead of kept (a model can send megabytes).
const MAX_SHARED_COMMAND_BYTES: usize = 64 * 1024;

/// Recent analyses by command text. Analysis is a pure function of the text, so a kept one is
/// exactly what a new parse would give.
static SHARED: LazyLock<Mutex<LruCache<String, Arc<CommandAnalysis>>>> =
    LazyLock::new(|| Mutex::new(LruCache::new(SHARED_ANALYSES)));

/// [`analyze`], parsed once per command text: every step of a call asks about the same command
/// (the executor's concurrency check, read-only and destructive checks, the permission subject, the
/// sed preview), and a 2 KB compound command takes about half a millisecond to parse and walk, so
/// each step after the first takes the kept analysis.
pub fn analyze_shared(command: &str) -> Arc<CommandAnalysis> {
    if command.len() > MAX_SHARED_COMMAND_BYTES {
        return Arc::new(analyze(command));
    }
    if let Some(kept) = SHARED.lock().unwrap_or_else(PoisonError::into_inner).get(command) {
        return Arc::clone(kept);
    }
    // Parsed outside the lock, so calls analysing different commands run in parallel.
    let analysis = Arc::new(analyze(command));
    SHARED
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .put(command.to_string(), Arc::clone(&analysis));
    analysis
}

/// Analyses one command line as bash would run it. Never fails: anything it cannot model is reported
/// through `understood = false`, with a reason.
pub fn analyze(command: &str) -> CommandAnalysis {
    let mut out = Collector::default();
    analyze_script(command, 0, &mut out);
    keep_trusted_loop_values(&mut out);
    if let Some(reason) = out.arithmetic.unsafe_variable(&out.subcommands) {
        out.fail(reason);
    }
    CommandAnalysis {
        understood: out.reason.is_none(),
        not_understood_reason: out.reason,
        subcommands: out.subcommands,
        write_targets: out.write_targets,
        truncated_targets: out.truncated_targets,
        read_targets: out.read_targets,
        network_targets: out.network_targets,
    }
}

/// What the walk has found so far; shared by nested scripts so their findings merge.
#[derive(Debug, Default)]
pub(crate) struct Collector {
    /// The first reason the input is not understood.
    pub reason: Option<String>,
    /// Simple commands found.
    pub subcommands: Vec<SimpleCommand>,
    /// Files written by redirections.
    pub write_targets: Vec<String>,
    /// Those of `write_targets` that a redirection truncates (`>`, `>|`, `&>`), not appends to.
    pub truncated_targets: Vec<String>,
    /// Variables used in arithmetic and what sets them.
    pub arithmetic: crate::tools::bash::arithmetic::Variables,
    /// Files read by input redirections.
    pub read_targets: Vec<String>,
    /// Network connections opened by redirections.
    pub network_targets: Vec<String>,
    /// The `for` loops whose body is being walked, innermost last.
    pub loops: Vec<LoopScope>,
    /// The variable of every `for` loop met, once per loop.
    pub loop_variables: Vec<String>,
    /// Loop variables named by a word that is not a whole reference to them (`"$f"x` has the text
    /// `$fx`), so their words cannot be told apart by text.
    pub unsure_loop_variables: Vec<String>,
}

/// A `for` loop whose body is being walked.
#[derive(Debug)]
pub(crate) struct LoopScope {
    /// The loop variable.
    pub name: String,
    /// The `eval`/`bash -c` level of the loop: a `bash -c` script in the body does not see the
    /// variable (and an `eval` one is not followed), so only words at this level get its values.
    pub nesting: usize,
    /// The values, when all are known before running.
    pub values: Option<Vec<String>>,
}

impl Collector {
    /// The loops in scope at `nesting` whose variable a whole word of `texts` names.
    pub(crate) fn loop_values_for(&self, texts: &[String], nesting: usize) -> Vec<LoopValues> {
        let mut found: Vec<LoopValues> = Vec::new();
        for scope in self.loops.iter().rev() {
            let Some(values) = &scope.values else {
                continue;
            };
            let named = texts.iter().any(|t| is_whole_reference(t, &scope.name));
            if scope.nesting == nesting && named && !found.iter().any(|f| f.name == scope.name) {
                found.push(LoopValues {
                    name: scope.name.clone(),
                    values: values.clone(),
                });
            }
        }
        found
    }

    /// Marks the input as not understood; the first reason wins because later ones are often
    /// consequences of it.
    pub(crate) fn fail(&mut self, reason: impl Into<String>) {
        if self.reason.is_none() {
            self.reason = Some(reason.into());
        }
    }
}

/// `$name` or `${name}`: the text a word has when it is exactly one reference to `name`.
pub(crate) fn is_whole_reference(text: &str, name: &str) -> bool {
    text.strip_prefix('$')
        .map(|rest| {
            rest.strip_prefix('{')
                .and_then(|r| r.strip_suffix('}'))
                .unwrap_or(rest)
        })
        .is_some_and(|n| n == name)
}

/// Builtins that assign variables named by their arguments (`read f`, `printf -v f`, `declare -n
/// r=f`), and `source`/`.`, which may assign any.
const ASSIGNING_BUILTINS: &[&str] = &[
    "read",
    "printf",
    "let",
    "getopts",
    "mapfile",
    "readarray",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "unset",
    "wait",
];

/// Drops loop values that cannot be trusted: a variable that something in the command may assign
/// (an assignment, a builtin that assigns by name, a second loop over the same name), and every one
/// when `IFS` changes or a file is sourced.
fn keep_trusted_loop_values(out: &mut Collector) {
    let mut unsure: Vec<String> = out.unsure_loop_variables.clone();
    let mut all = false;
    for name in &out.loop_variables {
        if out.loop_variables.iter().filter(|n| *n == name).count() > 1 {
            unsure.push(name.clone());
        }
    }
    for command in &out.subcommands {
        let Some((program, args)) = command.argv.split_first() else {
            continue;
        };
        let program = crate::tools::bash::words::basename(program);
        all |= matches!(program, "source" | ".");
        let assigns_by_name = ASSIGNING_BUILTINS.contains(&program);
        for word in &command.argv {
            if let Some((name, _)) = word.split_once('=') {
                unsure.push(
                    name.trim_end_matches('+')
                        .split('[')
                        .next()
                        .unwrap_or("")
                        .to_string(),
                );
            }
        }
        if assigns_by_name {
            for word in args {
                unsure.extend(
                    word.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .filter(|t| !t.is_empty())
                        .map(str::to_string),
                );
            }
        }
    }
    all |= unsure.iter().any(|n| n == "IFS");
    for command in &mut out.subcommands {
        command
            .run_time
            .loops
            .retain(|l| !all && !unsure.contains(&l.name));
    }
}

/// Parses `source` and walks it into `out`. `nesting` counts enclosing `eval`/`bash -c` levels.
pub(crate) fn analyze_script(source: &str, nesting: usize, out: &mut Collector) {
    if nesting > MAX_SCRIPT_NESTING {
        out.fail("scripts nested through eval or `bash -c` too deeply");
        return;
    }
    let mut parser = tree_sitter::Parser::new();
    if parser.set_language(&tree_sitter_bash::LANGUAGE.into()).is_err() {
        out.fail("the bash grammar could not be loaded");
        return;
    }
    if source.contains('\0') {
        // bash never sees what follows a NUL (C strings), so the text would not be what runs.
        out.fail("the command contains a NUL character");
        return;
    }
    if let Some(at) = continuation_inside_word(source) {
        out.fail(format!(
            "a backslash-newline joins a word at byte {at}; the parser would split it"
        ));
        return;
    }
    let Some(tree) = parser.parse(ascii_stand_in(source).as_bytes(), None) else {
        out.fail("the bash parser gave no result");
        return;
    };
    let root = tree.root_node();
    if let Some(reason) = syntax_problem(root, source) {
        out.fail(reason);
        // Keep walking: the commands that did parse still help deny rules, and `understood` is
        // already false.
    }
    Walker::new(source, nesting, out).statement(root, 0);
}

/// The text handed to the parser: every non-ASCII character replaced by as many `a` bytes as its
/// UTF-8 encoding has, so byte offsets still point into `source`.
///
/// tree-sitter-bash 0.25's scanner calls `isdigit()` and friends on the lookahead code point, which is
/// undefined behaviour above 255 and crashes the process (`{` followed by U+8588D does). bash treats
/// every non-ASCII character as an ordinary word character, as it does `a`, so the parse keeps its
/// shape; all text is read back from the original, and variable names are validated on it.
fn ascii_stand_in(source: &str) -> Cow<'_, str> {
    if source.is_ascii() {
        return Cow::Borrowed(source);
    }
    let mut out = String::with_capacity(source.len());
    for c in source.chars() {
        if c.is_ascii() {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('a', c.len_utf8()));
        }
    }
    Cow::Owned(out)
}

/// Finds a line continuation (`\\` + newline) with non-space text on both sides. bash joins the two
/// halves into one word (`tr\\⏎uncate` runs `truncate`), but tree-sitter-bash treats the
/// continuation as a word break and would see `tr uncate`. Inside quotes this over-matches, which
/// only costs an "ask".
fn continuation_inside_word(source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut backslashes = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b == b'\n' && backslashes % 2 == 1 {
            let before = i.checked_sub(backslashes + 1).and_then(|j| bytes.get(j));
            let after = bytes.get(i + 1);
            let solid = |c: Option<&u8>| c.is_some_and(|c| !c.is_ascii_whitespace());
            if solid(before) && solid(after) {
                return Some(i);
            }
        }
        backslashes = if b == b'\\' { backslashes + 1 } else { 0 };
    }
    None
}

/// Finds the first syntax error or missing token, iteratively (the tree can be deep). The one error
/// accepted is tree-sitter-bash's parse of the read-write redirection `<>`, which it splits into `<`
/// and an ERROR `>`; the walker treats that pair as a write.
fn syntax_problem(root: tree_sitter::Node, source: &str) -> Option<String> {
    let mut cursor = root.walk();
    loop {
        let node = cursor.node();
        if !source.is_char_boundary(node.start_byte()) || !source.is_char_boundary(node.end_byte()) {
            return Some(format!(
                "a `{}` begins or ends inside a multi-byte character at byte {}",
                node.kind(),
                node.start_byte()
            ));
        }
        if node.is_missing() {
            return Some(format!(
                "syntax error: `{}` is missing at byte {}",
                node.kind(),
                node.start_byte()
            ));
        }
        if matches!(node.kind(), "command" | "redirected_statement")
            && let Some(at) = line_break_between_children(node, source)
        {
            // bash ends a command at an unescaped line break; the grammar sometimes carries the
            // next line's words on as arguments (`a | b | echo $(c)` then `! rm x > f`), which
            // would hide that line's command from every rule.
            return Some(format!(
                "the parser joined two lines into one command at byte {at}"
            ));
        }
        if node.is_error() && !is_read_write_operator(node) {
            let text: String = node
                .utf8_text(source.as_bytes())
                .unwrap_or("")
                .chars()
                .take(40)
                .collect();
            return Some(format!(
                "syntax error near `{text}` at byte {}",
                node.start_byte()
            ));
        }
        if cursor.goto_first_child() {
            continue;
        }
        while !cursor.goto_next_sibling() {
            if !cursor.goto_parent() {
                return None;
            }
        }
    }
}

/// Where a line break that is not a backslash-newline separates two parts of `node` (a
/// command's words and redirections), which bash would have run as two commands.
fn line_break_between_children(node: tree_sitter::Node, source: &str) -> Option<usize> {
    let bytes = source.as_bytes();
    let mut cursor = node.walk();
    let mut previous_end = None;
    for child in node.children(&mut cursor) {
        if let Some(end) = previous_end {
            let gap = bytes.get(end..child.start_byte()).unwrap_or_default();
            let joined = gap
                .iter()
                .enumerate()
                .find(|&(i, &b)| b == b'\n' && (i == 0 || gap[i - 1] != b'\\'));
            if let Some((i, _)) = joined {
                return Some(end + i);
            }
        }
        previous_end = Some(child.end_byte());
    }
    None
}

/// The ERROR node of `<>`: a lone `>` right after `<` inside a file redirection.
pub(crate) fn is_read_write_operator(node: tree_sitter::Node) -> bool {
    node.is_error()
        && node.end_byte() == node.start_byte() + 1
        && node.child_count() == 1
        && node.child(0).is_some_and(|c| c.kind() == ">")
        && node.parent().is_some_and(|p| p.kind() == "file_redirect")
        && node
            .prev_sibling()
            .is_some_and(|p| p.kind() == "<" && p.end_byte() == node.start_byte())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shared_analysis_is_the_fresh_one_and_is_kept_once() {
        let command = "git status && cat README.md | grep -c shared-analysis-test > /tmp/x";
        let first = analyze_shared(command);
        assert_eq!(*first, analyze(command));
        let second = analyze_shared(command);
        assert!(
            Arc::ptr_eq(&first, &second),
            "the second ask takes the kept analysis"
        );
        let other = analyze_shared("ls shared-analysis-test");
        assert_eq!(*other, analyze("ls shared-analysis-test"));
        assert!(!Arc::ptr_eq(&first, &other));
    }

    #[test]
    fn a_huge_command_is_analysed_but_not_kept() {
        let command = format!("echo {}", "a".repeat(MAX_SHARED_COMMAND_BYTES));
        let first = analyze_shared(&command);
        assert_eq!(*first, analyze(&command));
        assert!(!Arc::ptr_eq(&first, &analyze_shared(&command)));
    }
}
