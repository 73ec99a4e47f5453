//! Which variables arithmetic (`$((i*33))`) may use. bash evaluates a variable's value as arithmetic
//! again, and a value like `a[$(rm -rf ~)]` runs the command in the subscript, so a variable is
//! understood only when this command itself set it to a number before using it (`i=0`,
//! `for i in 1 2 3`, `i=$((i+1))`) and nothing in the command may set it to other text (`read`,
//! `printf -v`, `declare`, a loop over words that are not numbers).

use std::collections::BTreeSet;

use crate::tools::bash::analysis::SimpleCommand;
use crate::tools::bash::words::basename;

/// Shell builtins that can set a variable to any text (through its name as an argument, an
/// assignment word or a reference); their presence anywhere makes arithmetic on variables unknown.
const SETS_VARIABLES: &[&str] = &[
    "read",
    "mapfile",
    "readarray",
    "getopts",
    "declare",
    "typeset",
    "local",
    "export",
    "readonly",
    "let",
    "source",
    ".",
    "unset",
    "eval",
    "select",
];

/// Whether a command may set a shell variable to any text (`printf -v`, `wait -p` only with the
/// option).
fn sets_variables(program: &str, args: &[String]) -> bool {
    let has_option = |letter: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(letter))
    };
    SETS_VARIABLES.contains(&program)
        || (program == "printf" && has_option('v'))
        || (program == "wait" && has_option('p'))
}

/// What the walk learned about variables used in arithmetic.
#[derive(Debug, Default)]
pub(crate) struct Variables {
    /// Set to a number so far, in the order the walk visits the command.
    numbers: BTreeSet<String>,
    /// Set to something else somewhere in the command.
    other: BTreeSet<String>,
    /// Used in arithmetic, with whether they had been set to a number before the use.
    used: Vec<(String, bool)>,
}

impl Variables {
    /// `name` is set to a number (`true`) or to other text.
    pub(crate) fn set(&mut self, name: &str, number: bool) {
        if number {
            self.numbers.insert(name.to_string());
        } else {
            self.other.insert(name.to_string());
        }
    }

    /// `name` is used in arithmetic here.
    pub(crate) fn use_in_arithmetic(&mut self, name: &str) {
        let known = self.numbers.contains(name);
        self.used.push((name.to_string(), known));
    }

    /// Why arithmetic in the command may run hidden code, given every command it runs, or `None`.
    pub(crate) fn unsafe_variable(&self, commands: &[SimpleCommand]) -> Option<String> {
        for (name, known) in &self.used {
            if !known {
                return Some(format!(
                    "arithmetic on the variable `{name}`, which this command does not set to a number first"
                ));
            }
            if self.other.contains(name) {
                return Some(format!(
                    "arithmetic on the variable `{name}`, which this command also sets to text that may not be a \
                     number"
                ));
            }
        }
        let (name, _) = self.used.first()?;
        let setter = commands.iter().find_map(|c| {
            let (program, args) = c.argv.split_first()?;
            let program = basename(program);
            sets_variables(program, args).then_some(program)
        })?;
        Some(format!(
            "arithmetic on the variable `{name}`, which `{setter}` may set to any text"
        ))
    }
}

/// Whether an assigned value is a number: digits (optionally signed), or a whole arithmetic
/// expansion, whose result is always one.
pub(crate) fn is_number_text(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit())
}

/// `{1..10}` or `{0..100..5}`: a brace expansion into numbers only.
pub(crate) fn is_number_sequence(text: &str) -> bool {
    let Some(inner) = text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) else {
        return false;
    };
    let parts: Vec<&str> = inner.split("..").collect();
    matches!(parts.len(), 2 | 3) && parts.iter().all(|p| is_number_text(p))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_and_sequences() {
        assert!(is_number_text("33") && is_number_text("-1"));
        assert!(!is_number_text("") && !is_number_text("a[1]") && !is_number_text("1e3"));
        assert!(is_number_sequence("{1..10}") && is_number_sequence("{0..100..5}"));
        assert!(!is_number_sequence("{a..z}") && !is_number_sequence("{1,2}"));
    }
}
