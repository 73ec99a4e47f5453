//! Turning a response body into text for the model: HTML becomes Markdown (with `htmd`), text,
//! Markdown, JSON and XML pass through, binary content is refused before it is downloaded.

/// How a body is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContentKind {
    /// HTML or XHTML: converted to Markdown.
    Html,
    /// Plain text, Markdown, JSON, XML, CSS, JavaScript, or no content type at all (judged by the
    /// bytes: text if it is UTF-8 without NUL bytes).
    Text,
    /// Anything else (images, audio, video, PDFs, archives, octet streams).
    Binary,
}

/// The kind for a `Content-Type` header value (parameters such as `charset` are ignored).
pub fn classify_content_type(content_type: Option<&str>) -> ContentKind {
    let Some(raw) = content_type else {
        return ContentKind::Text;
    };
    let mime = raw.split(';').next().unwrap_or("").trim().to_ascii_lowercase();
    if mime.is_empty() {
        return ContentKind::Text;
    }
    if mime == "text/html" || mime == "application/xhtml+xml" {
        return ContentKind::Html;
    }
    let textual_application = matches!(
        mime.as_str(),
        "application/json"
            | "application/xml"
            | "application/javascript"
            | "application/ecmascript"
            | "application/x-javascript"
            | "application/x-sh"
            | "application/x-yaml"
            | "application/yaml"
            | "application/toml"
            | "application/x-ndjson"
            | "application/sql"
            | "application/graphql"
    ) || (mime.starts_with("application/")
        && (mime.ends_with("+json") || mime.ends_with("+xml")));
    if mime.starts_with("text/") || textual_application {
        ContentKind::Text
    } else {
        ContentKind::Binary
    }
}

/// Why a body cannot be turned into text.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ConvertError {
    /// The body has no content type and does not look like text.
    #[error(
        "the response has no content type and its bytes are not text; WebFetch reads HTML, plain text, Markdown, JSON and XML only"
    )]
    NotText,
    /// The HTML could not be parsed.
    #[error("the HTML could not be converted to Markdown: {0}")]
    Html(String),
}

/// The body as text for the model. Bytes that are not UTF-8 are replaced (pages in legacy
/// encodings lose some characters rather than the whole page).
pub fn to_text(kind: ContentKind, body: &[u8]) -> Result<String, ConvertError> {
    match kind {
        ContentKind::Html => html_to_markdown(&String::from_utf8_lossy(body)),
        ContentKind::Text => {
            if body.contains(&0) {
                return Err(ConvertError::NotText);
            }
            Ok(String::from_utf8_lossy(body).into_owned())
        }
        ContentKind::Binary => Err(ConvertError::NotText),
    }
}

/// HTML to Markdown. Scripts, styles and other invisible parts are dropped: they cost tokens and
/// say nothing about the page's content.
pub fn html_to_markdown(html: &str) -> Result<String, ConvertError> {
    let converter = htmd::HtmlToMarkdown::builder()
        .skip_tags(vec![
            "script", "style", "noscript", "template", "svg", "iframe", "head", "link", "meta",
        ])
        .build();
    converter
        .convert(html)
        .map(|md| md.trim().to_string())
        .map_err(|e| ConvertError::Html(e.to_string()))
}

/// Cuts `text` to at most `max` bytes at a character boundary; returns whether it was cut.
pub fn truncate_at_boundary(text: &mut String, max: usize) -> bool {
    if text.len() <= max {
        return false;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.truncate(end);
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn content_types_are_classified() {
        assert_eq!(
            classify_content_type(Some("text/html; charset=utf-8")),
            ContentKind::Html
        );
        assert_eq!(
            classify_content_type(Some("application/xhtml+xml")),
            ContentKind::Html
        );
        for t in [
            "text/plain",
            "text/markdown",
            "application/json",
            "application/ld+json",
            "application/atom+xml",
            "text/css",
        ] {
            assert_eq!(classify_content_type(Some(t)), ContentKind::Text, "{t}");
        }
        for t in [
            "image/png",
            "application/pdf",
            "application/octet-stream",
            "video/mp4",
            "application/zip",
        ] {
            assert_eq!(classify_content_type(Some(t)), ContentKind::Binary, "{t}");
        }
        assert_eq!(classify_content_type(None), ContentKind::Text);
    }

    #[test]
    fn html_becomes_markdown_without_scripts() {
        let md = html_to_markdown(
            "<html><head><title>T</title><style>p{}</style></head><body><h1>Hello</h1>\
             <p>Some <strong>bold</strong> text and a <a href=\"https://x.test/\">link</a>.</p>\
             <script>alert(1)</script><ul><li>one</li><li>two</li></ul></body></html>",
        )
        .unwrap();
        assert!(md.starts_with("# Hello"), "{md}");
        assert!(
            md.contains("Some **bold** text and a [link](https://x.test/)."),
            "{md}"
        );
        assert!(md.contains("one") && md.contains("two"), "{md}");
        assert!(!md.contains("alert") && !md.contains("p{}"), "{md}");
    }

    #[test]
    fn text_passes_through_and_nul_bytes_are_refused() {
        assert_eq!(to_text(ContentKind::Text, b"{\"a\": 1}").unwrap(), "{\"a\": 1}");
        assert_eq!(to_text(ContentKind::Text, b"a\0b"), Err(ConvertError::NotText));
        assert_eq!(to_text(ContentKind::Binary, b"a"), Err(ConvertError::NotText));
    }

    #[test]
    fn truncation_respects_char_boundaries() {
        let mut s = "héllo".to_string();
        assert!(truncate_at_boundary(&mut s, 2));
        assert_eq!(s, "h");
        let mut s = "abc".to_string();
        assert!(!truncate_at_boundary(&mut s, 3));
        assert_eq!(s, "abc");
    }
}
