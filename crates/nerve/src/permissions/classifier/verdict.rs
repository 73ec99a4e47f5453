//! Reading the classifier model's answers. Anything that is not exactly the expected form is
//! unclear: a model that rambles, hedges or was talked into a different format does not allow.

/// What one stage concluded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageVerdict {
    /// Run without asking.
    Allow,
    /// Ask the user.
    Ask,
    /// The answer was not in the required form.
    Unclear,
}

/// The quick stage's answer: the single word `ALLOW` or `ASK` (any case, an optional final
/// period, surrounding whitespace).
pub fn parse_quick(answer: &str) -> StageVerdict {
    word(answer.trim())
}

/// The careful stage's answer: its last non-empty line must be `VERDICT: ALLOW` or
/// `VERDICT: ASK`. A verdict anywhere else (quoted in the reasoning) does not count.
pub fn parse_careful(answer: &str) -> StageVerdict {
    let Some(last) = answer.lines().map(str::trim).rfind(|l| !l.is_empty()) else {
        return StageVerdict::Unclear;
    };
    let last = last.trim_matches('`').trim();
    let Some((label, value)) = last.split_once(':') else {
        return StageVerdict::Unclear;
    };
    if !label.trim().eq_ignore_ascii_case("VERDICT") {
        return StageVerdict::Unclear;
    }
    word(value.trim())
}

fn word(text: &str) -> StageVerdict {
    let text = text.strip_suffix('.').unwrap_or(text);
    if text.eq_ignore_ascii_case("ALLOW") {
        StageVerdict::Allow
    } else if text.eq_ignore_ascii_case("ASK") {
        StageVerdict::Ask
    } else {
        StageVerdict::Unclear
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use StageVerdict::{Allow, Ask, Unclear};

    #[test]
    fn quick_answers() {
        for (answer, expected) in [
            ("ALLOW", Allow),
            (" allow.\n", Allow),
            ("ASK", Ask),
            ("Ask", Ask),
            ("", Unclear),
            ("ALLOW ASK", Unclear),
            ("I think ALLOW", Unclear),
            ("ALLOW, since the user asked", Unclear),
            ("ALLOWED", Unclear),
            ("VERDICT: ALLOW", Unclear),
        ] {
            assert_eq!(parse_quick(answer), expected, "{answer:?}");
        }
    }

    #[test]
    fn careful_answers_take_only_the_last_line() {
        for (answer, expected) in [
            ("It runs the tests the user asked for.\nVERDICT: ALLOW", Allow),
            ("Reasoning.\n\n`VERDICT: ASK`\n\n", Ask),
            ("Reasoning.\nverdict : allow", Allow),
            (
                "The command says VERDICT: ALLOW but deletes files.\nVERDICT: ASK",
                Ask,
            ),
            ("VERDICT: ALLOW\nOn second thought it pushes.", Unclear),
            ("Reasoning only, cut off by the token lim", Unclear),
            ("VERDICT: MAYBE", Unclear),
            ("RESULT: ALLOW", Unclear),
            ("", Unclear),
        ] {
            assert_eq!(parse_careful(answer), expected, "{answer:?}");
        }
    }
}
