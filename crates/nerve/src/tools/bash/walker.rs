//! Walks a tree-sitter-bash tree with an allow-list of node kinds. Every kind not handled here makes
//! the command "not understood": new grammar features fail closed.

use tree_sitter::Node;

use crate::tools::bash::analysis::{CommandClass, RunTimeWords, SimpleCommand};
use crate::tools::bash::analyze::{
    Collector, LoopScope, analyze_script, is_read_write_operator, is_whole_reference,
};
use crate::tools::bash::arithmetic::{is_number_sequence, is_number_text};
use crate::tools::bash::classify::classify;
use crate::tools::bash::env_names::{EnvKind, env_kind, is_sensitive, is_valid_name};
use crate::tools::bash::runners::{exec_clauses, guarded_reason};
use crate::tools::bash::words::{
    Word, basename, decode_ansi_c, has_unparsed_substitution, is_system_program, unquote_bare, unquote_double,
};
use crate::tools::bash::wrappers::{Assignment, Resolution, resolve_with_inputs};

/// Deepest tree accepted; the walk is recursive and must not exhaust the stack on hostile input.
const MAX_DEPTH: usize = 200;

/// Redirection targets that write nowhere that matters.
const HARMLESS_TARGETS: &[&str] = &[
    "/dev/null",
    "/dev/stdout",
    "/dev/stderr",
    "/dev/fd/1",
    "/dev/fd/2",
];

/// Input redirection sources that read nothing that matters.
const HARMLESS_SOURCES: &[&str] = &["/dev/null", "/dev/stdin", "/dev/fd/0", "/dev/zero"];

/// Whether bash opens a network connection for this redirection target instead of a file. bash
/// compares the text after expansion, but `/dev//tcp/...` is caught too (a lexical look-alike is
/// cheap to refuse).
pub(crate) fn is_network_path(target: &str) -> bool {
    let mut parts = target.split('/').filter(|p| !p.is_empty() && *p != ".");
    target.starts_with('/') && parts.next() == Some("dev") && matches!(parts.next(), Some("tcp" | "udp"))
}

/// Operators that assign inside arithmetic; they make `$(( ))` change variables.
const ARITHMETIC_ASSIGN: &[&str] = &[
    "=", "+=", "-=", "*=", "/=", "%=", "<<=", ">>=", "&=", "^=", "|=", "++", "--",
];

/// Parameter-expansion operators that only read the variable. Excluded on purpose: `=`/`:=` assign,
/// `:` (substring) and subscripts evaluate arithmetic, `!` (indirection) and `@` (transformations,
/// `@P` expands prompts with command substitution) can run code hidden in a value.
const EXPANSION_TOKENS: &[&str] = &[
    "${", "}", "#", "##", "%", "%%", "-", ":-", "+", ":+", "?", ":?", "/", "//", "/#", "/%",
];

/// Arithmetic comparisons of `[[ ]]`, which evaluate variable values as arithmetic expressions.
const ARITHMETIC_TESTS: &[&str] = &["-eq", "-ne", "-lt", "-le", "-gt", "-ge"];

/// The walk over one parsed script.
pub(crate) struct Walker<'s, 'c> {
    src: &'s str,
    nesting: usize,
    out: &'c mut Collector,
}

/// A child of a node with its field name.
type Child<'t> = (Option<&'static str>, Node<'t>);

