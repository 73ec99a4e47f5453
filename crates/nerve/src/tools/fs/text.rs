//! Text files as the edit tools work on them: decoded to a BOM-less, LF-only string, and encoded
//! back with the file's own BOM and line endings, so an edit never rewrites a whole CRLF file.

const BOM: &str = "\u{feff}";

/// A file's line-ending convention.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEnding {
    /// `\n`.
    Lf,
    /// `\r\n`.
    CrLf,
}

impl LineEnding {
    /// The convention most lines of `text` use (LF when there are no line breaks or a tie).
    pub fn detect(text: &str) -> Self {
        let crlf = text.matches("\r\n").count();
        let lf = text.matches('\n').count() - crlf;
        if crlf > lf { Self::CrLf } else { Self::Lf }
    }
}

/// A decoded text file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextFile {
    /// The content without BOM, with `\r\n` turned into `\n`.
    pub text: String,
    /// Whether the file starts with a UTF-8 byte-order mark.
    pub bom: bool,
    /// The file's line endings.
    pub line_ending: LineEnding,
}

impl TextFile {
    /// Decodes UTF-8 bytes; the error is for content that is not UTF-8 (binary, or another encoding).
    pub fn decode(bytes: &[u8]) -> Result<Self, std::str::Utf8Error> {
        let raw = std::str::from_utf8(bytes)?;
        let (bom, body) = match raw.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, raw),
        };
        Ok(Self {
            text: normalize_newlines(body),
            bom,
            line_ending: LineEnding::detect(body),
        })
    }

    /// The conventions of a new file: no BOM, LF.
    pub fn new_file(text: &str) -> Self {
        Self {
            text: text.to_string(),
            bom: false,
            line_ending: LineEnding::Lf,
        }
    }

    /// `text` (with `\n` line breaks) encoded with this file's BOM and line endings.
    pub fn encode(&self, text: &str) -> Vec<u8> {
        let text = normalize_newlines(text);
        let body = match self.line_ending {
            LineEnding::Lf => text,
            LineEnding::CrLf => text.replace('\n', "\r\n"),
        };
        let mut out = Vec::with_capacity(body.len() + 3);
        if self.bom {
            out.extend_from_slice(BOM.as_bytes());
        }
        out.extend_from_slice(body.as_bytes());
        out
    }
}

/// `\r\n` to `\n`; lone `\r` stays.
pub fn normalize_newlines(text: &str) -> String {
    if text.contains("\r\n") {
        text.replace("\r\n", "\n")
    } else {
        text.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn crlf_round_trips() {
        let f = TextFile::decode(b"a\r\nb\r\n").unwrap();
        assert_eq!(f.text, "a\nb\n");
        assert_eq!(f.line_ending, LineEnding::CrLf);
        assert_eq!(f.encode("a\nx\nb\n"), b"a\r\nx\r\nb\r\n");
        // New text written with CRLF by the model is not doubled.
        assert_eq!(f.encode("a\r\nb"), b"a\r\nb");
    }

    #[test]
    fn bom_round_trips() {
        let f = TextFile::decode("\u{feff}hello\n".as_bytes()).unwrap();
        assert!(f.bom);
        assert_eq!(f.text, "hello\n");
        assert_eq!(f.encode("bye\n"), "\u{feff}bye\n".as_bytes());
    }

    #[test]
    fn majority_decides_line_endings() {
        assert_eq!(LineEnding::detect("a\nb\nc\r\n"), LineEnding::Lf);
        assert_eq!(LineEnding::detect("a\r\nb\r\nc\n"), LineEnding::CrLf);
        assert_eq!(LineEnding::detect("no breaks"), LineEnding::Lf);
    }

    #[test]
    fn non_utf8_is_an_error() {
        assert!(TextFile::decode(&[0xff, 0xfe, 0x00]).is_err());
    }
}
