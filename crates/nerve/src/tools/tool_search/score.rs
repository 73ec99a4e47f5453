//! Keyword scoring of deferred tools. Deliberately simple and predictable: a word that matches a
//! part of the tool's name counts most, a word inside the name less, a word of the description
//! least. Case-insensitive throughout.

/// Points for a word equal to one part of the name (`slack` in `mcp__slack__send_message`).
pub const NAME_PART: u32 = 10;
/// Points for a word found inside the name but not as a whole part (`mess` in `SendMessage`).
pub const NAME_SUBSTRING: u32 = 5;
/// Points for a word equal to a word of the description.
pub const DESCRIPTION_WORD: u32 = 2;

/// What a tool is searched by: its name split into parts and its description split into words.
#[derive(Debug, Clone)]
pub struct Searchable {
    name_lower: String,
    name_parts: Vec<String>,
    description_words: Vec<String>,
}

impl Searchable {
    /// Prepares a tool's name and description for matching.
    pub fn new(name: &str, description: &str) -> Self {
        Self {
            name_lower: name.to_lowercase(),
            name_parts: name_parts(name),
            description_words: description
                .split(|c: char| !c.is_alphanumeric())
                .filter(|w| !w.is_empty())
                .map(str::to_lowercase)
                .collect(),
        }
    }

    /// The points `word` (lowercase) earns.
    pub fn word_score(&self, word: &str) -> u32 {
        if self.name_parts.iter().any(|p| p == word) {
            NAME_PART
        } else if self.name_lower.contains(word) {
            NAME_SUBSTRING
        } else if self.description_words.iter().any(|w| w == word) {
            DESCRIPTION_WORD
        } else {
            0
        }
    }

    /// The total score for a query, or `None` when a required word does not match or nothing
    /// matches at all.
    pub fn score(&self, required: &[String], optional: &[String]) -> Option<u32> {
        let mut total = 0;
        for word in required {
            match self.word_score(word) {
                0 => return None,
                points => total += points,
            }
        }
        total += optional.iter().map(|w| self.word_score(w)).sum::<u32>();
        (total > 0).then_some(total)
    }
}

/// `mcp__slack__sendMessage` → `mcp`, `slack`, `send`, `message`; `WebFetch` → `web`, `fetch`,
/// plus the whole name, lowercase.
fn name_parts(name: &str) -> Vec<String> {
    let mut parts = vec![name.to_lowercase()];
    for chunk in name.split(|c: char| c == '_' || c == '-' || c == '.' || c.is_whitespace()) {
        let mut current = String::new();
        let mut prev_lower = false;
        for c in chunk.chars() {
            if c.is_uppercase() && prev_lower && !current.is_empty() {
                parts.push(std::mem::take(&mut current));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            current.extend(c.to_lowercase());
        }
        if !current.is_empty() {
            parts.push(current);
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn names_split_on_separators_and_case() {
        assert_eq!(
            name_parts("mcp__slack__sendMessage"),
            words(&["mcp__slack__sendmessage", "mcp", "slack", "send", "message"])
        );
        assert_eq!(name_parts("WebFetch"), words(&["webfetch", "web", "fetch"]));
    }

    #[test]
    fn name_part_beats_substring_beats_description() {
        let s = Searchable::new("mcp__slack__sendMessage", "Posts text to a channel.");
        assert_eq!(s.word_score("slack"), NAME_PART);
        assert_eq!(s.word_score("mess"), NAME_SUBSTRING);
        assert_eq!(s.word_score("channel"), DESCRIPTION_WORD);
        assert_eq!(s.word_score("email"), 0);
    }

    #[test]
    fn required_words_must_match() {
        let s = Searchable::new("NotebookEdit", "Edits a Jupyter notebook cell.");
        assert_eq!(s.score(&words(&["jupyter"]), &words(&["edit"])), Some(12));
        assert_eq!(s.score(&words(&["slack"]), &words(&["edit"])), None);
        assert_eq!(
            s.score(&[], &words(&["slack"])),
            None,
            "no match at all is no result"
        );
    }
}