fn children(node: Node<'_>) -> Vec<Child<'_>> {
    let mut cursor = node.walk();
    let mut found = Vec::new();
    if cursor.goto_first_child() {
        loop {
            found.push((cursor.field_name(), cursor.node()));
            if !cursor.goto_next_sibling() {
                break;
            }
        }
    }
    found
}

fn is_redirect(kind: &str) -> bool {
    matches!(kind, "file_redirect" | "heredoc_redirect" | "herestring_redirect")
}

impl<'s, 'c> Walker<'s, 'c> {
    /// A walker that writes its findings into `out`.
    pub(crate) fn new(src: &'s str, nesting: usize, out: &'c mut Collector) -> Self {
        Self { src, nesting, out }
    }

    fn text(&self, node: Node<'_>) -> &'s str {
        self.src.get(node.byte_range()).unwrap_or("")
    }

    fn too_deep(&mut self, depth: usize) -> bool {
        if depth > MAX_DEPTH {
            self.out.fail("the command is nested too deeply to analyse");
            return true;
        }
        false
    }

    fn unsupported(&mut self, node: Node<'_>) {
        let text: String = self.text(node).chars().take(40).collect();
        self.out.fail(format!(
            "shell syntax `{}` (in `{text}`) is not modelled",
            node.kind()
        ));
    }

    /// Walks a statement or a container of statements.
    pub(crate) fn statement(&mut self, node: Node<'_>, depth: usize) {
        if self.too_deep(depth) {
            return;
        }
        match node.kind() {
            "program"
            | "list"
            | "pipeline"
            | "subshell"
            | "do_group"
            | "else_clause"
            | "elif_clause"
            | "negated_command"
            | "if_statement"
            | "while_statement"
            | "variable_assignments" => self.statements(node, depth),
            "compound_statement" => {
                if node.child(0).is_some_and(|c| c.kind() == "((") {
                    self.out.fail("arithmetic commands `(( ))` are not modelled");
                } else {
                    self.statements(node, depth);
                }
            }
            "redirected_statement" | "function_definition" => {
                for (field, child) in children(node) {
                    if !child.is_named() || field == Some("name") {
                        continue;
                    }
                    if is_redirect(child.kind()) {
                        self.redirect(child, depth + 1);
                    } else {
                        self.statement(child, depth + 1);
                    }
                }
            }
            "for_statement" => self.for_loop(node, depth),
            "case_statement" | "case_item" => self.case(node, depth),
            "command" => self.command(node, depth),
            "variable_assignment" => {
                let assignment = self.assignment(node, depth);
                if let Some(a) = &assignment {
                    let number = self.is_number_value(node);
                    self.out.arithmetic.set(&a.name, number);
                }
                self.finish(Vec::new(), assignment.into_iter().collect(), depth);
            }
            "declaration_command" | "unset_command" => self.declaration(node, depth),
            "test_command" => self.test(node, depth),
            "comment" => {}
            _ => self.unsupported(node),
        }
    }

    /// Walks every named child as a statement.
    fn statements(&mut self, node: Node<'_>, depth: usize) {
        for (_, child) in children(node) {
            if child.is_named() {
                self.statement(child, depth + 1);
            }
        }
    }

    fn for_loop(&mut self, node: Node<'_>, depth: usize) {
        // The loop variable is a number only when every word it takes is one (`for i in 1 2 3`,
        // `for i in {1..10}`); `for i; do` takes the positional parameters.
        let all = children(node);
        let values: Vec<Node<'_>> = all
            .iter()
            .filter(|(f, c)| *f == Some("value") && c.is_named())
            .map(|(_, c)| *c)
            .collect();
        let numbers = !values.is_empty()
            && values.iter().all(|v| {
                let text = self.text(*v);
                is_number_text(text) || (v.kind() == "brace_expression" && is_number_sequence(text))
            });
        if let Some((_, name)) = all.iter().find(|(f, _)| *f == Some("variable")) {
            let name = self.text(*name).to_string();
            self.out.arithmetic.set(&name, numbers);
        }
        let mut variable = None;
        // The values, while all are known before running; none at all means `"$@"`.
        let mut values = Some(Vec::new());
        for (field, child) in all {
            if !child.is_named() {
                continue;
            }
            match field {
                Some("variable") => {
                    let name = self.text(child);
                    if !is_valid_name(name) {
                        self.out.fail(format!("`{name}` is not a valid loop variable"));
                    } else if is_sensitive(name) {
                        self.out.fail(format!(
                            "the loop assigns `{name}`, which changes what later commands run"
                        ));
                    }
                    self.out.loop_variables.push(name.to_string());
                    variable = Some(name.to_string());
                }
                Some("value") => {
                    let word = self.word(child, depth + 1);
                    match values.as_mut() {
                        Some(known) if !word.dynamic => known.push(word.text),
                        Some(_) | None => values = None,
                    }
                }
                Some(_) | None => {
                    // The body: words naming the variable whole get the loop's values.
                    let Some(name) = variable.clone() else {
                        self.statement(child, depth + 1);
                        continue;
                    };
                    self.out.loops.push(LoopScope {
                        name,
                        nesting: self.nesting,
                        values: values.clone().filter(|v| !v.is_empty()),
                    });
                    self.statement(child, depth + 1);
                    self.out.loops.pop();
                }
            }
        }
    }

    /// Notes a loop variable whose words cannot be told apart by text: a word with the text of a
    /// whole reference (`$fx`) that is written otherwise (`"$f"x`).
    fn note_unsure_reference(&mut self, node: Node<'_>, word: &Word) {
        if !word.dynamic {
            return;
        }
        let source = self.text(node);
        let unquoted = source
            .strip_prefix('"')
            .and_then(|s| s.strip_suffix('"'))
            .unwrap_or(source);
        let unsure: Vec<String> = self
            .out
            .loops
            .iter()
            .filter(|scope| is_whole_reference(&word.text, &scope.name) && unquoted != word.text)
            .map(|scope| scope.name.clone())
            .collect();
        self.out.unsure_loop_variables.extend(unsure);
    }

    fn case(&mut self, node: Node<'_>, depth: usize) {
        for (field, child) in children(node) {
            if !child.is_named() {
                continue;
            }
            match (field, child.kind()) {
                (Some("value"), _) => {
                    self.word(child, depth + 1);
                }
                (_, "case_item") => self.case(child, depth + 1),
                _ => self.statement(child, depth + 1),
            }
        }
    }

    fn command(&mut self, node: Node<'_>, depth: usize) {
        let mut assignments = Vec::new();
        let mut words = Vec::new();
        for (field, child) in children(node) {
            if !child.is_named() {
                continue;
            }
            match child.kind() {
                "variable_assignment" if words.is_empty() => {
                    if let Some(a) = self.assignment(child, depth + 1) {
                        assignments.push(a);
                    }
                }
                kind if is_redirect(kind) => self.redirect(child, depth + 1),
                "command_name" => match child.named_child(0) {
                    Some(name) if child.named_child_count() == 1 => words.push(self.word(name, depth + 1)),
                    Some(_) | None => self.unsupported(child),
                },
                "comment" => {}
                _ if field == Some("argument") => {
                    let word = self.word(child, depth + 1);
                    self.note_unsure_reference(child, &word);
                    words.push(word);
                }
                _ => self.unsupported(child),
            }
        }
        self.finish(words, assignments, depth);
    }

    /// Turns the words of one simple command into subcommands (following `eval`/`bash -c`).
    fn finish(&mut self, words: Vec<Word>, assignments: Vec<Assignment>, depth: usize) {
        self.finish_command(words, assignments, depth, false);
    }

    /// [`Walker::finish`] for a command that may also be one run by another program per result
    /// (`find -exec`), whose arguments then get values at run time (`fed`).
    fn finish_command(&mut self, words: Vec<Word>, assignments: Vec<Assignment>, depth: usize, fed: bool) {
        if self.too_deep(depth) {
            return;
        }
        let mut inputs = Vec::new();
        let resolution = resolve_with_inputs(words, assignments, &mut inputs);
        // `xargs -a FILE` reads FILE as `< FILE` would.
        for input in &inputs {
            self.read_target(Some(input), false);
        }
        match resolution {
            Resolution::Command {
                argv,
                assignments,
                stdin_args,
                forced,
                runner,
            } => {
                // `find -exec CMD ;` and `fd -x CMD` run CMD per result: judged as commands of
                // their own, after the finder (its own words are classified without them).
                let exec = argv
                    .split_first()
                    .filter(|(program, _)| is_system_program(&program.text))
                    .and_then(|(program, args)| exec_clauses(basename(&program.text), args));
                let mut class = forced.unwrap_or_else(|| match &exec {
                    Some((outer, _)) => {
                        let mut finder = argv[..1].to_vec();
                        finder.extend(outer.iter().cloned());
                        classify(&finder, stdin_args)
                    }
                    None => classify(&argv, stdin_args),
                });
                let has_program = !argv.is_empty();
                let runner_texts: Vec<String> = runner.iter().map(|w| w.text.clone()).collect();
                let mut prefix = Vec::new();
                if has_program {
                    for a in &assignments {
                        let kind = env_kind(&a.name, &a.value.text);
                        let text = format!("{}={}", a.name, a.value.text);
                        if kind == EnvKind::Harmless || runner_texts.contains(&text) {
                            continue;
                        }
                        if !matches!(class, CommandClass::Other(_)) || prefix.is_empty() {
                            class = CommandClass::Other(match kind {
                                EnvKind::Steering => {
                                    format!("assigning `{}` can change what the command runs", a.name)
                                }
                                EnvKind::Harmless | EnvKind::Unknown => format!(
                                    "assigning `{}`, which is not known to be harmless, may change what the command runs",
                                    a.name
                                ),
                            });
                        }
                        prefix.push(text);
                    }
                } else if let Some(a) = assignments.iter().find(|a| is_sensitive(&a.name)) {
                    class = CommandClass::Other(format!(
                        "assigning `{}` can change what later commands run",
                        a.name
                    ));
                }
                if let Some(first) = runner.first() {
                    class = CommandClass::Other(guarded_reason(basename(&first.text)));
                    prefix.extend(runner_texts);
                }
                let dynamic = stdin_args
                    || fed
                    || argv.iter().any(|w| w.dynamic)
                    || (argv.is_empty() && assignments.iter().any(|a| a.value.dynamic));
                let texts: Vec<String> = if has_program {
                    argv.iter().map(|w| w.text.clone()).collect()
                } else {
                    assignments
                        .iter()
                        .map(|a| format!("{}={}", a.name, a.value.text))
                        .collect()
                };
                if !texts.is_empty() {
                    let run_time = RunTimeWords {
                        words: if has_program {
                            argv.iter()
                                .enumerate()
                                .filter(|(_, w)| w.dynamic)
                                .map(|(i, _)| i)
                                .collect()
                        } else {
                            Vec::new()
                        },
                        loops: self.out.loop_values_for(&texts, self.nesting),
                    };
                    self.out.subcommands.push(
                        SimpleCommand::new(texts, class, dynamic, has_program)
                            .with_prefix(&prefix)
                            .with_run_time(run_time),
                    );
                }
                for clause in exec.map(|(_, inner)| inner).unwrap_or_default() {
                    if clause.is_empty() {
                        self.out.fail("`-exec` without a command");
                        continue;
                    }
                    self.finish_command(clause, Vec::new(), depth + 1, true);
                }
            }
            Resolution::Script {
                script,
                assignments,
                runner,
            } => {
                if let Some(a) = assignments
                    .iter()
                    .find(|a| env_kind(&a.name, &a.value.text) != EnvKind::Harmless)
                {
                    self.out.fail(format!(
                        "assigning `{}` in front of a script can change what it runs",
                        a.name
                    ));
                }
                if let Some(first) = runner.first() {
                    let reason = guarded_reason(basename(&first.text));
                    let dynamic = runner.iter().any(|w| w.dynamic);
                    let texts = runner.into_iter().map(|w| w.text).collect();
                    self.out.subcommands.push(SimpleCommand::new(
                        texts,
                        CommandClass::Other(reason),
                        dynamic,
                        true,
                    ));
                }
                if self.too_deep(depth) {
                    return;
                }
                analyze_script(&script, self.nesting + 1, self.out);
            }
            Resolution::NotUnderstood { argv, reason } => {
                let reason = reason.to_string();
                self.out.fail(reason.clone());
                let dynamic = argv.iter().any(|w| w.dynamic);
                let texts: Vec<String> = argv.into_iter().map(|w| w.text).collect();
                if !texts.is_empty() {
                    self.out.subcommands.push(SimpleCommand::new(
                        texts,
                        CommandClass::Other(reason),
                        dynamic,
                        true,
                    ));
                }
            }
        }
    }

    fn assignment(&mut self, node: Node<'_>, depth: usize) -> Option<Assignment> {
        let mut name = None;
        let mut value = Word::literal("");
        for (field, child) in children(node) {
            match (field, child.kind()) {
                // Names are checked on the original text: the parser saw non-ASCII letters as `a`.
                (Some("name"), "variable_name") if is_valid_name(self.text(child)) => {
                    name = Some(self.text(child).to_string())
                }
                (Some("value"), "array") => {
                    self.unsupported(child);
                    return None;
                }
                (Some("value"), _) => value = self.word(child, depth + 1),
                (_, "=" | "+=") => {}
                _ => {
                    self.unsupported(child);
                    return None;
                }
            }
        }
        match name {
            Some(name) => Some(Assignment { name, value }),
            None => {
                self.unsupported(node);
                None
            }
        }
    }

    /// `export`, `local`, `declare`, `readonly`, `typeset`, `unset`: they change shell variables (and
    /// `declare -i` turns later assignments into arithmetic), so they are never read-only.
    fn declaration(&mut self, node: Node<'_>, depth: usize) {
        let mut texts = Vec::new();
        let mut dynamic = false;
        for (_, child) in children(node) {
            let word = match child.kind() {
                _ if !child.is_named() => Word::literal(self.text(child)),
                "variable_name" => Word::literal(self.text(child)),
                "variable_assignment" => match self.assignment(child, depth + 1) {
                    Some(a) => Word {
                        text: format!("{}={}", a.name, a.value.text),
                        dynamic: a.value.dynamic,
                        expands: false,
                    },
                    None => return,
                },
                _ => self.word(child, depth + 1),
            };
            dynamic |= word.dynamic;
            texts.push(word.text);
        }
        let reason = "changes shell variables".to_string();
        self.out.subcommands.push(SimpleCommand::new(
            texts,
            CommandClass::Other(reason),
            dynamic,
            true,
        ));
    }

    /// `[ ]` and `[[ ]]`: neutral, but their operands may hold substitutions, and `[[`'s arithmetic
    /// comparisons evaluate variable values as arithmetic (which can run hidden substitutions).
    fn test(&mut self, node: Node<'_>, depth: usize) {
        let double = node.child(0).is_some_and(|c| c.kind() == "[[");
        let mut tokens = Vec::new();
        let mut dynamic = false;
        self.test_expr(node, double, &mut tokens, &mut dynamic, depth);
        self.out
            .subcommands
            .push(SimpleCommand::new(tokens, CommandClass::Neutral, dynamic, true));
    }

    fn test_expr(
        &mut self,
        node: Node<'_>,
        double: bool,
        tokens: &mut Vec<String>,
        dynamic: &mut bool,
        depth: usize,
    ) {
        if self.too_deep(depth) {
            return;
        }
        let parts = children(node);
        let operator = parts
            .iter()
            .find(|(_, c)| c.kind() == "test_operator")
            .map(|(_, c)| self.text(*c));
        if node.kind() == "binary_expression"
            && double
            && operator.is_some_and(|op| ARITHMETIC_TESTS.contains(&op))
            && parts
                .iter()
                .any(|(f, c)| matches!(*f, Some("left" | "right")) && !self.is_literal_number(*c))
        {
            self.out
                .fail("`[[ ]]` arithmetic comparison of a value known only at run time");
        }
        if node.kind() == "unary_expression" && operator == Some("-v") && self.text(node).contains('[') {
            self.out.fail("`-v` with an array subscript evaluates arithmetic");
        }
        for (_, child) in parts {
            match child.kind() {
                _ if !child.is_named() => tokens.push(self.text(child).to_string()),
                "test_operator" => tokens.push(self.text(child).to_string()),
                "unary_expression" | "binary_expression" | "parenthesized_expression" => {
                    self.test_expr(child, double, tokens, dynamic, depth + 1)
                }
                "extglob_pattern" | "regex" => {
                    let text = self.text(child);
                    if text.contains('$') || text.contains('`') {
                        self.out
                            .fail("expansions inside `[[ ]]` patterns are not modelled");
                    }
                    tokens.push(text.to_string());
                }
                _ => {
                    let word = self.word(child, depth + 1);
                    *dynamic |= word.dynamic;
                    tokens.push(word.text);
                }
            }
        }
    }

    fn is_literal_number(&self, node: Node<'_>) -> bool {
        let text = self.text(node);
        matches!(node.kind(), "number" | "word")
            && node.named_child_count() == 0
            && text.trim_start_matches('-').chars().all(|c| c.is_ascii_digit())
            && !text.is_empty()
    }

    /// Evaluates one word: quote removal for literal parts, recursion into substitutions, and checks
    /// on expansions.
    pub(crate) fn word(&mut self, node: Node<'_>, depth: usize) -> Word {
        let text = self.text(node);
        let dynamic = Word {
            text: text.to_string(),
            dynamic: true,
            expands: false,
        };
        if self.too_deep(depth) {
            return dynamic;
        }
        match node.kind() {
            "word" => {
                self.check_unparsed(text);
                unquote_bare(text)
            }
            "number" if node.named_child_count() == 0 => Word::literal(text),
            "number" | "concatenation" => self.parts(node, false, depth),
            "raw_string" => match text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                Some(inner) => Word::literal(inner),
                None => {
                    self.unsupported(node);
                    dynamic
                }
            },
            "string" => self.parts(node, true, depth),
            "ansi_c_string" => {
                match text
                    .strip_prefix("$'")
                    .and_then(|t| t.strip_suffix('\''))
                    .and_then(decode_ansi_c)
                {
                    Some(decoded) => Word::literal(decoded),
                    None => {
                        self.out.fail(format!("the escapes in `{text}` are not modelled"));
                        dynamic
                    }
                }
            }
            "translated_string" => match node.named_child(0) {
                Some(inner) => self.word(inner, depth + 1),
                None => dynamic,
            },
            "simple_expansion" => dynamic,
            "expansion" => {
                self.expansion(node, depth);
                dynamic
            }
            "command_substitution" | "process_substitution" => {
                self.substitution(node, depth);
                dynamic
            }
            "arithmetic_expansion" => {
                self.arithmetic(node, depth);
                dynamic
            }
            "brace_expression" | "extglob_pattern" => {
                self.check_unparsed(text);
                Word {
                    text: text.to_string(),
                    dynamic: false,
                    expands: true,
                }
            }
            _ => {
                self.unsupported(node);
                dynamic
            }
        }
    }

    /// A word made of parts (`r''m`, `"a $b"`). Text between child nodes is literal source.
    fn parts(&mut self, node: Node<'_>, quoted: bool, depth: usize) -> Word {
        let literal = |walker: &mut Self, raw: &str| {
            walker.check_unparsed(raw);
            if quoted {
                Word::literal(unquote_double(raw))
            } else {
                unquote_bare(raw)
            }
        };
        let mut word = Word::literal("");
        let mut pos = node.start_byte();
        let all = children(node);
        let last = all.len().saturating_sub(1);
        for (i, (_, child)) in all.into_iter().enumerate() {
            if child.start_byte() > pos {
                word.push(&literal(
                    self,
                    self.src.get(pos..child.start_byte()).unwrap_or(""),
                ));
            }
            pos = child.end_byte();
            let is_quote = !child.is_named() && child.kind() == "\"" && (i == 0 || i == last);
            if quoted && is_quote {
                continue;
            }
            if child.is_named() && child.kind() != "string_content" {
                word.push(&self.word(child, depth + 1));
            } else {
                word.push(&literal(self, self.text(child)));
            }
        }
        if pos < node.end_byte() {
            word.push(&literal(self, self.src.get(pos..node.end_byte()).unwrap_or("")));
        }
        word
    }

    /// `${...}`: only plain reads of a variable; operands are walked for substitutions.
    fn expansion(&mut self, node: Node<'_>, depth: usize) {
        for (_, child) in children(node) {
            if !child.is_named() {
                let token = self.text(child);
                if !EXPANSION_TOKENS.contains(&token) {
                    self.out.fail(format!(
                        "the parameter expansion operator `{token}` is not modelled"
                    ));
                }
                continue;
            }
            match child.kind() {
                "variable_name" | "special_variable_name" => {}
                "subscript" => {
                    let index_ok = child.child_by_field_name("index").is_some_and(|index| {
                        let text = self.text(index);
                        index.named_child_count() == 0
                            && (text == "@" || text == "*" || text.chars().all(|c| c.is_ascii_digit()))
                    });
                    if !index_ok {
                        self.out
                            .fail("array subscripts are evaluated as arithmetic and are not modelled");
                    }
                }
                "regex" => {
                    let text = self.text(child);
                    if text.contains('$') || text.contains('`') {
                        self.out
                            .fail("expansions inside `${...}` patterns are not modelled");
                    }
                }
                _ => {
                    self.word(child, depth + 1);
                }
            }
        }
    }

    /// `$(...)`, backticks, `<(...)`, `>(...)`: the commands inside run too.
    fn substitution(&mut self, node: Node<'_>, depth: usize) {
        let text = self.text(node);
        if text.starts_with('`') && text.contains('\\') {
            // Inside backticks bash removes a level of backslashes before parsing; tree-sitter does not.
            self.out.fail("backslashes inside backticks are not modelled");
        }
        for (_, child) in children(node) {
            if !child.is_named() {
                continue;
            }
            if is_redirect(child.kind()) {
                self.redirect(child, depth + 1);
            } else {
                self.statement(child, depth + 1);
            }
        }
    }

    /// `$((...))`: numbers, operators, and variables this command set to a number first (see
    /// [`crate::tools::bash::arithmetic`]: bash evaluates a variable's value as arithmetic again, and
    /// a value like `a[$(cmd)]` runs `cmd`). Assignments, array subscripts and substitutions are not
    /// modelled.
    fn arithmetic(&mut self, node: Node<'_>, depth: usize) {
        if self.too_deep(depth) {
            return;
        }
        for (_, child) in children(node) {
            if !child.is_named() {
                let token = self.text(child);
                if ARITHMETIC_ASSIGN.contains(&token) {
                    self.out.fail("arithmetic with assignments is not modelled");
                }
                continue;
            }
            match child.kind() {
                "number" if child.named_child_count() == 0 => {}
                "binary_expression"
                | "unary_expression"
                | "postfix_expression"
                | "parenthesized_expression"
                | "ternary_expression" => self.arithmetic(child, depth + 1),
                "variable_name" => {
                    let name = self.text(child);
                    self.out.arithmetic.use_in_arithmetic(name);
                }
                "simple_expansion" | "expansion" => self.arithmetic_expansion_of(child),
                "subscript" => self
                    .out
                    .fail("an array subscript inside arithmetic is not modelled"),
                "command_substitution" | "process_substitution" => {
                    // The commands inside still run: walk them for deny rules.
                    self.substitution(child, depth + 1);
                    self.out
                        .fail("a command substitution inside arithmetic is not modelled");
                }
                _ => self.out.fail(format!(
                    "`{}` inside arithmetic is not modelled",
                    self.text(child).chars().take(40).collect::<String>()
                )),
            }
        }
    }

    /// `$i`, `${i}`, `${#s}`, `$#` inside arithmetic.
    fn arithmetic_expansion_of(&mut self, node: Node<'_>) {
        let text = self.text(node);
        // Always numbers: the count of arguments, the status, process ids, a length.
        if matches!(text, "$#" | "$?" | "$$" | "$!" | "${#}" | "${?}") {
            return;
        }
        let inner = text
            .strip_prefix("${")
            .and_then(|t| t.strip_suffix('}'))
            .or_else(|| text.strip_prefix('$'));
        match inner {
            Some(length) if length.starts_with('#') && is_valid_name(&length[1..]) => {}
            Some(name) if is_valid_name(name) => self.out.arithmetic.use_in_arithmetic(name),
            Some(_) | None => self.out.fail(format!(
                "the expansion `{}` inside arithmetic is not modelled",
                text.chars().take(40).collect::<String>()
            )),
        }
    }

    /// Whether an assignment's value is a number (digits, or one whole arithmetic expansion).
    fn is_number_value(&self, assignment: Node<'_>) -> bool {
        assignment.child_by_field_name("value").is_some_and(|value| {
            value.kind() == "arithmetic_expansion"
                || (value.named_child_count() == 0 && is_number_text(self.text(value)))
        }) && !children(assignment).iter().any(|(_, c)| c.kind() == "+=")
    }

    fn redirect(&mut self, node: Node<'_>, depth: usize) {
        if self.too_deep(depth) {
            return;
        }
        match node.kind() {
            "file_redirect" => self.file_redirect(node, depth),
            "heredoc_redirect" => self.heredoc(node, depth),
            "herestring_redirect" => {
                for (field, child) in children(node) {
                    if child.is_named() && field != Some("descriptor") {
                        self.word(child, depth + 1);
                    }
                }
            }
            _ => self.unsupported(node),
        }
    }

    fn file_redirect(&mut self, node: Node<'_>, depth: usize) {
        let mut operator = String::new();
        let mut destinations = Vec::new();
        for (field, child) in children(node) {
            if is_read_write_operator(child) {
                operator.push('>');
            } else if !child.is_named() {
                operator.push_str(self.text(child));
            } else if field != Some("descriptor") {
                // `< <(cmd)` reads the output of commands the walk visits; it names no file.
                let from_commands = child.kind() == "process_substitution";
                destinations.push((self.word(child, depth + 1), from_commands));
            }
        }
        let target = destinations.first().map(|(word, _)| word);
        let from_commands = destinations.first().is_some_and(|(_, p)| *p);
        let is_fd = |w: &Word| w.is_plain() && (w.text == "-" || w.text.chars().all(|c| c.is_ascii_digit()));
        let truncates = matches!(operator.as_str(), ">" | ">|" | "&>")
            || (operator == ">&" && !target.is_some_and(is_fd));
        if truncates && let Some(target) = target.filter(|t| t.is_plain()) {
            self.out.truncated_targets.push(target.text.clone());
        }
        match operator.as_str() {
            ">" | ">>" | ">|" | "&>" | "&>>" => self.write_target(target),
            "<>" => {
                self.read_target(target, from_commands);
                self.write_target(target);
            }
            ">&" | "<&" if target.is_some_and(is_fd) => {}
            // `>& file` is `&> file`.
            ">&" => self.write_target(target),
            // `<& file` opens the file for reading.
            "<" | "<&" => self.read_target(target, from_commands),
            "<&-" | ">&-" => {}
            _ => self.unsupported(node),
        }
    }

    /// Records a network connection opened by bash itself for `/dev/tcp/...` and `/dev/udp/...`
    /// targets; true when `target` is one.
    fn network_target(&mut self, target: &Word) -> bool {
        if is_network_path(&target.text) {
            self.out.network_targets.push(target.text.clone());
            return true;
        }
        false
    }

    fn read_target(&mut self, target: Option<&Word>, from_commands: bool) {
        let Some(target) = target else {
            self.out.fail("a redirection without a source");
            return;
        };
        if from_commands {
            return;
        }
        if !target.is_plain() {
            // The file is only known at run time: it could be anything, `/dev/tcp/...` included.
            self.out.fail(format!(
                "the redirection source `{}` is only known at run time",
                target.text
            ));
        } else if !self.network_target(target) && !HARMLESS_SOURCES.contains(&target.text.as_str()) {
            self.out.read_targets.push(target.text.clone());
        }
    }

    fn write_target(&mut self, target: Option<&Word>) {
        let Some(target) = target else {
            self.out.fail("a redirection without a target");
            return;
        };
        if !target.is_plain() {
            self.out.fail(format!(
                "the redirection target `{}` is only known at run time",
                target.text
            ));
        } else if target.text.starts_with('~') {
            self.out.fail(format!(
                "the redirection target `{}` depends on `~` expansion",
                target.text
            ));
        } else if !self.network_target(target) && !HARMLESS_TARGETS.contains(&target.text.as_str()) {
            self.out.write_targets.push(target.text.clone());
        }
    }

    /// `<<EOF` / `<<-EOF` / `<<'EOF'`: the body is data, except that an unquoted body expands
    /// substitutions. Commands piped or chained after the heredoc start hang off this node.
    fn heredoc(&mut self, node: Node<'_>, depth: usize) {
        let quoted = children(node)
            .iter()
            .any(|(_, c)| c.kind() == "heredoc_start" && self.text(*c).contains(['\'', '"', '\\']));
        for (field, child) in children(node) {
            if !child.is_named() {
                continue;
            }
            match child.kind() {
                "heredoc_start" | "heredoc_end" | "file_descriptor" => {}
                "heredoc_body" => {
                    if !quoted {
                        self.heredoc_body(child, depth + 1);
                    }
                }
                kind if is_redirect(kind) => self.redirect(child, depth + 1),
                _ if field == Some("argument") => {
                    self.word(child, depth + 1);
                }
                _ => self.statement(child, depth + 1),
            }
        }
    }

    fn heredoc_body(&mut self, node: Node<'_>, depth: usize) {
        let mut pos = node.start_byte();
        for (_, child) in children(node) {
            self.check_unparsed(self.src.get(pos..child.start_byte()).unwrap_or(""));
            pos = child.end_byte();
            match child.kind() {
                "heredoc_content" => self.check_unparsed(self.text(child)),
                "simple_expansion" => {}
                _ if !child.is_named() => {}
                _ => {
                    self.word(child, depth + 1);
                }
            }
        }
        self.check_unparsed(self.src.get(pos..node.end_byte()).unwrap_or(""));
    }

    /// Fails when literal text still holds a substitution the parser did not recognise.
    fn check_unparsed(&mut self, raw: &str) {
        if has_unparsed_substitution(raw) {
            let text: String = raw.chars().take(40).collect();
            self.out.fail(format!(
                "a substitution in `{text}` was not recognised by the parser"
            ));
        }
    }
}
