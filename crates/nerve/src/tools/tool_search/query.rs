//! Parsing a ToolSearch query: `select:A,B` names tools outright; anything else is keywords, where
//! `+word` marks a word every result must contain.

/// A parsed query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Query {
    /// Exactly these tool names, in the order given, without duplicates.
    Select(Vec<String>),
    /// A keyword search.
    Keywords {
        /// Words every result must match (from `+word`), lowercase.
        required: Vec<String>,
        /// Words that only add to the score, lowercase.
        optional: Vec<String>,
    },
}

/// Parses `text`. Keywords are lowercased; `select:` names keep their case (tool names are exact).
pub fn parse(text: &str) -> Query {
    let trimmed = text.trim();
    if let Some(rest) = strip_prefix_ignore_case(trimmed, "select:") {
        let mut names: Vec<String> = Vec::new();
        for name in rest.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            if !names.iter().any(|n| n == name) {
                names.push(name.to_string());
            }
        }
        return Query::Select(names);
    }
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for word in trimmed.split_whitespace() {
        let lower = word.to_lowercase();
        match lower.strip_prefix('+') {
            Some("") => {}
            Some(w) => required.push(w.to_string()),
            None => optional.push(lower),
        }
    }
    Query::Keywords { required, optional }
}

fn strip_prefix_ignore_case<'a>(text: &'a str, prefix: &str) -> Option<&'a str> {
    let head = text.get(..prefix.len())?;
    head.eq_ignore_ascii_case(prefix).then(|| &text[prefix.len()..])
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn select_lists_names_trimmed_and_deduplicated() {
        assert_eq!(
            parse(" select: WebFetch, mcp__gh__list ,WebFetch,, "),
            Query::Select(vec!["WebFetch".into(), "mcp__gh__list".into()])
        );
        assert_eq!(parse("SELECT:Read"), Query::Select(vec!["Read".into()]));
        assert_eq!(parse("select:"), Query::Select(vec![]));
    }

    #[test]
    fn keywords_split_required_and_optional_lowercased() {
        assert_eq!(
            parse("+Slack send  Message +"),
            Query::Keywords {
                required: vec!["slack".into()],
                optional: vec!["send".into(), "message".into()],
            }
        );
        assert_eq!(
            parse("   "),
            Query::Keywords {
                required: vec![],
                optional: vec![]
            }
        );
    }
}
